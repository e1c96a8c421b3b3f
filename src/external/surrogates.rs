//! Lone UTF-16 surrogate escapes in a child's JSON: found, counted and, when asked, replaced, never silently.
//!
//! JSON text may spell a UTF-16 surrogate as `\udXXX`; a high surrogate escape followed by a low one is one
//! character, but either alone is no character at all, and no Rust string can hold it. A finalizer that cuts
//! between the two halves of a pair (an emoji, say) and writes the halves as escapes produces exactly that. The
//! harness either refuses such a line, naming how many lone escapes it holds and where the first one is, or
//! rewrites each one to `\ufffd` (the replacement character, six bytes for six bytes) and counts it, so that the
//! integrity metrics see a broken surrogate where the child made one.

/// The lone surrogate escapes of a JSON text: their count and the byte offset of the first one's backslash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoneSurrogates {
    /// How many.
    pub count: u64,
    /// Byte offset of the first one's backslash.
    pub first: usize,
}

/// The lone surrogate escapes inside the strings of `json`, or `None` when there are none. The text need not be
/// valid JSON otherwise: strings are found by their quotes and escapes.
pub fn find_lone_surrogates(json: &[u8]) -> Option<LoneSurrogates> {
    let mut found: Option<LoneSurrogates> = None;
    scan(json, |at| {
        match &mut found {
            Some(f) => f.count += 1,
            None => {
                found = Some(LoneSurrogates {
                    count: 1,
                    first: at,
                })
            }
        };
    });
    found
}

/// Rewrites every lone surrogate escape inside the strings of `json` to `\ufffd`; returns how many.
pub fn replace_lone_surrogates(json: &mut [u8]) -> u64 {
    let mut at = Vec::new();
    scan(json, |i| at.push(i));
    for &i in &at {
        json[i..i + 6].copy_from_slice(b"\\ufffd");
    }
    at.len() as u64
}

/// Calls `lone` with the offset of each lone surrogate escape inside a string of `json`.
fn scan(json: &[u8], mut lone: impl FnMut(usize)) {
    let mut in_string = false;
    let mut i = 0;
    while i < json.len() {
        let b = json[i];
        if !in_string {
            in_string = b == b'"';
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' => match escape_unit(json, i) {
                Some(0xD800..=0xDBFF) => {
                    if matches!(escape_unit(json, i + 6), Some(0xDC00..=0xDFFF)) {
                        i += 12;
                    } else {
                        lone(i);
                        i += 6;
                    }
                }
                Some(0xDC00..=0xDFFF) => {
                    lone(i);
                    i += 6;
                }
                Some(_) => i += 6,
                None => i += 2,
            },
            _ => i += 1,
        }
    }
}

/// The UTF-16 unit of a `\uXXXX` escape starting at `at`, if one does.
fn escape_unit(json: &[u8], at: usize) -> Option<u16> {
    let escape = json.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_pass_and_halves_are_found() {
        assert_eq!(
            find_lone_surrogates(br#"{"a":"\ud83d\ude00 \u00e9"}"#),
            None
        );
        assert_eq!(
            find_lone_surrogates(br#"{"a":"x\ud83d","b":"\ude00\ude00"}"#),
            Some(LoneSurrogates { count: 3, first: 7 })
        );
        // A high half followed by another high half: both lone.
        assert_eq!(
            find_lone_surrogates(br#"["\ud83d\ud83d"]"#).map(|l| l.count),
            Some(2)
        );
        // An escaped backslash is not an escape: `\\ud83d` is text.
        assert_eq!(find_lone_surrogates(br#"["\\ud83d", "\""]"#), None);
        // Outside strings nothing counts.
        assert_eq!(find_lone_surrogates(br#"{"\ud83d\ude00": 1} \ud800"#), None);
    }

    #[test]
    fn replacing_keeps_length_and_makes_the_line_parse() {
        let mut line = br#"{"a":"x\ud83d","b":"\ude00y","c":"\ud83d\ude00"}"#.to_vec();
        let len = line.len();
        assert!(serde_json::from_slice::<serde_json::Value>(&line).is_err());
        assert_eq!(replace_lone_surrogates(&mut line), 2);
        assert_eq!(line.len(), len);
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["a"], "x\u{FFFD}");
        assert_eq!(v["b"], "\u{FFFD}y");
        assert_eq!(v["c"], "😀");
    }

    #[test]
    fn serde_json_refuses_both_kinds_of_half() {
        // The harness only scans a line serde_json refused, so it must refuse every lone half.
        for line in [
            br#"["\ud83d"]"#.as_slice(),
            br#"["\ude00"]"#,
            br#"["\ud83dx"]"#,
        ] {
            let err = serde_json::from_slice::<serde_json::Value>(line).unwrap_err();
            assert!(find_lone_surrogates(line).is_some(), "{err}");
        }
    }
}
