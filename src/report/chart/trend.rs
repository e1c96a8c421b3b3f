//! Trend charts of a nightly history (`budgetlab history report`, and `budgetlab report DIR --history DB` on the
//! page of the latest run): one chart a tracked figure, the nights on the x axis, a panel a scenario and budget,
//! a line a strategy in its own look; every night on which a deterministic figure moved is marked by a dotted
//! line labelled with its commit (the first 7 digits), the night `history check` flags. A chart draws what moved:
//! the panels in which some line changed from a night to the next come first, and at most [`MAX_PANELS`] are
//! drawn; the caption counts the rest and says how to choose them.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::{Axis, LineKind, LinePanel, Scale, Series};
use super::draw::lines::{self, Look};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Format, Plot};
use crate::error::Result;
use crate::history::check::verdict;
use crate::history::{NightInfo, RankTest, Table, TrackedFigure};
use crate::metrics::{Metric, StrategyKey};

/// Nights up to which every point carries a marker; past it the lines are drawn with a few markers each.
const MARKED_NIGHTS: usize = 40;

/// Panels a row, at most.
const COLUMNS: usize = 2;

/// Panels a chart draws, at most: those that moved first.
pub const MAX_PANELS: usize = 6;

/// The digits of a commit a mark shows.
const SHORT_SHA: usize = 7;

/// A figure's trend: a panel a (scenario, budget), a line a strategy, the nights that moved marked.
#[derive(Debug, Clone, PartialEq)]
pub struct Trend {
    /// The panels, in the order the rows were first recorded.
    pub panels: Vec<LinePanel>,
    /// The nights drawn.
    pub nights: usize,
    /// The panels left out past [`MAX_PANELS`], and how many of them moved.
    pub left_out: (usize, usize),
}

/// Whether some line of `panel` changed from one of its points to the next.
fn moved(panel: &LinePanel) -> bool {
    panel
        .series
        .iter()
        .any(|s| s.points.windows(2).any(|w| w[0].1 != w[1].1))
}

/// What the chart draws of a value: shares in percent, times in µs, the rest as kept.
fn plotted(figure: TrackedFigure, value: f64) -> f64 {
    match figure {
        TrackedFigure::Metric(Metric::Compliance | Metric::Retention | Metric::Needles)
        | TrackedFigure::UsedSurvival
        | TrackedFigure::UsedUpperBound => value * 100.0,
        TrackedFigure::Metric(Metric::Time)
        | TrackedFigure::StrategyTime
        | TrackedFigure::FloorTime => value / 1000.0,
        TrackedFigure::Metric(Metric::Count(_) | Metric::Cost) => value,
    }
}

/// The vertical axis of `figure`'s trend.
fn axis(figure: TrackedFigure) -> Axis {
    match figure {
        TrackedFigure::Metric(Metric::Compliance) => {
            Axis::new("turns within budget (%)", Scale::Percent)
        }
        TrackedFigure::Metric(Metric::Retention) => {
            Axis::new("kept share per field, mean (%)", Scale::Percent)
        }
        TrackedFigure::Metric(Metric::Needles) => {
            Axis::new("needles still visible (% of planted)", Scale::Percent)
        }
        TrackedFigure::UsedSurvival => Axis::new("used lines still visible (%)", Scale::Percent),
        TrackedFigure::UsedUpperBound => {
            Axis::new("used lines any strategy could keep (%)", Scale::Percent)
        }
        TrackedFigure::Metric(m @ Metric::Count(_)) => Axis::new(
            format!("{} (whole run)", m.title().to_lowercase()),
            Scale::Linear,
        ),
        TrackedFigure::Metric(Metric::Cost) => {
            Axis::new("strategy time over the floor's (x)", Scale::Linear)
        }
        TrackedFigure::Metric(Metric::Time) => {
            Axis::new("median time per batch (µs, log scale)", Scale::Log)
        }
        TrackedFigure::StrategyTime => Axis::new(
            "strategy's median time per batch (µs, log scale)",
            Scale::Log,
        ),
        TrackedFigure::FloorTime => {
            Axis::new("floor's median time per batch (µs, log scale)", Scale::Log)
        }
    }
}

/// A night's commit as a mark shows it: its first 7 digits, or `night N` without one.
pub fn short_commit(night: &NightInfo) -> String {
    night.commit.as_deref().map_or_else(
        || format!("night {}", night.night),
        |c| c[..c.len().min(SHORT_SHA)].to_string(),
    )
}

/// The nights of `table` on which a deterministic figure of any row moved, each with its commit: the marks of
/// every trend chart (a rise of the cost after one of them is read against the commit that made it).
pub fn moved_nights(table: &Table) -> Vec<(u64, String)> {
    let test = RankTest::new(5, 0.01, 1.1).expect("the default test is valid");
    let mut nights: Vec<u64> = verdict(table, &test)
        .moves
        .iter()
        .map(|m| m.night)
        .collect();
    nights.dedup();
    nights
        .into_iter()
        .filter_map(|n| {
            let night = table.nights.iter().find(|i| i.night == n)?;
            Some((n, short_commit(night)))
        })
        .collect()
}

