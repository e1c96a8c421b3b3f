//! `budgetlab compare`: the differences of tracked metrics, row by row, like with like, as a Markdown table or
//! JSON. Two runs (`compare A B`: rows matched by scenario, budget label and strategy; a scenario whose inputs
//! differ is one line, and its rows are not diffed), or two strategies of one run (`compare RUN --strategies
//! A,B`: matched by scenario and budget, with the paired 95% interval of the difference where the rows carry
//! their resamples). The rows that differ are ranked by the size of their largest change ([`size`]), and a
//! change within its metric's threshold ([`default_threshold`]; the cost's is `check`'s tolerance) is not shown.
//! Pure: [`RunResults`] in, a [`Comparison`] out, and [`render`] and [`json`] for its bytes.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::markdown::cell;
use super::tolerance::{default_tolerance, Tolerance, Tolerances};
use crate::error::{Error, Result};
use crate::metrics::resample::{paired_interval, Figure};
use crate::metrics::{Aggregate, Metric, RowKey, StrategyKey, Unit};
use crate::run::RunResults;
use crate::scenario::BudgetLabel;

/// What is compared with what.
#[derive(Debug, Clone, PartialEq)]
pub enum Sides {
    /// Two runs, A and B, row by row.
    Runs,
    /// Two strategies of one run, A and B, scenario and budget by scenario and budget.
    Strategies {
        /// Strategy A.
        a: StrategyKey,
        /// Strategy B.
        b: StrategyKey,
    },
}

/// One metric of one row that differs beyond its threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricChange {
    /// The metric.
    pub metric: Metric,
    /// Its value in A (`None`: nothing to measure it by).
    pub a: Option<f64>,
    /// Its value in B.
    pub b: Option<f64>,
    /// The size of the change ([`size`]); `None` when it has no size (a figure absent on one side, or a
    /// relative change from zero), which ranks first.
    pub size: Option<f64>,
    /// Two strategies side by side: the paired 95% bootstrap interval of B minus A, for needle survival and
    /// retention, where both rows carry resamples over the same batches.
    pub interval: Option<[f64; 2]>,
}

/// A row whose tracked metrics differ beyond their thresholds.
#[derive(Debug, Clone, PartialEq)]
pub struct RowChange {
    /// Its place, from 1: the largest change first.
    pub rank: usize,
    /// Scenario.
    pub scenario: String,
    /// Budget label.
    pub budget_label: BudgetLabel,
    /// Strategy (`None` when two strategies are side by side).
    pub strategy: Option<StrategyKey>,
    /// The size of its largest change (`None`: unbounded, see [`MetricChange::size`]).
    pub size: Option<f64>,
    /// The metrics that differ, in [`Metric::all`] order.
    pub changes: Vec<MetricChange>,
}

/// A scenario whose inputs differ between the two runs: its rows are not diffed.
#[derive(Debug, Clone, PartialEq)]
pub struct InputChange {
    /// The scenario.
    pub scenario: String,
    /// What differs, A's value then B's: `batches 12 vs 60`.
    pub differences: Vec<String>,
    /// Its rows in both runs, not compared.
    pub rows: usize,
}

impl InputChange {
    /// The one line a report gives it.
    pub fn line(&self) -> String {
        format!(
            "{}: {} (A vs B); {} rows not compared",
            self.scenario,
            self.differences.join(", "),
            self.rows
        )
    }
}

/// The differences of two runs, or of two strategies of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Where A came from (two strategies: the run).
    pub a: String,
    /// Where B came from (two strategies: the run).
    pub b: String,
    /// What is compared with what.
    pub sides: Sides,
    /// The metrics compared.
    pub metrics: Vec<Metric>,
    /// How far each metric may move unshown.
    pub thresholds: Tolerances,
    /// Scenarios whose inputs differ, one each.
    pub input_changes: Vec<InputChange>,
    /// Rows in both runs (two strategies: scenarios and budgets with both).
    pub matched_rows: usize,
    /// Of those, the rows compared: all but those of scenarios whose inputs differ.
    pub compared_rows: usize,
    /// Rows whose metrics differ beyond their thresholds, the largest change first (ties in A's order).
    pub rows: Vec<RowChange>,
    /// Rows only A has, as `scenario · budget · strategy` (two strategies: `scenario · budget`).
    pub only_a: Vec<String>,
    /// Rows only B has.
    pub only_b: Vec<String>,
    /// What the agent used, side by side, for the compared rows that measured it (recorded batches with a
    /// used-lines file), in A's order: shown first, leading with the turns longer than the budget.
    pub used: Vec<UsedSideBySide>,
}

