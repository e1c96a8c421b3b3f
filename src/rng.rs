//! The only place a seed becomes a random stream.
//!
//! Every random draw in budgetlab comes from a [`Stream`]: a named ChaCha generator ([`GenRng`], ChaCha8) whose
//! 32-byte key is the SHA-256 of the fields that identify what it generates: the [`Seed`], a domain (such as the
//! scenario's name) and an index (such as the batch number). A batch's stream therefore depends on nothing but
//! (seed, scenario, batch index): not on the order batches are generated in, on sharding, on threads or on what
//! else was drawn before.
//!
//! Only the raw `next_u32`/`next_u64` words of the generator are used. Everything built on them (bounded
//! integers, floats, choices, weights, normal and log-normal variates) is implemented here, with our own
//! deterministic `ln`/`exp` made of IEEE-754 `+ - * /` only, so values cannot change with a rand release or a
//! platform's libm.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The random generator every stream uses: ChaCha with 8 rounds, whose output the rand maintainers promise to
/// keep reproducible (unlike `StdRng`).
pub(crate) type GenRng = ChaCha8Rng;

/// A run's seed, as given in a scenario file or with `--seed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seed(pub u64);

impl std::fmt::Display for Seed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A deterministic random stream with its own sampling helpers.
#[derive(Debug, Clone)]
pub struct Stream {
    rng: GenRng,
}

/// Version tag mixed into every key: bump it only on purpose, since it changes every generated value.
const KEY_TAG: &[u8] = b"budgetlab/stream/v1";

impl Stream {
    /// The stream for item `index` of `domain` under `seed`: the ChaCha key is
    /// `sha256(tag, seed, len(domain), domain, index)` with integers little-endian.
    pub fn derive(seed: Seed, domain: &str, index: u64) -> Stream {
        let mut h = Sha256::new();
        h.update(KEY_TAG);
        h.update(seed.0.to_le_bytes());
        h.update((domain.len() as u64).to_le_bytes());
        h.update(domain.as_bytes());
        h.update(index.to_le_bytes());
        let key: [u8; 32] = h.finalize().into();
        Stream {
            rng: GenRng::from_seed(key),
        }
    }

    /// The stream keyed by arbitrary bytes `key` within `domain` (for example a word that must always be
    /// replaced the same way under one seed): the ChaCha key is `sha256(tag, seed, len(domain), domain, "key",
    /// len(key), key)`, which no [`Stream::derive`] key can equal.
    pub fn keyed(seed: Seed, domain: &str, key: &[u8]) -> Stream {
        let mut h = Sha256::new();
        h.update(KEY_TAG);
        h.update(seed.0.to_le_bytes());
        h.update((domain.len() as u64).to_le_bytes());
        h.update(domain.as_bytes());
        h.update(b"key");
        h.update((key.len() as u64).to_le_bytes());
        h.update(key);
        let key: [u8; 32] = h.finalize().into();
        Stream {
            rng: GenRng::from_seed(key),
        }
    }

    /// The stream of batch `batch` of the scenario named `scenario`.
    pub fn for_batch(seed: Seed, scenario: &str, batch: u64) -> Stream {
        Stream::derive(seed, &format!("batch:{scenario}"), batch)
    }

    /// The next raw 32-bit word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.rng.next_u32()
    }

    /// The next raw 64-bit word.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Fills `dest` with raw stream bytes.
    pub fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.rng.fill_bytes(dest)
    }

    /// A uniform integer in `0..n` (`n > 0`), by Lemire's multiply-and-reject method (unbiased).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0, "below(0)");
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// A uniform index in `0..n` (`n > 0`).
    #[inline]
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A uniform integer in `lo..=hi` (`lo <= hi`).
    #[inline]
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        if hi - lo == u64::MAX {
            return self.next_u64();
        }
        lo + self.below(hi - lo + 1)
    }

    /// A uniform float in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `true` with probability `p` (`p <= 0` never draws `true`, `p >= 1` always).
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A uniformly chosen element of a non-empty slice.
    #[inline]
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.index(items.len())]
    }

    /// An index chosen with probability proportional to `weights[i]` (non-negative, not all zero).
    pub fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut x = self.unit() * total;
        let mut last = 0;
        for (i, &w) in weights.iter().enumerate() {
            if w > 0.0 {
                if x < w {
                    return i;
                }
                x -= w;
                last = i;
            }
        }
        last // rounding left a sliver: the last positive weight takes it
    }

    /// A standard normal variate, by inverting the normal CDF at a uniform point in `(0, 1)`.
    pub fn normal(&mut self) -> f64 {
        let u = ((self.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64);
        inverse_normal_cdf(u)
    }

    /// A log-normal variate with the given median and log-space standard deviation.
    pub fn lognormal(&mut self, median: f64, sigma: f64) -> f64 {
        median * det_exp(sigma * self.normal())
    }

    /// A Poisson variate of mean 1 (what a batch weighs in one bootstrap resample), by inverting its CDF at a
    /// uniform point; at most 20 (the chance of more is below `10^-19`).
    pub fn poisson_one(&mut self) -> u8 {
        /// `e^-1`, the chance of 0.
        const P0: f64 = 0.367_879_441_171_442_33;
        let u = self.unit();
        let (mut k, mut p, mut cdf) = (0u8, P0, P0);
        while u >= cdf && k < 20 {
            k += 1;
            p /= f64::from(k);
            cdf += p;
        }
        k
    }
}

