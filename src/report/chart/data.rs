//! The data of each chart, computed from a run's results (and its per-batch records when present) by pure
//! functions: which strategies go together in a panel, what is pooled over scenarios and budgets, and every
//! series a chart draws. No drawing here; the backends only lay these out.

use std::collections::BTreeMap;

use crate::finalize::{Family, StrategyName};
use crate::metrics::Aggregate;
use crate::run::{BatchRecord, RunResults, WorkloadInfo};

/// At most this many strategies share one panel before they are split into families.
pub const MAX_SERIES_PER_PANEL: usize = 9;

/// The scenario the run's budget-curve chart prefers when several have as many budgets.
pub const PREFERRED_CURVE_SCENARIO: &str = "mixed-realistic";

/// One line: a name and its points, in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// What the line is (a strategy, a budget label).
    pub name: String,
    /// The points (x, y).
    pub points: Vec<(f64, f64)>,
    /// Drawn as the baseline the others are compared with (the reference).
    pub baseline: bool,
}

/// How an axis maps values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Linear from 0.
    Linear,
    /// Logarithmic (values must be positive).
    Log,
    /// Percentages, linear from 0 to 100.
    Percent,
}

/// An axis: its label (with the unit) and scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The label, naming the unit.
    pub label: String,
    /// The scale.
    pub scale: Scale,
}

impl Axis {
    /// An axis with `label` and `scale`.
    pub fn new(label: impl Into<String>, scale: Scale) -> Axis {
        Axis {
            label: label.into(),
            scale,
        }
    }
}

/// One panel of lines sharing axes.
#[derive(Debug, Clone, PartialEq)]
pub struct LinePanel {
    /// The panel's title (empty for a chart's only panel).
    pub title: String,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// The lines.
    pub series: Vec<Series>,
    /// A bound drawn dashed behind the lines (the needle upper bound), if any.
    pub bound: Option<Series>,
}

/// A family of strategies drawn in one panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrategyGroup {
    /// The panel title (empty when every strategy fits one panel).
    pub title: String,
    /// The strategies, the reference first when present.
    pub strategies: Vec<String>,
}

/// Splits `strategies` into panels: all of them in one when there are few, otherwise by family (batch
/// allocations, head shares, replaced and peer policies), the reference in every panel as the baseline.
pub fn strategy_groups(strategies: &[String]) -> Vec<StrategyGroup> {
    if strategies.len() <= MAX_SERIES_PER_PANEL {
        return vec![StrategyGroup {
            title: String::new(),
            strategies: strategies.to_vec(),
        }];
    }
    // A name that is no built-in strategy's is an external strategy's (or one of another build): drawn apart.
    let family = |s: &str| {
        s.parse::<StrategyName>()
            .map_or(Family::External, |name| name.family())
    };
    let title = |family: Family| match family {
        Family::BatchAllocation => "Batch allocations",
        Family::HeadShare => "Head shares (the reference keeps 0.2)",
        Family::Policy => "Replaced and peer policies",
        Family::External => "External and other strategies",
    };
    let reference = strategies.iter().find(|s| is_baseline(s));
    let mut groups: BTreeMap<Family, StrategyGroup> = BTreeMap::new();
    for s in strategies.iter().filter(|s| !is_baseline(s)) {
        groups
            .entry(family(s))
            .or_insert_with_key(|&f| StrategyGroup {
                title: title(f).to_string(),
                strategies: reference.into_iter().cloned().collect(),
            })
            .strategies
            .push(s.clone());
    }
    groups.into_values().collect()
}

/// Whether a strategy is the baseline every chart compares with.
pub fn is_baseline(strategy: &str) -> bool {
    strategy == "reference"
}

fn ratio(num: f64, den: f64) -> Option<f64> {
    (den > 0.0).then(|| num / den)
}

/// The rows of `results` for `strategy`.
fn rows_of<'a>(results: &'a RunResults, strategy: &'a str) -> impl Iterator<Item = &'a Aggregate> {
    results.rows.iter().filter(move |r| r.strategy == strategy)
}

/// Compliance rate per (strategy, scenario), pooled over the scenario's budgets.
#[derive(Debug, Clone, PartialEq)]
pub struct ComplianceGrid {
    /// Column names.
    pub scenarios: Vec<String>,
    /// Row names.
    pub strategies: Vec<String>,
    /// `rates[strategy][scenario]`: share of turns within budget (0..1), `None` where nothing ran.
    pub rates: Vec<Vec<Option<f64>>>,
}