/// One compared row's used tokens (and the detector's needles) on both sides: over the turns longer than the
/// budget (where a strategy can differ), with the n, and over every turn.
#[derive(Debug, Clone, PartialEq)]
pub struct UsedSideBySide {
    /// Scenario.
    pub scenario: String,
    /// Budget label.
    pub budget_label: BudgetLabel,
    /// Strategy (`None` when two strategies are side by side).
    pub strategy: Option<StrategyKey>,
    /// A's figures.
    pub a: UsedFigures,
    /// B's figures.
    pub b: UsedFigures,
}

/// The used-token and needle figures of one row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UsedFigures {
    /// Results in the turns longer than the budget.
    pub over_results: u64,
    /// Used tokens in those turns, and of them kept.
    pub over_tokens: (u64, u64),
    /// Used tokens over every turn, and of them kept.
    pub tokens: (u64, u64),
    /// The detector's needles in the turns longer than the budget, and of them kept.
    pub over_needles: (u64, u64),
}

impl UsedFigures {
    fn of(r: &Aggregate) -> UsedFigures {
        let s = &r.summary;
        UsedFigures {
            over_results: s.over_budget_results,
            over_tokens: (
                s.over_budget_used_tokens,
                s.over_budget_used_tokens_survived,
            ),
            tokens: (s.used_tokens, s.used_tokens_survived),
            over_needles: (s.over_budget_needles, s.over_budget_needles_survived),
        }
    }
}

/// The side-by-side used figures of a compared pair, when either row measured used tokens.
fn used_pair(
    a: &Aggregate,
    b: &Aggregate,
    strategy: Option<StrategyKey>,
) -> Option<UsedSideBySide> {
    (a.summary.used_tokens > 0 || b.summary.used_tokens > 0).then(|| UsedSideBySide {
        scenario: a.scenario.clone(),
        budget_label: a.budget_label,
        strategy,
        a: UsedFigures::of(a),
        b: UsedFigures::of(b),
    })
}

/// `kept of n (share)`, or `-` with nothing to measure.
fn kept_text((n, kept): (u64, u64)) -> String {
    if n == 0 {
        "-".into()
    } else {
        format!("{kept} of {n} ({:.1}%)", 100.0 * kept as f64 / n as f64)
    }
}

/// The threshold of `metric` when none is given: any change of a deterministic metric is shown; the cost and
/// the time, which differ between any two runs, only past `check`'s default cost tolerance (±100%), so that
/// `compare --cost` and `check` call the same changes noise.
pub fn default_threshold(metric: Metric) -> Tolerance {
    if metric.deterministic() {
        Tolerance::Absolute(0.0)
    } else {
        default_tolerance(Metric::Cost)
    }
}

/// `compare`'s thresholds: the defaults overridden by `--threshold` specs (the syntax of `check --tolerance`).
pub fn thresholds<S: AsRef<str>>(specs: &[S]) -> Result<Tolerances> {
    let mut out = Tolerances::with_defaults(default_threshold);
    for spec in specs {
        out.apply_flag("--threshold", spec.as_ref())?;
    }
    Ok(out)
}

/// The size of a change from `a` to `b`, the measure rows are ranked by: for a share, the change in its own unit
/// (0.05 is 5 percentage points); for a count, a ratio or a time, the change over A (0.05 is 5%). `None` when
/// it has no size: one side absent, or a count, ratio or time moving from zero.
pub fn size(metric: Metric, a: Option<f64>, b: Option<f64>) -> Option<f64> {
    let (a, b) = (a?, b?);
    match metric.unit() {
        Unit::Share => Some((b - a).abs()),
        Unit::Count | Unit::Ratio | Unit::Nanos => {
            if a == 0.0 {
                (b == 0.0).then_some(0.0)
            } else {
                Some((b - a).abs() / a.abs())
            }
        }
    }
}

