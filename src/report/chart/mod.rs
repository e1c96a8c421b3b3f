//! Charts of a run, a sweep, a profile or a tune: one file a chart, each holding what the chart shows (a pure function of
//! the results, and of the tallies of single turns where it has them), how it is drawn and the caption saying
//! what to read from it; [`CHARTS`] is the one list of them, in page order, naming each chart's file and the
//! report that shows it. A report folder gets each of its charts as SVG and PNG (`charts/STEM.svg`, `.png`),
//! placed on its page in the list's order. What several charts share is in `data/` (lines, axes, panels, the
//! tallies of single turns) and `draw/` (the page a chart is drawn on, axes, legends, styles).
//!
//! Text is drawn with the DejaVu Sans font shipped in `assets/fonts/`, so charts render the same on a machine
//! with no fonts installed.
//!
//! Adding a chart is one file here (its data, its [`Figure`](draw::Figure) and a function making its [`Plot`]
//! from the report's results), its `mod` line and one line in [`CHARTS`]; a chart file left out of the list is
//! dead code, which the lints refuse.

pub mod compliance;
pub mod cost;
pub mod cost_floor;
pub mod curves;
pub mod data;
mod draw;
pub mod needles;
pub mod overshoot;
pub mod pareto;
pub mod persistence;
pub mod retention;
pub mod shape;
pub mod size_cdf;
pub mod sweep;
pub mod token_compliance;
pub mod trend;
pub mod tune;
pub mod units_per_token;
pub mod used;

#[cfg(test)]
mod tests;

use self::data::TurnTallies;
pub use self::draw::hotspot::Hotspot;
use crate::error::Result;
use crate::history::{Table, TrackedFigure};
use crate::metrics::Metric;
use crate::profile::ProfileReport;
use crate::run::RunResults;
use crate::sweep::SweepResults;
use crate::tune::TuneResults;

/// Every chart, in page order: its file name (without extension) and the report that shows it, with the
/// function making it from that report's results (`None`: nothing to draw in this report).
pub(crate) const CHARTS: &[Chart] = &[
    Chart::run("compliance", compliance::plot),
    Chart::run("overshoot", overshoot::plot),
    Chart::run("retention-cdf", retention::plot),
    Chart::run("needles", needles::plot),
    Chart::run(used::STEM, used::plot),
    Chart::run("persistence", persistence::plot),
    Chart::run("budget-curves", curves::plot),
    Chart::run(pareto::STEM, pareto::plot),
    Chart::run("cost-floor", cost_floor::plot),
    Chart::run("cost", cost::plot),
    Chart::run("units-per-token", units_per_token::plot),
    Chart::run("token-compliance", token_compliance::plot),
    Chart::sweep("sweep-retention", |s| sweep::metric(s, Metric::Retention)),
    Chart::sweep("sweep-needles", |s| sweep::metric(s, Metric::Needles)),
    Chart::sweep("sweep-compliance", |s| sweep::metric(s, Metric::Compliance)),
    Chart::sweep("sweep-writes", |s| sweep::metric(s, Metric::WRITES)),
    Chart::sweep("sweep-token-compliance", sweep::token_compliance),
    Chart::profile("size-cdf", size_cdf::plot),
    Chart::profile("shape", shape::plot),
    Chart::tune(tune::FRONT, tune::front),
    Chart::tune(tune::PROGRESS, tune::progress),
    Chart::history("trend-compliance", |h| {
        trend::plot(h, TrackedFigure::Metric(Metric::Compliance))
    }),
    Chart::history("trend-retention", |h| {
        trend::plot(h, TrackedFigure::Metric(Metric::Retention))
    }),
    Chart::history("trend-needles", |h| {
        trend::plot(h, TrackedFigure::Metric(Metric::Needles))
    }),
    Chart::history("trend-writes", |h| {
        trend::plot(h, TrackedFigure::Metric(Metric::WRITES))
    }),
    Chart::history("trend-used", |h| {
        trend::plot(h, TrackedFigure::UsedSurvival)
    }),
    Chart::history("trend-cost", |h| {
        trend::plot(h, TrackedFigure::Metric(Metric::Cost))
    }),
    Chart::history("trend-time", |h| {
        trend::plot(h, TrackedFigure::Metric(Metric::Time))
    }),
];

/// A chart: its file name and how it is made.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chart {
    /// The file name without extension (`compliance` gives `charts/compliance.svg` and `.png`).
    pub(crate) stem: &'static str,
    /// The report that shows it and how it is made from that report's results.
    pub(crate) make: Make,
}