/// The compliance grid of a run.
pub fn compliance_grid(results: &RunResults) -> ComplianceGrid {
    let scenarios: Vec<String> = results
        .inputs
        .scenarios
        .iter()
        .map(|s| s.name.clone())
        .collect();
    let strategies = results.inputs.strategies.clone();
    let rates = strategies
        .iter()
        .map(|strategy| {
            scenarios
                .iter()
                .map(|scenario| {
                    let (within, turns) = rows_of(results, strategy)
                        .filter(|r| &r.scenario == scenario)
                        .fold((0u64, 0u64), |(w, t), r| {
                            (w + r.batches - r.compliance.violations, t + r.batches)
                        });
                    ratio(within as f64, turns as f64)
                })
                .collect()
        })
        .collect();
    ComplianceGrid {
        scenarios,
        strategies,
        rates,
    }
}

/// Five-number summary of a distribution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Smallest value.
    pub min: f64,
    /// 25th percentile.
    pub q1: f64,
    /// Median.
    pub median: f64,
    /// 75th percentile.
    pub q3: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// The summary of `values` (nearest-rank percentiles); `None` for no values.
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let rank = |p: f64| {
            let r = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
            sorted[r.min(sorted.len()) - 1]
        };
        Some(Spread {
            min: sorted[0],
            q1: rank(25.0),
            median: rank(50.0),
            q3: rank(75.0),
            max: sorted[sorted.len() - 1],
        })
    }
}

/// How far one strategy's over-budget turns went over.
#[derive(Debug, Clone, PartialEq)]
pub struct OvershootRow {
    /// The strategy.
    pub strategy: String,
    /// Turns run.
    pub turns: u64,
    /// Turns over budget.
    pub over: u64,
    /// The overshoot of the over-budget turns, in percent of the budget.
    pub spread: Option<Spread>,
}

/// The overshoot chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct Overshoot {
    /// One row per strategy, in run order.
    pub rows: Vec<OvershootRow>,
    /// Whether the spreads are of single turns (from `batches.jsonl`) or of rows' p99 and maximum.
    pub per_turn: bool,
}

/// Overshoot per strategy: from every over-budget turn when `records` are given, else from the rows' 99th
/// percentile and maximum.
pub fn overshoot(results: &RunResults, records: &[BatchRecord]) -> Overshoot {
    let per_turn = !records.is_empty();
    let rows = results
        .inputs
        .strategies
        .iter()
        .map(|strategy| {
            let (turns, over, values) = if per_turn {
                let mine: Vec<&BatchRecord> =
                    records.iter().filter(|r| &r.strategy == strategy).collect();
                let values: Vec<f64> = mine
                    .iter()
                    .filter(|r| r.metrics.overshoot > 0)
                    .filter_map(|r| {
                        let budget = r.metrics.budget.filter(|&b| b > 0)?;
                        Some(r.metrics.overshoot as f64 / budget as f64 * 100.0)
                    })
                    .collect();
                let over = mine.iter().filter(|r| r.metrics.overshoot > 0).count() as u64;
                (mine.len() as u64, over, values)
            } else {
                let mut values = Vec::new();
                let (mut turns, mut over) = (0, 0);
                for r in rows_of(results, strategy) {
                    turns += r.batches;
                    over += r.compliance.violations;
                    if let Some(budget) = r.budget.filter(|&b| b > 0 && r.compliance.violations > 0)
                    {
                        for o in [r.compliance.p99_overshoot, r.compliance.max_overshoot] {
                            if o > 0 {
                                values.push(o as f64 / budget as f64 * 100.0);
                            }
                        }
                    }
                }
                (turns, over, values)
            };
            OvershootRow {
                strategy: strategy.clone(),
                turns,
                over,
                spread: Spread::of(&values),
            }
        })
        .collect();
    Overshoot { rows, per_turn }
}

