//! The retention chart: the distribution (CDF) of the kept share per field, one line per strategy.

use super::{rows_of, strategy_panels, Axis, LinePanel, Scale, TurnTallies};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// Points of the empirical CDF of `values` (percentages 0..100) on a fixed grid.
pub fn cdf_points(values: &[f64]) -> Vec<(f64, f64)> {
    if values.is_empty() {
        return Vec::new();
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    (0..=400)
        .map(|i| {
            let x = i as f64 / 4.0;
            let below = sorted.partition_point(|&v| v <= x + 1e-9);
            (x, below as f64 / n * 100.0)
        })
        .collect()
}

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
        "kept share per field, mean of a turn (%)"
    } else {
        "kept share per field, mean of a scenario and budget (%)"
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
