//! The results of a run: the versioned schema of `results.json` and of the per-batch records that shards are
//! merged from. Everything here except the `cost` figures is a deterministic function of the inputs.
//!
//! Reading is where the schema's promises are held: [`RunResults::parse`] and [`BatchRecord::parse_line`] refuse
//! a file that breaks them (a share outside 0..1, a rate that disagrees with its counts, a row twice, a row of a
//! scenario, budget or strategy the inputs do not have, more batches than the run made...) with an error naming
//! the field and the row or line, so that `check`, `compare`, `report` and `merge` never take an impossible value
//! for data. `results.json` also records the sha256 of the per-batch files written beside it, which
//! [`RunResults::verify_batches`] checks before the records are used.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::metrics::{Aggregate, BatchMetrics, RowKey, StrategyKey, TurnCost};
use crate::scenario::{BudgetLabel, ScenarioBudget};
use crate::workload::Mode;

/// The version of the results schema; `check`, `compare`, `merge` and `report` refuse any other. Version 2 added
/// the strategy's and the floor's time to every record and row, and the sha256 of the per-batch files. Version 3
/// added each row's mergeable `summary`, took percentiles from its histograms (3 significant digits), and made
/// the figures with nothing to measure null (`retention.budgetUsed`, `firstLine`, `lastLine`, `pathVisibility`,
/// `persistence.recoverable`).
pub const SCHEMA_VERSION: u32 = 3;

/// The name of the per-batch records file of a report folder.
pub const BATCHES_JSONL: &str = "batches.jsonl";
/// The name of the per-batch CSV of a report folder.
pub const BATCHES_CSV: &str = "batches.csv";

/// What a workload was and how it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadInfo {
    /// Scenario name (or the recorded batches file's stem).
    pub name: String,
    /// SHA-256 of the scenario as parsed (or of the recorded batches file).
    pub digest: String,
    /// Where the batches came from.
    pub source: WorkloadSource,
    /// The seed of the generated batches.
    pub seed: u64,
    /// Batches in the whole (unsharded) run.
    pub batches: u64,
    /// The runtime mode simulated.
    pub mode: Mode,
    /// Whether the mode ran in its legacy form.
    pub legacy: bool,
    /// The budgets run at.
    pub budgets: Vec<ScenarioBudget>,
}

/// Where a workload's batches came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadSource {
    /// Generated from a scenario.
    Generated,
    /// Recorded batches (a JSON Lines file), without needles.
    Recorded,
}

impl WorkloadSource {
    /// The name `results.json` gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadSource::Generated => "generated",
            WorkloadSource::Recorded => "recorded",
        }
    }
}

impl std::fmt::Display for WorkloadSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which part of the run a results file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// This shard's number.
    pub index: u64,
    /// The number of shards.
    pub count: u64,
}

/// The inputs of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunInputs {
    /// The workloads, in run order.
    pub scenarios: Vec<WorkloadInfo>,
    /// The strategies, in run order.
    pub strategies: Vec<StrategyKey>,
    /// The shard, when the run was one.
    pub shard: Option<ShardInfo>,
}

/// `results.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResults {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The budgetlab version that produced it.
    pub crate_version: String,
    /// The seed of the run (the first scenario's, or the `--seed` override).
    pub seed: u64,
    /// The inputs.
    pub inputs: RunInputs,
    /// The sha256 of the per-batch files written beside this file (`None` until the report is written).
    #[serde(default)]
    pub sha256: Option<BatchFilesSha256>,
    /// One row per (scenario, budget, strategy), in run order.
    pub rows: Vec<Aggregate>,
}

/// The sha256 (lowercase hex) of the per-batch files of a report folder, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchFilesSha256 {
    /// Of `batches.jsonl`.
    #[serde(rename = "batches.jsonl")]
    pub batches_jsonl: String,
    /// Of `batches.csv`.
    #[serde(rename = "batches.csv")]
    pub batches_csv: String,
}

