//! Directory listings: files and `[DIR]` entries of one of the made-up projects.

use super::Writers;
use crate::generate::buf::TextBuf;
use crate::generate::vocab::{self, MODULES, NOUNS, PROJECTS, VERBS};
use crate::generate::{Body, Ctx, Draft};

/// How this kind's outputs are written: [`write`] and, below the scenario's `short_units`, [`short`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: Some(short),
};

/// Writes a directory listing of about `target` units.
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let (project, _) = rng.pick(PROJECTS);
    let mut b = TextBuf::with_capacity(target + 128);
    b.ascii("Directory listing for ");
    vocab::project_root(&mut b, project);
    b.ascii("/");
    b.ascii(rng.pick(MODULES));
    b.ascii(":\n");
    while b.units() + 24 < target {
        if rng.below(4) == 0 {
            b.ascii("[DIR] ");
            b.ascii(rng.pick(MODULES));
        } else {
            b.ascii(rng.pick(NOUNS));
            b.ascii("_");
            b.ascii(rng.pick(VERBS));
            b.ascii(rng.pick(&[".rs", ".ts", ".py", ".md", ".json", ".toml", ".snap"]));
        }
        b.nl();
    }
    Draft::output("list_directory", Body::Text(b.finish()))
}

/// A few file names.
fn short(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 64);
    loop {
        b.ascii(rng.pick(NOUNS));
        b.ascii("_");
        b.ascii(rng.pick(VERBS));
        b.ascii(rng.pick(&[".py", ".rs", ".ts", ".md", ".json", ".toml"]));
        b.nl();
        if b.units() + 16 >= target {
            break;
        }
    }
    Draft::output("list_directory", Body::Text(b.finish()))
}
