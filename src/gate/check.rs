//! The checks of `budgetlab check`: what the reference finalizer must always do, and how far each tracked
//! metric may move from the baseline. Pure: two [`RunResults`] in, a [`Verdict`] out.

use std::collections::{BTreeMap, BTreeSet};

use super::tolerance::{Tolerance, Tolerances};
use crate::error::{Error, Result};
use crate::metrics::{in_section, Metric, Section};
use crate::metrics::{Aggregate, RowKey, StrategyKey};
use crate::run::{RunResults, WorkloadInfo, QUICK_BATCHES};
use crate::scenario::BudgetLabel;

/// What a check tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    /// A scenario's inputs (digest, seed, batches, mode, budgets) are the baseline's.
    Inputs,
    /// The row is in both runs.
    Present,
    /// The reference finalizer keeps every batch within budget.
    WithinBudget,
    /// The reference finalizer has no integrity issue.
    Integrity,
    /// A tracked metric stays within its tolerance of the baseline.
    Metric(Metric),
}

impl CheckKind {
    /// The check's name in reports and JUnit test cases.
    pub fn name(self) -> &'static str {
        match self {
            CheckKind::Inputs => "inputs",
            CheckKind::Present => "present",
            CheckKind::WithinBudget => "within-budget",
            CheckKind::Integrity => "integrity",
            CheckKind::Metric(m) => m.name(),
        }
    }
}

/// One check of one row (or, for [`CheckKind::Inputs`], of one scenario).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckCase {
    /// The scenario.
    pub scenario: String,
    /// The budget label; `None` for a scenario-wide check.
    pub budget_label: Option<BudgetLabel>,
    /// The strategy; `None` for a scenario-wide check.
    pub strategy: Option<StrategyKey>,
    /// What is checked.
    pub kind: CheckKind,
    /// Why it failed; `None` when it passed.
    pub failure: Option<String>,
}

impl CheckCase {
    /// Whether the check passed.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// The outcome of `budgetlab check`: every check made, and what was compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Where the baseline came from.
    pub baseline: String,
    /// Where the current run came from.
    pub current: String,
    /// The tolerances used.
    pub tolerances: Tolerances,
    /// Rows in both runs.
    pub matched_rows: usize,
    /// Rows only in the baseline.
    pub baseline_only: usize,
    /// Rows only in the current run.
    pub current_only: usize,
    /// Every check, scenario checks first, then row by row in the current run's order, then the rows only the
    /// baseline has.
    pub cases: Vec<CheckCase>,
}

impl Verdict {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.cases.iter().all(CheckCase::passed)
    }

    /// The failed checks, in order.
    pub fn failures(&self) -> impl Iterator<Item = &CheckCase> {
        self.cases.iter().filter(|c| !c.passed())
    }
}

/// Refuses to compare runs that are different parts of a run: a shard is checked only against the same shard.
/// `baseline_role` names the first run in the message (`the baseline`, `A`).
pub fn comparable(
    baseline: &RunResults,
    current: &RunResults,
    current_name: &str,
    baseline_role: &str,
) -> Result<()> {
    if baseline.inputs.shard == current.inputs.shard {
        return Ok(());
    }
    let describe = |r: &RunResults| match r.inputs.shard {
        Some(s) => format!("shard {}/{}", s.index, s.count),
        None => "a whole run".to_string(),
    };
    Err(Error::report(
        current_name,
        format!(
            "is {} but {baseline_role} is {}; merge the shards first (budgetlab merge)",
            describe(current),
            describe(baseline)
        ),
    ))
}

