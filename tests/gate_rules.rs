//! The gate's rules at their boundaries, in-process: the reference's compliance at exactly 100% and at one
//! violation in n batches, every tolerance at and just past its limit in both directions, and `check`, `merge`
//! and `compare` each faced with every kind of difference in the inputs of two runs.

use std::sync::OnceLock;

use budgetlab::gate::compare::thresholds;
use budgetlab::gate::{
    check, compare, CheckJob, CompareJob, CompareWith, Metric, Tolerances, Verdict,
};
use budgetlab::metrics::Aggregate;
use budgetlab::run::{
    merge, PlanRequest, RunResults, ShardReport, WorkloadInfo, WorkloadSource, Workloads,
};
use budgetlab::scenario::BudgetLabel;
use budgetlab::workload::Mode;

fn request(shard: Option<&str>) -> PlanRequest {
    PlanRequest {
        workloads: Workloads::Scenarios(vec!["surrogate-storm".into()]),
        strategies: vec!["reference".into(), "greedy".into()],
        batches: Some(4),
        shard: shard.map(String::from),
        ..PlanRequest::default()
    }
}

/// One small run: surrogate-storm (three budgets) through the reference and greedy, 4 batches.
fn tiny() -> &'static RunResults {
    static RUN: OnceLock<RunResults> = OnceLock::new();
    RUN.get_or_init(|| request(None).plan().unwrap().run(&|_| {}).results)
}

/// Shard `i` of 2 of the same run, as `merge` reads it.
fn shard(i: u64) -> ShardReport {
    static SHARDS: OnceLock<Vec<ShardReport>> = OnceLock::new();
    SHARDS.get_or_init(|| {
        (0..2)
            .map(|i| {
                let out = request(Some(&format!("{i}/2")))
                    .plan()
                    .unwrap()
                    .run(&|_| {});
                ShardReport {
                    source: format!("shard-{i}"),
                    results: out.results,
                    records: out.records.into_iter().enumerate().collect(),
                }
            })
            .collect()
    })[i as usize]
        .clone()
}

/// The row of `strategy` at the first budget.
fn row<'a>(r: &'a mut RunResults, strategy: &str) -> &'a mut Aggregate {
    r.rows
        .iter_mut()
        .find(|row| row.strategy == strategy && row.budget_label == "abs-1000")
        .unwrap()
}

fn verdict(base: &RunResults, cur: &RunResults, tolerances: &Tolerances) -> Verdict {
    check(base, cur, tolerances, "base", "cur")
}

