//! `tune-progress`: per workload and budget, the successive-halving search rung by rung: each setting's objective
//! on each rung's sample, the finalists carried on to the validation set, and each rung's cut.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    budget_text, draw_labels, draw_legend, family_index, legend_height, look, objective_axis,
    panel_title, reference_of, wrapped, DOT, GREY, LEGEND_W, PANEL_H, PICK, PICK_RING,
    PROGRESS_MARKS, RING,
};
use crate::report::chart::data::Axis;
use crate::report::chart::draw::axis::ScaleCoord;
use crate::report::chart::draw::mark::MarkerAt;
use crate::report::chart::draw::style::{self, number, SMALL};
use crate::report::chart::draw::{DrawResult, Figure, Marks};
use crate::report::chart::pareto::{Label, LINE};
use crate::report::chart::{draw, Plot};
use crate::tune::{CellTune, TuneResults, WorkloadTune};

/// Where a setting's search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Dropped at this rung (0 = the first): it ran on no later sample.
    Dropped(usize),
    /// A finalist: it went on from the last rung to the validation set.
    Finalist,
    /// The reference, out of the ranking: run on every sample beside the others, and on the validation set.
    Reference,
}

/// One setting's path through the search.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory {
    /// The strategy name.
    pub strategy: String,
    /// The index of its family in the tune's families (`None`: the reference).
    pub family: Option<usize>,
    /// Its objective (percent) on each rung's sample it ran on: (rung, value).
    pub rungs: Vec<(usize, f64)>,
    /// Its objective (percent) on the validation set, for a finalist or the reference.
    pub validation: Option<f64>,
    /// Where its search ended.
    pub fate: Fate,
    /// Whether it is the reference.
    pub reference: bool,
    /// Whether it is the recommended setting.
    pub recommended: bool,
}

/// The search at one budget.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressPanel {
    /// Its title.
    pub title: String,
    /// Tuning batches in each rung's sample.
    pub samples: Vec<usize>,
    /// Settings each rung ran (the reference among them when it is still ranked).
    pub settings: Vec<usize>,
    /// Validation batches.
    pub validation: u64,
    /// Each rung's cut: the lowest objective (percent) of the settings that went on.
    pub cuts: Vec<Option<f64>>,
    /// Every setting, in candidate order.
    pub lines: Vec<Trajectory>,
    /// The vertical axis.
    pub y: Axis,
}

/// The progress chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressChart {
    /// The families searched.
    pub families: Vec<String>,
    /// The objective, in words (the vertical axis of every panel).
    pub objective: String,
    /// One panel per workload and budget.
    pub panels: Vec<ProgressPanel>,
}

fn progress_panel(tune: &TuneResults, w: &WorkloadTune, cell: &CellTune) -> Option<ProgressPanel> {
    if cell.rungs.is_empty() || cell.rungs.iter().any(|r| r.ran.is_empty()) {
        return None;
    }
    let reference = reference_of(cell);
    let last = cell.rungs.len() - 1;
    let mut lines: Vec<Trajectory> = Vec::new();
    for s in &cell.settings {
        let mut rungs = Vec::new();
        let mut fate = None;
        for (r, rung) in cell.rungs.iter().enumerate() {
            let Some(at) = rung.ran.iter().find(|x| x.strategy == s.strategy) else {
                continue;
            };
            if let Some(y) = at.figures.objective {
                rungs.push((r, y * 100.0));
            }
            if at.place.is_none() {
                fate = Some(Fate::Reference);
            } else if !at.goes_on {
                fate = fate.or(Some(Fate::Dropped(r)));
            } else if r == last {
                fate = Some(Fate::Finalist);
            }
        }
        let is_reference = Some(s.strategy.as_str()) == reference;
        let validated = cell.finalists.iter().find(|v| v.strategy == s.strategy);
        let fate = match fate {
            // The reference dropped out of the ranking: it still ran on every sample.
            Some(Fate::Dropped(_)) | Some(Fate::Reference) if is_reference => Fate::Reference,
            Some(f) => f,
            None => continue,
        };
        lines.push(Trajectory {
            strategy: s.strategy.clone(),
            family: family_index(tune, &s.family, is_reference),
            rungs,
            validation: validated.and_then(|v| v.validation.objective.map(|o| o * 100.0)),
            fate,
            reference: is_reference,
            recommended: s.strategy == cell.recommendation.strategy,
        });
    }
    let cuts = cell
        .rungs
        .iter()
        .map(|r| {
            r.ran
                .iter()
                .filter(|s| s.goes_on)
                .max_by_key(|s| s.place)
                .and_then(|s| s.figures.objective.map(|o| o * 100.0))
        })
        .collect();
    Some(ProgressPanel {
        title: format!("{} · {}", w.name, budget_text(cell)),
        samples: cell.rungs.iter().map(|r| r.batches).collect(),
        settings: cell.rungs.iter().map(|r| r.settings).collect(),
        validation: w.validation,
        cuts,
        lines,
        y: objective_axis(tune),
    })
}

