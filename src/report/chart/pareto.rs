//! The Pareto chart: what each strategy keeps against what it spends, for one scenario at each of its budgets.
//!
//! One row of two scatter panels per budget of the scenario the budget curves show ([`curve_scenario`], else the
//! run's first): needle survival (mean kept share per field where no needle was planted) against KiB written per
//! turn (left) and against the strategy's time over the floor's (right). The fronts are those of
//! [`crate::metrics::pareto`]: ringed, named and joined by a step line; strategies that kept the budget but are
//! beaten are filled dots, named where there is room; strategies over budget are hollow grey dots, on no front.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::curves::curve_scenario;
use super::data::{Axis, Scale};
use super::draw::axis::{nice_step, ScaleCoord};
use super::draw::style::{self, number, LEGEND, PANEL_TITLE, SMALL};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Plot, Run};
use crate::metrics::pareto::{pareto, ParetoPoint, ParetoView, Spend};
use crate::metrics::ranking::RankedBy;
use crate::metrics::StrategyKey;
use crate::report::answer::budget_text;
use crate::run::RunResults;

/// The chart's file name.
pub const STEM: &str = "pareto";

/// At most this many strategies are named at one point; the rest are counted.
const NAMED: usize = 2;

/// The Pareto chart's data: one scenario, a row of panels per budget.
#[derive(Debug, Clone, PartialEq)]
pub struct ParetoChart {
    /// The scenario.
    pub scenario: String,
    /// The run's strategies, in run order (what the colours follow).
    pub strategies: Vec<StrategyKey>,
    /// One row per budget, in the run's order.
    pub rows: Vec<BudgetRow>,
}

/// The panels of one budget.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetRow {
    /// The budget in UTF-16 units, and its context window: `4,800 (16k window)`.
    pub budget: String,
    /// Against KiB written per turn, then against time over the floor.
    pub panels: Vec<ScatterPanel>,
}

/// What a strategy kept against what it spent, at one budget.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterPanel {
    /// The panel's title.
    pub title: String,
    /// What the horizontal axis measures.
    pub spend: Spend,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis (needles, or kept per field where no needle was planted).
    pub y: Axis,
    /// The points: the front least spent first, then those beaten, then those over budget, each in the rows'
    /// order.
    pub points: Vec<ScatterPoint>,
}

/// One point: the strategies at it (several when they are at the same place and of the same kind).
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterPoint {
    /// The strategies, in the rows' order.
    pub strategies: Vec<StrategyKey>,
    /// What they spend: KiB per turn, or times the floor.
    pub x: f64,
    /// What they keep, in percent.
    pub y: f64,
    /// Their place among the trade-offs.
    pub mark: Mark,
    /// Their names (the first few, the rest counted), with the kept share per field where a point of the front
    /// keeps as many needles as another.
    pub label: String,
}

/// A point's place among the trade-offs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// On the front: kept the budget, and no other that did beats it on both.
    Front,
    /// Kept the budget, beaten on both by one on the front.
    Beaten,
    /// Broke the budget in some turn: on no front.
    OverBudget,
}

impl ScatterPanel {
    /// The front's points, least spent first.
    pub fn front(&self) -> Vec<(f64, f64)> {
        self.points
            .iter()
            .filter(|p| p.mark == Mark::Front)
            .map(|p| (p.x, p.y))
            .collect()
    }

    /// The step line through the front: from each point across to the next one's spend, then up to it (what the
    /// least spend buys).
    pub fn step(&self) -> Vec<(f64, f64)> {
        let front = self.front();
        let mut line = Vec::with_capacity(front.len() * 2);
        for (i, &(x, y)) in front.iter().enumerate() {
            line.push((x, y));
            if let Some(&(next, _)) = front.get(i + 1) {
                line.push((next, y));
            }
        }
        line
    }
}

