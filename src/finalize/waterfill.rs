//! The water-fill engine shared by `reference`, `send-guard` and their variants: slots, max-min allocation,
//! at-most-once persistence and the fit, with the scope, persistence and head share as parameters.

use std::sync::Arc;

use super::fit::{fit, header, HeadShare};
use super::slots::{collect_slots, Slot, SlotScope};
use super::{Outcome, PersistAttempt};
use crate::alloc::water_fill;
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::{ArtifactStore, PersistenceIds};

/// A configured water-fill finalizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaterFill {
    /// Which fields are budgeted.
    pub scope: SlotScope,
    /// Whether shortened entries are persisted (the send guard never does I/O).
    pub persist: bool,
    /// The head share of previews.
    pub head_share: HeadShare,
}

impl Default for WaterFill {
    fn default() -> Self {
        WaterFill {
            scope: SlotScope::ALL,
            persist: true,
            head_share: HeadShare::DEFAULT,
        }
    }
}

impl WaterFill {
    /// Finalizes `batch` as the design describes.
    pub fn run(
        &self,
        mut batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        let Some(limit) = ctx.budget.limit() else {
            return Outcome::unchanged(batch);
        };
        let slots = collect_slots(&batch, &ctx.reminders, self.scope);
        let lengths: Vec<u64> = slots.iter().map(|s| s.len).collect();
        if lengths.iter().sum::<u64>() <= limit {
            return Outcome::unchanged(batch);
        }
        let allocation = water_fill(&lengths, limit);
        let persisted = if self.persist {
            persist_shortened(&mut batch, &slots, &allocation, store)
        } else {
            Vec::new()
        };
        for (slot, &a) in slots.iter().zip(&allocation) {
            if slot.len <= a {
                continue;
            }
            let text = slot.text(&batch);
            let fitted = fit(
                text,
                a,
                &header(text, batch[slot.entry].artifact_paths()),
                self.head_share,
            );
            let field = batch[slot.entry].response_parts[slot.part]
                .field_mut(slot.field)
                .expect("a slot always points at a string field");
            // A new string, so the original's allocation is freed rather than kept as spare capacity.
            *field = if slot.protected == 0 {
                fitted
            } else {
                let mut kept = String::with_capacity(slot.protected + fitted.len());
                kept.push_str(&field[..slot.protected]);
                kept.push_str(&fitted);
                kept
            };
        }
        Outcome { batch, persisted }
    }
}

/// Persists, in entry order, every entry that owns a slot longer than its allocation and has no persistence
/// decision yet; sets its `persistedOutputFiles` to `[path]` on success and `[]` on failure or a refused id.
pub(crate) fn persist_shortened(
    batch: &mut Batch,
    slots: &[Slot],
    allocation: &[u64],
    store: &mut dyn ArtifactStore,
) -> Vec<PersistAttempt> {
    let mut ids = PersistenceIds::new(batch.iter().map(|e| e.call_id.as_str()));
    let mut attempts = Vec::new();
    let mut start = 0;
    while start < slots.len() {
        let e = slots[start].entry;
        let end = start + slots[start..].iter().take_while(|s| s.entry == e).count();
        let entry_slots = &slots[start..end];
        let shortened = entry_slots
            .iter()
            .zip(&allocation[start..end])
            .any(|(s, &a)| s.len > a);
        start = end;
        if !shortened || batch[e].persisted_output_files.is_some() {
            continue;
        }
        let content = join_slot_texts(batch, entry_slots);
        let entry = &batch[e];
        let (call_id, path) = match ids.assign(&entry.call_id) {
            None => (entry.call_id.clone(), None),
            Some(id) => {
                let path = store.write(&id, &entry.tool_name, &content).ok();
                (id, path)
            }
        };
        attempts.push(PersistAttempt {
            call_id,
            tool_name: entry.tool_name.clone(),
            content,
            path: path.clone(),
            entry: e,
        });
        batch[e].persisted_output_files = Some(path.into_iter().collect());
    }
    attempts
}

/// The slot texts of one entry joined by blank lines: the complete output that persistence writes.
fn join_slot_texts(batch: &Batch, slots: &[Slot]) -> Arc<str> {
    if let [only] = slots {
        return Arc::from(only.text(batch));
    }
    let capacity = slots.iter().map(|s| s.text(batch).len() + 2).sum();
    let mut content = String::with_capacity(capacity);
    for (i, slot) in slots.iter().enumerate() {
        if i > 0 {
            content.push_str("\n\n");
        }
        content.push_str(slot.text(batch));
    }
    content.into()
}
