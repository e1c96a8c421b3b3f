//! Aggregation of per-batch metrics into one row per (scenario, strategy, mode, budget): rates, means,
//! maxima and nearest-rank percentiles, summed in batch order so the result does not depend on how the batches
//! were scheduled.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::key::{RowKey, StrategyKey};
use super::{BatchMetrics, NeedleCount};
use crate::generate::NeedleKind;
use crate::scenario::BudgetLabel;
use crate::workload::Mode;

/// Budget compliance over a row's batches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComplianceSummary {
    /// Share of batches whose model request is within the budget (0..1).
    pub rate: f64,
    /// Batches over the budget.
    pub violations: u64,
    /// Largest overshoot, in UTF-16 units.
    pub max_overshoot: u64,
    /// 99th percentile overshoot (nearest rank), in UTF-16 units.
    pub p99_overshoot: u64,
    /// How many violations each boundary let through.
    pub violation_boundaries: BTreeMap<String, u64>,
}

/// Preview retention over a row's batches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetentionSummary {
    /// Mean kept share per field (0..1).
    pub mean: f64,
    /// Kept units over original units, all fields together (0..1).
    pub unit_share: f64,
    /// The smallest share any field kept.
    pub min_share: f64,
    /// Mean Jain's index of the fields' kept shares per batch.
    pub fairness: f64,
    /// Mean share of the budget used by over-budget batches (0..1; below 1 is budget left unused).
    pub budget_used: f64,
    /// Share of shortened fields whose first line survived.
    pub first_line: f64,
    /// Share of shortened fields whose last non-blank line survived.
    pub last_line: f64,
    /// Share of shortened fields with an artifact that name its path.
    pub path_visibility: f64,
}

/// Needle survival over a row's batches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NeedleSummary {
    /// Share of planted needles visible in the model request (0..1).
    pub survival: f64,
    /// Share the best allocation of the same budget could keep visible (0..1).
    pub upper_bound: f64,
    /// Survival as a fraction of the upper bound (0..1).
    pub of_possible: f64,
    /// Survival by needle kind.
    pub by_kind: BTreeMap<String, KindSurvival>,
}

/// Survival of one needle kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KindSurvival {
    /// Needles planted.
    pub planted: u64,
    /// Needles surviving.
    pub survived: u64,
    /// `survived / planted` (1 when none were planted).
    pub rate: f64,
}

/// Persistence I/O over a row's batches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistenceSummary {
    /// Successful writes.
    pub writes: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Writes of output already written once in the same turn.
    pub duplicate_writes: u64,
    /// Shortened fields that reused paths their producer had written.
    pub reused_paths: u64,
    /// Failed or refused writes.
    pub failed_writes: u64,
    /// Share of shortened fields whose full text is recoverable from an artifact (0..1).
    pub recoverable: f64,
}

/// Integrity counts over a row's batches (all must be 0 for the reference).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntegritySummary {
    /// Surrogate pairs broken by cuts.
    pub broken_surrogates: u64,
    /// Entries out of their original order.
    pub reordered: u64,
    /// Entries or parts dropped.
    pub dropped: u64,
    /// Media parts changed.
    pub media_changed: u64,
    /// Lifecycle reminders changed.
    pub reminders_changed: u64,
    /// Parts whose non-budgeted content changed.
    pub non_budgeted_changed: u64,
    /// Turns whose model request, transcript and tool-result record differ.
    pub records_differ: u64,
}

impl IntegritySummary {
    /// The sum of every count.
    pub fn total(&self) -> u64 {
        self.broken_surrogates
            + self.reordered
            + self.dropped
            + self.media_changed
            + self.reminders_changed
            + self.non_budgeted_changed
            + self.records_differ
    }
}

/// What one turn cost, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnCost {
    /// The whole simulated turn (every boundary, the send guard included), without the floor's measurements.
    pub turn_ns: u64,
    /// The strategy's own finalizations in the turn.
    pub strategy_ns: u64,
    /// The floor on the input of each of those finalizations, each timed just before it.
    pub floor_ns: u64,
}

/// Time per batch, measured in-process (the only figures that differ between runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostSummary {
    /// Median nanoseconds per batch (the whole simulated turn).
    pub median_ns: u64,
    /// 99th percentile nanoseconds per batch.
    pub p99_ns: u64,
    /// Median nanoseconds per batch of the strategy's own finalizations.
    pub strategy_median_ns: u64,
    /// Median nanoseconds per batch of the floor, timed on the input of each of those finalizations.
    pub floor_median_ns: u64,
    /// The strategy's time over the floor's, batch by batch, averaged over the middle half of the batches (the
    /// interquartile mean: the quarter of batches with the lowest ratios and the quarter with the highest are left
    /// out, so that a few batches slowed by something else cannot move it). Load on the machine slows the floor
    /// as much as the strategy, so it cancels out. `None` when no batch had a measurable floor.
    pub floor_ratio: Option<f64>,
}

