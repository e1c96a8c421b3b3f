//! Finalizers: the strategies that make a batch of tool responses fit its budget.
//!
//! Every strategy implements [`Finalizer`]: it takes a batch by value (unchanged text is moved, never copied),
//! the [`BudgetContext`] and a persistence backend, and returns an [`Outcome`]: the finalized batch and every
//! persistence attempt it made. Strategies are deterministic: the same batch, context and backend behaviour give
//! the same outcome. Each strategy file declares its [`StrategySpec`] (name, description, family, what it caps,
//! constructor) and the `register!` list below registers it; [`StrategyName`] names and builds the registered
//! strategies, and `budgetlab strategies`, the report's strategy groups and the conformance checks read them.

mod artifacts;
mod batch_words;
mod config;
mod configured;
mod cut_digests;
mod fit;
mod head_share;
mod line_pick;
mod name;
mod param;
mod per_result;
mod slots;
mod spec;
#[cfg(test)]
mod testing;
mod waterfill;
mod words;

// The strategies, one file each.
mod claude_code;
mod codex;
mod gemini_cli;
mod greedy;
mod head_tail;
mod largest_first;
mod legacy_layers;
mod line_aware;
mod opencode;
mod openhands;
mod proportional;
mod rarity;
mod reference;
mod relevance;
mod salient;
mod send_guard;
mod structure;
mod swe_agent;
mod uniform;
mod weighted;
mod window_relative;

/// Registers the `SPEC` each listed strategy module declares, in listing order.
macro_rules! register {
    ($($module:ident),* $(,)?) => {
        /// Every registered strategy's spec, in listing order.
        const STRATEGIES: &[&StrategySpec] = &[$(&$module::SPEC),*];

        /// The modules of [`STRATEGIES`], in the same order.
        #[cfg(test)]
        const STRATEGY_MODULES: &[&str] = &[$(stringify!($module)),*];
    };
}

// The one list of strategies, in the order `budgetlab strategies` and a run list them. Adding a strategy is one
// new file declaring `pub(super) const SPEC: StrategySpec`, its `mod` line above and one line here; a test fails
// when a file that declares a spec is missing from this list.
register! {
    reference,
    send_guard,
    proportional,
    uniform,
    greedy,
    largest_first,
    weighted,
    line_aware,
    head_tail,
    legacy_layers,
    window_relative,
    codex,
    gemini_cli,
    claude_code,
    openhands,
    opencode,
    swe_agent,
    salient,
    relevance,
    rarity,
    structure,
}

// What code outside `finalize` uses; the strategies themselves are reached through `StrategyName`.
pub use config::{
    Bounds, ClaudeCodeConfig, FieldWeights, GeminiCliConfig, LegacyLayersConfig, PickConfig,
    SalientConfig, StrategyConfig, StructureConfig, WindowRelativeConfig, DEFAULT_SHELL_TOOLS,
};
pub use configured::Configured;
pub use cut_digests::PARALLEL_DIGEST_BYTES;
pub use fit::header;
pub use head_share::HeadShare;
pub use legacy_layers::LegacyLayers;
pub use name::{split_strategy_list, Builtin, Registered, RegisteredStrategy, StrategyName};
pub use param::{Param, ParamKind, Search};
pub use reference::Reference;
pub use send_guard::SendGuard;
pub use slots::{budgeted_total, collect_slots, Slot, SlotScope};
pub use spec::{Build, Family, StrategySpec};
#[cfg(test)]
pub(crate) use testing::KNOWN_STRATEGIES;
pub use window_relative::window_relative_threshold;

use serde::Serialize;

use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::{ArtifactStore, Content};

/// One attempt to persist an entry's complete output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistAttempt {
    /// The persistence id the write used (the raw call id when the id was invalid and the write refused).
    pub call_id: String,
    /// The tool whose output it is.
    pub tool_name: String,
    /// The complete content written (the entry's slot texts joined by blank lines), shared with the backend.
    pub content: Content,
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

    /// Whether the finalizer can be handed a backend whose writes fail on purpose
    /// ([`ArtifactStore::injected_faults`]). Every built-in strategy can; an external child only when it declares
    /// the optional `persist-faults` capability (docs/protocol.md), so `conform` runs the checks that need failed
    /// writes only when this holds.
    fn simulates_persist_faults(&self) -> bool {
        true
    }
}
