//! The retention chart: the distribution (CDF) of the kept share per field, one line per strategy.
//!
//! The retention CDF: one panel per strategy family, one line per strategy, kept share on x and the share of
//! turns keeping at most that much on y.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::{cdf_points, rows_of, strategy_panels, Axis, LinePanel, Scale, TurnTallies};
use super::draw::lines::{self, Look};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Format, Plot, Run};
use crate::error::Result;
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// The retention CDF chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct RetentionCdf {
    /// One panel per strategy family.
    pub panels: Vec<LinePanel>,
    /// Whether the distributions are of single turns (from `batches.jsonl`) or of rows.
    pub per_turn: bool,
}

/// Distribution of the kept share per field: over every turn whose producers' output was over the budget
/// when the run's `turns` were tallied (the very points the sorted values give), else over the rows' means.
pub fn retention_cdf(results: &RunResults, turns: Option<&TurnTallies>) -> RetentionCdf {
    let turns = turns.filter(|t| t.turns() > 0);
    let per_turn = turns.is_some();
    let points = |strategy: &StrategyKey| -> Vec<(f64, f64)> {
        match turns {
            Some(tallies) => tallies
                .strategy(strategy)
                .map_or_else(Vec::new, |t| t.retention.points()),
            None => cdf_points(
                &rows_of(results, strategy)
                    .filter_map(|r| r.retention.mean.map(|m| m * 100.0))
                    .collect::<Vec<f64>>(),
            ),
        }
    };
    let x_label = if per_turn {
        "kept share per field, mean of a turn (%); better: a line further right and lower"
    } else {
        "kept share per field, mean of a scenario and budget (%); better: a line further right and lower"
    };
    let y_label = if per_turn {
        "over-budget turns keeping at most x (%)"
    } else {
        "rows keeping at most x (%)"
    };
    let x = Axis::new(x_label, Scale::Percent);
    let y = Axis::new(y_label, Scale::Percent);
    let panels = strategy_panels(results, &x, &y, &points);
    RetentionCdf { panels, per_turn }
}

/// The chart.
struct Cdf<'a>(&'a RetentionCdf);

const LOOK: Look = Look {
    markers: false,
    panel_width: 1050,
    panel_height: 440,
};

impl Figure for Cdf<'_> {
    fn size(&self) -> (u32, u32) {
        lines::size(&self.0.panels, 1, LOOK)
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        lines::draw(area, &self.0.panels, 1, LOOK)
    }
}

/// The chart of a run.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    let caption = if run.per_turn() {
        "Cumulative distribution of the mean kept share per field over the turns whose output was over \
budget. A line further right (and lower) keeps more: where a line reaches 50%, half of the turns kept at most that \
share. The wide black line is the reference; every other strategy has its own colour, marker and dash, as on \
every chart. Lines drawn on the same pixels show as one, and the panel names them in the corner its lines leave free."
    } else {
        "Cumulative distribution of each row's mean kept share per field (batches.jsonl was not available \
for single turns). A line further right keeps more; the black line is the reference. Lines drawn on the same \
pixels show as one, and the panel names them in the corner its lines leave free."
    };
    Some(Plot::new(
        "Retention: how much of each output the model still sees",
        caption,
        retention_cdf(run.results, run.turns),
        draw_cdf,
    ))
}

/// Draws CDF panels (this chart's, or another's drawn the same way).
pub(super) fn draw_cdf(data: &RetentionCdf, title: &str, format: Format) -> Result<draw::Drawn> {
    draw::render(title, format, &Cdf(data))
}
