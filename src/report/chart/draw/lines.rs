//! Panels of lines in a grid, each row with its legend on the right: what the retention CDF, the budget curves,
//! the sweeps and the cost chart are made of. Every strategy's line has its own look on every chart (colour,
//! marker and dash, see [`style::strategy`]); the baseline (the reference) is black, wider, and drawn first so
//! that lines equal to it stay visible; markers go over the lines and the bound over both, and lines drawn on the
//! same pixels are named in their panel ([`overlap`]). A point of a row over budget gets a hollow grey circle
//! ([`style::OVER_BUDGET`]) instead of its line's marker, named in the legend, so that it never reads as a win.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::ScaleCoord;
use super::hotspot::Marks;
use super::legend::{self, Entry, Swatch};
use super::mark::{self, MarkerAt};
use super::overlap;
use super::style::{self, number, StrategyStyle, PANEL_TITLE};
use super::DrawResult;
use crate::report::chart::data::{LineKind, LinePanel, Series};

/// How lines are drawn.
#[derive(Debug, Clone, Copy)]
pub(in crate::report::chart) struct Look {
    /// A marker at every point (for few points); otherwise a few markers along each line (a CDF), at points
    /// that differ from line to line so that lines on top of each other still show whose they are.
    pub markers: bool,
    /// Width of one panel.
    pub panel_width: u32,
    /// Height of one panel.
    pub panel_height: u32,
}

/// The look of `series`: the reference's for the baseline, its strategy's (the same on every chart of every
/// report, see [`style::strategy`]), or the `i`-th of lines that are no strategies.
pub(in crate::report::chart) fn style_of(series: &Series) -> StrategyStyle {
    match series.kind {
        _ if series.baseline => style::REFERENCE,
        LineKind::Strategy => style::strategy(&series.name),
        LineKind::Other(i) => style::other(i),
    }
}

/// The legend of a row: each line once, in the order the row first shows them, with its look, and the bound
/// where one is drawn.
pub(in crate::report::chart) fn row_legend(panels: &[LinePanel]) -> Vec<Entry> {
    let mut legend: Vec<Entry> = Vec::new();
    for s in panels.iter().flat_map(|p| &p.series) {
        if !legend.iter().any(|e| e.label == s.name) {
            legend.push(Entry {
                label: s.name.clone(),
                swatch: Swatch::Line {
                    style: style_of(s),
                    marker: true,
                },
            });
        }
    }
    if panels
        .iter()
        .flat_map(|p| &p.series)
        .any(|s| !s.over_budget.is_empty())
    {
        legend.push(Entry {
            label: OVER_BUDGET_LABEL.into(),
            swatch: Swatch::Marker(style::OVER_BUDGET),
        });
    }
    if let Some(bound) = panels
        .iter()
        .find_map(|p| p.bound.as_ref().filter(|b| !b.points.is_empty()))
    {
        legend.push(Entry {
            label: bound.name.clone(),
            swatch: Swatch::Line {
                style: style::BOUND,
                marker: false,
            },
        });
    }
    legend
}

/// The legend's words for a point over budget.
pub(in crate::report::chart) const OVER_BUDGET_LABEL: &str =
    "hollow grey: over budget there, not ranked";

fn rows(panels: &[LinePanel], columns: usize) -> impl Iterator<Item = &[LinePanel]> {
    panels.chunks(columns.max(1))
}