/// Refuses a check in which nothing would be compared: every scenario of the current run that the baseline has
/// was run otherwise (other batches, seed, budgets, definition). The gate would fail one identical `inputs` row a
/// scenario and check nothing; one line says what differs and how to run the scenarios as the baseline was run
/// (a default `run` beside the committed `--quick` baseline is the common case).
pub fn something_compared(
    baseline: &RunResults,
    current: &RunResults,
    current_name: &str,
) -> Result<()> {
    let pairs: Vec<(&WorkloadInfo, &WorkloadInfo)> = current
        .inputs
        .scenarios
        .iter()
        .filter_map(|info| {
            let base = baseline
                .inputs
                .scenarios
                .iter()
                .find(|b| b.name == info.name)?;
            Some((base, info))
        })
        .collect();
    if pairs.is_empty() || pairs.iter().any(|(b, c)| b.differences(c).is_empty()) {
        return Ok(());
    }
    let differences: BTreeSet<String> = pairs
        .iter()
        .map(|(b, c)| b.differences(c).join(", "))
        .collect();
    let first = differences.iter().next().map_or("", String::as_str);
    let how = if differences.len() == 1 {
        format!("in all {}: {first}, baseline vs current", pairs.len())
    } else {
        format!(
            "e.g. {first}, baseline vs current; {} kinds of difference in {} scenarios",
            differences.len(),
            pairs.len()
        )
    };
    let hints: BTreeSet<String> = pairs.iter().map(|(b, c)| rerun_hint(b, c)).collect();
    let hint = if hints.len() == 1 {
        hints.into_iter().next().unwrap_or_default()
    } else {
        String::new()
    };
    Err(Error::report(
        current_name,
        format!(
            "no scenario ran as the baseline's did ({how}), so nothing can be compared: run them as the \
             baseline was run{hint}, or refresh the baseline"
        ),
    ))
}

/// The flags that run a scenario as the baseline ran it, where the batches or the seed are what differ:
/// ` (budgetlab run --batches 12, the size of run --quick)`; empty otherwise.
fn rerun_hint(base: &WorkloadInfo, current: &WorkloadInfo) -> String {
    let mut flags = String::new();
    if base.batches != current.batches {
        flags.push_str(&format!(" --batches {}", base.batches));
    }
    if base.seed != current.seed {
        flags.push_str(&format!(" --seed {}", base.seed));
    }
    if flags.is_empty() {
        return String::new();
    }
    let quick = if base.batches == QUICK_BATCHES && base.batches != current.batches {
        ", the size of run --quick"
    } else {
        ""
    };
    format!(" (budgetlab run{flags}{quick})")
}

