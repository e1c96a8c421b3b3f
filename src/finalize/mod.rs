//! Finalizers: the strategies that make a batch of tool responses fit its budget.
//!
//! Every strategy implements [`Finalizer`]: it takes a batch by value (unchanged text is moved, never copied),
//! the [`BudgetContext`] and a persistence backend, and returns an [`Outcome`]: the finalized batch and every
//! persistence attempt it made. Strategies are deterministic: the same batch, context and backend behaviour give
//! the same outcome. [`StrategyName`] is the registry that names them; adding a strategy is one file here and
//! one line there.

mod artifacts;
mod claude_code;
mod codex;
mod config;
mod fit;
mod gemini_cli;
mod greedy;
mod head_share;
mod head_tail;
mod largest_first;
mod legacy_layers;
mod line_aware;
mod opencode;
mod openhands;
mod per_result;
mod proportional;
mod reference;
mod send_guard;
mod slots;
mod swe_agent;
#[cfg(test)]
mod testing;
mod uniform;
mod waterfill;
mod weighted;
mod window_relative;

pub mod conformance;

pub use claude_code::ClaudeCode;
pub use codex::Codex;
pub use config::{
    ClaudeCodeConfig, FieldWeights, GeminiCliConfig, LegacyLayersConfig, StrategyConfig,
    WindowRelativeConfig, DEFAULT_SHELL_TOOLS,
};
pub use fit::{fit, header};
pub use gemini_cli::{gemini_threshold, GeminiCli};
pub use greedy::{greedy_allocation, Greedy};
pub use head_share::HeadShare;
pub use head_tail::HeadTail;
pub use largest_first::LargestFirst;
pub use legacy_layers::{marked_preview, LegacyLayers, LEGACY_MARKER};
pub use line_aware::{fit_lines, LineAware};
pub use opencode::OpenCode;
pub use openhands::OpenHands;
pub use proportional::{proportional_allocation, Proportional};
pub use reference::Reference;
pub use send_guard::SendGuard;
pub use slots::{budgeted_total, collect_slots, Slot, SlotScope};
pub use swe_agent::SweAgent;
pub use uniform::{uniform_allocation, Uniform};
pub use waterfill::{CappedAllocation, WaterFill};
pub use weighted::Weighted;
pub use window_relative::{window_relative_threshold, WindowRelative};

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::budget::BudgetContext;
use crate::error::Error;
use crate::model::Batch;
use crate::persist::{ArtifactStore, Content};
use per_result::PerResult;

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
}

/// The registry of strategies, by stable name.
///
/// Every variant but [`StrategyName::HeadTail`] has one fixed name; `head-tail-<ratio>` is a family named by its
/// head share (`head-tail-0`, `head-tail-0.5`, `head-tail-1.0`, `head-tail-1/3` all parse; the canonical name
/// prints the ratio in lowest terms, see [`HeadShare`]). [`StrategyName::ALL`] lists every fixed strategy and a
/// few canonical ratios.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StrategyName {
    /// The production finalizer: water-fill over output, error and text, persisting at most once.
    Reference,
    /// The chat send guard: the same allocation over output and error only, with no I/O.
    SendGuard,
    /// Shares proportional to length, no protection for small fields.
    Proportional,
    /// `budget / n` each, unused shares not redistributed.
    Uniform,
    /// First come, first served in slot order.
    Greedy,
    /// Whole fields replaced by path stubs, largest first, until the batch fits.
    LargestFirst,
    /// Water-fill with weights per field kind.
    Weighted,
    /// The reference allocation with previews cut at line boundaries.
    LineAware,
    /// The reference with another head share of each preview.
    HeadTail(HeadShare),
    /// Producer previews plus a scheduler that trusts truncation markers: the behaviour being replaced.
    LegacyLayers,
    /// A per-result threshold relative to the context window, no batch cap.
    WindowRelative,
    /// Codex CLI: 10,000 bytes per result, half head and half tail.
    Codex,
    /// Gemini CLI: a window-derived threshold, a fifth head and four fifths tail, a saved file.
    GeminiCli,
    /// Claude Code: shell output cut in the middle, a message cap moving the largest results to files.
    ClaudeCode,
    /// OpenHands: 30,000 characters per result, half head and half tail.
    OpenHands,
    /// opencode: the first 2,000 lines or 50 KiB, whole lines, full output written to a file.
    OpenCode,
    /// SWE-agent: the first 100,000 characters and an elision note.
    SweAgent,
}

