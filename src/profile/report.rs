//! The report folder of `budgetlab profile --out DIR`: `profile.json` (the [`ProfileReport`]), `summary.md` (the
//! Markdown printed on stdout) and two charts in SVG and PNG, the size CDF on a log axis (one line per source)
//! and the shape features side by side, written with the report-folder safety of `run --out` (a marker file,
//! the whole folder swapped into place at once; see [`crate::report::write_folder`]).

use super::{markdown, Profile, ProfileReport};
use crate::error::{Error, Result};
use crate::report::chart::data::{Axis, LinePanel, RetentionCdf, Scale, Series};
use crate::report::chart::{render, ChartData, ChartSpec, GroupedBars, PlottersBackend};

/// The profiles drawn: every source, then the compared one.
fn drawn(report: &ProfileReport) -> Vec<&Profile> {
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

/// The charts of a profile report.
pub fn profile_charts(report: &ProfileReport) -> Vec<ChartSpec> {
    let profiles = drawn(report);
    let compared = report.compare.as_ref();
    let cdf = LinePanel {
        title: String::new(),
        x: Axis::new(
            "output size (UTF-16 units, log scale; empty outputs at 1)",
            Scale::Log,
        ),
        y: Axis::new("outputs of at most that size (%)", Scale::Percent),
        series: profiles
            .iter()
            .map(|p| Series {
                name: p.source.name.clone(),
                points: size_cdf_points(p),
                baseline: compared.is_some_and(|c| std::ptr::eq(c, *p)),
            })
            .filter(|s| !s.points.is_empty())
            .collect(),
        bound: None,
    };
    let features = shape_features();
    let shape = GroupedBars {
        groups: features.iter().map(|(name, _)| name.to_string()).collect(),
        series: profiles.iter().map(|p| p.source.name.clone()).collect(),
        values: features
            .iter()
            .map(|(_, f)| profiles.iter().map(|p| f(p).map(|v| v * 100.0)).collect())
            .collect(),
        x_label:
            "share of outputs (%); the last group: mean position of summary lines, 0 start, 100 end"
                .into(),
    };
    vec![
        ChartSpec {
            stem: "size-cdf".into(),
            title: "Output sizes: the share of outputs up to each size".into(),
            caption: "Cumulative distribution of tool-result sizes in UTF-16 units (log scale), one line per \
source, drawn through the nearest-rank percentiles 1 to 99, 99.5, 99.9, 99.99 and 100. A line further right has \
larger outputs; where a line reaches 90%, nine outputs in ten are at most that large. The compared source, if any, \
is the wide black line."
                .into(),
            data: ChartData::RetentionCdf(RetentionCdf {
                panels: vec![cdf],
                per_turn: true,
            }),
        },
        ChartSpec {
            stem: "shape".into(),
            title: "Shape features by source".into(),
            caption: "Share of outputs with each feature, one bar per source, and where summary lines sit (their \
mean position, 0 at the start of their text, 100 at its end). `-`: nothing to measure."
                .into(),
            data: ChartData::GroupedBars(shape),
        },
    ]
}

/// Every file of the report folder: name and bytes.
pub fn render_files(report: &ProfileReport) -> Result<Vec<(String, Vec<u8>)>> {
    let mut json = serde_json::to_vec_pretty(report)
        .map_err(|e| Error::io("profile.json", std::io::Error::other(e)))?;
    json.push(b'\n');
    let mut files = vec![
        ("profile.json".to_string(), json),
        ("summary.md".to_string(), markdown(report).into_bytes()),
    ];
    for chart in render(profile_charts(report), &PlottersBackend)? {
        for (path, bytes) in chart.files() {
            files.push((path, bytes.to_vec()));
        }
    }
    Ok(files)
}

/// Writes the report folder `dir` (see the module documentation).
pub fn write_report(dir: &std::path::Path, report: &ProfileReport) -> Result<()> {
    crate::report::write_folder(dir, &render_files(report)?)
}
