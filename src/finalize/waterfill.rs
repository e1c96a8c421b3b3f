//! The allocate-and-fit engine shared by `reference`, `send-guard` and the alternatives built on them: collect
//! the slots, allocate the budget, persist each entry that loses text at most once, and rewrite every shortened
//! slot to exactly its allocation. [`WaterFill`] is the production configuration (max-min water-fill and the
//! reference fit); [`allocate_and_fit`] takes the allocation and the fit as parameters.

use super::artifacts::persist_marked;
use super::fit::{fit, header, HeadShare};
use super::slots::{collect_slots, Slot, SlotScope};
use super::{Outcome, PersistAttempt};
use crate::alloc::water_fill;
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;

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
    pub fn run(&self, batch: Batch, ctx: &BudgetContext, store: &mut dyn ArtifactStore) -> Outcome {
        let share = self.head_share;
        allocate_and_fit(
            batch,
            ctx,
            store,
            self.scope,
            self.persist,
            |slots, limit| water_fill(&slot_lengths(slots), limit),
            |text, allocation, header| fit(text, allocation, header, share),
        )
    }
}

/// The lengths of `slots`, in slot order.
pub(crate) fn slot_lengths(slots: &[Slot]) -> Vec<u64> {
    slots.iter().map(|s| s.len).collect()
}

/// The generic engine: with a finite, positive budget and slots over it, `allocate(slots, limit)` gives one
/// allocation per slot (each at most the slot's length); entries with a slot longer than its allocation are
/// persisted (when `persist`), and each such slot becomes `fit_slot(text, allocation, header)`, where the header
/// names the entry's artifact paths. `fit_slot` must return at most `allocation` UTF-16 units.
pub(crate) fn allocate_and_fit(
    mut batch: Batch,
    ctx: &BudgetContext,
    store: &mut dyn ArtifactStore,
    scope: SlotScope,
    persist: bool,
    allocate: impl FnOnce(&[Slot], u64) -> Vec<u64>,
    fit_slot: impl Fn(&str, u64, &str) -> String,
) -> Outcome {
    let Some(limit) = ctx.budget.limit() else {
        return Outcome::unchanged(batch);
    };
    let slots = collect_slots(&batch, &ctx.reminders, scope);
    if slots.iter().map(|s| s.len).sum::<u64>() <= limit {
        return Outcome::unchanged(batch);
    }
    let allocation = allocate(&slots, limit);
    debug_assert_eq!(allocation.len(), slots.len());
    let persisted = if persist {
        persist_shortened(&mut batch, &slots, &allocation, store)
    } else {
        Vec::new()
    };
    for (slot, &a) in slots.iter().zip(&allocation) {
        if slot.len <= a {
            continue;
        }
        let text = slot.text(&batch);
        let fitted = fit_slot(text, a, &header(text, batch[slot.entry].artifact_paths()));
        slot.replace(&mut batch, &fitted);
    }
    Outcome { batch, persisted }
}

/// Persists, in entry order, every entry that owns a slot longer than its allocation and has no persistence
/// decision yet; sets its `persistedOutputFiles` to `[path]` on success and `[]` on failure or a refused id.
pub(crate) fn persist_shortened(
    batch: &mut Batch,
    slots: &[Slot],
    allocation: &[u64],
    store: &mut dyn ArtifactStore,
) -> Vec<PersistAttempt> {
    let marked: Vec<bool> = slots
        .iter()
        .zip(allocation)
        .map(|(s, &a)| s.len > a)
        .collect();
    persist_marked(batch, slots, &marked, store)
}
