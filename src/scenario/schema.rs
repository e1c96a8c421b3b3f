//! The schema of a scenario file: the types its TOML deserializes into, with their defaults. Every table but the
//! root has a default for every key and rejects unknown keys; the root needs the keys [`REQUIRED`] lists.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::empirical::Empirical;
use super::texture::Texture;
use crate::finalize::StrategyConfig;
use crate::rng::Seed;
use crate::workload::{HookConfig, Kind, Mode, SizeKey, SizeOverride};

/// The keys a scenario file must have, in the order [`Scenario`] declares them (the order in which serde finds
/// one missing).
pub const REQUIRED: [&str; 4] = ["name", "description", "seed", "batches"];

/// A workload: what to generate and the budgets and mode to run it at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The scenario's name (also part of every batch's random stream key).
    pub name: String,
    /// What the scenario stresses, in a sentence or two.
    pub description: String,
    /// The seed of the run (`--seed` overrides it).
    pub seed: Seed,
    /// How many batches a run generates (`--batches` overrides it).
    pub batches: u64,
    /// The runtime mode whose boundaries a simulation follows (default `interactive`).
    #[serde(default = "default_mode")]
    pub mode: Mode,
    /// Whether the simulation runs the legacy (pre-finalizer) pipeline.
    #[serde(default)]
    pub legacy: bool,
    /// Entries per batch.
    #[serde(default)]
    pub batch_size: BatchSize,
    /// Relative weights of the kinds of output; when the table is absent the mixed-realistic weights apply, when
    /// present the kinds it omits get weight 0.
    #[serde(default)]
    pub kinds: Option<BTreeMap<Kind, f64>>,
    /// Per-kind overrides of the built-in size models.
    #[serde(default)]
    pub sizes: BTreeMap<SizeKey, SizeOverride>,
    /// Shape switches of the batches.
    #[serde(default)]
    pub shape: Shape,
    /// The producers' own previews of large outputs.
    #[serde(default)]
    pub producer: Producer,
    /// Persistence fault rates.
    #[serde(default)]
    pub persistence: Persistence,
    /// The budgets to run at.
    #[serde(default)]
    pub budgets: Budgets,
    /// Parameters of the strategies (`[strategy]`; defaults when absent). Its `salient`, `relevance`, `rarity`
    /// and `structure` tables are left out of the serialized scenario (and so of its digest) when they are the
    /// default, so the digests of scenarios written before those existed stay as they were.
    #[serde(default, serialize_with = "strategy_without_default_salient")]
    pub strategy: StrategyConfig,
    /// The simulated PostToolBatch hook (`[hook]`).
    #[serde(default)]
    pub hook: HookConfig,
    /// How the outputs look as a harness records them (`[texture]`); left out of the serialized scenario (and so
    /// of its digest) when it is the default.
    #[serde(default, skip_serializing_if = "Texture::is_default")]
    pub texture: Texture,
    /// Empirical size models of some kinds (`[empirical.KIND]`): their results are written to exactly the size
    /// drawn from the table. Left out of the serialized scenario (and so of its digest) when empty, the default.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub empirical: BTreeMap<Kind, Empirical>,
    /// Focused results (`[focus]`): long outputs whose relevant lines the turn's context points at. Left out of
    /// the serialized scenario (and so of its digest) when it is the default, none.
    #[serde(default, skip_serializing_if = "Focus::is_default")]
    pub focus: Focus,
}

/// Focused results (`[focus]`, `generate::focus`): a share of the entries replaced by long outputs (600 to
/// 1,800 lines) whose relevant lines, in the middle, are the ones the turn's context points at (the window a
/// call asked for, the test the task names, the hit the assistant looks for), planted as `relevant` needles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Focus {
    /// Share of entries (whose call id is their own) made focused, in `[0, 1]`; 0 (the default): none.
    pub share: f64,
}

impl Focus {
    /// Whether this is the default: no focused result.
    pub fn is_default(&self) -> bool {
        *self == Focus::default()
    }
}