/// Points of the empirical CDF of `values` (percentages 0..100) on a fixed grid.
pub fn cdf_points(values: &[f64]) -> Vec<(f64, f64)> {
    if values.is_empty() {
        return Vec::new();
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    (0..=400)
        .map(|i| {
            let x = i as f64 / 4.0;
            let below = sorted.partition_point(|&v| v <= x + 1e-9);
            (x, below as f64 / n * 100.0)
        })
        .collect()
}

/// The retention CDF chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct RetentionCdf {
    /// One panel per strategy family.
    pub panels: Vec<LinePanel>,
    /// Whether the distributions are of single turns (from `batches.jsonl`) or of rows.
    pub per_turn: bool,
}

/// Distribution of the kept share per field: over every turn whose producers' output was over the budget
/// when `records` are given, else over the rows' means.
pub fn retention_cdf(results: &RunResults, records: &[BatchRecord]) -> RetentionCdf {
    let per_turn = !records.is_empty();
    let values = |strategy: &str| -> Vec<f64> {
        if per_turn {
            records
                .iter()
                .filter(|r| r.strategy == strategy && r.metrics.budget_used.is_some())
                .map(|r| r.metrics.mean_kept_share * 100.0)
                .collect()
        } else {
            rows_of(results, strategy)
                .map(|r| r.retention.mean * 100.0)
                .collect()
        }
    };
    let x_label = if per_turn {
        "kept share per field, mean of a turn (%)"
    } else {
        "kept share per field, mean of a scenario and budget (%)"
    };
    let y_label = if per_turn {
        "over-budget turns keeping at most x (%)"
    } else {
        "rows keeping at most x (%)"
    };
    let panels = strategy_groups(&results.inputs.strategies)
        .into_iter()
        .map(|g| LinePanel {
            title: g.title,
            x: Axis::new(x_label, Scale::Percent),
            y: Axis::new(y_label, Scale::Percent),
            series: g
                .strategies
                .iter()
                .map(|s| Series {
                    name: s.clone(),
                    points: cdf_points(&values(s)),
                    baseline: is_baseline(s),
                })
                .filter(|s| !s.points.is_empty())
                .collect(),
            bound: None,
        })
        .collect();
    RetentionCdf { panels, per_turn }
}

/// Needle survival of one strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct NeedleRow {
    /// The strategy.
    pub strategy: String,
    /// Survival per kind (0..1), in the order of [`NeedleSurvival::kinds`]; `None` where none were planted.
    pub by_kind: Vec<Option<f64>>,
    /// Survival of every kind together (0..1).
    pub all: f64,
    /// The most any allocation of the same budgets could keep (0..1).
    pub upper_bound: f64,
}

/// The needle chart's data, pooled over every scenario and budget.
#[derive(Debug, Clone, PartialEq)]
pub struct NeedleSurvival {
    /// The needle kinds planted anywhere in the run.
    pub kinds: Vec<String>,
    /// One row per strategy, in run order.
    pub rows: Vec<NeedleRow>,
    /// Needles planted per strategy.
    pub planted: u64,
}

/// Needle survival by kind and strategy, pooled over every row.
pub fn needle_survival(results: &RunResults) -> NeedleSurvival {
    let mut kinds: Vec<String> = results
        .rows
        .iter()
        .flat_map(|r| r.needles.by_kind.keys().cloned())
        .collect();
    kinds.sort();
    kinds.dedup();
    let mut planted_max = 0;
    let rows = results
        .inputs
        .strategies
        .iter()
        .map(|strategy| {
            let mut by_kind: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
            let (mut planted, mut bound) = (0u64, 0.0f64);
            for r in rows_of(results, strategy) {
                let row_planted: u64 = r.needles.by_kind.values().map(|k| k.planted).sum();
                planted += row_planted;
                bound += r.needles.upper_bound * row_planted as f64;
                for (kind, k) in &r.needles.by_kind {
                    let e = by_kind.entry(kind).or_default();
                    e.0 += k.survived;
                    e.1 += k.planted;
                }
            }
            planted_max = planted_max.max(planted);
            let survived: u64 = by_kind.values().map(|(s, _)| s).sum();
            NeedleRow {
                strategy: strategy.clone(),
                by_kind: kinds
                    .iter()
                    .map(|k| {
                        by_kind
                            .get(k.as_str())
                            .and_then(|&(s, p)| ratio(s as f64, p as f64))
                    })
                    .collect(),
                all: ratio(survived as f64, planted as f64).unwrap_or(1.0),
                upper_bound: ratio(bound, planted as f64).unwrap_or(1.0),
            }
        })
        .collect();
    NeedleSurvival {
        kinds,
        rows,
        planted: planted_max,
    }
}

