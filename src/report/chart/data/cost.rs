//! The cost chart: median time per turn against the turn's size, one line per strategy.

use std::collections::BTreeMap;

use super::{strategy_panels, Axis, LinePanel, Scale};
use crate::run::{BatchRecord, RunResults};

/// The cost chart's data: median time per turn against the turn's size.
#[derive(Debug, Clone, PartialEq)]
pub struct CostCurves {
    /// One panel per strategy family.
    pub panels: Vec<LinePanel>,
}

/// Median cost per turn by batch size (binned by powers of two of the producers' budgeted total), one line per
/// strategy; `None` without per-batch records.
pub fn cost_curves(results: &RunResults, records: &[BatchRecord]) -> Option<CostCurves> {
    if records.is_empty() {
        return None;
    }
    let mut bins: BTreeMap<(&str, u32), Vec<u64>> = BTreeMap::new();
    for r in records {
        let bin = r.metrics.input_total.max(1).ilog2();
        bins.entry((r.strategy.as_str(), bin))
            .or_default()
            .push(r.cost_ns);
    }
    let line = |strategy: &str| -> Vec<(f64, f64)> {
        bins.range((strategy, 0)..=(strategy, u32::MAX))
            .map(|(&(_, bin), costs)| {
                let centre = 2f64.powf(f64::from(bin) + 0.5);
                let median = crate::metrics::percentile(costs, 50.0);
                (centre, (median as f64 / 1000.0).max(0.01))
            })
            .collect()
    };
    let x = Axis::new(
        "batch size: budgeted total of the producers' output (UTF-16 units, log scale)",
        Scale::Log,
    );
    let y = Axis::new("median time per turn (µs, log scale)", Scale::Log);
    let panels = strategy_panels(results, &x, &y, &|s| line(s.as_str()));
    Some(CostCurves { panels })
}
