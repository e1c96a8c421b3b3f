//! `git log` and `git diff` output.

use super::{header, paint, Exit};
use crate::generate::buf::TextBuf;
use crate::generate::vocab::{self, MODULES, NOUNS, PEOPLE};
use crate::needles::NeedleKind;
use crate::rng::Stream;

const COMMIT_SUBJECTS: &[&str] = &[
    "reject postings with mismatched currencies",
    "keep rounding stable when splitting invoices",
    "retry webhook delivery with jittered backoff",
    "move cursor pagination into the query builder",
    "fix off-by-one in monthly report window",
    "bump lockfile after dependency review",
    "cache tenant settings for the request lifetime",
    "document the export file layout",
    "drop the legacy v1 import path",
    "speed up balance recomputation for large ledgers",
];

pub(super) fn log(rng: &mut Stream, b: &mut TextBuf, target: usize) -> Exit {
    header(b, "git log -n 200", None);
    while b.units() + 40 < target {
        let (name, handle) = rng.pick(PEOPLE);
        b.ascii("commit ");
        vocab::hex_id(b, rng, 40);
        b.ascii("\nAuthor: ");
        b.push(name);
        b.ascii(" <");
        b.ascii(handle);
        b.ascii("@users.example.dev>\nDate:   ");
        vocab::git_date(b, rng);
        b.ascii("\n\n    ");
        b.ascii(rng.pick(MODULES));
        b.ascii(": ");
        b.ascii(rng.pick(COMMIT_SUBJECTS));
        b.ascii("\n\n");
        if rng.below(3) == 0 {
            b.ascii("    ");
            vocab::sentence(b, rng, 14);
            b.ascii("\n    ");
            vocab::sentence(b, rng, 11);
            b.ascii(".\n\n");
        }
    }
    Exit(0, None)
}

pub(super) fn diff(rng: &mut Stream, b: &mut TextBuf, target: usize, color: bool) -> Exit {
    header(b, "git diff HEAD~3", None);
    let (mut files, mut ins, mut del) = (0u64, 0u64, 0u64);
    let mut path = TextBuf::with_capacity(48);
    while b.units() + 400 < target {
        path = TextBuf::with_capacity(path.as_str().len());
        vocab::src_path(&mut path, rng, "src/", ".rs");
        let path = path.as_str();
        files += 1;
        paint(b, color, "1", "diff --git a/");
        b.ascii(path);
        b.ascii(" b/");
        b.ascii(path);
        b.ascii("\nindex ");
        vocab::hex_id(b, rng, 7);
        b.ascii("..");
        vocab::hex_id(b, rng, 7);
        b.ascii(" 100644\n--- a/");
        b.ascii(path);
        b.ascii("\n+++ b/");
        b.ascii(path);
        b.nl();
        for hunk in 0..rng.range(1, 4) {
            if hunk > 0 && b.units() + 700 > target {
                break;
            }
            let at = rng.range(1, 800);
            paint(b, color, "36", "@@ -");
            b.num(at);
            b.ascii(",7 +");
            b.num(at);
            b.ascii(",8 @@ impl ");
            b.ascii(&vocab::pascal_case(rng.pick(NOUNS)));
            b.ascii(" {\n         let ");
            vocab::ident(b, rng);
            b.ascii(" = self.");
            vocab::ident(b, rng);
            b.ascii("();\n");
            for _ in 0..rng.range(1, 5) {
                if color {
                    b.ascii("\x1b[31m");
                }
                b.ascii("-        if ");
                vocab::ident(b, rng);
                b.ascii(" > self.limit {");
                if color {
                    b.ascii("\x1b[0m");
                }
                b.nl();
                del += 1;
            }
            for _ in 0..rng.range(1, 6) {
                if color {
                    b.ascii("\x1b[32m");
                }
                b.ascii("+        if ");
                vocab::ident(b, rng);
                b.ascii(".saturating_sub(self.");
                b.ascii(rng.pick(NOUNS));
                b.ascii(") > self.limit {");
                if color {
                    b.ascii("\x1b[0m");
                }
                b.nl();
                ins += 1;
            }
            b.ascii("             return Err(Error::");
            b.ascii(&vocab::pascal_case(rng.pick(NOUNS)));
            b.ascii("Limit);\n         }\n");
        }
    }
    b.needle_line(NeedleKind::SummaryLine, |b| {
        b.ascii(" ");
        b.num(files);
        b.ascii(if files == 1 {
            " file changed, "
        } else {
            " files changed, "
        });
        b.num(ins);
        b.ascii(" insertions(+), ");
        b.num(del);
        b.ascii(" deletions(-)");
    });
    b.nl();
    Exit(0, None)
}
