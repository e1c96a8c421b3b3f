//! The change-point test of the noisy cost: a windowed one-sided Mann-Whitney rank test ([`RankTest`]). The
//! last `window` nights are tested against the `window` nights before them: the alarm is raised when the recent
//! nights rank above the earlier ones more than chance allows (the exact p-value of the rank statistic `U`,
//! at most `alpha`) and their median is at least `min_ratio` times the earlier median.
//!
//! The false-alarm rate is bounded by construction: on nights with no change (any noise whose nights are
//! exchangeable: independent and of one distribution) the exact p-value is at most `alpha` with probability at
//! most `alpha`, so a series raises at most `alpha` false alarms a night (1 per 100 nights at the default 0.01)
//! before the effect floor, which only removes alarms. `history::measure` measures both the rate and the delay.
//! Ties count one half (mid-ranks) against the tie-free null distribution.

use crate::error::{Error, Result};

/// The widest window (the null distribution has `window² + 1` points).
pub const MAX_WINDOW: usize = 30;

/// The settings of the test, with the null distribution of its statistic.
#[derive(Debug, Clone, PartialEq)]
pub struct RankTest {
    window: usize,
    alpha: f64,
    min_ratio: f64,
    /// `tail[u]`: the chance that `U >= u` with no change, for `u` in `0..=window²`.
    tail: Vec<f64>,
}

/// What the test saw at the end of a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shift {
    /// The Mann-Whitney statistic of the recent nights over the earlier ones (pairs where the recent value is
    /// larger, ties one half), from 0 to `window²`.
    pub u: f64,
    /// Its exact one-sided p-value.
    pub p_value: f64,
    /// The median of the earlier nights.
    pub before: f64,
    /// The median of the recent nights.
    pub after: f64,
    /// Whether it is an alarm.
    pub alarm: bool,
}

impl Shift {
    /// `after / before`; `None` when `before` is not positive.
    pub fn ratio(&self) -> Option<f64> {
        (self.before > 0.0).then(|| self.after / self.before)
    }
}

impl RankTest {
    /// The default: 5 nights against the 5 before, `alpha` 0.01, a rise of at least 10%.
    pub fn default_test() -> RankTest {
        RankTest::new(5, 0.01, 1.10).expect("the default settings are valid")
    }

    /// The test of `window` recent nights against as many before, raising an alarm at a p-value of at most
    /// `alpha` and a median rise of at least `min_ratio`. Refused: a window outside 2 to [`MAX_WINDOW`], an
    /// `alpha` outside (0, 1), a `min_ratio` below 1 or above 100.
    pub fn new(window: usize, alpha: f64, min_ratio: f64) -> Result<RankTest> {
        if !(2..=MAX_WINDOW).contains(&window) {
            return Err(Error::invalid(
                "--window",
                window.to_string(),
                format!("the window is 2 to {MAX_WINDOW} nights"),
            ));
        }
        if !(alpha > 0.0 && alpha < 1.0) {
            return Err(Error::invalid(
                "--alpha",
                alpha.to_string(),
                "alpha is a chance strictly between 0 and 1",
            ));
        }
        if !(1.0..=100.0).contains(&min_ratio) {
            return Err(Error::invalid(
                "--min-ratio",
                min_ratio.to_string(),
                "the smallest rise flagged is a ratio from 1 to 100",
            ));
        }
        Ok(RankTest {
            window,
            alpha,
            min_ratio,
            tail: tail(window),
        })
    }

    /// The nights in each half of the test.
    pub fn window(&self) -> usize {
        self.window
    }

    /// The largest p-value that raises an alarm.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The smallest rise of the median that raises an alarm.
    pub fn min_ratio(&self) -> f64 {
        self.min_ratio
    }

    /// The smallest p-value the window can give (all recent nights above all earlier ones): `1 / C(2w, w)`.
    pub fn smallest_p_value(&self) -> f64 {
        self.tail[self.window * self.window]
    }

    /// The test at the end of `values` (one a night, oldest first): the last `window` against the `window`
    /// before; `None` with fewer than `2 * window` values.
    pub fn at_end(&self, values: &[f64]) -> Option<Shift> {
        let w = self.window;
        if values.len() < 2 * w {
            return None;
        }
        let before = &values[values.len() - 2 * w..values.len() - w];
        let after = &values[values.len() - w..];
        let mut twice_u = 0usize;
        for a in after {
            for b in before {
                twice_u += match a.total_cmp(b) {
                    std::cmp::Ordering::Greater => 2,
                    std::cmp::Ordering::Equal => 1,
                    std::cmp::Ordering::Less => 0,
                };
            }
        }
        // P(U >= u) at the next whole u for a half: ties make U a half-integer.
        let p_value = self.tail[twice_u.div_ceil(2)];
        let (before, after) = (median(before), median(after));
        let ratio = (before > 0.0).then(|| after / before);
        Some(Shift {
            u: twice_u as f64 / 2.0,
            p_value,
            before,
            after,
            alarm: p_value <= self.alpha && ratio.is_some_and(|r| r >= self.min_ratio),
        })
    }
}

