//! The many short commands of a real session: status, listings, one-liners and their short outputs.

use super::{header, Exit};
use crate::generate::buf::TextBuf;
use crate::generate::vocab::{self, MODULES, PROJECTS};
use crate::needles::NeedleKind;
use crate::rng::Stream;

pub(super) fn command(rng: &mut Stream, b: &mut TextBuf, target: usize) -> Exit {
    let (project, _) = rng.pick(PROJECTS);
    match rng.below(6) {
        0 => {
            header(b, "git status --short", None);
            while b.units() + 40 < target {
                let r = rng.next_u32();
                b.ascii([" M ", "M  ", "?? ", " D ", "A  "][(r % 5) as usize]);
                vocab::src_path(b, rng, "src/", ".rs");
                b.nl();
            }
            Exit(0, None)
        }
        1 => {
            header(b, "ls -la", Some("crates"));
            b.ascii("total ");
            b.num(rng.range(8, 96));
            b.nl();
            while b.units() + 70 < target {
                let r = rng.next_u64();
                b.ascii(if r & 1 == 0 {
                    "drwxr-xr-x  "
                } else {
                    "-rw-r--r--  "
                });
                b.num(1 + (r >> 1) % 9);
                b.ascii(" dev dev ");
                b.num_right((r >> 8) % 40_000, 6);
                b.ascii(" ");
                b.ascii(vocab::MONTHS[((r >> 24) % 12) as usize]);
                b.ascii(" ");
                b.num_right(1 + (r >> 28) % 28, 2);
                b.ascii(" ");
                b.num_pad((r >> 33) % 24, 2);
                b.ascii(":");
                b.num_pad((r >> 38) % 60, 2);
                b.ascii(" ");
                b.ascii(MODULES[((r >> 44) % MODULES.len() as u64) as usize]);
                if r & 1 == 1 {
                    b.ascii(".rs");
                }
                b.nl();
            }
            Exit(0, None)
        }
        2 => {
            header(b, "cargo fmt --all -- --check", None);
            let mut wrote = false;
            while b.units() + 160 < target {
                b.ascii("Diff in ");
                vocab::project_root(b, project);
                b.ascii("/");
                vocab::src_path(b, rng, "src/", ".rs");
                b.ascii(":");
                b.num(rng.range(3, 400));
                b.ascii(":\n-    let ");
                vocab::ident(b, rng);
                b.ascii(" = self.inner.lock().unwrap().len();\n+    let len =\n+        self.inner.lock().unwrap().len();\n");
                wrote = true;
            }
            Exit(u8::from(wrote), None)
        }
        3 => {
            header(b, "python3 scripts/check_rates.py --date 2025-03-04", None);
            b.ascii("Traceback (most recent call last):\n");
            while b.units() + 200 < target {
                b.ascii("  File \"");
                vocab::project_root(b, project);
                b.ascii("/scripts/");
                b.ascii(rng.pick(MODULES));
                b.ascii(".py\", line ");
                b.num(rng.range(4, 300));
                b.ascii(", in ");
                vocab::ident(b, rng);
                b.ascii("\n    return ");
                vocab::ident(b, rng);
                b.ascii("(rows, strict=True)\n");
            }
            b.needle_line(NeedleKind::FirstError, |b| {
                b.ascii("KeyError: 'EUR'");
            });
            b.nl();
            Exit(1, None)
        }
        4 => {
            let cmd = [
                "mkdir -p build/out",
                "cp .env.example .env",
                "touch notes/todo.md",
            ];
            header(b, rng.pick(&cmd), None);
            b.ascii("(no output)\n");
            Exit(0, None)
        }
        _ => {
            header(b, "wc -l src/**/*.rs", Some(project));
            let mut total = 0;
            while b.units() + 60 < target {
                let n = rng.range(12, 1400);
                total += n;
                b.num_right(n, 6);
                b.ascii(" ");
                vocab::src_path(b, rng, "src/", ".rs");
                b.nl();
            }
            b.needle_line(NeedleKind::SummaryLine, |b| {
                b.num_right(total, 6);
                b.ascii(" total");
            });
            b.nl();
            Exit(0, None)
        }
    }
}