/// One batch through one strategy at one budget: the unit that shards are merged from (`batches.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchRecord {
    /// Scenario name.
    pub scenario: String,
    /// The strategy.
    pub strategy: StrategyKey,
    /// The budget's label (`abs-20000`, `window-16000`).
    pub budget_label: BudgetLabel,
    /// Nanoseconds the simulated turn took, counting the fastest sample of each of the strategy's finalizations
    /// and nothing of the measuring (this and the next two are the only figures that differ between runs).
    pub cost_ns: u64,
    /// Nanoseconds the strategy's own finalizations in the turn took (the fastest of [`super::cost::SAMPLES`] each).
    pub strategy_ns: u64,
    /// Nanoseconds the floor took on the input of each of those finalizations, timed beside it (the fastest of
    /// [`super::cost::SAMPLES`] each).
    pub floor_ns: u64,
    /// The metrics.
    pub metrics: BatchMetrics,
}

impl BatchRecord {
    /// Parses line `line` of the `batches.jsonl` named `source_name`, refusing a record whose metrics break the
    /// schema's ranges; errors name the file, the line and the field.
    pub fn parse_line(text: &str, source_name: &str, line: usize) -> Result<BatchRecord> {
        let at = || format!("{source_name}:{line}");
        let json = |e: &serde_json::Error| match Error::json(source_name, e) {
            Error::Json {
                source_name,
                column,
                message,
                ..
            } => Error::Json {
                source_name,
                line,
                column,
                message,
            },
            other => other,
        };
        let mut de = serde_json::Deserializer::from_str(text);
        let record: BatchRecord = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            if inner.is_syntax() || inner.is_eof() {
                json(&inner)
            } else {
                let text = inner.to_string();
                let position = format!(" at line {} column {}", inner.line(), inner.column());
                let message = text.strip_suffix(&position).unwrap_or(&text);
                Error::report(
                    at(),
                    format!(
                        "{}{message} (column {})",
                        field_of_path(&path),
                        inner.column()
                    ),
                )
            }
        })?;
        de.end().map_err(|e| json(&e))?;
        validate_metrics(&record.metrics)
            .map_err(|m| Error::report(at(), format!("metrics.{m}")))?;
        Ok(record)
    }

    /// The row the record belongs to.
    pub fn key(&self) -> RowKey<'_> {
        RowKey {
            scenario: &self.scenario,
            budget: self.budget_label,
            strategy: &self.strategy,
        }
    }

    /// What the turn cost.
    pub fn cost(&self) -> TurnCost {
        TurnCost {
            turn_ns: self.cost_ns,
            strategy_ns: self.strategy_ns,
            floor_ns: self.floor_ns,
        }
    }
}

