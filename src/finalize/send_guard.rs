//! `send-guard`: the chat send boundary's last-chance cap. The reference allocation and fit over
//! `functionResponse` output and error only (top-level text is neither counted nor touched), with no I/O at all:
//! it can never fail, so the request-size invariant holds even for a caller that missed an outer boundary.

use super::slots::SlotScope;
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::WaterFill;
use super::{Finalizer, Outcome};
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "send-guard",
    description: "last-chance guard: the same water-fill over output and error only, no I/O",
    family: Family::BatchAllocation,
    caps: Some(SlotScope::TOOL_FIELDS),
    gives_up: &["budget-fits", "names-artifact"],
    params: &[],
    build: Build::One(|_| Box::new(SendGuard::default())),
};

/// The send guard.
#[derive(Debug, Clone)]
pub struct SendGuard {
    engine: WaterFill,
}

impl Default for SendGuard {
    fn default() -> Self {
        SendGuard {
            engine: WaterFill {
                scope: SlotScope::TOOL_FIELDS,
                persist: false,
                ..WaterFill::default()
            },
        }
    }
}

impl Finalizer for SendGuard {
    fn name(&self) -> &str {
        SPEC.name
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
