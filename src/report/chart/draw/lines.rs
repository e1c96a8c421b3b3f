//! Panels of lines in a grid, each row with its legend on the right: what the retention CDF, the budget curves,
//! the sweeps and the cost chart are made of. Within a row every panel shows the same lines in the same
//! colours; the baseline (the reference) is black, wider, and drawn first so that lines equal to it stay visible.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::ScaleCoord;
use super::legend::{self, Entry, Swatch};
use super::style::{self, number, AXIS, PANEL_TITLE, TICK};
use super::DrawResult;
use crate::report::chart::data::{LinePanel, Series};

/// How lines are drawn.
#[derive(Debug, Clone, Copy)]
pub(in crate::report::chart) struct Look {
    /// A point marker at every point (for few points; not for CDFs).
    pub markers: bool,
    /// Width of one panel.
    pub panel_width: u32,
    /// Height of one panel.
    pub panel_height: u32,
}

/// The colour and width each line of a row gets, and the row's legend.
struct RowStyle {
    lines: Vec<(String, RGBColor, u32)>,
    legend: Vec<Entry>,
}

fn row_style(panels: &[LinePanel], look: Look) -> RowStyle {
    let mut names: Vec<(&str, bool)> = Vec::new();
    for s in panels.iter().flat_map(|p| &p.series) {
        if !names.iter().any(|(n, _)| *n == s.name) {
            names.push((&s.name, s.baseline));
        }
    }
    let mut next = 0;
    let lines: Vec<(String, RGBColor, u32)> = names
        .iter()
        .map(|&(name, baseline)| {
            if baseline {
                (name.to_string(), style::BASELINE, 4)
            } else {
                next += 1;
                (name.to_string(), style::palette(next - 1), 2)
            }
        })
        .collect();
    let mut legend: Vec<Entry> = lines
        .iter()
        .map(|(name, colour, width)| Entry {
            label: name.clone(),
            swatch: Swatch::Line {
                colour: *colour,
                width: *width,
                dashed: false,
                marker: look.markers,
            },
        })
        .collect();
    if let Some(bound) = panels.iter().find_map(|p| p.bound.as_ref()) {
        legend.push(Entry {
            label: bound.name.clone(),
            swatch: Swatch::Line {
                colour: style::MUTED,
                width: 2,
                dashed: true,
                marker: false,
            },
        });
    }
    RowStyle { lines, legend }
}

fn rows(panels: &[LinePanel], columns: usize) -> impl Iterator<Item = &[LinePanel]> {
    panels.chunks(columns.max(1))
}

/// Width of the legend column and height of each row.
fn layout(panels: &[LinePanel], columns: usize, look: Look) -> (u32, Vec<u32>) {
    let styles: Vec<RowStyle> = rows(panels, columns).map(|r| row_style(r, look)).collect();
    let legend_w = styles
        .iter()
        .map(|s| legend::width(&s.legend))
        .max()
        .unwrap_or(0);
    let heights = styles
        .iter()
        .map(|s| look.panel_height.max(legend::height(&s.legend) + 60))
        .collect();
    (legend_w, heights)
}

/// The size of the grid.
pub(in crate::report::chart) fn size(
    panels: &[LinePanel],
    columns: usize,
    look: Look,
) -> (u32, u32) {
    let (legend_w, heights) = layout(panels, columns, look);
    let columns = columns.clamp(1, panels.len().max(1)) as u32;
    (
        columns * look.panel_width + legend_w + 40,
        heights.iter().sum::<u32>() + 50,
    )
}

/// Draws the grid of `panels`, `columns` to a row.
pub(in crate::report::chart) fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panels: &[LinePanel],
    columns: usize,
    look: Look,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (legend_w, heights) = layout(panels, columns, look);
    let mut rest = area.clone();
    for (row, height) in rows(panels, columns).zip(heights) {
        let (this, below) = rest.split_vertically(height);
        rest = below;
        let row_style = row_style(row, look);
        let (charts, legend_area) = this.split_horizontally(this.dim_in_pixel().0 - legend_w - 20);
        let cells = charts.split_evenly((1, columns.max(1)));
        for (panel, cell) in row.iter().zip(&cells) {
            draw_panel(cell, panel, &row_style, look)?;
        }
        let legend_top = if row.iter().any(|p| !p.title.is_empty()) {
            40
        } else {
            14
        };
        legend::draw(&legend_area.margin(legend_top, 0, 10, 0), &row_style.legend)?;
    }
    Ok(())
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &LinePanel,
    row: &RowStyle,
    look: Look,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let all = || panel.series.iter().chain(&panel.bound);
    let x = ScaleCoord::fit(
        panel.x.scale,
        all().flat_map(|s| s.points.iter().map(|p| p.0)),
    );
    let y = ScaleCoord::fit(
        panel.y.scale,
        all().flat_map(|s| s.points.iter().map(|p| p.1)),
    );
    let area = if panel.title.is_empty() {
        area.clone()
    } else {
        let (title, rest) = area.split_vertically(36);
        let (w, _) = title.dim_in_pixel();
        title.draw_text(
            &panel.title,
            &style::anchored(PANEL_TITLE, HPos::Center, VPos::Top, style::INK),
            (w as i32 / 2, 6),
        )?;
        rest
    };
    let mut chart = ChartBuilder::on(&area)
        .margin(10)
        .margin_right(30)
        .x_label_area_size(64)
        .y_label_area_size(84)
        .build_cartesian_2d(x, y)?;
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
    if let Some(bound) = &panel.bound {
        chart.draw_series(DashedLineSeries::new(
            bound.points.iter().copied(),
            8,
            6,
            ShapeStyle::from(&style::MUTED).stroke_width(2),
        ))?;
    }
    // The baseline first, wide, so that a line equal to it shows as a coloured line on a black one.
    let mut ordered: Vec<&Series> = panel.series.iter().filter(|s| s.baseline).collect();
    ordered.extend(panel.series.iter().filter(|s| !s.baseline));
    for s in ordered {
        let (colour, width) = row
            .lines
            .iter()
            .find(|(n, _, _)| *n == s.name)
            .map_or((style::MUTED, 2), |(_, c, w)| (*c, *w));
        chart.draw_series(LineSeries::new(
            s.points.iter().copied(),
            ShapeStyle::from(&colour).stroke_width(width),
        ))?;
        if look.markers {
            chart.draw_series(
                s.points
                    .iter()
                    .map(|&p| Circle::new(p, width + 2, colour.filled())),
            )?;
            super::hotspot::mark_series(panel, s, |p| chart.backend_coord(&p));
        }
    }
    Ok(())
}
