//! The overshoot chart: how far over-budget turns went over, by strategy.

use super::{rows_of, TurnTallies};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

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

/// Overshoot per strategy: from every over-budget turn when the run's `turns` were tallied, else from the rows'
/// 99th percentile and maximum. From turns, the quartiles are the tally's (see [`TurnTallies`]).
pub fn overshoot(results: &RunResults, turns: Option<&TurnTallies>) -> Overshoot {
    let turns = turns.filter(|t| t.turns() > 0);
    let per_turn = turns.is_some();
    let rows = results
        .inputs
        .strategies
        .iter()
        .map(|strategy| {
            let (turns, over, spread) = if let Some(tallies) = turns {
                tallies
                    .strategy(strategy)
                    .map_or((0, 0, None), |t| (t.turns, t.over, t.overshoot.spread()))
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
                (turns, over, Spread::of(&values))
            };
            OvershootRow {
                strategy: strategy.clone(),
                turns,
                over,
                spread,
            }
        })
        .collect();
    Overshoot { rows, per_turn }
}
