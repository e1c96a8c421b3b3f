//! Aggregation of per-batch metrics into one row per (scenario, strategy, mode, budget): rates, means,
//! maxima and nearest-rank percentiles, summed in batch order so the result does not depend on how the batches
//! were scheduled.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::key::{RowKey, StrategyKey};
use super::summary::{CostTally, RowSummary, TurnCost, INTEGRITY_SLOTS, RATIO_SCALE};
use super::tokens::{TokenSummary, TokenTally};
use super::BatchMetrics;
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
    /// 99th percentile overshoot (nearest rank, to 3 significant digits: exact below 2,048 units, else at most
    /// 0.1% below), in UTF-16 units.
    pub p99_overshoot: u64,
    /// How many violations each boundary let through.
    pub violation_boundaries: BTreeMap<String, u64>,
}

/// Preview retention over a row's batches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetentionSummary {
    /// Mean kept share per field (0..1); `None` when no turn had a field.
    pub mean: Option<f64>,
    /// Kept units over original units, all fields together (0..1).
    pub unit_share: f64,
    /// The smallest share any field kept; `None` when no turn had a field.
    pub min_share: Option<f64>,
    /// Mean Jain's index of the fields' kept shares over the batches with a field; `None` when none had one.
    pub fairness: Option<f64>,
    /// Mean share of the budget used by turns whose input was over budget (0..1 and a little more; below 1 is
    /// budget left unused); `None` when no turn was over budget.
    pub budget_used: Option<f64>,
    /// Share of shortened fields whose first line survived; `None` when no field was shortened.
    pub first_line: Option<f64>,
    /// Share of shortened fields whose last non-blank line survived; `None` when none had one.
    pub last_line: Option<f64>,
    /// Share of shortened fields with an artifact that name its path; `None` when none had one.
    pub path_visibility: Option<f64>,
}

/// Needle survival over a row's batches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NeedleSummary {
    /// Share of planted needles visible in the model request (0..1); `None` when none was planted.
    pub survival: Option<f64>,
    /// Share the best allocation of the same budget could keep visible (0..1); `None` when none was planted.
    pub upper_bound: Option<f64>,
    /// Survival as a fraction of the upper bound (0..1); `None` when no needle could have survived.
    pub of_possible: Option<f64>,
    /// Survival by needle kind.
    pub by_kind: BTreeMap<String, KindSurvival>,
}

/// Survival of the lines the agent used (recorded batches with `budgetlab import`'s used lines), kept apart from
/// the detector's needles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsedNeedleSummary {
    /// Used lines over the row's turns.
    pub needles: u64,
    /// Of those, lines still visible in the model request.
    pub survived: u64,
    /// The most any allocation of the same budgets could have kept visible.
    pub upper_bound: u64,
    /// `survived / needles` (0..1).
    pub survival: f64,
    /// `upper_bound / needles` (0..1).
    pub upper_bound_share: f64,
    /// Survival as a fraction of the upper bound (0..1); `None` when no used line could have survived.
    pub of_possible: Option<f64>,
}

impl UsedNeedleSummary {
    /// The used-line figures of a row's summary; `None` when it has no used line (nothing to measure).
    pub fn of(s: &RowSummary) -> Option<UsedNeedleSummary> {
        UsedNeedleSummary::counts(s.used_needles, s.used_survived, s.used_upper_bound)
    }

    /// The used-token figures of a row's summary; `None` when it has no used token.
    pub fn tokens_of(s: &RowSummary) -> Option<UsedNeedleSummary> {
        UsedNeedleSummary::counts(
            s.used_tokens,
            s.used_tokens_survived,
            s.used_tokens_upper_bound,
        )
    }

    /// The figures of `needles` of which `survived` were kept and at most `upper_bound` could be; `None` without
    /// any (nothing to measure).
    pub fn counts(needles: u64, survived: u64, upper_bound: u64) -> Option<UsedNeedleSummary> {
        (needles > 0).then(|| UsedNeedleSummary {
            needles,
            survived,
            upper_bound,
            survival: survived as f64 / needles as f64,
            upper_bound_share: upper_bound as f64 / needles as f64,
            of_possible: measured(survived, upper_bound).map(|r| r.min(1.0)),
        })
    }
}

