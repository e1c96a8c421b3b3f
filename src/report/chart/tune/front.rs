//! `tune-front`: per workload and budget, every setting evaluated against writes per turn and the finalists against
//! their time over the floor's, each panel with its Pareto front, the reference and the recommended setting.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    budget_text, draw_labels, draw_legend, family_index, legend_height, look, objective_axis,
    panel_title, reference_of, wrapped, DOT, FRONT_MARKS, GREY, LEGEND_W, PANEL_H, PICK, PICK_RING,
    RING,
};
use crate::report::chart::data::{Axis, Scale};
use crate::report::chart::draw::axis::{nice_step, ScaleCoord};
use crate::report::chart::draw::mark::MarkerAt;
use crate::report::chart::draw::style::{self, number, SMALL};
use crate::report::chart::draw::{DrawResult, Figure, Marks};
use crate::report::chart::pareto::{Label, LINE};
use crate::report::chart::{draw, Plot};
use crate::tune::{CellTune, Constraints, TuneResults, WorkloadTune};

/// What a front panel's horizontal axis measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spend {
    /// Artifact writes per turn, on the first rung's sample.
    Writes,
    /// Time over the floor's, on the validation set.
    Cost,
}

/// A point's place among the trade-offs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Meets the constraints, and no other setting that does beats it on both axes at once.
    Front,
    /// Meets the constraints, beaten on both by one on the front.
    Beaten,
    /// Fails the constraints (over budget in some turn, or over the writes or time limit): on no front.
    Fails,
}

/// One setting on a front panel.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontPoint {
    /// The strategy name.
    pub strategy: String,
    /// The index of its family in the tune's families (`None`: the reference).
    pub family: Option<usize>,
    /// What it spends: writes per turn, or times the floor.
    pub x: f64,
    /// Its objective, in percent.
    pub y: f64,
    /// Its place among the trade-offs.
    pub mark: Mark,
    /// Whether it is the reference.
    pub reference: bool,
    /// Whether it is the recommended setting.
    pub recommended: bool,
}

/// One panel of the front chart.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontPanel {
    /// Its title.
    pub title: String,
    /// What the horizontal axis measures.
    pub spend: Spend,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// The settings, in candidate order (the reference first).
    pub points: Vec<FrontPoint>,
}

impl FrontPanel {
    /// The front's points, least spent first (then most kept first).
    pub fn front(&self) -> Vec<&FrontPoint> {
        let mut front: Vec<&FrontPoint> = self
            .points
            .iter()
            .filter(|p| p.mark == Mark::Front)
            .collect();
        front.sort_by(|a, b| a.x.total_cmp(&b.x).then(b.y.total_cmp(&a.y)));
        front
    }

    /// The step line through the front: from each point across to the next one's spend, then up to it.
    pub fn step(&self) -> Vec<(f64, f64)> {
        let front = self.front();
        let mut line = Vec::with_capacity(front.len() * 2);
        for (i, p) in front.iter().enumerate() {
            line.push((p.x, p.y));
            if let Some(next) = front.get(i + 1) {
                line.push((next.x, p.y));
            }
        }
        line
    }
}

/// The front chart's data: the tune's families (what the colours follow) and a row of two panels per workload
/// and budget.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontChart {
    /// The families searched.
    pub families: Vec<String>,
    /// The objective, in words (the vertical axis of every panel).
    pub objective: String,
    /// One row per workload and budget, each with the writes panel then the cost panel.
    pub rows: Vec<Vec<FrontPanel>>,
}

/// The marks of points `(x, y, meets the constraints)`: on the front when it meets the constraints and no other
/// that does spends no more and keeps no less, and one of the two strictly.
pub fn marks(points: &[(f64, f64, bool)]) -> Vec<Mark> {
    points
        .iter()
        .map(|&(x, y, ok)| {
            if !ok {
                return Mark::Fails;
            }
            let beaten = points
                .iter()
                .any(|&(x2, y2, ok2)| ok2 && x2 <= x && y2 >= y && (x2 < x || y2 > y));
            if beaten {
                Mark::Beaten
            } else {
                Mark::Front
            }
        })
        .collect()
}

