//! Mergeable summaries of a row's turns: what a row's figures are computed from, kept as whole-number counts,
//! sums and histograms so that adding turns in any order, or combining the summaries of shards, gives the very
//! same row.
//!
//! Shares are summed in fixed point ([`FIXED_ONE`] is 1), never as floating-point sums, whose result depends on
//! the order of the terms. Percentiles come from a [`LogHistogram`]: exact below 2,048, and above it each value
//! falls in a bucket 1/1,024 of its size wide (3 significant digits), reported as the bucket's lowest value, so a
//! reported percentile is at most 0.1% below the nearest-rank value of the turns themselves and never above it.
//! Times and their ratios are coarser ([`TimeHistogram`]: exact below 64, buckets 1/32 of their value wide, a
//! percentile at most 3.1% below): a turn's time varies by more than that from one run to the next, and at 3
//! significant digits the histograms of a large run's times, spread over twenty powers of two, held tens of
//! thousands of buckets a row (139 MB of `results.json` at ten million turns).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::resample::Resamples;
use super::{BatchMetrics, NeedleCount, FIGURES};
use crate::needles::NeedleKind;

/// Bits of a value a [`LogHistogram`] keeps below its leading bit: buckets are `2^-10` of their value wide.
const SUB_BITS: u32 = 10;
/// Bits a [`TimeHistogram`] keeps: buckets `2^-5` of their value wide.
const TIME_SUB_BITS: u32 = 5;

/// 1 in the fixed point shares are summed in (2^48).
pub const FIXED_ONE: u128 = 1 << 48;

/// The most a count or a sum of sizes read back from a file may be: 2^53, the largest whole number every JSON
/// reader holds exactly, and far over what a run reaches (at most 10^6 batches of at most 2^30 UTF-16 units).
pub const MAX_COUNT: u64 = 1 << 53;

/// A share (0..1, or a little more for the budget used) in fixed point.
fn fixed(x: f64) -> u128 {
    if x.is_finite() && x > 0.0 {
        (x * FIXED_ONE as f64).round() as u128
    } else {
        0
    }
}

/// A fixed-point sum over `n` terms as their mean; `None` for no terms.
fn fixed_mean(sum: u128, n: u64) -> Option<f64> {
    (n > 0).then(|| (sum as f64 / FIXED_ONE as f64) / n as f64)
}

/// A mergeable histogram of whole numbers: a map from each bucket's lowest value to the number of values in it.
/// Values below `2^(SUB + 1)` are their own bucket; above, a bucket is `2^-SUB` of its value wide.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram<const SUB: u32> {
    counts: BTreeMap<u64, u64>,
}

/// The histogram of a row's sizes (overshoot, tokens, ratios): buckets of 3 significant digits (see the module's
/// description).
pub type LogHistogram = Histogram<SUB_BITS>;

/// The histogram of a row's times (nanoseconds, and the floor ratios in thousandths): buckets 1/32 of their value
/// wide.
pub type TimeHistogram = Histogram<TIME_SUB_BITS>;

impl<const SUB: u32> Histogram<SUB> {
    /// The lowest value of the bucket `value` falls in.
    pub fn bucket(value: u64) -> u64 {
        if value < 2 << SUB {
            return value;
        }
        let shift = 63 - value.leading_zeros() - SUB;
        (value >> shift) << shift
    }

    /// Adds one value.
    pub fn add(&mut self, value: u64) {
        *self.counts.entry(Self::bucket(value)).or_insert(0) += 1;
    }

    /// Adds every value of `other`.
    pub fn merge(&mut self, other: &Self) {
        for (&v, &n) in &other.counts {
            *self.counts.entry(v).or_insert(0) += n;
        }
    }

    /// How many values it holds.
    pub fn count(&self) -> u64 {
        self.counts.values().sum()
    }

