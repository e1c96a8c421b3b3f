//! What the heatmaps (compliance, cost over the floor) share: a cell filled with its colour and labelled in ink
//! that reads on it, and the colour bar beside the grid with its title, ticks and the note on empty cells.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::style::{self, LEGEND, SMALL, TICK};
use super::DrawResult;

/// Width of the colour bar.
const BAR_W: i32 = 28;

/// A `w` x `h` cell at (`x`, `y`) filled with `fill`, outlined in white when `outlined`, `label` centred in it,
/// white on dark fills.
pub(in crate::report::chart) fn cell<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    (w, h): (i32, i32),
    (fill, outlined): (RGBColor, bool),
    label: &str,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    area.draw(&Rectangle::new([(x, y), (x + w, y + h)], fill.filled()))?;
    if outlined {
        area.draw(&Rectangle::new(
            [(x, y), (x + w, y + h)],
            ShapeStyle::from(&WHITE).stroke_width(1),
        ))?;
    }
    let ink = if style::needs_light_text(fill) {
        WHITE
    } else {
        style::INK
    };
    area.draw_text(
        label,
        &style::anchored(SMALL, HPos::Center, VPos::Center, ink),
        (x + w / 2, y + h / 2),
    )?;
    Ok(())
}

/// A heatmap's colour bar: its `title` lines above it, `height` pixels from (`x`, `top`) down, the `k`-th row of
/// pixels in `colour(k, height - 1)`, a tick at each share of the way down with its label, and `note` below.
pub(in crate::report::chart) struct ColourBar<'a, C: Fn(f64, f64) -> RGBColor> {
    /// The lines of its title, top first.
    pub title: &'a [&'a str],
    /// Its left edge and top.
    pub at: (i32, i32),
    /// Its height in pixels.
    pub height: i32,
    /// The colour of row `k` of `height - 1` (both as `f64`).
    pub colour: C,
    /// Each tick: its share of the way down (0 the top) and its label.
    pub ticks: &'a [(f64, &'a str)],
    /// The note below it (what an empty cell means).
    pub note: &'a str,
}

impl<C: Fn(f64, f64) -> RGBColor> ColourBar<'_, C> {
    /// Draws it on `area`.
    pub(in crate::report::chart) fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let (x, top) = self.at;
        let last = f64::from(self.height - 1);
        let lines = self.title.len() as i32;
        for (i, line) in self.title.iter().enumerate() {
            area.draw_text(
                line,
                &style::anchored(LEGEND, HPos::Left, VPos::Bottom, style::INK),
                (x, top - 14 - (lines - 1 - i as i32) * 20),
            )?;
        }
        for k in 0..self.height {
            area.draw(&Rectangle::new(
                [(x, top + k), (x + BAR_W, top + k + 1)],
                (self.colour)(f64::from(k), last).filled(),
            ))?;
        }
        area.draw(&Rectangle::new(
            [(x, top), (x + BAR_W, top + self.height)],
            ShapeStyle::from(&style::MUTED).stroke_width(1),
        ))?;
        for &(down, label) in self.ticks {
            let y = top + (down * last).round() as i32;
            area.draw(&PathElement::new(
                vec![(x + BAR_W, y), (x + BAR_W + 6, y)],
                style::INK,
            ))?;
            area.draw_text(
                label,
                &style::anchored(TICK, HPos::Left, VPos::Center, style::INK),
                (x + BAR_W + 12, y),
            )?;
        }
        area.draw_text(
            self.note,
            &style::anchored(SMALL, HPos::Left, VPos::Top, style::MUTED),
            (x, top + self.height + 14),
        )?;
        Ok(())
    }
}
