//! The overshoot distribution: one horizontal box plot per strategy of how far its over-budget turns went over,
//! in percent of the budget on a log axis, with the count of over-budget turns at the right.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::ScaleCoord;
use super::legend::{self, Entry, Swatch};
use super::style::{self, number, AXIS, SMALL, TICK};
use super::{DrawResult, Figure};
use crate::report::chart::data::Overshoot;

/// The chart.
pub(super) struct Boxes<'a>(pub &'a Overshoot);

const ROW: u32 = 34;
const COUNTS: i32 = 150;

fn entries() -> Vec<Entry> {
    vec![
        Entry {
            label: "box: middle half of the over-budget turns".into(),
            swatch: Swatch::BoxPlot(style::palette(0)),
        },
        Entry {
            label: "bar in the box: median".into(),
            swatch: Swatch::Tick(BLACK),
        },
        Entry {
            label: "whiskers: smallest to largest".into(),
            swatch: Swatch::Line {
                colour: style::palette(0),
                width: 2,
                dashed: false,
                marker: false,
            },
        },
        Entry {
            label: "reference".into(),
            swatch: Swatch::BoxPlot(style::BASELINE),
        },
    ]
}

impl Boxes<'_> {
    fn label_width(&self) -> u32 {
        style::label_width(self.0.rows.iter().map(|r| r.strategy.as_str()), TICK, 50)
    }
}

impl Figure for Boxes<'_> {
    fn size(&self) -> (u32, u32) {
        let h = self.0.rows.len() as u32 * ROW + 140;
        (
            1000 + legend::width(&entries()) + 40,
            h.max(legend::height(&entries()) + 120) + 50,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let rows = &self.0.rows;
        let legend_w = legend::width(&entries()) + 30;
        let (plot, side) = area.split_horizontally(area.dim_in_pixel().0 - legend_w);
        let spreads = rows.iter().filter_map(|r| r.spread);
        let (lo, hi) = spreads.fold((f64::INFINITY, 0f64), |(lo, hi), s| {
            (lo.min(s.min), hi.max(s.max))
        });
        let x = if lo.is_finite() && hi > 0.0 {
            ScaleCoord::log(lo.max(1e-3), hi)
        } else {
            ScaleCoord::log(1.0, 100.0)
        };
        let x_lo = x.range().start;
        let names: Vec<String> = rows.iter().map(|r| r.strategy.to_string()).collect();
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .margin_right(COUNTS)
            .x_label_area_size(64)
            .y_label_area_size(self.label_width())
            .build_cartesian_2d(x, ScaleCoord::categories(rows.len()))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc("overshoot of an over-budget turn (% of the budget, log scale)")
            .y_desc("strategy")
            .axis_desc_style(style::text(AXIS))
            .label_style(style::text(TICK))
            .x_label_formatter(&|v| format!("{}%", number(*v)))
            .y_label_formatter(&|v| names.get(v.round() as usize).cloned().unwrap_or_default())
            .bold_line_style(RGBColor(0, 0, 0).mix(0.15))
            .light_line_style(RGBColor(0, 0, 0).mix(0.05))
            .draw()?;
        let base = plot.get_base_pixel();
        let right = chart.plotting_area().get_pixel_range().0.end;
        plot.draw_text(
            "over budget / turns",
            &style::anchored(SMALL, HPos::Left, VPos::Bottom, style::MUTED),
            (
                right - base.0 + 12,
                chart.backend_coord(&(x_lo, -0.5)).1 - base.1 - 4,
            ),
        )?;
        for (i, r) in rows.iter().enumerate() {
            let y = i as f64;
            let colour = if r.strategy.is_reference() {
                style::BASELINE
            } else {
                style::palette(0)
            };
            match r.spread {
                Some(s) => {
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(s.min, y), (s.max, y)],
                        ShapeStyle::from(&colour).stroke_width(2),
                    )))?;
                    for end in [s.min, s.max] {
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(end, y - 0.2), (end, y + 0.2)],
                            ShapeStyle::from(&colour).stroke_width(2),
                        )))?;
                    }
                    let box_corners = [(s.q1, y - 0.3), (s.q3, y + 0.3)];
                    chart.draw_series(std::iter::once(Rectangle::new(
                        box_corners,
                        colour.mix(0.35).filled(),
                    )))?;
                    chart.draw_series(std::iter::once(Rectangle::new(
                        box_corners,
                        ShapeStyle::from(&colour).stroke_width(2),
                    )))?;
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(s.median, y - 0.3), (s.median, y + 0.3)],
                        ShapeStyle::from(&BLACK).stroke_width(3),
                    )))?;
                }
                None => {
                    let (px, py) = chart.backend_coord(&(x_lo, y));
                    plot.draw_text(
                        "never over budget",
                        &style::anchored(SMALL, HPos::Left, VPos::Center, style::MUTED),
                        (px - base.0 + 8, py - base.1),
                    )?;
                }
            }
            let py = chart.backend_coord(&(x_lo, y)).1;
            plot.draw_text(
                &format!("{} / {}", r.over, r.turns),
                &style::anchored(SMALL, HPos::Left, VPos::Center, style::INK),
                (right - base.0 + 12, py - base.1),
            )?;
        }
        legend::draw(&side.margin(20, 0, 10, 0), &entries())?;
        Ok(())
    }
}
