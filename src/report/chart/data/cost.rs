//! The cost chart: median time per turn against the turn's size, one line per strategy.

use super::{strategy_panels, Axis, LinePanel, Scale, TurnTallies};
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
