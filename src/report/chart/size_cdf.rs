//! The size chart of a profile: the cumulative distribution of its outputs' sizes on a log axis, one line per
//! source, the compared source marked; drawn as the retention CDF is.

use super::data::{Axis, LineKind, LinePanel, Scale, Series};
use super::retention::{draw_cdf, RetentionCdf};
use super::Plot;
use crate::profile::{Profile, ProfileReport};

/// The profiles drawn: every source, then the compared one.
pub(super) fn drawn(report: &ProfileReport) -> Vec<&Profile> {
    report.profiles.iter().chain(&report.compare).collect()
}

/// The points of a profile's size CDF: (size, share of outputs at most that size in percent) at each point of
/// its quantile grid, sizes of 0 drawn at 1 (a log axis has no 0).
pub fn size_cdf_points(p: &Profile) -> Vec<(f64, f64)> {
    p.sizes
        .quantiles
        .iter()
        .map(|q| (q.units.max(1) as f64, q.percent))
        .collect()
}

/// The size CDF of every source of `report` (and the compared one, as the baseline).
pub fn size_cdf(report: &ProfileReport) -> RetentionCdf {
    let compared = report.compare.as_ref();
    let cdf = LinePanel {
        title: String::new(),
        x: Axis::new(
            "output size (UTF-16 units, log scale; empty outputs at 1)",
            Scale::Log,
        ),
        y: Axis::new("outputs of at most that size (%)", Scale::Percent),
        series: drawn(report)
            .iter()
            .enumerate()
            .map(|(i, p)| Series {
                name: p.source.name.clone(),
                points: size_cdf_points(p),
                baseline: compared.is_some_and(|c| std::ptr::eq(c, *p)),
                kind: LineKind::Other(i),
                over_budget: Vec::new(),
            })
            .filter(|s| !s.points.is_empty())
            .collect(),
        bound: None,
        marks: Vec::new(),
    };
    RetentionCdf {
        panels: vec![cdf],
        per_turn: true,
    }
}

/// The chart of a profile.
pub(super) fn plot(report: &ProfileReport) -> Option<Plot> {
    Some(Plot::new(
        "Output sizes: the share of outputs up to each size",
        "Cumulative distribution of tool-result sizes in UTF-16 units (log scale), one line per \
source, drawn through the nearest-rank percentiles 1 to 99, 99.5, 99.9, 99.99 and 100. A line further right has \
larger outputs; where a line reaches 90%, nine outputs in ten are at most that large. The compared source, if any, \
is the wide black line.",
        size_cdf(report),
        draw_cdf,
    ))
}