/// Checks `current` against `baseline` with `tolerances`. `baseline_name` and `current_name` say where they came
/// from, for the report.
pub fn check(
    baseline: &RunResults,
    current: &RunResults,
    tolerances: &Tolerances,
    baseline_name: &str,
    current_name: &str,
) -> Verdict {
    let mut cases = Vec::new();
    let case = |row: &Aggregate, kind: CheckKind, failure: Option<String>| CheckCase {
        scenario: row.scenario.clone(),
        budget_label: Some(row.budget_label),
        strategy: Some(row.strategy.clone()),
        kind,
        failure,
    };

    // Scenarios whose inputs differ: their metrics are not comparable, so only the inputs check fails for them.
    let mut other_inputs: BTreeSet<&str> = BTreeSet::new();
    for info in &current.inputs.scenarios {
        if let Some(base) = baseline
            .inputs
            .scenarios
            .iter()
            .find(|b| b.name == info.name)
        {
            let differences = base.differences(info);
            if !differences.is_empty() {
                other_inputs.insert(&info.name);
            }
            cases.push(CheckCase {
                scenario: info.name.clone(),
                budget_label: None,
                strategy: None,
                kind: CheckKind::Inputs,
                failure: (!differences.is_empty()).then(|| {
                    format!(
                        "the scenario's inputs differ from the baseline's ({}, baseline vs current), so its \
                         metrics are not compared: run it as the baseline was run{}, or refresh the baseline",
                        differences.join(", "),
                        rerun_hint(base, info)
                    )
                }),
            });
        }
    }

    let base_rows: BTreeMap<RowKey, &Aggregate> =
        baseline.rows.iter().map(|r| (r.key(), r)).collect();
    let current_keys: BTreeSet<RowKey> = current.rows.iter().map(Aggregate::key).collect();
    let mut matched = 0;
    for row in &current.rows {
        if row.strategy.is_reference() {
            let c = &row.compliance;
            cases.push(case(
                row,
                CheckKind::WithinBudget,
                (c.rate < 1.0).then(|| {
                    format!(
                        "the reference is over budget in {} of {} batches ({} within budget; max overshoot {} \
                         units)",
                        c.violations,
                        row.batches,
                        Metric::Compliance.format(c.rate),
                        c.max_overshoot
                    )
                }),
            ));
            cases.push(case(row, CheckKind::Integrity, integrity_failure(row)));
        }
        let Some(base) = base_rows.get(&row.key()) else {
            cases.push(case(
                row,
                CheckKind::Present,
                Some("the row is not in the baseline: refresh the baseline".into()),
            ));
            continue;
        };
        matched += 1;
        if other_inputs.contains(row.scenario.as_str()) {
            continue;
        }
        for &metric in Metric::all() {
            let tolerance = tolerances.get(metric);
            if tolerance == Tolerance::Off {
                continue;
            }
            let failure = match (metric.value(base), metric.value(row)) {
                (Some(from), Some(to)) => (!tolerance.allows(from, to)).then(|| {
                    format!(
                        "{} moved from {} to {}: {}, more than the {} allowed",
                        metric.field(),
                        metric.format(from),
                        metric.format(to),
                        metric.format_change(from, to),
                        tolerance.allowance(metric)
                    )
                }),
                (None, None) => None,
                (from, to) => Some(format!(
                    "{} is {} in the baseline and {} now: one of them had nothing to measure it by",
                    metric.field(),
                    metric.format_opt(from),
                    metric.format_opt(to)
                )),
            };
            cases.push(case(row, CheckKind::Metric(metric), failure));
        }
    }
    let mut baseline_only = 0;
    for row in baseline
        .rows
        .iter()
        .filter(|r| !current_keys.contains(&r.key()))
    {
        baseline_only += 1;
        cases.push(case(
            row,
            CheckKind::Present,
            Some("the row is missing from the current run".into()),
        ));
    }
    Verdict {
        baseline: baseline_name.into(),
        current: current_name.into(),
        tolerances: tolerances.clone(),
        matched_rows: matched,
        baseline_only,
        current_only: current.rows.len() - matched,
        cases,
    }
}

