//! `greedy`: fields in slot order take what they need until the budget runs out; later fields get what is
//! left, down to nothing. The first large field can therefore starve every field after it, including the short
//! error at the end of a batch. Persistence and the fit are the reference's.

use super::head_share::HeadShare;
use super::param::HEAD_SHARE;
use super::slots::{Slot, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::{slot_lengths, CappedAllocation};

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "greedy",
    description:
        "fields in order take what they need; later fields get what is left, maybe nothing",
    family: Family::BatchAllocation,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[HEAD_SHARE],
    build: Build::One(|config| {
        Box::new(Greedy {
            head_share: config.head_share,
        })
    }),
};

/// The greedy finalizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Greedy {
    /// The head share of previews.
    pub head_share: HeadShare,
}

/// First come, first served: each slot in order takes `min(len, remaining)`.
pub(crate) fn greedy_allocation(lengths: &[u64], budget: u64) -> Vec<u64> {
    let mut remaining = budget;
    lengths
        .iter()
        .map(|&l| {
            let a = l.min(remaining);
            remaining -= a;
            a
        })
        .collect()
}

impl CappedAllocation for Greedy {
    const NAME: &'static str = SPEC.name;

    fn head_share(&self) -> HeadShare {
        self.head_share
    }

    fn allocate(&self, slots: &[Slot], limit: u64) -> Vec<u64> {
        greedy_allocation(&slot_lengths(slots), limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::testing::{output_entry, output_error_entry, run, text_of};
    use crate::model::Field;

    #[test]
    fn allocation_is_first_come_first_served() {
        assert_eq!(
            greedy_allocation(&[400, 400, 400], 1000),
            vec![400, 400, 200]
        );
        assert_eq!(greedy_allocation(&[900, 50, 80], 1000), vec![900, 50, 50]);
        assert_eq!(greedy_allocation(&[5000, 10], 1000), vec![1000, 0]);
    }

    #[test]
    fn starves_the_last_field() {
        let batch = vec![
            output_entry("log", "shell", &"l".repeat(5000)),
            output_error_entry("fail", "shell", "", "Error: exit status 1"),
        ];
        let (out, store) = run(&Greedy::default(), batch, 1000, None);
        assert_eq!(crate::utf16_len(text_of(&out, 0, 0, Field::Output)), 1000);
        assert_eq!(text_of(&out, 1, 0, Field::Error), "");
        // Both entries lost text, so both were persisted.
        assert_eq!(store.artifacts().len(), 2);
        assert_eq!(&*store.artifacts()[1].content, "Error: exit status 1");
    }
}
