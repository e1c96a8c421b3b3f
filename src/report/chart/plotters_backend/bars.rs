//! Grouped bars: per group (a feature) one horizontal bar of each series (a source) side by side, its value
//! written at its end so that small shares stay readable; `-` where a series has nothing to measure.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::ScaleCoord;
use super::legend::{self, Entry, Swatch};
use super::style::{self, number, AXIS, SMALL, TICK};
use super::{DrawResult, Figure};
use crate::report::chart::GroupedBars;

/// The chart.
pub(super) struct Groups<'a>(pub &'a GroupedBars);

const BAR: u32 = 16;
const GAP: u32 = 18;
/// Room right of the plot for the longest value label.
const NUMBERS: i32 = 90;

impl Groups<'_> {
    fn entries(&self) -> Vec<Entry> {
        self.0
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| Entry {
                label: s.clone(),
                swatch: Swatch::Box(style::palette(i)),
            })
            .collect()
    }

    fn bars(&self) -> u32 {
        self.0.series.len().max(1) as u32
    }

    /// The top of the value axis: the largest value rounded up to a step, at least 1%.
    fn top(&self) -> (f64, f64) {
        let hi = self
            .0
            .values
            .iter()
            .flatten()
            .flatten()
            .fold(1.0f64, |a, &v| a.max(v));
        let step = super::axis::nice_step(hi / 5.0);
        ((hi / step).ceil() * step, step)
    }
}

impl Figure for Groups<'_> {
    fn size(&self) -> (u32, u32) {
        let group = self.bars() * BAR + GAP;
        let entries = self.entries();
        let h = self.0.groups.len() as u32 * group + 140;
        (
            1000 + legend::width(&entries) + 40,
            h.max(legend::height(&entries) + 120) + 50,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let data = self.0;
        let entries = self.entries();
        let (plot, side) =
            area.split_horizontally(area.dim_in_pixel().0 - legend::width(&entries) - 30);
        let (top, step) = self.top();
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .margin_right(NUMBERS)
            .x_label_area_size(64)
            .y_label_area_size(style::label_width(
                data.groups.iter().map(String::as_str),
                TICK,
                40,
            ))
            .build_cartesian_2d(
                ScaleCoord::linear(0.0, top, step, step / 2.0),
                ScaleCoord::categories(data.groups.len()),
            )?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc(data.x_label.as_str())
            .axis_desc_style(style::text(AXIS))
            .label_style(style::text(TICK))
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&|v| {
                data.groups
                    .get(v.round() as usize)
                    .cloned()
                    .unwrap_or_default()
            })
            .bold_line_style(RGBColor(0, 0, 0).mix(0.15))
            .light_line_style(RGBColor(0, 0, 0).mix(0.05))
            .draw()?;
        let n = f64::from(self.bars());
        let band = f64::from(self.bars() * BAR) / f64::from(self.bars() * BAR + GAP);
        let bar = band / n;
        let base = plot.get_base_pixel();
        for (g, values) in data.values.iter().enumerate() {
            let first = g as f64 - band / 2.0;
            for (s, value) in values.iter().enumerate() {
                let y0 = first + s as f64 * bar;
                let end = value.unwrap_or(0.0);
                if value.is_some() {
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(0.0, y0 + bar * 0.1), (end, y0 + bar * 0.9)],
                        style::palette(s).filled(),
                    )))?;
                }
                let (px, py) = chart.backend_coord(&(end, y0 + bar / 2.0));
                let label = value.map_or_else(|| "-".to_string(), |v| format!("{v:.2}%"));
                plot.draw_text(
                    &label,
                    &style::anchored(SMALL, HPos::Left, VPos::Center, style::INK),
                    (px - base.0 + 6, py - base.1),
                )?;
            }
        }
        legend::draw(&side.margin(20, 0, 10, 0), &entries)?;
        Ok(())
    }
}
