//! The top-level text parts a hook adds to an entry (hook context): lint results, affected tests, reminders.
//! Not a kind of output: any entry may get one, at the scenario's `hook_text_rate`.

use super::buf::{TextBuf, Written};
use super::vocab::{self, NOUNS};
use crate::rng::Stream;

/// A top-level hook-context text part of about `target` units.
pub(crate) fn write(rng: &mut Stream, target: usize) -> Written {
    let mut b = TextBuf::with_capacity(target + 128);
    let hook = rng.pick(&[
        "lint-on-save",
        "test-impact",
        "policy-reminder",
        "format-check",
    ]);
    b.ascii("<hook-context hook=\"");
    b.ascii(hook);
    b.ascii("\" event=\"PostToolUse\">\n");
    while b.units() + 40 < target {
        match rng.below(3) {
            0 => {
                b.ascii("eslint: ");
                b.num(rng.below(4));
                b.ascii(" problems (0 errors) in web/src/");
                b.ascii(&vocab::pascal_case(rng.pick(NOUNS)));
                b.ascii("View.tsx\n");
            }
            1 => {
                b.ascii("Affected tests: ");
                vocab::test_path(&mut b, rng);
                b.nl();
            }
            _ => {
                b.ascii("Reminder: ");
                vocab::sentence(&mut b, rng, 9);
                b.ascii(".\n");
            }
        }
    }
    b.ascii("</hook-context>");
    b.finish()
}
