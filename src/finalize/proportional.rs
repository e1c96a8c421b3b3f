//! `proportional`: each budgeted field gets a share of the budget proportional to its length, with no
//! protection for small fields. The allocation is `floor(budget * len / total)`, the leftover handed out one unit
//! at a time in slot order; persistence and the fit are the reference's.
//!
//! Compared with the max-min water-fill, a small field is cut as hard as a large one: a 100-unit error beside a
//! 10,000-unit log at a tenth of the total keeps 10 units, not all 100.

use super::head_share::HeadShare;
use super::param::HEAD_SHARE;
use super::slots::{Slot, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::{slot_lengths, CappedAllocation};

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "proportional",
    description: "shares proportional to length; small fields are cut as hard as large ones",
    family: Family::BatchAllocation,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[HEAD_SHARE],
    build: Build::One(|config| {
        Box::new(Proportional {
            head_share: config.head_share,
        })
    }),
};

/// The proportional finalizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Proportional {
    /// The head share of previews.
    pub head_share: HeadShare,
}

/// Shares `budget` in proportion to `lengths`: `floor(budget * len / total)` each, then the leftover one unit at
/// a time to the slots (in order) still below their length. Lengths that fit are returned as they are.
pub(crate) fn proportional_allocation(lengths: &[u64], budget: u64) -> Vec<u64> {
    let total: u128 = lengths.iter().map(|&l| u128::from(l)).sum();
    if total <= u128::from(budget) {
        return lengths.to_vec();
    }
    let mut allocation: Vec<u64> = lengths
        .iter()
        .map(|&l| (u128::from(budget) * u128::from(l) / total) as u64)
        .collect();
    let mut leftover = budget - allocation.iter().sum::<u64>();
    for (a, &l) in allocation.iter_mut().zip(lengths) {
        if leftover == 0 {
            break;
        }
        if *a < l {
            *a += 1;
            leftover -= 1;
        }
    }
    allocation
}

impl CappedAllocation for Proportional {
    const NAME: &'static str = SPEC.name;

    fn head_share(&self) -> HeadShare {
        self.head_share
    }

    fn allocate(&self, slots: &[Slot], limit: u64) -> Vec<u64> {
        proportional_allocation(&slot_lengths(slots), limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::testing::{output_entry, output_of, run};
    use crate::finalize::Reference;

    #[test]
    fn allocation_is_proportional_and_exact() {
        assert_eq!(
            proportional_allocation(&[10_000, 100], 1010),
            vec![1000, 10]
        );
        // floor(2 / 3) = 0 each, then the leftover 2 one unit at a time in slot order.
        assert_eq!(proportional_allocation(&[1, 1, 1], 2), vec![1, 1, 0]);
        // floor(100 / 3) = 33 each, leftover 1 to the first slot.
        assert_eq!(
            proportional_allocation(&[300, 300, 300], 100),
            vec![34, 33, 33]
        );
        assert_eq!(proportional_allocation(&[5, 7], 12), vec![5, 7]);
        assert_eq!(proportional_allocation(&[5, 7], 0), vec![0, 0]);
        // An empty field gets nothing of the leftover: floors 0, 3, 3, and the 1 left goes to the second.
        assert_eq!(proportional_allocation(&[0, 5, 5], 7), vec![0, 4, 3]);
    }

    #[test]
    fn small_fields_are_cut_like_large_ones() {
        let batch = vec![
            output_entry("big", "shell", &"x".repeat(10_000)),
            output_entry("small", "shell", &"y".repeat(100)),
        ];
        let (out, store) = run(&Proportional::default(), batch.clone(), 1010, None);
        // The small field keeps 10 units: only the start of the header fits.
        assert_eq!(output_of(&out, 1), "Tool outpu");
        assert_eq!(crate::utf16_len(output_of(&out, 0)), 1000);
        assert_eq!(store.artifacts().len(), 2);
        // The reference keeps the small field whole.
        let (reference, _) = run(&Reference::default(), batch, 1010, None);
        assert_eq!(output_of(&reference, 1), "y".repeat(100));
    }
}
