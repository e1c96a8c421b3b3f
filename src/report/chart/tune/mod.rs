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
//!
//! `front.rs` and `progress.rs` hold each chart's data, figure and plot; this file what both draw alike (the
//! budget's label, a family's colour, the sizes of a panel, the legend strip and a panel's title).

mod front;
mod progress;

pub(super) use front::front;
pub use front::{front_chart, marks, FrontChart, FrontPanel, FrontPoint, Mark, Spend};
pub(super) use progress::progress;
pub use progress::{progress_chart, Fate, ProgressChart, ProgressPanel, Trajectory};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::data::{Axis, Scale};
use super::draw::axis::ScaleCoord;
use super::draw::style::{self, LEGEND, PANEL_TITLE, SMALL};
use super::draw::DrawResult;
use super::pareto::{place, Label, LINE};
use crate::tune::{CellTune, TuneResults};

/// The front chart's file name.
pub const FRONT: &str = "tune-front";
/// The progress chart's file name.
pub const PROGRESS: &str = "tune-progress";

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

/// The y axis of the objective, in words.
fn objective_axis(tune: &TuneResults) -> Axis {
    Axis::new(
        format!("{} (%, higher is better)", tune.objective_text),
        Scale::Percent,
    )
}

fn family_index(tune: &TuneResults, family: &str, reference: bool) -> Option<usize> {
    if reference {
        return None;
    }
    tune.families.iter().position(|f| f == family)
}

/// The colour of a family (`None`: the reference, black).
fn colour(family: Option<usize>) -> RGBColor {
    family.map_or(style::BASELINE, style::palette)
}

/// Grey of what failed the constraints, and of dropped settings.
const GREY: RGBColor = RGBColor(160, 160, 160);
/// The recommended setting's ring.
const PICK: RGBColor = RGBColor(0, 140, 60);
/// Width and height of one panel.
const PANEL_W: u32 = 720;
const PANEL_H: u32 = 400;
/// Height of the legend strip above the panels.
const LEGEND_H: u32 = 70;
/// Radius of a point, of the ring of one on the front, and of the recommended setting's ring.
const DOT: i32 = 4;
const RING: i32 = 8;
const PICK_RING: i32 = 13;

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

/// Two lines of legend: the marks, then the families' colours and which way is better.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    families: &[String],
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
    let y = 44;
    let mut x = 40;
    area.draw_text(
        "colour: family",
        &style::anchored(LEGEND, HPos::Left, VPos::Center, style::MUTED),
        (x, y),
    )?;
    x += style::label_width(std::iter::once("colour: family"), LEGEND, 16) as i32;
    for (i, f) in families.iter().enumerate() {
        area.draw(&Rectangle::new(
            [(x, y - 6), (x + 12, y + 6)],
            style::palette(i).filled(),
        ))?;
        area.draw_text(
            f,
            &style::anchored(LEGEND, HPos::Left, VPos::Center, style::INK),
            (x + 18, y),
        )?;
        x += 18 + style::label_width(std::iter::once(f.as_str()), LEGEND, 22) as i32;
    }
    Ok(())
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
