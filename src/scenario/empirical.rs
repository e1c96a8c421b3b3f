//! Empirical size models (`[empirical.KIND]`): a kind's result sizes as a table of quantiles read off a corpus,
//! and the result written to exactly the size drawn. `[sizes.KIND]` tells a kind how long to write its own text,
//! around which it puts its framing (a header, an exit line, a search's count), so a kind whose framing is larger
//! than the corpus's small results, or whose results are several tools' of different sizes, cannot follow the
//! corpus; an empirical model is what the result measures to, framing included (`generate::exact` cuts or pads
//! the text to it). `budgetlab calibrate` writes one for each kind the parametric fit misses.
//!
//! A table is `quantiles = [[share, units], ...]`: 2 to [`MAX_EMPIRICAL_POINTS`] points, shares rising from 0
//! to 1, units finite, never falling, in `[0, MAX_SIZE]`. A table of more points is refused while it is read,
//! before it is held. A size is drawn at a uniform share, interpolated linearly between the two points around
//! it. A scenario without the table serializes (and so digests) and generates exactly as before.

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::rng::Stream;
use crate::workload::MAX_SIZE;

/// Most points of an empirical table.
pub const MAX_EMPIRICAL_POINTS: usize = 1_024;

/// A kind's empirical size model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empirical {
    /// `[share, units]` points: the share of results at or below `units`, from `[0, smallest]` to `[1, largest]`.
    pub quantiles: Quantiles,
}

/// The points of an empirical table; at most [`MAX_EMPIRICAL_POINTS`] are read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Quantiles(pub Vec<[f64; 2]>);

impl<'de> Deserialize<'de> for Quantiles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Quantiles, D::Error> {
        struct Points;
        impl<'de> Visitor<'de> for Points {
            type Value = Quantiles;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(
                    f,
                    "an array of at most {MAX_EMPIRICAL_POINTS} [share, units] points"
                )
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Quantiles, A::Error> {
                let hint = seq.size_hint().unwrap_or(0).min(MAX_EMPIRICAL_POINTS);
                let mut points = Vec::with_capacity(hint);
                while let Some(point) = seq.next_element::<[f64; 2]>()? {
                    if points.len() == MAX_EMPIRICAL_POINTS {
                        return Err(de::Error::custom(format!(
                            "must have at most {MAX_EMPIRICAL_POINTS} points"
                        )));
                    }
                    points.push(point);
                }
                Ok(Quantiles(points))
            }
        }
        d.deserialize_seq(Points)
    }
}

impl Empirical {
    /// A model of these points (not checked: see [`Empirical::validate`]).
    pub fn new(points: Vec<[f64; 2]>) -> Empirical {
        Empirical {
            quantiles: Quantiles(points),
        }
    }

    /// The points.
    pub fn points(&self) -> &[[f64; 2]] {
        &self.quantiles.0
    }

    /// Checks the table: 2 to [`MAX_EMPIRICAL_POINTS`] points, shares from 0 to 1 rising, units finite in `[0,
    /// MAX_SIZE]` never falling. The message says which point is wrong.
    pub fn validate(&self) -> Result<(), String> {
        let q = self.points();
        if !(2..=MAX_EMPIRICAL_POINTS).contains(&q.len()) {
            return Err(format!(
                "must have 2 to {MAX_EMPIRICAL_POINTS} points, got {}",
                q.len()
            ));
        }
        for (i, &[share, units]) in q.iter().enumerate() {
            if !(share.is_finite() && (0.0..=1.0).contains(&share)) {
                return Err(format!(
                    "point {i}: the share must be a number in [0, 1], got {share}"
                ));
            }
            if !(units.is_finite() && (0.0..=MAX_SIZE as f64).contains(&units)) {
                return Err(format!(
                    "point {i}: the units must be a number in [0, {MAX_SIZE}], got {units}"
                ));
            }
            if i > 0 && (share <= q[i - 1][0] || units < q[i - 1][1]) {
                return Err(format!(
                    "point {i} must have a larger share and no fewer units than the one before, got \
                     [{share}, {units}] after [{}, {}]",
                    q[i - 1][0],
                    q[i - 1][1]
                ));
            }
        }
        if q[0][0] != 0.0 || q[q.len() - 1][0] != 1.0 {
            return Err("must start at share 0 and end at share 1".into());
        }
        Ok(())
    }