impl RunResults {
    /// Parses a `results.json`, refusing other schema versions and anything that breaks the schema's ranges and
    /// the agreement of its figures. `source_name` is named in errors, with the field and the row.
    pub fn parse(bytes: &[u8], source_name: &str) -> Result<RunResults> {
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| Error::json(source_name, &e))?;
        let bad = |message: String| Error::report(source_name, message);
        let Some(object) = value.as_object() else {
            return Err(bad(
                "not a budgetlab results.json (not a JSON object)".into()
            ));
        };
        match object.get("schemaVersion").map(|v| v.as_u64()) {
            Some(Some(v)) if v == u64::from(SCHEMA_VERSION) => {}
            Some(Some(other)) => {
                return Err(bad(format!(
                    "results schema version {other}; this budgetlab reads version {SCHEMA_VERSION}"
                )))
            }
            Some(None) => return Err(bad("schemaVersion: not a whole number".into())),
            None => return Err(bad("not a budgetlab results.json (no schemaVersion)".into())),
        }
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let results: RunResults = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            bad(format!(
                "{}{}{}",
                row_of_path(&value, &path),
                field_of_path(&path),
                e.inner()
            ))
        })?;
        results.validate().map_err(bad)?;
        Ok(results)
    }

    /// Reads a `results.json` file.
    pub fn load(path: &std::path::Path) -> Result<RunResults> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        RunResults::parse(&bytes, &path.display().to_string())
    }

    /// Checks `batches_jsonl`, the bytes of the `batches.jsonl` beside this file in `folder`, against the sha256
    /// this file records. The error names the folder.
    pub fn verify_batches(&self, batches_jsonl: &[u8], folder: &str) -> Result<()> {
        let Some(sha) = &self.sha256 else {
            return Err(Error::report(
                folder,
                format!(
                    "results.json records no sha256 of {BATCHES_JSONL}, so its records cannot be trusted; \
                     rerun it"
                ),
            ));
        };
        let actual = sha256_hex_bytes(batches_jsonl);
        if actual != sha.batches_jsonl {
            return Err(Error::report(
                folder,
                format!(
                    "{BATCHES_JSONL} is not the file this run wrote (sha256 {}, but results.json records {}): \
                     it was edited or replaced; rerun it",
                    short(&actual),
                    short(&sha.batches_jsonl)
                ),
            ));
        }
        Ok(())
    }

    /// Whether the schema's promises hold; the message names the first that does not, with its field and row.
    fn validate(&self) -> std::result::Result<(), String> {
        let inputs = &self.inputs;
        if let Some(shard) = inputs.shard {
            if shard.count == 0 || shard.index >= shard.count {
                return Err(format!(
                    "inputs.shard: shard {}/{} does not exist (the index must be below the count, which is at \
                     least 1)",
                    shard.index, shard.count
                ));
            }
        }
        if inputs.strategies.is_empty() {
            return Err("inputs.strategies: no strategy".into());
        }
        if let Some(name) = first_repeat(inputs.strategies.iter().map(StrategyKey::as_str)) {
            return Err(format!("inputs.strategies: {name} is listed twice"));
        }
        if let Some(name) = first_repeat(inputs.scenarios.iter().map(|s| s.name.as_str())) {
            return Err(format!("inputs.scenarios: {name} is listed twice"));
        }
        for info in &inputs.scenarios {
            let at = |m: String| format!("inputs.scenarios ({}): {m}", info.name);
            if info.batches == 0 {
                return Err(at("batches is 0; a run has at least 1".into()));
            }
            if info.budgets.is_empty() {
                return Err(at("budgets: no budget".into()));
            }
            if let Some(label) = first_repeat(info.budgets.iter().map(|b| b.label)) {
                return Err(at(format!("budgets: {label} is listed twice")));
            }
            if let Some(b) = info.budgets.iter().find(|b| b.units == 0) {
                return Err(at(format!("budgets: {} has 0 units", b.label)));
            }
            if info.digest.len() != 64 || !info.digest.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(at(format!(
                    "digest: {:?} is not a sha256 (64 hex digits)",
                    info.digest
                )));
            }
        }
        let mut seen = std::collections::BTreeMap::new();
        for (i, row) in self.rows.iter().enumerate() {
            let at = |m: String| {
                format!(
                    "row {} (scenario {}, budget {}, strategy {}): {m}",
                    i + 1,
                    row.scenario,
                    row.budget_label,
                    row.strategy
                )
            };
            if let Some(first) = seen.insert(row.key(), i) {
                return Err(at(format!(
                    "the row is there twice (also row {}); a run has one row per scenario, budget and strategy",
                    first + 1
                )));
            }
            let info = inputs
                .scenarios
                .iter()
                .find(|s| s.name == row.scenario)
                .ok_or_else(|| at("scenario: not one of inputs.scenarios".into()))?;
            let budget = info
                .budgets
                .iter()
                .find(|b| b.label == row.budget_label)
                .ok_or_else(|| {
                    at(format!(
                        "budgetLabel: not a budget of scenario {}",
                        info.name
                    ))
                })?;
            if !inputs.strategies.contains(&row.strategy) {
                return Err(at("strategy: not one of inputs.strategies".into()));
            }
            if row.budget != Some(budget.units) {
                return Err(at(format!(
                    "budget is {}, but budget {} of the inputs is {} units",
                    row.budget.map_or("null".into(), |b| b.to_string()),
                    budget.label,
                    budget.units
                )));
            }
            if row.mode != info.mode || row.legacy != info.legacy {
                return Err(at(format!(
                    "mode {}{} differs from the scenario's {}{}",
                    row.mode,
                    if row.legacy { " (legacy)" } else { "" },
                    info.mode,
                    if info.legacy { " (legacy)" } else { "" }
                )));
            }
            let shard = inputs.shard.unwrap_or(ShardInfo { index: 0, count: 1 });
            let expected = crate::generate::Shard {
                index: shard.index,
                count: shard.count,
            }
            .batches(info.batches)
            .count() as u64;
            if row.batches != expected || expected == 0 {
                return Err(at(format!(
                    "batches is {}, but the run made {expected} batches of scenario {}{}",
                    row.batches,
                    info.name,
                    inputs.shard.map_or(String::new(), |s| format!(
                        " in shard {}/{}",
                        s.index, s.count
                    ))
                )));
            }
            validate_row(row).map_err(at)?;
        }
        Ok(())
    }

    /// The row `key`, if present.
    pub fn row(&self, key: RowKey<'_>) -> Option<&Aggregate> {
        self.rows.iter().find(|r| r.key() == key)
    }
}