/// The trend of `figure` in `table`; `None` when no row has a value of it.
pub fn trend(table: &Table, figure: TrackedFigure) -> Option<Trend> {
    let marks: Vec<(f64, String)> = moved_nights(table)
        .into_iter()
        .map(|(n, label)| (n as f64, label))
        .collect();
    let mut panels: Vec<LinePanel> = Vec::new();
    for series in table.series.iter().filter(|s| s.key.figure == figure) {
        let points: Vec<(f64, f64)> = series
            .values
            .iter()
            .zip(&table.nights)
            .filter_map(|(v, night)| Some((night.night as f64, plotted(figure, (*v)??))))
            .filter(|p| axis(figure).scale != Scale::Log || p.1 > 0.0)
            .collect();
        if points.is_empty() {
            continue;
        }
        let title = format!("{} · {}", series.key.scenario, series.key.budget);
        let at = match panels.iter().position(|p| p.title == title) {
            Some(at) => at,
            None => {
                panels.push(LinePanel {
                    title,
                    x: Axis::new("night (commits that moved a figure marked)", Scale::Whole),
                    y: axis(figure),
                    series: Vec::new(),
                    bound: None,
                    marks: marks.clone(),
                });
                panels.len() - 1
            }
        };
        panels[at].series.push(Series {
            name: series.key.strategy.clone(),
            points,
            baseline: StrategyKey::from(series.key.strategy.as_str()).is_reference(),
            kind: LineKind::Strategy,
            over_budget: Vec::new(),
        });
    }
    // What moved first (in the order first recorded), then the rest; at most MAX_PANELS of them.
    let (mut panels, still): (Vec<LinePanel>, Vec<LinePanel>) = panels.into_iter().partition(moved);
    panels.extend(still);
    let left: Vec<LinePanel> = panels.split_off(panels.len().min(MAX_PANELS));
    let left_out = (left.len(), left.iter().filter(|p| moved(p)).count());
    (!panels.is_empty()).then_some(Trend {
        panels,
        nights: table.nights.len(),
        left_out,
    })
}

/// The chart.
struct Grid<'a>(&'a Trend);

impl Grid<'_> {
    fn look(&self) -> Look {
        Look {
            markers: self.0.nights <= MARKED_NIGHTS,
            panel_width: if self.0.panels.len() > 1 { 620 } else { 1050 },
            panel_height: 420,
        }
    }
}

impl Grid<'_> {
    /// Panels a row: two, or one for a single panel (drawn the width of two).
    fn columns(&self) -> usize {
        COLUMNS.min(self.0.panels.len()).max(1)
    }
}

impl Figure for Grid<'_> {
    fn size(&self) -> (u32, u32) {
        lines::size(&self.0.panels, self.columns(), self.look())
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        lines::draw(area, &self.0.panels, self.columns(), self.look())
    }
}

fn draw_trend(data: &Trend, title: &str, format: Format) -> Result<draw::Drawn> {
    draw::render(title, format, &Grid(data))
}