impl CostSummary {
    /// Summarises the costs of a row's turns.
    pub fn from_turns(costs: &[TurnCost]) -> CostSummary {
        let turns: Vec<u64> = costs.iter().map(|c| c.turn_ns).collect();
        let strategy: Vec<u64> = costs.iter().map(|c| c.strategy_ns).collect();
        let floor: Vec<u64> = costs.iter().map(|c| c.floor_ns).collect();
        let mut ratios: Vec<f64> = costs
            .iter()
            .filter(|c| c.floor_ns > 0)
            .map(|c| c.strategy_ns as f64 / c.floor_ns as f64)
            .collect();
        ratios.sort_unstable_by(f64::total_cmp);
        CostSummary {
            median_ns: percentile(&turns, 50.0),
            p99_ns: percentile(&turns, 99.0),
            strategy_median_ns: percentile(&strategy, 50.0),
            floor_median_ns: percentile(&floor, 50.0),
            floor_ratio: interquartile_mean(&ratios),
        }
    }
}

/// The mean of sorted values without the lowest and the highest quarter (`n / 4` values each side); `None` for
/// none.
fn interquartile_mean(sorted: &[f64]) -> Option<f64> {
    let cut = sorted.len() / 4;
    let middle = &sorted[cut..sorted.len() - cut];
    (!middle.is_empty()).then(|| middle.iter().sum::<f64>() / middle.len() as f64)
}

/// One row of results: a scenario run through one strategy in one mode at one budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Aggregate {
    /// Scenario name.
    pub scenario: String,
    /// The strategy.
    pub strategy: StrategyKey,
    /// Runtime mode.
    pub mode: Mode,
    /// Whether the mode ran in its legacy form.
    pub legacy: bool,
    /// The budget in UTF-16 units (`None` when disabled).
    pub budget: Option<u64>,
    /// The budget's label (`abs-20000`, `window-16000`).
    pub budget_label: BudgetLabel,
    /// Number of batches.
    pub batches: u64,
    /// Budget compliance.
    pub compliance: ComplianceSummary,
    /// Preview retention.
    pub retention: RetentionSummary,
    /// Needle survival.
    pub needles: NeedleSummary,
    /// Persistence I/O.
    pub persistence: PersistenceSummary,
    /// Integrity counts.
    pub integrity: IntegritySummary,
    /// Cost per batch.
    pub cost: CostSummary,
    /// Tokens as the model sees them (`--tokenizer` only; absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<super::TokenSummary>,
}

/// Nearest-rank percentile `p` (0..=100) of `values`; 0 for none.
pub fn percentile(values: &[u64], p: f64) -> u64 {
    if values.is_empty() {
        return 0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        1.0
    } else {
        num as f64 / den as f64
    }
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0u64), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        1.0
    } else {
        sum / n as f64
    }
}