/// The panel of every setting on the first rung's sample, against writes per turn.
fn writes_panel(tune: &TuneResults, w: &WorkloadTune, cell: &CellTune) -> Option<FrontPanel> {
    let rung = cell.rungs.first()?;
    let reference = reference_of(cell);
    let constraints: &Constraints = &tune.constraints;
    let placed: Vec<(usize, f64, f64, bool)> = rung
        .ran
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let x = s.figures.writes_per_turn?;
            let y = s.figures.objective? * 100.0;
            Some((i, x, y, constraints.allows(&s.figures.sums)))
        })
        .collect();
    if placed.is_empty() {
        return None;
    }
    let marked = marks(
        &placed
            .iter()
            .map(|&(_, x, y, ok)| (x, y, ok))
            .collect::<Vec<_>>(),
    );
    let family_of = |strategy: &str| {
        cell.settings
            .iter()
            .find(|s| s.strategy == strategy)
            .map(|s| s.family.as_str())
    };
    let points = placed
        .iter()
        .zip(marked)
        .map(|(&(i, x, y, _), mark)| {
            let s = &rung.ran[i];
            let is_reference = Some(s.strategy.as_str()) == reference;
            FrontPoint {
                strategy: s.strategy.clone(),
                family: family_index(tune, family_of(&s.strategy).unwrap_or(""), is_reference),
                x,
                y,
                mark,
                reference: is_reference,
                recommended: s.strategy == cell.recommendation.strategy,
            }
        })
        .collect();
    Some(FrontPanel {
        title: format!(
            "{} · {}: all {} settings, first {} tuning batches",
            w.name,
            budget_text(cell),
            rung.ran.len(),
            rung.batches
        ),
        spend: Spend::Writes,
        x: Axis::new("artifact writes per turn (lower is better)", Scale::Linear),
        y: objective_axis(tune),
        points,
    })
}

/// The panel of the finalists and the reference on the validation set, against time over the floor's.
fn cost_panel(tune: &TuneResults, w: &WorkloadTune, cell: &CellTune) -> Option<FrontPanel> {
    let placed: Vec<(usize, f64, f64, bool)> = cell
        .finalists
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let x = v.cost_ratio?;
            let y = v.validation.objective? * 100.0;
            Some((i, x, y, v.meets_constraints))
        })
        .collect();
    if placed.is_empty() {
        return None;
    }
    let marked = marks(
        &placed
            .iter()
            .map(|&(_, x, y, ok)| (x, y, ok))
            .collect::<Vec<_>>(),
    );
    let points = placed
        .iter()
        .zip(marked)
        .map(|(&(i, x, y, _), mark)| {
            let v = &cell.finalists[i];
            FrontPoint {
                strategy: v.strategy.clone(),
                family: family_index(tune, &v.family, v.reference),
                x,
                y,
                mark,
                reference: v.reference,
                recommended: v.strategy == cell.recommendation.strategy,
            }
        })
        .collect();
    Some(FrontPanel {
        title: format!(
            "{} · {}: finalists, {} validation batches",
            w.name,
            budget_text(cell),
            w.validation
        ),
        spend: Spend::Cost,
        x: Axis::new(
            "time over the floor's (x, lower is better; varies between runs)",
            Scale::Linear,
        ),
        y: objective_axis(tune),
        points,
    })
}

/// The front chart's data; `None` when no budget has a point to draw.
pub fn front_chart(tune: &TuneResults) -> Option<FrontChart> {
    let rows: Vec<Vec<FrontPanel>> = tune
        .workloads
        .iter()
        .flat_map(|w| w.cells.iter().map(move |c| (w, c)))
        .filter_map(|(w, c)| {
            let panels: Vec<FrontPanel> = [writes_panel(tune, w, c), cost_panel(tune, w, c)]
                .into_iter()
                .flatten()
                .collect();
            (!panels.is_empty()).then_some(panels)
        })
        .collect();
    (!rows.is_empty()).then(|| FrontChart {
        families: tune.families.clone(),
        objective: tune.objective_text.clone(),
        rows,
    })
}

