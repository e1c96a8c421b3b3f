//! Grep/search results: `path:line:match` lines for one identifier across files, ending with the match count
//! (planted as the summary needle).

use super::Writers;
use crate::generate::buf::TextBuf;
use crate::generate::cjk;
use crate::generate::vocab::{self, NOUNS, VERBS};
use crate::generate::{Body, Ctx, Draft};
use crate::needles::NeedleKind;

/// How this kind's outputs are written: [`write`] and, below the scenario's `short_units`, [`short`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: Some(short),
};

/// Writes grep/search results of about `target` units, ending with a match count.
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    let zh = c.knobs.cjk_share;
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 256);
    let needle = format!("{}_{}", rng.pick(VERBS), rng.pick(NOUNS));
    let (mut files, mut matches) = (0u64, 0u64);
    let mut path = TextBuf::with_capacity(64);
    while b.units() + 80 < target {
        path = TextBuf::with_capacity(path.as_str().len().max(32));
        vocab::src_path(&mut path, rng, "src/", ".rs");
        files += 1;
        let mut line = 0;
        for _ in 0..rng.range(1, 6) {
            line += rng.range(1, 400);
            b.ascii(path.as_str());
            b.ascii(":");
            b.num(line);
            b.ascii(":");
            match rng.below(3) {
                0 => {
                    b.ascii("    let total = ");
                    b.ascii(&needle);
                    b.ascii("(&entries, self.");
                    b.ascii(rng.pick(NOUNS));
                    b.ascii(")?;");
                }
                1 => {
                    b.ascii("pub(crate) fn ");
                    b.ascii(&needle);
                    b.ascii("(");
                    b.ascii(rng.pick(NOUNS));
                    b.ascii(": &[Entry]) -> u64 {");
                }
                _ => {
                    b.ascii("        // TODO: ");
                    b.ascii(&needle);
                    b.ascii(" ");
                    if cjk::chosen(rng, zh) {
                        cjk::comment(&mut b, rng);
                    } else {
                        vocab::sentence(&mut b, rng, 6);
                    }
                }
            }
            b.nl();
            matches += 1;
        }
    }
    b.needle_line(NeedleKind::SummaryLine, |b| {
        b.num(matches);
        b.ascii(if matches == 1 {
            " match in "
        } else {
            " matches in "
        });
        b.num(files);
        b.ascii(if files == 1 { " file" } else { " files" });
    });
    Draft::output("search_file_content", Body::Text(b.finish()))
}

/// One or a few matches of an identifier and their count.
fn short(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 160);
    let needle = format!("{}_{}", rng.pick(VERBS), rng.pick(NOUNS));
    let mut matches = 0u64;
    loop {
        vocab::src_path(&mut b, rng, "src/", ".py");
        b.ascii(":");
        b.num(rng.range(1, 900));
        b.ascii(":    ");
        b.ascii(&needle);
        b.ascii("()\n");
        matches += 1;
        if b.units() + 70 >= target {
            break;
        }
    }
    b.needle_line(NeedleKind::SummaryLine, |b| {
        b.num(matches);
        b.ascii(if matches == 1 {
            " match in "
        } else {
            " matches in "
        });
        b.num(matches);
        b.ascii(if matches == 1 { " file" } else { " files" });
    });
    Draft::output("search_file_content", Body::Text(b.finish()))
}
