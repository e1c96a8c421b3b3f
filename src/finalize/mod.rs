//! Finalizers: the strategies that make a batch of tool responses fit its budget.
//!
//! Every strategy implements [`Finalizer`]: it takes a batch by value (unchanged text is moved, never copied),
//! the [`BudgetContext`] and a persistence backend, and returns an [`Outcome`]: the finalized batch and every
//! persistence attempt it made. Strategies are deterministic: the same batch, context and backend behaviour give
//! the same outcome. [`StrategyName`] is the registry that names them; adding a strategy is one file here and
//! one line there.

mod fit;
mod reference;
mod send_guard;
mod slots;
mod waterfill;

pub mod conformance;

pub use fit::{fit, header, sha256_hex, HeadShare};
pub use reference::Reference;
pub use send_guard::SendGuard;
pub use slots::{budgeted_total, collect_slots, Slot, SlotScope};
pub use waterfill::WaterFill;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::Serialize;

use crate::budget::BudgetContext;
use crate::error::Error;
use crate::model::Batch;
use crate::persist::ArtifactStore;

/// One attempt to persist an entry's complete output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistAttempt {
    /// The persistence id the write used (the raw call id when the id was invalid and the write refused).
    pub call_id: String,
    /// The tool whose output it is.
    pub tool_name: String,
    /// The complete content written (the entry's slot texts joined by blank lines).
    pub content: Arc<str>,
    /// The artifact path, or `None` when the write failed or was refused.
    pub path: Option<String>,
    /// Index of the entry in the batch.
    #[serde(skip)]
    pub entry: usize,
}

/// What a finalizer returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The finalized batch, in the input's order.
    pub batch: Batch,
    /// Every persistence attempt, in the order made.
    pub persisted: Vec<PersistAttempt>,
}

impl Outcome {
    /// An outcome that leaves `batch` as it is and writes nothing.
    pub fn unchanged(batch: Batch) -> Self {
        Outcome {
            batch,
            persisted: Vec::new(),
        }
    }
}

/// A finalization strategy. Implementations are deterministic by contract.
pub trait Finalizer: Send + Sync {
    /// The strategy's stable name, as `--strategy` takes it.
    fn name(&self) -> &str;

    /// Finalizes `batch` to the budget in `ctx`, persisting through `store`.
    fn finalize(&self, batch: Batch, ctx: &BudgetContext, store: &mut dyn ArtifactStore)
        -> Outcome;
}

/// The registry of strategies, by stable name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StrategyName {
    /// The production finalizer: water-fill over output, error and text, persisting at most once.
    Reference,
    /// The chat send guard: the same allocation over output and error only, with no I/O.
    SendGuard,
}

impl StrategyName {
    /// Every strategy, in listing order.
    pub const ALL: &'static [StrategyName] = &[StrategyName::Reference, StrategyName::SendGuard];

    /// The stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            StrategyName::Reference => "reference",
            StrategyName::SendGuard => "send-guard",
        }
    }

    /// A one-line description.
    pub fn description(self) -> &'static str {
        match self {
            StrategyName::Reference => {
                "production water-fill over output, error and text; persists each entry at most once, reuses paths"
            }
            StrategyName::SendGuard => "last-chance guard: the same water-fill over output and error only, no I/O",
        }
    }

    /// Builds the strategy with its default configuration.
    pub fn build(self) -> Box<dyn Finalizer> {
        match self {
            StrategyName::Reference => Box::new(Reference::default()),
            StrategyName::SendGuard => Box::new(SendGuard::default()),
        }
    }
}

impl fmt::Display for StrategyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for StrategyName {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        StrategyName::ALL
            .iter()
            .copied()
            .find(|n| n.as_str() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = StrategyName::ALL.iter().map(|n| n.as_str()).collect();
                Error::invalid(
                    "strategy",
                    s,
                    format!("known strategies: {}", known.join(", ")),
                )
            })
    }
}