    /// The nearest-rank percentile `p` (0..=100) as its bucket's lowest value; 0 for none.
    pub fn percentile(&self, p: f64) -> u64 {
        let n = self.count();
        if n == 0 {
            return 0;
        }
        let rank = ((p / 100.0) * n as f64).ceil().max(1.0) as u64;
        let rank = rank.min(n);
        let mut seen = 0;
        for (&v, &c) in &self.counts {
            seen += c;
            if seen >= rank {
                return v;
            }
        }
        0
    }

    /// The mean of the values ranked between `n / 4` and `n - n / 4` (the interquartile mean), each counted at its
    /// bucket's lowest value; `None` for none.
    pub fn interquartile_mean(&self) -> Option<f64> {
        let n = self.count();
        let cut = n / 4;
        let (lo, hi) = (cut, n - cut);
        if hi <= lo {
            return None;
        }
        let (mut rank, mut sum) = (0u64, 0f64);
        for (&v, &c) in &self.counts {
            let start = rank.max(lo);
            let end = (rank + c).min(hi);
            if end > start {
                sum += v as f64 * (end - start) as f64;
            }
            rank += c;
        }
        Some(sum / (hi - lo) as f64)
    }

    /// The (bucket, count) pairs, buckets ascending.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.counts.iter().map(|(&v, &n)| (v, n))
    }

    /// A histogram of `pairs`, refused (with the reason) unless each bucket is the lowest value of a bucket, the
    /// buckets ascend, no count is 0 and they hold at most [`MAX_COUNT`] values in all.
    pub fn from_buckets(pairs: &[(u64, u64)]) -> Result<Self, String> {
        let mut counts = BTreeMap::new();
        let mut last = None;
        let mut total = 0u64;
        for &(v, n) in pairs {
            total = total.saturating_add(n);
            if total > MAX_COUNT {
                return Err(format!(
                    "bucket {v} counts {n} values; a histogram holds at most {MAX_COUNT} (2^53) in all"
                ));
            }
            if Self::bucket(v) != v {
                return Err(format!("{v} is not the lowest value of a bucket"));
            }
            if last.is_some_and(|l| l >= v) {
                return Err(format!("bucket {v} is out of ascending order"));
            }
            if n == 0 {
                return Err(format!("bucket {v} counts 0 values"));
            }
            last = Some(v);
            counts.insert(v, n);
        }
        Ok(Self { counts })
    }
}

impl<const SUB: u32> Serialize for Histogram<SUB> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.counts.iter().map(|(&v, &n)| [v, n]))
    }
}

impl<'de, const SUB: u32> Deserialize<'de> for Histogram<SUB> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let pairs: Vec<(u64, u64)> = Vec::deserialize(d)?;
        Self::from_buckets(&pairs).map_err(serde::de::Error::custom)
    }
}

/// Scale of the floor ratios a [`RowSummary`] keeps (in thousandths).
pub(crate) const RATIO_SCALE: f64 = 1000.0;

