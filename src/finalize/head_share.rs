//! The head share: the exact fraction of a preview's content that goes to its head (the rest goes to the tail),
//! as `--strategy head-tail-<share>`, `sweep --head-shares` and a scenario's `[strategy] head_share` write it.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserialize, Deserializer};
use serde::{Serialize, Serializer};

use crate::error::Error;

/// The share of a preview's content that goes to the head; the rest goes to the tail.
///
/// An exact rational in `[0, 1]`. It parses from a decimal (`0`, `0.5`, `1.0`, `0.25`) or a fraction (`1/5`) and
/// prints in lowest terms, as a decimal when one of at most 18 places is exact (`0`, `0.5`, `1`) and as `num/den`
/// otherwise; in configuration files it may also be written as a number. Values built with [`HeadShare::new`] or
/// parsed are always in lowest terms, so equal shares compare equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeadShare {
    /// Numerator.
    pub num: u64,
    /// Denominator (non-zero).
    pub den: u64,
}

impl HeadShare {
    /// The production split: a fifth for the head.
    pub const DEFAULT: HeadShare = HeadShare { num: 1, den: 5 };

    /// Head units of a preview with `content` units: `floor(content * num / den)`, at most `content`.
    pub fn head_units(self, content: u64) -> u64 {
        ((u128::from(content) * u128::from(self.num)) / u128::from(self.den.max(1)))
            .min(u128::from(content)) as u64
    }

    /// The share `num / den` in lowest terms; `None` unless `den > 0` and `num <= den`.
    pub fn new(num: u64, den: u64) -> Option<HeadShare> {
        if den == 0 || num > den {
            return None;
        }
        let g = gcd(num, den);
        Some(HeadShare {
            num: num / g,
            den: den / g,
        })
    }
}

impl Default for HeadShare {
    fn default() -> Self {
        HeadShare::DEFAULT
    }
}

impl PartialOrd for HeadShare {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for HeadShare {
    /// By value (`num / den`), then by numerator so that only identical pairs compare equal.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (u128::from(self.num) * u128::from(other.den))
            .cmp(&(u128::from(other.num) * u128::from(self.den)))
            .then(self.num.cmp(&other.num))
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// Why a head share was rejected.
const HEAD_SHARE_FORMS: &str =
    "expected a ratio between 0 and 1 as a decimal (0, 0.5, 1.0) or a fraction (1/5)";

impl FromStr for HeadShare {
    type Err = Error;