/// The ranking rule, as the reports state it.
pub fn ranking_rule(metrics: &[Metric]) -> String {
    let fields = |unit: &dyn Fn(Unit) -> bool| {
        metrics
            .iter()
            .filter(|m| unit(m.unit()))
            .map(|m| m.field())
            .collect::<Vec<_>>()
    };
    let shares = fields(&|u| u == Unit::Share);
    let relative = fields(&|u| u != Unit::Share);
    let mut parts = Vec::new();
    if !shares.is_empty() {
        parts.push(format!(
            "percentage points for shares ({})",
            shares.join(", ")
        ));
    }
    if !relative.is_empty() {
        parts.push(format!("percent of A for {}", relative.join(", ")));
    }
    format!(
        "rows are ranked by their largest change, {}; a figure absent on one side or a change from zero ranks \
         first",
        parts.join(", ")
    )
}

/// A threshold as the reports state it: `any change`, `beyond ±100%`.
pub fn threshold_text(metric: Metric, t: Tolerance) -> String {
    match t {
        Tolerance::Absolute(x) | Tolerance::Relative(x) if x == 0.0 => "any change".into(),
        Tolerance::Off => "not compared".into(),
        t => format!("beyond {}", t.allowance(metric)),
    }
}

/// The metrics of `row` (A) and `other` (B) that differ beyond their thresholds.
fn changes(
    row: &Aggregate,
    other: &Aggregate,
    metrics: &[Metric],
    thresholds: &Tolerances,
    paired: bool,
) -> Vec<MetricChange> {
    metrics
        .iter()
        .filter_map(|&metric| {
            let (a, b) = (metric.value(row), metric.value(other));
            let shown = match (a, b) {
                (Some(x), Some(y)) => !thresholds.get(metric).allows(x, y),
                (None, None) => false,
                _ => true,
            };
            let figure = match metric {
                Metric::Needles => Some(Figure::Needles),
                Metric::Retention => Some(Figure::Retention),
                _ => None,
            };
            shown.then(|| MetricChange {
                metric,
                a,
                b,
                size: size(metric, a, b),
                interval: figure
                    .filter(|_| paired)
                    .and_then(|f| {
                        paired_interval(&other.summary.resamples, &row.summary.resamples, f)
                    })
                    .map(|(lo, hi)| [lo, hi]),
            })
        })
        .collect()
}

/// Larger first; no size (unbounded) before any size.
fn larger_first(x: Option<f64>, y: Option<f64>) -> Ordering {
    match (x, y) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => y.total_cmp(&x),
    }
}

/// Ranks `rows` by their largest change (stable: ties keep their order) and numbers them.
fn rank(mut rows: Vec<RowChange>) -> Vec<RowChange> {
    for row in &mut rows {
        row.size = row
            .changes
            .iter()
            .map(|c| c.size)
            .min_by(|x, y| larger_first(*x, *y))
            .flatten();
    }
    rows.sort_by(|x, y| larger_first(x.size, y.size));
    for (i, row) in rows.iter_mut().enumerate() {
        row.rank = i + 1;
    }
    rows
}

fn metrics_compared(metrics: &[Metric], thresholds: &Tolerances) -> Vec<Metric> {
    metrics
        .iter()
        .copied()
        .filter(|&m| thresholds.get(m) != Tolerance::Off)
        .collect()
}

