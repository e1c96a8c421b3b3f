//! Short success messages of writes, edits, todo lists, memory and directories; edits list what they changed.

use super::Writers;
use crate::generate::buf::TextBuf;
use crate::generate::vocab;
use crate::generate::{Body, Ctx, Draft};

/// How this kind's outputs are written: [`write`] and, below the scenario's `short_units`, [`short`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: Some(short),
};

/// Writes a short success message (longer targets list what was done).
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 128);
    let kind = rng.below(5);
    let tool = match kind {
        0 => {
            b.ascii("Successfully wrote ");
            b.num_grouped(rng.range(40, 40_000));
            b.ascii(" bytes to ");
            vocab::src_path(&mut b, rng, "src/", ".rs");
            b.ascii(".");
            "write_file"
        }
        1 => {
            b.ascii("Applied ");
            b.num(rng.range(1, 6));
            b.ascii(" edit(s) to ");
            vocab::src_path(&mut b, rng, "crates/ledger-core/src/", ".rs");
            b.ascii(".");
            "replace"
        }
        2 => {
            b.ascii("Todo list updated: ");
            b.num(rng.below(6));
            b.ascii(" pending, ");
            b.num(rng.below(3));
            b.ascii(" in progress, ");
            b.num(rng.below(12));
            b.ascii(" done.");
            "write_todos"
        }
        3 => {
            b.ascii("Saved to memory: prefers ");
            b.ascii(rng.pick(&["snake_case", "small commits", "British spelling", "tabs"]));
            b.ascii(".");
            "save_memory"
        }
        _ => {
            b.ascii("Created directory ");
            vocab::src_path(&mut b, rng, "", "");
            b.ascii(".");
            "create_directory"
        }
    };
    // Edits list what they changed; the other tools say one line whatever the target.
    while kind <= 1 && b.units() + 30 < target {
        b.ascii("\n- line ");
        b.num(rng.range(1, 900));
        b.ascii(": ");
        vocab::ident(&mut b, rng);
        b.ascii(" updated");
    }
    Draft::output(tool, Body::Text(b.finish()))
}

/// A write, a directory made or a task list updated, with the numbers and paths that make each one its own.
fn short(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 96);
    let tool = match rng.below(3) {
        0 => {
            b.ascii("Successfully wrote ");
            b.num_grouped(rng.range(40, 400_000));
            b.ascii(" bytes to ");
            vocab::src_path(&mut b, rng, "src/", ".rs");
            b.ascii(".");
            "write_file"
        }
        1 => {
            b.ascii("Created directory ");
            vocab::src_path(&mut b, rng, "", "");
            b.ascii("/");
            vocab::ident(&mut b, rng);
            b.ascii(".");
            "create_directory"
        }
        _ => {
            b.ascii("Todo list updated: ");
            b.num(rng.below(20));
            b.ascii(" pending, ");
            b.num(rng.below(4));
            b.ascii(" in progress, ");
            b.num(rng.below(40));
            b.ascii(" done; next: ");
            vocab::ident(&mut b, rng);
            b.ascii(".");
            "write_todos"
        }
    };
    // What else it did, when there is room.
    while b.units() + 30 < target {
        b.ascii("\n- ");
        vocab::ident(&mut b, rng);
        b.ascii(": ");
        vocab::src_path(&mut b, rng, "src/", ".rs");
    }
    Draft::output(tool, Body::Text(b.finish()))
}
