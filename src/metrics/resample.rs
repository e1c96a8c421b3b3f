//! Bootstrap resamples of a row, kept mergeable, from which the ranking gives the interval of the difference
//! between two strategies measured on the same batches.
//!
//! This is the Poisson bootstrap: in resample `r`, batch `i` weighs `w_r(i)`, a Poisson variate of mean 1, and a
//! row keeps, for each of [`RESAMPLES`] resamples, the weighted sums of what its needle survival and retention
//! are computed from. The weights come from a stream keyed by the batch index alone ([`weights`]), so every
//! strategy and budget of a run weighs a batch alike (the differences are paired), a shard draws the weights the
//! whole run would, and merging two parts of the batches is adding their sums: the intervals are identical on
//! any thread count, shard and machine. The sums are whole numbers (a turn's mean kept share is counted in
//! millionths), so adding them in any order gives the same bytes.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

use super::BatchMetrics;
use crate::rng::{Seed, Stream};

/// How many bootstrap resamples a row keeps.
pub const RESAMPLES: usize = 200;

/// The scale a turn's mean kept share is summed in: millionths.
const SHARE_SCALE: f64 = 1_000_000.0;

/// The weight of batch `batch` in each resample: Poisson variates of mean 1, from the stream of that batch
/// index in the `bootstrap` domain (the same for every scenario, strategy and budget).
pub fn weights(batch: u64) -> [u8; RESAMPLES] {
    let mut stream = Stream::derive(Seed(0), "bootstrap", batch);
    std::array::from_fn(|_| stream.poisson_one())
}

/// One resample's weighted sums.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resample {
    /// Needles still visible.
    pub survived: u64,
    /// Needles planted.
    pub planted: u64,
    /// Mean kept share of each turn x its fields, in millionths.
    pub kept: u64,
    /// Budgeted fields.
    pub fields: u64,
}

/// A row's [`RESAMPLES`] resamples (all zero before its first turn), or none when they were dropped
/// ([`Resamples::dropped`]: a compact `results.json` does not keep them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resamples(Vec<Resample>);

impl Default for Resamples {
    fn default() -> Self {
        Resamples(vec![Resample::default(); RESAMPLES])
    }
}

impl Resamples {
    /// No resamples: those of a compact `results.json` (`run --compact`), which gives no paired interval.
    /// Adding turns to them or merging them keeps them dropped.
    pub fn dropped() -> Resamples {
        Resamples(Vec::new())
    }

    /// Whether the resamples were dropped ([`Resamples::dropped`]).
    pub fn is_dropped(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds one turn, weighted in each resample by its batch's weight.
    pub fn add(&mut self, m: &BatchMetrics) {
        let (survived, planted) = m
            .needles
            .values()
            .fold((0, 0), |(s, p), c| (s + c.survived, p + c.planted));
        let kept = m
            .mean_kept_share
            .map_or(0, |share| (share * SHARE_SCALE).round() as u64 * m.fields);
        let add = |sum: &mut u64, w: u64, x: u64| *sum = sum.saturating_add(w.saturating_mul(x));
        for (r, w) in self.0.iter_mut().zip(weights(m.batch as u64)) {
            let w = u64::from(w);
            add(&mut r.survived, w, survived);
            add(&mut r.planted, w, planted);
            add(&mut r.kept, w, kept);
            add(&mut r.fields, w, m.fields);
        }
    }

    /// Adds every turn of `other`; when either was dropped, so is the sum (a part of the turns is not the whole).
    pub fn merge(&mut self, other: &Resamples) {
        if other.is_dropped() {
            self.0.clear();
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            a.survived = a.survived.saturating_add(b.survived);
            a.planted = a.planted.saturating_add(b.planted);
            a.kept = a.kept.saturating_add(b.kept);
            a.fields = a.fields.saturating_add(b.fields);
        }
    }

    /// The resamples, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Resample> {
        self.0.iter()
    }

