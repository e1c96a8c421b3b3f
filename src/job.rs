//! A finalize job: one batch, one strategy, one backend and a budget, giving the report that
//! `budgetlab finalize` prints. The CLI only converts its flags into a [`FinalizeJob`].

use serde::Serialize;

use crate::budget::BudgetContext;
use crate::error::Result;
use crate::finalize::{PersistAttempt, StrategyName};
use crate::model::{parse_batch, Batch};
use crate::persist::{ArtifactStore, FaultyStore, FsStore, MemoryStore};

/// Where a job's artifacts go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// Kept in memory; paths are reported as if under the artifact directory.
    #[default]
    Memory,
    /// Real files under the artifact directory.
    Fs,
}

/// A validated finalize job.
#[derive(Debug, Clone)]
pub struct FinalizeJob {
    /// The strategy to run.
    pub strategy: StrategyName,
    /// Budget, context window and lifecycle reminders.
    pub ctx: BudgetContext,
    /// The artifact directory (paths are `dir/<id>.txt`).
    pub artifact_dir: String,
    /// The persistence backend.
    pub backend: Backend,
    /// Persistence ids whose writes fail.
    pub fail_ids: Vec<String>,
}

/// What `budgetlab finalize` prints: the finalized entries and every persistence attempt in call order.
#[derive(Debug, Clone, Serialize)]
pub struct FinalizeReport {
    /// The finalized batch.
    pub entries: Batch,
    /// Every persistence attempt.
    pub persisted: Vec<PersistAttempt>,
}

impl FinalizeJob {
    /// A fresh backend as configured.
    pub fn store(&self) -> Box<dyn ArtifactStore> {
        let inner: Box<dyn ArtifactStore> = match self.backend {
            Backend::Memory => Box::new(MemoryStore::new(self.artifact_dir.clone())),
            Backend::Fs => Box::new(FsStore::new(self.artifact_dir.clone())),
        };
        if self.fail_ids.is_empty() {
            inner
        } else {
            Box::new(FaultyStore::new(inner, self.fail_ids.iter().cloned()))
        }
    }

    /// Finalizes an already parsed batch.
    pub fn run(&self, batch: Batch) -> FinalizeReport {
        let finalizer = self.strategy.build();
        let mut store = self.store();
        let outcome = finalizer.finalize(batch, &self.ctx, store.as_mut());
        FinalizeReport {
            entries: outcome.batch,
            persisted: outcome.persisted,
        }
    }

    /// Parses `input` (named `source_name` in errors) and finalizes it.
    pub fn run_bytes(&self, input: &[u8], source_name: &str) -> Result<FinalizeReport> {
        Ok(self.run(parse_batch(input, source_name)?))
    }
}