/// The prefix of the `head-tail-<ratio>` family.
const HEAD_TAIL_PREFIX: &str = "head-tail-";

impl StrategyName {
    /// Every strategy, in listing order (the `head-tail` family by three canonical ratios).
    pub const ALL: &'static [StrategyName] = &[
        StrategyName::Reference,
        StrategyName::SendGuard,
        StrategyName::Proportional,
        StrategyName::Uniform,
        StrategyName::Greedy,
        StrategyName::LargestFirst,
        StrategyName::Weighted,
        StrategyName::LineAware,
        StrategyName::HeadTail(HeadShare { num: 0, den: 1 }),
        StrategyName::HeadTail(HeadShare { num: 1, den: 2 }),
        StrategyName::HeadTail(HeadShare { num: 1, den: 1 }),
        StrategyName::LegacyLayers,
        StrategyName::WindowRelative,
        StrategyName::Codex,
        StrategyName::GeminiCli,
        StrategyName::ClaudeCode,
        StrategyName::OpenHands,
        StrategyName::OpenCode,
        StrategyName::SweAgent,
    ];

    /// The stable name (`head-tail-<ratio>` with the ratio in lowest terms).
    pub fn as_str(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            StrategyName::Reference => "reference",
            StrategyName::SendGuard => "send-guard",
            StrategyName::Proportional => "proportional",
            StrategyName::Uniform => "uniform",
            StrategyName::Greedy => "greedy",
            StrategyName::LargestFirst => "largest-first",
            StrategyName::Weighted => "weighted",
            StrategyName::LineAware => "line-aware",
            StrategyName::HeadTail(ratio) => {
                return Cow::Owned(format!("{HEAD_TAIL_PREFIX}{ratio}"))
            }
            StrategyName::LegacyLayers => "legacy-layers",
            StrategyName::WindowRelative => "window-relative",
            StrategyName::Codex => "codex",
            StrategyName::GeminiCli => "gemini-cli",
            StrategyName::ClaudeCode => "claude-code",
            StrategyName::OpenHands => "openhands",
            StrategyName::OpenCode => "opencode",
            StrategyName::SweAgent => "swe-agent",
        })
    }

    /// A one-line description.
    pub fn description(self) -> &'static str {
        match self {
            StrategyName::Reference => {
                "production water-fill over output, error and text; persists each entry at most once, reuses paths"
            }
            StrategyName::SendGuard => "last-chance guard: the same water-fill over output and error only, no I/O",
            StrategyName::Proportional => "shares proportional to length; small fields are cut as hard as large ones",
            StrategyName::Uniform => "budget / n for every field; the share a short field leaves is not redistributed",
            StrategyName::Greedy => "fields in order take what they need; later fields get what is left, maybe nothing",
            StrategyName::LargestFirst => {
                "persists whole fields largest first and replaces them by a path stub until the batch fits"
            }
            StrategyName::Weighted => "water-fill weighted by field kind (errors and hook text 2, outputs 1 by default)",
            StrategyName::LineAware => {
                "reference allocation; previews cut at line boundaries, keeping the last non-empty line when it fits"
            }
            StrategyName::HeadTail(_) => {
                "reference with this head share of each preview (the reference keeps 0.2 head, 0.8 tail)"
            }
            StrategyName::LegacyLayers => {
                "replaced behaviour: producer previews (shell 30,000, others 2,000); the scheduler skips marked results"
            }
            StrategyName::WindowRelative => {
                "per result: trim over min(configured chars, 10% of the window x 3), floored at 2,000; no batch cap"
            }
            StrategyName::Codex => "Codex CLI: 10,000 UTF-8 bytes per result, half head half tail; nothing saved",
            StrategyName::GeminiCli => {
                "Gemini CLI: over min(4 x free window tokens, 40,000) chars, 1/5 head 4/5 tail; full output saved"
            }
            StrategyName::ClaudeCode => {
                "Claude Code: shell over 30,000 cut in the middle; 200,000 per message, largest results saved first"
            }
            StrategyName::OpenHands => "OpenHands: 30,000 characters per result, half head half tail; nothing saved",
            StrategyName::OpenCode => "opencode: head only, 2,000 lines or 50 KiB of whole lines; full output saved",
            StrategyName::SweAgent => "SWE-agent: head only, the first 100,000 characters and an elision note",
        }
    }

    /// Builds the strategy with its default configuration.
    pub fn build(self) -> Box<dyn Finalizer> {
        self.build_with(&StrategyConfig::default())
    }

    /// Builds the strategy with the parameters `config` gives it.
    pub fn build_with(self, config: &StrategyConfig) -> Box<dyn Finalizer> {
        let share = config.head_share;
        match self {
            StrategyName::Reference => Box::new(Reference::default()),
            StrategyName::SendGuard => Box::new(SendGuard::default()),
            StrategyName::Proportional => Box::new(Proportional { head_share: share }),
            StrategyName::Uniform => Box::new(Uniform { head_share: share }),
            StrategyName::Greedy => Box::new(Greedy { head_share: share }),
            StrategyName::LargestFirst => Box::new(LargestFirst { head_share: share }),
            StrategyName::Weighted => Box::new(Weighted {
                weights: config.weights,
                head_share: share,
            }),
            StrategyName::LineAware => Box::new(LineAware { head_share: share }),
            StrategyName::HeadTail(ratio) => Box::new(HeadTail::new(ratio)),
            StrategyName::LegacyLayers => Box::new(LegacyLayers::from_config(config)),
            StrategyName::WindowRelative => Box::new(PerResult(WindowRelative {
                config: config.window_relative,
                head_share: share,
            })),
            StrategyName::Codex => Box::new(PerResult(Codex)),
            StrategyName::GeminiCli => Box::new(PerResult(GeminiCli {
                config: config.gemini_cli,
            })),
            StrategyName::ClaudeCode => Box::new(ClaudeCode::from_config(config)),
            StrategyName::OpenHands => Box::new(PerResult(OpenHands)),
            StrategyName::OpenCode => Box::new(PerResult(OpenCode)),
            StrategyName::SweAgent => Box::new(PerResult(SweAgent)),
        }
    }

    /// Whether the strategy promises that the budgeted total (output, error and text) fits a finite budget.
    pub fn caps_batch(self) -> bool {
        matches!(
            self,
            StrategyName::Reference
                | StrategyName::Proportional
                | StrategyName::Uniform
                | StrategyName::Greedy
                | StrategyName::LargestFirst
                | StrategyName::Weighted
                | StrategyName::LineAware
                | StrategyName::HeadTail(_)
        )
    }
}

