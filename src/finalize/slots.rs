//! Slots: the model-facing text fields of a batch that a budget counts, found in a fixed order (entry, then part,
//! then text / output / error within a part), with the plan-mode lifecycle reminder left out.

use crate::budget::{PlanReminders, PLAN_MODE_TOOL};
use crate::model::{Entry, Field};
use crate::text::utf16_len;

/// One budgeted text field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// Index of the entry in the batch.
    pub entry: usize,
    /// Index of the part in the entry's `responseParts`.
    pub part: usize,
    /// Which field of the part.
    pub field: Field,
    /// Bytes at the start of the field that are protected (a plan-mode reminder and its blank line) and are not
    /// part of the slot.
    pub protected: usize,
    /// Length of the budgeted text (after the protected prefix) in UTF-16 units.
    pub len: u64,
}

/// Which fields a finalizer budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotScope {
    /// Whether top-level `text` parts count (the send guard leaves them alone).
    pub text: bool,
}

impl SlotScope {
    /// Output, error and top-level text: what the batch finalizer budgets.
    pub const ALL: SlotScope = SlotScope { text: true };
    /// Output and error only: what the chat send guard budgets.
    pub const TOOL_FIELDS: SlotScope = SlotScope { text: false };
}

impl Slot {
    /// The budgeted text of this slot in `batch`.
    pub fn text<'a>(&self, batch: &'a [Entry]) -> &'a str {
        let full = batch[self.entry].response_parts[self.part]
            .field(self.field)
            .expect("a slot always points at a string field");
        &full[self.protected..]
    }

    /// Replaces the budgeted text of this slot in `batch` with `text`, keeping the protected prefix.
    ///
    /// The field becomes a new string, so the original's allocation is freed rather than kept as spare capacity.
    pub fn replace(&self, batch: &mut [Entry], text: &str) {
        self.replace_owned(batch, text.to_string());
    }

    /// Replaces the budgeted text of this slot in `batch` with `text`, keeping the protected prefix; without one,
    /// `text` itself becomes the field (no copy).
    pub fn replace_owned(&self, batch: &mut [Entry], text: String) {
        let field = self.field_mut(batch);
        if self.protected == 0 {
            *field = text;
            return;
        }
        let mut kept = String::with_capacity(self.protected + text.len());
        kept.push_str(&field[..self.protected]);
        kept.push_str(&text);
        *field = kept;
    }

    /// Moves the text of this slot, which has no protected prefix, out of `batch`, leaving the field empty.
    pub(crate) fn take(&self, batch: &mut [Entry]) -> String {
        debug_assert_eq!(self.protected, 0, "a protected prefix is never moved out");
        std::mem::take(self.field_mut(batch))
    }

    fn field_mut<'a>(&self, batch: &'a mut [Entry]) -> &'a mut String {
        batch[self.entry].response_parts[self.part]
            .field_mut(self.field)
            .expect("a slot always points at a string field")
    }
}

/// Every slot of `batch` within `scope`, in slot order.
///
/// A string `text` is a slot even when empty; a string output only when non-empty; a string error always; a
/// non-string output or error is neither counted nor touched. The successful output of `enter_plan_mode` that
/// equals a lifecycle reminder is no slot; one that starts with a reminder and a blank line is a slot for the rest
/// only (none when the rest is empty).
pub fn collect_slots(batch: &[Entry], reminders: &PlanReminders, scope: SlotScope) -> Vec<Slot> {
    // Most entries have one slot: one allocation up front, not one per doubling.
    let mut slots = Vec::with_capacity(batch.len());
    for (e, entry) in batch.iter().enumerate() {
        entry_slots(e, entry, reminders, scope, &mut slots);
    }
    slots
}

/// Appends the slots of one entry (at batch index `e`) to `out`.
pub(crate) fn entry_slots(
    e: usize,
    entry: &Entry,
    reminders: &PlanReminders,
    scope: SlotScope,
    out: &mut Vec<Slot>,
) {
    for (p, part) in entry.response_parts.iter().enumerate() {
        for field in Field::ALL {
            if field == Field::Text && !scope.text {
                continue;
            }
            let Some(text) = part.field(field) else {
                continue;
            };
            let protected = match field {
                Field::Output if part.function_name(&entry.tool_name) == Some(PLAN_MODE_TOOL) => {
                    reminders.protected_prefix(text)
                }
                _ => 0,
            };
            let budgeted = &text[protected..];
            if field == Field::Output && budgeted.is_empty() {
                continue;
            }
            out.push(Slot {
                entry: e,
                part: p,
                field,
                protected,
                len: utf16_len(budgeted) as u64,
            });
        }
    }
}

/// The model-facing budgeted total of `batch`: the UTF-16 units of all slots in `scope`.
pub fn budgeted_total(batch: &[Entry], reminders: &PlanReminders, scope: SlotScope) -> u64 {
    collect_slots(batch, reminders, scope)
        .iter()
        .map(|s| s.len)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::testing::output_entry;

    #[test]
    fn only_the_plan_mode_tool_keeps_a_leading_reminder_out_of_its_slot() {
        let reminders = PlanReminders::new(vec!["R1".into()]);
        let batch = vec![
            output_entry("a", PLAN_MODE_TOOL, "R1\n\nhook said é"),
            output_entry("b", "shell", "R1\n\nhook said é"),
            output_entry("c", PLAN_MODE_TOOL, "R1"),
            output_entry("d", "shell", "R1"),
        ];
        let slots = collect_slots(&batch, &reminders, SlotScope::ALL);
        let seen: Vec<(usize, usize, u64)> = slots
            .iter()
            .map(|s| (s.entry, s.protected, s.len))
            .collect();
        // The plan-mode tool's reminder and blank line (4 bytes) are left out, and an output that is only the
        // reminder is no slot; another tool's output is budgeted whole.
        assert_eq!(seen, vec![(0, 4, 11), (1, 0, 15), (3, 0, 2)]);
        assert_eq!(slots[0].text(&batch), "hook said é");
        assert_eq!(slots[1].text(&batch), "R1\n\nhook said é");
        assert_eq!(budgeted_total(&batch, &reminders, SlotScope::ALL), 28);
    }
}
