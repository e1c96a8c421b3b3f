//! The curve charts: tracked [`Metric`]s against a budget (a run's budget curves) or a swept parameter (a
//! sweep's charts), one line per strategy or per budget, in a grid of panels.
//!
//! Metrics against budget (or a swept parameter): a grid of panels, one line per strategy in its own look with a
//! marker at every budget run, the needle upper bound dashed grey over the lines. The run's budget curves draw
//! every budget of their scenario at its UTF-16 units, window budgets included and marked (see
//! [`curve_budgets`] for the few it cannot draw, which the caption names).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::{strategy_groups, Axis, LineKind, LinePanel, Scale, Series};
use super::draw::lines::{self, Look};
use super::draw::style::number;
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Format, Plot, Run};
use crate::error::Result;
use crate::metrics::{Aggregate, Metric, StrategyKey};
use crate::run::{RunResults, WorkloadInfo};
use crate::scenario::{BudgetLabel, ScenarioBudget};

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

/// The points of a line, in x order.
type Points = Vec<(f64, f64)>;

/// One line of a curve chart: a strategy, or a budget with its place among the chart's budgets.
#[derive(Debug, Clone, Copy)]
enum Line<'a> {
    Strategy(&'a StrategyKey),
    Budget(BudgetLabel, usize),
}

impl Line<'_> {
    /// Whether `row` is a point of this line.
    fn holds(&self, row: &Aggregate) -> bool {
        match self {
            Line::Strategy(s) => row.strategy == **s,
            Line::Budget(b, _) => row.budget_label == *b,
        }
    }

    fn name(&self) -> String {
        match self {
            Line::Strategy(s) => s.to_string(),
            Line::Budget(b, _) => b.to_string(),
        }
    }

    fn baseline(&self) -> bool {
        matches!(self, Line::Strategy(s) if s.is_reference())
    }

    fn kind(&self) -> LineKind {
        match self {
            Line::Strategy(_) => LineKind::Strategy,
            Line::Budget(_, i) => LineKind::Other(*i),
        }
    }

    /// The line as a series of `points`, `over_budget` those of rows over budget.
    fn series(&self, (points, over_budget): (Points, Points)) -> Series {
        Series {
            name: self.name(),
            points,
            baseline: self.baseline(),
            kind: self.kind(),
            over_budget,
        }
    }
}

impl<'a> Lines<'a> {
    /// The lines, in order.
    fn all(self) -> Vec<Line<'a>> {
        match self {
            Lines::Strategies(s) => s.iter().map(Line::Strategy).collect(),
            Lines::Budgets(b) => b
                .iter()
                .enumerate()
                .map(|(i, &b)| Line::Budget(b, i))
                .collect(),
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
    // A line's points in x order, and those of its rows over budget.
    let line = |of: &Line<'_>, value: &dyn Fn(&Aggregate) -> Option<f64>| {
        let mut pts: Vec<(f64, f64, bool)> = points
            .iter()
            .filter(|p| of.holds(p.row))
            .filter_map(|p| Some((p.x, value(p.row)?, p.row.compliance.violations > 0)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let over = pts.iter().filter(|p| p.2).map(|p| (p.0, p.1)).collect();
        (pts.into_iter().map(|p| (p.0, p.1)).collect(), over)
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
                    points: line(&first, &|r| r.needles.upper_bound.map(|u| u * 100.0)).0,
                    baseline: false,
                    kind: LineKind::Other(0),
                    over_budget: Vec::new(),
                })
                .filter(|b| !b.points.is_empty());
            panels.push(LinePanel {
                title,
                x: x.clone(),
                y: axis(metric),
                series: members
                    .iter()
                    .map(|l| l.series(line(l, &|r| plotted(metric, r))))
                    .filter(|s| !s.points.is_empty())
                    .collect(),
                bound,
                marks: Vec::new(),
            });
        }
    }
    Curves {
        panels,
        columns: metrics.len(),
    }
}

/// The budgets of `scenario` a budget curve draws, by units, and those it leaves out with why: every budget is
/// drawn at its UTF-16 units (a window budget is one more budget in units) but one of 0 units, which a log scale
/// has no place for, and one with the units of a budget already drawn (an absolute one first), whose points
/// would sit at the same x.
pub fn curve_budgets(
    scenario: &WorkloadInfo,
) -> (Vec<ScenarioBudget>, Vec<(ScenarioBudget, String)>) {
    let mut sorted: Vec<&ScenarioBudget> = scenario.budgets.iter().collect();
    sorted.sort_by_key(|b| (b.units, b.window_tokens.is_some()));
    let mut drawn: Vec<ScenarioBudget> = Vec::new();
    let mut left_out = Vec::new();
    for budget in sorted {
        if budget.units == 0 {
            left_out.push((budget.clone(), "0 units has no place on a log scale".into()));
        } else if let Some(same) = drawn.iter().find(|d| d.units == budget.units) {
            left_out.push((
                budget.clone(),
                format!(
                    "the same {} units as {}, which is drawn",
                    grouped(budget.units),
                    same.label
                ),
            ));
        } else {
            drawn.push(budget.clone());
        }
    }
    (drawn, left_out)
}

