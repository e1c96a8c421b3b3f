//! Error fields with stack traces (Node, Python, PostgreSQL); the first error line is planted as a needle.

use super::Writers;
use crate::generate::buf::TextBuf;
use crate::generate::vocab::{self, MODULES, NOUNS, VERBS};
use crate::generate::{Ctx, Draft};
use crate::needles::NeedleKind;

/// How this kind's outputs are written: [`write`] and, below the scenario's `short_units`, [`short`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: Some(short),
};

/// An error field with a stack trace of about `target` units; its first line is planted.
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 256);
    let (tool, style) = rng.pick(&[
        ("read_file", 0),
        ("web_fetch", 0),
        ("run_python", 1),
        ("mcp__warehouse__run_query", 2),
    ]);
    match style {
        0 => {
            b.needle_line(NeedleKind::FirstError, |b| {
                b.ascii("Error: ENOENT: no such file or directory, open '");
                vocab::src_path(b, rng, "/home/dev/work/tallyhouse/src/", ".rs");
                b.ascii("'");
            });
            while b.units() + 60 < target {
                b.ascii("\n    at ");
                b.ascii(&vocab::pascal_case(rng.pick(NOUNS)));
                b.ascii("Service.");
                b.ascii(rng.pick(VERBS));
                b.ascii(" (file:///opt/agent/dist/");
                b.ascii(rng.pick(MODULES));
                b.ascii(".js:");
                b.num(rng.range(10, 4000));
                b.ascii(":");
                b.num(rng.range(3, 80));
                b.ascii(")");
            }
        }
        1 => {
            b.ascii("Traceback (most recent call last):");
            while b.units() + 120 < target {
                b.ascii("\n  File \"/srv/jobs/");
                b.ascii(rng.pick(MODULES));
                b.ascii(".py\", line ");
                b.num(rng.range(5, 800));
                b.ascii(", in ");
                vocab::ident(&mut b, rng);
                b.ascii("\n    ");
                vocab::ident(&mut b, rng);
                b.ascii("(payload)");
            }
            b.nl();
            b.needle_line(NeedleKind::FirstError, |b| {
                b.ascii("TimeoutError: query exceeded 30s");
            });
        }
        _ => {
            b.needle_line(NeedleKind::FirstError, |b| {
                b.ascii("ERROR:  canceling statement due to statement timeout");
            });
            b.ascii("\nCONTEXT:  SQL statement in function ");
            vocab::ident(&mut b, rng);
            while b.units() + 60 < target {
                b.ascii("\nPL/pgSQL function ");
                vocab::ident(&mut b, rng);
                b.ascii("(bigint) line ");
                b.num(rng.range(2, 300));
                b.ascii(" at PERFORM");
            }
        }
    }
    Draft::error(tool, b.finish())
}

/// A one-line error naming its file or argument, and a line or two of context when there is room.
fn short(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 160);
    let (tool, form) = rng.pick(&[
        ("read_file", 0),
        ("run_python", 1),
        ("run_shell_command", 2),
        ("replace", 3),
    ]);
    b.needle_line(NeedleKind::FirstError, |b| match form {
        0 => {
            b.ascii("FileNotFoundError: [Errno 2] No such file or directory: '");
            vocab::src_path(b, rng, "src/", ".py");
            b.ascii("'");
        }
        1 => {
            b.ascii("ValueError: invalid literal for int() with base 10: '");
            vocab::ident(b, rng);
            b.num(rng.range(0, 100_000));
            b.ascii("'");
        }
        2 => {
            b.ascii("error: unexpected argument '--");
            vocab::ident(b, rng);
            b.ascii("=");
            b.num(rng.range(0, 100_000));
            b.ascii("' found");
        }
        _ => {
            b.ascii("Error: no match for the text to replace in ");
            vocab::src_path(b, rng, "src/", ".rs");
            b.ascii(" (line ");
            b.num(rng.range(1, 900));
            b.ascii(")");
        }
    });
    while b.units() + 40 < target {
        b.ascii("\n  at ");
        vocab::src_path(&mut b, rng, "src/", ".py");
        b.ascii(":");
        b.num(rng.range(1, 900));
    }
    Draft::error(tool, b.finish())
}
