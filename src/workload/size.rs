//! Size models: how long each kind's generated text is, in UTF-16 units.
//!
//! A model is a mixture of two log-normal components, a body (most results, small) and a tail (the few large
//! ones), clamped to `[min, max]`. Real tool results are mostly small with a thin but real tail; the built-in
//! models per kind are calibrated so that the mixed-realistic workload reproduces the one published
//! measurement (p99 57,301 characters, 0.1% above 100,000). Scenario files override any field per kind, or give
//! a model as a table of quantiles instead (`quantiles`, what `budgetlab calibrate` writes to follow a corpus).

use serde::{Deserialize, Serialize};

use crate::rng::Stream;

/// A two-component log-normal size model, in UTF-16 units, or a table of quantiles.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeModel {
    /// Median of the body component.
    pub median: f64,
    /// Log-space standard deviation of the body component.
    pub sigma: f64,
    /// Share of draws taken from the tail component, in `[0, 1]`.
    pub tail_share: f64,
    /// Median of the tail component.
    pub tail_median: f64,
    /// Log-space standard deviation of the tail component.
    pub tail_sigma: f64,
    /// Smallest size drawn.
    pub min: u64,
    /// Largest size drawn.
    pub max: u64,
    /// When not empty, the model is this table instead of the log-normals: `[share, units]` points, the share
    /// of sizes at or below `units`, from `[0, smallest]` to `[1, largest]`; a size is drawn at a uniform share,
    /// its logarithm (of 1 + units) interpolated linearly between the two points around it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub quantiles: Vec<[f64; 2]>,
}

/// Most points of a size model's table of quantiles.
pub const MAX_QUANTILES: usize = 128;

/// A scenario's override of some fields of a size model; absent fields keep the built-in value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeOverride {
    /// See [`SizeModel::median`].
    pub median: Option<f64>,
    /// See [`SizeModel::sigma`].
    pub sigma: Option<f64>,
    /// See [`SizeModel::tail_share`].
    pub tail_share: Option<f64>,
    /// See [`SizeModel::tail_median`].
    pub tail_median: Option<f64>,
    /// See [`SizeModel::tail_sigma`].
    pub tail_sigma: Option<f64>,
    /// See [`SizeModel::min`].
    pub min: Option<u64>,
    /// See [`SizeModel::max`].
    pub max: Option<u64>,
    /// See [`SizeModel::quantiles`]. Left out of the serialized override when absent, so the digests of
    /// scenarios without it do not change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantiles: Option<Vec<[f64; 2]>>,
}

/// Default ceiling of every model: 4 million units.
pub const DEFAULT_MAX: u64 = 4_000_000;

/// The largest size any model may draw (its `max`, and the bound of its medians): 16 million units (bytes for
/// media data). A scenario asking for more is refused when it is loaded, before anything is allocated.
pub const MAX_SIZE: u64 = 16_000_000;

impl SizeModel {
    /// A single log-normal body with no tail, in `[0, DEFAULT_MAX]`.
    pub const fn body(median: f64, sigma: f64) -> SizeModel {
        SizeModel {
            median,
            sigma,
            tail_share: 0.0,
            tail_median: 0.0,
            tail_sigma: 0.0,
            min: 0,
            max: DEFAULT_MAX,
            quantiles: Vec::new(),
        }
    }

    /// This model with a tail component.
    pub fn with_tail(self, share: f64, median: f64, sigma: f64) -> SizeModel {
        SizeModel {
            tail_share: share,
            tail_median: median,
            tail_sigma: sigma,
            ..self
        }
    }

    /// This model clamped to `[min, max]`.
    pub fn clamped(self, min: u64, max: u64) -> SizeModel {
        SizeModel { min, max, ..self }
    }

    /// This model with `o`'s fields applied.
    pub fn apply(self, o: &SizeOverride) -> SizeModel {
        SizeModel {
            median: o.median.unwrap_or(self.median),
            sigma: o.sigma.unwrap_or(self.sigma),
            tail_share: o.tail_share.unwrap_or(self.tail_share),
            tail_median: o.tail_median.unwrap_or(self.tail_median),
            tail_sigma: o.tail_sigma.unwrap_or(self.tail_sigma),
            min: o.min.unwrap_or(self.min),
            max: o.max.unwrap_or(self.max),
            quantiles: o.quantiles.clone().unwrap_or(self.quantiles),
        }
    }

