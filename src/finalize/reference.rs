//! `reference`: the production finalizer of final-tool-response-budget.md.
//!
//! Max-min water-fill of the budget over every output, error and top-level text slot; each entry that loses
//! text is persisted at most once (existing `persistedOutputFiles` are reused, never rewritten), and each
//! shortened slot becomes a header plus a one-fifth-head, four-fifths-tail preview.

use super::slots::SlotScope;
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::WaterFill;
use super::{Finalizer, Outcome};
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "reference",
    description: "production water-fill over output, error and text; persists each entry at most once, reuses paths",
    family: Family::BatchAllocation,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[],
    build: Build::One(|_| Box::new(Reference::default())),
};

/// The reference finalizer.
#[derive(Debug, Clone, Default)]
pub struct Reference {
    engine: WaterFill,
}

impl Finalizer for Reference {
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
