//! Tallies of single turns for the charts drawn from them (overshoot, retention CDF, cost against batch size and
//! units per token), fed one record at a time so that a report never holds a run's records: a run feeds them as
//! its batches complete, `budgetlab report DIR` as it reads `batches.jsonl`.
//!
//! What each tally keeps is bounded whatever the number of turns: per strategy, a [`LogHistogram`] of the
//! overshoot (with its exact smallest and largest value), one count per point of the retention CDF's grid (which
//! gives exactly the CDF the sorted values give), and per batch-size bin a [`LogHistogram`] of the cost; per kind of
//! output, a histogram of units per token. A quartile or median read from a histogram is its bucket's lowest
//! value, at most 0.1% (3 significant digits) below the nearest-rank value of the turns themselves, and clamped to
//! the exact smallest and largest value.

use std::collections::BTreeMap;

use super::Spread;
use crate::metrics::{LogHistogram, StrategyKey};
use crate::run::{BatchRecord, RunInputs};

/// Values of a [`SpreadTally`] are kept in millionths.
const SCALE: f64 = 1e6;

/// A spread (smallest, quartiles, largest) of non-negative values, tallied in a histogram.
#[derive(Debug, Clone, Default, PartialEq)]
pub(in crate::report::chart) struct SpreadTally {
    /// The values in millionths.
    histogram: LogHistogram,
    /// The exact smallest and largest value, once there is one.
    bounds: Option<(f64, f64)>,
}

impl SpreadTally {
    /// Adds one value (negative and non-finite values are not expected, and counted as 0).
    fn add(&mut self, value: f64) {
        let value = if value.is_finite() {
            value.max(0.0)
        } else {
            0.0
        };
        self.histogram.add((value * SCALE).round() as u64);
        self.bounds = Some(match self.bounds {
            None => (value, value),
            Some((lo, hi)) => (lo.min(value), hi.max(value)),
        });
    }

    /// The spread, with nearest-rank quartiles as [`Spread::of`] takes them (within the histogram's error);
    /// `None` for no values.
    pub(in crate::report::chart) fn spread(&self) -> Option<Spread> {
        let (min, max) = self.bounds?;
        let at = |p: f64| (self.histogram.percentile(p) as f64 / SCALE).clamp(min, max);
        Some(Spread {
            min,
            q1: at(25.0),
            median: at(50.0),
            q3: at(75.0),
            max,
        })
    }
}

/// The x values (percent) of the retention CDF's grid: 0 to 100 in steps of 0.25.
const CDF_POINTS: usize = 401;

/// The grid point `i` of the retention CDF, in percent.
fn cdf_x(i: usize) -> f64 {
    i as f64 / 4.0
}

/// Whether `value` counts as at most `x` on the CDF's grid (the same test as [`super::cdf_points`]).
fn at_most(value: f64, x: f64) -> bool {
    value <= x + 1e-9
}

/// The empirical CDF of values (percent) on a fixed grid: how many values first count at each grid point, so the
/// points are exactly [`super::cdf_points`] of the values.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::report::chart) struct CdfTally {
    /// Values whose first grid point at or above them is `i`.
    first_at: Vec<u64>,
    /// Every value, counted or not (above the grid or not a number).
    values: u64,
}

impl Default for CdfTally {
    fn default() -> Self {
        CdfTally {
            first_at: vec![0; CDF_POINTS],
            values: 0,
        }
    }
}

impl CdfTally {
    fn add(&mut self, value: f64) {
        self.values += 1;
        if !at_most(value, cdf_x(CDF_POINTS - 1)) {
            return;
        }
        let guess = ((value - 1e-9) * 4.0).ceil();
        let mut i = if guess > 0.0 {
            (guess as usize).min(CDF_POINTS - 1)
        } else {
            0
        };
        while i > 0 && at_most(value, cdf_x(i - 1)) {
            i -= 1;
        }
        while !at_most(value, cdf_x(i)) {
            i += 1;
        }
        self.first_at[i] += 1;
    }

    /// The CDF's points (x, percent of values at most x); none for no values.
    pub(in crate::report::chart) fn points(&self) -> Vec<(f64, f64)> {
        if self.values == 0 {
            return Vec::new();
        }
        let n = self.values as f64;
        let mut below = 0;
        self.first_at
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                below += c;
                (cdf_x(i), below as f64 / n * 100.0)
            })
            .collect()
    }
}

/// What the charts need of one strategy's turns.
#[derive(Debug, Clone, Default, PartialEq)]
pub(in crate::report::chart) struct StrategyTurns {
    /// Turns run.
    pub(in crate::report::chart) turns: u64,
    /// Turns over budget.
    pub(in crate::report::chart) over: u64,
    /// The overshoot of over-budget turns, in percent of the budget.
    pub(in crate::report::chart) overshoot: SpreadTally,
    /// The mean kept share per field (percent) of turns whose producers' output was over the budget.
    pub(in crate::report::chart) retention: CdfTally,
    /// The cost (ns) of turns by batch-size bin (log2 of the producers' budgeted total).
    pub(in crate::report::chart) cost: BTreeMap<u32, LogHistogram>,
}

