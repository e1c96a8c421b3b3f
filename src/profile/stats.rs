//! The statistics a profile is made of, defined once: nearest-rank percentiles, distributions and shares. A
//! figure with nothing to measure (no value, no output) is `None`, never 0 or 100%.
//!
//! **Nearest rank.** Of `n` values sorted ascending, `x[1] <= ... <= x[n]`, the `p`-th percentile (`0 < p <=
//! 100`) is `x[k]` with `k = ceil(p / 100 * n)`: the smallest value with at least `p`% of the values at or
//! below it. It is always one of the values (never an interpolation); the median is the 50th percentile (the
//! lower of the two middle values when `n` is even), and the 100th is the maximum. Percentiles are given in
//! basis points (hundredths of a percent: 9,900 is p99, 9,990 is p99.9) so that the rank is computed in
//! integers, exactly.

use serde::{Deserialize, Serialize};

/// Basis points in 100%.
pub const WHOLE: u32 = 10_000;

/// The 1-based nearest rank of percentile `bp` (basis points, 1 to 10,000) among `n` values: `ceil(bp * n /
/// 10,000)`, at least 1.
pub fn nearest_rank(bp: u32, n: usize) -> usize {
    let bp = u128::from(bp.clamp(1, WHOLE));
    let rank = (bp * n as u128).div_ceil(u128::from(WHOLE));
    (rank as usize).max(1)
}

/// The nearest-rank percentile `bp` (basis points) of `sorted` (ascending); `None` when it is empty.
pub fn percentile<T: Copy>(sorted: &[T], bp: u32) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    Some(sorted[nearest_rank(bp, sorted.len()) - 1])
}

/// `part / whole`; `None` when `whole` is 0 (a share of nothing).
pub fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// The mean of `values`; `None` when there are none.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// A distribution of counts (units, lines, entries): how many values, their median, 90th and 99th percentile
/// (nearest rank) and maximum. Every figure but `count` is `None` when there is no value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Distribution {
    /// How many values.
    pub count: u64,
    /// The 50th percentile.
    pub median: Option<u64>,
    /// The 90th percentile.
    pub p90: Option<u64>,
    /// The 99th percentile.
    pub p99: Option<u64>,
    /// The largest value.
    pub max: Option<u64>,
}

impl Distribution {
    /// The distribution of `sorted` (ascending).
    pub fn of_sorted(sorted: &[u64]) -> Distribution {
        Distribution {
            count: sorted.len() as u64,
            median: percentile(sorted, 5_000),
            p90: percentile(sorted, 9_000),
            p99: percentile(sorted, 9_900),
            max: sorted.last().copied(),
        }
    }

    /// The distribution of `values`, in any order.
    pub fn of(values: &[u64]) -> Distribution {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        Distribution::of_sorted(&sorted)
    }
}

/// A distribution of relative positions (0 is the start of a text, 1 its end): how many, their median (nearest
/// rank) and mean; `None` when there are none.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Positions {
    /// How many positions.
    pub count: u64,
    /// The median position.
    pub median: Option<f64>,
    /// The mean position.
    pub mean: Option<f64>,
    /// Share of the positions in the first tenth of their text (below 0.1).
    pub first_tenth: Option<f64>,
    /// Share of the positions in the last tenth of their text (above 0.9).
    pub last_tenth: Option<f64>,
}

impl Positions {
    /// The distribution of `positions` (each within 0..=1), in any order.
    pub fn of(positions: &[f64]) -> Positions {
        let mut sorted = positions.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len() as u64;
        let first = sorted.iter().filter(|&&p| p < 0.1).count() as u64;
        let last = sorted.iter().filter(|&&p| p > 0.9).count() as u64;
        Positions {
            count: n,
            median: percentile(&sorted, 5_000),
            mean: mean(&sorted),
            first_tenth: share(first, n),
            last_tenth: share(last, n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles_by_hand() {
        // Five values: p30 is rank ceil(1.5) = 2, p40 rank ceil(2.0) = 2, p50 rank ceil(2.5) = 3, p90 rank
        // ceil(4.5) = 5, p1 rank ceil(0.05) = 1.
        let v = [15u64, 20, 35, 40, 50];
        assert_eq!(percentile(&v, 3_000), Some(20));
        assert_eq!(percentile(&v, 4_000), Some(20));
        assert_eq!(percentile(&v, 5_000), Some(35));
        assert_eq!(percentile(&v, 9_000), Some(50));
        assert_eq!(percentile(&v, 100), Some(15));
        assert_eq!(percentile(&v, 10_000), Some(50));
        // Even count: the median is the lower middle value.
        assert_eq!(percentile(&[1u64, 2, 3, 4], 5_000), Some(2));
        // 200 values 1..=200: p99 is rank 198, p99.5 rank 199, p99.9 rank ceil(199.8) = 200.
        let v: Vec<u64> = (1..=200).collect();
        assert_eq!(percentile(&v, 9_900), Some(198));
        assert_eq!(percentile(&v, 9_950), Some(199));
        assert_eq!(percentile(&v, 9_990), Some(200));
        // Ten values: p90 is exactly rank 9 (integers, no rounding drift).
        let v: Vec<u64> = (1..=10).collect();
        assert_eq!(percentile(&v, 9_000), Some(9));
        assert_eq!(nearest_rank(9_000, 10), 9);
        assert_eq!(nearest_rank(9_001, 10), 10);
        assert_eq!(percentile::<u64>(&[], 5_000), None);
    }

    #[test]
    fn distributions_and_shares_of_nothing_are_none() {
        let d = Distribution::of(&[40, 10, 30, 20, 1000]);
        assert_eq!(
            d,
            Distribution {
                count: 5,
                median: Some(30),
                p90: Some(1000),
                p99: Some(1000),
                max: Some(1000)
            }
        );
        let none = Distribution::of(&[]);
        assert_eq!((none.count, none.median, none.max), (0, None, None));
        assert_eq!(share(0, 0), None);
        assert_eq!(share(0, 4), Some(0.0));
        assert_eq!(share(1, 4), Some(0.25));
        assert_eq!(mean(&[]), None);
        let p = Positions::of(&[1.0, 0.0, 0.5, 0.95]);
        assert_eq!(p.count, 4);
        assert_eq!(p.median, Some(0.5));
        assert_eq!(p.mean, Some(0.6125));
        assert_eq!(p.first_tenth, Some(0.25));
        assert_eq!(p.last_tenth, Some(0.5));
        assert_eq!(Positions::of(&[]).median, None);
    }
}
