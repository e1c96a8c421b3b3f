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
use super::draw::mark::MarkerAt;
use super::draw::style::{self, StrategyStyle, LEGEND, PANEL_TITLE, SMALL};
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
}
