//! What several charts' data share: lines, axes and panels, which strategies go together in a panel (`groups`),
//! five-number summaries and CDF points, the bounded tallies of single turns (`turns`) some charts are drawn
//! from, and the page's overview table (`overview`). Each chart's own data is in its file beside this folder.

mod groups;
mod overview;
mod turns;

pub use groups::{strategy_groups, StrategyGroup, MAX_SERIES_PER_PANEL};
pub use overview::{overview, OverviewRow};
pub use turns::TurnTallies;

use crate::metrics::{Aggregate, StrategyKey};
use crate::run::RunResults;

/// One line: a name and its points, in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// What the line is (a strategy, a budget label).
    pub name: String,
    /// The points (x, y).
    pub points: Vec<(f64, f64)>,
    /// Drawn as the baseline the others are compared with (the reference).
    pub baseline: bool,
    /// What the line stands for, which decides its look.
    pub kind: LineKind,
    /// The points (among `points`) of rows that broke the budget in some turn: drawn as hollow grey markers
    /// rather than the line's own, so that a point over budget never reads as a win.
    pub over_budget: Vec<(f64, f64)>,
}

/// What a line stands for, which decides its colour, marker and dash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// The strategy the series is named after: it looks the same on every chart of every report.
    Strategy,
    /// The `i`-th line of a chart whose lines are no strategies (budgets, a profile's sources).
    Other(usize),
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
    /// Whole numbers (nights), linear from the first value (no empty night 0), a tick at whole numbers only.
    Whole,
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
    /// A bound drawn dashed in grey over the lines (the needle upper bound), if any.
    pub bound: Option<Series>,
    /// Values of x marked by a thin vertical line, each with a short label at the top (the budget curves' window
    /// budgets).
    pub marks: Vec<(f64, String)>,
}

/// One panel per strategy family of the run, each with a line per strategy from `points` (the strategy's
/// points; lines without any are left out), on axes `x` and `y`.
pub(super) fn strategy_panels(
    results: &RunResults,
    x: &Axis,
    y: &Axis,
    points: &dyn Fn(&StrategyKey) -> Vec<(f64, f64)>,
) -> Vec<LinePanel> {
    strategy_groups(&results.inputs.strategies)
        .into_iter()
        .map(|g| LinePanel {
            title: g.title,
            x: x.clone(),
            y: y.clone(),
            series: g
                .strategies
                .iter()
                .map(|s| Series {
                    name: s.to_string(),
                    points: points(s),
                    baseline: s.is_reference(),
                    kind: LineKind::Strategy,
                    over_budget: Vec::new(),
                })
                .filter(|s| !s.points.is_empty())
                .collect(),
            bound: None,
            marks: Vec::new(),
        })
        .collect()
}

pub(super) fn ratio(num: f64, den: f64) -> Option<f64> {
    (den > 0.0).then(|| num / den)
}

/// The rows of `results` for `strategy`.
pub(super) fn rows_of<'a>(
    results: &'a RunResults,
    strategy: &'a StrategyKey,
) -> impl Iterator<Item = &'a Aggregate> {
    results.rows.iter().filter(move |r| r.strategy == *strategy)
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