    /// Parses `0`, `1`, a decimal such as `0.25` or `1.0` (at most 18 fractional digits), or `num/den`.
    fn from_str(s: &str) -> Result<Self, Error> {
        let bad = || Error::invalid("head share", s, HEAD_SHARE_FORMS);
        let digits =
            |t: &str| !t.is_empty() && t.len() <= 18 && t.bytes().all(|b| b.is_ascii_digit());
        if let Some((num, den)) = s.split_once('/') {
            if !digits(num) || !digits(den) {
                return Err(bad());
            }
            let (num, den) = (
                num.parse().map_err(|_| bad())?,
                den.parse().map_err(|_| bad())?,
            );
            return HeadShare::new(num, den).ok_or_else(bad);
        }
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        if !digits(int) || !(frac.is_empty() || digits(frac)) || s.ends_with('.') {
            return Err(bad());
        }
        let den = 10u64.pow(frac.len() as u32);
        let int: u64 = int.parse().map_err(|_| bad())?;
        let frac: u64 = if frac.is_empty() {
            0
        } else {
            frac.parse().map_err(|_| bad())?
        };
        let num = int
            .checked_mul(den)
            .and_then(|n| n.checked_add(frac))
            .ok_or_else(bad)?;
        HeadShare::new(num, den).ok_or_else(bad)
    }
}

impl fmt::Display for HeadShare {
    /// Lowest terms: an exact decimal of at most 18 places (as many as parsing takes) without trailing zeros
    /// (`0`, `0.2`, `1`), else `num/den`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = gcd(self.num, self.den);
        let (num, den) = (self.num / g, self.den.max(1) / g);
        let mut scale = 1u128;
        let mut places = 0usize;
        // At most 18 places, as many as parsing takes back.
        while !scale.is_multiple_of(u128::from(den)) && places < 18 {
            scale *= 10;
            places += 1;
        }
        if !scale.is_multiple_of(u128::from(den)) {
            return write!(f, "{num}/{den}");
        }
        let scaled = u128::from(num) * (scale / u128::from(den));
        let int = scaled / scale;
        if places == 0 {
            return write!(f, "{int}");
        }
        let frac = format!("{:0places$}", scaled % scale);
        write!(f, "{int}.{}", frac.trim_end_matches('0'))
    }
}

impl Serialize for HeadShare {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for HeadShare {
    /// Accepts the string forms of [`FromStr`] and, for configuration files, a number (read through its
    /// shortest decimal form, so `0.2` is exactly one fifth).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = HeadShare;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(HEAD_SHARE_FORMS)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<HeadShare, E> {
                v.parse().map_err(E::custom)
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<HeadShare, E> {
                self.visit_str(&v.to_string())
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<HeadShare, E> {
                self.visit_str(&v.to_string())
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<HeadShare, E> {
                self.visit_str(&v.to_string())
            }

            /// serde_json keeps numbers verbatim (its `arbitrary_precision` feature, which budgetlab enables so
            /// that unknown keys of a batch pass through untouched) and hands a number to `deserialize_any` as a
            /// one-entry map holding its digits.
            fn visit_map<A: de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<HeadShare, A::Error> {
                let Some((_, digits)) = map.next_entry::<de::IgnoredAny, String>()? else {
                    return Err(de::Error::custom(HEAD_SHARE_FORMS));
                };
                self.visit_str(&digits)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn head_share_parses_exact_rationals() {
        let p = |s: &str| s.parse::<HeadShare>().map(|h| (h.num, h.den));
        assert_eq!(p("0").unwrap(), (0, 1));
        assert_eq!(p("0.5").unwrap(), (1, 2));
        assert_eq!(p("1.0").unwrap(), (1, 1));
        assert_eq!(p("0.20").unwrap(), (1, 5));
        assert_eq!(p("0.125").unwrap(), (1, 8));
        assert_eq!(p("2/6").unwrap(), (1, 3));
        for bad in [
            "",
            "1.5",
            "2",
            "-0.5",
            ".5",
            "0.",
            "1/0",
            "3/2",
            "0.5.1",
            "a",
            " 0.5",
            "0.1234567890123456789",
            // What u64's own parsing would take: a sign, more than 18 digits, on either side of the slash.
            "+1/5",
            "1/+5",
            "1/0000000000000000005",
            "0000000000000000001/5",
        ] {
            assert!(bad.parse::<HeadShare>().is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn shares_are_reduced_and_ordered_by_value() {
        let pair = |num, den| HeadShare::new(num, den).map(|h| (h.num, h.den));
        assert_eq!(pair(4, 6), Some((2, 3)));
        assert_eq!(pair(6, 9), Some((2, 3)));
        assert_eq!(pair(12, 18), Some((2, 3)));
        assert_eq!(pair(0, 5), Some((0, 1)));
        assert_eq!(pair(7, 7), Some((1, 1)));
        assert_eq!(pair(3, 7), Some((3, 7)));
        let share = |num, den| HeadShare::new(num, den).unwrap();
        let mut shares = [
            share(1, 2),
            share(1, 1),
            share(2, 5),
            share(0, 1),
            share(1, 3),
            share(3, 4),
        ];
        shares.sort();
        let values: Vec<(u64, u64)> = shares.iter().map(|h| (h.num, h.den)).collect();
        assert_eq!(values, [(0, 1), (1, 3), (2, 5), (1, 2), (3, 4), (1, 1)]);
        assert!(share(1, 3) < share(2, 5) && share(3, 4) > share(1, 2));
        assert_eq!(share(2, 5).partial_cmp(&share(2, 5)), Some(Ordering::Equal));
        // Equal in value but not in terms: ordered by numerator, never equal.
        let (half, two_quarters) = (HeadShare { num: 1, den: 2 }, HeadShare { num: 2, den: 4 });
        assert_eq!(half.cmp(&two_quarters), Ordering::Less);
        assert_eq!(two_quarters.partial_cmp(&half), Some(Ordering::Greater));
    }

    #[test]
    fn every_printed_share_parses_back() {
        for den in [
            3,
            2u64.pow(18),
            2u64.pow(19),
            5u64.pow(18),
            5u64.pow(19),
            5u64.pow(20),
            7 * 5u64.pow(18),
        ] {
            for num in [1, den / 3, den - 1] {
                let share = HeadShare::new(num, den).unwrap();
                let text = share.to_string();
                assert_eq!(text.parse::<HeadShare>().unwrap(), share, "{text}");
            }
        }
        // 18 places is a decimal; an exact decimal of 19 places would not parse, so it is a fraction.
        let show = |den| HeadShare::new(1, den).unwrap().to_string();
        assert_eq!(show(5u64.pow(18)), "0.000000000000262144");
        assert_eq!(show(5u64.pow(19)), "1/19073486328125");
    }

    #[test]
    fn head_share_prints_in_lowest_terms() {
        let show = |num, den| HeadShare::new(num, den).unwrap().to_string();
        assert_eq!(show(0, 1), "0");
        assert_eq!(show(5, 10), "0.5");
        assert_eq!(show(1, 1), "1");
        assert_eq!(show(1, 5), "0.2");
        assert_eq!(show(1, 8), "0.125");
        assert_eq!(show(1, 3), "1/3");
        assert_eq!(HeadShare { num: 2, den: 4 }.to_string(), "0.5");
        for s in ["0", "0.5", "1", "0.2", "0.125", "1/3", "0.000001"] {
            assert_eq!(s.parse::<HeadShare>().unwrap().to_string(), s);
        }
    }

    #[test]
    fn head_share_deserializes_from_strings_and_numbers() {
        let de = |j: &str| serde_json::from_str::<HeadShare>(j).map(|h| (h.num, h.den));
        assert_eq!(de("\"1/5\"").unwrap(), (1, 5));
        assert_eq!(de("0.2").unwrap(), (1, 5));
        assert_eq!(de("1").unwrap(), (1, 1));
        assert_eq!(de("0").unwrap(), (0, 1));
        assert!(de("1.5").is_err());
        // Numbers as other formats hand them over (TOML, YAML): through their decimal form, exactly.
        use serde::de::value::Error as ValueError;
        use serde::de::IntoDeserializer;
        let from = |d: Result<HeadShare, ValueError>| d.map(|h| (h.num, h.den)).ok();
        assert_eq!(
            from(HeadShare::deserialize(0.2f64.into_deserializer())),
            Some((1, 5))
        );
        assert_eq!(
            from(HeadShare::deserialize(1.5f64.into_deserializer())),
            None
        );
        assert_eq!(
            from(HeadShare::deserialize(1i64.into_deserializer())),
            Some((1, 1))
        );
        assert_eq!(
            from(HeadShare::deserialize((-1i64).into_deserializer())),
            None
        );
        assert_eq!(
            from(HeadShare::deserialize(0u64.into_deserializer())),
            Some((0, 1))
        );
        assert_eq!(from(HeadShare::deserialize(2u64.into_deserializer())), None);
        // Neither a string nor a number: the error names the forms a share takes.
        for other in ["true", "{}", "[0.2]", "null"] {
            let e = de(other).unwrap_err().to_string();
            assert!(e.contains(HEAD_SHARE_FORMS), "{other}: {e}");
        }
        assert_eq!(
            serde_json::to_string(&HeadShare::DEFAULT).unwrap(),
            "\"0.2\""
        );
    }
}
