//! Synthetic, skipped and cancelled responses: a short error text and the `status` the runtime gives them.

use super::Writers;
use crate::generate::buf::Written;
use crate::generate::{Ctx, Draft};

/// How this kind's outputs are written: [`write`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: None,
};

/// A synthetic, skipped or cancelled response: a short error text (of any target).
pub(crate) fn write(c: &mut Ctx, _target: usize) -> Draft {
    let tool = c.rng.pick(&[
        "run_shell_command",
        "replace",
        "web_fetch",
        "mcp__tracker__list_issues",
    ]);
    let (text, status) = c.rng.pick(&[
        ("Tool call cancelled by the user.", "cancelled"),
        (
            "Skipped: an earlier call in this turn failed, so this one was not run.",
            "skipped",
        ),
        (
            "Not executed: the turn was interrupted before this call started.",
            "cancelled",
        ),
        (
            "Blocked by hook 'no-network': outbound requests are disabled for this workspace.",
            "synthetic",
        ),
        (
            "Cancelled: the user rejected the proposed change.",
            "cancelled",
        ),
        ("", "cancelled"),
    ]);
    let mut draft = Draft::error(tool, Written::plain(text.to_string()));
    draft.status = Some(status);
    draft
}