/// Persistence I/O of one strategy, per turn.
#[derive(Debug, Clone, PartialEq)]
pub struct PersistenceRow {
    /// The strategy.
    pub strategy: String,
    /// Turns run.
    pub turns: u64,
    /// Successful writes per turn, first writes of an entry.
    pub first_writes: f64,
    /// Writes per turn of an entry already written in the same turn.
    pub duplicate_writes: f64,
    /// Failed or refused writes per turn.
    pub failed_writes: f64,
    /// KiB written per turn.
    pub kib: f64,
}

/// The persistence chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct PersistenceIo {
    /// One row per strategy, in run order.
    pub rows: Vec<PersistenceRow>,
}

/// Writes and bytes per turn by strategy, over every row.
pub fn persistence_io(results: &RunResults) -> PersistenceIo {
    let rows = results
        .inputs
        .strategies
        .iter()
        .map(|strategy| {
            let (mut turns, mut writes, mut dup, mut failed, mut bytes) = (0, 0, 0, 0, 0);
            for r in rows_of(results, strategy) {
                turns += r.batches;
                writes += r.persistence.writes;
                dup += r.persistence.duplicate_writes;
                failed += r.persistence.failed_writes;
                bytes += r.persistence.bytes;
            }
            let per_turn = |v: u64| ratio(v as f64, turns as f64).unwrap_or(0.0);
            PersistenceRow {
                strategy: strategy.clone(),
                turns,
                first_writes: per_turn(writes - dup.min(writes)),
                duplicate_writes: per_turn(dup),
                failed_writes: per_turn(failed),
                kib: per_turn(bytes) / 1024.0,
            }
        })
        .collect();
    PersistenceIo { rows }
}

/// A metric drawn against budget (or another swept parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CurveMetric {
    /// Mean kept share per field.
    Retention,
    /// Needle survival, with the upper bound.
    Needles,
    /// Share of turns within budget.
    Compliance,
    /// Successful writes per turn.
    Writes,
}

impl CurveMetric {
    /// Every metric a sweep draws, in page order.
    pub const ALL: [CurveMetric; 4] = [
        CurveMetric::Retention,
        CurveMetric::Needles,
        CurveMetric::Compliance,
        CurveMetric::Writes,
    ];

    /// The metric's value in a row.
    pub fn value(self, row: &Aggregate) -> f64 {
        match self {
            CurveMetric::Retention => row.retention.mean * 100.0,
            CurveMetric::Needles => row.needles.survival * 100.0,
            CurveMetric::Compliance => row.compliance.rate * 100.0,
            CurveMetric::Writes => row.persistence.writes as f64 / row.batches.max(1) as f64,
        }
    }

    /// The vertical axis.
    pub fn axis(self) -> Axis {
        match self {
            CurveMetric::Retention => Axis::new("kept share per field, mean (%)", Scale::Percent),
            CurveMetric::Needles => {
                Axis::new("needles still visible (% of planted)", Scale::Percent)
            }
            CurveMetric::Compliance => Axis::new("turns within budget (%)", Scale::Percent),
            CurveMetric::Writes => Axis::new("artifact writes per turn", Scale::Linear),
        }
    }

    /// A short name for titles and file names.
    pub fn name(self) -> &'static str {
        match self {
            CurveMetric::Retention => "retention",
            CurveMetric::Needles => "needles",
            CurveMetric::Compliance => "compliance",
            CurveMetric::Writes => "writes",
        }
    }

    /// What the metric is, for titles.
    pub fn title(self) -> &'static str {
        match self {
            CurveMetric::Retention => "Retention",
            CurveMetric::Needles => "Needle survival",
            CurveMetric::Compliance => "Budget compliance",
            CurveMetric::Writes => "Artifact writes",
        }
    }
}

/// Lines of metrics against a parameter, in a grid of panels.
#[derive(Debug, Clone, PartialEq)]
pub struct Curves {
    /// The panels, row by row.
    pub panels: Vec<LinePanel>,
    /// Panels per row.
    pub columns: usize,
}

