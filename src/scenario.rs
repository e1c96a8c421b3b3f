//! Scenario files: the named workloads an engineer tunes against, as TOML in `scenarios/`.
//!
//! A scenario names its seed and number of batches, the batch-size distribution, the weights of the kinds of
//! output, overrides of the kinds' size models, the shape switches (duplicate and awkward call ids, hook text,
//! one giant output, ANSI colour, pretty JSON, object outputs), the producer previews, the persistence fault
//! rates, the budgets to run at (absolute, and relative to context windows by the rule of
//! [`window_relative_threshold`]) and the runtime mode. Unknown keys are errors, and every error names the file, the line and the field. The
//! shipped scenarios are also compiled into the binary ([`SHIPPED`]), so `--scenario mixed-realistic` works from
//! any directory.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::finalize::{window_relative_threshold, StrategyConfig};
use crate::generate::{Kind, SizeKey, SizeModel, SizeOverride, MAX_SIZE};
use crate::rng::Seed;
use crate::simulate::{HookConfig, Mode};

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
    /// Parameters of the strategies (`[strategy]`; defaults when absent).
    #[serde(default)]
    pub strategy: StrategyConfig,
    /// The simulated PostToolBatch hook (`[hook]`).
    #[serde(default)]
    pub hook: HookConfig,
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

/// One budget a scenario runs at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioBudget {
    /// A label for reports: `abs-20000`, `window-16000`.
    pub label: String,
    /// The budget in UTF-16 units.
    pub units: u64,
    /// The context window it was derived from, in tokens.
    pub window_tokens: Option<u64>,
}

fn default_mode() -> Mode {
    Mode::Interactive
}

/// Most batches a scenario (or `--batches`) may ask for.
pub const MAX_BATCHES: u64 = 1_000_000;
/// Most entries in one batch (`batch_size.max`).
pub const MAX_BATCH_WIDTH: u64 = 4_096;
/// Largest relative weight of a kind.
pub const MAX_KIND_WEIGHT: f64 = 1e6;
/// Largest budget (absolute or configured), in UTF-16 units.
pub const MAX_BUDGET_UNITS: u64 = 1_000_000_000_000;
/// Largest context window, in tokens.
pub const MAX_WINDOW_TOKENS: u64 = 1_000_000_000_000;
/// Most budgets a scenario lists in `budgets.absolute`, and most context windows in `budgets.windows`.
pub const MAX_BUDGETS: usize = 64;
/// Most units of hook context appended to one output (`hook.append_units`).
pub const MAX_APPEND_UNITS: usize = 1_000_000;
/// Most UTF-16 units of text one batch of a scenario may hold, as [`Scenario::max_batch_units`] counts them.
pub const MAX_BATCH_UNITS: u64 = 1 << 30;
/// What [`Scenario::max_batch_units`] allows each entry beyond its drawn sizes: call id, tool name, the lines a
/// generator writes around the drawn length, a plan-mode reminder, a producer preview's marker.
pub const ENTRY_OVERHEAD_UNITS: u64 = 4_096;

/// Checks a number of batches given on the command line (`what`, e.g. `--batches`): `1..=MAX_BATCHES`.
pub fn check_batches(what: &str, batches: u64) -> Result<u64> {
    if (1..=MAX_BATCHES).contains(&batches) {
        Ok(batches)
    } else {
        Err(Error::invalid(
            what,
            batches.to_string(),
            format!("must be between 1 and {MAX_BATCHES}"),
        ))
    }
}

