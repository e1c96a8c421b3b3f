//! Size models: how long each kind's generated text is, in UTF-16 units.
//!
//! A model is a mixture of two log-normal components, a body (most results, small) and a tail (the few large
//! ones), clamped to `[min, max]`. Real tool results are mostly small with a thin but real tail; the built-in
//! models per kind are calibrated so that the mixed-realistic workload reproduces the one published
//! measurement (p99 57,301 characters, 0.1% above 100,000). Scenario files override any field per kind.

use serde::{Deserialize, Serialize};

use crate::rng::Stream;

/// A two-component log-normal size model, in UTF-16 units.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
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
}

/// A scenario's override of some fields of a size model; absent fields keep the built-in value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
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
        }
    }

    /// This model with a tail component.
    pub const fn with_tail(self, share: f64, median: f64, sigma: f64) -> SizeModel {
        SizeModel {
            tail_share: share,
            tail_median: median,
            tail_sigma: sigma,
            ..self
        }
    }

    /// This model clamped to `[min, max]`.
    pub const fn clamped(self, min: u64, max: u64) -> SizeModel {
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
        Ok(())
    }

    /// Draws one size. Always consumes exactly two words of the stream.
    pub fn sample(&self, rng: &mut Stream) -> usize {
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
        (x.max(self.min as f64).min(self.max as f64)) as usize
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
}