macro_rules! row_summary {
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
        /// The slots of `summary.integrity`: one an integrity figure, and the turns whose records differ last.
        pub(crate) const INTEGRITY_SLOTS: usize = 1 $(+ super::figure::one!($if))*;

        /// Everything a row's figures are computed from, summed over its turns; [`RowSummary::merge`] combines the
        /// summaries of two parts of the turns into that of all of them.
        #[derive(Debug, Clone, Default, PartialEq, Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct RowSummary {
            /// Turns.
            pub batches: u64,
            /// Turns over the budget.
            pub violations: u64,
            /// Overshoots of every turn (0 for those within).
            pub overshoot: LogHistogram,
            /// The largest overshoot.
            pub max_overshoot: u64,
            /// Violations by the boundary that let them through.
            pub violation_boundaries: BTreeMap<String, u64>,
            /// Budgeted fields.
            pub fields: u64,
            /// Sum over turns of mean kept share x fields, fixed point.
            pub kept_share_sum: u128,
            /// Original UTF-16 units of every field.
            pub original_units: u64,
            /// Units still shown.
            pub kept_units: u64,
            /// The smallest share any field kept (`None` before a field).
            pub min_share: Option<f64>,
            /// Sum of the fairness of the turns with a field, fixed point.
            pub fairness_sum: u128,
            /// Turns with a field (those whose fairness is summed).
            pub fairness_turns: u64,
            /// Sum of the budget used by turns that measured it, fixed point.
            pub budget_used_sum: u128,
            /// Turns that measured the budget used.
            pub budget_used_turns: u64,
            /// Shortened fields whose first line survived / could be checked.
            pub first_line: (u64, u64),
            /// Shortened fields whose last non-blank line survived / that have one.
            pub last_line: (u64, u64),
            /// Shortened fields that name an artifact / whose entry has one.
            pub path_visible: (u64, u64),
            /// Needles by kind.
            pub needles: BTreeMap<NeedleKind, NeedleCount>,
            /// Sum of the needle upper bounds.
            pub needle_upper_bound: u64,
            $(
                $(#[doc = $pd])*
                pub $pr: u64,
            )*
            /// Shortened fields.
            pub shortened_fields: u64,
            $(
                $(#[doc = $sd])*
                pub $sr: u64,
            )*
            /// The integrity figures' totals in their slots ([`super::Figure::order`]), then the turns whose
            /// records differ.
            pub integrity: [u64; INTEGRITY_SLOTS],
            /// The bootstrap resamples of needle survival and retention, for the paired intervals of the ranking;
            /// absent from a compact `results.json` (`run --compact`, the gate's baseline): then dropped.
            #[serde(default = "Resamples::dropped")]
            pub resamples: Resamples,
            $(
                $(#[doc = $ud])*
                #[serde(default)]
                pub $ur: u64,
            )*
        }

        /// Written as its fields, each figure at its place in its section ([`super::Figure::order`]).
        impl Serialize for RowSummary {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let mut persistence = [$(($po, $pk, self.$pr)),*];
                persistence.sort_by_key(|f| f.0);
                let mut shortened = [$(($so, $sk, self.$sr)),*];
                shortened.sort_by_key(|f| f.0);
                let mut used = [$(($uo, $uk, self.$ur)),*];
                used.sort_by_key(|f| f.0);
                let fields = 22 + persistence.len() + shortened.len() + used.len();
                let mut out = s.serialize_struct("RowSummary", fields)?;
                out.serialize_field("batches", &self.batches)?;
                out.serialize_field("violations", &self.violations)?;
                out.serialize_field("overshoot", &self.overshoot)?;
                out.serialize_field("maxOvershoot", &self.max_overshoot)?;
                out.serialize_field("violationBoundaries", &self.violation_boundaries)?;
                out.serialize_field("fields", &self.fields)?;
                out.serialize_field("keptShareSum", &self.kept_share_sum)?;
                out.serialize_field("originalUnits", &self.original_units)?;
                out.serialize_field("keptUnits", &self.kept_units)?;
                out.serialize_field("minShare", &self.min_share)?;
                out.serialize_field("fairnessSum", &self.fairness_sum)?;
                out.serialize_field("fairnessTurns", &self.fairness_turns)?;
                out.serialize_field("budgetUsedSum", &self.budget_used_sum)?;
                out.serialize_field("budgetUsedTurns", &self.budget_used_turns)?;
                out.serialize_field("firstLine", &self.first_line)?;
                out.serialize_field("lastLine", &self.last_line)?;
                out.serialize_field("pathVisible", &self.path_visible)?;
                out.serialize_field("needles", &self.needles)?;
                out.serialize_field("needleUpperBound", &self.needle_upper_bound)?;
                for (_, key, value) in persistence {
                    out.serialize_field(key, &value)?;
                }
                out.serialize_field("shortenedFields", &self.shortened_fields)?;
                for (_, key, value) in shortened {
                    out.serialize_field(key, &value)?;
                }
                out.serialize_field("integrity", &self.integrity)?;
                if self.resamples.is_dropped() {
                    out.skip_field("resamples")?;
                } else {
                    out.serialize_field("resamples", &self.resamples)?;
                }
                for (_, key, value) in used {
                    out.serialize_field(key, &value)?;
                }
                out.end()
            }
        }
    };
}
super::figure::figure_list!(row_summary);

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

