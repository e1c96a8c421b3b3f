//! `uniform`: every budgeted field gets `floor(budget / n)` units, and a field shorter than that keeps its
//! length without giving the rest back: the unused share is not redistributed, so a batch with a few small
//! fields is cut harder than it has to be and part of the budget stays unused. Persistence and the fit are the
//! reference's.

use super::head_share::HeadShare;
use super::param::HEAD_SHARE;
use super::slots::{Slot, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::{slot_lengths, CappedAllocation};

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "uniform",
    description: "budget / n for every field; the share a short field leaves is not redistributed",
    family: Family::BatchAllocation,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[HEAD_SHARE],
    build: Build::One(|config| {
        Box::new(Uniform {
            head_share: config.head_share,
        })
    }),
};

/// The uniform finalizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Uniform {
    /// The head share of previews.
    pub head_share: HeadShare,
}

/// `min(len, floor(budget / n))` for each of the `n` slots (lengths that fit are returned as they are).
pub(crate) fn uniform_allocation(lengths: &[u64], budget: u64) -> Vec<u64> {
    if lengths.iter().map(|&l| u128::from(l)).sum::<u128>() <= u128::from(budget) {
        return lengths.to_vec();
    }
    let share = budget / lengths.len() as u64;
    lengths.iter().map(|&l| l.min(share)).collect()
}

impl CappedAllocation for Uniform {
    const NAME: &'static str = SPEC.name;

    fn head_share(&self) -> HeadShare {
        self.head_share
    }

    fn allocate(&self, slots: &[Slot], limit: u64) -> Vec<u64> {
        uniform_allocation(&slot_lengths(slots), limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::slots::{budgeted_total, SlotScope};
    use crate::finalize::testing::{output_entry, output_of, run};
    use crate::PlanReminders;

    #[test]
    fn allocation_is_an_even_share_without_redistribution() {
        assert_eq!(uniform_allocation(&[10, 1000], 300), vec![10, 150]);
        assert_eq!(
            uniform_allocation(&[1000, 1000, 1000], 1000),
            vec![333, 333, 333]
        );
        assert_eq!(uniform_allocation(&[10, 20], 30), vec![10, 20]);
    }

    #[test]
    fn leaves_budget_unused() {
        let batch = vec![
            output_entry("a", "shell", "short answer"),
            output_entry("b", "shell", &"z".repeat(2000)),
        ];
        let (out, _) = run(&Uniform::default(), batch, 1000, None);
        assert_eq!(output_of(&out, 0), "short answer");
        assert_eq!(crate::utf16_len(output_of(&out, 1)), 500);
        // 12 + 500 of the 1000 units are used; the reference would give the log 988.
        let total = budgeted_total(&out.batch, &PlanReminders::default(), SlotScope::ALL);
        assert_eq!(total, 512);
    }
}
