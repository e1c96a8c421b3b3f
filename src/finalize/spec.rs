//! The strategy table's row: what a strategy file declares about itself. Each strategy file ends its header with
//! a `pub(super) const SPEC: StrategySpec` (its stable name, a one-line description, its family, what it caps, the
//! parameters it reads and how it is built); the `register!` list in `finalize/mod.rs` registers that spec in one line.
//! [`StrategyName`](super::StrategyName), `budgetlab strategies`, the report's strategy groups and the conformance
//! checks all read the registered specs, so nothing else repeats a strategy's name.

use std::fmt;

use super::config::StrategyConfig;
use super::head_share::HeadShare;
use super::param::Param;
use super::slots::SlotScope;
use super::Finalizer;

/// What one strategy file declares about its strategy (or, for `head-tail`, its family of strategies).
#[derive(Clone, Copy)]
pub struct StrategySpec {
    /// The stable name `--strategy` takes; for the head-share family, the pattern the lists show
    /// (`head-tail-<ratio>`).
    pub name: &'static str,
    /// What `budgetlab strategies` prints beside the name.
    pub description: &'static str,
    /// The group the report draws it in.
    pub family: Family,
    /// The fields whose total the strategy promises to fit a finite budget; `None` for a strategy without a
    /// batch-level cap (the per-result and per-message policies).
    pub caps: Option<SlotScope>,
    /// The checks of `budgetlab conform` the strategy fails by design, each a promise its policy does not make
    /// (no batch cap, no saved output, a note that grows a cut result); in the order `conform` lists its checks.
    pub gives_up: &'static [&'static str],
    /// The parameters the strategy reads from its [`StrategyConfig`], in the order listings show them; empty for
    /// a strategy without knobs (see `finalize/param.rs`).
    pub params: &'static [Param],
    /// How the strategy is built.
    pub build: Build,
}

impl fmt::Debug for StrategySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StrategySpec")
            .field("name", &self.name)
            .field("family", &self.family)
            .field("caps", &self.caps)
            .field("gives_up", &self.gives_up)
            .field(
                "params",
                &self.params.iter().map(|p| p.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// How a registered spec becomes a [`Finalizer`].
#[derive(Clone, Copy)]
pub enum Build {
    /// One strategy under the spec's name, with the parameters the configuration gives it.
    One(fn(&StrategyConfig) -> Box<dyn Finalizer>),
    /// The head-tail family: one strategy per head share, named `head-tail-<share>` and built by
    /// [`StrategyName::HeadTail`](super::StrategyName::HeadTail); the lists show the `listed` shares.
    PerHeadShare {
        /// The members `StrategyName::all()` lists, in order.
        listed: &'static [HeadShare],
    },
}

/// The groups the report draws strategies in, in drawing order (the order of the variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// Strategies that share one budget among all of a batch's fields: the reference, the send guard and the
    /// allocations an engineer would weigh against them.
    BatchAllocation,
    /// The reference with another head share of each preview.
    HeadShare,
    /// Batch allocations that choose which lines of a field to keep by their content (error and summary lines,
    /// lines relevant to the turn, rare lines, a file's structure) rather than one head and one tail.
    ContentAware,
    /// Policies that judge each result (or message) on its own: the replaced layers, the window-relative rule
    /// and the peer agents'.
    Policy,
    /// Strategies registered for one command (`--external NAME=COMMAND`): programs outside budgetlab, whose
    /// policy it does not know. No spec declares it.
    External,
}

impl Family {
    /// The family's stable name, as `budgetlab strategies --json` gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::BatchAllocation => "batch-allocation",
            Family::HeadShare => "head-share",
            Family::ContentAware => "content-aware",
            Family::Policy => "policy",
            Family::External => "external",
        }
    }
}