impl Aggregate {
    /// What identifies the row.
    pub fn key(&self) -> RowKey<'_> {
        RowKey {
            scenario: &self.scenario,
            budget: self.budget_label,
            strategy: &self.strategy,
        }
    }

    /// Aggregates `metrics` (in batch order) and the matching per-batch costs into the row `key`, run in `mode`
    /// (its legacy form when `legacy`) at `units` UTF-16 units.
    pub fn from_batches(
        key: RowKey<'_>,
        mode: Mode,
        legacy: bool,
        units: u64,
        metrics: &[BatchMetrics],
        costs: &[TurnCost],
    ) -> Aggregate {
        let n = metrics.len() as u64;
        let overshoots: Vec<u64> = metrics.iter().map(|m| m.overshoot).collect();
        let mut boundaries = BTreeMap::new();
        for b in metrics.iter().filter_map(|m| m.violation_boundary) {
            *boundaries.entry(b.to_string()).or_insert(0) += 1;
        }
        let violations = metrics.iter().filter(|m| !m.within_budget).count() as u64;
        let sum = |f: &dyn Fn(&BatchMetrics) -> u64| metrics.iter().map(f).sum::<u64>();
        let pair = |f: &dyn Fn(&BatchMetrics) -> (u64, u64)| {
            let (a, b) = metrics
                .iter()
                .map(f)
                .fold((0, 0), |(x, y), (a, b)| (x + a, y + b));
            ratio(a, b)
        };
        let fields = sum(&|m| m.fields);
        let weighted_share: f64 = metrics
            .iter()
            .map(|m| m.mean_kept_share * m.fields as f64)
            .sum();
        let mut by_kind: BTreeMap<NeedleKind, NeedleCount> = BTreeMap::new();
        for m in metrics {
            for (k, c) in &m.needles {
                let e = by_kind.entry(*k).or_default();
                e.planted += c.planted;
                e.survived += c.survived;
            }
        }
        let planted: u64 = by_kind.values().map(|c| c.planted).sum();
        let survived: u64 = by_kind.values().map(|c| c.survived).sum();
        let upper = sum(&|m| m.needle_upper_bound);
        let shortened = sum(&|m| m.shortened_fields);
        Aggregate {
            scenario: key.scenario.to_string(),
            strategy: key.strategy.clone(),
            mode,
            legacy,
            budget: Some(units),
            budget_label: key.budget,
            batches: n,
            compliance: ComplianceSummary {
                rate: ratio(n - violations, n),
                violations,
                max_overshoot: overshoots.iter().copied().max().unwrap_or(0),
                p99_overshoot: percentile(&overshoots, 99.0),
                violation_boundaries: boundaries,
            },
            retention: RetentionSummary {
                mean: if fields == 0 {
                    1.0
                } else {
                    weighted_share / fields as f64
                },
                unit_share: ratio(sum(&|m| m.kept_units), sum(&|m| m.original_units)),
                min_share: metrics.iter().map(|m| m.min_kept_share).fold(1.0, f64::min),
                fairness: mean(metrics.iter().map(|m| m.fairness)),
                budget_used: mean(metrics.iter().filter_map(|m| m.budget_used)),
                first_line: pair(&|m| m.first_line_kept),
                last_line: pair(&|m| m.last_line_kept),
                path_visibility: pair(&|m| m.path_visible),
            },
            needles: NeedleSummary {
                survival: ratio(survived, planted),
                upper_bound: ratio(upper, planted),
                of_possible: ratio(survived, upper).min(1.0),
                by_kind: by_kind
                    .into_iter()
                    .map(|(k, c)| {
                        let name = serde_json::to_value(k)
                            .ok()
                            .and_then(|v| v.as_str().map(String::from));
                        let rate = ratio(c.survived, c.planted);
                        (
                            name.unwrap_or_default(),
                            KindSurvival {
                                planted: c.planted,
                                survived: c.survived,
                                rate,
                            },
                        )
                    })
                    .collect(),
            },
            persistence: PersistenceSummary {
                writes: sum(&|m| m.writes),
                bytes: sum(&|m| m.bytes_written),
                duplicate_writes: sum(&|m| m.duplicate_writes),
                reused_paths: sum(&|m| m.reused_paths),
                failed_writes: sum(&|m| m.failed_writes),
                recoverable: ratio(sum(&|m| m.recoverable_fields), shortened),
            },
            integrity: IntegritySummary {
                broken_surrogates: sum(&|m| m.broken_surrogates),
                reordered: sum(&|m| m.reordered),
                dropped: sum(&|m| m.dropped),
                media_changed: sum(&|m| m.media_changed),
                reminders_changed: sum(&|m| m.reminders_changed),
                non_budgeted_changed: sum(&|m| m.non_budgeted_changed),
                records_differ: sum(&|m| u64::from(m.records_differ)),
            },
            cost: CostSummary::from_turns(costs),
            tokens: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 99.0), 99);
        assert_eq!(percentile(&v, 50.0), 50);
        assert_eq!(percentile(&v, 100.0), 100);
        assert_eq!(percentile(&[7], 99.0), 7);
        assert_eq!(percentile(&[], 99.0), 0);
    }

    #[test]
    fn the_floor_ratio_is_the_interquartile_mean_of_the_turns_ratios() {
        let turn = |strategy_ns, floor_ns| TurnCost {
            turn_ns: 10 * strategy_ns,
            strategy_ns,
            floor_ns,
        };
        // One turn slowed a hundredfold by something else on the machine moves nothing.
        let c = CostSummary::from_turns(&[
            turn(300, 100),
            turn(200, 100),
            turn(90_000, 300),
            turn(400, 200),
        ]);
        assert_eq!(c.floor_ratio, Some(2.5));
        assert_eq!((c.strategy_median_ns, c.floor_median_ns), (300, 100));
        assert_eq!((c.median_ns, c.p99_ns), (3_000, 900_000));
        let c = CostSummary::from_turns(&[turn(300, 100), turn(1, 0), turn(500, 100)]);
        assert_eq!(c.floor_ratio, Some(4.0));
        // Ratios 1, 1, 1, 2, 3, 3, 3, 100: the middle half is 1, 2, 3, 3.
        let ratios = [1, 1, 1, 2, 3, 3, 3, 100];
        let c = CostSummary::from_turns(&ratios.map(|r| turn(r * 1000, 1000)));
        assert_eq!(c.floor_ratio, Some(2.25));
        // Nothing measured: no ratio, not a perfect one.
        assert_eq!(CostSummary::from_turns(&[turn(5, 0)]).floor_ratio, None);
        assert_eq!(CostSummary::from_turns(&[]).floor_ratio, None);
    }
}
