//! The points of a chart a reader can hover on the page: where each marker was drawn, as a share of the image's
//! width and height (so that the page finds it at any scale), with what it shows (the line, the panel, both
//! values). Drawing code marks a point where it draws its marker, into the [`Marks`] it returns; a figure's
//! drawing returns its marks, and [`Marks::hotspots`] makes them the image's hotspots once its size is known.

use super::style::number;
use crate::report::chart::data::{Axis, LinePanel, Series};

/// A point of a chart: where its marker is, as a share of the image's width and height from the top left
/// corner, rounded to 4 decimals, and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Hotspot {
    /// The share of the image's width left of the point.
    pub x: f64,
    /// The share of the image's height above the point.
    pub y: f64,
    /// The line the point is on (a strategy, a budget).
    pub line: String,
    /// What the point shows: the panel's title, if any, and the value on each axis, one a line.
    pub values: String,
}

/// The points a drawing marked, in pixels of its image, in the order it drew them, each with its line and what it
/// shows; none for a chart without markers a reader can hover.
#[derive(Debug, Default)]
pub(in crate::report::chart) struct Marks(Vec<((i32, i32), String, String)>);

impl Marks {
    /// Marks every point of `series`, drawn in `panel` at the pixel `at` gives.
    pub(super) fn series(
        &mut self,
        panel: &LinePanel,
        series: &Series,
        at: impl Fn((f64, f64)) -> (i32, i32),
    ) {
        for &p in &series.points {
            self.0.push((at(p), series.name.clone(), values(panel, p)));
        }
    }

    /// Adds the marks of another part of the same image after these.
    pub(super) fn extend(&mut self, other: Marks) {
        self.0.extend(other.0);
    }

    /// The marks as hotspots of an image of `size` pixels.
    pub(in crate::report::chart) fn hotspots(self, size: (u32, u32)) -> Vec<Hotspot> {
        self.0
            .into_iter()
            .map(|(pixel, line, values)| Hotspot {
                x: share(pixel.0, size.0),
                y: share(pixel.1, size.1),
                line,
                values,
            })
            .collect()
    }
}

/// `pixel` of `size` pixels as a share rounded to 4 decimals.
fn share(pixel: i32, size: u32) -> f64 {
    (f64::from(pixel) / f64::from(size.max(1)) * 1e4).round() / 1e4
}

/// What a point of `panel` shows: the panel's title (if any), then each axis's name and the value.
fn values(panel: &LinePanel, (x, y): (f64, f64)) -> String {
    let mut lines = Vec::with_capacity(3);
    if !panel.title.is_empty() {
        lines.push(panel.title.clone());
    }
    lines.push(format!("{}: {}", axis_name(&panel.x), value(x)));
    lines.push(format!("{}: {}", axis_name(&panel.y), value(y)));
    lines.join("\n")
}

/// An axis's label without the note on its scale: `budget (UTF-16 units, log scale)` reads `budget (UTF-16 units)`.
fn axis_name(axis: &Axis) -> String {
    axis.label
        .replace(", log scale)", ")")
        .replace(" (log scale)", "")
}

/// A value as a reader wants it: whole from 100 up (`20,000`), else three significant digits (`91.2`, `1.04`,
/// `0.0123`).
fn value(v: f64) -> String {
    if !v.is_finite() {
        return number(v);
    }
    if v.abs() >= 100.0 {
        let whole = crate::gate::markdown::count(v.abs().round() as usize);
        return if v < 0.0 { format!("-{whole}") } else { whole };
    }
    if v == 0.0 {
        return "0".into();
    }
    let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::chart::data::Scale;

    #[test]
    fn values_read_whole_from_100_and_in_three_digits_below() {
        assert_eq!(
            [20_000.0, 2896.31, 100.0, 99.96, 91.23, 1.0449, 0.012345, 0.0, 12.5, -250.0]
                .map(value),
            ["20,000", "2,896", "100", "100", "91.2", "1.04", "0.0123", "0", "12.5", "-250"]
        );
    }

    #[test]
    fn a_marked_point_is_a_share_of_the_image_with_its_line_and_values() {
        let panel = LinePanel {
            title: "Needle survival: Batch allocations".into(),
            x: Axis::new("budget (UTF-16 units, log scale)", Scale::Log),
            y: Axis::new("needles still visible (% of planted)", Scale::Percent),
            series: Vec::new(),
            bound: None,
            marks: Vec::new(),
        };
        let series = Series {
            name: "reference".into(),
            points: vec![(20_000.0, 91.234), (50_000.0, 100.0)],
            baseline: true,
            kind: crate::report::chart::data::LineKind::Strategy,
            over_budget: Vec::new(),
        };
        let mut marks = Marks::default();
        marks.series(&panel, &series, |(x, _)| {
            if x < 30_000.0 {
                (300, 350)
            } else {
                (1000, 41)
            }
        });
        assert_eq!(
            marks.hotspots((1200, 700)),
            [
                Hotspot {
                    x: 0.25,
                    y: 0.5,
                    line: "reference".into(),
                    values: "Needle survival: Batch allocations\nbudget (UTF-16 units): 20,000\n\
needles still visible (% of planted): 91.2"
                        .into(),
                },
                Hotspot {
                    x: 0.8333,
                    y: 0.0586,
                    line: "reference".into(),
                    values: "Needle survival: Batch allocations\nbudget (UTF-16 units): 50,000\n\
needles still visible (% of planted): 100"
                        .into(),
                },
            ]
        );
        // Marks of two parts of one image keep their order; none make no hotspot.
        assert!(Marks::default().hotspots((10, 10)).is_empty());
        let mut first = Marks::default();
        first.series(&panel, &series, |_| (10, 10));
        let mut second = Marks::default();
        second.series(&panel, &series, |_| (20, 20));
        first.extend(second);
        assert_eq!(
            first
                .hotspots((100, 100))
                .iter()
                .map(|h| (h.x, h.y))
                .collect::<Vec<_>>(),
            [(0.1, 0.1), (0.1, 0.1), (0.2, 0.2), (0.2, 0.2)]
        );
    }
}