/// The standard normal quantile function (Acklam's rational approximation, relative error below 1.2e-9), made
/// only of arithmetic, `sqrt` and our deterministic [`det_ln`].
pub(crate) fn inverse_normal_cdf(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const P_LOW: f64 = 0.024_25;
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < P_LOW {
        tail((-2.0 * det_ln(p)).sqrt())
    } else if p > 1.0 - P_LOW {
        -tail((-2.0 * det_ln(1.0 - p)).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const LN2: f64 = std::f64::consts::LN_2;

/// Natural logarithm of a positive, finite, normal `x`, computed with IEEE `+ - * /` only so that it gives the
/// same bits on every platform (a platform's `ln` may differ in the last place).
pub(crate) fn det_ln(x: f64) -> f64 {
    debug_assert!(x > 0.0 && x.is_finite());
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    // ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    let mut k = 1.0;
    for _ in 0..12 {
        sum += term / k;
        term *= s2;
        k += 2.0;
    }
    let e = e as f64;
    e * LN2_HI + (e * LN2_LO + 2.0 * sum)
}

/// `e^x` computed with IEEE `+ - * /` only (see [`det_ln`]); saturates outside the finite range.
pub(crate) fn det_exp(x: f64) -> f64 {
    if x > 709.0 {
        return f64::INFINITY;
    }
    if x < -708.0 {
        return 0.0;
    }
    let k = (x / LN2).round();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    // Taylor series of e^r, |r| <= 0.347: 16 terms are far below one ulp.
    let mut term = 1.0;
    let mut sum = 1.0;
    for i in 1..16 {
        term *= r / i as f64;
        sum += term;
    }
    let scale = f64::from_bits(((k as i64 + 1023) as u64) << 52);
    sum * scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_key_same_stream_other_key_other_stream() {
        let mut a = Stream::for_batch(Seed(7), "s", 3);
        let mut b = Stream::for_batch(Seed(7), "s", 3);
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        for (seed, name, i) in [(8, "s", 3), (7, "t", 3), (7, "s", 4)] {
            let mut c = Stream::for_batch(Seed(seed), name, i);
            assert_ne!(c.next_u64(), xs[0], "{seed} {name} {i}");
        }
    }

    #[test]
    fn poisson_one_has_the_frequencies_of_a_poisson_of_mean_one() {
        let mut s = Stream::derive(Seed(1), "poisson", 0);
        let n = 200_000;
        let mut counts = [0u64; 21];
        for _ in 0..n {
            counts[usize::from(s.poisson_one())] += 1;
        }
        // P(0) = P(1) = e^-1, P(2) = e^-1 / 2, P(3) = e^-1 / 6; the mean and the variance are 1.
        let share = |k: usize| counts[k] as f64 / n as f64;
        let e = (-1f64).exp();
        for (k, p) in [(0, e), (1, e), (2, e / 2.0), (3, e / 6.0)] {
            assert!((share(k) - p).abs() < 0.004, "P({k}) = {} vs {p}", share(k));
        }
        let mean: f64 = (0..21).map(|k| k as f64 * share(k)).sum();
        let var: f64 = (0..21).map(|k| (k as f64 - mean).powi(2) * share(k)).sum();
        assert!(
            (mean - 1.0).abs() < 0.01 && (var - 1.0).abs() < 0.02,
            "{mean} {var}"
        );
    }

    #[test]
    fn golden_first_words() {
        // Pins the key derivation and ChaCha8 itself: a dependency update that changes values fails here.
        let mut s = Stream::derive(Seed(42), "golden", 0);
        assert_eq!(
            [s.next_u64(), s.next_u64()],
            [10_668_965_417_279_100_136, 5_813_626_263_882_335_570],
            "update only with an intentional change of the stream format"
        );
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut s = Stream::derive(Seed(1), "below", 0);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[s.below(7) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| (850..1150).contains(&c)), "{seen:?}");
        assert_eq!(s.below(1), 0);
        for _ in 0..100 {
            let r = s.range(10, 12);
            assert!((10..=12).contains(&r));
        }
    }

    #[test]
    fn weighted_respects_zero_weights_and_proportions() {
        let mut s = Stream::derive(Seed(2), "weighted", 0);
        let mut counts = [0u32; 4];
        for _ in 0..10_000 {
            counts[s.weighted(&[1.0, 0.0, 3.0, 0.0])] += 1;
        }
        assert_eq!(counts[1] + counts[3], 0);
        assert!((2300..2700).contains(&counts[0]), "{counts:?}");
    }

    #[test]
    fn deterministic_ln_and_exp_match_std_closely() {
        for &x in &[
            1e-300, 1e-16, 0.001, 0.024_25, 0.5, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300,
        ] {
            let (ours, std) = (det_ln(x), x.ln());
            assert!(
                (ours - std).abs() <= 4.0 * f64::EPSILON * std.abs().max(1.0),
                "ln {x}: {ours} vs {std}"
            );
        }
        for &x in &[
            -700.0, -20.0, -1.0, -0.1, 0.0, 0.3, 1.0, 2.5, 11.0, 300.0, 708.0,
        ] {
            let (ours, std) = (det_exp(x), x.exp());
            assert!(
                ((ours - std) / std).abs() <= 4.0 * f64::EPSILON,
                "exp {x}: {ours} vs {std}"
            );
        }
        assert_eq!(det_exp(0.0), 1.0);
    }

    #[test]
    fn normal_quantiles_are_right() {
        assert!(inverse_normal_cdf(0.5).abs() < 1e-9);
        assert!((inverse_normal_cdf(0.99) - 2.326_347_874).abs() < 1e-6);
        assert!((inverse_normal_cdf(0.001) + 3.090_232_306).abs() < 1e-6);
        let mut s = Stream::derive(Seed(3), "normal", 0);
        let n = 20_000;
        let xs: Vec<f64> = (0..n).map(|_| s.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        assert!(
            mean.abs() < 0.03 && (var - 1.0).abs() < 0.05,
            "{mean} {var}"
        );
    }
}
