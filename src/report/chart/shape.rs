//! The shape chart of a profile: the share of outputs with each shape feature, one bar per source, and where
//! summary lines sit.
//!
//! Grouped bars: per group (a feature) one horizontal bar of each series (a source) side by side, its value
//! written at its end so that small shares stay readable; `-` where a series has nothing to measure.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::axis::ScaleCoord;
use super::draw::legend::{self, Entry, Swatch};
use super::draw::style::{self, number, SMALL, TICK};
use super::draw::{DrawResult, Figure, Marks};
use super::size_cdf::drawn;
use super::{draw, Plot};
use crate::profile::{Profile, ProfileReport};

/// Bars of several series side by side in groups.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupedBars {
    /// The groups, top to bottom.
    pub groups: Vec<String>,
    /// The series: one bar of each in every group, in legend order.
    pub series: Vec<String>,
    /// `values[group][series]` in percent; `None` where a series has nothing to measure (no bar, `-` written).
    pub values: Vec<Vec<Option<f64>>>,
    /// The label of the value axis.
    pub x_label: String,
}

/// A shape feature of the chart: its name and its share in a profile.
type Feature = (&'static str, fn(&Profile) -> Option<f64>);

/// The features the shape chart shows side by side.
fn shape_features() -> [Feature; 9] {
    [
        ("astral character", |p| p.shape.astral.share),
        ("any non-ASCII", |p| p.shape.non_ascii.share),
        ("CRLF line ends", |p| p.shape.crlf.share),
        ("ANSI escapes", |p| p.shape.ansi.share),
        ("empty", |p| p.shape.empty.share),
        ("whole JSON", |p| p.shape.json.share),
        ("repeated", |p| p.repeats.repeated.share),
        ("above 10,000 units", |p| p.sizes.above[0].outputs.share),
        ("summary position", |p| p.shape.summary_position.mean),
    ]
}

/// The shape features of every source of `report` (and the compared one), side by side.
pub fn shape(report: &ProfileReport) -> GroupedBars {
    let profiles = drawn(report);
    let features = shape_features();
    GroupedBars {
        groups: features.iter().map(|(name, _)| name.to_string()).collect(),
        series: profiles.iter().map(|p| p.source.name.clone()).collect(),
        values: features
            .iter()
            .map(|(_, f)| profiles.iter().map(|p| f(p).map(|v| v * 100.0)).collect())
            .collect(),
        x_label:
            "share of outputs (%); the last group: mean position of summary lines, 0 start, 100 end"
                .into(),
    }
}

/// The chart of a profile.
pub(super) fn plot(report: &ProfileReport) -> Option<Plot> {
    Some(Plot::new(
        "Shape features by source",
        "Share of outputs with each feature, one bar per source, and where summary lines sit (their \
mean position, 0 at the start of their text, 100 at its end). `-`: nothing to measure.",
        shape(report),
        |data, title, format| draw::render(title, format, &Groups(data)),
    ))
}

/// The chart.
struct Groups<'a>(&'a GroupedBars);

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
        let step = super::draw::axis::nice_step(hi / 5.0);
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

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
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
        style::mesh(&mut chart)
            .disable_y_mesh()
            .x_desc(data.x_label.as_str())
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&|v| {
                data.groups
                    .get(v.round() as usize)
                    .cloned()
                    .unwrap_or_default()
            })
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
        Ok(Marks::default())
    }
}
