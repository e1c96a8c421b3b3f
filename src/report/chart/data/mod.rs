//! The data of each chart, computed from a run's results (and the tallies of its single turns, `turns`, when
//! present) by pure functions, one file a chart: which strategies go together in a panel (`groups`), what is pooled over scenarios
//! and budgets, and every series a chart draws. No drawing here; the backends only lay these out. This file holds
//! what several charts share: lines, axes and panels.

mod compliance;
mod cost;
mod curves;
mod groups;
mod needles;
mod overshoot;
mod overview;
mod persistence;
mod retention;
mod token_compliance;
mod turns;
mod units_per_token;

pub use compliance::{compliance_grid, ComplianceGrid};
pub use cost::{cost_curves, CostCurves};
pub(crate) use curves::token_compliance_curves;
pub use curves::{
    budget_curves, curve_panels, curve_scenario, CurvePoint, Curves, Lines,
    PREFERRED_CURVE_SCENARIO, SWEEP_METRICS,
};
pub use groups::{strategy_groups, StrategyGroup, MAX_SERIES_PER_PANEL};
pub use needles::{needle_survival, NeedleRow, NeedleSurvival};
pub use overshoot::{overshoot, Overshoot, OvershootRow, Spread};
pub use overview::{overview, OverviewRow};
pub use persistence::{persistence_io, PersistenceIo, PersistenceRow};
pub use retention::{cdf_points, retention_cdf, RetentionCdf};
pub use token_compliance::{token_compliance, TokenCompliance, TokenComplianceRow};
pub use turns::TurnTallies;
pub use units_per_token::{units_per_token, TokenizerBoxes, UnitsPerToken};

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

/// One panel per strategy family of the run, each with a line per strategy from `points` (the strategy's
/// points; lines without any are left out), on axes `x` and `y`.
fn strategy_panels(
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
                })
                .filter(|s| !s.points.is_empty())
                .collect(),
            bound: None,
        })
        .collect()
}

fn ratio(num: f64, den: f64) -> Option<f64> {
    (den > 0.0).then(|| num / den)
}

/// The rows of `results` for `strategy`.
fn rows_of<'a>(
    results: &'a RunResults,
    strategy: &'a StrategyKey,
) -> impl Iterator<Item = &'a Aggregate> {
    results.rows.iter().filter(move |r| r.strategy == *strategy)
}

#[cfg(test)]
mod tests;