/// The progress chart's data; `None` when no budget has rungs to draw (a `tune.json` from before rungs listed
/// what they ran).
pub fn progress_chart(tune: &TuneResults) -> Option<ProgressChart> {
    let panels: Vec<ProgressPanel> = tune
        .workloads
        .iter()
        .flat_map(|w| w.cells.iter().map(move |c| (w, c)))
        .filter_map(|(w, c)| progress_panel(tune, w, c))
        .collect();
    (!panels.is_empty()).then(|| ProgressChart {
        families: tune.families.clone(),
        objective: tune.objective_text.clone(),
        panels,
    })
}

struct Progress<'a>(&'a ProgressChart);

impl Figure for Progress<'_> {
    fn size(&self) -> (u32, u32) {
        // One panel a row, the width of the front chart's rows: the rungs' ticks need the room.
        (
            LEGEND_W,
            legend_height(&self.0.families) + self.0.panels.len() as u32 * PANEL_H + 70,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        let (legend, rest) = area.split_vertically(legend_height(&self.0.families));
        draw_legend(
            &legend,
            &self.0.families,
            &self.0.objective,
            &PROGRESS_MARKS,
        )?;
        let rows = self.0.panels.len();
        let (panels, _) = rest.split_vertically(rows as u32 * PANEL_H);
        let cells = panels.split_evenly((rows.max(1), 1));
        for (panel, cell) in self.0.panels.iter().zip(&cells) {
            draw_progress(cell, panel, &self.0.families)?;
        }
        Ok(Marks::default())
    }
}