/// The scenarios shipped in `scenarios/`, compiled in: (name, TOML source).
pub const SHIPPED: &[(&str, &str)] = &[
    ("cjk-heavy", include_str!("../scenarios/cjk-heavy.toml")),
    (
        "large-window",
        include_str!("../scenarios/large-window.toml"),
    ),
    ("many-small", include_str!("../scenarios/many-small.toml")),
    ("mcp-heavy", include_str!("../scenarios/mcp-heavy.toml")),
    (
        "mixed-realistic",
        include_str!("../scenarios/mixed-realistic.toml"),
    ),
    ("one-giant", include_str!("../scenarios/one-giant.toml")),
    (
        "persist-failures",
        include_str!("../scenarios/persist-failures.toml"),
    ),
    ("plan-mode", include_str!("../scenarios/plan-mode.toml")),
    (
        "pre-persisted",
        include_str!("../scenarios/pre-persisted.toml"),
    ),
    ("shell-heavy", include_str!("../scenarios/shell-heavy.toml")),
    (
        "small-window",
        include_str!("../scenarios/small-window.toml"),
    ),
    (
        "surrogate-storm",
        include_str!("../scenarios/surrogate-storm.toml"),
    ),
];

impl Scenario {
    /// Parses and validates a scenario from TOML; `source_name` (a path) is named in errors.
    pub fn parse(source: &str, source_name: &str) -> Result<Scenario> {
        let scenario: Scenario = toml::from_str(source).map_err(|e| {
            let offset = e.span().map(|s| s.start).unwrap_or(0);
            let (line, mut field) = field_at(source, offset);
            let message = e.message().to_string();
            if let Some(missing) = backticked(&message, "missing field `") {
                field = join(&field_table(source, offset), &missing);
            }
            Error::Scenario {
                path: source_name.to_string(),
                line,
                field,
                message,
            }
        })?;
        scenario
            .validate()
            .map_err(|(table, key, message)| Error::Scenario {
                path: source_name.to_string(),
                line: locate(source, &table, &key),
                field: join(&table, &key),
                message,
            })?;
        Ok(scenario)
    }

    /// Reads and parses a scenario file.
    pub fn load(path: &Path) -> Result<Scenario> {
        let source = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Scenario::parse(&source, &path.display().to_string())
    }

    /// A shipped scenario by name.
    pub fn shipped(name: &str) -> Option<Scenario> {
        SHIPPED.iter().find(|(n, _)| *n == name).map(|(n, src)| {
            Scenario::parse(src, &format!("scenarios/{n}.toml"))
                .expect("shipped scenarios are valid")
        })
    }

    /// Every shipped scenario, sorted by name.
    pub fn all_shipped() -> Vec<Scenario> {
        SHIPPED
            .iter()
            .filter_map(|(n, _)| Scenario::shipped(n))
            .collect()
    }

    /// A scenario given on the command line: a file if `arg` names one, otherwise a shipped scenario's name.
    pub fn resolve(arg: &str) -> Result<Scenario> {
        let path = Path::new(arg);
        if path.exists() || arg.ends_with(".toml") || arg.contains('/') {
            return Scenario::load(path);
        }
        Scenario::shipped(arg).ok_or_else(|| {
            let names: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
            Error::invalid(
                "--scenario",
                arg,
                format!(
                    "no such file, and not a shipped scenario ({})",
                    names.join(", ")
                ),
            )
        })
    }