/// Slack for the rounding of a computed share or rate.
const SLACK: f64 = 1e-9;

/// `Err` unless `value` is a finite share, 0..1 (with rounding slack).
fn share(field: &str, value: f64) -> std::result::Result<(), String> {
    if value.is_finite() && (-SLACK..=1.0 + SLACK).contains(&value) {
        Ok(())
    } else {
        Err(format!("{field} is {value}, outside 0..1"))
    }
}

/// `Err` unless `value` is finite and at least 0.
fn non_negative(field: &str, value: f64) -> std::result::Result<(), String> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{field} is {value}; it is a finite number of at least 0"
        ))
    }
}

/// `Err` unless `part <= whole`.
fn at_most(field: &str, part: u64, other: &str, whole: u64) -> std::result::Result<(), String> {
    if part <= whole {
        Ok(())
    } else {
        Err(format!("{field} is {part}, more than {other} ({whole})"))
    }
}

/// `Err` unless `value` is `num / den` (1 when `den` is 0), as the aggregation computes it.
fn rate_of(
    field: &str,
    value: f64,
    num: u64,
    den: u64,
    what: &str,
) -> std::result::Result<(), String> {
    let expected = if den == 0 {
        1.0
    } else {
        num as f64 / den as f64
    };
    if (value - expected).abs() <= SLACK {
        Ok(())
    } else {
        Err(format!("{field} is {value}, but {what} give {expected}"))
    }
}

/// The promises of one row of `results.json`; the message names the field.
fn validate_row(row: &Aggregate) -> std::result::Result<(), String> {
    let c = &row.compliance;
    at_most(
        "compliance.violations",
        c.violations,
        "batches",
        row.batches,
    )?;
    share("compliance.rate", c.rate)?;
    rate_of(
        "compliance.rate",
        c.rate,
        row.batches - c.violations,
        row.batches,
        &format!("{} violations in {} batches", c.violations, row.batches),
    )?;
    at_most(
        "compliance.p99Overshoot",
        c.p99_overshoot,
        "compliance.maxOvershoot",
        c.max_overshoot,
    )?;
    if (c.violations == 0) != (c.max_overshoot == 0) {
        return Err(format!(
            "compliance.maxOvershoot is {} with {} violations; a batch over budget overshoots and no other does",
            c.max_overshoot, c.violations
        ));
    }
    at_most(
        "compliance.violationBoundaries",
        c.violation_boundaries.values().sum(),
        "compliance.violations",
        c.violations,
    )?;

    let r = &row.retention;
    for (field, value) in [
        ("retention.mean", r.mean),
        ("retention.unitShare", r.unit_share),
        ("retention.minShare", r.min_share),
        ("retention.fairness", r.fairness),
    ] {
        share(field, value)?;
    }
    for (field, value) in [
        ("retention.firstLine", r.first_line),
        ("retention.lastLine", r.last_line),
        ("retention.pathVisibility", r.path_visibility),
        ("persistence.recoverable", row.persistence.recoverable),
    ] {
        if let Some(value) = value {
            share(field, value)?;
        }
    }
    if let Some(used) = r.budget_used {
        non_negative("retention.budgetUsed", used)?;
    }
    if r.min_share > r.mean + SLACK {
        return Err(format!(
            "retention.minShare is {}, more than retention.mean ({})",
            r.min_share, r.mean
        ));
    }

    let n = &row.needles;
    share("needles.survival", n.survival)?;
    share("needles.upperBound", n.upper_bound)?;
    share("needles.ofPossible", n.of_possible)?;
    for (kind, k) in &n.by_kind {
        let field = format!("needles.byKind.{kind}");
        at_most(
            &format!("{field}.survived"),
            k.survived,
            "planted",
            k.planted,
        )?;
        rate_of(
            &format!("{field}.rate"),
            k.rate,
            k.survived,
            k.planted,
            &format!("{} survived of {} planted", k.survived, k.planted),
        )?;
    }
    let planted: u64 = n.by_kind.values().map(|k| k.planted).sum();
    let survived: u64 = n.by_kind.values().map(|k| k.survived).sum();
    rate_of(
        "needles.survival",
        n.survival,
        survived,
        planted,
        &format!("needles.byKind's {survived} survived of {planted} planted"),
    )?;
    let of_possible = if n.upper_bound > 0.0 {
        (n.survival / n.upper_bound).min(1.0)
    } else {
        1.0
    };
    if (n.of_possible - of_possible).abs() > SLACK {
        return Err(format!(
            "needles.ofPossible is {}, but needles.survival {} over needles.upperBound {} gives {of_possible}",
            n.of_possible, n.survival, n.upper_bound
        ));
    }

    let p = &row.persistence;
    at_most(
        "persistence.duplicateWrites",
        p.duplicate_writes,
        "persistence.writes",
        p.writes,
    )?;
    at_most(
        "integrity.recordsDiffer",
        row.integrity.records_differ,
        "batches",
        row.batches,
    )?;

    validate_summary(row)?;

    let cost = &row.cost;
    at_most("cost.medianNs", cost.median_ns, "cost.p99Ns", cost.p99_ns)?;
    if let Some(ratio) = cost.floor_ratio {
        non_negative("cost.floorRatio", ratio)?;
    }
    Ok(())
}