/// The times of a row's turns as histograms, kept apart from its [`RowSummary`] (in the row's `cost`) because
/// they are the only figures that differ between two runs of the same plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CostTally {
    /// Turn times (ns).
    pub turn_ns: TimeHistogram,
    /// The strategy's own times (ns).
    pub strategy_ns: TimeHistogram,
    /// The floor's times (ns).
    pub floor_ns: TimeHistogram,
    /// Strategy over floor per turn with a measurable floor, in thousandths.
    pub floor_ratio: TimeHistogram,
}

impl CostTally {
    /// Adds one turn's times.
    pub fn add(&mut self, cost: TurnCost) {
        self.turn_ns.add(cost.turn_ns);
        self.strategy_ns.add(cost.strategy_ns);
        self.floor_ns.add(cost.floor_ns);
        if cost.floor_ns > 0 {
            self.floor_ratio
                .add(scaled(cost.strategy_ns as f64 / cost.floor_ns as f64));
        }
    }

    /// Adds every turn of `other`.
    pub fn merge(&mut self, other: &CostTally) {
        self.turn_ns.merge(&other.turn_ns);
        self.strategy_ns.merge(&other.strategy_ns);
        self.floor_ns.merge(&other.floor_ns);
        self.floor_ratio.merge(&other.floor_ratio);
    }
}

/// A ratio in thousandths, rounded to the nearest (what a histogram of ratios holds).
pub(crate) fn scaled(ratio: f64) -> u64 {
    if ratio.is_finite() && ratio > 0.0 {
        (ratio * RATIO_SCALE).round() as u64
    } else {
        0
    }
}

impl RowSummary {
    /// Adds one turn.
    pub fn add(&mut self, m: &BatchMetrics) {
        self.batches += 1;
        self.violations += u64::from(!m.within_budget);
        self.overshoot.add(m.overshoot);
        self.max_overshoot = self.max_overshoot.max(m.overshoot);
        if let Some(b) = m.violation_boundary {
            *self.violation_boundaries.entry(b.to_string()).or_insert(0) += 1;
        }
        self.fields += m.fields;
        if let Some(mean) = m.mean_kept_share {
            self.kept_share_sum += fixed(mean) * u128::from(m.fields);
        }
        self.original_units += m.original_units;
        self.kept_units += m.kept_units;
        if let Some(min) = m.min_kept_share {
            self.min_share = Some(self.min_share.map_or(min, |s| s.min(min)));
        }
        if let Some(fairness) = m.fairness {
            self.fairness_sum += fixed(fairness);
            self.fairness_turns += 1;
        }
        if let Some(used) = m.budget_used {
            self.budget_used_sum += fixed(used);
            self.budget_used_turns += 1;
        }
        let add = |a: &mut (u64, u64), b: (u64, u64)| {
            a.0 += b.0;
            a.1 += b.1;
        };
        add(&mut self.first_line, m.first_line_kept);
        add(&mut self.last_line, m.last_line_kept);
        add(&mut self.path_visible, m.path_visible);
        for (k, c) in &m.needles {
            let e = self.needles.entry(*k).or_default();
            e.planted += c.planted;
            e.survived += c.survived;
        }
        self.needle_upper_bound += m.needle_upper_bound;
        self.shortened_fields += m.shortened_fields;
        for f in FIGURES {
            *(f.total_mut)(self) += (f.turn)(m);
        }
        self.integrity[INTEGRITY_SLOTS - 1] += u64::from(m.records_differ);
        self.resamples.add(m);
    }