/// The chart's data: the Pareto views of one scenario of the run (see the module), `None` when it has nothing to
/// draw.
pub fn pareto_chart(results: &RunResults) -> Option<ParetoChart> {
    let scenario = curve_scenario(results).or_else(|| results.inputs.scenarios.first())?;
    let rows: Vec<BudgetRow> = pareto(&results.rows)
        .iter()
        .filter(|v| v.scenario == scenario.name)
        .filter_map(|v| {
            let units = results
                .rows
                .iter()
                .find(|r| r.scenario == v.scenario && r.budget_label == v.budget)
                .and_then(|r| r.budget);
            let budget = budget_text(results, &v.scenario, &v.budget, units);
            let panels: Vec<ScatterPanel> = Spend::ALL
                .iter()
                .map(|&spend| panel(v, spend, &budget))
                .collect();
            panels
                .iter()
                .any(|p| !p.points.is_empty())
                .then_some(BudgetRow { budget, panels })
        })
        .collect();
    (!rows.is_empty()).then(|| ParetoChart {
        scenario: scenario.name.clone(),
        strategies: results.inputs.strategies.clone(),
        rows,
    })
}

/// What a point spends on the chart's axis: KiB per turn, or times the floor.
fn x_of(spend: Spend, p: &ParetoPoint) -> Option<f64> {
    match spend {
        Spend::Bytes => spend.of(p).map(|b| b / 1024.0),
        Spend::Cost => spend.of(p),
    }
}

fn panel(v: &ParetoView, spend: Spend, budget: &str) -> ScatterPanel {
    let placed = |p: &ParetoPoint| Some((x_of(spend, p)?, v.kept(p)? * 100.0));
    let mark = |p: &ParetoPoint| {
        if spend.on(p) {
            Mark::Front
        } else if p.kept_budget {
            Mark::Beaten
        } else {
            Mark::OverBudget
        }
    };
    // The front least spent first, then the others in the rows' order.
    let mut ordered: Vec<&ParetoPoint> = v.front(spend);
    ordered.extend(v.points.iter().filter(|p| mark(p) == Mark::Beaten));
    ordered.extend(v.points.iter().filter(|p| mark(p) == Mark::OverBudget));
    let mut drawn: Vec<(&ParetoPoint, f64, f64, Mark)> = ordered
        .into_iter()
        .filter_map(|p| placed(p).map(|(x, y)| (p, x, y, mark(p))))
        .collect();
    // The cost axis spans the strategies that kept the budget: one over budget beyond them is left out (a few over
    // budget at many times the floor would squeeze the front into a corner).
    let kept_x: Vec<f64> = drawn
        .iter()
        .filter(|d| d.3 != Mark::OverBudget)
        .map(|d| d.1)
        .collect();
    if spend == Spend::Cost && !kept_x.is_empty() {
        let lo = kept_x.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = kept_x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        drawn.retain(|d| d.3 != Mark::OverBudget || (lo..=hi).contains(&d.1));
    }
    // Points at the same place and of the same kind are one.
    let mut points: Vec<(Vec<&ParetoPoint>, f64, f64, Mark)> = Vec::new();
    for (p, x, y, m) in drawn {
        match points.iter_mut().find(|q| q.1 == x && q.2 == y && q.3 == m) {
            Some(q) => q.0.push(p),
            None => points.push((vec![p], x, y, m)),
        }
    }
    let front: Vec<(f64, Option<f64>)> = points
        .iter()
        .filter(|q| q.3 == Mark::Front)
        .map(|q| (q.2, q.0[0].retention))
        .collect();
    let points = points
        .into_iter()
        .map(|(at, x, y, mark)| {
            let names: Vec<&str> = at.iter().map(|p| p.strategy.as_str()).collect();
            let mut label = names[..names.len().min(NAMED)].join(", ");
            if names.len() > NAMED {
                label.push_str(&format!(" (+{} more)", names.len() - NAMED));
            }
            // Two on the front with as many needles: the one spending more keeps more per field; say how much,
            // with as many decimals as tell them apart.
            let alike: Vec<Option<f64>> = front.iter().filter(|f| f.0 == y).map(|f| f.1).collect();
            if mark == Mark::Front && v.by == RankedBy::Needles && alike.len() > 1 {
                if let Some(kept) = apart(at[0].retention, &alike) {
                    label.push_str(&format!(" · {kept} per field"));
                }
            }
            ScatterPoint {
                strategies: at.iter().map(|p| p.strategy.clone()).collect(),
                x,
                y,
                mark,
                label,
            }
        })
        .collect::<Vec<_>>();
    let (x, what) = match spend {
        Spend::Bytes => (
            Axis::new("KiB written to artifacts per turn", Scale::Linear),
            "KiB written",
        ),
        Spend::Cost => {
            let xs = || points.iter().map(|p| p.x).filter(|&x| x > 0.0);
            let lo = xs().fold(f64::INFINITY, f64::min);
            let hi = xs().fold(f64::NEG_INFINITY, f64::max);
            let axis = if hi / lo > 3.0 {
                Axis::new("time over the floor's (x, log scale)", Scale::Log)
            } else {
                Axis::new("time over the floor's (x)", Scale::Linear)
            };
            (axis, "cost / floor")
        }
    };
    let y = match v.by {
        RankedBy::Needles => Axis::new("needles kept (% of planted)", Scale::Percent),
        RankedBy::Retention => Axis::new("kept share per field, mean (%)", Scale::Percent),
    };
    // `4,800 (16k window)` reads `4,800 units (16k window)`.
    let budget = match budget.split_once(" (") {
        Some((units, window)) => format!("{units} units ({window}"),
        None => format!("{budget} units"),
    };
    ScatterPanel {
        title: format!("{budget}: against {what}"),
        spend,
        x,
        y,
        points,
    }
}

