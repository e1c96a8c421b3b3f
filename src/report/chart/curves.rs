//! The curve charts: tracked [`Metric`]s against a budget (a run's budget curves) or a swept parameter (a
//! sweep's charts), one line per strategy or per budget, in a grid of panels.
//!
//! Metrics against budget (or a swept parameter): a grid of panels, one line per strategy with a marker at every
//! budget run, the needle upper bound dashed.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::{strategy_groups, Axis, LinePanel, Scale, Series};
use super::draw::lines::{self, Look};
use super::draw::{DrawResult, Figure};
use super::{draw, Format, Plot, Run};
use crate::error::Result;
use crate::metrics::{Aggregate, Metric, StrategyKey};
use crate::run::{RunResults, WorkloadInfo};
use crate::scenario::BudgetLabel;

/// The scenario the run's budget-curve chart prefers when several have as many budgets.
pub const PREFERRED_CURVE_SCENARIO: &str = "mixed-realistic";

/// What a curve chart draws of a row: shares in percent, counts per turn, the cost ratio, the time in µs.
fn plotted(metric: Metric, row: &Aggregate) -> Option<f64> {
    match metric {
        Metric::Compliance | Metric::Retention | Metric::Needles => {
            metric.value(row).map(|share| share * 100.0)
        }
        Metric::Count(_) => metric
            .value(row)
            .map(|count| count / row.batches.max(1) as f64),
        Metric::Cost => metric.value(row),
        Metric::Time => metric.value(row).map(|ns| ns / 1000.0),
    }
}

/// The vertical axis of `metric`'s curves.
fn axis(metric: Metric) -> Axis {
    match metric {
        Metric::Retention => Axis::new("kept share per field, mean (%)", Scale::Percent),
        Metric::Needles => Axis::new("needles still visible (% of planted)", Scale::Percent),
        Metric::Compliance => Axis::new("turns within budget (%)", Scale::Percent),
        Metric::Count(_) => Axis::new(per_turn(metric), Scale::Linear),
        Metric::Cost => Axis::new("strategy time over the floor's (x)", Scale::Linear),
        Metric::Time => Axis::new("median time per batch (µs, log scale)", Scale::Log),
    }
}

/// A counted metric's axis and caption words: its title, lower-cased, per turn (`artifact writes per turn`).
fn per_turn(metric: Metric) -> String {
    let title = metric.title();
    let mut chars = title.chars();
    let first = chars.next().map(|c| c.to_lowercase().to_string());
    format!("{}{} per turn", first.unwrap_or_default(), chars.as_str())
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

/// What the lines of a curve chart are, in drawing order.
#[derive(Debug, Clone, Copy)]
pub enum Lines<'a> {
    /// One line per strategy (a row's strategy says which), split into panels by family when there are many.
    Strategies(&'a [StrategyKey]),
    /// One line per budget (a row's budget label says which), all in one panel: a head-share sweep.
    Budgets(&'a [BudgetLabel]),
}

/// One line of a curve chart.
#[derive(Debug, Clone, Copy)]
enum Line<'a> {
    Strategy(&'a StrategyKey),
    Budget(BudgetLabel),
}

impl Line<'_> {
    /// Whether `row` is a point of this line.
    fn holds(&self, row: &Aggregate) -> bool {
        match self {
            Line::Strategy(s) => row.strategy == **s,
            Line::Budget(b) => row.budget_label == *b,
        }
    }

    fn name(&self) -> String {
        match self {
            Line::Strategy(s) => s.to_string(),
            Line::Budget(b) => b.to_string(),
        }
    }

    fn baseline(&self) -> bool {
        matches!(self, Line::Strategy(s) if s.is_reference())
    }
}

impl<'a> Lines<'a> {
    /// The lines, in order.
    fn all(self) -> Vec<Line<'a>> {
        match self {
            Lines::Strategies(s) => s.iter().map(Line::Strategy).collect(),
            Lines::Budgets(b) => b.iter().copied().map(Line::Budget).collect(),
        }
    }

    /// The panels' rows: a title and its lines. Strategies of this build go by family (see
    /// [`strategy_groups`]); lines of budgets, or of strategies this build does not know, share one row.
    fn groups(self) -> Vec<(String, Vec<Line<'a>>)> {
        match self {
            Lines::Strategies(keys) if keys.iter().all(|k| k.name().is_some()) => {
                let groups = strategy_groups(keys);
                groups
                    .into_iter()
                    .map(|g| {
                        let lines = g
                            .strategies
                            .iter()
                            .filter_map(|s| keys.iter().find(|k| *k == s))
                            .map(Line::Strategy)
                            .collect();
                        (g.title, lines)
                    })
                    .collect()
            }
            _ => vec![(String::new(), self.all())],
        }
    }
}