struct Front<'a>(&'a FrontChart);

impl Figure for Front<'_> {
    fn size(&self) -> (u32, u32) {
        (
            LEGEND_W,
            legend_height(&self.0.families) + self.0.rows.len() as u32 * PANEL_H + 70,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        let (legend, rest) = area.split_vertically(legend_height(&self.0.families));
        draw_legend(&legend, &self.0.families, &self.0.objective, &FRONT_MARKS)?;
        let rows = self.0.rows.len();
        let (panels, _) = rest.split_vertically(rows as u32 * PANEL_H);
        let cells = panels.split_evenly((rows.max(1), 2));
        for (row, cells) in self.0.rows.iter().zip(cells.chunks(2)) {
            for (panel, cell) in row.iter().zip(cells) {
                draw_front(cell, panel, &self.0.families)?;
            }
        }
        Ok(Marks::default())
    }
}

/// The horizontal axis of a front panel: writes from 0, or times the floor around the values.
fn x_axis(panel: &FrontPanel) -> ScaleCoord {
    let xs = || panel.points.iter().map(|p| p.x);
    let axis = match panel.spend {
        Spend::Writes => ScaleCoord::fit(Scale::Linear, xs()),
        Spend::Cost => {
            let lo = xs().fold(f64::INFINITY, f64::min);
            let hi = xs().fold(f64::NEG_INFINITY, f64::max);
            let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (1.0, 1.0) };
            let step = nice_step(((hi - lo) / 5.0).max(hi.abs() * 0.01)).max(0.01);
            let from = (lo / step).floor() * step;
            let to = ((hi / step).ceil() * step).max(from + step);
            ScaleCoord::linear(from, to, step, step / 2.0)
        }
    };
    axis.widened(0.05)
}