/// `share` as a percentage with as few decimals (one to three) as tell it from each of `others` that differs
/// from it; `None` when three do not.
fn apart(share: Option<f64>, others: &[Option<f64>]) -> Option<String> {
    let share = share?;
    let text = |x: f64, d: usize| format!("{:.d$}%", x * 100.0);
    (1..=3).find_map(|d| {
        let mine = text(share, d);
        others
            .iter()
            .flatten()
            .filter(|&&o| o != share)
            .all(|&o| text(o, d) != mine)
            .then_some(mine)
    })
}

/// A strategy's colour on this chart: its colour on every chart ([`style::strategy`]), the reference black.
fn colour(strategy: &StrategyKey) -> RGBColor {
    style::strategy(strategy.as_str()).colour
}

/// Grey of the strategies over budget.
const OVER: RGBColor = RGBColor(150, 150, 150);
/// Width and height of one panel.
const PANEL_W: u32 = 700;
const PANEL_H: u32 = 350;
/// Height of the legend strip above the panels.
const LEGEND_H: u32 = 44;
/// Radius of a point, and of the ring around one on the front.
const DOT: u32 = 5;
const RING: u32 = 10;

/// The chart.
struct Scatter<'a>(&'a ParetoChart);

impl Figure for Scatter<'_> {
    fn size(&self) -> (u32, u32) {
        // Beside the panels: the page's title and margins (about 50 pixels) and a little room below.
        (
            2 * PANEL_W + 20,
            LEGEND_H + self.0.rows.len() as u32 * PANEL_H + 70,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        let (legend, rest) = area.split_vertically(LEGEND_H);
        draw_legend(&legend)?;
        let rows = self.0.rows.len();
        let (panels, _) = rest.split_vertically(rows as u32 * PANEL_H);
        let cells = panels.split_evenly((rows.max(1), 2));
        for (row, cells) in self.0.rows.iter().zip(cells.chunks(2)) {
            for (panel, cell) in row.panels.iter().zip(cells) {
                draw_panel(cell, panel)?;
            }
        }
        Ok(Marks::default())
    }
}

