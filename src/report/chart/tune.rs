//! The charts of a tune's folder (`budgetlab tune`), drawn from `tune.json` alone.
//!
//! `tune-front`: per workload and budget, a row of two panels. Left, every setting the search evaluated, on the
//! one sample all of them ran on (the first rung's tuning batches): the objective against artifact writes per
//! turn. Right, the finalists and the reference on the validation set, the only settings whose time was
//! measured: the objective against their time over the floor's. On each, the Pareto front (the settings that meet
//! the constraints and that no other such setting beats on both at once) is ringed and joined by a step line;
//! the reference and the recommended setting are marked and named.
//!
//! `tune-progress`: per workload and budget, the successive-halving search: each setting's objective on each
//! rung's sample (the samples grow and are nested), grey where it was dropped, the finalists in colour and carried
//! on to their figure on the validation set, the reference in black, the recommended setting ringed, and each
//! rung's cut (the lowest objective that went on).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::data::{Axis, Scale};
use super::draw::axis::{nice_step, ScaleCoord};
use super::draw::mark::MarkerAt;
use super::draw::style::{self, number, StrategyStyle, AXIS, LEGEND, PANEL_TITLE, SMALL, TICK};
use super::draw::{DrawResult, Figure};
use super::pareto::{place, Label, LINE};
use super::{draw, Plot};
use crate::tune::{CellTune, Constraints, TuneResults, WorkloadTune};

/// The front chart's file name.
pub const FRONT: &str = "tune-front";
/// The progress chart's file name.
pub const PROGRESS: &str = "tune-progress";

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