/// The promises of a row's summary: it counts the row's batches, each histogram of every turn holds one value a
/// batch, and no part counts more than its whole.
fn validate_summary(row: &Aggregate) -> std::result::Result<(), String> {
    let s = &row.summary;
    if s.batches != row.batches {
        return Err(format!(
            "summary.batches is {}, but the row has {} batches",
            s.batches, row.batches
        ));
    }
    for (field, h) in [
        ("summary.overshoot", &s.overshoot),
        ("summary.turnNs", &s.turn_ns),
        ("summary.strategyNs", &s.strategy_ns),
        ("summary.floorNs", &s.floor_ns),
    ] {
        if h.count() != s.batches {
            return Err(format!(
                "{field} holds {} values, but the row has {} batches",
                h.count(),
                s.batches
            ));
        }
    }
    at_most(
        "summary.floorRatio",
        s.floor_ratio.count(),
        "batches",
        s.batches,
    )?;
    at_most("summary.violations", s.violations, "batches", s.batches)?;
    at_most(
        "summary.budgetUsedTurns",
        s.budget_used_turns,
        "batches",
        s.batches,
    )?;
    at_most(
        "summary.keptUnits",
        s.kept_units,
        "summary.originalUnits",
        s.original_units,
    )?;
    at_most(
        "summary.shortenedFields",
        s.shortened_fields,
        "summary.fields",
        s.fields,
    )?;
    at_most(
        "summary.recoverableFields",
        s.recoverable_fields,
        "summary.shortenedFields",
        s.shortened_fields,
    )?;
    for (field, (part, whole)) in [
        ("summary.firstLine", s.first_line),
        ("summary.lastLine", s.last_line),
        ("summary.pathVisible", s.path_visible),
    ] {
        at_most(field, part, "the fields it counts", whole)?;
    }
    Ok(())
}

/// Whether `row`'s figures are the ones its summary gives; the message names the first that is not.
pub(crate) fn agrees_with_summary(row: &Aggregate) -> std::result::Result<(), String> {
    let expected = Aggregate::from_summary(
        row.key(),
        row.mode,
        row.legacy,
        row.budget.unwrap_or(0),
        row.summary.clone(),
    );
    if expected == *row {
        return Ok(());
    }
    let (a, b) = (
        serde_json::to_value(row).unwrap_or_default(),
        serde_json::to_value(&expected).unwrap_or_default(),
    );
    let field = first_difference(&a, &b, "");
    Err(format!(
        "{field} is not what its summary gives ({}); the file was edited",
        value_at(&b, &field)
    ))
}

fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> String {
    if let (Some(x), Some(y)) = (a.as_object(), b.as_object()) {
        for (k, v) in x {
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            if y.get(k) != Some(v) {
                return first_difference(v, y.get(k).unwrap_or(&serde_json::Value::Null), &path);
            }
        }
    }
    at.to_string()
}

fn value_at(v: &serde_json::Value, path: &str) -> serde_json::Value {
    path.split('.')
        .filter(|p| !p.is_empty())
        .fold(v.clone(), |v, k| v.get(k).cloned().unwrap_or_default())
}

/// The promises of one per-batch record's metrics; the message names the field.
fn validate_metrics(m: &crate::metrics::BatchMetrics) -> std::result::Result<(), String> {
    if m.within_budget != (m.overshoot == 0) {
        return Err(format!(
            "withinBudget is {} with an overshoot of {}",
            m.within_budget, m.overshoot
        ));
    }
    if let Some(limit) = m.budget {
        let expected = m.final_total.saturating_sub(limit);
        if m.overshoot != expected {
            return Err(format!(
                "overshoot is {}, but finalTotal {} at budget {limit} overshoots by {expected}",
                m.overshoot, m.final_total
            ));
        }
    }
    at_most("shortenedFields", m.shortened_fields, "fields", m.fields)?;
    at_most("keptUnits", m.kept_units, "originalUnits", m.original_units)?;
    share("meanKeptShare", m.mean_kept_share)?;
    share("minKeptShare", m.min_kept_share)?;
    share("fairness", m.fairness)?;
    if m.min_kept_share > m.mean_kept_share + SLACK {
        return Err(format!(
            "minKeptShare is {}, more than meanKeptShare ({})",
            m.min_kept_share, m.mean_kept_share
        ));
    }
    if let Some(used) = m.budget_used {
        non_negative("budgetUsed", used)?;
    }
    for (field, (part, whole)) in [
        ("firstLineKept", m.first_line_kept),
        ("lastLineKept", m.last_line_kept),
        ("pathVisible", m.path_visible),
    ] {
        at_most(field, part, "the fields it counts", whole)?;
    }
    for (kind, c) in &m.needles {
        at_most(
            &format!("needles.{}.survived", kind_name(kind)),
            c.survived,
            "planted",
            c.planted,
        )?;
    }
    let planted: u64 = m.needles.values().map(|c| c.planted).sum();
    at_most(
        "needleUpperBound",
        m.needle_upper_bound,
        "the needles planted",
        planted,
    )?;
    at_most("duplicateWrites", m.duplicate_writes, "writes", m.writes)?;
    at_most(
        "recoverableFields",
        m.recoverable_fields,
        "shortenedFields",
        m.shortened_fields,
    )?;
    at_most(
        "reusedPaths",
        m.reused_paths,
        "shortenedFields",
        m.shortened_fields,
    )?;
    Ok(())
}