/// The figures over the turns whose producers' output was longer than the budget, the only turns where one
/// policy can keep something another does not (the pooled figures count the rest too, where every strategy keeps
/// everything). Each with its n: the results of those turns and the used tokens in them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OverBudgetSummary {
    /// Turns longer than the budget.
    pub turns: u64,
    /// Results in those turns.
    pub results: u64,
    /// The detector's needles in those turns: planted, kept and the share kept (`None` without any).
    pub needles: u64,
    /// Of those, needles still visible.
    pub needles_survived: u64,
    /// `needles_survived / needles`; `None` without needles.
    pub needle_survival: Option<f64>,
    /// The used lines in those turns; `None` without any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_lines: Option<UsedNeedleSummary>,
    /// The used tokens in those turns; `None` without any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_tokens: Option<UsedNeedleSummary>,
}

impl OverBudgetSummary {
    /// The over-budget figures of a row's summary; `None` when no turn was longer than the budget.
    pub fn of(s: &RowSummary) -> Option<OverBudgetSummary> {
        (s.over_budget_results > 0).then(|| OverBudgetSummary {
            turns: s.budget_used_turns,
            results: s.over_budget_results,
            needles: s.over_budget_needles,
            needles_survived: s.over_budget_needles_survived,
            needle_survival: measured(s.over_budget_needles_survived, s.over_budget_needles),
            used_lines: UsedNeedleSummary::counts(
                s.over_budget_used_needles,
                s.over_budget_used_survived,
                s.over_budget_used_upper_bound,
            ),
            used_tokens: UsedNeedleSummary::counts(
                s.over_budget_used_tokens,
                s.over_budget_used_tokens_survived,
                s.over_budget_used_tokens_upper_bound,
            ),
        })
    }
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

macro_rules! row_sections {
    (
        persistence [ $(
            $(#[doc = $pd:literal])* $pf:ident => $pr:ident : $pk:literal at $po:literal, $pl:literal,
                $pc:expr, $pm:expr, $pg:expr;
        )* ]
        shortened [ $(
            $(#[doc = $sd:literal])* $sf:ident => $sr:ident : $sk:literal at $so:literal, $sl:literal,
                $sc:expr, $sm:expr, $sg:expr;
        )* ]
        integrity [ $(
            $(#[doc = $id:literal])* $if:ident => $ir:ident : $ik:literal at $io:literal, $il:literal,
                $ic:expr, $im:expr, $ig:expr;
        )* ]
        used [ $(
            $(#[doc = $ud:literal])* $uf:ident => $ur:ident : $uk:literal at $uo:literal, $ul:literal,
                $uc:expr, $um:expr, $ug:expr;
        )* ]
    ) => {
        /// Persistence I/O over a row's batches.
        #[derive(Debug, Clone, PartialEq, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct PersistenceSummary {
            $(
                $(#[doc = $pd])*
                pub $pr: u64,
            )*
            /// Share of shortened fields whose full text is recoverable from an artifact (0..1); `None` when no
            /// field was shortened.
            pub recoverable: Option<f64>,
        }

        impl PersistenceSummary {
            /// The persistence figures of a row's summary.
            fn of(s: &RowSummary) -> PersistenceSummary {
                PersistenceSummary {
                    $($pr: s.$pr,)*
                    recoverable: measured(s.recoverable_fields, s.shortened_fields),
                }
            }
        }

        /// Written as its fields, each figure at its place ([`super::Figure::order`]).
        impl Serialize for PersistenceSummary {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let mut figures = [$(($po, $pk, self.$pr)),*];
                figures.sort_by_key(|f| f.0);
                let mut out = s.serialize_struct("PersistenceSummary", figures.len() + 1)?;
                for (_, key, value) in figures {
                    out.serialize_field(key, &value)?;
                }
                out.serialize_field("recoverable", &self.recoverable)?;
                out.end()
            }
        }

        /// Integrity counts over a row's batches (all must be 0 for the reference).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct IntegritySummary {
            $(
                $(#[doc = $id])*
                pub $ir: u64,
            )*
            /// Turns whose model request, transcript and tool-result record differ.
            pub records_differ: u64,
        }

        impl IntegritySummary {
            /// The integrity figures of a row's summary.
            fn of(s: &RowSummary) -> IntegritySummary {
                IntegritySummary {
                    $($ir: s.integrity[$io],)*
                    records_differ: s.integrity[INTEGRITY_SLOTS - 1],
                }
            }

            /// The sum of every count.
            pub fn total(&self) -> u64 {
                $(self.$ir +)* self.records_differ
            }
        }
    };
}
super::figure::figure_list!(row_sections);

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
    /// The histograms the figures above are computed from, which `merge` combines.
    pub summary: CostTally,
}

impl CostSummary {
    /// Summarises the costs of a row's turns.
    pub fn from_turns(costs: &[TurnCost]) -> CostSummary {
        let mut tally = CostTally::default();
        for c in costs {
            tally.add(*c);
        }
        CostSummary::from_tally(tally)
    }

    /// The cost figures of a row's tally: percentiles from its histograms of times, the floor ratio the
    /// interquartile mean of the turns' ratios (kept in thousandths), each value its bucket's lowest (buckets 1/32
    /// of their value wide: [`super::TimeHistogram`]).
    pub fn from_tally(t: CostTally) -> CostSummary {
        CostSummary {
            median_ns: t.turn_ns.percentile(50.0),
            p99_ns: t.turn_ns.percentile(99.0),
            strategy_median_ns: t.strategy_ns.percentile(50.0),
            floor_median_ns: t.floor_ns.percentile(50.0),
            floor_ratio: t.floor_ratio.interquartile_mean().map(|r| r / RATIO_SCALE),
            summary: t,
        }
    }
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
    /// Survival of the lines the agent used (absent when the row has none: generated batches, or recorded ones
    /// without a used-lines file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_needles: Option<UsedNeedleSummary>,
    /// Survival of the tokens the agent used, a token kept while any place of it is visible (absent when the row
    /// has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_tokens: Option<UsedNeedleSummary>,
    /// The needle and used figures over the turns longer than the budget (absent when no turn was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_budget: Option<OverBudgetSummary>,
    /// Persistence I/O.
    pub persistence: PersistenceSummary,
    /// Integrity counts.
    pub integrity: IntegritySummary,
    /// Cost per batch.
    pub cost: CostSummary,
    /// Tokens as the model sees them (`--tokenizer` only; absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenSummary>,
    /// The counts, sums and histograms every figure above but the cost and the tokens (which keep theirs) is
    /// computed from, which `merge` combines.
    pub summary: RowSummary,
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

/// `num / den`; `None` when there was nothing to measure (`den` is 0).
fn measured(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
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

    /// Aggregates `metrics` and the matching per-batch costs into the row `key`, run in `mode` (its legacy form
    /// when `legacy`) at `units` UTF-16 units: [`Aggregate::from_summary`] of their [`RowSummary`].
    pub fn from_batches(
        key: RowKey<'_>,
        mode: Mode,
        legacy: bool,
        units: u64,
        metrics: &[BatchMetrics],
        costs: &[TurnCost],
    ) -> Aggregate {
        let mut summary = RowSummary::default();
        let mut cost = CostTally::default();
        for (m, c) in metrics.iter().zip(costs) {
            summary.add(m);
            cost.add(*c);
        }
        Aggregate::from_summary(key, mode, legacy, units, summary, cost, None)
    }

    /// The row `key`, run in `mode` (its legacy form when `legacy`) at `units` UTF-16 units, from the summary of
    /// its turns, the tally of their times and (in a run with `--tokenizer`) of their tokens. A figure with
    /// nothing to measure it by is `None`, never a perfect score.
    pub fn from_summary(
        key: RowKey<'_>,
        mode: Mode,
        legacy: bool,
        units: u64,
        s: RowSummary,
        cost: CostTally,
        tokens: Option<TokenTally>,
    ) -> Aggregate {
        let n = s.batches;
        let violations = s.violations;
        let planted: u64 = s.needles.values().map(|c| c.planted).sum();
        let survived: u64 = s.needles.values().map(|c| c.survived).sum();
        let upper = s.needle_upper_bound;
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
                max_overshoot: s.max_overshoot,
                p99_overshoot: s.overshoot.percentile(99.0),
                violation_boundaries: s.violation_boundaries.clone(),
            },
            retention: RetentionSummary {
                mean: s.retention_mean(),
                unit_share: ratio(s.kept_units, s.original_units),
                min_share: s.min_share,
                fairness: s.fairness(),
                budget_used: s.budget_used(),
                first_line: measured(s.first_line.0, s.first_line.1),
                last_line: measured(s.last_line.0, s.last_line.1),
                path_visibility: measured(s.path_visible.0, s.path_visible.1),
            },
            needles: NeedleSummary {
                survival: measured(survived, planted),
                upper_bound: measured(upper, planted),
                of_possible: measured(survived, upper).map(|r| r.min(1.0)),
                by_kind: s
                    .needles
                    .iter()
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
            used_needles: UsedNeedleSummary::of(&s),
            used_tokens: UsedNeedleSummary::tokens_of(&s),
            over_budget: OverBudgetSummary::of(&s),
            persistence: PersistenceSummary::of(&s),
            integrity: IntegritySummary::of(&s),
            cost: CostSummary::from_tally(cost),
            tokens: tokens.map(TokenSummary::from_tally),
            summary: s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_sections_keep_the_order_of_schema_6_and_read_back() {
        // Read in another order, written in schema 6's.
        let p: PersistenceSummary = serde_json::from_str(
            r#"{"recoverable":null,"failedWrites":4,"writes":1,"bytes":2,"duplicateWrites":3,"reusedPaths":5}"#,
        )
        .unwrap();
        assert_eq!((p.writes, p.failed_writes, p.reused_paths), (1, 4, 5));
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"writes":1,"bytes":2,"duplicateWrites":3,"reusedPaths":5,"failedWrites":4,"recoverable":null}"#
        );
        let i: IntegritySummary = serde_json::from_str(
            r#"{"brokenSurrogates":1,"reordered":2,"dropped":3,"mediaChanged":4,"remindersChanged":5,"nonBudgetedChanged":6,"recordsDiffer":7}"#,
        )
        .unwrap();
        assert_eq!(
            (i.broken_surrogates, i.records_differ, i.total()),
            (1, 7, 28)
        );
    }

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
        // Ratios (in thousandths) 3,000, 2,000, 300,000 and 2,000, each its bucket's lowest value (buckets 1/32 of
        // their value wide): 2,944, 1,984, 294,912, 1,984; the middle half averages 2,464.
        assert_eq!(c.floor_ratio, Some(2.464));
        // 300 ns is in the bucket that starts at 296 (37 x 8); below 64 ns each time is its own bucket.
        assert_eq!((c.strategy_median_ns, c.floor_median_ns), (296, 100));
        // Times fall in buckets 1/32 of their value wide: 3,000 ns in the one that starts at 2,944 (46 x 64), 900,000
        // in the one at 884,736 (54 x 16,384).
        assert_eq!((c.median_ns, c.p99_ns), (2_944, 884_736));
        let c = CostSummary::from_turns(&[turn(300, 100), turn(1, 0), turn(500, 100)]);
        // Ratios 3 and 5 as 2,944 and 4,992 thousandths.
        assert_eq!(c.floor_ratio, Some(3.968));
        // Ratios 1, 1, 1, 2, 3, 3, 3, 100: the middle half is 1, 2, 3, 3, in buckets 992, 1,984, 2,944, 2,944.
        let ratios = [1, 1, 1, 2, 3, 3, 3, 100];
        let c = CostSummary::from_turns(&ratios.map(|r| turn(r * 1000, 1000)));
        assert_eq!(c.floor_ratio, Some(2.216));
        // Nothing measured: no ratio, not a perfect one.
        assert_eq!(CostSummary::from_turns(&[turn(5, 0)]).floor_ratio, None);
        assert_eq!(CostSummary::from_turns(&[]).floor_ratio, None);
    }
}