/// The tallies of a run's single turns (see the module's description).
#[derive(Debug, Clone, PartialEq)]
pub struct TurnTallies {
    strategies: BTreeMap<StrategyKey, StrategyTurns>,
    /// Units per token by kind of output, of the turns units per token is charted for.
    units_per_token: BTreeMap<String, SpreadTally>,
    /// Whether the run has the reference strategy (then only its turns count for units per token).
    has_reference: bool,
    /// Turns tallied.
    turns: u64,
}

impl TurnTallies {
    /// No turns yet, of a run of `inputs`.
    pub fn new(inputs: &RunInputs) -> TurnTallies {
        TurnTallies {
            strategies: BTreeMap::new(),
            units_per_token: BTreeMap::new(),
            has_reference: inputs.strategies.iter().any(|s| s.is_reference()),
            turns: 0,
        }
    }

    /// The tallies of `records`, turns of a run of `inputs`.
    pub fn of(inputs: &RunInputs, records: &[BatchRecord]) -> TurnTallies {
        let mut tallies = TurnTallies::new(inputs);
        for r in records {
            tallies.add(r);
        }
        tallies
    }

    /// Adds one turn.
    pub fn add(&mut self, r: &BatchRecord) {
        self.turns += 1;
        let m = &r.metrics;
        let mine = self.strategies.entry(r.strategy.clone()).or_default();
        mine.turns += 1;
        if m.overshoot > 0 {
            mine.over += 1;
            if let Some(budget) = m.budget.filter(|&b| b > 0) {
                mine.overshoot
                    .add(m.overshoot as f64 / budget as f64 * 100.0);
            }
        }
        if let (Some(_), Some(kept)) = (m.budget_used, m.mean_kept_share) {
            mine.retention.add(kept * 100.0);
        }
        mine.cost
            .entry(m.input_total.max(1).ilog2())
            .or_default()
            .add(r.cost_ns);
        if !self.has_reference || r.strategy.is_reference() {
            if let Some(tokens) = &m.tokens {
                for (kind, k) in &tokens.by_kind {
                    let tally = self.units_per_token.entry(kind.clone()).or_default();
                    if k.tokens > 0 {
                        tally.add(k.units as f64 / k.tokens as f64);
                    }
                }
            }
        }
    }

    /// How many turns were tallied.
    pub fn turns(&self) -> u64 {
        self.turns
    }

    /// The tally of `strategy`'s turns, if it had any.
    pub(in crate::report::chart) fn strategy(
        &self,
        strategy: &StrategyKey,
    ) -> Option<&StrategyTurns> {
        self.strategies.get(strategy)
    }

    /// Units per token by kind, kinds in name order.
    pub(in crate::report::chart) fn units_per_token(&self) -> &BTreeMap<String, SpreadTally> {
        &self.units_per_token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cdf_tally_gives_the_points_of_the_sorted_values() {
        let values = [
            0.0,
            -3.0,
            0.25,
            0.2500000001,
            24.75,
            25.0,
            33.3,
            49.999,
            50.0,
            99.75,
            99.76,
            100.0,
            100.0000000001,
            100.5,
            f64::NAN,
            12.125,
            12.375,
        ];
        let mut tally = CdfTally::default();
        for &v in &values {
            tally.add(v);
        }
        assert_eq!(tally.points(), super::super::cdf_points(&values));
        assert!(CdfTally::default().points().is_empty());
    }

    #[test]
    fn a_spread_tally_is_exact_at_the_ends_and_within_a_thousandth_inside() {
        let values: Vec<f64> = (1..=1000).map(|i| f64::from(i) * 0.731).collect();
        let mut tally = SpreadTally::default();
        for &v in values.iter().rev() {
            tally.add(v);
        }
        let exact = Spread::of(&values).unwrap();
        let got = tally.spread().unwrap();
        assert_eq!((got.min, got.max), (exact.min, exact.max));
        for (g, e) in [
            (got.q1, exact.q1),
            (got.median, exact.median),
            (got.q3, exact.q3),
        ] {
            assert!(g <= e + 1e-6 && g >= e * 0.999 - 1e-6, "{g} vs {e}");
        }
        // Small values (below 2,048 millionths) are exact.
        let mut small = SpreadTally::default();
        for v in [0.001, 0.002, 0.0005] {
            small.add(v);
        }
        assert_eq!(small.spread(), Spread::of(&[0.001, 0.002, 0.0005]));
        assert_eq!(SpreadTally::default().spread(), None);
    }
}
