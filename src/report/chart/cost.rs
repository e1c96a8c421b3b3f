//! The cost chart: median time per turn against the turn's size, one line per strategy.
//!
//! Cost per turn against batch size, log-log: one panel per strategy family, one line per strategy through the
//! median of each size bin.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::{strategy_panels, Axis, LinePanel, Scale, TurnTallies};
use super::draw::lines::{self, Look};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Plot, Run};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// The cost chart's data: median time per turn against the turn's size.
#[derive(Debug, Clone, PartialEq)]
pub struct CostCurves {
    /// One panel per strategy family.
    pub panels: Vec<LinePanel>,
}

/// Median cost per turn by batch size (binned by powers of two of the producers' budgeted total), one line per
/// strategy, each median read from the bin's histogram (3 significant digits, see [`TurnTallies`]); `None`
/// without tallied turns.
pub fn cost_curves(results: &RunResults, turns: Option<&TurnTallies>) -> Option<CostCurves> {
    let tallies = turns.filter(|t| t.turns() > 0)?;
    let line = |strategy: &StrategyKey| -> Vec<(f64, f64)> {
        tallies.strategy(strategy).map_or_else(Vec::new, |t| {
            t.cost
                .iter()
                .map(|(&bin, costs)| {
                    let centre = 2f64.powf(f64::from(bin) + 0.5);
                    let median = costs.percentile(50.0);
                    (centre, (median as f64 / 1000.0).max(0.01))
                })
                .collect()
        })
    };
    let x = Axis::new(
        "batch size: budgeted total of the producers' output (UTF-16 units, log scale)",
        Scale::Log,
    );
    let y = Axis::new("median time per turn (µs, log scale)", Scale::Log);
    let panels = strategy_panels(results, &x, &y, &line);
    Some(CostCurves { panels })
}

/// The chart.
struct Lines<'a>(&'a CostCurves);

const LOOK: Look = Look {
    markers: true,
    panel_width: 1050,
    panel_height: 440,
};

impl Figure for Lines<'_> {
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

/// The chart of a run, when it has the tallies of single turns.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    Some(Plot::new(
        "Cost per turn against batch size",
        "Median wall-clock time of a simulated turn (finalizer and runtime boundaries) for turns of \
each size, binned by powers of two of the producers' output (log-log), one line per strategy in its own colour, \
marker and dash. A line that climbs steeper than the others scales worse with batch size. This is time, which \
load on the machine moves; the figure the gate checks is each strategy's time over the floor's, in the chart \
\"Cost over the floor\". These are the only figures that differ between runs.",
        cost_curves(run.results, run.turns)?,
        |data, title, format| draw::render(title, format, &Lines(data)),
    ))
}