    /// Checks the model against its bounds (medians in `(0, MAX_SIZE]`, sigmas in `[0, 10]`, `min <= max <=
    /// MAX_SIZE`); on error returns the offending field and why.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let finite_pos = |v: f64| v.is_finite() && v > 0.0;
        if !(finite_pos(self.median) && self.median <= MAX_SIZE as f64) {
            return Err((
                "median",
                format!(
                    "must be a positive number of at most {MAX_SIZE}, got {}",
                    self.median
                ),
            ));
        }
        if !(self.sigma.is_finite() && self.sigma >= 0.0 && self.sigma <= 10.0) {
            return Err(("sigma", format!("must be in [0, 10], got {}", self.sigma)));
        }
        if !(0.0..=1.0).contains(&self.tail_share) {
            return Err((
                "tail_share",
                format!("must be in [0, 1], got {}", self.tail_share),
            ));
        }
        if !(self.tail_median.is_finite()
            && (0.0..=MAX_SIZE as f64).contains(&self.tail_median)
            && (self.tail_share == 0.0 || self.tail_median > 0.0))
        {
            return Err((
                "tail_median",
                format!(
                    "must be a number in [0, {MAX_SIZE}], positive when tail_share > 0, got {}",
                    self.tail_median
                ),
            ));
        }
        if !(self.tail_sigma.is_finite() && self.tail_sigma >= 0.0 && self.tail_sigma <= 10.0) {
            return Err((
                "tail_sigma",
                format!("must be in [0, 10], got {}", self.tail_sigma),
            ));
        }
        if self.max > MAX_SIZE {
            return Err((
                "max",
                format!("must be at most {MAX_SIZE}, got {}", self.max),
            ));
        }
        if self.min > self.max {
            return Err(("min", format!("min {} is above max {}", self.min, self.max)));
        }
        self.validate_quantiles().map_err(|m| ("quantiles", m))
    }

    /// Checks the table of quantiles, when there is one: 2 to [`MAX_QUANTILES`] points, shares from 0 to 1
    /// rising, units in `[0, MAX_SIZE]` never falling.
    fn validate_quantiles(&self) -> Result<(), String> {
        let q = &self.quantiles;
        if q.is_empty() {
            return Ok(());
        }
        if !(2..=MAX_QUANTILES).contains(&q.len()) {
            return Err(format!(
                "must have 2 to {MAX_QUANTILES} points, got {}",
                q.len()
            ));
        }
        if q[0][0] != 0.0 || q[q.len() - 1][0] != 1.0 {
            return Err("must start at share 0 and end at share 1".into());
        }
        for (i, &[share, units]) in q.iter().enumerate() {
            if !(share.is_finite() && units.is_finite() && (0.0..=MAX_SIZE as f64).contains(&units))
            {
                return Err(format!(
                    "point {i} must be [share, units] with units in [0, {MAX_SIZE}], got [{share}, {units}]"
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
        Ok(())
    }

    /// Draws one size. Always consumes exactly two words of the stream.
    pub fn sample(&self, rng: &mut Stream) -> usize {
        if !self.quantiles.is_empty() {
            let u = rng.unit();
            rng.next_u64();
            return self.clamp(self.quantile(u));
        }
        let tail = rng.unit() < self.tail_share;
        let z = rng.normal();
        let (median, sigma) = if tail {
            (self.tail_median, self.tail_sigma)
        } else {
            (self.median, self.sigma)
        };
        let x = median * crate::rng::det_exp(sigma * z);
        let x = if x.is_finite() {
            x.round()
        } else {
            self.max as f64
        };
        self.clamp(x)
    }

    /// `x` within `[min, max]`.
    fn clamp(&self, x: f64) -> usize {
        (x.max(self.min as f64).min(self.max as f64)) as usize
    }

    /// The size at share `u` of the table of quantiles (not empty, validated), rounded.
    fn quantile(&self, u: f64) -> f64 {
        let q = &self.quantiles;
        let i = q.partition_point(|p| p[0] <= u).clamp(1, q.len() - 1);
        let ([s0, v0], [s1, v1]) = (q[i - 1], q[i]);
        let t = ((u - s0) / (s1 - s0)).clamp(0.0, 1.0);
        let (a, b) = (crate::rng::det_ln(1.0 + v0), crate::rng::det_ln(1.0 + v1));
        (crate::rng::det_exp(a + t * (b - a)) - 1.0).round()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Seed;

    #[test]
    fn body_median_and_clamps_hold() {
        let m = SizeModel::body(1000.0, 1.0).clamped(10, 50_000);
        let mut rng = Stream::derive(Seed(5), "sizes", 0);
        let mut xs: Vec<usize> = (0..20_001).map(|_| m.sample(&mut rng)).collect();
        xs.sort_unstable();
        let median = xs[10_000];
        assert!((930..1070).contains(&median), "{median}");
        assert!(xs[0] >= 10 && *xs.last().unwrap() <= 50_000);
    }

    #[test]
    fn tail_share_is_respected() {
        let m = SizeModel::body(100.0, 0.1).with_tail(0.2, 100_000.0, 0.1);
        let mut rng = Stream::derive(Seed(6), "sizes", 0);
        let big = (0..10_000).filter(|_| m.sample(&mut rng) > 10_000).count();
        assert!((1800..2200).contains(&big), "{big}");
    }

    #[test]
    fn overrides_apply_field_by_field_and_validate() {
        let m = SizeModel::body(100.0, 1.0).apply(&SizeOverride {
            sigma: Some(2.0),
            min: Some(10),
            max: Some(5),
            ..Default::default()
        });
        assert_eq!((m.median, m.sigma, m.min, m.max), (100.0, 2.0, 10, 5));
        assert_eq!(m.validate().unwrap_err().0, "min");
        let bad = SizeModel::body(100.0, 1.0).with_tail(0.5, 0.0, 1.0);
        assert_eq!(bad.validate().unwrap_err().0, "tail_median");
        assert_eq!(
            SizeModel::body(-1.0, 1.0).validate().unwrap_err().0,
            "median"
        );
        // The bounds: nothing above MAX_SIZE, however the model is written.
        let at_bound = SizeModel::body(MAX_SIZE as f64, 1.0).clamped(MAX_SIZE, MAX_SIZE);
        assert_eq!(at_bound.validate(), Ok(()));
        let over = SizeModel::body(1e12, 1.0).clamped(0, MAX_SIZE);
        assert_eq!(over.validate().unwrap_err().0, "median");
        let over = SizeModel::body(100.0, 1.0).clamped(0, MAX_SIZE + 1);
        assert_eq!(over.validate().unwrap_err().0, "max");
        let over = SizeModel::body(100.0, 1.0).with_tail(0.1, f64::INFINITY, 1.0);
        assert_eq!(over.validate().unwrap_err().0, "tail_median");
        let unused_tail = SizeModel::body(100.0, 1.0).with_tail(0.0, f64::NAN, 1.0);
        assert_eq!(unused_tail.validate().unwrap_err().0, "tail_median");
    }

    fn table(points: &[[f64; 2]]) -> SizeModel {
        SizeModel::body(1.0, 0.0).apply(&SizeOverride {
            quantiles: Some(points.to_vec()),
            ..Default::default()
        })
    }

    #[test]
    fn a_table_of_quantiles_draws_its_own_distribution() {
        let m = table(&[[0.0, 0.0], [0.5, 99.0], [0.9, 9_999.0], [1.0, 99_999.0]]);
        assert_eq!(m.validate(), Ok(()));
        // Exactly at the points, and log-linear between them: halfway from 99 to 9,999 is 999 (log of 1 + x).
        assert_eq!(m.quantile(0.0), 0.0);
        assert_eq!(m.quantile(0.5), 99.0);
        assert_eq!(m.quantile(0.7), 999.0);
        assert_eq!(m.quantile(0.9), 9_999.0);
        assert_eq!(m.quantile(0.999_999), 99_997.0);
        let mut rng = Stream::derive(Seed(8), "sizes", 0);
        let mut xs: Vec<usize> = (0..20_000).map(|_| m.sample(&mut rng)).collect();
        xs.sort_unstable();
        assert!((90..=108).contains(&xs[9_999]), "median {}", xs[9_999]);
        assert!((9_000..=11_000).contains(&xs[17_999]), "p90 {}", xs[17_999]);
        assert!(*xs.last().unwrap() <= 99_999);
        // Two words a draw, as the log-normals: the next draw is the same whichever model drew before it.
        let (mut a, mut b) = (
            Stream::derive(Seed(9), "s", 0),
            Stream::derive(Seed(9), "s", 0),
        );
        m.sample(&mut a);
        SizeModel::body(5.0, 1.0).sample(&mut b);
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn a_bad_table_is_refused() {
        for bad in [
            &[[0.0, 1.0]][..],
            &[[0.1, 1.0], [1.0, 2.0]],
            &[[0.0, 1.0], [0.9, 2.0]],
            &[[0.0, 5.0], [0.5, 4.0], [1.0, 6.0]],
            &[[0.0, 1.0], [0.5, 2.0], [0.5, 3.0], [1.0, 4.0]],
            &[[0.0, 1.0], [1.0, 16_000_001.0]],
            &[[0.0, -1.0], [1.0, 1.0]],
            &[[0.0, 1.0], [f64::NAN, 2.0], [1.0, 3.0]],
        ] {
            assert_eq!(table(bad).validate().unwrap_err().0, "quantiles", "{bad:?}");
        }
        let many: Vec<[f64; 2]> = (0..=MAX_QUANTILES)
            .map(|i| [i as f64 / MAX_QUANTILES as f64, i as f64])
            .collect();
        assert_eq!(table(&many).validate().unwrap_err().0, "quantiles");
    }
}