    /// Why these resamples cannot be a row's, if they cannot: a resample that keeps more needles than were
    /// planted, or a kept share above 1.
    pub fn check(&self) -> Result<(), String> {
        for (i, r) in self.0.iter().enumerate() {
            if r.survived > r.planted {
                return Err(format!(
                    "resample {i} keeps {} needles of {} planted",
                    r.survived, r.planted
                ));
            }
            if r.kept as f64 > r.fields as f64 * SHARE_SCALE {
                return Err(format!(
                    "resample {i} keeps a share above 1 of its {} fields",
                    r.fields
                ));
            }
        }
        Ok(())
    }
}

/// A figure the ranking compares strategies on, per resample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// The share of planted needles still visible.
    Needles,
    /// The mean kept share per field.
    Retention,
}

impl Figure {
    /// The figure in resample `r`; `None` when it has nothing to measure there.
    fn of(self, r: &Resample) -> Option<f64> {
        match self {
            Figure::Needles => (r.planted > 0).then(|| r.survived as f64 / r.planted as f64),
            Figure::Retention => {
                (r.fields > 0).then(|| r.kept as f64 / SHARE_SCALE / r.fields as f64)
            }
        }
    }
}

/// The 95% interval of `a`'s figure minus `b`'s, two rows measured on the same batches: the 2.5th and 97.5th
/// percentiles of the difference over the resamples (the percentile bootstrap). `None` when the figure has
/// nothing to measure in some resample of either, or when the two rows were not measured on the same batches
/// (their resamples' denominators differ), or either's resamples were dropped.
pub fn paired_interval(a: &Resamples, b: &Resamples, figure: Figure) -> Option<(f64, f64)> {
    let mut diffs = Vec::with_capacity(RESAMPLES);
    for (ra, rb) in a.0.iter().zip(&b.0) {
        if (ra.planted, ra.fields) != (rb.planted, rb.fields) {
            return None;
        }
        diffs.push(figure.of(ra)? - figure.of(rb)?);
    }
    if diffs.len() != RESAMPLES {
        return None;
    }
    diffs.sort_by(f64::total_cmp);
    // Nearest ranks of 2.5% and 97.5% of 200: the 5th and the 195th values.
    let lo = (RESAMPLES as f64 * 0.025).ceil() as usize;
    let hi = (RESAMPLES as f64 * 0.975).ceil() as usize;
    Some((diffs[lo - 1], diffs[hi - 1]))
}

