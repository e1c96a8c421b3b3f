//! The chart data from small hand-made runs: pooling, per-turn and per-row sources, grouping and binning.
//! `drawing.rs` holds the tests of how the charts look: strategies' styles, lines, files and hotspots.

mod drawing;

use std::collections::BTreeMap;

use super::compliance::compliance_grid;
use super::cost::cost_curves;
use super::cost_floor::cost_floor_grid;
use super::curves::{budget_curves, BudgetCurves};
use super::data::*;
use super::draw::legend::Swatch;
use super::draw::lines::{row_legend, style_of};
use super::draw::overlap::coinciding;
use super::draw::style::{self, Dash, StrategyStyle};
use super::needles::needle_survival;
use super::overshoot::overshoot;
use super::persistence::persistence_io;
use super::retention::retention_cdf;
use crate::finalize::StrategyName;
use crate::metrics::StrategyKey;
use crate::metrics::{BatchMetrics, NeedleCount};
use crate::model::{Batch, Entry, Part};
use crate::needles::NeedleKind;
use crate::profile::{
    profile_batches, profile_scenario, ProfileReport, SourceInfo, SourceKind,
    PROFILE_SCHEMA_VERSION,
};
use crate::run::RunResults;
use crate::run::{aggregate, BatchRecord, RunInputs, WorkloadInfo, WorkloadSource};
use crate::scenario::Scenario;
use crate::scenario::{BudgetLabel, ScenarioBudget};
use crate::workload::Mode;

/// One turn's metrics: `input` units in, `budget`, `over` units over it, `kept` share per field.
fn turn(batch: usize, budget: u64, input: u64, over: u64, kept: f64) -> BatchMetrics {
    BatchMetrics {
        batch,
        budget: Some(budget),
        input_total: input,
        final_total: budget.min(input) + over,
        within_budget: over == 0,
        overshoot: over,
        violation_boundary: (over > 0).then_some(crate::simulate::Boundary::ModelRequest),
        fields: 2,
        shortened_fields: u64::from(input > budget),
        original_units: input,
        kept_units: (input as f64 * kept) as u64,
        mean_kept_share: Some(kept),
        min_kept_share: Some(kept),
        fairness: Some(1.0),
        budget_used: (input > budget).then_some(0.9),
        first_line_kept: (0, 0),
        last_line_kept: (0, 0),
        path_visible: (0, 0),
        needles: BTreeMap::new(),
        needle_upper_bound: 0,
        writes: 0,
        bytes_written: 0,
        duplicate_writes: 0,
        failed_writes: 0,
        reused_paths: 0,
        recoverable_fields: 0,
        broken_surrogates: 0,
        reordered: 0,
        dropped: 0,
        media_changed: 0,
        reminders_changed: 0,
        non_budgeted_changed: 0,
        used_needles: 0,
        used_survived: 0,
        used_upper_bound: 0,
        used_tokens: 0,
        used_tokens_survived: 0,
        used_tokens_upper_bound: 0,
        over_budget_results: 0,
        over_budget_needles: 0,
        over_budget_needles_survived: 0,
        over_budget_used_needles: 0,
        over_budget_used_survived: 0,
        over_budget_used_upper_bound: 0,
        over_budget_used_tokens: 0,
        over_budget_used_tokens_survived: 0,
        over_budget_used_tokens_upper_bound: 0,
        records_differ: false,
        tokens: None,
    }
}

fn with_needles(
    mut m: BatchMetrics,
    kind: NeedleKind,
    planted: u64,
    survived: u64,
) -> BatchMetrics {
    m.needles.insert(kind, NeedleCount { planted, survived });
    m.needle_upper_bound += planted;
    m
}

fn record(
    scenario: &str,
    strategy: &str,
    label: &str,
    cost_ns: u64,
    m: BatchMetrics,
) -> BatchRecord {
    BatchRecord {
        scenario: scenario.into(),
        strategy: strategy.into(),
        budget_label: label.parse().unwrap(),
        cost_ns,
        strategy_ns: cost_ns / 2,
        floor_ns: cost_ns / 4,
        metrics: m,
    }
}