impl fmt::Display for StrategyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

impl FromStr for StrategyName {
    type Err = Error;

    /// A fixed name, or `head-tail-<ratio>` with a ratio [`HeadShare`] parses.
    fn from_str(s: &str) -> Result<Self, Error> {
        if let Some(ratio) = s.strip_prefix(HEAD_TAIL_PREFIX) {
            return ratio.parse().map(StrategyName::HeadTail).map_err(|_| {
                Error::invalid(
                    "strategy",
                    s,
                    "the head-tail ratio must be between 0 and 1, as a decimal (head-tail-0.5) or a fraction (head-tail-1/3)",
                )
            });
        }
        StrategyName::ALL
            .iter()
            .copied()
            .find(|n| !matches!(n, StrategyName::HeadTail(_)) && n.as_str() == s)
            .ok_or_else(|| {
                let mut known: Vec<Cow<'static, str>> = StrategyName::ALL
                    .iter()
                    .filter(|n| !matches!(n, StrategyName::HeadTail(_)))
                    .map(|n| n.as_str())
                    .collect();
                known.push(Cow::Borrowed("head-tail-<ratio>"));
                Error::invalid(
                    "strategy",
                    s,
                    format!("known strategies: {}", known.join(", ")),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_round_trips_and_builds_under_its_name() {
        for &s in StrategyName::ALL {
            let name = s.as_str();
            assert_eq!(name.parse::<StrategyName>().unwrap(), s, "{name}");
            assert_eq!(s.build().name(), name);
            assert!(!s.description().is_empty());
        }
        let names: Vec<String> = StrategyName::ALL.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            names[8..11],
            ["head-tail-0", "head-tail-0.5", "head-tail-1"]
        );
    }

    #[test]
    fn head_tail_names_parse_exact_ratios() {
        let ratio = |s: &str| match s.parse::<StrategyName>().unwrap() {
            StrategyName::HeadTail(r) => (r.num, r.den),
            other => panic!("{other}"),
        };
        assert_eq!(ratio("head-tail-0"), (0, 1));
        assert_eq!(ratio("head-tail-0.5"), (1, 2));
        assert_eq!(ratio("head-tail-1.0"), (1, 1));
        assert_eq!(ratio("head-tail-0.25"), (1, 4));
        assert_eq!(ratio("head-tail-1/3"), (1, 3));
        assert_eq!(
            "head-tail-1.0".parse::<StrategyName>().unwrap(),
            "head-tail-1".parse::<StrategyName>().unwrap()
        );
        assert_eq!(
            "head-tail-0.20"
                .parse::<StrategyName>()
                .unwrap()
                .build()
                .name(),
            "head-tail-0.2"
        );
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let e = "fancy".parse::<StrategyName>().unwrap_err().to_string();
        assert!(
            e.starts_with(
                "invalid strategy \"fancy\": known strategies: reference, send-guard, proportional"
            ),
            "{e}"
        );
        assert!(e.ends_with("opencode, swe-agent, head-tail-<ratio>"), "{e}");
        let e = "head-tail-2"
            .parse::<StrategyName>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("between 0 and 1"), "{e}");
        assert!("head-tail-".parse::<StrategyName>().is_err());
    }

    #[test]
    fn build_with_passes_the_weights() {
        let config: StrategyConfig =
            serde_json::from_str(r#"{"weights": {"output": 3, "error": 1}}"#).unwrap();
        let mut store = crate::persist::MemoryStore::new("/tmp");
        let batch = vec![testing::output_error_entry(
            "c",
            "shell",
            &"o".repeat(1_000),
            &"e".repeat(1_000),
        )];
        let ctx = BudgetContext::new(crate::Budget::Units(400));
        let lengths = |out: &Outcome| {
            let part = &out.batch[0].response_parts[0];
            [crate::model::Field::Output, crate::model::Field::Error]
                .map(|f| crate::utf16_len(part.field(f).unwrap()))
        };
        let out =
            StrategyName::Weighted
                .build_with(&config)
                .finalize(batch.clone(), &ctx, &mut store);
        assert_eq!(lengths(&out), [300, 100]);
        let out = StrategyName::Weighted
            .build()
            .finalize(batch, &ctx, &mut store);
        assert_eq!(lengths(&out), [134, 266]);
    }

    #[test]
    fn build_with_passes_the_parameters() {
        let config: StrategyConfig =
            serde_json::from_str(r#"{"window_relative": {"configured_chars": 3000}}"#).unwrap();
        let mut store = crate::persist::MemoryStore::new("/tmp");
        let batch = vec![testing::output_entry("c", "shell", &"x".repeat(3_001))];
        let ctx = BudgetContext::new(crate::Budget::Unlimited);
        let out = StrategyName::WindowRelative.build_with(&config).finalize(
            batch.clone(),
            &ctx,
            &mut store,
        );
        assert_eq!(crate::utf16_len(testing::output_of(&out, 0)), 2_000);
        let out = StrategyName::WindowRelative
            .build()
            .finalize(batch, &ctx, &mut store);
        assert_eq!(testing::output_of(&out, 0), "x".repeat(3_001));
    }
}
