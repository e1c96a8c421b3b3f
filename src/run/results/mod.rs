//! The results of a run: the versioned schema of `results.json` and of the per-batch records that shards are
//! merged from. Everything here except the `cost` figures is a deterministic function of the inputs.
//!
//! Reading is where the schema's promises are held: [`RunResults::parse`] and [`BatchRecord::parse_line`] refuse
//! a file that breaks them (a share outside 0..1, a rate that disagrees with its counts, a row twice, a row of a
//! scenario, budget or strategy the inputs do not have, more batches than the run made...) with an error naming
//! the field and the row or line, so that `check`, `compare`, `report` and `merge` never take an impossible value
//! for data. `results.json` also records the sha256 of the per-batch files written beside it, which
//! [`RunResults::verify_batches`] checks before the records are used.
//!
//! `validate` holds those checks; `tests` reads back what a run writes and refuses what breaks the schema.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::metrics::pareto::ParetoFronts;
use crate::metrics::ranking::BudgetRanking;
use crate::metrics::used_ranking::UsedRanking;
use crate::metrics::{Aggregate, BatchMetrics, RowKey, StrategyKey, TokenSettings, TurnCost};
use crate::scenario::{BudgetLabel, ScenarioBudget};
use crate::workload::Mode;
use validate::validate_metrics;

pub(crate) mod validate;