    /// The largest size the table draws.
    pub fn max(&self) -> u64 {
        self.points().last().map_or(0, |p| p[1].ceil() as u64)
    }

    /// The size at share `u` (validated table), interpolated linearly between the points around it and rounded.
    pub fn at(&self, u: f64) -> u64 {
        let q = self.points();
        let i = q.partition_point(|p| p[0] <= u).clamp(1, q.len() - 1);
        let ([s0, v0], [s1, v1]) = (q[i - 1], q[i]);
        let t = ((u - s0) / (s1 - s0)).clamp(0.0, 1.0);
        (v0 + t * (v1 - v0)).round() as u64
    }

    /// Draws one size from `rng`: one word of the stream.
    pub fn sample(&self, rng: &mut Stream) -> usize {
        self.at(rng.unit()) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Seed;

    #[test]
    fn draws_follow_the_table() {
        // A bimodal table: 40% at 2 to 10 units, 60% at 2,000 to 9,000.
        let e = Empirical::new(vec![
            [0.0, 2.0],
            [0.4, 10.0],
            [0.41, 2_000.0],
            [0.8, 5_000.0],
            [1.0, 9_000.0],
        ]);
        assert_eq!(e.validate(), Ok(()));
        let mut rng = Stream::derive(Seed(3), "empirical", 0);
        let mut xs: Vec<usize> = (0..40_000).map(|_| e.sample(&mut rng)).collect();
        xs.sort_unstable();
        let at = |q: f64| xs[(q * (xs.len() - 1) as f64).round() as usize] as f64;
        for q in [0.1, 0.3, 0.5, 0.6, 0.8, 0.9, 0.99] {
            let want = e.at(q) as f64;
            let got = at(q);
            assert!(
                (got - want).abs() <= 0.03 * want + 1.0,
                "q {q}: {got} vs {want}"
            );
        }
        assert_eq!(xs[0], 2);
        assert!((8_900..=9_000).contains(&xs[xs.len() - 1]));
        assert_eq!(e.at(0.5), 2_692);
        assert_eq!(e.at(0.2), 6);
        assert_eq!(e.max(), 9_000);
        // Seeded: the same stream draws the same sizes.
        let mut again = Stream::derive(Seed(3), "empirical", 0);
        let first: Vec<usize> = (0..100).map(|_| e.sample(&mut again)).collect();
        let mut rng = Stream::derive(Seed(3), "empirical", 0);
        let before: Vec<usize> = (0..100).map(|_| e.sample(&mut rng)).collect();
        assert_eq!(first, before);
    }

    #[test]
    fn a_bad_table_is_refused_with_its_point() {
        let bad = |points: &[[f64; 2]]| Empirical::new(points.to_vec()).validate().unwrap_err();
        assert_eq!(bad(&[[0.0, 1.0]]), "must have 2 to 1024 points, got 1");
        assert_eq!(
            bad(&[[0.0, 1.0], [0.5, f64::NAN], [1.0, 2.0]]),
            "point 1: the units must be a number in [0, 16000000], got NaN"
        );
        assert_eq!(
            bad(&[[0.0, 1.0], [1.0, 1e12]]),
            "point 1: the units must be a number in [0, 16000000], got 1000000000000"
        );
        assert_eq!(
            bad(&[[0.0, 5.0], [0.5, 4.0], [1.0, 9.0]]),
            "point 1 must have a larger share and no fewer units than the one before, got [0.5, 4] after [0, 5]"
        );
        assert_eq!(
            bad(&[[0.0, 1.0], [0.5, 2.0], [0.5, 3.0], [1.0, 4.0]]),
            "point 2 must have a larger share and no fewer units than the one before, got [0.5, 3] after [0.5, 2]"
        );
        assert_eq!(
            bad(&[[0.1, 1.0], [1.0, 2.0]]),
            "must start at share 0 and end at share 1"
        );
        assert_eq!(
            bad(&[[0.0, 1.0], [1.5, 2.0]]),
            "point 1: the share must be a number in [0, 1], got 1.5"
        );
    }
}
