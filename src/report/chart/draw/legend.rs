//! Legends drawn in their own area beside or below a chart (never over the data): a swatch and a label per
//! entry, one entry a line.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::mark::{self, MarkerAt};
use super::style::{self, StrategyStyle, LEGEND};
use super::DrawResult;

/// How an entry is shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::report::chart) enum Swatch {
    /// A line of a look (colour, width, dash), with the look's marker or without.
    Line {
        /// The look.
        style: StrategyStyle,
        /// With the look's marker.
        marker: bool,
    },
    /// A filled box.
    Box(RGBColor),
    /// A short vertical tick.
    Tick(RGBColor),
    /// An outlined box with a line through it (a box plot's box and median).
    BoxPlot(RGBColor),
    /// An outlined box, empty (a hollow bar).
    Hollow(RGBColor),
    /// A look's marker alone, with no line (a point drawn apart from its line's look).
    Marker(StrategyStyle),
}

/// One legend entry.
#[derive(Debug, Clone)]
pub(in crate::report::chart) struct Entry {
    /// The label.
    pub label: String,
    /// The swatch.
    pub swatch: Swatch,
}

/// Height of one entry.
const ROW: i32 = 26;
/// Width of a swatch plus the gap to the label.
const SWATCH: i32 = 44;

/// The width a vertical legend of `entries` needs, in pixels.
pub(in crate::report::chart) fn width(entries: &[Entry]) -> u32 {
    let text = entries
        .iter()
        .map(|e| super::text::width(&e.label, LEGEND))
        .max()
        .unwrap_or(0);
    (10 + SWATCH as u32 + text + 14).max(120)
}

/// The height a vertical legend of `entries` needs, in pixels.
pub(in crate::report::chart) fn height(entries: &[Entry]) -> u32 {
    (entries.len() as i32 * ROW + 16) as u32
}

/// Draws `entries` one below the other from the top left of `area`, in a light frame.
pub(in crate::report::chart) fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    if entries.is_empty() {
        return Ok(());
    }
    let (w, _) = area.dim_in_pixel();
    let frame_w = (width(entries) as i32).min(w as i32 - 2);
    let frame_h = height(entries) as i32;
    area.draw(&Rectangle::new(
        [(0, 0), (frame_w, frame_h)],
        ShapeStyle::from(&RGBColor(200, 200, 200)).stroke_width(1),
    ))?;
    for (i, e) in entries.iter().enumerate() {
        let y = 8 + i as i32 * ROW + ROW / 2;
        let x = 10;
        swatch(area, e.swatch, x, y)?;
        area.draw_text(
            &e.label,
            &style::anchored(LEGEND, HPos::Left, VPos::Center, style::INK),
            (x + SWATCH, y),
        )?;
    }
    Ok(())
}

fn swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    swatch: Swatch,
    x: i32,
    y: i32,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    match swatch {
        Swatch::Line { style, marker } => {
            area.draw(&mark::stroke(vec![(x, y), (x + 34, y)], &style))?;
            if marker {
                let radius = if style.width > 2 { 6 } else { 5 };
                area.draw(&MarkerAt::new((x + 17, y), &style, radius))?;
            }
        }
        Swatch::Box(colour) => {
            area.draw(&Rectangle::new(
                [(x + 4, y - 8), (x + 30, y + 8)],
                colour.filled(),
            ))?;
        }
        Swatch::Tick(colour) => {
            area.draw(&Rectangle::new(
                [(x + 15, y - 10), (x + 19, y + 10)],
                colour.filled(),
            ))?;
        }
        Swatch::Marker(style) => {
            area.draw(&MarkerAt::new((x + 17, y), &style, 5))?;
        }
        Swatch::Hollow(colour) => {
            area.draw(&Rectangle::new(
                [(x + 4, y - 8), (x + 30, y + 8)],
                ShapeStyle::from(&colour).stroke_width(2),
            ))?;
        }
        Swatch::BoxPlot(colour) => {
            area.draw(&PathElement::new(
                vec![(x, y), (x + 34, y)],
                ShapeStyle::from(&colour).stroke_width(2),
            ))?;
            area.draw(&Rectangle::new(
                [(x + 8, y - 8), (x + 26, y + 8)],
                colour.mix(0.35).filled(),
            ))?;
            area.draw(&Rectangle::new(
                [(x + 8, y - 8), (x + 26, y + 8)],
                ShapeStyle::from(&colour).stroke_width(2),
            ))?;
            area.draw(&PathElement::new(
                vec![(x + 17, y - 8), (x + 17, y + 8)],
                ShapeStyle::from(&BLACK).stroke_width(3),
            ))?;
        }
    }
    Ok(())
}