/// The scenario of a run whose budgets make the best curve: the most budgets drawn (at least two, see
/// [`curve_budgets`]), preferring [`PREFERRED_CURVE_SCENARIO`] on a tie.
pub fn curve_scenario(results: &RunResults) -> Option<&WorkloadInfo> {
    results
        .inputs
        .scenarios
        .iter()
        .map(|s| (s, curve_budgets(s).0.len()))
        .filter(|(_, drawn)| *drawn >= 2)
        .max_by_key(|(s, drawn)| (*drawn, s.name == PREFERRED_CURVE_SCENARIO))
        .map(|(s, _)| s)
}

/// A run's budget curves: the scenario they follow, which of its budgets they draw and which they leave out.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetCurves {
    /// The scenario.
    pub scenario: String,
    /// Its budgets drawn, by units.
    pub drawn: Vec<ScenarioBudget>,
    /// Its budgets left out, each with why.
    pub left_out: Vec<(ScenarioBudget, String)>,
    /// The panels: retention and needle survival against the budget, the window budgets marked.
    pub curves: Curves,
}

/// Retention and needle survival against the budgets of one scenario of the run (see [`curve_scenario`]), each
/// budget drawn at its units and the window budgets marked; `None` when no scenario ran at two budgets or more.
pub fn budget_curves(results: &RunResults) -> Option<BudgetCurves> {
    let scenario = curve_scenario(results)?;
    let (drawn, left_out) = curve_budgets(scenario);
    let points: Vec<CurvePoint<'_>> = results
        .rows
        .iter()
        .filter(|r| r.scenario == scenario.name)
        .filter_map(|r| {
            let budget = drawn.iter().find(|b| b.label == r.budget_label)?;
            Some(CurvePoint {
                x: budget.units as f64,
                row: r,
            })
        })
        .collect();
    let x = Axis::new("budget (UTF-16 units, log scale)", Scale::Log);
    let mut curves = curve_panels(
        &points,
        Lines::Strategies(&results.inputs.strategies),
        &x,
        &[Metric::Retention, Metric::Needles],
        true,
    );
    let marks: Vec<(f64, String)> = drawn
        .iter()
        .filter_map(|b| {
            Some((
                b.units as f64,
                format!("{}-token window", number(b.window_tokens? as f64)),
            ))
        })
        .collect();
    for panel in &mut curves.panels {
        panel.marks = marks.clone();
    }
    Some(BudgetCurves {
        scenario: scenario.name.clone(),
        drawn,
        left_out,
        curves,
    })
}

/// `n` with a comma between thousands: `4,800`.
fn grouped(n: u64) -> String {
    crate::gate::markdown::count(n as usize)
}

/// What the budget curves' caption says of the budgets: each drawn, by units (naming the window budgets), and
/// each left out with why.
fn budgets_drawn(curves: &BudgetCurves) -> String {
    let one = |b: &ScenarioBudget| match b.window_tokens {
        Some(tokens) => format!(
            "{} ({}, the budget of a {}-token window)",
            grouped(b.units),
            b.label,
            grouped(tokens)
        ),
        None => grouped(b.units),
    };
    let list = |items: Vec<String>| match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.concat(),
    };
    let mut out = format!(
        "at each of its {} budgets drawn: {} UTF-16 units",
        curves.drawn.len(),
        list(curves.drawn.iter().map(one).collect())
    );
    if !curves.left_out.is_empty() {
        out.push_str(&format!(
            ". Not drawn: {}",
            list(
                curves
                    .left_out
                    .iter()
                    .map(|(b, why)| format!("{} ({why})", b.label))
                    .collect()
            )
        ));
    }
    out
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
                l.series((pts, Vec::new()))
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        LinePanel {
            title: title.into(),
            x: x.clone(),
            y: Axis::new(y, Scale::Percent),
            series,
            bound: None,
            marks: Vec::new(),
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

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        lines::draw(area, &self.0.panels, self.0.columns, self.look())
    }
}

/// The chart of a run: its budget curves, when a scenario ran at several budgets.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    let curves = budget_curves(run.results)?;
    let scenario = curves.scenario.clone();
    let windows = if curves.drawn.iter().any(|b| b.window_tokens.is_some()) {
        " A thin vertical line marks each window budget."
    } else {
        ""
    };
    Some(Plot::new(
        format!("Retention and needle survival against budget ({scenario})"),
        format!(
            "Mean kept share per field (left) and needle survival (right) of {scenario} {} (log scale), one \
line per strategy, each strategy in its own colour, marker and dash as on every chart; the dashed grey line over \
them is the needle upper bound (the most any allocation of the budget could keep).{windows} Lines that rise \
earlier do more with less budget. A hollow grey circle in place of a line's marker: the strategy broke the budget \
in some turn there, so what it kept there is not a win. Lines drawn on the same pixels show as one, and the panel names them in the \
corner its lines leave free (\"one line: ...\"). For a finer curve run `budgetlab sweep --scenario {scenario}`.",
            budgets_drawn(&curves)
        ),
        curves.curves,
        draw_grid,
    ))
}

/// Draws a grid of curve panels (this chart's, or another's drawn the same way).
pub(super) fn draw_grid(data: &Curves, title: &str, format: Format) -> Result<draw::Drawn> {
    draw::render(title, format, &Grid(data))
}