fn workload(name: &str, budgets: &[u64]) -> WorkloadInfo {
    WorkloadInfo {
        name: name.into(),
        digest: "0".repeat(64),
        source: WorkloadSource::Generated,
        seed: 7,
        batches: 2,
        mode: Mode::Interactive,
        legacy: false,
        budgets: budgets
            .iter()
            .map(|&units| ScenarioBudget::absolute(units))
            .collect(),
    }
}

/// Two scenarios (`a` at 1000 and 4000 units, `b` at 1000), two strategies: the reference always within budget,
/// `codex` over budget in some turns.
fn run() -> (RunResults, Vec<BatchRecord>) {
    let inputs = RunInputs {
        scenarios: vec![workload("a", &[1000, 4000]), workload("b", &[1000])],
        strategies: vec!["reference".into(), "codex".into()],
        shard: None,
        tokens: None,
    };
    let mut records = Vec::new();
    for (scenario, label, budget) in [
        ("a", "abs-1000", 1000),
        ("a", "abs-4000", 4000),
        ("b", "abs-1000", 1000),
    ] {
        for batch in 0..2 {
            let input = 3000 + batch as u64 * 30_000;
            let reference = with_needles(
                turn(batch, budget, input, 0, 0.5),
                NeedleKind::ExitInfo,
                2,
                2,
            );
            records.push(record(
                scenario,
                "reference",
                label,
                1000 + batch as u64,
                reference,
            ));
            let over = if scenario == "a" && batch == 1 {
                budget / 10
            } else {
                0
            };
            let codex = with_needles(
                turn(batch, budget, input, over, 0.25),
                NeedleKind::ExitInfo,
                2,
                1,
            );
            let codex = with_needles(codex, NeedleKind::JsonKey, 1, 0);
            records.push(record(scenario, "codex", label, 50_000, codex));
        }
    }
    (aggregate(inputs, &records), records)
}

/// The tallies of `records`, turns of the run of `results`.
fn tallied(results: &RunResults, records: &[BatchRecord]) -> TurnTallies {
    TurnTallies::of(&results.inputs, records)
}

fn names(list: &[&str]) -> Vec<StrategyKey> {
    list.iter().map(|&s| StrategyKey::from(s)).collect()
}

#[test]
fn few_strategies_share_one_panel_and_many_split_by_family_with_the_reference_in_each() {
    let few = strategy_groups(&names(&["reference", "codex"]));
    assert_eq!(few.len(), 1);
    assert!(few[0].title.is_empty());

    let all: Vec<StrategyKey> = StrategyName::all()
        .iter()
        .map(StrategyKey::of)
        .chain([StrategyKey::from("someone-elses")])
        .collect();
    let groups = strategy_groups(&all);
    assert_eq!(groups.len(), 5);
    for g in &groups {
        assert_eq!(g.strategies[0], "reference");
        assert!(g.strategies.len() <= MAX_SERIES_PER_PANEL + 1);
    }
    assert!(groups[1].strategies[1..]
        .iter()
        .all(|s| s.starts_with("head-tail-")));
    assert_eq!(groups[2].title, "Content-aware allocations");
    assert!(groups[2]
        .strategies
        .contains(&StrategyKey::from("relevance")));
    assert!(!groups[3]
        .strategies
        .contains(&StrategyKey::from("someone-elses")));
    // A name no built-in strategy has (an external strategy's) gets a panel of its own, last.
    assert_eq!(groups[4].title, "External and other strategies");
    assert_eq!(groups[4].strategies, names(&["reference", "someone-elses"]));
    let total: usize = groups.iter().map(|g| g.strategies.len() - 1).sum();
    assert_eq!(total, all.len() - 1);
}