/// The marks' legend, in one line.
fn draw_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let entries = [
        "on the front (named)",
        "the front's step: the most kept for the least spent",
        "kept the budget, beaten",
        "over budget (never on a front)",
    ];
    let y = (LEGEND_H / 2) as i32 - 4;
    let mut x = 60;
    for (i, label) in entries.iter().enumerate() {
        let c = (x + 14, y);
        match i {
            0 => {
                area.draw(&Circle::new(c, 6, style::palette(0).filled()))?;
                area.draw(&Circle::new(
                    c,
                    RING,
                    ShapeStyle::from(&style::INK).stroke_width(2),
                ))?;
            }
            1 => area.draw(&PathElement::new(
                vec![
                    (x, y + 6),
                    (x + 14, y + 6),
                    (x + 14, y - 6),
                    (x + 28, y - 6),
                ],
                ShapeStyle::from(&style::INK).stroke_width(2),
            ))?,
            2 => area.draw(&Circle::new(c, DOT, style::palette(0).filled()))?,
            _ => area.draw(&Circle::new(
                c,
                DOT,
                ShapeStyle::from(&OVER).stroke_width(2),
            ))?,
        }
        area.draw_text(
            label,
            &style::anchored(LEGEND, HPos::Left, VPos::Center, style::INK),
            (x + 36, y),
        )?;
        x += 36 + style::label_width(std::iter::once(*label), LEGEND, 40) as i32;
    }
    Ok(())
}

/// The horizontal axis of a panel: KiB from 0, or times the floor on a log scale, or linear around the values
/// when they are close.
fn x_axis(panel: &ScatterPanel) -> ScaleCoord {
    let xs = || panel.points.iter().map(|p| p.x);
    let axis = match (panel.spend, panel.x.scale) {
        (Spend::Cost, Scale::Linear) => {
            let lo = xs().fold(f64::INFINITY, f64::min);
            let hi = xs().fold(f64::NEG_INFINITY, f64::max);
            let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (1.0, 1.0) };
            let step = nice_step(((hi - lo) / 5.0).max(hi.abs() * 0.01)).max(0.01);
            let from = (lo / step).floor() * step;
            let to = ((hi / step).ceil() * step).max(from + step);
            ScaleCoord::linear(from, to, step, step / 2.0)
        }
        (_, scale) => ScaleCoord::fit(scale, xs()),
    };
    axis.widened(0.04)
}

fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, panel: &ScatterPanel) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (title, rest) = area.split_vertically(34);
    let (w, _) = title.dim_in_pixel();
    title.draw_text(
        &panel.title,
        &style::anchored(PANEL_TITLE, HPos::Center, VPos::Top, style::INK),
        (w as i32 / 2, 4),
    )?;
    let y = ScaleCoord::fit(panel.y.scale, panel.points.iter().map(|p| p.y)).widened(0.05);
    let mut chart = ChartBuilder::on(&rest)
        .margin(8)
        .margin_right(24)
        .x_label_area_size(58)
        .y_label_area_size(84)
        .build_cartesian_2d(x_axis(panel), y)?;
    style::mesh(&mut chart)
        .x_desc(panel.x.label.as_str())
        .y_desc(panel.y.label.as_str())
        .x_label_formatter(&|v| number(*v))
        .y_label_formatter(&|v| number(*v))
        .draw()?;
    let step = panel.step();
    if step.len() > 1 {
        chart.draw_series(LineSeries::new(
            step,
            ShapeStyle::from(&style::INK.mix(0.8)).stroke_width(2),
        ))?;
    }
    let of = |mark: Mark| panel.points.iter().filter(move |p| p.mark == mark);
    let colour_of = |p: &ScatterPoint| colour(&p.strategies[0]);
    chart.draw_series(
        of(Mark::OverBudget)
            .map(|p| Circle::new((p.x, p.y), DOT, ShapeStyle::from(&OVER).stroke_width(2))),
    )?;
    chart.draw_series(
        of(Mark::Beaten).map(|p| Circle::new((p.x, p.y), DOT, colour_of(p).filled())),
    )?;
    for p in of(Mark::Front) {
        chart.draw_series([
            Circle::new((p.x, p.y), DOT + 1, colour_of(p).filled()),
            Circle::new(
                (p.x, p.y),
                RING,
                ShapeStyle::from(&style::INK).stroke_width(2),
            ),
        ])?;
    }
    // Labels, in pixels of this area: the front's always, the others' where they touch no point and no label.
    let (base_x, base_y) = rest.get_base_pixel();
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let radius = |p: &ScatterPoint| {
        if p.mark == Mark::Front {
            RING as i32 + 1
        } else {
            DOT as i32 + 1
        }
    };
    // What a label should not cover: the points and the step line's segments.
    let mut marks: Vec<[i32; 4]> = panel
        .points
        .iter()
        .map(|p| {
            let (px, py) = chart.backend_coord(&(p.x, p.y));
            let r = radius(p);
            [px - r, py - r, px + r, py + r]
        })
        .collect();
    let step: Vec<(i32, i32)> = panel
        .step()
        .iter()
        .map(|p| chart.backend_coord(p))
        .collect();
    marks.extend(step.windows(2).map(|s| {
        let ((x0, y0), (x1, y1)) = (s[0], s[1]);
        [
            x0.min(x1) - 1,
            y0.min(y1) - 1,
            x0.max(x1) + 1,
            y0.max(y1) + 1,
        ]
    }));
    let order: Vec<&ScatterPoint> = of(Mark::Front)
        .chain(of(Mark::Beaten))
        .chain(of(Mark::OverBudget))
        .collect();
    let labels: Vec<Label> = order
        .iter()
        .map(|p| {
            let lines: Vec<String> = p.label.split(" · ").map(str::to_string).collect();
            let w = style::label_width(lines.iter().map(String::as_str), SMALL, 0) as i32;
            Label {
                at: chart.backend_coord(&(p.x, p.y)),
                gap: radius(p) + 3,
                size: (w, lines.len() as i32 * LINE),
                lines,
                must: p.mark == Mark::Front,
            }
        })
        .collect();
    let bounds = [xr.start, yr.start, xr.end, yr.end];
    for ((p, label), spot) in order
        .iter()
        .zip(&labels)
        .zip(place(&labels, &marks, bounds))
    {
        let Some((b, hpos)) = spot else {
            continue;
        };
        let ink = match p.mark {
            Mark::Front => style::INK,
            Mark::Beaten => style::MUTED,
            Mark::OverBudget => OVER,
        };
        let x = match hpos {
            HPos::Left => b[0],
            HPos::Right => b[2],
            HPos::Center => (b[0] + b[2]) / 2,
        };
        for (i, line) in label.lines.iter().enumerate() {
            rest.draw_text(
                line,
                &style::anchored(SMALL, hpos, VPos::Top, ink),
                (x - base_x, b[1] + i as i32 * LINE - base_y),
            )?;
        }
    }
    Ok(())
}

/// Height of a label's line.
pub(super) const LINE: i32 = SMALL as i32 + 3;
/// Room kept between two labels.
const PAD: i32 = 3;
/// How many label heights above or below its point a label that must be drawn may go.
const FAR: i32 = 4;

/// A point's label to place, in pixels.
pub(super) struct Label {
    /// Its lines.
    pub(super) lines: Vec<String>,
    /// The point.
    pub(super) at: (i32, i32),
    /// Room left around the point (its mark's radius and a little).
    pub(super) gap: i32,
    /// Width and height.
    pub(super) size: (i32, i32),
    /// Drawn even where it covers something (a point of the front).
    pub(super) must: bool,
}