/// Serialized as one line, `[[survived, planted, kept, fields], ...]` (a row's 200 resamples would otherwise take
/// 1,000 lines of a pretty-printed `results.json`).
impl Serialize for Resamples {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut text = String::with_capacity(self.0.len() * 24);
        text.push('[');
        for (i, r) in self.0.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&format!(
                "[{},{},{},{}]",
                r.survived, r.planted, r.kept, r.fields
            ));
        }
        text.push(']');
        let raw =
            serde_json::value::RawValue::from_string(text).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Resamples {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Resamples, D::Error> {
        struct List;
        impl<'de> Visitor<'de> for List {
            type Value = Resamples;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "{RESAMPLES} resamples, each [survived, planted, kept, fields]"
                )
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Resamples, A::Error> {
                let mut out = Vec::with_capacity(RESAMPLES);
                while let Some([survived, planted, kept, fields]) =
                    seq.next_element::<[u64; 4]>()?
                {
                    if out.len() == RESAMPLES {
                        return Err(de::Error::invalid_length(RESAMPLES + 1, &self));
                    }
                    out.push(Resample {
                        survived,
                        planted,
                        kept,
                        fields,
                    });
                }
                if out.len() != RESAMPLES {
                    return Err(de::Error::invalid_length(out.len(), &self));
                }
                Ok(Resamples(out))
            }
        }
        deserializer.deserialize_seq(List)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::NeedleCount;
    use crate::needles::NeedleKind;

    fn turn(batch: usize, survived: u64, planted: u64, share: f64, fields: u64) -> BatchMetrics {
        let mut m = crate::metrics::tests::aggregate::quiet(batch, fields);
        m.needles
            .insert(NeedleKind::ExitInfo, NeedleCount { planted, survived });
        m.mean_kept_share = Some(share);
        m
    }

    #[test]
    fn weights_depend_on_the_batch_alone_and_have_mean_one() {
        assert_eq!(weights(7), weights(7));
        assert_ne!(weights(7), weights(8));
        let total: u64 = (0..50).flat_map(weights).map(u64::from).sum();
        let mean = total as f64 / (50 * RESAMPLES) as f64;
        assert!((mean - 1.0).abs() < 0.05, "{mean}");
    }

    #[test]
    fn adding_in_any_order_or_in_parts_gives_the_same_sums() {
        let turns: Vec<BatchMetrics> = (0..12)
            .map(|i| turn(i, i as u64 % 3, 3, 0.25 * (i % 4) as f64, 2 + i as u64 % 2))
            .collect();
        let mut whole = Resamples::default();
        turns.iter().for_each(|t| whole.add(t));
        let mut reversed = Resamples::default();
        turns.iter().rev().for_each(|t| reversed.add(t));
        let (mut a, mut b) = (Resamples::default(), Resamples::default());
        turns.iter().step_by(2).for_each(|t| a.add(t));
        turns.iter().skip(1).step_by(2).for_each(|t| b.add(t));
        a.merge(&b);
        assert_eq!(whole, reversed);
        assert_eq!(whole, a);
        // Each resample's sums are the weighted sums, batch by batch.
        let r = 17;
        let expected: u64 = turns
            .iter()
            .map(|t| u64::from(weights(t.batch as u64)[r]) * (t.batch as u64 % 3))
            .sum();
        assert_eq!(whole.0[r].survived, expected);
        assert_eq!(whole.check(), Ok(()));
    }

    #[test]
    fn a_strategy_that_keeps_every_needle_the_other_loses_is_ahead_in_every_resample() {
        let (mut a, mut b, mut c) = Default::default();
        for i in 0..40 {
            Resamples::add(&mut a, &turn(i, 3, 4, 1.0, 1));
            Resamples::add(&mut b, &turn(i, 3 - u64::from(i % 2 == 0), 4, 1.0, 1));
            Resamples::add(&mut c, &turn(i, 3, 4, 1.0, 1));
        }
        let (lo, hi) = paired_interval(&a, &b, Figure::Needles).unwrap();
        assert!(lo > 0.0 && hi < 0.25 && lo <= hi, "{lo} {hi}");
        // The same rows: the difference is zero in every resample.
        assert_eq!(paired_interval(&a, &c, Figure::Needles), Some((0.0, 0.0)));
        assert_eq!(paired_interval(&a, &c, Figure::Retention), Some((0.0, 0.0)));
        // Rows of other batches are not paired.
        let mut other = Resamples::default();
        other.add(&turn(100, 1, 4, 1.0, 1));
        assert_eq!(paired_interval(&a, &other, Figure::Needles), None);
        // No needle planted: nothing to compare.
        let (mut x, mut y) = (Resamples::default(), Resamples::default());
        x.add(&turn(0, 0, 0, 0.5, 1));
        y.add(&turn(0, 0, 0, 0.5, 1));
        assert_eq!(paired_interval(&x, &y, Figure::Needles), None);
    }

    #[test]
    fn they_round_trip_through_json_on_one_line_and_a_wrong_length_is_refused() {
        let mut r = Resamples::default();
        r.add(&turn(3, 1, 2, 0.5, 3));
        let text = serde_json::to_string_pretty(&r).unwrap();
        assert_eq!(text.lines().count(), 1);
        assert!(text.starts_with('['));
        assert_eq!(serde_json::from_str::<Resamples>(&text).unwrap(), r);
        let short = "[[0,0,0,0]]";
        let err = serde_json::from_str::<Resamples>(short)
            .unwrap_err()
            .to_string();
        assert!(err.contains("invalid length 1"), "{err}");
        let mut bad = r.clone();
        bad.0[5].survived = bad.0[5].planted + 1;
        assert!(bad.check().unwrap_err().starts_with("resample 5 keeps"));
    }
}