/// Compares `metrics` of every row of `a` and `b` whose scenario's inputs are alike, showing changes beyond
/// `thresholds`; `a_name` and `b_name` say where they came from.
pub fn compare(
    a: &RunResults,
    b: &RunResults,
    metrics: &[Metric],
    thresholds: &Tolerances,
    a_name: &str,
    b_name: &str,
) -> Comparison {
    let metrics = metrics_compared(metrics, thresholds);
    let mut input_changes: Vec<InputChange> = a
        .inputs
        .scenarios
        .iter()
        .filter_map(|x| {
            let y = b.inputs.scenarios.iter().find(|y| y.name == x.name)?;
            let differences = x.differences(y);
            (!differences.is_empty()).then(|| InputChange {
                scenario: x.name.clone(),
                differences,
                rows: 0,
            })
        })
        .collect();
    let b_rows: BTreeMap<RowKey, &Aggregate> = b.rows.iter().map(|r| (r.key(), r)).collect();
    let a_keys: BTreeSet<RowKey> = a.rows.iter().map(Aggregate::key).collect();
    let mut rows = Vec::new();
    let mut only_a = Vec::new();
    let mut used = Vec::new();
    let (mut matched_rows, mut compared_rows) = (0, 0);
    for row in &a.rows {
        let Some(other) = b_rows.get(&row.key()) else {
            only_a.push(row.key().to_string());
            continue;
        };
        matched_rows += 1;
        if let Some(input) = input_changes
            .iter_mut()
            .find(|c| c.scenario == row.scenario)
        {
            input.rows += 1;
            continue;
        }
        compared_rows += 1;
        used.extend(used_pair(row, other, Some(row.strategy.clone())));
        let changes = changes(row, other, &metrics, thresholds, false);
        if !changes.is_empty() {
            rows.push(RowChange {
                rank: 0,
                scenario: row.scenario.clone(),
                budget_label: row.budget_label,
                strategy: Some(row.strategy.clone()),
                size: None,
                changes,
            });
        }
    }
    let only_b = b
        .rows
        .iter()
        .filter(|r| !a_keys.contains(&r.key()))
        .map(|r| r.key().to_string())
        .collect();
    Comparison {
        a: a_name.into(),
        b: b_name.into(),
        sides: Sides::Runs,
        metrics,
        thresholds: thresholds.clone(),
        input_changes,
        matched_rows,
        compared_rows,
        rows: rank(rows),
        only_a,
        only_b,
        used,
    }
}

