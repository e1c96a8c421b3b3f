//! The overshoot chart: how far over-budget turns went over, by strategy.

use super::rows_of;
use crate::metrics::StrategyKey;
use crate::run::{BatchRecord, RunResults};

/// Five-number summary of a distribution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Smallest value.
    pub min: f64,
    /// 25th percentile.
    pub q1: f64,
    /// Median.
    pub median: f64,
    /// 75th percentile.
    pub q3: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// The summary of `values` (nearest-rank percentiles); `None` for no values.
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let rank = |p: f64| {
            let r = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
            sorted[r.min(sorted.len()) - 1]
        };
        Some(Spread {
            min: sorted[0],
            q1: rank(25.0),
            median: rank(50.0),
            q3: rank(75.0),
            max: sorted[sorted.len() - 1],
        })
    }
}

/// How far one strategy's over-budget turns went over.
#[derive(Debug, Clone, PartialEq)]
pub struct OvershootRow {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Turns run.
    pub turns: u64,
    /// Turns over budget.
    pub over: u64,
    /// The overshoot of the over-budget turns, in percent of the budget.
    pub spread: Option<Spread>,
}

/// The overshoot chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct Overshoot {
    /// One row per strategy, in run order.
    pub rows: Vec<OvershootRow>,
    /// Whether the spreads are of single turns (from `batches.jsonl`) or of rows' p99 and maximum.
    pub per_turn: bool,
}

/// Overshoot per strategy: from every over-budget turn when `records` are given, else from the rows' 99th
/// percentile and maximum.
pub fn overshoot(results: &RunResults, records: &[BatchRecord]) -> Overshoot {
    let per_turn = !records.is_empty();
    let rows = results
        .inputs
        .strategies
        .iter()
        .map(|strategy| {
            let (turns, over, values) = if per_turn {
                let mine: Vec<&BatchRecord> =
                    records.iter().filter(|r| r.strategy == *strategy).collect();
                let values: Vec<f64> = mine
                    .iter()
                    .filter(|r| r.metrics.overshoot > 0)
                    .filter_map(|r| {
                        let budget = r.metrics.budget.filter(|&b| b > 0)?;
                        Some(r.metrics.overshoot as f64 / budget as f64 * 100.0)
                    })
                    .collect();
                let over = mine.iter().filter(|r| r.metrics.overshoot > 0).count() as u64;
                (mine.len() as u64, over, values)
            } else {
                let mut values = Vec::new();
                let (mut turns, mut over) = (0, 0);
                for r in rows_of(results, strategy) {
                    turns += r.batches;
                    over += r.compliance.violations;
                    if let Some(budget) = r.budget.filter(|&b| b > 0 && r.compliance.violations > 0)
                    {
                        for o in [r.compliance.p99_overshoot, r.compliance.max_overshoot] {
                            if o > 0 {
                                values.push(o as f64 / budget as f64 * 100.0);
                            }
                        }
                    }
                }
                (turns, over, values)
            };
            OvershootRow {
                strategy: strategy.clone(),
                turns,
                over,
                spread: Spread::of(&values),
            }
        })
        .collect();
    Overshoot { rows, per_turn }
}