    /// Loads every `*.toml` file of `dir`, sorted by file name.
    pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>> {
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let path = entry.map_err(|e| Error::io(dir, e))?.path();
            if path.extension().is_some_and(|x| x == "toml") && path.is_file() {
                paths.push(path);
            }
        }
        paths.sort();
        paths.iter().map(|p| Scenario::load(p)).collect()
    }

    /// SHA-256 (hex) of the scenario's canonical JSON form: what reports cite as the scenario's hash.
    pub fn digest(&self) -> String {
        let json = serde_json::to_string(self).expect("a scenario serializes");
        crate::digest::sha256_hex(&json)
    }

    /// The kinds' weights in [`Kind::ALL`] order.
    pub fn kind_weights(&self) -> Vec<(Kind, f64)> {
        Kind::ALL
            .into_iter()
            .map(|k| {
                let w = match &self.kinds {
                    None => k.default_weight(),
                    Some(map) => map.get(&k).copied().unwrap_or(0.0),
                };
                (k, w)
            })
            .collect()
    }

    /// The size model for `key`: the built-in model with this scenario's overrides applied.
    pub fn size_model(&self, key: SizeKey) -> SizeModel {
        let base = key.default_model();
        match self.sizes.get(&key) {
            Some(o) => base.apply(o),
            None => base,
        }
    }

    /// The budgets to run at: the absolute ones, then one per context window; just the configured budget when
    /// the scenario names neither.
    pub fn budgets(&self) -> Vec<ScenarioBudget> {
        let b = &self.budgets;
        let mut out: Vec<ScenarioBudget> = b
            .absolute
            .iter()
            .map(|&units| ScenarioBudget {
                label: format!("abs-{units}"),
                units,
                window_tokens: None,
            })
            .collect();
        out.extend(b.windows.iter().map(|&w| ScenarioBudget {
            label: format!("window-{w}"),
            units: window_relative_threshold(b.configured, Some(w)),
            window_tokens: Some(w),
        }));
        if out.is_empty() {
            out.push(ScenarioBudget {
                label: format!("abs-{}", b.configured),
                units: b.configured,
                window_tokens: None,
            });
        }
        out
    }

    /// The size models generation can draw from: those of the kinds with a positive weight, the giant's when
    /// `giant_rate > 0` and the hook text's when `hook_text_rate > 0`, in [`SizeKey::ALL`] order.
    pub fn sizes_in_use(&self) -> Vec<SizeKey> {
        let weights = self.kind_weights();
        SizeKey::ALL
            .into_iter()
            .filter(|&key| match key {
                SizeKey::Giant => self.shape.giant_rate > 0.0,
                SizeKey::HookText => self.shape.hook_text_rate > 0.0,
                _ => weights
                    .iter()
                    .any(|&(k, w)| SizeKey::from(k) == key && w > 0.0),
            })
            .collect()
    }

    /// The most UTF-16 units of text one batch can hold: `batch_size.max` entries, each at the largest size its
    /// kinds (or the giant) can draw, with the largest hook text part and media data the scenario can add, the
    /// appended hook context and [`ENTRY_OVERHEAD_UNITS`]. Loading refuses a scenario where this is above
    /// [`MAX_BATCH_UNITS`], so what generating or simulating one batch allocates is bounded.
    pub fn max_batch_units(&self) -> u64 {
        let in_use = self.sizes_in_use();
        let max_of = |keys: &mut dyn Iterator<Item = &SizeKey>| {
            keys.map(|&k| self.size_model(k).max).max().unwrap_or(0)
        };
        let body = max_of(
            &mut in_use
                .iter()
                .filter(|k| !matches!(k, SizeKey::Media | SizeKey::HookText)),
        );
        let media = max_of(&mut in_use.iter().filter(|k| **k == SizeKey::Media));
        let hook_text = max_of(&mut in_use.iter().filter(|k| **k == SizeKey::HookText));
        let entry = u128::from(body)
            + u128::from(media)
            + u128::from(hook_text)
            + self.hook.append_units as u128
            + u128::from(ENTRY_OVERHEAD_UNITS);
        u64::try_from(u128::from(self.batch_size.max) * entry).unwrap_or(u64::MAX)
    }

    /// Checks values serde cannot, against the bounds scenarios/README.md documents: on error, (table, key,
    /// message).
    fn validate(&self) -> std::result::Result<(), (String, String, String)> {
        let err = |table: &str, key: &str, message: String| {
            Err((table.to_string(), key.to_string(), message))
        };
        if self.name.trim().is_empty() {
            return err("", "name", "must not be empty".into());
        }
        if !(1..=MAX_BATCHES).contains(&self.batches) {
            return err(
                "",
                "batches",
                format!("must be between 1 and {MAX_BATCHES}, got {}", self.batches),
            );
        }
        let bs = &self.batch_size;
        if !(bs.median.is_finite() && bs.median > 0.0 && bs.median <= MAX_BATCH_WIDTH as f64) {
            return err(
                "batch_size",
                "median",
                format!(
                    "must be a positive number of at most {MAX_BATCH_WIDTH}, got {}",
                    bs.median
                ),
            );
        }
        if !(bs.sigma.is_finite() && (0.0..=10.0).contains(&bs.sigma)) {
            return err(
                "batch_size",
                "sigma",
                format!("must be in [0, 10], got {}", bs.sigma),
            );
        }
        if bs.min == 0 {
            return err("batch_size", "min", "must be at least 1".into());
        }
        if bs.max < bs.min || bs.max > MAX_BATCH_WIDTH {
            return err(
                "batch_size",
                "max",
                format!("must be in [min, {MAX_BATCH_WIDTH}], got {}", bs.max),
            );
        }
        if let Some(kinds) = &self.kinds {
            for (k, w) in kinds {
                if !(w.is_finite() && (0.0..=MAX_KIND_WEIGHT).contains(w)) {
                    return err(
                        "kinds",
                        k.as_str(),
                        format!("weight must be a number in [0, {MAX_KIND_WEIGHT}], got {w}"),
                    );
                }
            }
            if kinds.values().sum::<f64>() <= 0.0 {
                return err(
                    "kinds",
                    "",
                    "at least one kind needs a positive weight".into(),
                );
            }
        }
        for key in SizeKey::ALL {
            if let Err((field, message)) = self.size_model(key).validate() {
                let table = format!("sizes.{}", serde_name(&key));
                return err(&table, field, message);
            }
        }
        let s = &self.shape;
        for (key, v) in [
            ("duplicate_rate", s.duplicate_rate),
            ("awkward_id_rate", s.awkward_id_rate),
            ("hook_text_rate", s.hook_text_rate),
            ("giant_rate", s.giant_rate),
            ("ansi_rate", s.ansi_rate),
            ("pretty_json_rate", s.pretty_json_rate),
            ("object_output_rate", s.object_output_rate),
            ("cjk_share", s.cjk_share),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return err("shape", key, format!("must be a share in [0, 1], got {v}"));
            }
        }
        let p = &self.persistence;
        for (key, v) in [
            ("producer_fault_rate", p.producer_fault_rate),
            ("finalizer_fault_rate", p.finalizer_fault_rate),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return err(
                    "persistence",
                    key,
                    format!("must be a share in [0, 1], got {v}"),
                );
            }
        }
        let pr = &self.producer;
        for (key, v) in [
            ("shell_trigger", pr.shell_trigger),
            ("mcp_trigger", pr.mcp_trigger),
        ] {
            if v > MAX_SIZE {
                return err(
                    "producer",
                    key,
                    format!("must be at most {MAX_SIZE} (no output is longer), got {v}"),
                );
            }
        }
        if pr.shell_preview < 200 || pr.shell_preview >= pr.shell_trigger {
            return err(
                "producer",
                "shell_preview",
                "must be at least 200 and below shell_trigger".into(),
            );
        }
        if pr.mcp_preview < 200 || pr.mcp_preview >= pr.mcp_trigger {
            return err(
                "producer",
                "mcp_preview",
                "must be at least 200 and below mcp_trigger".into(),
            );
        }
        let b = &self.budgets;
        for (key, list, bound, what) in [
            ("absolute", &b.absolute, MAX_BUDGET_UNITS, "budgets"),
            ("windows", &b.windows, MAX_WINDOW_TOKENS, "context windows"),
        ] {
            if list.len() > MAX_BUDGETS {
                return err(
                    "budgets",
                    key,
                    format!("at most {MAX_BUDGETS} {what}, got {}", list.len()),
                );
            }
            if let Some(v) = list.iter().find(|&&v| v == 0 || v > bound) {
                return err(
                    "budgets",
                    key,
                    format!("{what} must be between 1 and {bound}, got {v}"),
                );
            }
        }
        if !(1..=MAX_BUDGET_UNITS).contains(&b.configured) {
            return err(
                "budgets",
                "configured",
                format!(
                    "must be between 1 and {MAX_BUDGET_UNITS}, got {}",
                    b.configured
                ),
            );
        }
        if self.hook.append_units > MAX_APPEND_UNITS {
            return err(
                "hook",
                "append_units",
                format!(
                    "must be at most {MAX_APPEND_UNITS}, got {}",
                    self.hook.append_units
                ),
            );
        }
        match self.strategy.validate() {
            Ok(()) => {}
            Err(Error::InvalidValue {
                what,
                value,
                reason,
            }) => {
                let (table, key) = match what.rsplit_once('.') {
                    Some((table, key)) => (format!("strategy.{table}"), key.to_string()),
                    None => ("strategy".to_string(), what),
                };
                return err(&table, &key, format!("{reason}, got {value}"));
            }
            Err(other) => return err("strategy", "", other.to_string()),
        }
        let units = self.max_batch_units();
        if units > MAX_BATCH_UNITS {
            return err(
                "batch_size",
                "max",
                format!(
                    "a batch of up to {} entries could hold {units} UTF-16 units of text, above the bound of \
                     {MAX_BATCH_UNITS}: lower batch_size.max, the sizes' max or hook.append_units",
                    self.batch_size.max
                ),
            );
        }
        Ok(())
    }
}

