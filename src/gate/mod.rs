//! Comparing runs: the nightly CI gate (`budgetlab check`), which holds a run to the reference finalizer's
//! contract and to a stored baseline, and the difference table of two runs (`budgetlab compare`).
//!
//! Everything here is pure but [`load_results`] and the two jobs that read their inputs with it: [`check()`] and
//! [`compare()`] turn results into a [`Verdict`] or a [`Comparison`], and the serializers ([`VerdictMarkdown`],
//! [`VerdictJson`], [`JUnitXml`], [`compare::render`]) turn those into bytes; the binary owns stdout and the files.

pub mod check;
pub mod compare;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod tolerance;

pub use crate::metrics::{Metric, Unit};
pub use check::{check, comparable, something_compared, CheckCase, CheckKind, Verdict};
pub use compare::{
    compare, compare_strategies, Comparison, InputChange, MetricChange, RowChange, Sides,
};
pub use json::VerdictJson;
pub use junit::JUnitXml;
pub use markdown::VerdictMarkdown;
pub use tolerance::{default_tolerance, Tolerance, Tolerances};

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::run::RunResults;

/// One output format of a verdict: pure, no I/O.
pub trait VerdictExporter {
    /// The verdict's bytes in this format.
    fn serialize(&self, verdict: &Verdict) -> Vec<u8>;
}

/// The file the results of a run are read from: `path` itself, or the `results.json` in it when it is a folder.
pub fn results_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("results.json")
    } else {
        path.to_path_buf()
    }
}

/// Reads the results of a run: a `results.json` file, or a report folder holding one. Returns them with the
/// path they were read from.
pub fn load_results(path: &Path) -> Result<(RunResults, String)> {
    let file = results_file(path);
    let results = RunResults::load(&file)?;
    Ok((results, file.display().to_string()))
}

/// What `budgetlab check` runs.
#[derive(Debug, Clone)]
pub struct CheckJob {
    /// The baseline: a `results.json` or a report folder.
    pub baseline: PathBuf,
    /// The run checked: a report folder or its `results.json`.
    pub current: PathBuf,
    /// The tolerances.
    pub tolerances: Tolerances,
}

impl CheckJob {
    /// Reads both runs and checks the current one against the baseline.
    pub fn run(&self) -> Result<Verdict> {
        let (baseline, baseline_name) = load_results(&self.baseline)?;
        let (current, current_name) = load_results(&self.current)?;
        comparable(&baseline, &current, &current_name, "the baseline")?;
        something_compared(&baseline, &current, &current_name)?;
        Ok(check(
            &baseline,
            &current,
            &self.tolerances,
            &baseline_name,
            &current_name,
        ))
    }
}

/// What `budgetlab compare` runs. Like `check`, it refuses to compare a shard with a whole run or another
/// shard.
#[derive(Debug, Clone)]
pub struct CompareJob {
    /// Run A: a report folder or its `results.json`.
    pub a: PathBuf,
    /// What A is compared with.
    pub with: CompareWith,
    /// Whether to compare the cost too (it differs between any two runs).
    pub cost: bool,
    /// The `--threshold` specs, in order.
    pub thresholds: Vec<String>,
}

/// What `compare` puts beside run A.
#[derive(Debug, Clone)]
pub enum CompareWith {
    /// Run B: a report folder or its `results.json`.
    Run(PathBuf),
    /// Two strategies of run A, `A,B` as given to `--strategies`.
    Strategies(String),
}

impl CompareJob {
    /// Reads the run(s) and compares them.
    pub fn run(&self) -> Result<Comparison> {
        let thresholds = compare::thresholds(&self.thresholds)?;
        if !self.cost {
            for spec in &self.thresholds {
                for item in spec.split(',').map(str::trim) {
                    let name = item.split_once('=').map_or(item, |(n, _)| n).trim();
                    if Metric::parse(name).is_some_and(|m| !m.deterministic()) {
                        return Err(crate::error::Error::invalid(
                            "--threshold",
                            item,
                            format!("{name} is compared only with --cost"),
                        ));
                    }
                }
            }
        }
        let metrics: Vec<Metric> = Metric::all()
            .iter()
            .copied()
            .filter(|m| self.cost || m.deterministic())
            .collect();
        let (a, a_name) = load_results(&self.a)?;
        match &self.with {
            CompareWith::Run(b) => {
                let (b, b_name) = load_results(b)?;
                comparable(&a, &b, &b_name, &format!("A ({a_name})"))?;
                Ok(compare(&a, &b, &metrics, &thresholds, &a_name, &b_name))
            }
            CompareWith::Strategies(spec) => {
                let (sa, sb) = compare::strategy_pair(spec, &a, &a_name)?;
                Ok(compare_strategies(
                    &a,
                    &sa,
                    &sb,
                    &metrics,
                    &thresholds,
                    &a_name,
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{PlanRequest, Workloads};

    /// Two identical small runs written as report folders, compared with and without cost.
    #[test]
    fn compare_job_compares_the_deterministic_metrics_and_cost_only_when_asked() {
        let results = PlanRequest {
            workloads: Workloads::Scenarios(vec!["pre-persisted".into()]),
            strategies: vec!["reference".into()],
            batches: Some(2),
            ..PlanRequest::default()
        }
        .plan()
        .unwrap()
        .run(&|_| {})
        .results;
        let dir = tempfile::tempdir().unwrap();
        let bytes = serde_json::to_vec_pretty(&results).unwrap();
        for run in ["a", "b"] {
            std::fs::create_dir(dir.path().join(run)).unwrap();
            std::fs::write(dir.path().join(run).join("results.json"), &bytes).unwrap();
        }
        let job = |cost| CompareJob {
            a: dir.path().join("a"),
            with: CompareWith::Run(dir.path().join("b").join("results.json")),
            cost,
            thresholds: Vec::new(),
        };
        let deterministic: Vec<Metric> = Metric::all()
            .iter()
            .copied()
            .filter(|m| m.deterministic())
            .collect();
        assert!(!deterministic.is_empty() && deterministic.len() < Metric::all().len());
        let without = job(false).run().unwrap();
        assert_eq!(without.metrics, deterministic);
        assert_eq!(without.matched_rows, results.rows.len());
        assert!(without.rows.is_empty());
        assert_eq!(job(true).run().unwrap().metrics, Metric::all().to_vec());
        assert_eq!(
            without.a,
            dir.path()
                .join("a")
                .join("results.json")
                .display()
                .to_string()
        );
    }
}