/// The non-zero integrity counts of a row, if any: each integrity figure ([`Section::Integrity`]), then the turns
/// whose records differ.
fn integrity_failure(row: &Aggregate) -> Option<String> {
    let mut counts: Vec<(&str, u64)> = in_section(Section::Integrity)
        .into_iter()
        .filter_map(|f| Some((f.label, f.row?(row))))
        .collect();
    counts.push(("records differ", row.integrity.records_differ));
    let found: Vec<String> = counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(what, n)| format!("{what} {n}"))
        .collect();
    (!found.is_empty()).then(|| format!("the reference has integrity issues: {}", found.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{PlanRequest, ShardInfo, Workloads};

    fn tiny_run() -> RunResults {
        PlanRequest {
            workloads: Workloads::Scenarios(vec!["surrogate-storm".into()]),
            strategies: vec!["reference".into(), "greedy".into()],
            batches: Some(3),
            ..PlanRequest::default()
        }
        .plan()
        .unwrap()
        .run(&|_| {})
        .results
    }

    #[test]
    fn a_rerun_hint_names_the_baselines_batches_and_seed() {
        let base = tiny_run().inputs.scenarios[0].clone();
        let mut other = base.clone();
        assert_eq!(rerun_hint(&base, &other), "");
        other.batches = 60;
        assert_eq!(rerun_hint(&base, &other), " (budgetlab run --batches 3)");
        let mut quick = base.clone();
        quick.batches = QUICK_BATCHES;
        other.seed += 1;
        assert_eq!(
            rerun_hint(&quick, &other),
            format!(
                " (budgetlab run --batches 12 --seed {}, the size of run --quick)",
                base.seed
            )
        );
        other.batches = QUICK_BATCHES;
        assert_eq!(
            rerun_hint(&quick, &other),
            format!(" (budgetlab run --seed {})", base.seed)
        );
    }

    fn verdict(baseline: &RunResults, current: &RunResults) -> Verdict {
        check(baseline, current, &Tolerances::default(), "base", "cur")
    }

    fn failures(v: &Verdict) -> Vec<(String, &'static str, String)> {
        v.failures()
            .map(|c| {
                (
                    c.strategy
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                    c.kind.name(),
                    c.failure.clone().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn a_run_passes_against_itself() {
        let run = tiny_run();
        let v = verdict(&run, &run);
        assert!(v.passed(), "{:?}", failures(&v));
        let rows = run.rows.len();
        let reference_rows = run
            .rows
            .iter()
            .filter(|r| r.strategy == "reference")
            .count();
        assert_eq!(v.matched_rows, rows);
        // One inputs check, the reference's two absolute checks, and every metric of every row.
        assert_eq!(v.cases.len(), 1 + 2 * reference_rows + 5 * rows);
    }

    #[test]
    fn the_reference_must_fit_and_keep_integrity_even_without_a_baseline_row() {
        let base = tiny_run();
        let mut cur = base.clone();
        let r = cur
            .rows
            .iter_mut()
            .find(|r| r.strategy == "reference")
            .unwrap();
        r.compliance.rate = 2.0 / 3.0;
        r.compliance.violations = 1;
        r.compliance.max_overshoot = 17;
        r.integrity.broken_surrogates = 2;
        r.integrity.records_differ = 1;
        r.budget_label = BudgetLabel::Absolute(1);
        let v = verdict(&base, &cur);
        let f = failures(&v);
        assert_eq!(f[0].1, "within-budget");
        assert!(
            f[0].2.contains(
                "over budget in 1 of 3 batches (66.67% within budget; max overshoot 17 units)"
            ),
            "{f:?}"
        );
        assert_eq!(
            f[1].2,
            "the reference has integrity issues: broken surrogates 2, records differ 1"
        );
        assert_eq!(f[2].1, "present");
        assert!(f[2].2.contains("not in the baseline"));
        assert_eq!(
            f.last().unwrap().2,
            "the row is missing from the current run"
        );
        assert_eq!((v.baseline_only, v.current_only), (1, 1));
    }

    #[test]
    fn rows_only_the_current_run_has_are_counted_and_fail_it() {
        let cur = tiny_run();
        let mut base = cur.clone();
        base.rows.truncate(1);
        let v = verdict(&base, &cur);
        assert!(cur.rows.len() > 2);
        assert_eq!(
            (v.matched_rows, v.baseline_only, v.current_only),
            (1, 0, cur.rows.len() - 1)
        );
        assert!(!v.passed());
        assert_eq!(failures(&v).len(), cur.rows.len() - 1, "{:?}", failures(&v));
    }

    #[test]
    fn metrics_fail_past_their_tolerance_either_way() {
        let base = tiny_run();
        let mut cur = base.clone();
        let g = cur
            .rows
            .iter_mut()
            .find(|r| r.strategy == "greedy")
            .unwrap();
        g.retention.mean = base.rows[1].retention.mean.map(|m| m + 0.004); // within ±0.005
        g.needles.survival = base.rows[1].needles.survival.map(|s| s - 0.02);
        g.persistence.writes = base.rows[1].persistence.writes + 100;
        // Ten times the absolute time is not checked by default: load alone does that.
        g.cost.median_ns = base.rows[1].cost.median_ns * 10 + 1;
        g.cost.floor_ratio = Some(2.0);
        let mut base = base;
        base.rows[1].cost.floor_ratio = Some(0.8);
        let v = verdict(&base, &cur);
        let kinds: Vec<_> = failures(&v).into_iter().map(|f| f.1).collect();
        assert_eq!(kinds, ["needles", "writes", "cost"]);
        assert_eq!(
            failures(&v)[2].2,
            "cost.floorRatio moved from 0.80x to 2.00x: +150.0%, more than the ±100% allowed"
        );
        // Twice the baseline's ratio is within the default tolerance; the time is checked when asked.
        cur.rows[1].cost.floor_ratio = Some(1.6);
        let kinds: Vec<_> = failures(&verdict(&base, &cur))
            .into_iter()
            .map(|f| f.1)
            .collect();
        assert_eq!(kinds, ["needles", "writes"]);
        let timed = Tolerances::from_specs(&["time=5"]).unwrap();
        let v = check(&base, &cur, &timed, "b", "c");
        let kinds: Vec<_> = failures(&v).into_iter().map(|f| f.1).collect();
        assert_eq!(kinds, ["needles", "writes", "time"]);
        // A ratio on one side only is a failure, not a pass.
        cur.rows[1].cost.floor_ratio = None;
        let f = failures(&verdict(&base, &cur));
        assert_eq!(
            f[2].2,
            "cost.floorRatio is 0.80x in the baseline and - now: one of them had nothing to measure it by"
        );
        let needles = failures(&v)[0].2.clone();
        assert!(
            needles.starts_with("needles.survival moved from"),
            "{needles}"
        );
        assert!(
            needles.ends_with(": -2.00 pp, more than the ±0.5 pp allowed"),
            "{needles}"
        );

        let loose = Tolerances::from_specs(&["needles=0.05,writes=off,cost=off"]).unwrap();
        assert!(check(&base, &cur, &loose, "b", "c").passed());
    }

    #[test]
    fn other_inputs_fail_the_inputs_check() {
        let base = tiny_run();
        let mut cur = base.clone();
        cur.inputs.scenarios[0].batches = 60;
        cur.inputs.scenarios[0].digest = "0123456789abcdef".into();
        let v = verdict(&base, &cur);
        let f = failures(&v);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].1, "inputs");
        assert!(
            f[0].2.contains("so its metrics are not compared"),
            "{}",
            f[0].2
        );
        // The reference's own checks remain; the metrics of the scenario's rows are not compared.
        let reference_rows = cur
            .rows
            .iter()
            .filter(|r| r.strategy == "reference")
            .count();
        assert_eq!(v.cases.len(), 1 + 2 * reference_rows);
        assert!(f[0].2.contains("digest"), "{}", f[0].2);
        assert!(f[0].2.contains("batches 3 vs 60"), "{}", f[0].2);
    }

    #[test]
    fn a_run_of_another_size_than_the_baseline_is_refused_in_one_line() {
        let base = tiny_run();
        let mut cur = base.clone();
        assert!(something_compared(&base, &cur, "cur").is_ok());
        cur.inputs.scenarios[0].batches = 60;
        let err = something_compared(&base, &cur, "cur")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "cur: no scenario ran as the baseline's did (in all 1: batches 3 vs 60, baseline vs current), so \
             nothing can be compared: run them as the baseline was run (budgetlab run --batches 3), or refresh \
             the baseline"
        );
        // One scenario run as the baseline's was is enough to compare something.
        let mut two = tiny_run();
        two.inputs.scenarios.push(two.inputs.scenarios[0].clone());
        two.inputs.scenarios[1].name = "other".into();
        let mut cur = two.clone();
        cur.inputs.scenarios[1].batches = 60;
        assert!(something_compared(&two, &cur, "cur").is_ok());
    }

    #[test]
    fn a_shard_is_not_checked_against_a_whole_run() {
        let base = tiny_run();
        let mut cur = base.clone();
        assert!(comparable(&base, &cur, "cur", "the baseline").is_ok());
        cur.inputs.shard = Some(ShardInfo { index: 1, count: 3 });
        let err = comparable(&base, &cur, "cur", "the baseline")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "cur: is shard 1/3 but the baseline is a whole run; merge the shards first (budgetlab merge)"
        );
        let err = comparable(&cur, &base, "b", "A").unwrap_err().to_string();
        assert_eq!(
            err,
            "b: is a whole run but A is shard 1/3; merge the shards first (budgetlab merge)"
        );
    }
}