/// One point of a curve source: the parameter's value and the rows run at it.
#[derive(Debug, Clone, Copy)]
pub struct CurvePoint<'a> {
    /// The parameter (budget units, window tokens, head share).
    pub x: f64,
    /// The row.
    pub row: &'a Aggregate,
}

/// Builds panels of `metrics` (columns) by strategy family (rows): `series_of` names the line a row belongs
/// to, `names` lists the lines in order. With `bound`, the needle panels carry the upper bound of the first line
/// (the same for every strategy at a budget).
pub fn curve_panels(
    points: &[CurvePoint<'_>],
    names: &[String],
    series_of: &dyn Fn(&Aggregate) -> String,
    x: &Axis,
    metrics: &[CurveMetric],
    bound: bool,
) -> Curves {
    let groups = if names.iter().all(|n| n.parse::<StrategyName>().is_ok()) {
        strategy_groups(names)
    } else {
        vec![StrategyGroup {
            title: String::new(),
            strategies: names.to_vec(),
        }]
    };
    let line = |name: &str, value: &dyn Fn(&Aggregate) -> f64| -> Vec<(f64, f64)> {
        let mut pts: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| series_of(p.row) == name)
            .map(|p| (p.x, value(p.row)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts
    };
    let mut panels = Vec::new();
    for g in &groups {
        for &metric in metrics {
            let title = match (g.title.is_empty(), metrics.len() > 1) {
                (true, true) => metric.title().to_string(),
                (true, false) => String::new(),
                (false, true) => format!("{}: {}", metric.title(), g.title),
                (false, false) => g.title.clone(),
            };
            let bound = (bound && metric == CurveMetric::Needles)
                .then(|| names.first())
                .flatten()
                .map(|first| Series {
                    name: "upper bound (best possible allocation)".into(),
                    points: line(first, &|r| r.needles.upper_bound * 100.0),
                    baseline: false,
                });
            panels.push(LinePanel {
                title,
                x: x.clone(),
                y: metric.axis(),
                series: g
                    .strategies
                    .iter()
                    .map(|s| Series {
                        name: s.clone(),
                        points: line(s, &|r| metric.value(r)),
                        baseline: is_baseline(s),
                    })
                    .filter(|s| !s.points.is_empty())
                    .collect(),
                bound,
            });
        }
    }
    Curves {
        panels,
        columns: metrics.len(),
    }
}

/// The scenario of a run whose budgets make the best curve: the most absolute budgets (at least two), then the
/// most budgets of any kind, preferring [`PREFERRED_CURVE_SCENARIO`] on a tie.
pub fn curve_scenario(results: &RunResults) -> Option<(&WorkloadInfo, bool)> {
    let absolute = |s: &WorkloadInfo| {
        s.budgets
            .iter()
            .filter(|b| b.window_tokens.is_none())
            .count()
    };
    let best = |count: &dyn Fn(&WorkloadInfo) -> usize| {
        results
            .inputs
            .scenarios
            .iter()
            .filter(|s| count(s) >= 2)
            .max_by_key(|s| (count(s), s.name == PREFERRED_CURVE_SCENARIO))
    };
    best(&absolute)
        .map(|s| (s, true))
        .or_else(|| best(&|s| s.budgets.len()).map(|s| (s, false)))
}

/// Retention and needle survival against the budgets of one scenario of the run (see [`curve_scenario`]);
/// `None` when no scenario ran at two budgets or more.
pub fn budget_curves(results: &RunResults) -> Option<(String, Curves)> {
    let (scenario, absolute_only) = curve_scenario(results)?;
    let points: Vec<CurvePoint<'_>> = results
        .rows
        .iter()
        .filter(|r| r.scenario == scenario.name)
        .filter(|r| {
            let budget = scenario.budgets.iter().find(|b| b.label == r.budget_label);
            budget.is_some_and(|b| !absolute_only || b.window_tokens.is_none())
        })
        .filter_map(|r| {
            Some(CurvePoint {
                x: r.budget.filter(|&b| b > 0)? as f64,
                row: r,
            })
        })
        .collect();
    let x = Axis::new("budget (UTF-16 units, log scale)", Scale::Log);
    let curves = curve_panels(
        &points,
        &results.inputs.strategies,
        &|r| r.strategy.clone(),
        &x,
        &[CurveMetric::Retention, CurveMetric::Needles],
        true,
    );
    Some((scenario.name.clone(), curves))
}

/// The cost chart's data: median time per turn against the turn's size.
#[derive(Debug, Clone, PartialEq)]
pub struct CostCurves {
    /// One panel per strategy family.
    pub panels: Vec<LinePanel>,
}

/// Median cost per turn by batch size (binned by powers of two of the producers' budgeted total), one line per
/// strategy; `None` without per-batch records.
pub fn cost_curves(results: &RunResults, records: &[BatchRecord]) -> Option<CostCurves> {
    if records.is_empty() {
        return None;
    }
    let mut bins: BTreeMap<(&str, u32), Vec<u64>> = BTreeMap::new();
    for r in records {
        let bin = r.metrics.input_total.max(1).ilog2();
        bins.entry((&r.strategy, bin)).or_default().push(r.cost_ns);
    }
    let line = |strategy: &str| -> Vec<(f64, f64)> {
        bins.range((strategy, 0)..=(strategy, u32::MAX))
            .map(|(&(_, bin), costs)| {
                let centre = 2f64.powf(f64::from(bin) + 0.5);
                let median = crate::metrics::percentile(costs, 50.0);
                (centre, (median as f64 / 1000.0).max(0.01))
            })
            .collect()
    };
    let panels = strategy_groups(&results.inputs.strategies)
        .into_iter()
        .map(|g| LinePanel {
            title: g.title,
            x: Axis::new(
                "batch size: budgeted total of the producers' output (UTF-16 units, log scale)",
                Scale::Log,
            ),
            y: Axis::new("median time per turn (µs, log scale)", Scale::Log),
            series: g
                .strategies
                .iter()
                .map(|s| Series {
                    name: s.clone(),
                    points: line(s),
                    baseline: is_baseline(s),
                })
                .filter(|s| !s.points.is_empty())
                .collect(),
            bound: None,
        })
        .collect();
    Some(CostCurves { panels })
}

/// One strategy over the whole run, for the page's overview table.
#[derive(Debug, Clone, PartialEq)]
pub struct OverviewRow {
    /// The strategy.
    pub strategy: String,
    /// Turns run.
    pub turns: u64,
    /// Share of turns within budget.
    pub compliance: f64,
    /// The largest overshoot of any turn, in UTF-16 units.
    pub max_overshoot: u64,
    /// Mean of the rows' kept share per field, weighted by turns.
    pub retention: f64,
    /// Needles surviving, of planted.
    pub needles: f64,
    /// The best any allocation could do, of planted.
    pub needle_bound: f64,
    /// Successful writes.
    pub writes: u64,
    /// Duplicate writes.
    pub duplicate_writes: u64,
    /// Integrity issues.
    pub integrity: u64,
    /// Median of the rows' median costs, in nanoseconds.
    pub median_cost_ns: u64,
}

/// One row per strategy, pooled over every scenario and budget.
pub fn overview(results: &RunResults) -> Vec<OverviewRow> {
    let needles = needle_survival(results);
    results
        .inputs
        .strategies
        .iter()
        .zip(&needles.rows)
        .map(|(strategy, n)| {
            let rows: Vec<&Aggregate> = rows_of(results, strategy).collect();
            let turns: u64 = rows.iter().map(|r| r.batches).sum();
            let violations: u64 = rows.iter().map(|r| r.compliance.violations).sum();
            let weighted: f64 = rows
                .iter()
                .map(|r| r.retention.mean * r.batches as f64)
                .sum();
            let costs: Vec<u64> = rows.iter().map(|r| r.cost.median_ns).collect();
            OverviewRow {
                strategy: strategy.clone(),
                turns,
                compliance: ratio((turns - violations) as f64, turns as f64).unwrap_or(1.0),
                max_overshoot: rows
                    .iter()
                    .map(|r| r.compliance.max_overshoot)
                    .max()
                    .unwrap_or(0),
                retention: ratio(weighted, turns as f64).unwrap_or(1.0),
                needles: n.all,
                needle_bound: n.upper_bound,
                writes: rows.iter().map(|r| r.persistence.writes).sum(),
                duplicate_writes: rows.iter().map(|r| r.persistence.duplicate_writes).sum(),
                integrity: rows.iter().map(|r| r.integrity.total()).sum(),
                median_cost_ns: crate::metrics::percentile(&costs, 50.0),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