#[test]
fn compliance_pools_every_budget_of_a_scenario() {
    let (results, _) = run();
    let grid = compliance_grid(&results);
    assert_eq!(grid.scenarios, ["a", "b"]);
    assert_eq!(grid.strategies, names(&["reference", "codex"]));
    assert_eq!(grid.rates[0], vec![Some(1.0), Some(1.0)]);
    // codex: 2 of 4 turns of `a` over budget, none of `b`.
    assert_eq!(grid.rates[1], vec![Some(0.5), Some(1.0)]);
}

#[test]
fn overshoot_is_in_percent_of_the_budget_per_turn_or_per_row() {
    let (results, records) = run();
    let per_turn = overshoot(&results, Some(&tallied(&results, &records)));
    assert!(per_turn.per_turn);
    assert_eq!(per_turn.rows[0].over, 0);
    assert_eq!(per_turn.rows[0].spread, None);
    let codex = &per_turn.rows[1];
    assert_eq!((codex.over, codex.turns), (2, 6));
    let spread = codex.spread.unwrap();
    assert!((spread.min - 10.0).abs() < 1e-9 && (spread.max - 10.0).abs() < 1e-9);

    let per_row = overshoot(&results, None);
    assert!(!per_row.per_turn);
    assert_eq!((per_row.rows[1].over, per_row.rows[1].turns), (2, 6));
    assert!((per_row.rows[1].spread.unwrap().median - 10.0).abs() < 1e-9);
}

#[test]
fn spreads_use_nearest_rank_quartiles() {
    let s = Spread::of(&[5.0, 1.0, 4.0, 2.0, 3.0, 6.0, 7.0, 8.0]).unwrap();
    assert_eq!(
        (s.min, s.q1, s.median, s.q3, s.max),
        (1.0, 2.0, 4.0, 6.0, 8.0)
    );
    assert_eq!(Spread::of(&[]), None);
}

#[test]
fn cdfs_rise_from_zero_to_one_hundred() {
    let points = cdf_points(&[25.0, 50.0, 50.0, 100.0]);
    assert_eq!(points.first(), Some(&(0.0, 0.0)));
    assert_eq!(points.last(), Some(&(100.0, 100.0)));
    assert!(points.windows(2).all(|w| w[0].1 <= w[1].1));
    let at = |x: f64| points.iter().find(|p| p.0 == x).unwrap().1;
    assert_eq!(at(24.75), 0.0);
    assert_eq!(at(25.0), 25.0);
    assert_eq!(at(50.0), 75.0);
    assert!(cdf_points(&[]).is_empty());
}

#[test]
fn retention_uses_over_budget_turns_or_rows() {
    let (results, records) = run();
    let cdf = retention_cdf(&results, Some(&tallied(&results, &records)));
    assert!(cdf.per_turn);
    assert_eq!(cdf.panels.len(), 1);
    let reference = &cdf.panels[0].series[0];
    assert!(reference.baseline);
    // Every reference turn keeps half: nothing at or below 49.75%, everything at 50%.
    assert_eq!(reference.points[199], (49.75, 0.0));
    assert_eq!(reference.points[200], (50.0, 100.0));
    let by_rows = retention_cdf(&results, None);
    assert!(!by_rows.per_turn);
    assert_eq!(by_rows.panels[0].series.len(), 2);
}

#[test]
fn needles_pool_kinds_and_weigh_the_bound_by_needles_planted() {
    let (results, _) = run();
    let n = needle_survival(&results);
    assert_eq!(n.kinds, ["exit-info", "json-key"]);
    assert_eq!(n.rows[0].by_kind, vec![Some(1.0), None]);
    assert_eq!(n.rows[1].by_kind, vec![Some(0.5), Some(0.0)]);
    assert!((n.rows[1].all.unwrap() - 1.0 / 3.0).abs() < 1e-9);
    assert!((n.rows[1].upper_bound.unwrap() - 1.0).abs() < 1e-9);
    assert_eq!(n.planted, 18);
}

