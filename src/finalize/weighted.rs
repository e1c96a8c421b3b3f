//! `weighted`: the reference water-fill with a weight per field kind, so a field's fair share is proportional to
//! its weight. By default error fields and top-level hook text weigh 2 and outputs 1 (configurable through
//! [`FieldWeights`]); small fields still keep their whole content. Persistence and the fit are the reference's.

use super::config::{FieldWeights, WEIGHT_BOUNDS};
use super::head_share::HeadShare;
use super::param::{Param, Search, Setting, HEAD_SHARE};
use super::slots::{Slot, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::{slot_lengths, CappedAllocation};
use crate::alloc::weighted_water_fill;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "weighted",
    description: "water-fill weighted by field kind (errors and hook text 2, outputs 1 by default)",
    family: Family::BatchAllocation,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[
        Param {
            name: "output",
            key: "weights.output",
            description: "the weight of a tool output in the fair share",
            field: Setting::Units(WEIGHT_BOUNDS, |c| &mut c.weights.output),
            search: Search::Each { low: 1, high: 8 },
        },
        Param {
            name: "error",
            key: "weights.error",
            description: "the weight of a tool error in the fair share",
            field: Setting::Units(WEIGHT_BOUNDS, |c| &mut c.weights.error),
            search: Search::Each { low: 1, high: 8 },
        },
        Param {
            name: "text",
            key: "weights.text",
            description: "the weight of top-level text (hook context) in the fair share",
            field: Setting::Units(WEIGHT_BOUNDS, |c| &mut c.weights.text),
            search: Search::Each { low: 1, high: 8 },
        },
        HEAD_SHARE,
    ],
    build: Build::One(|config| {
        Box::new(Weighted {
            weights: config.weights,
            head_share: config.head_share,
        })
    }),
};

/// The weighted water-fill finalizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Weighted {
    /// The weight of each field kind.
    pub weights: FieldWeights,
    /// The head share of previews.
    pub head_share: HeadShare,
}

impl CappedAllocation for Weighted {
    const NAME: &'static str = SPEC.name;

    fn head_share(&self) -> HeadShare {
        self.head_share
    }

    fn allocate(&self, slots: &[Slot], limit: u64) -> Vec<u64> {
        let weights: Vec<u64> = slots.iter().map(|s| self.weights.of(s.field)).collect();
        weighted_water_fill(&slot_lengths(slots), Some(&weights), limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::testing::{output_error_entry, run, text_of};
    use crate::model::Field;
    use crate::utf16_len;

    #[test]
    fn errors_get_twice_the_share_of_outputs() {
        let batch = vec![output_error_entry(
            "c",
            "shell",
            &"o".repeat(1000),
            &"e".repeat(1000),
        )];
        let (out, _) = run(&Weighted::default(), batch.clone(), 300, None);
        assert_eq!(utf16_len(text_of(&out, 0, 0, Field::Output)), 100);
        assert_eq!(utf16_len(text_of(&out, 0, 0, Field::Error)), 200);
        let heavy = Weighted {
            weights: FieldWeights {
                output: 1,
                error: 5,
                text: 1,
            },
            ..Weighted::default()
        };
        let (out, _) = run(&heavy, batch, 300, None);
        assert_eq!(utf16_len(text_of(&out, 0, 0, Field::Output)), 50);
        assert_eq!(utf16_len(text_of(&out, 0, 0, Field::Error)), 250);
    }
}
