//! The page's overview table: one row per strategy, pooled over every scenario and budget.

use super::super::needles::needle_survival;
use super::{ratio, rows_of};
use crate::metrics::{Aggregate, StrategyKey};
use crate::run::RunResults;

/// One strategy over the whole run, for the page's overview table.
#[derive(Debug, Clone, PartialEq)]
pub struct OverviewRow {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Turns run.
    pub turns: u64,
    /// Share of turns within budget (`None` without turns).
    pub compliance: Option<f64>,
    /// The largest overshoot of any turn, in UTF-16 units.
    pub max_overshoot: u64,
    /// Mean of the rows' kept share per field, weighted by turns (`None` when no row had a field).
    pub retention: Option<f64>,
    /// Needles surviving, of planted (`None` when none was planted).
    pub needles: Option<f64>,
    /// The best any allocation could do, of planted (`None` when none was planted).
    pub needle_bound: Option<f64>,
    /// Successful writes.
    pub writes: u64,
    /// Duplicate writes.
    pub duplicate_writes: u64,
    /// Integrity issues.
    pub integrity: u64,
    /// Median of the rows' median costs, in nanoseconds.
    pub median_cost_ns: u64,
}

/// One row per strategy, pooled over every scenario and budget.
pub fn overview(results: &RunResults) -> Vec<OverviewRow> {
    let needles = needle_survival(results);
    results
        .inputs
        .strategies
        .iter()
        .zip(&needles.rows)
        .map(|(strategy, n)| {
            let rows: Vec<&Aggregate> = rows_of(results, strategy).collect();
            let turns: u64 = rows.iter().map(|r| r.batches).sum();
            let violations: u64 = rows.iter().map(|r| r.compliance.violations).sum();
            // Rows with nothing to measure retention by (no field) are left out of its mean.
            let (weighted, measured) = rows
                .iter()
                .filter_map(|r| r.retention.mean.map(|m| (m * r.batches as f64, r.batches)))
                .fold((0.0, 0u64), |(w, n), (x, b)| (w + x, n + b));
            let costs: Vec<u64> = rows.iter().map(|r| r.cost.median_ns).collect();
            OverviewRow {
                strategy: strategy.clone(),
                turns,
                compliance: ratio((turns - violations) as f64, turns as f64),
                max_overshoot: rows
                    .iter()
                    .map(|r| r.compliance.max_overshoot)
                    .max()
                    .unwrap_or(0),
                retention: ratio(weighted, measured as f64),
                needles: n.all,
                needle_bound: n.upper_bound,
                writes: rows.iter().map(|r| r.persistence.writes).sum(),
                duplicate_writes: rows.iter().map(|r| r.persistence.duplicate_writes).sum(),
                integrity: rows.iter().map(|r| r.integrity.total()).sum(),
                median_cost_ns: crate::metrics::percentile(&costs, 50.0),
            }
        })
        .collect()
}