/// The report a chart is shown in, with the function making it from that report's results.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Make {
    /// A run's report folder (`run`, `merge`, `report DIR`).
    Run(fn(&Run<'_>) -> Option<Plot>),
    /// A sweep's folder.
    Sweep(fn(&SweepResults) -> Option<Plot>),
    /// A profile's folder (`profile --out`).
    Profile(fn(&ProfileReport) -> Option<Plot>),
    /// A tune's folder (`budgetlab tune`).
    Tune(fn(&TuneResults) -> Option<Plot>),
    /// A nightly history's trends (`history report`, and `report DIR --history DB` on a run's page).
    History(fn(&Table) -> Option<Plot>),
}

/// The results a report's charts are made from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    /// A run's.
    Run(Run<'a>),
    /// A sweep's.
    Sweep(&'a SweepResults),
    /// A profile's.
    Profile(&'a ProfileReport),
    /// A tune's.
    Tune(&'a TuneResults),
    /// A nightly history's nights and series.
    History(&'a Table),
}

/// A run's results and, when its records were read, the tallies of its single turns. Charts that need the
/// tallies (cost against batch size) are left out without them; the overshoot and retention charts then fall
/// back on the rows' figures.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run<'a> {
    /// The results.
    pub(crate) results: &'a RunResults,
    /// The tallies of its turns, if its records were read.
    pub(crate) turns: Option<&'a TurnTallies>,
}

impl Run<'_> {
    /// Whether the charts are drawn from single turns (the captions say which).
    pub(crate) fn per_turn(&self) -> bool {
        self.turns.is_some_and(|t| t.turns() > 0)
    }
}

impl Chart {
    /// A chart of a run's report.
    const fn run(stem: &'static str, make: fn(&Run<'_>) -> Option<Plot>) -> Chart {
        Chart {
            stem,
            make: Make::Run(make),
        }
    }

    /// A chart of a sweep's folder.
    const fn sweep(stem: &'static str, make: fn(&SweepResults) -> Option<Plot>) -> Chart {
        Chart {
            stem,
            make: Make::Sweep(make),
        }
    }

    /// A chart of a profile's folder.
    const fn profile(stem: &'static str, make: fn(&ProfileReport) -> Option<Plot>) -> Chart {
        Chart {
            stem,
            make: Make::Profile(make),
        }
    }

    /// A chart of a tune's folder.
    const fn tune(stem: &'static str, make: fn(&TuneResults) -> Option<Plot>) -> Chart {
        Chart {
            stem,
            make: Make::Tune(make),
        }
    }

    /// A trend chart of a nightly history.
    const fn history(stem: &'static str, make: fn(&Table) -> Option<Plot>) -> Chart {
        Chart {
            stem,
            make: Make::History(make),
        }
    }

    /// The chart made from `source`, if `source` is of the report that shows it and has something to draw.
    fn plot(&self, source: &Source<'_>) -> Option<Plot> {
        match (self.make, source) {
            (Make::Run(make), Source::Run(run)) => make(run),
            (Make::Sweep(make), Source::Sweep(sweep)) => make(sweep),
            (Make::Profile(make), Source::Profile(profile)) => make(profile),
            (Make::Tune(make), Source::Tune(tune)) => make(tune),
            (Make::History(make), Source::History(table)) => make(table),
            _ => None,
        }
    }
}

/// The drawing of one image of a chart: from its title and the format, the bytes of the file.
type DrawFn = Box<dyn Fn(&str, Format) -> Result<draw::Drawn> + Send + Sync>;

/// A chart made from a report's results, ready to draw: its title, its caption and its data with the way it is
/// drawn.
pub(crate) struct Plot {
    /// The title drawn on the chart and shown on the page.
    title: String,
    /// What to read from it, shown under it on the page.
    caption: String,
    /// Draws it.
    draw: DrawFn,
}

impl std::fmt::Debug for Plot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plot")
            .field("title", &self.title)
            .field("caption", &self.caption)
            .finish_non_exhaustive()
    }
}

impl Plot {
    /// A chart titled `title` with `caption`, showing `data` as `draw` draws it.
    fn new<D: Send + Sync + 'static>(
        title: impl Into<String>,
        caption: impl Into<String>,
        data: D,
        draw: fn(&D, &str, Format) -> Result<draw::Drawn>,
    ) -> Plot {
        Plot {
            title: title.into(),
            caption: caption.into(),
            draw: Box::new(move |title, format| draw(&data, title, format)),
        }
    }
}

/// An image format charts are drawn in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Scalable vector graphics (text as text).
    Svg,
    /// A PNG bitmap (text rasterised from the shipped font).
    Png,
}

impl Format {
    /// Both formats, in the order files are written.
    pub const ALL: [Format; 2] = [Format::Svg, Format::Png];

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
        }
    }
}

/// A drawn chart: its file name, title and caption, and the image of each format.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The file name without extension.
    pub stem: String,
    /// The title drawn on the chart and shown on the page.
    pub title: String,
    /// What to read from it, shown under it on the page.
    pub caption: String,
    /// The SVG file.
    pub svg: Vec<u8>,
    /// The PNG file.
    pub png: Vec<u8>,
    /// Its points a reader can hover on the page (the markers of its lines; none for a chart without).
    pub hotspots: Vec<Hotspot>,
}

impl Rendered {
    /// The path of the chart's file of `format`, relative to the report folder.
    pub fn path(&self, format: Format) -> String {
        chart_path(&self.stem, format)
    }

    /// The (relative path, bytes) of both files.
    pub fn files(&self) -> [(String, &[u8]); 2] {
        [
            (self.path(Format::Svg), &self.svg),
            (self.path(Format::Png), &self.png),
        ]
    }
}

/// The folder of a report that charts are written to.
pub const CHART_DIR: &str = "charts";

/// The relative path of chart `stem` in `format`.
pub fn chart_path(stem: &str, format: Format) -> String {
    format!("{CHART_DIR}/{stem}.{}", format.extension())
}

/// Makes the charts of the report whose results are `source`, in page order, and draws each in both formats,
/// in parallel, with the hotspots its SVG drawing returns (the PNG's are the same).
pub(crate) fn render(source: Source<'_>) -> Result<Vec<Rendered>> {
    use rayon::prelude::*;
    let plots: Vec<(&str, Plot)> = CHARTS
        .iter()
        .filter_map(|c| c.plot(&source).map(|p| (c.stem, p)))
        .collect();
    plots
        .into_par_iter()
        .map(|(stem, plot)| {
            let svg = (plot.draw)(&plot.title, Format::Svg)?;
            Ok(Rendered {
                svg: svg.bytes,
                png: (plot.draw)(&plot.title, Format::Png)?.bytes,
                hotspots: svg.hotspots,
                stem: stem.to_string(),
                title: plot.title,
                caption: plot.caption,
            })
        })
        .collect()
}
