//! `reference`: the production finalizer of final-tool-response-budget.md.
//!
//! Max-min water-fill of the budget over every output, error and top-level text slot; each entry that loses
//! text is persisted at most once (existing `persistedOutputFiles` are reused, never rewritten), and each
//! shortened slot becomes a header plus a one-fifth-head, four-fifths-tail preview.

use super::waterfill::WaterFill;
use super::{Finalizer, Outcome};
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;

/// The reference finalizer.
#[derive(Debug, Clone, Default)]
pub struct Reference {
    engine: WaterFill,
}

impl Finalizer for Reference {
    fn name(&self) -> &str {
        "reference"
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
