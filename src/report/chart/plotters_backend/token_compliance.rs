//! Token compliance beside unit compliance: two horizontal bars per strategy, the share of turns within the
//! budget in UTF-16 units and the share within the token budget, over the rows that have a token budget.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::ScaleCoord;
use super::legend::{self, Entry, Swatch};
use super::style::{self, AXIS, SMALL, TICK};
use super::{DrawResult, Figure};
use crate::report::chart::data::TokenCompliance;

/// The chart.
pub(super) struct Bars<'a>(pub &'a TokenCompliance);

const ROW: u32 = 44;
const UNITS: RGBColor = RGBColor(150, 150, 150);

impl Bars<'_> {
    fn entries(&self) -> Vec<Entry> {
        vec![
            Entry {
                label: "within the budget in UTF-16 units".into(),
                swatch: Swatch::Box(UNITS),
            },
            Entry {
                label: format!("within the token budget ({})", self.0.budget),
                swatch: Swatch::Box(style::palette(0)),
            },
        ]
    }
}

impl Figure for Bars<'_> {
    fn size(&self) -> (u32, u32) {
        let entries = self.entries();
        let h = self.0.rows.len() as u32 * ROW + 140;
        (
            1000 + legend::width(&entries) + 40,
            h.max(legend::height(&entries) + 120) + 50,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let rows = &self.0.rows;
        let entries = self.entries();
        let legend_w = legend::width(&entries) + 30;
        let (plot, side) = area.split_horizontally(area.dim_in_pixel().0 - legend_w);
        let names: Vec<String> = rows.iter().map(|r| r.strategy.to_string()).collect();
        let label_w = style::label_width(names.iter().map(String::as_str), TICK, 50);
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .margin_right(70)
            .x_label_area_size(64)
            .y_label_area_size(label_w)
            .build_cartesian_2d(
                ScaleCoord::linear(0.0, 100.0, 20.0, 10.0),
                ScaleCoord::categories(rows.len()),
            )?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc("turns within budget (%)")
            .y_desc("strategy")
            .axis_desc_style(style::text(AXIS))
            .label_style(style::text(TICK))
            .x_label_formatter(&|v| format!("{v:.0}%"))
            .y_label_formatter(&|v| names.get(v.round() as usize).cloned().unwrap_or_default())
            .bold_line_style(RGBColor(0, 0, 0).mix(0.15))
            .light_line_style(RGBColor(0, 0, 0).mix(0.05))
            .draw()?;
        let base = plot.get_base_pixel();
        for (i, r) in rows.iter().enumerate() {
            let y = i as f64;
            for (value, colour, lo, hi) in [
                (r.units, UNITS, y - 0.38, y - 0.02),
                (r.tokens, style::palette(0), y + 0.02, y + 0.38),
            ] {
                let pct = value * 100.0;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(0.0, lo), (pct, hi)],
                    colour.filled(),
                )))?;
                let (px, py) = chart.backend_coord(&(pct, (lo + hi) / 2.0));
                plot.draw_text(
                    &format!("{pct:.0}%"),
                    &style::anchored(SMALL, HPos::Left, VPos::Center, style::INK),
                    (px - base.0 + 6, py - base.1),
                )?;
            }
        }
        legend::draw(&side.margin(20, 0, 10, 0), &entries)?;
        Ok(())
    }
}
