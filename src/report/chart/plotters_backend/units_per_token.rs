//! Units per token by kind: one horizontal box plot per kind of output (one colour per tokenizer), on a linear
//! axis with the window-relative rule's 3 units per token marked.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::ScaleCoord;
use super::legend::{self, Entry, Swatch};
use super::style::{self, number, AXIS, SMALL, TICK};
use super::{DrawResult, Figure};
use crate::report::chart::data::UnitsPerToken;

/// The chart.
pub(super) struct Boxes<'a>(pub &'a UnitsPerToken);

const ROW: u32 = 30;
/// The conversion the window-relative rule assumes.
const RULE: f64 = 3.0;

impl Boxes<'_> {
    fn entries(&self) -> Vec<Entry> {
        let mut out: Vec<Entry> = self
            .0
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| Entry {
                label: s.tokenizer.clone(),
                swatch: Swatch::BoxPlot(style::palette(i)),
            })
            .collect();
        out.push(Entry {
            label: "box: middle half; whiskers: min to max".into(),
            swatch: Swatch::Tick(BLACK),
        });
        out.push(Entry {
            label: "3 units per token (the rule's)".into(),
            swatch: Swatch::Line {
                colour: style::MUTED,
                width: 2,
                dashed: true,
                marker: false,
            },
        });
        out
    }

    fn lanes(&self) -> usize {
        self.0.kinds.len() * self.0.series.len().max(1)
    }
}

impl Figure for Boxes<'_> {
    fn size(&self) -> (u32, u32) {
        let entries = self.entries();
        let h = self.lanes() as u32 * ROW + 140;
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
        let legend_w = legend::width(&entries) + 30;
        let (plot, side) = area.split_horizontally(area.dim_in_pixel().0 - legend_w);
        let hi = data
            .series
            .iter()
            .flat_map(|s| s.boxes.iter().flatten())
            .fold(RULE, |hi, s| hi.max(s.max));
        let hi = (hi + 0.5).ceil();
        let step = if hi > 12.0 { 2.0 } else { 1.0 };
        let x = ScaleCoord::linear(0.0, hi, step, step / 2.0);
        let n = data.series.len().max(1);
        let lanes = self.lanes();
        let names: Vec<String> = (0..lanes)
            .map(|i| {
                if i % n == 0 {
                    data.kinds[i / n].clone()
                } else {
                    String::new()
                }
            })
            .collect();
        let label_w = style::label_width(data.kinds.iter().map(String::as_str), TICK, 50);
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .margin_right(30)
            .x_label_area_size(64)
            .y_label_area_size(label_w)
            .build_cartesian_2d(x, ScaleCoord::categories(lanes))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc("UTF-16 units per token of one turn's output of the kind")
            .y_desc("kind of output")
            .axis_desc_style(style::text(AXIS))
            .label_style(style::text(TICK))
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&|v| names.get(v.round() as usize).cloned().unwrap_or_default())
            .bold_line_style(RGBColor(0, 0, 0).mix(0.15))
            .light_line_style(RGBColor(0, 0, 0).mix(0.05))
            .draw()?;
        chart.draw_series(DashedLineSeries::new(
            vec![(RULE, -0.5), (RULE, lanes as f64 - 0.5)],
            6,
            4,
            ShapeStyle::from(&style::MUTED).stroke_width(2),
        ))?;
        let base = plot.get_base_pixel();
        for (k, _) in data.kinds.iter().enumerate() {
            for (t, series) in data.series.iter().enumerate() {
                let y = (k * n + t) as f64;
                let colour = style::palette(t);
                match series.boxes.get(k).copied().flatten() {
                    Some(s) => {
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(s.min, y), (s.max, y)],
                            ShapeStyle::from(&colour).stroke_width(2),
                        )))?;
                        let corners = [(s.q1, y - 0.3), (s.q3, y + 0.3)];
                        chart.draw_series(std::iter::once(Rectangle::new(
                            corners,
                            colour.mix(0.35).filled(),
                        )))?;
                        chart.draw_series(std::iter::once(Rectangle::new(
                            corners,
                            ShapeStyle::from(&colour).stroke_width(2),
                        )))?;
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(s.median, y - 0.3), (s.median, y + 0.3)],
                            ShapeStyle::from(&BLACK).stroke_width(3),
                        )))?;
                    }
                    None => {
                        let (px, py) = chart.backend_coord(&(0.0, y));
                        plot.draw_text(
                            "no tokens",
                            &style::anchored(SMALL, HPos::Left, VPos::Center, style::MUTED),
                            (px - base.0 + 8, py - base.1),
                        )?;
                    }
                }
            }
        }
        legend::draw(&side.margin(20, 0, 10, 0), &entries)?;
        Ok(())
    }
}
