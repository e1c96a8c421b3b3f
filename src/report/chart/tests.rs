//! The chart data from small hand-made runs: pooling, per-turn and per-row sources, grouping and binning.

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
use crate::needles::NeedleKind;
use crate::metrics::StrategyKey;
use crate::metrics::{BatchMetrics, NeedleCount};
use crate::model::{Batch, Entry, Part};
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

#[test]
fn every_strategy_has_one_look_on_every_chart_and_row_and_no_two_share_one() {
    let strategies = every_strategy();
    let results = run_with(
        &strategies,
        vec![
            ScenarioBudget::absolute(1000),
            ScenarioBudget::absolute(4000),
        ],
    );
    let curves = budget_curves(&results).unwrap().curves;
    let cdf = retention_cdf(&results, None);
    // Four rows of panels (batch allocations, head shares, content-aware allocations, policies) in both charts.
    assert_eq!(curves.panels.len(), 8);
    assert_eq!(cdf.panels.len(), 4);
    let mut looks: BTreeMap<String, StrategyStyle> = BTreeMap::new();
    for series in curves
        .panels
        .iter()
        .chain(&cdf.panels)
        .flat_map(|p| &p.series)
    {
        let look = style_of(series);
        assert_eq!(
            *looks.entry(series.name.clone()).or_insert(look),
            look,
            "{}",
            series.name
        );
        assert_eq!(look, style::strategy(&series.name));
    }
    assert_eq!(looks.len(), strategies.len());
    // Each row's legend shows the looks its lines are drawn in.
    for row in curves
        .panels
        .chunks(curves.columns)
        .chain(cdf.panels.chunks(1))
    {
        for entry in row_legend(row) {
            match entry.swatch {
                Swatch::Line {
                    style,
                    marker: true,
                } => assert_eq!(style, looks[&entry.label], "{}", entry.label),
                Swatch::Line {
                    style,
                    marker: false,
                } if entry.label.starts_with("upper bound") => assert_eq!(style, style::BOUND),
                other => panic!("{}: {other:?}", entry.label),
            }
        }
    }
    // The first line of each row after the reference used to take the first colour in every row.
    assert_eq!(looks["reference"], style::REFERENCE);
    for (a, b) in [
        ("send-guard", "head-tail-0"),
        ("send-guard", "legacy-layers"),
        ("head-tail-0", "legacy-layers"),
    ] {
        assert_ne!(looks[a], looks[b], "{a} and {b}");
    }
    let all: Vec<&StrategyStyle> = looks.values().collect();
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn no_two_registered_strategies_share_a_colour_marker_and_dash_nor_in_grey_a_marker_and_dash() {
    let looks: Vec<StrategyStyle> = StrategyName::all()
        .iter()
        .map(|n| style::strategy(&n.as_str()))
        .collect();
    // Every registered strategy (19 today; the 8 markers and 3 dashes give 24 different pairs).
    assert!(looks.len() > 1 && looks.len() <= 24, "{}", looks.len());
    // The reference is listed first: black, solid and wider than every other line.
    assert_eq!(looks[0], style::REFERENCE);
    assert_eq!(
        (looks[0].colour, looks[0].width, looks[0].dash),
        (style::BASELINE, 4, Dash::Solid)
    );
    for (i, a) in looks.iter().enumerate().skip(1) {
        assert_eq!(a.width, 2);
        assert_ne!(a.colour, style::BASELINE);
        assert_ne!(a.colour, style::BOUND.colour);
        for b in &looks[i + 1..] {
            assert_ne!((a.colour, a.marker, a.dash), (b.colour, b.marker, b.dash));
            assert_ne!((a.marker, a.dash), (b.marker, b.dash));
        }
    }
    // Two spellings of one strategy look alike; a strategy the registry does not list (an external one) keeps
    // one look of its own, as does a line that is no strategy.
    assert_eq!(
        style::strategy("head-tail-1/2"),
        style::strategy("head-tail-0.5")
    );
    let external = style::strategy("headtail");
    assert_eq!(external, style::strategy("headtail"));
    assert!(!looks.contains(&external));
    assert!(!looks.contains(&style::strategy("head-tail-0.25")));
    assert!(!looks.contains(&style::other(0)));
}

#[test]
fn budget_curves_draw_every_budget_of_the_scenario_window_budgets_included() {
    let window = ScenarioBudget::window(100_000, 16_000);
    assert_eq!(window.units, 4800);
    // A window budget of the units of an absolute one would put two points of a line at one x.
    let twin = ScenarioBudget {
        label: BudgetLabel::Window(200_000),
        units: 4000,
        window_tokens: Some(200_000),
    };
    let results = run_with(
        &names(&["reference", "codex"]),
        vec![
            ScenarioBudget::absolute(4000),
            window.clone(),
            twin.clone(),
            ScenarioBudget::absolute(1000),
        ],
    );
    let curves = budget_curves(&results).unwrap();
    assert_eq!(
        curves.drawn,
        vec![
            ScenarioBudget::absolute(1000),
            ScenarioBudget::absolute(4000),
            window
        ]
    );
    assert_eq!(
        curves.left_out,
        vec![(
            twin,
            "the same 4,000 units as abs-4000, which is drawn".to_string()
        )]
    );
    for panel in &curves.curves.panels {
        assert_eq!(panel.marks, vec![(4800.0, "16k-token window".to_string())]);
        assert_eq!(panel.series.len(), 2);
        for series in &panel.series {
            let xs: Vec<f64> = series.points.iter().map(|p| p.0).collect();
            assert_eq!(xs, [1000.0, 4000.0, 4800.0], "{}", series.name);
        }
    }
    let plot = super::curves::plot(&super::Run {
        results: &results,
        turns: None,
    })
    .unwrap();
    assert!(
        plot.caption.contains(
            "at each of its 3 budgets drawn: 1,000, 4,000 and 4,800 (window-16000, the budget of a \
16,000-token window) UTF-16 units"
        ),
        "{}",
        plot.caption
    );
    assert!(
        plot.caption.contains(
            "Not drawn: window-200000 (the same 4,000 units as abs-4000, which is drawn)"
        ),
        "{}",
        plot.caption
    );
}

#[test]
fn the_upper_bound_is_drawn_over_the_lines_and_in_the_legend_only_where_there_is_one() {
    let (results, _) = run();
    let curves = budget_curves(&results).unwrap().curves;
    let bound = |entries: &[super::draw::legend::Entry]| {
        entries.iter().any(|e| e.label.starts_with("upper bound"))
    };
    assert!(bound(&row_legend(&curves.panels)));
    // Drawn over the lines: in the picture of the needle panel the bound's grey comes after the reference's wide
    // black line (and before the legend, which shows both again).
    let needles = super::curves::Curves {
        panels: vec![curves.panels[1].clone()],
        columns: 1,
    };
    let svg =
        String::from_utf8(super::curves::draw_grid(&needles, "t", super::Format::Svg).unwrap())
            .unwrap();
    let black = svg.find(r##"stroke="#000000" stroke-width="4""##).unwrap();
    let grey = svg.find(r##"stroke="#6E6E6E" stroke-width="2""##).unwrap();
    assert!(black < grey);

    // Without needles there is no bound, in the panels or the legend.
    let mut none = results.clone();
    for r in &mut none.rows {
        r.needles.upper_bound = None;
    }
    let curves = budget_curves(&none).unwrap().curves;
    assert!(curves.panels.iter().all(|p| p.bound.is_none()));
    assert!(!bound(&row_legend(&curves.panels)));
}

#[test]
fn lines_on_the_same_pixels_are_named_together() {
    let a = vec![(0, 0), (10, 10)];
    let near_a = vec![(1, 2), (10, 8)];
    let apart = vec![(0, 0), (10, 20)];
    let shorter = vec![(0, 0)];
    assert_eq!(
        coinciding(&[a.clone(), apart, near_a, shorter, a]),
        vec![vec![0, 2, 4]]
    );
    assert!(coinciding(&[vec![], vec![]]).is_empty());
}

#[test]
fn the_cost_floor_chart_holds_each_rows_ratio_and_leaves_the_unmeasured_absent() {
    let (mut results, _) = run();
    for r in &mut results.rows {
        if r.strategy == "codex" && r.scenario == "b" {
            r.cost.floor_ratio = None;
        }
    }
    results
        .rows
        .retain(|r| !(r.strategy == "reference" && r.budget_label == "abs-4000"));
    let grid = cost_floor_grid(&results);
    assert_eq!(grid.strategies, names(&["reference", "codex"]));
    let lines: Vec<(String, String)> = grid
        .rows
        .iter()
        .map(|r| (r.scenario.clone(), r.budget.to_string()))
        .collect();
    assert_eq!(
        lines,
        [("a", "abs-1000"), ("a", "abs-4000"), ("b", "abs-1000")]
            .map(|(s, b)| (s.to_string(), b.to_string()))
    );
    for line in &grid.rows {
        for (strategy, ratio) in grid.strategies.iter().zip(&line.ratios) {
            let row = results.rows.iter().find(|r| {
                r.scenario == line.scenario
                    && r.budget_label == line.budget
                    && r.strategy == *strategy
            });
            assert_eq!(*ratio, row.and_then(|r| r.cost.floor_ratio));
        }
    }
    // Measured: the fixture's strategy took twice the floor's time.
    assert!(grid.rows[0]
        .ratios
        .iter()
        .all(|r| r.is_some_and(|r| (r - 2.0).abs() < 0.1)));
    // Not run, and not measured: absent, never 1 or 0.
    assert_eq!(grid.rows[1].ratios[0], None);
    assert_eq!(grid.rows[2].ratios[1], None);
    assert!(grid.rows[2].ratios[0].is_some());
}

#[test]
fn cost_is_binned_by_powers_of_two_of_the_batch_size() {
    let (results, records) = run();
    let cost = cost_curves(&results, Some(&tallied(&results, &records))).unwrap();
    let reference = &cost.panels[0].series[0];
    // Inputs of 3000 units (bin 2^11) and 33000 (bin 2^15); the median of 1000 and 1001 ns... per bin.
    assert_eq!(reference.points.len(), 2);
    assert!((reference.points[0].0 - 2f64.powf(11.5)).abs() < 1e-6);
    assert!((reference.points[0].1 - 1.0).abs() < 1e-9);
    assert!((reference.points[1].1 - 1.001).abs() < 1e-9);
    assert!(cost_curves(&results, None).is_none());
}

#[test]
fn the_overview_pools_every_row_of_a_strategy() {
    let (results, _) = run();
    let rows = overview(&results);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].turns, 6);
    assert!((rows[1].compliance.unwrap() - 4.0 / 6.0).abs() < 1e-9);
    assert_eq!(rows[1].max_overshoot, 400);
    assert!((rows[1].retention.unwrap() - 0.25).abs() < 1e-9);
    // 50,000 ns is in the histogram bucket that starts at 49,152 (48 x 1,024: buckets 1/32 of their value wide).
    assert_eq!(rows[1].median_cost_ns, 49_152);
}

fn profile_info() -> SourceInfo {
    SourceInfo {
        name: "hand".into(),
        kind: SourceKind::Recorded,
        digest: "d".into(),
        seed: None,
        batches: 2,
    }
}

/// Outputs of several sizes and shapes: an exit line, CRLF, an astral character, JSON, an empty one and a long
/// coloured one.
fn profile_batches_fixture() -> Vec<Batch> {
    let entry = |tool: &str, output: &str| {
        Entry::new(
            "c",
            tool,
            vec![Part::function_response(
                "c",
                tool,
                Some(serde_json::json!(output)),
                None,
            )],
        )
    };
    let long = format!("\x1b[31merror: boom\x1b[0m\n{}", "x".repeat(12_000));
    vec![
        vec![
            entry("bash", "Exit code: 0\nhello\n"),
            entry("grep", "Found 2 matches\na.rs:1: x\r\nb.rs:2: y"),
        ],
        vec![
            entry("bash", ""),
            entry("read", "\u{1F600} caf\u{e9}\n"),
            entry("mcp", "{\"a\": 1, \"b\": [2]}"),
            entry("bash", &long),
        ],
    ]
}

#[test]
fn the_charts_draw_every_source_and_the_compared_one() {
    // A size CDF of one line per source on a log axis, the compared source last and marked; the shape features
    // side by side, one bar per source, and the mean summary position.
    let a = profile_batches(profile_info(), &profile_batches_fixture());
    let mut b = profile_scenario(&Scenario::shipped("shell-heavy").unwrap(), 5);
    b.source.name = "shell-heavy".into();
    let report = ProfileReport {
        schema_version: PROFILE_SCHEMA_VERSION,
        crate_version: "x".into(),
        profiles: vec![a.clone()],
        compare: Some(b.clone()),
    };
    let cdf = super::size_cdf::size_cdf(&report);
    let lines = &cdf.panels[0].series;
    assert_eq!(lines.len(), 2);
    assert_eq!((lines[0].baseline, lines[1].baseline), (false, true));
    assert_eq!(lines[1].name, "shell-heavy");
    for line in lines {
        assert!(line
            .points
            .windows(2)
            .all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
        assert!(line.points.iter().all(|p| p.0 >= 1.0));
        assert_eq!(line.points.last().unwrap().1, 100.0);
    }
    // The hand-built corpus's largest output is the last point of its line.
    assert_eq!(
        lines[0].points.last().unwrap().0,
        a.sizes.distribution.max.unwrap() as f64
    );
    let shape = super::shape::shape(&report);
    assert_eq!(
        shape.series,
        [a.source.name.clone(), "shell-heavy".to_string()]
    );
    assert_eq!(shape.groups.len(), 9);
    let group = |name: &str| &shape.values[shape.groups.iter().position(|g| g == name).unwrap()];
    assert_eq!(group("empty")[0], a.shape.empty.share.map(|s| s * 100.0));
    assert_eq!(
        group("repeated")[1],
        b.repeats.repeated.share.map(|s| s * 100.0)
    );
    assert_eq!(
        group("summary position")[0],
        a.shape.summary_position.mean.map(|m| m * 100.0)
    );
}

#[test]
fn every_chart_has_its_own_file_name() {
    let mut stems: Vec<&str> = super::CHARTS.iter().map(|c| c.stem).collect();
    let all = stems.len();
    stems.sort_unstable();
    stems.dedup();
    assert_eq!(stems.len(), all);
}

/// The RGB pixel at `(x, y)` shares of a PNG's width and height.
/// The darkest pixel (least sum of its channels) within `r` pixels of the point at shares `x`, `y` of a PNG: a
/// hollow marker is white at its centre and coloured on its ring.
fn darkest_near(png_bytes: &[u8], x: f64, y: f64, r: usize) -> [u8; 3] {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let (w, h) = (info.width as usize, info.height as usize);
    let (px, py) = (
        (x * w as f64).round() as usize,
        (y * h as f64).round() as usize,
    );
    let mut best = [255; 3];
    for qy in py.saturating_sub(r)..=(py + r).min(h - 1) {
        for qx in px.saturating_sub(r)..=(px + r).min(w - 1) {
            let at = (qy * w + qx) * 3;
            let p = [buf[at], buf[at + 1], buf[at + 2]];
            if p.iter().map(|&c| u32::from(c)).sum::<u32>()
                < best.iter().map(|&c| u32::from(c)).sum()
            {
                best = p;
            }
        }
    }
    best
}

#[test]
fn the_points_of_line_charts_are_hotspots_on_their_markers_and_bars_have_none() {
    let (results, records) = run();
    let turns = tallied(&results, &records);
    let charts = super::render(super::Source::Run(super::Run {
        results: &results,
        turns: Some(&turns),
    }))
    .unwrap();
    let chart = |stem: &str| charts.iter().find(|c| c.stem == stem).unwrap();
    let curves = chart("budget-curves");
    let spots: Vec<(&str, &str)> = curves
        .hotspots
        .iter()
        .map(|h| (h.line.as_str(), h.values.as_str()))
        .collect();
    // Two panels, each the reference then codex at 1,000 and 4,000 units, in drawing order.
    let retention = |budget: &str, kept: &str| {
        format!(
            "Retention\nbudget (UTF-16 units): {budget}\nkept share per field, mean (%): {kept}"
        )
    };
    let needles = |budget: &str, kept: &str| {
        format!(
            "Needle survival\nbudget (UTF-16 units): {budget}\nneedles still visible (% of planted): {kept}"
        )
    };
    let expected = [
        ("reference", retention("1,000", "50")),
        ("reference", retention("4,000", "50")),
        ("codex", retention("1,000", "25")),
        ("codex", retention("4,000", "25")),
        ("reference", needles("1,000", "100")),
        ("reference", needles("4,000", "100")),
        ("codex", needles("1,000", "33.3")),
        ("codex", needles("4,000", "33.3")),
    ];
    assert_eq!(
        spots,
        expected
            .iter()
            .map(|(l, v)| (*l, v.as_str()))
            .collect::<Vec<_>>()
    );
    let h = &curves.hotspots;
    // A larger budget is further right, a higher value higher up, the right panel right of the left one.
    assert!(h[0].x < h[1].x && h[2].x < h[3].x && h[1].x < h[4].x);
    assert_eq!((h[0].y, h[0].x), (h[1].y, h[2].x));
    assert!(h[0].y < h[2].y && h[4].y < h[6].y);
    // Each sits on its marker, in the PNG as in the SVG (the same layout): codex, over budget in scenario a, on
    // the ring of a hollow grey one.
    for spot in h {
        let reach = if spot.line == "codex" { 6 } else { 3 };
        let [r, g, b] = darkest_near(&curves.png, spot.x, spot.y, reach);
        assert!(
            u32::from(r) + u32::from(g) + u32::from(b) < 450,
            "{spot:?}: no marker at it ({r}, {g}, {b})"
        );
    }
    // The cost chart: each strategy at its two sizes; the bar charts have no points.
    assert_eq!(chart("cost").hotspots.len(), 4);
    assert!(chart("compliance").hotspots.is_empty());
    assert!(chart("needles").hotspots.is_empty());
}

#[test]
fn a_strategy_over_budget_is_hollow_grey_and_never_first_on_the_needle_and_curve_charts() {
    let (results, _) = run();
    let n = needle_survival(&results);
    let over: Vec<bool> = n.rows.iter().map(|r| r.over_budget).collect();
    assert_eq!(over, [false, true]);
    // Run first, codex (over budget in scenario a) is still drawn after the reference.
    let mut swapped = results.clone();
    swapped.inputs.strategies.reverse();
    let n = needle_survival(&swapped);
    assert_eq!(n.rows[0].strategy, "codex");
    let drawn: Vec<&str> = n.drawn().iter().map(|r| r.strategy.as_str()).collect();
    assert_eq!(drawn, ["reference", "codex"]);
    // On the budget curves, every point of codex (over budget at both budgets of a) is marked, none of the
    // reference's, and the legend says what the hollow grey marker is.
    let curves = budget_curves(&results).unwrap().curves;
    for panel in &curves.panels {
        assert!(panel.series[0].over_budget.is_empty());
        assert_eq!(panel.series[1].name, "codex");
        assert_eq!(panel.series[1].over_budget, panel.series[1].points);
    }
    let legend = row_legend(&curves.panels);
    assert!(legend
        .iter()
        .any(|e| matches!(e.swatch, Swatch::Marker(s) if s == style::OVER_BUDGET)));
}
