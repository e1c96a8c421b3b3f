//! One coordinate type for every axis: linear, logarithmic, percent or categories, with the tick positions
//! chosen here (round numbers, 1-2-5 steps on log scales) rather than by plotters, so labels stay readable.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

use crate::report::chart::data::Scale;

/// An axis from `range.start` to `range.end` (either may be the larger), linear or logarithmic, with fixed
/// labelled (`bold`) and unlabelled (`light`) ticks.
#[derive(Debug, Clone)]
pub(in crate::report::chart) struct ScaleCoord {
    range: Range<f64>,
    log: bool,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl ScaleCoord {
    /// An axis of `scale` covering `values` (from 0 for linear scales).
    pub(in crate::report::chart) fn fit(
        scale: Scale,
        values: impl Iterator<Item = f64>,
    ) -> ScaleCoord {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.filter(|v| v.is_finite()) {
            if scale != Scale::Log || v > 0.0 {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        match scale {
            Scale::Percent => {
                // The whole range, unless every value is high: then from a round value below the lowest, so
                // that differences near 100% can be seen.
                let lo = if lo.is_finite() && lo >= 40.0 {
                    ((lo - 1.0) / 10.0).floor() * 10.0
                } else {
                    0.0
                };
                let step = nice_step((100.0 - lo) / 5.0);
                ScaleCoord::linear(lo, 100.0, step, step / 2.0)
            }
            Scale::Linear => {
                let hi = if hi.is_finite() && hi > 0.0 { hi } else { 1.0 };
                let step = nice_step(hi / 6.0);
                let top = (hi / step).ceil() * step;
                ScaleCoord::linear(0.0, top, step, step / 2.0)
            }
            Scale::Whole => {
                // From the first value (night 1, not an empty night 0) to the last, one apart at least.
                let lo = if lo.is_finite() {
                    lo.floor().max(0.0)
                } else {
                    0.0
                };
                let hi = if hi.is_finite() && hi > lo {
                    hi
                } else {
                    lo + 1.0
                };
                let step = nice_step((hi - lo) / 6.0).max(1.0);
                let top = lo + ((hi - lo) / step).ceil() * step;
                ScaleCoord::linear(lo, top, step, if step > 1.0 { step / 2.0 } else { step })
            }
            Scale::Log => {
                let (lo, hi) = if lo.is_finite() {
                    (lo, hi)
                } else {
                    (1.0, 10.0)
                };
                ScaleCoord::log(lo, hi)
            }
        }
    }

    /// A linear axis from `lo` to `hi` with labels every `step` and lines every `light`.
    pub(in crate::report::chart) fn linear(lo: f64, hi: f64, step: f64, light: f64) -> ScaleCoord {
        let ticks = |s: f64| -> Vec<f64> {
            let n = ((hi - lo) / s).round() as i64;
            (0..=n).map(|i| lo + i as f64 * s).collect()
        };
        ScaleCoord {
            range: lo..hi,
            log: false,
            bold: ticks(step),
            light: ticks(light),
        }
    }

    /// A logarithmic axis covering `lo..hi` (both positive), widened to round 1-2-5 values.
    pub(in crate::report::chart) fn log(lo: f64, hi: f64) -> ScaleCoord {
        let lo = round_125(lo.min(hi), false);
        let hi = round_125(hi.max(lo * 1.0001), true).max(lo * 2.0);
        let decades = (hi / lo).log10();
        let mut bold = Vec::new();
        let mut light = Vec::new();
        let mut decade = 10f64.powf(lo.log10().floor());
        while decade <= hi * 1.0001 {
            for m in 1..10 {
                let v = decade * f64::from(m);
                if v < lo * 0.9999 || v > hi * 1.0001 {
                    continue;
                }
                light.push(v);
                let labelled = if decades <= 1.2 {
                    matches!(m, 1 | 2 | 3 | 5)
                } else if decades <= 3.5 {
                    matches!(m, 1 | 2 | 5)
                } else {
                    m == 1
                };
                if labelled {
                    bold.push(v);
                }
            }
            decade *= 10.0;
        }
        ScaleCoord {
            range: lo..hi,
            log: true,
            bold,
            light,
        }
    }

    /// A vertical category axis of `n` bands, category `i` centred on `i`, the first at the top.
    pub(in crate::report::chart) fn categories(n: usize) -> ScaleCoord {
        ScaleCoord {
            range: (n as f64 - 0.5)..-0.5,
            log: false,
            bold: (0..n).map(|i| i as f64).collect(),
            light: Vec::new(),
        }
    }

    /// The same axis with `share` of its length added at each end (on a log axis, of its length in decades),
    /// so that marks at its ends are drawn whole; the ticks stay.
    pub(in crate::report::chart) fn widened(mut self, share: f64) -> ScaleCoord {
        let (a, b) = (
            self.position(self.range.start),
            self.position(self.range.end),
        );
        let pad = (b - a) * share;
        let value = |p: f64| if self.log { 10f64.powf(p) } else { p };
        self.range = value(a - pad)..value(b + pad);
        self
    }

    /// The same axis with `share` of its length added above its end only (on a log axis, of its length in
    /// decades): room for notes over the data; the ticks stay.
    pub(in crate::report::chart) fn raised(mut self, share: f64) -> ScaleCoord {
        let (a, b) = (
            self.position(self.range.start),
            self.position(self.range.end),
        );
        let top = b + (b - a) * share;
        self.range = self.range.start..if self.log { 10f64.powf(top) } else { top };
        self
    }

    /// The same linear axis with `lo` of its length added below its start and `hi` above its end (room for
    /// labels on one side); the ticks stay.
    pub(in crate::report::chart) fn padded(mut self, lo: f64, hi: f64) -> ScaleCoord {
        let (a, b) = (self.range.start, self.range.end);
        self.range = (a - (b - a) * lo)..(b + (b - a) * hi);
        self
    }

    fn position(&self, v: f64) -> f64 {
        if self.log {
            v.max(f64::MIN_POSITIVE).log10()
        } else {
            v
        }
    }
}

impl Ranged for ScaleCoord {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let (a, b) = (
            self.position(self.range.start),
            self.position(self.range.end),
        );
        let t = (self.position(*value) - a) / (b - a);
        let px = f64::from(limit.0) + t * f64::from(limit.1 - limit.0);
        px.round().clamp(-1e6, 1e6) as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// A round step (1, 2 or 5 times a power of ten) at least `raw`.
pub(in crate::report::chart) fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let decade = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|&s| s >= raw * 0.9999)
        .unwrap_or(10.0 * decade)
}

/// The 1-2-5 value at or below (`up` false) or at or above (`up` true) `v`.
fn round_125(v: f64, up: bool) -> f64 {
    let v = v.max(1e-9);
    let decade = 10f64.powf(v.log10().floor());
    let candidates = [1.0, 2.0, 5.0, 10.0].map(|m| m * decade);
    if up {
        candidates
            .into_iter()
            .find(|&c| c >= v * 0.9999)
            .unwrap_or(10.0 * decade)
    } else {
        candidates
            .into_iter()
            .rev()
            .find(|&c| c <= v * 1.0001)
            .unwrap_or(decade)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axes_label_round_values() {
        let decade = ScaleCoord::log(20_000.0, 200_000.0);
        assert_eq!(
            decade.bold,
            vec![20_000.0, 30_000.0, 50_000.0, 100_000.0, 200_000.0]
        );
        let axis = ScaleCoord::log(2000.0, 200_000.0);
        assert_eq!(axis.range, 2000.0..200_000.0);
        assert_eq!(
            axis.bold,
            vec![2000.0, 5000.0, 10_000.0, 20_000.0, 50_000.0, 100_000.0, 200_000.0]
        );
        let wide = ScaleCoord::log(0.3, 40_000.0);
        assert_eq!(wide.range, 0.2..50_000.0);
        assert_eq!(wide.bold, vec![1.0, 10.0, 100.0, 1000.0, 10_000.0]);
    }

    #[test]
    fn percent_axes_zoom_in_only_when_every_value_is_high() {
        let full = ScaleCoord::fit(Scale::Percent, [3.0, 97.0].into_iter());
        assert_eq!(full.range, 0.0..100.0);
        assert_eq!(full.bold, vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        let high = ScaleCoord::fit(Scale::Percent, [91.5, 99.0].into_iter());
        assert_eq!(high.range, 90.0..100.0);
        assert_eq!(high.bold, vec![90.0, 92.0, 94.0, 96.0, 98.0, 100.0]);
    }

    #[test]
    fn linear_axes_start_at_zero_and_end_on_a_step() {
        let axis = ScaleCoord::fit(Scale::Linear, [0.3, 2.7].into_iter());
        assert_eq!(axis.range, 0.0..3.0);
        assert_eq!(axis.bold, vec![0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]);
        assert_eq!(nice_step(0.54), 1.0);
        assert_eq!(nice_step(130.0), 200.0);
    }

    #[test]
    fn a_widened_axis_keeps_its_ticks_and_grows_at_both_ends() {
        let axis = ScaleCoord::linear(0.0, 10.0, 2.0, 1.0).widened(0.05);
        assert_eq!(axis.range, -0.5..10.5);
        assert_eq!(axis.bold, vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let log = ScaleCoord::log(1.0, 100.0).widened(0.1);
        assert!((log.range.start - 10f64.powf(-0.2)).abs() < 1e-12);
        assert!((log.range.end - 10f64.powf(2.2)).abs() < 1e-9);
        assert_eq!(log.bold, ScaleCoord::log(1.0, 100.0).bold);
    }

    #[test]
    fn values_map_into_the_pixel_range() {
        let axis = ScaleCoord::log(10.0, 1000.0);
        assert_eq!(axis.map(&10.0, (0, 200)), 0);
        assert_eq!(axis.map(&100.0, (0, 200)), 100);
        assert_eq!(axis.map(&1000.0, (0, 200)), 200);
        let cats = ScaleCoord::categories(3);
        // plotters maps y from the bottom pixel to the top one.
        assert_eq!(cats.map(&0.0, (300, 0)), 50);
        assert_eq!(cats.map(&2.0, (300, 0)), 250);
    }
}