/// The version of the results schema; `check`, `compare`, `merge` and `report` refuse any other. Version 2 added
/// the strategy's and the floor's time to every record and row, and the sha256 of the per-batch files. Version 3
/// added each row's mergeable `summary`, took percentiles from its histograms (3 significant digits), and made
/// the figures with nothing to measure null (`retention.budgetUsed`, `firstLine`, `lastLine`, `pathVisibility`,
/// `persistence.recoverable`). Version 4 made a turn's kept shares and fairness null without a field. Version 5
/// keeps the times in `cost.summary` in coarser buckets (1/32 of their value: [`crate::metrics::TimeHistogram`]).
/// Version 6 adds each row's bootstrap `summary.resamples` and the `ranking` of every scenario and budget; it
/// later gained the `pareto` fronts, which a file of version 6 may lack: like the ranking, they are made again
/// from the rows when a file is read, so a file without them reads the same. Version 7 adds the lines the agent
/// used (recorded batches with `budgetlab import`'s used lines): `usedNeedles`, `usedSurvived` and
/// `usedUpperBound` in every record, CSV line and row summary, and a row's `usedNeedles` shares when it has any;
/// it later gained `usedRanking` (absent without used lines), made again from the rows like the ranking. Version 8
/// adds the used tokens (`usedTokens`, `usedTokensSurvived`, `usedTokensUpperBound`) and the figures over the
/// turns longer than the budget (`overBudgetResults`, `overBudgetNeedles`, `overBudgetNeedlesSurvived` and the
/// used lines' and tokens' `overBudget...`) in every record, CSV line and row summary, and a row's `usedTokens`
/// and `overBudget` objects when it has any.
pub const SCHEMA_VERSION: u32 = 8;

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
    /// The tokenizer and token budget of a run given `--tokenizer` (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenSettings>,
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
    /// For each scenario and budget, the strategies that kept the budget ranked, then those that broke it
    /// ([`crate::metrics::ranking`]); made again from the rows when the file is read.
    pub ranking: Vec<BudgetRanking>,
    /// For each scenario and budget, the strategies no other that kept the budget beats on what it keeps and
    /// what it spends at once, against bytes written and against time over the floor
    /// ([`crate::metrics::pareto`]); made again from the rows when the file is read. The `cost` fronts rest on
    /// timings: like the rows' `cost`, they may differ between two runs.
    #[serde(default)]
    pub pareto: Vec<ParetoFronts>,
    /// For each workload and budget with lines the agent used (`budgetlab import`'s used lines), the strategies
    /// ranked by the share of them they kept ([`crate::metrics::used_ranking`]); absent when no row has any, and
    /// made again from the rows when the file is read, so a file of version 7 without it reads the same.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub used_ranking: Vec<UsedRanking>,
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
    /// Nanoseconds the simulated turn took, counting the (fastest) timed run of each of the strategy's
    /// finalizations and nothing of the measuring (this and the next two are the only figures that differ between runs).
    pub cost_ns: u64,
    /// Nanoseconds the strategy's own finalizations in the turn took (the fastest of [`super::cost::SAMPLES`] each,
    /// that is, timed once).
    pub strategy_ns: u64,
    /// Nanoseconds the floor took on the input of each of those finalizations, timed beside it (the fastest of
    /// [`super::cost::SAMPLES`] each, that is, timed once).
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
    /// Drops every row's bootstrap resamples (about half of a quick run's `results.json`) and ranks the rows again
    /// without them: the compact form the gate's committed baseline is kept in (`run --compact`). The gate reads
    /// none of them; `compare` and the ranking give no paired interval for such rows.
    pub fn drop_resamples(&mut self) {
        for row in &mut self.rows {
            row.summary.resamples = crate::metrics::resample::Resamples::dropped();
        }
        self.ranking = crate::metrics::ranking::rank(&self.rows);
    }

    /// Parses a `results.json`, refusing other schema versions and anything that breaks the schema's ranges and
    /// the agreement of its figures. `source_name` is named in errors, with the field and the row.
    ///
    /// The file is read without building a tree of it (a run's histograms can make it large): its syntax and its
    /// schema version are checked in passes that keep nothing else, then it is read into its types; only an error
    /// reads it as a tree, to name the row it is in.
    pub fn parse(bytes: &[u8], source_name: &str) -> Result<RunResults> {
        serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
            .map_err(|e| Error::json(source_name, &e))?;
        let bad = |message: String| Error::report(source_name, message);
        if bytes.trim_ascii_start().first() != Some(&b'{') {
            return Err(bad(
                "not a budgetlab results.json (not a JSON object)".into()
            ));
        }
        /// The schema version alone, every other field skipped.
        #[derive(serde::Deserialize)]
        struct Version {
            #[serde(rename = "schemaVersion")]
            schema_version: Option<serde_json::Value>,
        }
        let version: Version =
            serde_json::from_slice(bytes).map_err(|e| Error::json(source_name, &e))?;
        match version.schema_version.as_ref().map(|v| v.as_u64()) {
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
        let mut results: RunResults = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let value: serde_json::Value = serde_json::from_slice(bytes).unwrap_or_default();
            bad(format!(
                "{}{}{}",
                row_of_path(&value, &path),
                field_of_path(&path),
                e.inner()
            ))
        })?;
        results.validate().map_err(bad)?;
        // The rankings and the fronts are what the rows give: made again from them, whatever the file says.
        results.ranking = crate::metrics::ranking::rank(&results.rows);
        results.pareto = crate::metrics::pareto::fronts(&results.rows);
        results.used_ranking = crate::metrics::used_ranking::rank_used(&results.rows);
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
        self.verify_batches_sha256(&crate::digest::sha256_hex(batches_jsonl), folder)
    }

    /// Checks `actual`, the lowercase hex sha256 of the `batches.jsonl` beside this file in `folder`, against the
    /// sha256 this file records. The error names the folder.
    pub fn verify_batches_sha256(&self, actual: &str, folder: &str) -> Result<()> {
        let Some(sha) = &self.sha256 else {
            return Err(Error::report(
                folder,
                format!(
                    "results.json records no sha256 of {BATCHES_JSONL}, so its records cannot be trusted; \
                     rerun it"
                ),
            ));
        };
        if actual != sha.batches_jsonl {
            return Err(Error::report(
                folder,
                format!(
                    "{BATCHES_JSONL} is not the file this run wrote (sha256 {}, but results.json records {}): \
                     it was edited or replaced; rerun it",
                    short(actual),
                    short(&sha.batches_jsonl)
                ),
            ));
        }
        Ok(())
    }

    /// The row `key`, if present.
    pub fn row(&self, key: RowKey<'_>) -> Option<&Aggregate> {
        self.rows.iter().find(|r| r.key() == key)
    }
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

/// The first 12 hex digits of a digest, enough to tell two apart in a message.
fn short(digest: &str) -> String {
    digest.chars().take(12).collect()
}

#[cfg(test)]
mod tests;