    /// Adds every turn of `other`.
    pub fn merge(&mut self, other: &RowSummary) {
        self.batches += other.batches;
        self.violations += other.violations;
        self.overshoot.merge(&other.overshoot);
        self.max_overshoot = self.max_overshoot.max(other.max_overshoot);
        for (b, n) in &other.violation_boundaries {
            *self.violation_boundaries.entry(b.clone()).or_insert(0) += n;
        }
        self.fields += other.fields;
        self.kept_share_sum += other.kept_share_sum;
        self.original_units += other.original_units;
        self.kept_units += other.kept_units;
        self.min_share = match (self.min_share, other.min_share) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.fairness_sum += other.fairness_sum;
        self.fairness_turns += other.fairness_turns;
        self.budget_used_sum += other.budget_used_sum;
        self.budget_used_turns += other.budget_used_turns;
        for (a, b) in [
            (&mut self.first_line, other.first_line),
            (&mut self.last_line, other.last_line),
            (&mut self.path_visible, other.path_visible),
        ] {
            a.0 += b.0;
            a.1 += b.1;
        }
        for (k, c) in &other.needles {
            let e = self.needles.entry(*k).or_default();
            e.planted += c.planted;
            e.survived += c.survived;
        }
        self.needle_upper_bound += other.needle_upper_bound;
        self.shortened_fields += other.shortened_fields;
        for f in FIGURES {
            *(f.total_mut)(self) += (f.total)(other);
        }
        self.integrity[INTEGRITY_SLOTS - 1] += other.integrity[INTEGRITY_SLOTS - 1];
        self.resamples.merge(&other.resamples);
    }

    /// Mean kept share per field; `None` without fields.
    pub fn retention_mean(&self) -> Option<f64> {
        (self.fields > 0)
            .then(|| self.kept_share_sum as f64 / FIXED_ONE as f64 / self.fields as f64)
    }

    /// Mean fairness over the turns with a field; `None` when none had one.
    pub fn fairness(&self) -> Option<f64> {
        fixed_mean(self.fairness_sum, self.fairness_turns)
    }

    /// Mean budget used over the turns that measured it; `None` when none did.
    pub fn budget_used(&self) -> Option<f64> {
        fixed_mean(self.budget_used_sum, self.budget_used_turns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_in_fixed_point_are_exact_and_what_is_no_share_is_zero() {
        assert_eq!(fixed(1.0), FIXED_ONE);
        assert_eq!(fixed(0.25), FIXED_ONE / 4);
        assert_eq!(fixed(1.5), FIXED_ONE * 3 / 2);
        // Nothing that is not a positive finite share adds to a sum: not infinity (which would saturate it).
        assert_eq!(
            [0.0, -0.0, -0.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY].map(fixed),
            [0; 6]
        );
        assert_eq!(fixed_mean(FIXED_ONE * 3, 4), Some(0.75));
        assert_eq!(fixed_mean(0, 0), None);
    }

    #[test]
    fn a_summary_keeps_the_order_of_schema_6_and_reads_back() {
        let mut s = RowSummary::default();
        for (i, f) in crate::metrics::FIGURES.iter().enumerate() {
            *(f.total_mut)(&mut s) = 10 + i as u64;
        }
        s.integrity[INTEGRITY_SLOTS - 1] = 99;
        s.shortened_fields = 9;
        let text = serde_json::to_string(&s).unwrap();
        let expected = r#"{"batches":0,"violations":0,"overshoot":[],"maxOvershoot":0,"violationBoundaries":{},"fields":0,"keptShareSum":0,"originalUnits":0,"keptUnits":0,"minShare":null,"fairnessSum":0,"fairnessTurns":0,"budgetUsedSum":0,"budgetUsedTurns":0,"firstLine":[0,0],"lastLine":[0,0],"pathVisible":[0,0],"needles":{},"needleUpperBound":0,"writes":10,"bytes":11,"duplicateWrites":12,"reusedPaths":14,"failedWrites":13,"shortenedFields":9,"recoverableFields":15,"integrity":[16,17,18,19,20,21,99],"resamples":"#;
        assert!(text.starts_with(expected), "{text}");
        assert_eq!(serde_json::from_str::<RowSummary>(&text).unwrap(), s);
    }

    #[test]
    fn ratios_in_thousandths_round_and_what_is_no_ratio_is_zero() {
        assert_eq!([1.0, 2.5, 0.0004, 0.0005].map(scaled), [1000, 2500, 0, 1]);
        assert_eq!(
            [-1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY].map(scaled),
            [0; 4]
        );
    }
}
