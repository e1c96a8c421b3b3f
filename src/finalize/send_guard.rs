//! `send-guard`: the chat send boundary's last-chance cap. The reference allocation and fit over
//! `functionResponse` output and error only (top-level text is neither counted nor touched), with no I/O at all:
//! it can never fail, so the request-size invariant holds even for a caller that missed an outer boundary.

use super::slots::SlotScope;
use super::waterfill::WaterFill;
use super::{Finalizer, Outcome};
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;

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
        "send-guard"
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
