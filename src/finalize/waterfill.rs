//! The allocate-and-fit engine shared by `reference`, `send-guard` and the alternatives built on them: collect
//! the slots, allocate the budget, persist each entry that loses text at most once, and rewrite every shortened
//! slot to exactly its allocation. [`WaterFill`] is the production configuration (max-min water-fill and the
//! reference fit); [`allocate_and_fit`] takes the allocation and the fit as parameters.

use super::artifacts::EntryWriter;
use super::cut_digests::CutDigests;
use super::fit::{fit, header_with_digest};
use super::head_share::HeadShare;
use super::slots::{collect_slots, Slot, SlotScope};
use super::{Finalizer, Outcome};
use crate::alloc::water_fill;
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;

/// A configured water-fill finalizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WaterFill {
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
    pub(crate) fn run(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
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

/// A strategy that caps the batch like the reference and differs from it only in how it allocates the budget
/// (and, optionally, in how it fits a slot): it gets the reference's slots, persistence and header for free,
/// and its [`Finalizer`] implementation from this trait.
pub trait CappedAllocation: Send + Sync {
    /// The strategy's stable name.
    const NAME: &'static str;

    /// The head share of its previews.
    fn head_share(&self) -> HeadShare;

    /// One allocation per slot (each at most the slot's length), summing to at most `limit`.
    fn allocate(&self, slots: &[Slot], limit: u64) -> Vec<u64>;

    /// Rewrites a slot's `text` to at most `allocation` units behind `header`; the reference's fit by default.
    fn fit_slot(&self, text: &str, allocation: u64, header: &str) -> String {
        fit(text, allocation, header, self.head_share())
    }
}

impl<T: CappedAllocation> Finalizer for T {
    fn name(&self) -> &str {
        T::NAME
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        allocate_and_fit(
            batch,
            ctx,
            store,
            SlotScope::ALL,
            true,
            |slots, limit| self.allocate(slots, limit),
            |text, allocation, header| self.fit_slot(text, allocation, header),
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
///
/// Entries are handled one at a time, in entry order: persist, then fit its shortened slots. An entry whose
/// fields all keep their text is never touched, and nothing is allocated for it; the text of a shortened
/// single-slot entry is moved into its artifact, not copied, and the preview is cut from there. The headers'
/// digests of the shortened slots are computed before the first entry is handled, on all cores, when their
/// bytes are large (see `cut_digests.rs`); otherwise each as its slot is fitted.
pub(crate) fn allocate_and_fit(
    batch: Batch,
    ctx: &BudgetContext,
    store: &mut dyn ArtifactStore,
    scope: SlotScope,
    persist: bool,
    allocate: impl FnOnce(&[Slot], u64) -> Vec<u64>,
    fit_slot: impl Fn(&str, u64, &str) -> String,
) -> Outcome {
    allocate_and_fit_prepared(
        batch,
        ctx,
        store,
        scope,
        persist,
        allocate,
        |_, _, _| (),
        |_, _, text, allocation, header| fit_slot(text, allocation, header),
    )
}

/// [`allocate_and_fit`] for a fit that reads the whole batch: once the allocation is made and before anything is
/// persisted or cut, `prepare(batch, slots, allocation)` computes what the fits share (a content-aware strategy's
/// token counts, each entry's call), and each shortened slot becomes `fit_slot(&prepared, slot, text,
/// allocation, header)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn allocate_and_fit_prepared<P>(
    mut batch: Batch,
    ctx: &BudgetContext,
    store: &mut dyn ArtifactStore,
    scope: SlotScope,
    persist: bool,
    allocate: impl FnOnce(&[Slot], u64) -> Vec<u64>,
    prepare: impl FnOnce(&Batch, &[Slot], &[u64]) -> P,
    fit_slot: impl Fn(&P, &Slot, &str, u64, &str) -> String,
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
    let prepared = prepare(&batch, &slots, &allocation);
    let mut digests = CutDigests::new(
        slots
            .iter()
            .zip(&allocation)
            .filter(|&(s, &a)| s.len > a)
            .map(|(s, _)| s.text(&batch)),
        ctx.known_digests.as_deref(),
    );
    let mut writer = persist.then(|| EntryWriter::new(&batch));
    let mut start = 0;
    while start < slots.len() {
        let e = slots[start].entry;
        let end = start + slots[start..].iter().take_while(|s| s.entry == e).count();
        let own = &slots[start..end];
        let own_allocation = &allocation[start..end];
        start = end;
        if own.iter().zip(own_allocation).all(|(s, &a)| s.len <= a) {
            continue;
        }
        // When the entry's only slot was moved into its artifact, the original text is read from there.
        let moved = writer
            .as_mut()
            .and_then(|w| w.persist_moving(&mut batch, e, own, store));
        for (slot, &a) in own.iter().zip(own_allocation) {
            if slot.len <= a {
                continue;
            }
            let text = match (&moved, own) {
                (Some(content), [_]) => content.as_str(),
                _ => slot.text(&batch),
            };
            let header = header_with_digest(&digests.next(text), batch[e].artifact_paths());
            let fitted = fit_slot(&prepared, slot, text, a, &header);
            slot.replace_owned(&mut batch, fitted);
        }
    }
    let persisted = writer.map_or_else(Vec::new, EntryWriter::into_attempts);
    Outcome { batch, persisted }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::{
        greedy::Greedy, line_aware::LineAware, proportional::Proportional, uniform::Uniform,
        weighted::Weighted,
    };

    #[test]
    fn every_capped_strategy_answers_its_configured_head_share() {
        fn answer(strategy: impl CappedAllocation) -> HeadShare {
            strategy.head_share()
        }
        let half: HeadShare = "1/2".parse().unwrap();
        assert_ne!(half, HeadShare::DEFAULT);
        let weighted = Weighted {
            head_share: half,
            ..Weighted::default()
        };
        assert_eq!(
            [
                answer(Greedy { head_share: half }),
                answer(Proportional { head_share: half }),
                answer(Uniform { head_share: half }),
                answer(weighted),
                answer(LineAware { head_share: half }),
            ],
            [half; 5]
        );
    }
}