/// Serializes `config` with its `salient`, `relevance`, `rarity` and `structure` tables left out when default.
fn strategy_without_default_salient<S: serde::Serializer>(
    config: &StrategyConfig,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut value = serde_json::to_value(config).map_err(serde::ser::Error::custom)?;
    let defaults = StrategyConfig::default();
    if let serde_json::Value::Object(map) = &mut value {
        if config.salient.is_default() {
            map.shift_remove("salient");
        }
        // The content-aware strategies' tables, likewise (they came after `salient`).
        if config.relevance == defaults.relevance {
            map.shift_remove("relevance");
        }
        if config.rarity == defaults.rarity {
            map.shift_remove("rarity");
        }
        if config.structure == defaults.structure {
            map.shift_remove("structure");
        }
    }
    value.serialize(serializer)
}

/// Entries per batch: log-normal around `median`, clamped to `[min, max]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BatchSize {
    /// Median number of entries.
    pub median: f64,
    /// Log-space standard deviation.
    pub sigma: f64,
    /// Fewest entries (at least 1).
    pub min: u64,
    /// Most entries.
    pub max: u64,
}

impl Default for BatchSize {
    fn default() -> Self {
        BatchSize {
            median: 3.0,
            sigma: 0.9,
            min: 1,
            max: 64,
        }
    }
}

/// Shape switches: rates are shares in `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Shape {
    /// Share of entries (after the first) that repeat an earlier call id of their batch.
    pub duplicate_rate: f64,
    /// Share of call ids that are awkward ('/', `..`, empty, NUL, non-ASCII, very long).
    pub awkward_id_rate: f64,
    /// Share of entries that get a top-level hook-context text part.
    pub hook_text_rate: f64,
    /// Share of batches with one giant output (sized by `[sizes.giant]`) among the others.
    pub giant_rate: f64,
    /// Share of shell logs with ANSI colour codes.
    pub ansi_rate: f64,
    /// Share of JSON results that are pretty-printed.
    pub pretty_json_rate: f64,
    /// Share of MCP results whose `output` is a JSON object rather than a string.
    pub object_output_rate: f64,
    /// Share of prose written in Chinese: application logs among large shell outputs, comments, docstrings and
    /// documentation in file reads, TODO comments in search results, issues and documentation snippets in MCP
    /// results. Left out of the serialized scenario (and so of its digest) when zero, the default.
    #[serde(skip_serializing_if = "is_zero")]
    pub cjk_share: f64,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            duplicate_rate: 0.01,
            awkward_id_rate: 0.02,
            hook_text_rate: 0.04,
            giant_rate: 0.0,
            ansi_rate: 0.3,
            pretty_json_rate: 0.5,
            object_output_rate: 0.04,
            cjk_share: 0.0,
        }
    }
}

/// Producer-level previews: off for raw outputs, on for the pre-persisted workloads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Producer {
    /// Whether producers shorten large outputs (and set `persistedOutputFiles`).
    pub previews: bool,
    /// Shell outputs longer than this many units are previewed.
    pub shell_trigger: u64,
    /// Size of the shell head-and-tail preview, in units.
    pub shell_preview: u64,
    /// MCP results longer than this many units are previewed.
    pub mcp_trigger: u64,
    /// Size of the MCP head preview, in units.
    pub mcp_preview: u64,
    /// Directory the producers' artifact paths are under.
    pub artifact_dir: String,
}

impl Default for Producer {
    fn default() -> Self {
        Producer {
            previews: false,
            shell_trigger: 30_000,
            shell_preview: 4_000,
            mcp_trigger: 20_000,
            mcp_preview: 2_000,
            artifact_dir: "/home/dev/.agent/tmp/tool-outputs".into(),
        }
    }
}

/// Persistence fault rates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Persistence {
    /// Share of producer previews whose write failed (`persistedOutputFiles` = `[]`).
    pub producer_fault_rate: f64,
    /// Share of finalizer writes that fail in a simulation.
    pub finalizer_fault_rate: f64,
}

/// The budgets a scenario runs at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Budgets {
    /// Absolute budgets, in UTF-16 units.
    pub absolute: Vec<u64>,
    /// The configured character budget the window-relative rule starts from.
    pub configured: u64,
    /// Context windows, in tokens, each giving a window-relative budget.
    pub windows: Vec<u64>,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            absolute: Vec::new(),
            configured: 100_000,
            windows: Vec::new(),
        }
    }
}

fn default_mode() -> Mode {
    Mode::Interactive
}
