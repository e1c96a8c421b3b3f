//! The fit: how a shortened field is rewritten to exactly its allocation.
//!
//! A header names the full output's sha256 and any artifact paths; then, as the allocation allows, a blank line
//! and a head-and-tail preview of the original (by default one fifth head, four fifths tail, with `\n...\n`
//! between them). Every cut is surrogate-safe, so a fit never exceeds its allocation.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserialize, Deserializer};
use serde::{Serialize, Serializer};

use crate::digest::sha256_hex;
use crate::error::Error;
use crate::text::{head, tail, utf16_len};

/// The share of a preview's content that goes to the head; the rest goes to the tail.
///
/// An exact rational in `[0, 1]`. It parses from a decimal (`0`, `0.5`, `1.0`, `0.25`) or a fraction (`1/5`) and
/// prints in lowest terms, as a decimal when one is exact (`0`, `0.5`, `1`) and as `num/den` otherwise; in
/// configuration files it may also be written as a number. Values built with [`HeadShare::new`] or parsed are
/// always in lowest terms, so equal shares compare equal.
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
}

impl Default for HeadShare {
    fn default() -> Self {
        HeadShare::DEFAULT
    }
}

impl HeadShare {
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
    /// Lowest terms: an exact decimal without trailing zeros (`0`, `0.2`, `1`), else `num/den`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = gcd(self.num, self.den);
        let (num, den) = (self.num / g, self.den.max(1) / g);
        let mut scale = 1u128;
        let mut places = 0usize;
        while !scale.is_multiple_of(u128::from(den)) && places < 19 {
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

/// The header of a shortened field: the truncation notice, the full text's sha256 and the artifact paths.
pub fn header(full_text: &str, paths: &[String]) -> String {
    let mut h = String::with_capacity(128);
    h.push_str("Tool output truncated.\nFull output sha256: ");
    h.push_str(&sha256_hex(full_text));
    match paths {
        [] => {}
        [one] => {
            h.push_str("\nPersisted tool-output artifact: ");
            h.push_str(one);
        }
        many => {
            h.push_str("\nPersisted tool-output artifacts:");
            for p in many {
                h.push_str("\n- ");
                h.push_str(p);
            }
        }
    }
    h
}

/// Rewrites `text` to at most `allocation` UTF-16 units behind `header`.
///
/// With `A = allocation` and `H = len(header)`: `A = 0` gives the empty string; `H >= A` or `A - H - 2 <= 0`
/// gives the header cut to `A`; else `preview = A - H - 2`, and `preview <= 5` gives header, blank line and the
/// first `preview` units; otherwise `content = preview - 5` is split into head and tail by `share` and the fit
/// is header, blank line, head, `\n...\n`, tail.
pub fn fit(text: &str, allocation: u64, header: &str, share: HeadShare) -> String {
    if allocation == 0 {
        return String::new();
    }
    let h = utf16_len(header) as u64;
    if h + 2 >= allocation {
        return head(header, allocation as usize).to_string();
    }
    let preview = allocation - h - 2;
    let mut out = String::with_capacity(header.len() + 2 + 4 * preview as usize);
    out.push_str(header);
    out.push_str("\n\n");
    if preview <= 5 {
        out.push_str(head(text, preview as usize));
        return out;
    }
    let content = preview - 5;
    let head_units = share.head_units(content);
    out.push_str(head(text, head_units as usize));
    out.push_str("\n...\n");
    out.push_str(tail(text, (content - head_units) as usize));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "0123456789abcdefghijklmnopqrstuvwxyz";

    #[test]
    fn header_forms() {
        let sha = sha256_hex("abc");
        assert_eq!(
            sha,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            header("abc", &[]),
            format!("Tool output truncated.\nFull output sha256: {sha}")
        );
        assert_eq!(
            header("abc", &["/a".into()]),
            format!("Tool output truncated.\nFull output sha256: {sha}\nPersisted tool-output artifact: /a")
        );
        assert_eq!(
            header("abc", &["/a".into(), "/b".into()]),
            format!("Tool output truncated.\nFull output sha256: {sha}\nPersisted tool-output artifacts:\n- /a\n- /b")
        );
    }

    #[test]
    fn fits_at_every_boundary() {
        let h = "HEADER"; // len(H) = 6
        let f = |a: u64| fit(TEXT, a, h, HeadShare::DEFAULT);
        assert_eq!(f(0), "");
        assert_eq!(f(1), "H");
        assert_eq!(f(5), "HEADE"); // len(H) - 1
        assert_eq!(f(6), "HEADER"); // len(H)
        assert_eq!(f(7), "HEADER"); // len(H) + 1: no room for the blank line
        assert_eq!(f(8), "HEADER"); // len(H) + 2: preview 0 is not > 0
        assert_eq!(f(9), "HEADER\n\n0"); // len(H) + 3: one unit of preview
        assert_eq!(f(13), "HEADER\n\n01234"); // len(H) + 7: preview 5, head only
        assert_eq!(f(14), "HEADER\n\n\n...\nz"); // len(H) + 8: content 1, head 0, tail 1
        assert_eq!(f(19), "HEADER\n\n0\n...\nvwxyz"); // content 6: head 1, tail 5
        for a in 0..40 {
            assert!(utf16_len(&f(a)) as u64 <= a, "allocation {a}");
        }
        assert_eq!(utf16_len(&f(19)), 19);
    }

    #[test]
    fn head_share_moves_the_split() {
        let all_head = HeadShare { num: 1, den: 1 };
        assert_eq!(fit(TEXT, 19, "HEADER", all_head), "HEADER\n\n012345\n...\n");
        let all_tail = HeadShare { num: 0, den: 1 };
        assert_eq!(fit(TEXT, 19, "HEADER", all_tail), "HEADER\n\n\n...\nuvwxyz");
    }

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
        ] {
            assert!(bad.parse::<HeadShare>().is_err(), "{bad:?} accepted");
        }
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
        assert_eq!(
            serde_json::to_string(&HeadShare::DEFAULT).unwrap(),
            "\"0.2\""
        );
    }

    #[test]
    fn cuts_never_split_pairs() {
        let emoji = "😀".repeat(50);
        // header 2 units, preview 17 → content 12: head 2 (one emoji), tail 10 (five emoji)
        assert_eq!(
            fit(&emoji, 21, "HH", HeadShare::DEFAULT),
            format!("HH\n\n😀\n...\n{}", "😀".repeat(5))
        );
        // content 13: head 2, tail 11 → the tail may not start on a low surrogate: five emoji (10 units)
        assert_eq!(
            fit(&emoji, 22, "HH", HeadShare::DEFAULT),
            format!("HH\n\n😀\n...\n{}", "😀".repeat(5))
        );
        // content 15: head 3 → one emoji; a header cut through a pair drops it
        assert_eq!(
            fit(&emoji, 24, "HH", HeadShare::DEFAULT)
                .matches('😀')
                .count(),
            1 + 6
        );
        assert_eq!(fit("x", 3, "ab😀", HeadShare::DEFAULT), "ab");
    }
}