fn kind_name(kind: &crate::generate::NeedleKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// The first item that occurs twice.
fn first_repeat<T: Ord + Copy>(items: impl Iterator<Item = T>) -> Option<T> {
    let mut seen = std::collections::BTreeSet::new();
    items.into_iter().find(|&i| !seen.insert(i))
}

/// `row (scenario S, budget B, strategy T): ` when `path` (`rows[3].retention.mean`) is inside a row of `value`.
fn row_of_path(value: &serde_json::Value, path: &str) -> String {
    let Some(index) = path
        .strip_prefix("rows[")
        .and_then(|rest| rest.split(']').next())
        .and_then(|i| i.parse::<usize>().ok())
    else {
        return String::new();
    };
    let row = &value["rows"][index];
    let text = |key: &str| row[key].as_str().unwrap_or("?").to_string();
    format!(
        "row {} (scenario {}, budget {}, strategy {}): ",
        index + 1,
        text("scenario"),
        text("budgetLabel"),
        text("strategy")
    )
}

/// The field of `path` within its row (`retention.mean: ` of `rows[3].retention.mean`), or the whole path, as
/// the start of a message; nothing for the top level.
fn field_of_path(path: &str) -> String {
    if let Some(rest) = path.strip_prefix("rows[") {
        if let Some((_, field)) = rest.split_once("].") {
            return format!("{field}: ");
        }
    }
    if path == "." || path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

/// The sha256 of `bytes` in lowercase hex.
pub fn sha256_hex_bytes(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The first 12 hex digits of a digest, enough to tell two apart in a message.
fn short(digest: &str) -> String {
    digest.chars().take(12).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{PlanRequest, Workloads};
    use serde_json::{json, Value};

    fn tiny() -> (RunResults, Vec<BatchRecord>) {
        let out = PlanRequest {
            workloads: Workloads::Scenarios(vec!["surrogate-storm".into()]),
            strategies: vec!["reference".into(), "greedy".into()],
            batches: Some(3),
            ..PlanRequest::default()
        }
        .plan()
        .unwrap()
        .run(&|_| {});
        (out.results, out.records)
    }

    /// The error of parsing `results` after `edit`.
    fn refused(results: &RunResults, edit: impl FnOnce(&mut Value)) -> String {
        let mut value = serde_json::to_value(results).unwrap();
        edit(&mut value);
        let bytes = serde_json::to_vec(&value).unwrap();
        RunResults::parse(&bytes, "r.json").unwrap_err().to_string()
    }

    fn label(results: &RunResults, row: usize) -> String {
        let r = &results.rows[row];
        format!(
            "r.json: row {} (scenario {}, budget {}, strategy {}): ",
            row + 1,
            r.scenario,
            r.budget_label,
            r.strategy
        )
    }

    #[test]
    fn a_run_reads_back_as_written() {
        let (results, _) = tiny();
        let bytes = serde_json::to_vec_pretty(&results).unwrap();
        assert_eq!(RunResults::parse(&bytes, "r.json").unwrap(), results);
    }

    #[test]
    fn impossible_values_are_refused_naming_the_field_and_the_row() {
        let (results, _) = tiny();
        let row1 = label(&results, 1);
        let violations = results.rows[1].compliance.violations;
        let batches = results.rows[1].batches;
        for (edit, expected) in [
            (
                Box::new(|v: &mut Value| v["rows"][1]["retention"]["mean"] = json!(-0.25))
                    as Box<dyn FnOnce(&mut Value)>,
                format!("{row1}retention.mean is -0.25, outside 0..1"),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["compliance"]["rate"] = json!(2.0)),
                format!("{row1}compliance.rate is 2, outside 0..1"),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["compliance"]["rate"] = json!(0.5)),
                format!(
                    "{row1}compliance.rate is 0.5, but {violations} violations in {batches} batches give {}",
                    (batches - violations) as f64 / batches as f64
                ),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["retention"]["fairness"] = json!(1.5)),
                format!("{row1}retention.fairness is 1.5, outside 0..1"),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["persistence"]["recoverable"] = json!(-1)),
                format!("{row1}persistence.recoverable is -1, outside 0..1"),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["needles"]["survival"] = json!(0.0)),
                format!("{row1}needles.survival is 0, but needles.byKind's"),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["needles"]["ofPossible"] = json!(0.125)),
                format!("{row1}needles.ofPossible is 0.125, but needles.survival"),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["batches"] = json!(4)),
                format!("{row1}batches is 4, but the run made 3 batches of scenario surrogate-storm"),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["cost"]["floorRatio"] = json!(-2.0)),
                format!("{row1}cost.floorRatio is -2; it is a finite number of at least 0"),
            ),
            (
                Box::new(|v: &mut Value| {
                    v["rows"][1]["persistence"]["duplicateWrites"] = json!(1_000_000)
                }),
                format!("{row1}persistence.duplicateWrites is 1000000, more than persistence.writes"),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["persistence"]["writes"] = json!(-3)),
                format!(
                    "r.json: row 2 (scenario {}, budget {}, strategy {}): persistence.writes: invalid value: \
                     integer `-3`, expected u64",
                    results.rows[1].scenario, results.rows[1].budget_label, results.rows[1].strategy
                ),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["retention"]["mean"] = Value::Null),
                "retention.mean: invalid type: null, expected f64".to_string(),
            ),
            (
                Box::new(|v: &mut Value| {
                    let row = v["rows"][1].clone();
                    v["rows"].as_array_mut().unwrap().push(row);
                }),
                "r.json: row 7 (scenario surrogate-storm, budget abs-1000, strategy greedy): the row is there \
                 twice (also row 2)"
                    .to_string(),
            ),
            (
                Box::new(|v: &mut Value| v["rows"][1]["strategy"] = json!("codex")),
                "r.json: row 2 (scenario surrogate-storm, budget abs-1000, strategy codex): strategy: not one of \
                 inputs.strategies"
                    .to_string(),
            ),
            (
                Box::new(|v: &mut Value| v["inputs"]["shard"] = json!({"index": 2, "count": 2})),
                "r.json: inputs.shard: shard 2/2 does not exist".to_string(),
            ),
            (
                Box::new(|v: &mut Value| v["inputs"]["strategies"] = json!(["reference", "reference", "greedy"])),
                "r.json: inputs.strategies: reference is listed twice".to_string(),
            ),
            (
                Box::new(|v: &mut Value| *v = json!([1, 2])),
                "r.json: not a budgetlab results.json (not a JSON object)".to_string(),
            ),
        ] {
            let err = refused(&results, edit);
            assert!(err.contains(&expected), "{err}\nlacks\n{expected}");
        }
        assert_eq!(results.rows[1].budget_label, "abs-1000");
    }

    #[test]
    fn a_shards_rows_count_the_shards_batches() {
        let out = PlanRequest {
            workloads: Workloads::Scenarios(vec!["surrogate-storm".into()]),
            strategies: vec!["reference".into()],
            batches: Some(5),
            shard: Some("1/2".into()),
            ..PlanRequest::default()
        }
        .plan()
        .unwrap()
        .run(&|_| {});
        assert!(out.results.rows.iter().all(|r| r.batches == 2));
        let bytes = serde_json::to_vec(&out.results).unwrap();
        assert!(RunResults::parse(&bytes, "r.json").is_ok());
        let err = refused(&out.results, |v| v["inputs"]["shard"] = Value::Null);
        assert!(
            err.contains("batches is 2, but the run made 5 batches of scenario surrogate-storm"),
            "{err}"
        );
    }

    #[test]
    fn impossible_records_are_refused_naming_the_line_and_the_field() {
        let (_, records) = tiny();
        let line = |edit: &dyn Fn(&mut Value)| {
            let mut v = serde_json::to_value(&records[4]).unwrap();
            edit(&mut v);
            let text = serde_json::to_string(&v).unwrap();
            BatchRecord::parse_line(&text, "b.jsonl", 5)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        assert_eq!(line(&|_| {}), Ok(()));
        let within = records[4].metrics.within_budget;
        for (edit, expected) in [
            (
                Box::new(move |v: &mut Value| v["metrics"]["withinBudget"] = json!(!within))
                    as Box<dyn Fn(&mut Value)>,
                "b.jsonl:5: metrics.withinBudget is",
            ),
            (
                Box::new(|v: &mut Value| v["metrics"]["keptUnits"] = json!(u64::MAX)),
                "b.jsonl:5: metrics.keptUnits is 18446744073709551615, more than originalUnits",
            ),
            (
                Box::new(|v: &mut Value| v["metrics"]["meanKeptShare"] = json!(-0.5)),
                "b.jsonl:5: metrics.meanKeptShare is -0.5, outside 0..1",
            ),
            (
                Box::new(|v: &mut Value| v["metrics"]["writes"] = json!(-1)),
                "b.jsonl:5: metrics.writes: invalid value: integer `-1`, expected u64 (column",
            ),
        ] {
            let err = line(&*edit).unwrap_err();
            assert!(err.starts_with(expected), "{err}\nlacks\n{expected}");
        }
    }

    #[test]
    fn the_batches_file_must_be_the_one_written() {
        let (mut results, _) = tiny();
        let jsonl = b"{\"a\":1}\n";
        let err = results
            .verify_batches(jsonl, "shard-0")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("shard-0: results.json records no sha256 of batches.jsonl"),
            "{err}"
        );
        results.sha256 = Some(BatchFilesSha256 {
            batches_jsonl: sha256_hex_bytes(jsonl),
            batches_csv: sha256_hex_bytes(b""),
        });
        assert!(results.verify_batches(jsonl, "shard-0").is_ok());
        let err = results
            .verify_batches(b"{\"a\":2}\n", "shard-0")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("shard-0: batches.jsonl is not the file this run wrote (sha256 "),
            "{err}"
        );
        assert_eq!(
            sha256_hex_bytes(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