/// The trend chart of `figure` over the nights of `table`.
pub(super) fn plot(table: &Table, figure: TrackedFigure) -> Option<Plot> {
    let trend = trend(table, figure)?;
    let moved = moved_nights(table);
    let marked = if moved.is_empty() {
        "No deterministic figure moved over these nights.".to_string()
    } else {
        format!(
            "A dotted line marks each night on which a deterministic figure of some row moved, labelled with \
its commit: {}.",
            moved
                .iter()
                .map(|(n, c)| format!("night {n} ({c})"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let read = if figure.deterministic() {
        "It changes only when the code or the inputs do: a step is the night `budgetlab history check` flags."
    } else {
        "It differs from night to night with the machine's load; `budgetlab history check` holds the cost over the \
floor to a rank test of the last nights against those before."
    };
    let (first, last) = (
        table.nights.first().map_or(0, |n| n.night),
        table.nights.last().map_or(0, |n| n.night),
    );
    let left_out = match trend.left_out {
        (0, _) => String::new(),
        (n, m) => format!(
            " {n} more panels ({m} of them moved) are not drawn: the panels whose lines moved come first, at most \
{MAX_PANELS}; `budgetlab history report --scenario S --budget B` (or `history show`) gives the others."
        ),
    };
    Some(Plot::new(
        format!("{} over the nights", title_of(figure)),
        format!(
            "{} of every results row, nights {first} to {last} on the x axis, one panel a scenario and budget, one \
line a strategy in its own colour, marker and dash as on every chart. {read} {marked}{left_out} The page's table \
of nights gives each night's date and commit.",
            title_of(figure)
        ),
        trend,
        draw_trend,
    ))
}

/// The chart's title words for `figure`.
fn title_of(figure: TrackedFigure) -> String {
    match figure {
        TrackedFigure::Metric(m) => m.title().to_string(),
        TrackedFigure::UsedSurvival => "Survival of the lines agents used".into(),
        TrackedFigure::UsedUpperBound => "Upper bound of the lines agents used".into(),
        TrackedFigure::StrategyTime => "Strategy's median time".into(),
        TrackedFigure::FloorTime => "Floor's median time".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{Series as HistorySeries, SeriesKey};

    fn night(n: u64, commit: Option<&str>, inputs: &str) -> NightInfo {
        NightInfo {
            night: n,
            date: format!("2026-11-{n:02}"),
            commit: commit.map(str::to_string),
            label: None,
            results_sha256: format!("{n:064}"),
            inputs_sha256: inputs.to_string(),
            crate_version: "0.1.0".into(),
        }
    }

    fn series(
        figure: TrackedFigure,
        budget: &str,
        strategy: &str,
        values: &[Option<f64>],
    ) -> HistorySeries {
        HistorySeries {
            key: SeriesKey {
                figure,
                scenario: "shell-heavy".into(),
                budget: budget.into(),
                strategy: strategy.into(),
            },
            values: values.iter().map(|v| Some(*v)).collect(),
        }
    }

    #[test]
    fn a_panel_a_budget_a_line_a_strategy_and_the_moved_night_marked_with_its_commit() {
        let needles = TrackedFigure::Metric(Metric::Needles);
        let cost = TrackedFigure::Metric(Metric::Cost);
        let table = Table {
            nights: vec![
                night(1, Some("aaaaaaaaaaaa"), "x"),
                night(2, Some("bbbbbbbbbbbb"), "x"),
                night(3, None, "y"),
            ],
            series: vec![
                series(
                    needles,
                    "abs-20000",
                    "reference",
                    &[Some(0.5), Some(0.5), Some(0.75)],
                ),
                series(
                    needles,
                    "abs-20000",
                    "greedy",
                    &[Some(0.25), Some(0.25), Some(0.25)],
                ),
                series(
                    needles,
                    "abs-50000",
                    "reference",
                    &[Some(1.0), Some(1.0), None],
                ),
                series(
                    cost,
                    "abs-20000",
                    "reference",
                    &[Some(1.5), Some(1.6), Some(1.4)],
                ),
            ],
        };
        assert_eq!(moved_nights(&table), [(3, "night 3".to_string())]);
        let drawn = trend(&table, needles).unwrap();
        assert_eq!(drawn.nights, 3);
        let titles: Vec<&str> = drawn.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(
            titles,
            ["shell-heavy · abs-20000", "shell-heavy · abs-50000"]
        );
        let first = &drawn.panels[0];
        assert_eq!(first.marks, [(3.0, "night 3".to_string())]);
        assert_eq!(first.series[0].name, "reference");
        assert!(first.series[0].baseline);
        assert_eq!(
            first.series[0].points,
            [(1.0, 50.0), (2.0, 50.0), (3.0, 75.0)]
        );
        assert!(!first.series[1].baseline);
        // A night with nothing to measure is left out of the line, not drawn as 0.
        assert_eq!(
            drawn.panels[1].series[0].points,
            [(1.0, 100.0), (2.0, 100.0)]
        );
        assert_eq!(
            trend(&table, cost).unwrap().panels[0].series[0].points,
            [(1.0, 1.5), (2.0, 1.6), (3.0, 1.4)]
        );
        assert!(trend(&table, TrackedFigure::UsedSurvival).is_none());
        let mut named = table.clone();
        named.nights[2].commit = Some("0123456789abcdef".into());
        assert_eq!(moved_nights(&named), [(3, "0123456".to_string())]);
        let plot = plot(&named, needles).unwrap();
        assert_eq!(plot.title, "Needle survival over the nights");
        assert!(
            plot.caption.contains("night 3 (0123456)"),
            "{}",
            plot.caption
        );
    }

    #[test]
    fn what_moved_is_drawn_first_and_at_most_six_panels() {
        let needles = TrackedFigure::Metric(Metric::Needles);
        // Nine budgets, one line each: only the eighth moved.
        let series_of = |i: usize| {
            let moved = i == 7;
            series(
                needles,
                &format!("abs-{}", 1000 + i),
                "reference",
                &[Some(0.5), Some(if moved { 0.75 } else { 0.5 })],
            )
        };
        let table = Table {
            nights: vec![night(1, Some("aaaaaaaaaaaa"), "x"), night(2, None, "y")],
            series: (0..9).map(series_of).collect(),
        };
        let drawn = trend(&table, needles).unwrap();
        let titles: Vec<&str> = drawn.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "shell-heavy · abs-1007",
                "shell-heavy · abs-1000",
                "shell-heavy · abs-1001",
                "shell-heavy · abs-1002",
                "shell-heavy · abs-1003",
                "shell-heavy · abs-1004",
            ]
        );
        assert_eq!(drawn.left_out, (3, 0));
        let caption = plot(&table, needles).unwrap().caption;
        assert!(
            caption.contains(" 3 more panels (0 of them moved) are not drawn"),
            "{caption}"
        );
        // The nights axis starts at the first night, not at an empty night 0.
        let x =
            crate::report::chart::draw::axis::ScaleCoord::fit(Scale::Whole, [1.0, 2.0].into_iter());
        assert_eq!(x.range().start, 1.0);
    }
}