/// Width of the legend column and height of each row.
fn layout(panels: &[LinePanel], columns: usize, look: Look) -> (u32, Vec<u32>) {
    let legends: Vec<Vec<Entry>> = rows(panels, columns).map(row_legend).collect();
    let legend_w = legends.iter().map(|l| legend::width(l)).max().unwrap_or(0);
    let heights = legends
        .iter()
        .map(|l| look.panel_height.max(legend::height(l) + 60))
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
) -> DrawResult<Marks>
where
    DB::ErrorType: 'static,
{
    let (legend_w, heights) = layout(panels, columns, look);
    let mut marks = Marks::default();
    let mut rest = area.clone();
    for (row, height) in rows(panels, columns).zip(heights) {
        let (this, below) = rest.split_vertically(height);
        rest = below;
        let row_legend = row_legend(row);
        let (charts, legend_area) = this.split_horizontally(this.dim_in_pixel().0 - legend_w - 20);
        let cells = charts.split_evenly((1, columns.max(1)));
        for (panel, cell) in row.iter().zip(&cells) {
            marks.extend(draw_panel(cell, panel, look)?);
        }
        let legend_top = if row.iter().any(|p| !p.title.is_empty()) {
            40
        } else {
            14
        };
        legend::draw(&legend_area.margin(legend_top, 0, 10, 0), &row_legend)?;
    }
    Ok(marks)
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &LinePanel,
    look: Look,
) -> DrawResult<Marks>
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
    let build = |y: ScaleCoord| {
        ChartBuilder::on(&area)
            .margin(10)
            .margin_top(if panel.marks.is_empty() { 10 } else { 48 })
            .margin_right(30)
            .x_label_area_size(64)
            .y_label_area_size(84)
            .build_cartesian_2d(x.clone(), y)
    };
    // The baseline first, wide, so that a line equal to it shows as a coloured line on a black one; then every
    // line's markers over all the lines, and the bound over everything, so that it shows where lines reach it.
    let mut ordered: Vec<&Series> = panel.series.iter().filter(|s| s.baseline).collect();
    ordered.extend(panel.series.iter().filter(|s| !s.baseline));
    let mut chart = build(y.clone())?;
    // Where the names of lines drawn as one would cover a line in every corner, room is made above the data.
    if let Some(share) = overlap::headroom(&chart, &ordered) {
        chart = build(y.raised(share))?;
    }
    style::mesh(&mut chart)
        .x_desc(panel.x.label.as_str())
        .y_desc(panel.y.label.as_str())
        .x_label_formatter(&|v| number(*v))
        .y_label_formatter(&|v| number(*v))
        .draw()?;
    mark::x_marks(&mut chart, &panel.marks)?;
    let styled: Vec<(&Series, StrategyStyle)> =
        ordered.into_iter().map(|s| (s, style_of(s))).collect();
    let mut marks = Marks::default();
    for (s, style) in &styled {
        chart.draw_series(std::iter::once(mark::stroke(s.points.clone(), style)))?;
        if look.markers {
            marks.series(panel, s, |p| chart.backend_coord(&p));
        }
    }
    let markers: Vec<((f64, f64), StrategyStyle)> = styled
        .iter()
        .enumerate()
        .flat_map(|(j, (s, style))| {
            marked(s.points.len(), j, styled.len(), look.markers).map(move |i| {
                let point = s.points[i];
                if s.over_budget.contains(&point) {
                    (point, style::OVER_BUDGET)
                } else {
                    (point, *style)
                }
            })
        })
        .collect();
    for (point, style) in &markers {
        let radius = if style.width > 2 { 6 } else { 5 };
        chart.draw_series(std::iter::once(MarkerAt::new(*point, style, radius)))?;
    }
    if let Some(bound) = &panel.bound {
        chart.draw_series(std::iter::once(mark::stroke(
            bound.points.clone(),
            &style::BOUND,
        )))?;
    }
    let lines: Vec<&Series> = styled.iter().map(|(s, _)| *s).collect();
    overlap::name_coinciding(&area, &chart, &lines)?;
    Ok(marks)
}

/// The points of a line of `n` points that get a marker: every one with `every`, otherwise about eight spread
/// along it, shifted by the line's place `j` among the panel's `of` lines so that lines on top of each other
/// show their markers side by side.
fn marked(n: usize, j: usize, of: usize, every: bool) -> impl Iterator<Item = usize> {
    let step = if every { 1 } else { (n / 8).max(1) };
    let start = if every { 0 } else { j * step / of.max(1) };
    (start..n).step_by(step)
}
