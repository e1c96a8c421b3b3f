//! The results of a run: the versioned schema of `results.json` and of the per-batch records that shards are
//! merged from. Everything here except the `cost` figures is a deterministic function of the inputs.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::metrics::{Aggregate, BatchMetrics};
use crate::scenario::ScenarioBudget;

/// The version of the results schema; `check`, `compare`, `merge` and `report` refuse any other.
pub const SCHEMA_VERSION: u32 = 1;

/// What a workload was and how it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadInfo {
    /// Scenario name (or the recorded batches file's stem).
    pub name: String,
    /// SHA-256 of the scenario as parsed (or of the recorded batches file).
    pub digest: String,
    /// Where the batches came from: `generated` or `recorded`.
    pub source: String,
    /// The seed of the generated batches.
    pub seed: u64,
    /// Batches in the whole (unsharded) run.
    pub batches: u64,
    /// The runtime mode simulated.
    pub mode: String,
    /// Whether the mode ran in its legacy form.
    pub legacy: bool,
    /// The budgets run at.
    pub budgets: Vec<ScenarioBudget>,
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
    pub strategies: Vec<String>,
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
    /// One row per (scenario, budget, strategy), in run order.
    pub rows: Vec<Aggregate>,
}

/// One batch through one strategy at one budget: the unit that shards are merged from (`batches.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchRecord {
    /// Scenario name.
    pub scenario: String,
    /// Strategy name.
    pub strategy: String,
    /// The budget's label (`abs-20000`, `window-16000`).
    pub budget_label: String,
    /// Nanoseconds the simulated turn took (the only non-deterministic figure).
    pub cost_ns: u64,
    /// The metrics.
    pub metrics: BatchMetrics,
}

impl RunResults {
    /// Parses a `results.json`, refusing other schema versions. `source_name` is named in errors.
    pub fn parse(bytes: &[u8], source_name: &str) -> Result<RunResults> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Version {
            schema_version: Option<u32>,
        }
        let version: Version =
            serde_json::from_slice(bytes).map_err(|e| Error::json(source_name, &e))?;
        match version.schema_version {
            Some(SCHEMA_VERSION) => {}
            Some(other) => {
                return Err(Error::Batch {
                    source_name: source_name.into(),
                    message: format!(
                    "results schema version {other}; this budgetlab reads version {SCHEMA_VERSION}"
                ),
                })
            }
            None => {
                return Err(Error::Batch {
                    source_name: source_name.into(),
                    message: "not a budgetlab results.json (no schemaVersion)".into(),
                })
            }
        }
        serde_json::from_slice(bytes).map_err(|e| Error::json(source_name, &e))
    }

    /// Reads a `results.json` file.
    pub fn load(path: &std::path::Path) -> Result<RunResults> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        RunResults::parse(&bytes, &path.display().to_string())
    }

    /// The row for (scenario, strategy, budget label), if present.
    pub fn row(&self, scenario: &str, strategy: &str, budget_label: &str) -> Option<&Aggregate> {
        self.rows.iter().find(|r| {
            r.scenario == scenario && r.strategy == strategy && r.budget_label == budget_label
        })
    }
}