/// (strategy or "-", check, message) of every failed check.
fn failures(v: &Verdict) -> Vec<(String, &'static str, String)> {
    v.failures()
        .map(|c| {
            (
                c.strategy
                    .as_ref()
                    .map_or_else(|| "-".into(), ToString::to_string),
                c.kind.name(),
                c.failure.clone().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_reference_passes_at_full_compliance_and_fails_at_one_violation_in_n() {
    let base = tiny().clone();
    assert_eq!(row(&mut base.clone(), "reference").compliance.rate, 1.0);
    let v = verdict(&base, &base, &Tolerances::default());
    assert!(v.passed(), "{:?}", failures(&v));
    for n in [2u64, 12, 60, 100, 1000] {
        // The same row in both runs, so only the absolute rule can fail.
        let mut both = base.clone();
        let r = row(&mut both, "reference");
        r.batches = n;
        r.compliance.rate = (n - 1) as f64 / n as f64;
        r.compliance.violations = 1;
        r.compliance.max_overshoot = 1;
        let f = failures(&verdict(&both, &both, &Tolerances::default()));
        assert_eq!(f.len(), 1, "{n}: {f:?}");
        assert_eq!((f[0].0.as_str(), f[0].1), ("reference", "within-budget"));
        assert!(
            f[0].2.starts_with(&format!(
                "the reference is over budget in 1 of {n} batches ("
            )),
            "{f:?}"
        );
        // Another strategy may be over budget: it is held only to its baseline.
        let mut both = base.clone();
        row(&mut both, "greedy").compliance.rate = (n - 1) as f64 / n as f64;
        assert!(
            verdict(&both, &both, &Tolerances::default()).passed(),
            "{n}"
        );
    }
}

fn set(metric: Metric, r: &mut Aggregate, value: f64) {
    match metric {
        Metric::Compliance => r.compliance.rate = value,
        Metric::Retention => r.retention.mean = Some(value),
        Metric::Needles => r.needles.survival = Some(value),
        Metric::WRITES => r.persistence.writes = value as u64,
        other => panic!("{other} is not set by these tests"),
    }
}

/// Checks greedy's `metric` moved from `from` to each value with `tolerances`: whether each passes, and that a
/// failure is that one check of that one row.
fn moves(metric: Metric, tolerances: &Tolerances, from: f64, to: &[(f64, bool)]) {
    let mut base = tiny().clone();
    set(metric, row(&mut base, "greedy"), from);
    for &(value, passes) in to {
        let mut cur = base.clone();
        set(metric, row(&mut cur, "greedy"), value);
        let f = failures(&verdict(&base, &cur, tolerances));
        if passes {
            assert!(f.is_empty(), "{metric} {from} -> {value}: {f:?}");
        } else {
            assert_eq!(f.len(), 1, "{metric} {from} -> {value}: {f:?}");
            assert_eq!((f[0].0.as_str(), f[0].1), ("greedy", metric.name()));
            assert!(
                f[0].2
                    .starts_with(&format!("{} moved from ", metric.field())),
                "{f:?}"
            );
        }
    }
}

#[test]
fn default_tolerances_hold_at_their_limit_and_fail_just_past_it_either_way() {
    let defaults = Tolerances::default();
    // Shares: ±0.005 absolute. An improvement past it fails as a regression does.
    for metric in [Metric::Compliance, Metric::Retention, Metric::Needles] {
        moves(
            metric,
            &defaults,
            0.5,
            &[
                (0.5, true),
                (0.505, true),
                (0.495, true),
                (0.5051, false),
                (0.4949, false),
                (1.0, false),
                (0.0, false),
            ],
        );
    }
    // Writes: ±5% of the baseline; a baseline of 0 allows no change.
    moves(
        Metric::WRITES,
        &defaults,
        100.0,
        &[(105.0, true), (95.0, true), (106.0, false), (94.0, false)],
    );
    moves(Metric::WRITES, &defaults, 0.0, &[(0.0, true), (1.0, false)]);
}

#[test]
fn given_tolerances_hold_at_their_limit_and_fail_just_past_it() {
    let spec = |s: &str| Tolerances::from_specs(&[s]).unwrap();
    moves(
        Metric::Retention,
        &spec("retention=0.01"),
        0.5,
        &[(0.51, true), (0.49, true), (0.5101, false), (0.4899, false)],
    );
    moves(
        Metric::Needles,
        &spec("needles=rel:0.1"),
        0.5,
        &[(0.55, true), (0.45, true), (0.5501, false), (0.4499, false)],
    );
    moves(
        Metric::WRITES,
        &spec("writes=abs:2"),
        100.0,
        &[(102.0, true), (98.0, true), (103.0, false), (97.0, false)],
    );
    moves(
        Metric::WRITES,
        &spec("writes=10%"),
        100.0,
        &[(110.0, true), (90.0, true), (111.0, false), (89.0, false)],
    );
    moves(
        Metric::Compliance,
        &spec("compliance=off"),
        0.5,
        &[(0.0, true), (1.0, true)],
    );
    // A later item wins.
    moves(
        Metric::Retention,
        &Tolerances::from_specs(&["retention=0.5", "retention=0.001"]).unwrap(),
        0.5,
        &[(0.501, true), (0.5011, false)],
    );
}

/// Every kind of difference of a workload's description: what is changed, and the phrase naming it
/// (`field before vs after`).
fn input_changes(w: &WorkloadInfo) -> Vec<(&'static str, WorkloadInfo, String)> {
    let budgets = |w: &WorkloadInfo| {
        w.budgets
            .iter()
            .map(|b| format!("{}={}", b.label, b.units))
            .collect::<Vec<_>>()
            .join(",")
    };
    let change = |edit: &dyn Fn(&mut WorkloadInfo)| {
        let mut other = w.clone();
        edit(&mut other);
        other
    };
    let mut out = Vec::new();
    for (what, other) in [
        ("budget units", change(&|o| o.budgets[0].units += 1)),
        (
            "budget label",
            change(&|o| o.budgets[1].label = BudgetLabel::Absolute(7000)),
        ),
        (
            "budget dropped",
            change(&|o| {
                o.budgets.pop();
            }),
        ),
    ] {
        let phrase = format!("budgets {} vs {}", budgets(w), budgets(&other));
        out.push((what, other, phrase));
    }
    let mode = if w.mode == Mode::Headless {
        Mode::Acp
    } else {
        Mode::Headless
    };
    out.push((
        "mode",
        change(&|o| o.mode = mode),
        format!("mode {} vs {mode}", w.mode),
    ));
    out.push((
        "legacy",
        change(&|o| o.legacy = !o.legacy),
        format!("legacy {} vs {}", w.legacy, !w.legacy),
    ));
    out.push((
        "source",
        change(&|o| o.source = WorkloadSource::Recorded),
        format!("source {} vs recorded", w.source),
    ));
    out.push((
        "seed",
        change(&|o| o.seed += 1),
        format!("seed {} vs {}", w.seed, w.seed + 1),
    ));
    out.push((
        "batches",
        change(&|o| o.batches += 1),
        format!("batches {} vs {}", w.batches, w.batches + 1),
    ));
    out.push((
        "digest",
        change(&|o| o.digest = "f".repeat(64)),
        format!("digest {} vs ffffffffffff", &w.digest[..12]),
    ));
    out
}

#[test]
fn check_fails_the_inputs_of_every_kind_of_difference_and_compares_no_metric() {
    let base = tiny().clone();
    let references = base
        .rows
        .iter()
        .filter(|r| r.strategy == "reference")
        .count();
    for (what, other, phrase) in input_changes(&base.inputs.scenarios[0]) {
        let mut cur = base.clone();
        cur.inputs.scenarios[0] = other;
        // Metrics that moved are not compared when the inputs differ.
        row(&mut cur, "greedy").retention.mean = Some(0.0);
        let v = verdict(&base, &cur, &Tolerances::default());
        let f = failures(&v);
        assert_eq!(f.len(), 1, "{what}: {f:?}");
        assert_eq!((f[0].0.as_str(), f[0].1), ("-", "inputs"), "{what}");
        assert!(
            f[0].2.contains(&phrase),
            "{what}: {:?} lacks {phrase:?}",
            f[0].2
        );
        assert_eq!(v.cases.len(), 1 + 2 * references, "{what}");
    }
}

#[test]
fn check_fails_the_rows_of_strategies_only_one_run_has() {
    let base = tiny().clone();
    let mut cur = base.clone();
    cur.inputs.strategies = vec!["reference".into()];
    cur.rows.retain(|r| r.strategy != "greedy");
    let f = failures(&verdict(&base, &cur, &Tolerances::default()));
    assert_eq!(f.len(), 3, "{f:?}");
    assert!(f.iter().all(|(s, k, m)| s == "greedy"
        && *k == "present"
        && m == "the row is missing from the current run"));
    let f = failures(&verdict(&cur, &base, &Tolerances::default()));
    assert_eq!(f.len(), 3, "{f:?}");
    assert!(f.iter().all(|(s, k, m)| s == "greedy"
        && *k == "present"
        && m == "the row is not in the baseline: refresh the baseline"));
}

#[test]
fn merge_refuses_shards_that_differ_in_any_input() {
    let both = || vec![shard(0), shard(1)];
    assert!(merge(both()).is_ok());
    let refused = |edit: &dyn Fn(&mut ShardReport)| {
        let mut shards = both();
        edit(&mut shards[1]);
        merge(shards).unwrap_err().to_string()
    };
    let first = shard(0).results.inputs.scenarios[0].clone();
    for (what, other, _) in input_changes(&first) {
        let err = refused(&|s: &mut ShardReport| s.results.inputs.scenarios[0] = other.clone());
        // The phrase reads shard 1's value against shard 0's.
        let reversed = other.differences(&first).join(", ");
        assert_eq!(
            err,
            format!(
                "shard-1: is not a shard of the same run as shard-0: scenario surrogate-storm: {reversed}"
            ),
            "{what}"
        );
    }
    let err = refused(&|s: &mut ShardReport| s.results.inputs.strategies.reverse());
    assert_eq!(
        err,
        "shard-1: is not a shard of the same run as shard-0: strategies greedy,reference vs reference,greedy"
    );
    let err = refused(&|s: &mut ShardReport| s.results.inputs.scenarios[0].name = "other".into());
    assert!(err.contains("scenarios other vs surrogate-storm"), "{err}");
    let err = refused(&|s: &mut ShardReport| s.results.crate_version = "0.0.0".into());
    assert!(
        err.starts_with("shard-1: made by budgetlab 0.0.0, but shard-0 by budgetlab "),
        "{err}"
    );
}

#[test]
fn compare_lists_every_kind_of_input_difference_and_the_rows_of_other_strategies() {
    let a = tiny().clone();
    for (what, other, phrase) in input_changes(&a.inputs.scenarios[0]) {
        let mut b = a.clone();
        b.inputs.scenarios[0] = other;
        let c = compare(
            &a,
            &b,
            Metric::all(),
            &thresholds::<&str>(&[]).unwrap(),
            "a",
            "b",
        );
        let lines: Vec<String> = c.input_changes.iter().map(|i| i.line()).collect();
        assert_eq!(
            lines,
            [format!(
                "surrogate-storm: {phrase} (A vs B); {} rows not compared",
                a.rows.len()
            )],
            "{what}"
        );
        assert_eq!((c.compared_rows, c.rows.len()), (0, 0), "{what}");
        let text = budgetlab::gate::compare::render(&c);
        assert!(
            text.contains("Scenarios whose inputs differ, so their rows are not compared"),
            "{what}: {text}"
        );
    }
    let mut b = a.clone();
    b.inputs.strategies = vec!["reference".into()];
    b.rows.retain(|r| r.strategy != "greedy");
    let c = compare(
        &a,
        &b,
        Metric::all(),
        &thresholds::<&str>(&[]).unwrap(),
        "a",
        "b",
    );
    assert_eq!(
        c.only_a,
        [
            "surrogate-storm · abs-1000 · greedy",
            "surrogate-storm · abs-7001 · greedy",
            "surrogate-storm · abs-20000 · greedy"
        ]
    );
    assert!(c.only_b.is_empty() && c.input_changes.is_empty());
}

#[test]
fn check_and_compare_refuse_results_of_another_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    std::fs::write(&good, serde_json::to_vec(tiny()).unwrap()).unwrap();
    let mut json: serde_json::Value = serde_json::to_value(tiny()).unwrap();
    let other_version = budgetlab::run::SCHEMA_VERSION + 1;
    json["schemaVersion"] = other_version.into();
    let other = dir.path().join("other.json");
    std::fs::write(&other, serde_json::to_vec(&json).unwrap()).unwrap();
    let expected = format!(
        "{}: results schema version {other_version}; this budgetlab reads version {}",
        other.display(),
        budgetlab::run::SCHEMA_VERSION
    );
    for (baseline, current) in [(&good, &other), (&other, &good)] {
        let err = CheckJob {
            baseline: baseline.clone(),
            current: current.clone(),
            tolerances: Tolerances::default(),
        }
        .run()
        .unwrap_err();
        assert_eq!(err.to_string(), expected);
        let err = CompareJob {
            a: baseline.clone(),
            with: CompareWith::Run(current.clone()),
            cost: false,
            thresholds: Vec::new(),
        }
        .run()
        .unwrap_err();
        assert_eq!(err.to_string(), expected);
    }
    assert!(CheckJob {
        baseline: good.clone(),
        current: good,
        tolerances: Tolerances::default(),
    }
    .run()
    .unwrap()
    .passed());
}