/// Where each of `labels` goes, in order (a box, and how its lines align in it): beside, above or below its
/// point, inside `bounds`, where it covers none of the `marks` (points, lines) and no label placed before it
/// (nor comes within [`PAD`] of one). A label that must be drawn and would cover another label beside its point
/// tries a few places further up and down ([`FAR`] label heights at most) on either side, so that names of points
/// close together never print over each other; if still none is free it goes where it covers fewest, other
/// labels counting most, and where no place beside it is inside `bounds`, the one right of it moved back inside.
/// A label that need not be drawn and finds no free place is left out.
pub(super) fn place(
    labels: &[Label],
    marks: &[[i32; 4]],
    bounds: [i32; 4],
) -> Vec<Option<([i32; 4], HPos)>> {
    let overlap =
        |a: &[i32; 4], b: &[i32; 4]| a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
    let mut placed: Vec<[i32; 4]> = Vec::new();
    labels
        .iter()
        .map(|l| {
            let ((px, py), g, (w, h)) = (l.at, l.gap, l.size);
            let candidates = [
                ([px + g, py - h / 2, px + g + w, py + h - h / 2], HPos::Left),
                (
                    [px - g - w, py - h / 2, px - g, py + h - h / 2],
                    HPos::Right,
                ),
                (
                    [px - w / 2, py - g - h, px + w - w / 2, py - g],
                    HPos::Center,
                ),
                (
                    [px - w / 2, py + g, px + w - w / 2, py + g + h],
                    HPos::Center,
                ),
                ([px + g / 2, py - g - h, px + g / 2 + w, py - g], HPos::Left),
                ([px + g / 2, py + g, px + g / 2 + w, py + g + h], HPos::Left),
                (
                    [px - g / 2 - w, py - g - h, px - g / 2, py - g],
                    HPos::Right,
                ),
                (
                    [px - g / 2 - w, py + g, px - g / 2, py + g + h],
                    HPos::Right,
                ),
            ];
            let inside = |b: &[i32; 4]| {
                b[0] >= bounds[0] && b[1] >= bounds[1] && b[2] <= bounds[2] && b[3] <= bounds[3]
            };
            // What a place covers: other labels (and a little room around them) count most, then marks (its own
            // point is never under it).
            let covers = |b: &[i32; 4]| {
                let roomy = [b[0] - PAD, b[1] - PAD, b[2] + PAD, b[3] + PAD];
                1000 * placed.iter().filter(|t| overlap(&roomy, t)).count()
                    + marks.iter().filter(|t| overlap(b, t)).count()
            };
            let mut best = candidates
                .iter()
                .filter(|c| inside(&c.0))
                .min_by_key(|c| covers(&c.0))
                .copied();
            if l.must && best.is_some_and(|c| covers(&c.0) >= 1000) {
                // Beside the point it would cover another label: step up and down, right then left of it.
                let far = (1..=FAR).flat_map(|k| {
                    let d = k * (h + PAD);
                    [
                        (
                            [px + g, py - h / 2 - d, px + g + w, py + h - h / 2 - d],
                            HPos::Left,
                        ),
                        (
                            [px + g, py - h / 2 + d, px + g + w, py + h - h / 2 + d],
                            HPos::Left,
                        ),
                        (
                            [px - g - w, py - h / 2 - d, px - g, py + h - h / 2 - d],
                            HPos::Right,
                        ),
                        (
                            [px - g - w, py - h / 2 + d, px - g, py + h - h / 2 + d],
                            HPos::Right,
                        ),
                    ]
                });
                if let Some(c) = far.filter(|c| inside(&c.0)).min_by_key(|c| covers(&c.0)) {
                    if best.is_none_or(|b| covers(&c.0) < covers(&b.0)) {
                        best = Some(c);
                    }
                }
            }
            let spot = match best {
                Some(c) if covers(&c.0) == 0 || l.must => Some(c),
                // No place beside it inside the panel: right of it, moved back inside, never into the next panel.
                None if l.must => {
                    let b = candidates[0].0;
                    let dx = (bounds[2] - b[2]).min(0).max(bounds[0] - b[0]);
                    let dy = (bounds[3] - b[3]).min(0).max(bounds[1] - b[1]);
                    Some(([b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy], HPos::Left))
                }
                _ => None,
            };
            if let Some((b, _)) = spot {
                placed.push(b);
            }
            spot
        })
        .collect()
}