/// The snake_case name serde gives a unit enum variant.
fn serde_name<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn join(table: &str, key: &str) -> String {
    match (table.is_empty(), key.is_empty()) {
        (true, _) => key.to_string(),
        (_, true) => table.to_string(),
        _ => format!("{table}.{key}"),
    }
}

/// The text between `prefix` and the next backtick in `message`.
fn backticked(message: &str, prefix: &str) -> Option<String> {
    let rest = &message[message.find(prefix)? + prefix.len()..];
    Some(rest[..rest.find('`')?].to_string())
}

/// The table header (`[a.b]`) in force at byte `offset`, or `""` for the root table.
fn table_at(source: &str, offset: usize) -> String {
    let upto = &source[..offset.min(source.len())];
    upto.lines().rev().find_map(header_of).unwrap_or_default()
}

fn header_of(line: &str) -> Option<String> {
    let t = line.trim();
    let inner = t.strip_prefix('[')?.split(']').next()?;
    Some(inner.trim_matches(|c| c == '[' || c == ' ').to_string())
}

fn field_table(source: &str, offset: usize) -> String {
    let table = table_at(source, offset);
    let line_start = source[..offset.min(source.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line = source[line_start..].lines().next().unwrap_or("");
    header_of(line).unwrap_or(table)
}

/// The 1-based line of byte `offset` and the dotted field written there.
fn field_at(source: &str, offset: usize) -> (usize, String) {
    let offset = offset.min(source.len());
    let line_no = source[..offset].matches('\n').count() + 1;
    let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = source[line_start..].lines().next().unwrap_or("");
    if let Some(header) = header_of(line) {
        return (line_no, header);
    }
    let table = table_at(source, line_start);
    let key = line
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_string())
        .unwrap_or_default();
    (line_no, join(&table, &key))
}

/// The 1-based line where `key` is set in `table` (or the table's header, or line 1).
fn locate(source: &str, table: &str, key: &str) -> usize {
    let mut current = String::new();
    let mut header_line = None;
    for (i, line) in source.lines().enumerate() {
        if let Some(h) = header_of(line) {
            current = h;
            if current == table {
                header_line = Some(i + 1);
            }
            continue;
        }
        if current == table && !key.is_empty() {
            if let Some((k, _)) = line.split_once('=') {
                if k.trim().trim_matches('"') == key {
                    return i + 1;
                }
            }
        }
    }
    header_line.unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "name = \"t\"\ndescription = \"d\"\nseed = 7\nbatches = 3\n";

    fn parse_err(src: &str) -> (usize, String, String) {
        match Scenario::parse(src, "bad.toml").unwrap_err() {
            Error::Scenario {
                path,
                line,
                field,
                message,
            } => {
                assert_eq!(path, "bad.toml");
                (line, field, message)
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn minimal_file_takes_defaults() {
        let s = Scenario::parse(MINIMAL, "t.toml").unwrap();
        assert_eq!(s.mode, Mode::Interactive);
        assert!(!s.legacy);
        assert_eq!(s.batch_size, BatchSize::default());
        assert_eq!(
            s.kind_weights()[0],
            (Kind::Shell, Kind::Shell.default_weight())
        );
        assert_eq!(
            s.budgets(),
            vec![ScenarioBudget {
                label: "abs-100000".into(),
                units: 100_000,
                window_tokens: None
            }]
        );
    }

    #[test]
    fn budgets_list_absolute_then_windows() {
        let src = format!(
            "{MINIMAL}[budgets]\nabsolute = [8000]\nconfigured = 100000\nwindows = [16000, 200000, 1000000, 4000]\n"
        );
        let s = Scenario::parse(&src, "t.toml").unwrap();
        let units: Vec<u64> = s.budgets().iter().map(|b| b.units).collect();
        // 10% of the window x 3 chars/token, capped by the configured 100,000 and floored at 2,000
        assert_eq!(units, [8_000, 4_800, 60_000, 100_000, 2_000]);
        assert_eq!(s.budgets()[1].label, "window-16000");
    }

    #[test]
    fn errors_name_line_and_field() {
        let (line, field, msg) =
            parse_err(&format!("{MINIMAL}[shape]\nansi_rate = 0.5\ncolour = 1\n"));
        assert_eq!((line, field.as_str()), (7, "shape.colour"));
        assert!(msg.contains("unknown field `colour`"), "{msg}");

        let (line, field, _) = parse_err(&format!("{MINIMAL}[shape]\nansi_rate = \"lots\"\n"));
        assert_eq!((line, field.as_str()), (6, "shape.ansi_rate"));

        let (line, field, _) = parse_err(&format!("{MINIMAL}[sizes.shel]\nmedian = 4\n"));
        assert_eq!((line, field.as_str()), (5, "sizes.shel"));

        let (line, field, msg) = parse_err("name = \"t\"\ndescription = \"d\"\nbatches = 1\n");
        assert_eq!((line, field.as_str()), (1, "seed"));
        assert!(msg.contains("missing field"));

        let (line, field, _) = parse_err(&format!("{MINIMAL}mode = \"turbo\"\n"));
        assert_eq!((line, field.as_str()), (5, "mode"));
    }

    #[test]
    fn validation_errors_name_line_and_field() {
        let (line, field, msg) = parse_err(&format!(
            "{MINIMAL}\n[sizes.shell]\nmedian = 10\nmin = 50\nmax = 5\n"
        ));
        assert_eq!((line, field.as_str()), (8, "sizes.shell.min"));
        assert!(msg.contains("above max"), "{msg}");

        let (line, field, _) = parse_err(&format!("{MINIMAL}[shape]\ngiant_rate = 1.5\n"));
        assert_eq!((line, field.as_str()), (6, "shape.giant_rate"));

        let (line, field, _) = parse_err(&format!("{MINIMAL}[kinds]\nshell = 0\n"));
        assert_eq!((line, field.as_str()), (5, "kinds"));

        let (line, field, _) = parse_err(&MINIMAL.replace("batches = 3", "batches = 0"));
        assert_eq!((line, field.as_str()), (4, "batches"));

        let (line, field, msg) = parse_err(&format!("{MINIMAL}[strategy.weights]\nerror = 0\n"));
        assert_eq!((line, field.as_str()), (6, "strategy.weights.error"));
        assert!(msg.contains("at least 1"), "{msg}");
    }

    #[test]
    fn every_bound_is_checked_at_load_naming_line_and_field() {
        // (text after MINIMAL, line, field, part of the message): each one just past its documented bound.
        let cases: &[(&str, usize, &str, &str)] = &[
            (
                "[sizes.shell]\nmedian = 1e12\nmin = 1000000000000\nmax = 1000000000000\n",
                7,
                "sizes.shell.median",
                "at most 16000000",
            ),
            (
                "[sizes.giant]\nmax = 16000001\n",
                7,
                "sizes.giant.max",
                "at most 16000000",
            ),
            (
                "[sizes.media]\ntail_median = inf\n",
                7,
                "sizes.media.tail_median",
                "[0, 16000000]",
            ),
            (
                "[hook]\nappend_units = 18446744073709551615\n",
                7,
                "hook.append_units",
                "at most 1000000",
            ),
            (
                "[batch_size]\nmedian = 5000\n",
                7,
                "batch_size.median",
                "at most 4096",
            ),
            (
                "[batch_size]\nmax = 4097\n",
                7,
                "batch_size.max",
                "[min, 4096]",
            ),
            ("[kinds]\nshell = 1e7\n", 7, "kinds.shell", "[0, 1000000]"),
            (
                "[producer]\nshell_trigger = 16000001\n",
                7,
                "producer.shell_trigger",
                "at most 16000000",
            ),
            (
                "[budgets]\nabsolute = [1000000000001]\n",
                7,
                "budgets.absolute",
                "between 1 and 1000000000000",
            ),
            (
                "[budgets]\nwindows = [0]\n",
                7,
                "budgets.windows",
                "between 1 and 1000000000000",
            ),
            (
                "[budgets]\nconfigured = 1000000000001\n",
                7,
                "budgets.configured",
                "between 1 and 1000000000000",
            ),
            (
                "[strategy.gemini_cli]\nprompt_tokens = 1000000000001\n",
                7,
                "strategy.gemini_cli.prompt_tokens",
                "at most 1000000000000",
            ),
            (
                "[strategy.weights]\ntext = 1001\n",
                7,
                "strategy.weights.text",
                "at most 1000",
            ),
        ];
        for (extra, line, field, message) in cases {
            let (l, f, m) = parse_err(&format!("{MINIMAL}\n{extra}"));
            assert_eq!((l, f.as_str()), (*line, *field), "{extra}");
            assert!(m.contains(message), "{extra}: {m}");
        }
        let (l, f, m) = parse_err(&MINIMAL.replace("batches = 3", "batches = 1000001"));
        assert_eq!((l, f.as_str()), (4, "batches"));
        assert!(m.contains("between 1 and 1000000"), "{m}");
        let many = vec!["1000"; MAX_BUDGETS + 1].join(", ");
        let (_, f, m) = parse_err(&format!("{MINIMAL}[budgets]\nabsolute = [{many}]\n"));
        assert_eq!(f, "budgets.absolute");
        assert!(m.contains("at most 64 budgets"), "{m}");

        // Each field alone may sit at its bound; together they may not exceed the batch bound.
        let at_bounds = format!(
            "{MINIMAL}[batch_size]\nmedian = 4096\nmin = 1\nmax = 1\n[sizes.giant]\nmedian = 16000000\n\
             min = 16000000\nmax = 16000000\n[shape]\ngiant_rate = 1.0\n[hook]\nappend_units = 1000000\n\
             [budgets]\nabsolute = [1000000000000]\nwindows = [1000000000000]\nconfigured = 1000000000000\n"
        );
        let s = Scenario::parse(&at_bounds, "t.toml").unwrap();
        assert!(s.max_batch_units() <= MAX_BATCH_UNITS);
        let too_wide = at_bounds.replace("max = 1\n", "max = 64\n");
        let (l, f, m) = parse_err(&too_wide);
        assert_eq!((l, f.as_str()), (8, "batch_size.max"));
        assert!(m.contains("above the bound of 1073741824"), "{m}");
    }

    #[test]
    fn a_generated_batch_stays_within_max_batch_units() {
        // Every kind, hook text on every entry and every size pinned at its max: the batches come close to the
        // computed bound and never pass it.
        let mut src = format!(
            "{MINIMAL}[batch_size]\nmedian = 6\nsigma = 0\nmin = 6\nmax = 6\n\
             [shape]\nhook_text_rate = 1.0\ngiant_rate = 0.5\nduplicate_rate = 0.2\n[hook]\nappend_units = 10\n"
        );
        for key in SizeKey::ALL {
            let size = if key == SizeKey::Giant {
                60_000
            } else {
                20_000
            };
            src.push_str(&format!(
                "[sizes.{}]\nmedian = {size}\nsigma = 0\nmin = {size}\nmax = {size}\n",
                serde_name(&key)
            ));
        }
        let s = Scenario::parse(&src, "t.toml").unwrap();
        let bound = s.max_batch_units();
        assert_eq!(
            bound,
            6 * (60_000 + 20_000 + 20_000 + 10 + ENTRY_OVERHEAD_UNITS)
        );
        let generator = crate::generate::Generator::new(&s);
        let mut largest = 0;
        for i in 0..40 {
            let g = generator.batch(i);
            let media: usize = g
                .batch
                .iter()
                .flat_map(|e| &e.response_parts)
                .filter(|p| p.is_media())
                .map(|p| serde_json::to_string(p).unwrap().len())
                .sum();
            let units = g.result_sizes().iter().sum::<usize>() + media + 6 * 10;
            assert!(units as u64 <= bound, "batch {i}: {units} > {bound}");
            largest = largest.max(units);
        }
        assert!(largest as u64 > bound * 2 / 5, "{largest} of {bound}");
    }

    #[test]
    fn check_batches_takes_1_to_the_bound() {
        assert_eq!(check_batches("--batches", 1).unwrap(), 1);
        assert_eq!(
            check_batches("--batches", MAX_BATCHES).unwrap(),
            MAX_BATCHES
        );
        for bad in [0, MAX_BATCHES + 1, u64::MAX] {
            assert_eq!(
                check_batches("--batches", bad).unwrap_err().to_string(),
                format!("invalid --batches \"{bad}\": must be between 1 and 1000000")
            );
        }
    }

    #[test]
    fn the_documented_file_format_parses() {
        let readme = include_str!("../scenarios/README.md");
        let start = readme.find("```toml\n").expect("a TOML example") + "```toml\n".len();
        let end = start + readme[start..].find("```").expect("the example ends");
        let s = Scenario::parse(&readme[start..end], "scenarios/README.md").unwrap();
        assert_eq!(s.hook.append_units, 0);
        assert_eq!(s.strategy, crate::finalize::StrategyConfig::default());
    }

    #[test]
    fn shipped_scenarios_parse_and_match_the_directory() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let from_dir = Scenario::load_dir(&dir).unwrap();
        let shipped = Scenario::all_shipped();
        assert_eq!(from_dir, shipped, "scenarios/ and SHIPPED differ");
        for (s, (name, _)) in shipped.iter().zip(SHIPPED) {
            assert_eq!(&s.name, name);
        }
        assert!(shipped.len() >= 11);
    }

    #[test]
    fn a_zero_cjk_share_is_left_out_of_the_digest_and_a_bad_one_is_named() {
        let plain = Scenario::parse(MINIMAL, "t").unwrap();
        let zero = Scenario::parse(&format!("{MINIMAL}[shape]\ncjk_share = 0.0\n"), "t").unwrap();
        assert_eq!(plain.digest(), zero.digest());
        assert!(!serde_json::to_string(&plain).unwrap().contains("cjk_share"));
        let some = Scenario::parse(&format!("{MINIMAL}[shape]\ncjk_share = 0.5\n"), "t").unwrap();
        assert_eq!(some.shape.cjk_share, 0.5);
        assert_ne!(some.digest(), plain.digest());
        let (line, field, msg) = parse_err(&format!("{MINIMAL}[shape]\ncjk_share = 1.5\n"));
        assert_eq!((line, field.as_str()), (6, "shape.cjk_share"));
        assert_eq!(msg, "must be a share in [0, 1], got 1.5");
    }

    #[test]
    fn digest_is_stable_and_sensitive() {
        let a = Scenario::parse(MINIMAL, "t").unwrap();
        let mut b = a.clone();
        assert_eq!(a.digest(), b.digest());
        b.shape.giant_rate = 0.5;
        assert_ne!(a.digest(), b.digest());
        assert_eq!(a.digest().len(), 64);
    }
}