fn draw_front<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &FrontPanel,
    families: &[String],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let rest = panel_title(area, &panel.title)?;
    let y = ScaleCoord::fit(panel.y.scale, panel.points.iter().map(|p| p.y)).widened(0.06);
    let mut chart = ChartBuilder::on(&rest)
        .margin(8)
        .margin_right(24)
        .x_label_area_size(54)
        .y_label_area_size(80)
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
    chart.draw_series(of(Mark::Fails).map(|p| {
        Circle::new(
            (p.x, p.y),
            DOT as u32,
            ShapeStyle::from(&GREY).stroke_width(2),
        )
    }))?;
    chart.draw_series(
        of(Mark::Beaten)
            .filter(|p| !p.reference)
            .map(|p| MarkerAt::new((p.x, p.y), &look(families, p.family), DOT)),
    )?;
    for p in of(Mark::Front) {
        chart.draw_series(std::iter::once(Circle::new(
            (p.x, p.y),
            RING as u32,
            ShapeStyle::from(&style::INK).stroke_width(2),
        )))?;
        if !p.reference {
            chart.draw_series(std::iter::once(MarkerAt::new(
                (p.x, p.y),
                &look(families, p.family),
                DOT + 1,
            )))?;
        }
    }
    for p in panel.points.iter().filter(|p| p.reference) {
        chart.draw_series(std::iter::once(
            EmptyElement::at((p.x, p.y))
                + Rectangle::new([(-5, -5), (5, 5)], style::BASELINE.filled()),
        ))?;
    }
    for p in panel.points.iter().filter(|p| p.recommended) {
        chart.draw_series(std::iter::once(Circle::new(
            (p.x, p.y),
            PICK_RING as u32,
            ShapeStyle::from(&PICK).stroke_width(3),
        )))?;
    }
    // Labels: the recommended setting and the reference always, then the front's where there is room.
    let radius = |p: &FrontPoint| {
        if p.recommended {
            PICK_RING + 1
        } else if p.mark == Mark::Front {
            RING + 1
        } else {
            DOT + 1
        }
    };
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
    // Settings at one place draw on top of each other: a named one says how many others are there, and a place
    // with several and none named says how many.
    let here = |p: &FrontPoint| {
        panel
            .points
            .iter()
            .filter(|q| q.x == p.x && q.y == p.y)
            .count()
    };
    let more = |p: &FrontPoint| match here(p) {
        1 => String::new(),
        n => format!(" (+{} here)", n - 1),
    };
    let mut named: Vec<(&FrontPoint, String, bool)> = Vec::new();
    for p in panel.points.iter().filter(|p| p.recommended) {
        let text = if p.reference {
            format!("{} (recommended){}", p.strategy, more(p))
        } else {
            format!("recommended: {}{}", p.strategy, more(p))
        };
        named.push((p, text, true));
    }
    for p in panel
        .points
        .iter()
        .filter(|p| p.reference && !p.recommended)
    {
        named.push((p, format!("{}{}", p.strategy, more(p)), true));
    }
    for p in panel.front() {
        if !p.reference && !p.recommended {
            named.push((p, format!("{}{}", p.strategy, more(p)), false));
        }
    }
    for (i, p) in panel.points.iter().enumerate() {
        let first = panel.points[..i].iter().all(|q| q.x != p.x || q.y != p.y);
        let unnamed = named.iter().all(|(q, _, _)| q.x != p.x || q.y != p.y);
        if first && unnamed && here(p) > 1 {
            named.push((p, format!("{} settings", here(p)), false));
        }
    }
    let labels: Vec<Label> = named
        .iter()
        .map(|(p, text, must)| {
            let lines = wrapped(text);
            Label {
                at: chart.backend_coord(&(p.x, p.y)),
                gap: radius(p) + 3,
                size: (
                    style::label_width(lines.iter().map(String::as_str), SMALL, 0) as i32,
                    LINE * lines.len() as i32,
                ),
                lines,
                must: *must,
            }
        })
        .collect();
    draw_labels(&rest, &chart, &labels, &marks, |i| {
        if named[i].0.recommended {
            PICK
        } else {
            style::INK
        }
    })
}

/// The front chart of a tune.
pub(in crate::report::chart) fn front(tune: &TuneResults) -> Option<Plot> {
    let data = front_chart(tune)?;
    Some(Plot::new(
        "What each setting keeps for what it spends",
        format!(
            "One row per workload and budget. Left: every setting the search evaluated, on the one sample all of them \
ran on (the first rung's tuning batches): the objective ({objective}; up is better) against artifact writes per \
turn (left is better). Right: the finalists and the reference on the validation set, the only settings whose time \
was measured: the same objective against their time over the floor's (left is better; wall-clock, so it moves \
between runs). Ringed and joined by a step line: the Pareto front, the settings that meet the constraints and that \
no other such setting beats on both at once. Marks without a ring are beaten; small grey rings fail the constraints (over \
budget in some turn, or over a limit) and are on no front. The black square is the reference and the green ring \
the recommended setting, named. Colour and marker follow the family (no two families share both). \
The left panel's figures are on a few batches: the \
search went on to larger samples, and the recommendation rests on the validation set (right).",
            objective = tune.objective_text
        ),
        data,
        |data, title, format| draw::render(title, format, &Front(data)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_front_is_exactly_the_points_no_other_beats_on_both() {
        let points = [
            (0.0, 50.0, true),
            (1.0, 80.0, true),
            (1.0, 70.0, true),
            (2.0, 80.0, true),
            (0.0, 90.0, false),
            (3.0, 95.0, true),
            (1.0, 80.0, true),
        ];
        assert_eq!(
            marks(&points),
            [
                Mark::Front,
                Mark::Front,
                Mark::Beaten,
                Mark::Beaten,
                Mark::Fails,
                Mark::Front,
                Mark::Front
            ]
        );
    }
}