/// The chart of a run.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    let data = pareto_chart(run.results)?;
    let scenario = data.scenario.clone();
    Some(Plot::new(
        format!("What each strategy keeps for what it spends ({scenario})"),
        format!(
            "One row per budget {scenario} ran at: needles kept (up; the mean kept share per field where no needle \
was planted) against KiB written to artifacts per turn (left) and against the strategy's time over the floor's \
(right). Ringed, named and joined by a step line: the Pareto front, the strategies that kept the budget in every \
turn and that no other such strategy beats on both at once; where two on it keep as many needles, the one \
spending more keeps more of each field, and its label says how much. Filled dots kept the budget but are beaten \
(named where there is room). Hollow grey dots broke the budget in some turn and are never on a front: they spend \
less by sending more than the budget allows; on the right, one beyond the cost of every strategy that kept the \
budget is left out. Colour follows the strategy (the reference black). The cost front rests on timings and may \
differ between runs. Every scenario's fronts are in the table What each strategy keeps for what it spends."
        ),
        data,
        |data, title, format| draw::render(title, format, &Scatter(data)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::pareto::tests::{small_run, with_figures, FIGURES};

    fn marked(panel: &ScatterPanel, mark: Mark) -> Vec<Vec<&str>> {
        panel
            .points
            .iter()
            .filter(|p| p.mark == mark)
            .map(|p| p.strategies.iter().map(|s| s.as_str()).collect())
            .collect()
    }

    #[test]
    fn the_charts_data_holds_exactly_the_front_of_each_budget() {
        let results = small_run();
        let chart = pareto_chart(&results).unwrap();
        assert_eq!(chart.scenario, "surrogate-storm");
        let views = pareto(&results.rows);
        assert_eq!(chart.rows.len(), views.len());
        for (row, view) in chart.rows.iter().zip(&views) {
            assert_eq!(row.panels.len(), 2);
            for (panel, spend) in row.panels.iter().zip(Spend::ALL) {
                assert_eq!(panel.spend, spend);
                let front: Vec<&str> = marked(panel, Mark::Front).concat();
                let expected: Vec<&str> = view
                    .front(spend)
                    .iter()
                    .map(|p| p.strategy.as_str())
                    .collect();
                assert_eq!(front, expected, "{}", panel.title);
                // No strategy over budget is on it, and every one that kept the budget is beaten or on it.
                for p in &view.points {
                    let at = panel
                        .points
                        .iter()
                        .find(|q| q.strategies.contains(&p.strategy));
                    if !p.kept_budget {
                        assert!(at.is_none_or(|q| q.mark == Mark::OverBudget));
                    } else {
                        let mark = at.unwrap().mark;
                        assert_eq!(mark == Mark::Front, spend.on(p), "{}", p.strategy);
                    }
                }
            }
        }
    }

    #[test]
    fn a_beaten_strategy_is_never_marked_and_one_over_budget_is_hollow_or_left_out() {
        let chart = pareto_chart(&with_figures(small_run(), FIGURES)).unwrap();
        let [bytes, cost] = &chart.rows[0].panels[..] else {
            panic!("two panels")
        };
        assert_eq!(chart.rows[0].budget, "1,000");
        assert_eq!(bytes.title, "1,000 units: against KiB written");
        assert_eq!(
            marked(bytes, Mark::Front),
            [vec!["greedy", "head-tail-0"], vec!["reference"]]
        );
        assert_eq!(marked(bytes, Mark::Beaten), [vec!["uniform"]]);
        assert_eq!(marked(bytes, Mark::OverBudget), [vec!["codex"]]);
        assert_eq!(bytes.front(), [(1.0, 80.0), (8.0, 90.0)]);
        assert_eq!(bytes.step(), [(1.0, 80.0), (8.0, 80.0), (8.0, 90.0)]);
        let labels: Vec<&str> = bytes.points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            ["greedy, head-tail-0", "reference", "uniform", "codex"]
        );
        // On cost, uniform is on the front and greedy beaten; codex, cheaper than any in budget, is left out.
        assert_eq!(
            marked(cost, Mark::Front),
            [vec!["uniform"], vec!["reference"]]
        );
        assert_eq!(marked(cost, Mark::Beaten), [vec!["greedy", "head-tail-0"]]);
        assert!(marked(cost, Mark::OverBudget).is_empty());
        assert_eq!(cost.step(), [(1.01, 80.0), (1.02, 80.0), (1.02, 90.0)]);
        assert_eq!(cost.x.scale, Scale::Linear);
        assert_eq!(bytes.y.label, "needles kept (% of planted)");
    }

    #[test]
    fn two_on_the_front_with_as_many_needles_say_what_they_keep_per_field() {
        let mut figures = FIGURES.to_vec();
        figures[1] = ("greedy", 0, Some(0.9), Some(0.7), 1024, Some(1.5));
        let chart = pareto_chart(&with_figures(small_run(), &figures)).unwrap();
        let bytes = &chart.rows[0].panels[0];
        let front: Vec<&str> = bytes
            .points
            .iter()
            .filter(|p| p.mark == Mark::Front)
            .map(|p| p.label.as_str())
            .collect();
        assert_eq!(
            front,
            ["greedy · 70.0% per field", "reference · 80.0% per field"]
        );
        assert_eq!(
            apart(Some(0.9908), &[Some(0.9909), Some(0.9908)]),
            Some("99.08%".into())
        );
        assert_eq!(apart(Some(0.5), &[Some(0.5)]), Some("50.0%".into()));
        assert_eq!(apart(Some(0.5), &[Some(0.500001)]), None);
        assert_eq!(apart(None, &[Some(0.5)]), None);
    }

    fn label(at: (i32, i32), w: i32, must: bool) -> Label {
        Label {
            lines: vec!["x".into()],
            at,
            gap: 5,
            size: (w, 10),
            must,
        }
    }

    #[test]
    fn labels_go_where_they_cover_nothing_and_only_the_fronts_go_where_they_must() {
        let bounds = [0, 0, 200, 100];
        let mark = |(x, y): (i32, i32)| [x - 2, y - 2, x + 2, y + 2];
        // Two points side by side: the first label goes right, the second, blocked on its right by the edge and
        // on its left by the first label (and the room kept around it), goes above.
        let labels = [label((100, 60), 40, true), label((160, 50), 40, true)];
        let marks = [mark((100, 60)), mark((160, 50))];
        let spots = place(&labels, &marks, bounds);
        let boxes = |spots: &[Option<([i32; 4], HPos)>]| -> Vec<Option<[i32; 4]>> {
            spots.iter().map(|s| s.map(|(b, _)| b)).collect()
        };
        assert_eq!(
            boxes(&spots),
            [Some([105, 55, 145, 65]), Some([140, 35, 180, 45])]
        );
        assert!(matches!(spots[0], Some((_, HPos::Left))));
        assert!(matches!(spots[1], Some((_, HPos::Center))));
        // A label that fits nowhere without covering a point: left out, unless it must be drawn.
        let crowded = [label((10, 50), 190, false), label((10, 50), 190, true)];
        let marks = [mark((10, 50)), [0, 0, 200, 44], [0, 56, 200, 100]];
        let spots = place(&crowded, &marks, bounds);
        // Drawn inside the panel, moved back from its right edge, not into the next panel.
        assert_eq!(boxes(&spots), [None, Some([10, 45, 200, 55])]);
    }

    #[test]
    fn front_labels_of_points_close_together_never_print_over_each_other() {
        // Three points of a front two pixels apart (three names at 50,000 units): right, left, then further up.
        let bounds = [0, 0, 300, 200];
        let at = [(100, 50), (102, 50), (104, 50)];
        let labels = at.map(|p| label(p, 40, true));
        let marks = at.map(|(x, y)| [x - 2, y - 2, x + 2, y + 2]);
        let spots = place(&labels, &marks, bounds);
        let boxes: Vec<[i32; 4]> = spots.iter().map(|s| s.unwrap().0).collect();
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(
                    !(a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]),
                    "{boxes:?}"
                );
            }
        }
        assert_eq!(boxes[2], [109, 32, 149, 42]);
    }

    #[test]
    fn the_chart_draws_its_labels_in_both_formats() {
        let results = with_figures(small_run(), FIGURES);
        let data = pareto_chart(&results).unwrap();
        let svg = draw::render("t", super::super::Format::Svg, &Scatter(&data))
            .unwrap()
            .bytes;
        let svg = String::from_utf8(svg).unwrap();
        for text in [
            "greedy, head-tail-0",
            "reference",
            "1,000 units: against cost / floor",
        ] {
            assert!(svg.contains(text), "{text}");
        }
        let png = draw::render("t", super::super::Format::Png, &Scatter(&data))
            .unwrap()
            .bytes;
        assert!(png.starts_with(b"\x89PNG"));
        assert_eq!(Scatter(&data).size(), (1420, 44 + 3 * 350 + 70));
    }
}
