//! `head-tail-<ratio>`: the reference (allocation, persistence, header) with another head share of each
//! preview: `head-tail-0` keeps only the tail, `head-tail-1` only the head, `head-tail-0.5` halves. The ratio is
//! an exact rational parsed from the name, so the comparison with the reference's 1/5 shows what that split buys.

use super::head_share::HeadShare;
use super::param::{Param, HEAD_SHARE};
use super::slots::SlotScope;
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::WaterFill;
use super::{Finalizer, Outcome};
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;

/// What every member's name starts with; the rest is its head share.
pub(super) const PREFIX: &str = "head-tail-";

/// The family's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "head-tail-<ratio>",
    description:
        "reference with this head share of each preview (the reference keeps 0.2 head, 0.8 tail)",
    family: Family::HeadShare,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[Param {
        name: "head_share",
        key: "head_share",
        description: "the share of each preview kept from the start; the name's ratio sets it (head-tail-0.5)",
        ..HEAD_SHARE
    }],
    build: Build::PerHeadShare {
        listed: &[
            HeadShare { num: 0, den: 1 },
            HeadShare { num: 1, den: 2 },
            HeadShare { num: 1, den: 1 },
        ],
    },
};

/// The reference with head share `ratio`.
#[derive(Debug, Clone)]
pub(crate) struct HeadTail {
    name: String,
    engine: WaterFill,
}

impl HeadTail {
    /// The variant with head share `ratio`, named `head-tail-<ratio>`.
    pub(crate) fn new(ratio: HeadShare) -> Self {
        HeadTail {
            name: format!("{PREFIX}{ratio}"),
            engine: WaterFill {
                head_share: ratio,
                ..WaterFill::default()
            },
        }
    }
}

impl Finalizer for HeadTail {
    fn name(&self) -> &str {
        &self.name
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        self.engine.run(batch, ctx, store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::fit::header;
    use crate::finalize::testing::{output_entry, output_of, run};

    #[test]
    fn the_ratio_moves_the_split() {
        let text: String = (0..400)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let batch = vec![output_entry("c", "shell", &text)];
        let h = header(&text, &["/tmp/c.txt".into()]);
        // 150 units of header, 2 of blank line, 5 of separator: 43 units of content at an allocation of 200.
        let go = |ratio: &str| {
            let f = HeadTail::new(ratio.parse().unwrap());
            let (out, _) = run(&f, batch.clone(), 200, None);
            (f.name().to_string(), output_of(&out, 0).to_string())
        };
        assert_eq!(
            go("0"),
            (
                "head-tail-0".into(),
                format!("{h}\n\n\n...\n{}", &text[357..])
            )
        );
        assert_eq!(
            go("1.0"),
            (
                "head-tail-1".into(),
                format!("{h}\n\n{}\n...\n", &text[..43])
            )
        );
        assert_eq!(
            go("0.5"),
            (
                "head-tail-0.5".into(),
                format!("{h}\n\n{}\n...\n{}", &text[..21], &text[378..])
            )
        );
    }
}
