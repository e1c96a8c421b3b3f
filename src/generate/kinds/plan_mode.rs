//! `enter_plan_mode` responses: the lifecycle reminder exactly (policy input the budget must not touch), the
//! reminder followed by a blank line and hook context of any length, failures in the error field, and output
//! that is not a reminder, including near misses (a single newline after the reminder, or a different reminder
//! text) that a finalizer must treat as ordinary output.

use super::Writers;
use crate::budget::PLAN_MODE_TOOL;
use crate::generate::buf::{TextBuf, Written};
use crate::generate::vocab;
use crate::generate::{Body, Ctx, Draft};
use crate::needles::NeedleKind;

/// How this kind's outputs are written: [`write`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: None,
};

/// Writes one `enter_plan_mode` response; `target` sizes the hook context or other text.
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    let reminders = c.knobs.reminders.texts();
    let reminder = reminders[c.rng.index(reminders.len())].as_str();
    let rng = &mut c.rng;
    match rng.weighted(&[4.0, 4.0, 1.0, 1.0, 1.0]) {
        0 => Draft::output(
            PLAN_MODE_TOOL,
            Body::Text(Written::plain(reminder.to_string())),
        ),
        1 | 4 => {
            let mut b = TextBuf::with_capacity(reminder.len() + target + 64);
            b.push(reminder);
            // A near miss: one newline instead of a blank line, so nothing is protected.
            b.ascii(if rng.below(5) == 0 { "\n" } else { "\n\n" });
            let goal = b.units() + target;
            hook_context(rng, &mut b, goal);
            Draft::output(PLAN_MODE_TOOL, Body::Text(b.finish()))
        }
        2 => {
            let mut b = TextBuf::with_capacity(400);
            b.needle_line(NeedleKind::FirstError, |b| {
                b.ascii(rng.pick(&[
                    "Cannot enter plan mode: a plan is already awaiting approval.",
                    "Error: plan mode is not available in this session's approval mode.",
                    "enter_plan_mode failed: the session was started with --yolo and cannot switch to planning.",
                ]));
            });
            if rng.below(2) == 0 {
                b.ascii("\n    at PlanModeController.enter (core/plan/controller.ts:88:13)\n    at ToolScheduler.execute (core/scheduler.ts:412:27)\n    at async Promise.all (index 0)");
            }
            Draft::error(PLAN_MODE_TOOL, b.finish())
        }
        _ => {
            let mut b = TextBuf::with_capacity(target + 64);
            b.ascii("Plan mode enabled. ");
            hook_context(rng, &mut b, target);
            Draft::output(PLAN_MODE_TOOL, Body::Text(b.finish()))
        }
    }
}

/// Hook context after a reminder: lines a planning hook would inject, until `goal` units.
fn hook_context(rng: &mut crate::rng::Stream, b: &mut TextBuf, goal: usize) {
    b.ascii("<hook-context source=\"plan-guard\">\n");
    while b.units() + 20 < goal {
        match rng.below(4) {
            0 => {
                b.ascii("- Planning checklist: ");
                vocab::sentence(b, rng, 8);
                b.nl();
            }
            1 => {
                b.ascii("- Relevant file: ");
                vocab::src_path(b, rng, "src/", ".rs");
                b.nl();
            }
            2 => {
                b.ascii("- Open question from the last review: ");
                vocab::sentence(b, rng, 10);
                b.ascii("?\n");
            }
            _ => {
                b.ascii("- Keep: ");
                vocab::ident(b, rng);
                b.ascii(" must stay backwards compatible.\n");
            }
        }
    }
    b.ascii("</hook-context>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::PlanReminders;
    use crate::generate::test_ctx;

    #[test]
    fn covers_protected_and_unprotected_shapes() {
        let reminders = PlanReminders::default();
        let mut c = test_ctx(8);
        let (mut exact, mut prefixed, mut unprotected, mut errors) = (0, 0, 0, 0);
        for _ in 0..300 {
            let d = write(&mut c, 500);
            assert_eq!(d.tool, PLAN_MODE_TOOL);
            match d.output {
                Some(Body::Text(w)) => {
                    let p = reminders.protected_prefix(&w.text);
                    if p == w.text.len() {
                        exact += 1;
                    } else if p > 0 {
                        prefixed += 1;
                    } else {
                        unprotected += 1;
                    }
                }
                _ => {
                    errors += 1;
                    assert!(d.error.unwrap().needles[0].kind == NeedleKind::FirstError);
                }
            }
        }
        assert!(exact > 50 && prefixed > 50 && unprotected > 20 && errors > 10);
    }
}