fn draw_progress<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &ProgressPanel,
    families: &[String],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let rest = panel_title(area, &panel.title)?;
    let rungs = panel.samples.len();
    let validation_x = rungs as f64;
    // Room on the right of the validation set for the finalists' names.
    let x = ScaleCoord::linear(0.0, validation_x, 1.0, 1.0).padded(0.05, 0.45);
    let ys = panel
        .lines
        .iter()
        .flat_map(|l| l.rungs.iter().map(|r| r.1).chain(l.validation));
    let y = ScaleCoord::fit(panel.y.scale, ys).widened(0.06);
    let mut chart = ChartBuilder::on(&rest)
        .margin(8)
        .margin_right(24)
        .x_label_area_size(54)
        .y_label_area_size(80)
        .build_cartesian_2d(x, y)?;
    let samples = panel.samples.clone();
    let settings = panel.settings.clone();
    let validation = panel.validation;
    let tick = move |v: &f64| {
        let i = v.round() as usize;
        match samples.get(i) {
            Some(n) => format!("{} settings on {n}", settings[i]),
            None if i == samples.len() => format!("finalists on {validation} validation"),
            None => String::new(),
        }
    };
    style::mesh(&mut chart)
        .x_desc("rung: settings run on tuning batches (samples nested, growing)")
        .y_desc(panel.y.label.as_str())
        .x_label_formatter(&tick)
        .y_label_formatter(&|v| number(*v))
        .draw()?;
    // The validation set is other batches: a dashed rule sets it apart.
    let (ylo, yhi) = {
        let r = chart.y_range();
        (r.start, r.end)
    };
    let between = validation_x - 0.5;
    chart.draw_series(DashedLineSeries::new(
        vec![(between, ylo), (between, yhi)],
        6,
        4,
        ShapeStyle::from(&style::MUTED).stroke_width(1),
    ))?;
    // Dropped settings first, in grey, each ending on a hollow dot where it was dropped.
    for l in panel
        .lines
        .iter()
        .filter(|l| matches!(l.fate, Fate::Dropped(_)))
    {
        let pts: Vec<(f64, f64)> = l.rungs.iter().map(|&(r, y)| (r as f64, y)).collect();
        if pts.len() > 1 {
            chart.draw_series(LineSeries::new(
                pts.clone(),
                ShapeStyle::from(&GREY.mix(0.5)).stroke_width(1),
            ))?;
        }
        if let Some(&end) = pts.last() {
            chart.draw_series(std::iter::once(Circle::new(
                end,
                3,
                ShapeStyle::from(&GREY.mix(0.7)).stroke_width(1),
            )))?;
        }
    }
    // The cuts.
    for (r, cut) in panel.cuts.iter().enumerate() {
        if let Some(c) = cut {
            chart.draw_series(std::iter::once(
                EmptyElement::at((r as f64, *c))
                    + PathElement::new(
                        vec![(-16, 0), (16, 0)],
                        ShapeStyle::from(&style::INK).stroke_width(4),
                    ),
            ))?;
        }
    }
    // The finalists and the reference, in colour, carried on dotted to the validation set.
    let kept = || {
        panel
            .lines
            .iter()
            .filter(|l| !matches!(l.fate, Fate::Dropped(_)))
    };
    for l in kept() {
        let style = look(families, l.family);
        let c = style.colour;
        let width = if l.recommended { 4 } else { 2 };
        let pts: Vec<(f64, f64)> = l.rungs.iter().map(|&(r, y)| (r as f64, y)).collect();
        let line = ShapeStyle::from(&c).stroke_width(width);
        if l.reference {
            chart.draw_series(DashedLineSeries::new(pts.clone(), 10, 5, line))?;
        } else {
            chart.draw_series(LineSeries::new(pts.clone(), line))?;
        }
        chart.draw_series(pts.iter().map(|&p| MarkerAt::new(p, &style, DOT)))?;
        if let (Some(&end), Some(v)) = (pts.last(), l.validation) {
            chart.draw_series(DashedLineSeries::new(
                vec![end, (validation_x, v)],
                3,
                4,
                ShapeStyle::from(&c).stroke_width(2),
            ))?;
            if l.reference {
                chart.draw_series(std::iter::once(
                    EmptyElement::at((validation_x, v))
                        + Rectangle::new([(-5, -5), (5, 5)], style::BASELINE.filled()),
                ))?;
            } else {
                chart.draw_series(std::iter::once(MarkerAt::new(
                    (validation_x, v),
                    &style,
                    DOT + 1,
                )))?;
            }
            if l.recommended {
                chart.draw_series(std::iter::once(Circle::new(
                    (validation_x, v),
                    PICK_RING as u32,
                    ShapeStyle::from(&PICK).stroke_width(3),
                )))?;
            }
        }
    }
    // Labels at the validation set: every finalist and the reference, those at one place in one label, a line
    // each.
    let mut named: Vec<((f64, f64), Vec<String>, bool)> = Vec::new();
    for l in kept() {
        let Some(v) = l.validation else {
            continue;
        };
        let text = match (l.recommended, l.reference) {
            (true, false) => format!("recommended: {}", l.strategy),
            (true, true) => format!("{} (recommended)", l.strategy),
            _ => l.strategy.clone(),
        };
        // The recommended setting has a label of its own, in its colour.
        match named
            .iter_mut()
            .find(|n| n.0 .1 == v && !n.2 && !l.recommended)
        {
            Some(n) => n.1.extend(wrapped(&text)),
            None => named.push(((validation_x, v), wrapped(&text), l.recommended)),
        }
    }
    let marks: Vec<[i32; 4]> = named
        .iter()
        .map(|(at, _, _)| {
            let (px, py) = chart.backend_coord(at);
            [px - RING, py - RING, px + RING, py + RING]
        })
        .collect();
    let labels: Vec<Label> = named
        .iter()
        .map(|(at, lines, _)| Label {
            at: chart.backend_coord(at),
            gap: PICK_RING + 2,
            size: (
                style::label_width(lines.iter().map(String::as_str), SMALL, 0) as i32,
                LINE * lines.len() as i32,
            ),
            lines: lines.clone(),
            must: true,
        })
        .collect();
    draw_labels(&rest, &chart, &labels, &marks, |i| {
        if named[i].2 {
            PICK
        } else {
            style::INK
        }
    })
}

/// The progress chart of a tune.
pub(in crate::report::chart) fn progress(tune: &TuneResults) -> Option<Plot> {
    let data = progress_chart(tune)?;
    Some(Plot::new(
        "How the search narrowed the settings down",
        format!(
            "One panel per workload and budget. Left to right, the successive-halving rungs: each ran the settings \
still in the race on a larger sample of the tuning batches (the tick says how many settings on how many batches; \
each sample holds the one before it), and kept the best third, with every setting tied with the last of them. \
Up: the objective ({objective}) on the rung's sample, higher is better. A grey line is a setting's path until the \
rung it was dropped at (hollow dot); the black bar at each rung is the cut, the lowest objective that went on. The \
finalists are in their family's colour and marker and carried on, dotted, to their objective on the validation set, which the \
search never saw (past the dashed rule); the reference, dashed black, runs on every sample whatever its rank. The \
green ring marks the recommended setting: the best finalist on the tuning set, recommended only when its gain \
over the reference holds on validation.",
            objective = tune.objective_text
        ),
        data,
        |data, title, format| draw::render(title, format, &Progress(data)),
    ))
}