#[test]
fn a_strategy_without_needles_or_fields_has_no_survival_or_retention_rather_than_perfect_ones() {
    let (mut results, _) = run();
    for r in results
        .rows
        .iter_mut()
        .filter(|r| r.strategy.as_str() == "codex")
    {
        r.needles.by_kind.clear();
        r.needles.upper_bound = None;
        r.retention.mean = None;
    }
    let n = needle_survival(&results);
    assert_eq!((n.rows[1].all, n.rows[1].upper_bound), (None, None));
    assert!(n.rows[0].all.is_some());
    let rows = overview(&results);
    assert_eq!(
        (rows[1].needles, rows[1].needle_bound, rows[1].retention),
        (None, None, None)
    );
    assert_eq!(rows[0].retention, Some(0.5));
    // Turns were run, so compliance is measured.
    assert!((rows[1].compliance.unwrap() - 4.0 / 6.0).abs() < 1e-9);
}

#[test]
fn persistence_is_per_turn() {
    let (mut results, _) = run();
    for r in results.rows.iter_mut().filter(|r| r.strategy == "codex") {
        r.persistence.writes = 4;
        r.persistence.duplicate_writes = 1;
        r.persistence.bytes = 2048;
    }
    let io = persistence_io(&results);
    assert_eq!(io.rows[0].first_writes, 0.0);
    let codex = &io.rows[1];
    assert_eq!(codex.turns, 6);
    assert!((codex.first_writes - 9.0 / 6.0).abs() < 1e-9);
    assert!((codex.duplicate_writes - 3.0 / 6.0).abs() < 1e-9);
    assert!((codex.kib - 1.0).abs() < 1e-9);
}

#[test]
fn budget_curves_follow_the_scenario_with_the_most_budgets() {
    let (results, _) = run();
    let BudgetCurves {
        scenario, curves, ..
    } = budget_curves(&results).unwrap();
    assert_eq!(scenario, "a");
    assert_eq!(curves.columns, 2);
    assert_eq!(curves.panels.len(), 2);
    let retention = &curves.panels[0];
    assert_eq!(retention.title, "Retention");
    assert_eq!(
        retention.series[0].points,
        vec![(1000.0, 50.0), (4000.0, 50.0)]
    );
    assert!(retention.bound.is_none());
    let needles = &curves.panels[1];
    let codex = &needles.series[1].points;
    assert_eq!(codex.len(), 2);
    assert!(codex.iter().all(|p| (p.1 - 100.0 / 3.0).abs() < 1e-9));
    assert_eq!(needles.bound.as_ref().unwrap().points.len(), 2);

    let mut one_budget = results.clone();
    one_budget.inputs.scenarios.remove(0);
    assert!(budget_curves(&one_budget).is_none());
}

/// A run of `strategies` on one scenario `a` at `budgets`, two turns each: strategy `k` keeps a share of each
/// field of its own (0.1 + 0.04k), so that no two lines coincide, and half of four planted needles.
fn run_with(strategies: &[StrategyKey], budgets: Vec<ScenarioBudget>) -> RunResults {
    let mut scenario = workload("a", &[]);
    scenario.budgets = budgets.clone();
    let inputs = RunInputs {
        scenarios: vec![scenario],
        strategies: strategies.to_vec(),
        shard: None,
        tokens: None,
    };
    let mut records = Vec::new();
    for budget in &budgets {
        for (k, strategy) in strategies.iter().enumerate() {
            for batch in 0..2 {
                let kept = 0.1 + 0.04 * k as f64;
                let m = turn(batch, budget.units, 3000 + batch as u64 * 30_000, 0, kept);
                let m = with_needles(m, NeedleKind::ExitInfo, 4, 2);
                let label = budget.label.to_string();
                records.push(record("a", strategy.as_str(), &label, 1000, m));
            }
        }
    }
    aggregate(inputs, &records)
}

fn every_strategy() -> Vec<StrategyKey> {
    StrategyName::all().iter().map(StrategyKey::of).collect()
}