/// The two strategies of `--strategies A,B`, each a strategy of `run` (`run_name` names it in errors).
pub fn strategy_pair(
    spec: &str,
    run: &RunResults,
    run_name: &str,
) -> Result<(StrategyKey, StrategyKey)> {
    let bad = |reason: String| Error::invalid("--strategies", spec, reason);
    let names = crate::finalize::split_strategy_list(spec);
    let [a, b] = names[..] else {
        return Err(bad(format!(
            "expected two strategies, A,B; {} given",
            names.len()
        )));
    };
    let known: BTreeSet<&str> = run.rows.iter().map(|r| r.strategy.as_str()).collect();
    for name in [a, b] {
        if !known.contains(name) {
            return Err(bad(format!(
                "{run_name} has no strategy {name:?}; it has {}",
                known.iter().copied().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    if a == b {
        return Err(bad(format!("{a:?} is given twice; name two strategies")));
    }
    Ok((a.into(), b.into()))
}

/// The row of `rows` at `r`'s scenario and budget.
fn find<'a>(rows: &[&'a Aggregate], r: &Aggregate) -> Option<&'a Aggregate> {
    rows.iter()
        .find(|o| o.scenario == r.scenario && o.budget_label == r.budget_label)
        .copied()
}

/// Compares strategy `sa` (A) with `sb` (B) in every scenario and budget of `run` that has both, showing changes
/// beyond `thresholds`, with the paired interval of B minus A where the rows carry it; `name` says where the run
/// came from.
pub fn compare_strategies(
    run: &RunResults,
    sa: &StrategyKey,
    sb: &StrategyKey,
    metrics: &[Metric],
    thresholds: &Tolerances,
    name: &str,
) -> Comparison {
    let metrics = metrics_compared(metrics, thresholds);
    let of = |s: &StrategyKey| -> Vec<&Aggregate> {
        run.rows.iter().filter(|r| &r.strategy == s).collect()
    };
    let (rows_a, rows_b) = (of(sa), of(sb));
    let place = |r: &Aggregate| format!("{} · {}", r.scenario, r.budget_label);
    let mut rows = Vec::new();
    let mut only_a = Vec::new();
    let mut used = Vec::new();
    let mut matched_rows = 0;
    for row in &rows_a {
        let Some(other) = find(&rows_b, row) else {
            only_a.push(place(row));
            continue;
        };
        matched_rows += 1;
        used.extend(used_pair(row, other, None));
        let changes = changes(row, other, &metrics, thresholds, true);
        if !changes.is_empty() {
            rows.push(RowChange {
                rank: 0,
                scenario: row.scenario.clone(),
                budget_label: row.budget_label,
                strategy: None,
                size: None,
                changes,
            });
        }
    }
    let only_b = rows_b
        .iter()
        .filter(|r| find(&rows_a, r).is_none())
        .map(|r| place(r))
        .collect();
    Comparison {
        a: name.into(),
        b: name.into(),
        sides: Sides::Strategies {
            a: sa.clone(),
            b: sb.clone(),
        },
        metrics,
        thresholds: thresholds.clone(),
        input_changes: Vec::new(),
        matched_rows,
        compared_rows: matched_rows,
        rows: rank(rows),
        only_a,
        only_b,
        used,
    }
}

/// An interval of a share's difference in percentage points: `[-1.20, +3.40] pp`.
fn interval_text(i: Option<[f64; 2]>) -> String {
    i.map_or_else(
        || "-".into(),
        |[lo, hi]| format!("[{:+.2}, {:+.2}] pp", lo * 100.0, hi * 100.0),
    )
}

/// The comparison as JSON (`compare --json`): what was compared with what, the metrics, their thresholds and the
/// ranking rule, the scenarios whose inputs differ (what differs, and the rows not compared), the counts of rows,
/// every row that differs in rank order with its size and the metrics that differ (both values, null where a
/// figure is absent; the size, null where unbounded; for two strategies the paired interval of B minus A), and
/// the rows only one side has.
pub fn json(c: &Comparison) -> Vec<u8> {
    let rows: Vec<serde_json::Value> = c
        .rows
        .iter()
        .map(|r| {
            let changes: Vec<serde_json::Value> = r
                .changes
                .iter()
                .map(|m| {
                    serde_json::json!({"metric": m.metric.field(), "a": m.a, "b": m.b, "size": m.size,
                        "interval": m.interval})
                })
                .collect();
            serde_json::json!({
                "rank": r.rank,
                "scenario": r.scenario,
                "budget": r.budget_label.to_string(),
                "strategy": r.strategy.as_ref().map(|s| s.to_string()),
                "size": r.size,
                "changes": changes,
            })
        })
        .collect();
    let metrics: Vec<&str> = c.metrics.iter().map(|m| m.field()).collect();
    let thresholds: Vec<serde_json::Value> = c
        .metrics
        .iter()
        .map(|&m| {
            serde_json::json!({"metric": m.name(), "field": m.field(),
                "threshold": threshold_text(m, c.thresholds.get(m))})
        })
        .collect();
    let input_changes: Vec<serde_json::Value> = c
        .input_changes
        .iter()
        .map(|i| {
            serde_json::json!({"scenario": i.scenario, "differences": i.differences,
                "rowsNotCompared": i.rows})
        })
        .collect();
    let figures = |f: &UsedFigures| {
        let share = |(n, kept): (u64, u64)| (n > 0).then(|| kept as f64 / n as f64);
        serde_json::json!({
            "overBudgetResults": f.over_results,
            "overBudgetUsedTokens": f.over_tokens.0,
            "overBudgetUsedTokensSurvived": f.over_tokens.1,
            "overBudgetUsedTokensSurvival": share(f.over_tokens),
            "usedTokens": f.tokens.0,
            "usedTokensSurvived": f.tokens.1,
            "usedTokensSurvival": share(f.tokens),
            "overBudgetNeedles": f.over_needles.0,
            "overBudgetNeedlesSurvived": f.over_needles.1,
            "overBudgetNeedleSurvival": share(f.over_needles),
        })
    };
    let used_json: Vec<serde_json::Value> = c
        .used
        .iter()
        .map(|u| {
            serde_json::json!({
                "scenario": u.scenario,
                "budget": u.budget_label.to_string(),
                "strategy": u.strategy.as_ref().map(|s| s.to_string()),
                "a": figures(&u.a),
                "b": figures(&u.b),
            })
        })
        .collect();
    let (mode, strategies) = match &c.sides {
        Sides::Runs => ("runs", serde_json::Value::Null),
        Sides::Strategies { a, b } => (
            "strategies",
            serde_json::json!({"a": a.to_string(), "b": b.to_string()}),
        ),
    };
    let value = serde_json::json!({
        "mode": mode,
        "a": c.a,
        "b": c.b,
        "strategies": strategies,
        "metrics": metrics,
        "thresholds": thresholds,
        "rankedBy": ranking_rule(&c.metrics),
        "inputChanges": input_changes,
        "matchedRows": c.matched_rows,
        "comparedRows": c.compared_rows,
        "rows": rows,
        "onlyA": c.only_a,
        "onlyB": c.only_b,
        "used": used_json,
    });
    let mut out = serde_json::to_vec_pretty(&value).expect("a JSON value serializes");
    out.push(b'\n');
    out
}

/// The comparison as Markdown: what is compared with what, the metrics and their thresholds, the ranking rule,
/// the scenarios whose inputs differ (one line each), a table of the changes ranked largest first (or a line
/// saying none), and the rows only one side has.
pub fn render(c: &Comparison) -> String {
    render_listing(c, false)
}

/// [`render`], the rows only one run has listed each when `list_all` (`compare --list`), else, past
/// [`LISTED_ROWS`] of them, counted per scenario.
pub fn render_listing(c: &Comparison, list_all: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## budgetlab compare\n");
    let fields = c
        .metrics
        .iter()
        .map(|m| m.field())
        .collect::<Vec<_>>()
        .join(", ");
    let (what, unit) = match &c.sides {
        Sides::Runs => (
            format!(
                "A: `{}` · B: `{}` · {} rows in both",
                c.a, c.b, c.matched_rows
            ),
            "rows",
        ),
        Sides::Strategies { a, b } => (
            format!(
                "Run: `{}` · A: `{a}` · B: `{b}` · {} scenarios and budgets with both",
                c.a, c.matched_rows
            ),
            "scenarios and budgets",
        ),
    };
    let _ = writeln!(out, "{what} · metrics: {fields}\n");
    let _ = writeln!(
        out,
        "Shown: {} (`--threshold METRIC=VALUE` sets them). Ranked: {}.\n",
        c.metrics
            .iter()
            .map(|&m| format!("{} {}", m.field(), threshold_text(m, c.thresholds.get(m))))
            .collect::<Vec<_>>()
            .join(", "),
        ranking_rule(&c.metrics)
    );
    if !c.input_changes.is_empty() {
        out.push_str(
            "Scenarios whose inputs differ, so their rows are not compared (run both alike to compare them):\n\n",
        );
        for input in &c.input_changes {
            let _ = writeln!(out, "- {}", cell(&input.line()));
        }
        out.push('\n');
    }
    if !c.used.is_empty() {
        out.push_str(
            "What the agent used (recorded batches): used tokens kept over the turns longer than the budget, where \
a strategy can differ (n: the results there), then over every turn, and the detector's needles kept over budget:\n\n",
        );
        out.push_str(
            "| scenario | budget | strategy | over budget (results) A | B | used tokens over budget A | B | all turns A | B | needles over budget A | B |\n",
        );
        out.push_str("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for u in &c.used {
            let strategy = u
                .strategy
                .as_ref()
                .map_or_else(|| "-".to_string(), |s| cell(s));
            let _ = writeln!(
                out,
                "| {} | {} | {strategy} | {} | {} | {} | {} | {} | {} | {} | {} |",
                cell(&u.scenario),
                cell(&u.budget_label.to_string()),
                u.a.over_results,
                u.b.over_results,
                kept_text(u.a.over_tokens),
                kept_text(u.b.over_tokens),
                kept_text(u.a.tokens),
                kept_text(u.b.tokens),
                kept_text(u.a.over_needles),
                kept_text(u.b.over_needles),
            );
        }
        out.push('\n');
    }
    if c.compared_rows == 0 && c.matched_rows > 0 {
        out.push_str("No row compared: the inputs of every scenario differ.\n");
    } else if c.rows.is_empty() {
        let _ = writeln!(
            out,
            "No tracked metric differs beyond its threshold in the {} {unit} compared.",
            c.compared_rows
        );
    } else {
        let _ = writeln!(
            out,
            "{} of {} {unit} differ, the largest change first:\n",
            c.rows.len(),
            c.compared_rows
        );
        match &c.sides {
            Sides::Runs => {
                out.push_str("| # | scenario | budget | strategy | metric | A | B | change |\n");
                out.push_str("|---:|---|---|---|---|---:|---:|---:|\n");
            }
            Sides::Strategies { a, b } => {
                let _ = writeln!(
                    out,
                    "| # | scenario | budget | metric | A: {} | B: {} | change | B − A, paired 95% interval |",
                    cell(a),
                    cell(b)
                );
                out.push_str("|---:|---|---|---|---:|---:|---:|---:|\n");
            }
        }
        for row in &c.rows {
            for m in &row.changes {
                let change = match (m.a, m.b) {
                    (Some(a), Some(b)) => m.metric.format_change(a, b),
                    _ => "-".into(),
                };
                let strategy = match &row.strategy {
                    Some(s) => format!(" {} |", cell(s)),
                    None => String::new(),
                };
                let interval = match &c.sides {
                    Sides::Runs => String::new(),
                    Sides::Strategies { .. } => format!(" {} |", interval_text(m.interval)),
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} |{strategy} {} | {} | {} | {change} |{interval}",
                    row.rank,
                    cell(&row.scenario),
                    cell(&row.budget_label.to_string()),
                    m.metric.field(),
                    m.metric.format_opt(m.a),
                    m.metric.format_opt(m.b),
                );
            }
        }
    }
    for (side, rows) in [("A", &c.only_a), ("B", &c.only_b)] {
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\nRows only {side} has ({}):\n", rows.len());
        if list_all || rows.len() <= LISTED_ROWS {
            for r in rows {
                let _ = writeln!(out, "- {}", cell(r));
            }
            continue;
        }
        // Counted per scenario (the part of each row before its first ` · `), the list behind `--list`.
        let mut per_scenario: std::collections::BTreeMap<&str, usize> = Default::default();
        for r in rows {
            *per_scenario
                .entry(r.split(" · ").next().unwrap_or(r))
                .or_insert(0) += 1;
        }
        for (scenario, n) in per_scenario {
            let _ = writeln!(out, "- {}: {n} rows", cell(scenario));
        }
        let _ = writeln!(out, "\n(`--list` lists each row.)");
    }
    out
}

/// How many rows only one run has are listed one a line before they are counted per scenario instead.
pub const LISTED_ROWS: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{PlanRequest, Workloads};

    fn tiny_run() -> RunResults {
        PlanRequest {
            workloads: Workloads::Scenarios(vec!["pre-persisted".into()]),
            strategies: vec!["reference".into(), "codex".into()],
            batches: Some(2),
            ..PlanRequest::default()
        }
        .plan()
        .unwrap()
        .run(&|_| {})
        .results
    }

    /// Every change shown, the cost's too.
    fn exact() -> Tolerances {
        thresholds(&["cost=0,time=0"]).unwrap()
    }

    const DETERMINISTIC: [Metric; 4] = [
        Metric::Compliance,
        Metric::Retention,
        Metric::Needles,
        Metric::WRITES,
    ];

    #[test]
    fn identical_runs_have_no_differences() {
        let a = tiny_run();
        let b = tiny_run();
        let c = compare(&a, &b, &DETERMINISTIC, &exact(), "a", "b");
        assert!(c.rows.is_empty() && c.only_a.is_empty() && c.only_b.is_empty());
        assert_eq!(c.matched_rows, a.rows.len());
        let text = render(&c);
        assert!(text.contains("No tracked metric differs"), "{text}");
        assert!(!text.contains("| scenario |"), "{text}");
    }

    #[test]
    fn changed_rows_are_tabled_and_missing_ones_listed() {
        let a = tiny_run();
        let mut b = a.clone();
        b.rows[1].retention.mean = a.rows[1].retention.mean.map(|m| m - 0.125);
        b.rows[1].persistence.writes = a.rows[1].persistence.writes + 4;
        b.rows[1].cost.median_ns += 1;
        let gone = b.rows.pop().unwrap();
        let c = compare(&a, &b, &DETERMINISTIC, &exact(), "a", "b");
        assert_eq!(c.rows.len(), 1);
        let metrics: Vec<Metric> = c.rows[0].changes.iter().map(|m| m.metric).collect();
        assert_eq!(metrics, [Metric::Retention, Metric::WRITES]);
        assert_eq!(c.only_a, [gone.key().to_string()]);
        let text = render(&c);
        assert!(text.contains("1 of "), "{text}");
        assert!(text.contains("| retention.mean |"), "{text}");
        assert!(text.contains("-12.50 pp |"), "{text}");
        assert!(text.contains("Rows only A has (1)"), "{text}");
        // Many rows only one run has are counted per scenario; `--list` lists them.
        let mut many = c.clone();
        many.only_b = (0..30)
            .map(|i| format!("s{} · abs-{i} · reference", i % 2))
            .collect();
        let text = render(&many);
        assert!(
            text.contains("Rows only B has (30):\n\n- s0: 15 rows\n- s1: 15 rows\n"),
            "{text}"
        );
        assert!(!text.contains("abs-7"), "{text}");
        let full = render_listing(&many, true);
        assert!(full.contains("- s1 · abs-7 · reference\n"), "{full}");

        b.rows[1].cost.floor_ratio = None;
        let with_cost = compare(&a, &b, Metric::all(), &exact(), "a", "b");
        let metrics: Vec<Metric> = with_cost.rows[0].changes.iter().map(|m| m.metric).collect();
        assert_eq!(
            metrics,
            [
                Metric::Retention,
                Metric::WRITES,
                Metric::Cost,
                Metric::Time
            ]
        );
        let text = render(&with_cost);
        assert!(text.contains("| cost.floorRatio |"), "{text}");
        assert!(text.contains(" | - | - |\n"), "{text}");
        // An absent figure has no size and ranks first; so does the row.
        assert_eq!(with_cost.rows[0].size, None);

        // Inputs that differ: one line, and none of the scenario's rows diffed.
        b.inputs.scenarios[0].seed += 1;
        let c = compare(&a, &b, &DETERMINISTIC, &exact(), "a", "b");
        assert!(c.rows.is_empty());
        assert_eq!((c.matched_rows, c.compared_rows), (a.rows.len() - 1, 0));
        assert_eq!(c.input_changes.len(), 1);
        let text = render(&c);
        assert!(text.contains("- pre-persisted: seed"), "{text}");
        assert!(text.contains("No row compared"), "{text}");
    }

    #[test]
    fn sizes_are_points_for_shares_and_relative_for_the_rest() {
        assert_eq!(size(Metric::Retention, Some(0.5), Some(0.25)), Some(0.25));
        assert_eq!(size(Metric::WRITES, Some(4.0), Some(5.0)), Some(0.25));
        assert_eq!(size(Metric::WRITES, Some(0.0), Some(5.0)), None);
        assert_eq!(size(Metric::WRITES, Some(0.0), Some(0.0)), Some(0.0));
        assert_eq!(size(Metric::Cost, None, Some(1.0)), None);
        assert_eq!(
            larger_first(None, Some(9.0)),
            Ordering::Less,
            "no size ranks first"
        );
        assert_eq!(
            threshold_text(Metric::WRITES, Tolerance::Absolute(0.0)),
            "any change"
        );
        assert_eq!(
            threshold_text(Metric::Cost, default_threshold(Metric::Cost)),
            "beyond ±100%"
        );
        assert_eq!(
            default_threshold(Metric::Time),
            default_tolerance(Metric::Cost)
        );
    }
}