/// The median of `values` (not empty): the mean of the middle two for an even count.
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// `P(U >= u)` for `u` in `0..=w²`, two samples of `w` with no change: the count of orderings giving each `U`
/// (`N(m, n, u) = N(m - 1, n, u - n) + N(m, n - 1, u)`: the largest value is from the first sample, above all
/// `n` of the second, or from the second) over their total.
fn tail(w: usize) -> Vec<f64> {
    // counts[m][n]: the distribution of U for samples of m and n.
    let mut counts: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); w + 1]; w + 1];
    for m in 0..=w {
        for n in 0..=w {
            let mut dist = vec![0.0; m * n + 1];
            if m == 0 || n == 0 {
                dist[0] = 1.0;
            } else {
                for (u, slot) in dist.iter_mut().enumerate() {
                    let first = if u >= n {
                        counts[m - 1][n].get(u - n).copied().unwrap_or(0.0)
                    } else {
                        0.0
                    };
                    let second = counts[m][n - 1].get(u).copied().unwrap_or(0.0);
                    *slot = first + second;
                }
            }
            counts[m][n] = dist;
        }
    }
    let dist = &counts[w][w];
    let total: f64 = dist.iter().sum();
    let mut tail = vec![0.0; dist.len()];
    let mut above = 0.0;
    for u in (0..dist.len()).rev() {
        above += dist[u];
        tail[u] = above / total;
    }
    tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_null_distribution_is_exact() {
        // Two samples of 2: the 6 orderings give U = 0, 1, 2, 2, 3, 4.
        let t = tail(2);
        assert_eq!(t, [1.0, 5.0 / 6.0, 4.0 / 6.0, 2.0 / 6.0, 1.0 / 6.0]);
        // Of 5: 252 orderings, one with every recent value above.
        let test = RankTest::default_test();
        assert_eq!(test.smallest_p_value(), 1.0 / 252.0);
        assert_eq!(tail(5)[0], 1.0);
        // Symmetry: P(U >= u) = P(U <= w² - u).
        let t = tail(5);
        for u in 1..=25 {
            assert!((t[u] - (1.0 - t[25 - u + 1])).abs() < 1e-12, "{u}");
        }
    }

    #[test]
    fn a_clear_rise_alarms_and_a_small_or_mixed_one_does_not() {
        let test = RankTest::default_test();
        let flat = [1.0, 1.02, 0.98, 1.01, 0.99];
        let risen: Vec<f64> = flat
            .iter()
            .chain(&[1.5, 1.52, 1.48, 1.51, 1.49])
            .copied()
            .collect();
        let s = test.at_end(&risen).unwrap();
        assert_eq!(s.u, 25.0);
        assert_eq!(s.p_value, 1.0 / 252.0);
        assert_eq!((s.before, s.after), (1.0, 1.5));
        assert!(s.alarm);
        // Every recent night above, but only 5% up: under the floor.
        let small: Vec<f64> = flat
            .iter()
            .chain(&[1.05, 1.07, 1.03, 1.06, 1.04])
            .copied()
            .collect();
        let s = test.at_end(&small).unwrap();
        assert_eq!(s.p_value, 1.0 / 252.0);
        assert!(!s.alarm);
        // Two of the recent nights high: the ranks do not say so.
        let mixed: Vec<f64> = flat
            .iter()
            .chain(&[2.0, 2.0, 1.0, 1.0, 2.0])
            .copied()
            .collect();
        let s = test.at_end(&mixed).unwrap();
        assert!(s.p_value > 0.01, "{}", s.p_value);
        assert!(!s.alarm);
        // A fall is no regression.
        let fallen: Vec<f64> = flat.iter().chain(&[0.5; 5]).copied().collect();
        assert_eq!(test.at_end(&fallen).unwrap().u, 0.0);
        assert!(!test.at_end(&fallen).unwrap().alarm);
        assert_eq!(test.at_end(&flat), None);
    }

    #[test]
    fn settings_out_of_range_are_refused() {
        assert!(RankTest::new(1, 0.01, 1.1).is_err());
        assert!(RankTest::new(31, 0.01, 1.1).is_err());
        assert!(RankTest::new(5, 0.0, 1.1).is_err());
        assert!(RankTest::new(5, f64::NAN, 1.1).is_err());
        assert!(RankTest::new(5, 0.01, 0.9).is_err());
        assert!(RankTest::new(30, 0.01, 1.0).is_ok());
    }
}
