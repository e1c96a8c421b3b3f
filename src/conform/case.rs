//! One conformance case: a batch with everything `budgetlab finalize` is told beside it (budget, context window,
//! lifecycle reminders, artifact directory, writes that fail), so that every case, shrunk or not, can be replayed
//! with one `finalize` command.

use std::sync::Arc;

use serde_json::Value;

use crate::budget::{Budget, BudgetContext, PlanReminders};
use crate::context::TurnContext;
use crate::model::Batch;
use crate::persist::{FaultyStore, MemoryStore};

/// The artifact directory of the cases that name none: `budgetlab finalize`'s default, so that replay commands
/// need no `--artifact-dir`.
pub const DEFAULT_ARTIFACT_DIR: &str = "tool-results";

/// One batch and everything a finalizer is told with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Where the case comes from: `edge:<group>@<budget>`, `vector:<name>` or `<scenario>/<batch>@<budget>`.
    pub name: String,
    /// The batch.
    pub batch: Batch,
    /// The budget.
    pub budget: Budget,
    /// The model's context window in tokens, for the policies that scale with it.
    pub context_window_tokens: Option<u64>,
    /// The lifecycle reminders kept outside the budget.
    pub reminders: PlanReminders,
    /// The directory artifact paths are under.
    pub artifact_dir: String,
    /// Persistence ids whose writes fail.
    pub fail_ids: Vec<String>,
    /// For a production vector, what `budgetlab finalize` must print for it.
    pub expected: Option<Value>,
    /// What the runtime knew of the turn (a generated case's context), told to the finalizer.
    pub turn: Option<Arc<TurnContext>>,
}

impl Case {
    /// A case at `budget` with the built-in reminders, the default artifact directory and no failing write.
    pub fn new(name: impl Into<String>, batch: Batch, budget: Budget) -> Case {
        Case {
            name: name.into(),
            batch,
            budget,
            context_window_tokens: None,
            reminders: PlanReminders::default(),
            artifact_dir: DEFAULT_ARTIFACT_DIR.into(),
            fail_ids: Vec::new(),
            expected: None,
            turn: None,
        }
    }

    /// The context a finalizer gets with the batch.
    pub fn ctx(&self) -> BudgetContext {
        BudgetContext {
            budget: self.budget,
            context_window_tokens: self.context_window_tokens,
            reminders: self.reminders.clone(),
            turn: self.turn.clone(),
            ..BudgetContext::new(self.budget)
        }
    }

    /// The backend `budgetlab finalize` builds for this case (in memory, failing the case's ids), or one where
    /// every write fails.
    pub fn store(&self, fail_all: bool) -> FaultyStore<MemoryStore> {
        let store = FaultyStore::new(
            MemoryStore::new(self.artifact_dir.clone()),
            self.fail_ids.iter().cloned(),
        );
        if fail_all {
            store.with_rate(1.0, 0)
        } else {
            store
        }
    }

    /// UTF-16 units of every text, output and error string of the batch.
    pub fn text_units(&self) -> u64 {
        self.batch
            .iter()
            .map(|e| crate::generate::result_size(e) as u64)
            .sum()
    }
}