/// Builds panels of `metrics` (columns) by strategy family (rows), one line per entry of `lines`. With `bound`,
/// the needle panels carry the upper bound of the first line (the same for every strategy at a budget).
pub fn curve_panels(
    points: &[CurvePoint<'_>],
    lines: Lines<'_>,
    x: &Axis,
    metrics: &[Metric],
    bound: bool,
) -> Curves {
    let line = |of: &Line<'_>, value: &dyn Fn(&Aggregate) -> Option<f64>| -> Vec<(f64, f64)> {
        let mut pts: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| of.holds(p.row))
            .filter_map(|p| Some((p.x, value(p.row)?)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts
    };
    let first = lines.all().first().copied();
    let mut panels = Vec::new();
    for (group, members) in &lines.groups() {
        for &metric in metrics {
            let title = match (group.is_empty(), metrics.len() > 1) {
                (true, true) => metric.title().to_string(),
                (true, false) => String::new(),
                (false, true) => format!("{}: {group}", metric.title()),
                (false, false) => group.clone(),
            };
            let bound = (bound && metric == Metric::Needles)
                .then_some(first)
                .flatten()
                .map(|first| Series {
                    name: "upper bound (best possible allocation)".into(),
                    points: line(&first, &|r| r.needles.upper_bound.map(|u| u * 100.0)),
                    baseline: false,
                });
            panels.push(LinePanel {
                title,
                x: x.clone(),
                y: axis(metric),
                series: members
                    .iter()
                    .map(|l| Series {
                        name: l.name(),
                        points: line(l, &|r| plotted(metric, r)),
                        baseline: l.baseline(),
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
        Lines::Strategies(&results.inputs.strategies),
        &x,
        &[Metric::Retention, Metric::Needles],
        true,
    );
    Some((scenario.name.clone(), curves))
}

/// Compliance in UTF-16 units (left) and in tokens (right) against a swept parameter, one line per entry of
/// `lines`, over the rows with a token budget; `None` when no row has one (no `--token-budget`, or a share of a
/// window at budgets without one).
pub(crate) fn token_compliance_curves(
    points: &[CurvePoint<'_>],
    lines: Lines<'_>,
    x: &Axis,
) -> Option<Curves> {
    let checked: Vec<CurvePoint<'_>> = points
        .iter()
        .copied()
        .filter(|p| {
            p.row
                .tokens
                .as_ref()
                .is_some_and(|t| t.compliance.is_some())
        })
        .collect();
    if checked.is_empty() {
        return None;
    }
    let panel = |title: &str, y: &str, value: &dyn Fn(&Aggregate) -> Option<f64>| {
        let series = lines
            .all()
            .iter()
            .map(|l| {
                let mut pts: Vec<(f64, f64)> = checked
                    .iter()
                    .filter(|p| l.holds(p.row))
                    .filter_map(|p| Some((p.x, value(p.row)? * 100.0)))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                Series {
                    name: l.name(),
                    points: pts,
                    baseline: l.baseline(),
                }
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        LinePanel {
            title: title.into(),
            x: x.clone(),
            y: Axis::new(y, Scale::Percent),
            series,
            bound: None,
        }
    };
    Some(Curves {
        panels: vec![
            panel("in UTF-16 units", "turns within the budget (%)", &|r| {
                Some(r.compliance.rate)
            }),
            panel("in tokens", "turns within the token budget (%)", &|r| {
                Some(r.tokens.as_ref()?.compliance.as_ref()?.rate)
            }),
        ],
        columns: 2,
    })
}

/// The chart.
struct Grid<'a>(&'a Curves);

impl Grid<'_> {
    fn look(&self) -> Look {
        Look {
            markers: true,
            panel_width: if self.0.columns > 1 { 620 } else { 1050 },
            panel_height: 440,
        }
    }
}

impl Figure for Grid<'_> {
    fn size(&self) -> (u32, u32) {
        lines::size(&self.0.panels, self.0.columns, self.look())
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        lines::draw(area, &self.0.panels, self.0.columns, self.look())
    }
}

/// The chart of a run: its budget curves, when a scenario ran at several budgets.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    let (scenario, curves) = budget_curves(run.results)?;
    Some(Plot::new(
        format!("Retention and needle survival against budget ({scenario})"),
        format!(
            "Mean kept share per field (left) and needle survival (right) at each budget {scenario} ran at \
(log scale), one line per strategy; the dashed grey line is the needle upper bound. Lines that rise earlier do \
more with less budget. For a finer curve run `budgetlab sweep --scenario {scenario}`."
        ),
        curves,
        draw_grid,
    ))
}

/// Draws a grid of curve panels (this chart's, or another's drawn the same way).
pub(super) fn draw_grid(data: &Curves, title: &str, format: Format) -> Result<Vec<u8>> {
    draw::render(title, format, &Grid(data))
}