/// The label of the budget of `cell`: `abs-5000 (5,000 units)`.
fn budget_text(cell: &CellTune) -> String {
    let units = cell.units.to_string();
    let mut grouped = String::new();
    for (i, c) in units.chars().enumerate() {
        if i > 0 && (units.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{} ({grouped} units)", cell.budget)
}

/// The reference's strategy name in `cell`.
fn reference_of(cell: &CellTune) -> Option<&str> {
    cell.finalists
        .iter()
        .find(|v| v.reference)
        .map(|v| v.strategy.as_str())
}

/// The y axis of the objective. Short, so that it fits the panel's height: the legend says what the objective
/// is.
fn objective_axis(_tune: &TuneResults) -> Axis {
    Axis::new("objective (%, higher is better)", Scale::Percent)
}

fn family_index(tune: &TuneResults, family: &str, reference: bool) -> Option<usize> {
    if reference {
        return None;
    }
    tune.families.iter().position(|f| f == family)
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

/// The look of a family (`None`: the reference, black): the `i`-th of the strategies' looks, so that no two
/// families of a tune share colour and marker (colours alone repeat after ten).
fn look(families: &[String], family: Option<usize>) -> StrategyStyle {
    match family.filter(|&i| i < families.len()) {
        None => style::REFERENCE,
        Some(i) => style::look(i),
    }
}

/// A setting's name on as many lines as keep each under [`LABEL_CHARS`], broken after a comma of its
/// parameters, so that a long name does not run across the points beside it or out of the panel.
fn wrapped(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for piece in text.split_inclusive(',') {
        if !line.is_empty() && line.chars().count() + piece.chars().count() > LABEL_CHARS {
            lines.push(std::mem::take(&mut line));
        }
        line.push_str(piece);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The longest line of a label on a panel, in characters.
const LABEL_CHARS: usize = 34;

/// Grey of what failed the constraints, and of dropped settings.
const GREY: RGBColor = RGBColor(160, 160, 160);
/// The recommended setting's ring.
const PICK: RGBColor = RGBColor(0, 140, 60);
/// Width and height of one panel.
const PANEL_W: u32 = 720;
const PANEL_H: u32 = 400;
/// Height of one line of the legend strip above the panels (the marks, the families' looks as many lines as
/// they take, then the objective).
const LEGEND_LINE: u32 = 30;
/// Width of the legend strip (the width of a row of two panels).
const LEGEND_W: u32 = 2 * PANEL_W + 20;
/// Radius of a point, of the ring of one on the front, and of the recommended setting's ring.
const DOT: i32 = 4;
const RING: i32 = 8;
const PICK_RING: i32 = 13;

struct Front<'a>(&'a FrontChart);

impl Figure for Front<'_> {
    fn size(&self) -> (u32, u32) {
        (
            LEGEND_W,
            legend_height(&self.0.families) + self.0.rows.len() as u32 * PANEL_H + 70,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult
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
        Ok(())
    }
}

/// A legend entry's mark.
#[derive(Debug, Clone, Copy)]
enum Key {
    Front,
    Step,
    Beaten,
    Fails,
    Reference,
    Pick,
    Dropped,
    Finalist,
    Cut,
}

const FRONT_MARKS: [(Key, &str); 6] = [
    (Key::Front, "on the front"),
    (Key::Step, "the front: most kept for least spent"),
    (Key::Beaten, "beaten"),
    (Key::Fails, "fails the constraints"),
    (Key::Reference, "reference"),
    (Key::Pick, "recommended"),
];

const PROGRESS_MARKS: [(Key, &str); 5] = [
    (Key::Dropped, "dropped at that rung"),
    (Key::Finalist, "finalist, then on validation (dotted)"),
    (Key::Reference, "reference"),
    (Key::Pick, "recommended"),
    (Key::Cut, "cut: the lowest that went on"),
];

/// The legend: a line of the marks, the families' looks on as many lines as they take, then the objective.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    families: &[String],
    objective: &str,
    keys: &[(Key, &str)],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let ink = ShapeStyle::from(&style::INK).stroke_width(2);
    let y = 14;
    let mut x = 40;
    for &(key, label) in keys {
        let c = (x + 14, y);
        match key {
            Key::Front => {
                area.draw(&Circle::new(c, DOT as u32, style::palette(0).filled()))?;
                area.draw(&Circle::new(c, RING as u32, ink))?;
            }
            Key::Step => area.draw(&PathElement::new(
                vec![
                    (x, y + 6),
                    (x + 14, y + 6),
                    (x + 14, y - 6),
                    (x + 28, y - 6),
                ],
                ink,
            ))?,
            Key::Beaten => area.draw(&Circle::new(c, DOT as u32, style::palette(0).filled()))?,
            Key::Fails => area.draw(&Circle::new(
                c,
                DOT as u32,
                ShapeStyle::from(&GREY).stroke_width(2),
            ))?,
            Key::Reference => area.draw(&Rectangle::new(
                [(c.0 - 5, c.1 - 5), (c.0 + 5, c.1 + 5)],
                style::BASELINE.filled(),
            ))?,
            Key::Pick => area.draw(&Circle::new(
                c,
                PICK_RING as u32 - 4,
                ShapeStyle::from(&PICK).stroke_width(3),
            ))?,
            Key::Dropped => {
                area.draw(&PathElement::new(
                    vec![(x, y + 4), (x + 24, y - 2)],
                    ShapeStyle::from(&GREY.mix(0.6)).stroke_width(1),
                ))?;
                area.draw(&Circle::new(
                    (x + 24, y - 2),
                    3,
                    ShapeStyle::from(&GREY).stroke_width(1),
                ))?;
            }
            Key::Finalist => area.draw(&PathElement::new(
                vec![(x, y + 4), (x + 28, y - 4)],
                ShapeStyle::from(&style::palette(0)).stroke_width(3),
            ))?,
            Key::Cut => area.draw(&PathElement::new(
                vec![(x + 2, y), (x + 26, y)],
                ShapeStyle::from(&style::INK).stroke_width(4),
            ))?,
        }
        area.draw_text(
            label,
            &style::anchored(LEGEND, HPos::Left, VPos::Center, style::INK),
            (x + 36, y),
        )?;
        x += 36 + style::label_width(std::iter::once(label), LEGEND, 28) as i32;
    }
    let lead = "family:";
    let start = 40 + style::label_width(std::iter::once(lead), LEGEND, 16) as i32;
    area.draw_text(
        lead,
        &style::anchored(LEGEND, HPos::Left, VPos::Center, style::MUTED),
        (40, y + LEGEND_LINE as i32),
    )?;
    let rows = family_rows(families, start);
    for (row, entries) in rows.iter().enumerate() {
        let y = y + (row as i32 + 1) * LEGEND_LINE as i32;
        for &(i, x) in entries {
            let style = look(families, Some(i));
            area.draw(&MarkerAt::new((x + 6, y), &style, 6))?;
            area.draw_text(
                &families[i],
                &style::anchored(LEGEND, HPos::Left, VPos::Center, style::INK),
                (x + 18, y),
            )?;
        }
    }
    area.draw_text(
        &format!("objective (up): {objective}"),
        &style::anchored(LEGEND, HPos::Left, VPos::Center, style::INK),
        (40, y + (rows.len() as i32 + 1) * LEGEND_LINE as i32),
    )?;
    Ok(())
}

/// Where each family's entry goes in the legend: rows of (family, left edge), the first row starting at `start`,
/// a new row where the next entry would not fit the strip's width.
fn family_rows(families: &[String], start: i32) -> Vec<Vec<(usize, i32)>> {
    let mut rows: Vec<Vec<(usize, i32)>> = vec![Vec::new()];
    let mut x = start;
    for (i, f) in families.iter().enumerate() {
        let w = 18 + style::label_width(std::iter::once(f.as_str()), LEGEND, 22) as i32;
        if x + w > LEGEND_W as i32 - 20 && rows.last().is_some_and(|r| !r.is_empty()) {
            rows.push(Vec::new());
            x = start;
        }
        if let Some(row) = rows.last_mut() {
            row.push((i, x));
        }
        x += w;
    }
    rows
}

/// Height of the legend strip: the marks, the families' rows and the objective.
fn legend_height(families: &[String]) -> u32 {
    let start = 40 + style::label_width(std::iter::once("family:"), LEGEND, 16) as i32;
    (family_rows(families, start).len() as u32 + 2) * LEGEND_LINE + 4
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

fn panel_title<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
) -> std::result::Result<DrawingArea<DB, Shift>, Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let (top, rest) = area.split_vertically(30);
    let (w, _) = top.dim_in_pixel();
    let size = if style::label_width(std::iter::once(title), PANEL_TITLE, 0) + 16 > w {
        SMALL
    } else {
        PANEL_TITLE
    };
    top.draw_text(
        title,
        &style::anchored(size, HPos::Center, VPos::Top, style::INK),
        (w as i32 / 2, 4),
    )?;
    Ok(rest)
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
    chart
        .configure_mesh()
        .x_desc(panel.x.label.as_str())
        .y_desc(panel.y.label.as_str())
        .axis_desc_style(style::text(AXIS))
        .label_style(style::text(TICK))
        .x_label_formatter(&|v| number(*v))
        .y_label_formatter(&|v| number(*v))
        .bold_line_style(RGBColor(0, 0, 0).mix(0.15))
        .light_line_style(RGBColor(0, 0, 0).mix(0.05))
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

/// Draws `labels` where [`place`] puts them inside the plotting area of `chart`, each in the colour `ink` gives
/// its index.
fn draw_labels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &ChartContext<'_, DB, Cartesian2d<ScaleCoord, ScaleCoord>>,
    labels: &[Label],
    marks: &[[i32; 4]],
    ink: impl Fn(usize) -> RGBColor,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (base_x, base_y) = area.get_base_pixel();
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let bounds = [xr.start, yr.start, xr.end, yr.end];
    for (i, (label, spot)) in labels.iter().zip(place(labels, marks, bounds)).enumerate() {
        let Some((b, hpos)) = spot else {
            continue;
        };
        let x = match hpos {
            HPos::Left => b[0],
            HPos::Right => b[2],
            HPos::Center => (b[0] + b[2]) / 2,
        };
        for (k, line) in label.lines.iter().enumerate() {
            area.draw_text(
                line,
                &style::anchored(SMALL, hpos, VPos::Top, ink(i)),
                (x - base_x, b[1] + k as i32 * LINE - base_y),
            )?;
        }
    }
    Ok(())
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

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult
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
        Ok(())
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
    chart
        .configure_mesh()
        .x_desc("rung: settings run on tuning batches (samples nested, growing)")
        .y_desc(panel.y.label.as_str())
        .axis_desc_style(style::text(AXIS))
        .label_style(style::text(TICK))
        .x_label_formatter(&tick)
        .y_label_formatter(&|v| number(*v))
        .bold_line_style(RGBColor(0, 0, 0).mix(0.15))
        .light_line_style(RGBColor(0, 0, 0).mix(0.05))
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

/// The front chart of a tune.
pub(super) fn front(tune: &TuneResults) -> Option<Plot> {
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

/// The progress chart of a tune.
pub(super) fn progress(tune: &TuneResults) -> Option<Plot> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The families of a tune that searches every family (13 today; colours alone repeat after ten).
    fn families(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("family-{i}")).collect()
    }

    #[test]
    fn no_two_families_share_colour_and_marker_and_none_looks_like_the_reference() {
        let names = families(16);
        let looks: Vec<_> = (0..names.len())
            .map(|i| {
                let l = look(&names, Some(i));
                (l.colour.rgb(), l.marker)
            })
            .collect();
        for (i, a) in looks.iter().enumerate() {
            for b in &looks[i + 1..] {
                assert_ne!(a, b);
            }
            assert_ne!(a.0, style::BASELINE.rgb());
        }
        assert_eq!(look(&names, None).colour.rgb(), style::BASELINE.rgb());
        assert_eq!(look(&names, Some(99)).colour.rgb(), style::BASELINE.rgb());
    }

    #[test]
    fn the_legend_wraps_the_families_inside_its_width_and_grows_a_line_for_each_row() {
        let few = families(3);
        let many = families(16);
        let start = 100;
        let rows = family_rows(&many, start);
        assert!(rows.len() >= 2, "{rows:?}");
        let mut seen: Vec<usize> = Vec::new();
        for row in &rows {
            for &(i, x) in row {
                let w =
                    18 + style::label_width(std::iter::once(many[i].as_str()), LEGEND, 0) as i32;
                assert!(x >= start && x + w <= LEGEND_W as i32, "{i} at {x}");
                seen.push(i);
            }
        }
        assert_eq!(seen, (0..many.len()).collect::<Vec<_>>());
        assert_eq!(family_rows(&few, start).len(), 1);
        assert_eq!(
            legend_height(&many) - legend_height(&few),
            (rows.len() as u32 - 1) * LEGEND_LINE
        );
    }

    #[test]
    fn long_setting_names_break_after_commas_into_short_lines() {
        let name = "structure(head_share=0.15,edge=0.1,window=100,above=0.1,context=2)";
        let lines = wrapped(name);
        assert_eq!(
            lines,
            [
                "structure(head_share=0.15,",
                "edge=0.1,window=100,above=0.1,",
                "context=2)"
            ]
        );
        assert_eq!(lines.concat(), name);
        assert_eq!(wrapped("reference"), ["reference"]);
    }

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
