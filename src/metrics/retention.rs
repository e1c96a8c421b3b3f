//! Preview retention of one field: how much of the original text a shortened field still shows, and whether its
//! first and last lines survived.
//!
//! Strategies write different headers and markers, so retention is measured from the text alone, the same way
//! for every strategy: the longest prefix of the original that appears in the shown text (its head) plus the
//! longest suffix the two share (its tail), never more than the original. A header that happens to start like
//! the original (a producer preview that begins "Tool output ...") can add a few units; nothing else is guessed.

use crate::text::utf16_len;

/// Units of `original` (UTF-16) that `shown` still shows.
pub fn kept_units(original: &str, shown: &str) -> u64 {
    let units = utf16_len(original) as u64;
    if original == shown {
        return units;
    }
    Compared::of(original, shown).kept_units(units)
}

/// What a shown text that differs from its original keeps of it, found once for every metric that reads it
/// (retention and broken surrogate pairs): the longest suffix the two share (the tail), and the longest prefix of
/// the original found in the rest of the shown text (the head), with the byte offset of its first occurrence there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Compared<'a> {
    /// The kept head, a prefix of the original.
    pub head: &'a str,
    /// Where `head` first occurs in `rest` (`None` when it is empty).
    pub head_at: Option<usize>,
    /// The kept tail, a suffix of the original (and of the shown text).
    pub tail: &'a str,
    /// The shown text without the tail, which the head was looked for in.
    pub rest: &'a str,
}

impl<'a> Compared<'a> {
    /// Compares `original` with `shown` (in one pass over each).
    pub(super) fn of(original: &'a str, shown: &'a str) -> Compared<'a> {
        let tail = common_suffix(original, shown);
        let rest = &shown[..shown.len() - tail.len()];
        let (head, end_at) = longest_prefix_found(original, rest);
        let head_at = (!head.is_empty()).then(|| end_at + 1 - head.len());
        Compared {
            head,
            head_at,
            tail,
            rest,
        }
    }

    /// The units kept: those of the head and the tail, at most `original_units` (the original's own).
    pub(super) fn kept_units(&self, original_units: u64) -> u64 {
        let kept = (utf16_len(self.head) + utf16_len(self.tail)) as u64;
        kept.min(original_units)
    }
}

/// The longest suffix of `a` that is also a suffix of `b`, cut at a character boundary of both.
pub(super) fn common_suffix<'a>(a: &'a str, b: &str) -> &'a str {
    let n = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut start = a.len() - n;
    while !a.is_char_boundary(start) {
        start += 1;
    }
    &a[start..]
}

/// The longest prefix of `original` (at a character boundary) that occurs somewhere in `haystack`.
#[cfg(test)]
fn longest_prefix_within<'a>(original: &'a str, haystack: &str) -> &'a str {
    longest_prefix_found(original, haystack).0
}

/// [`longest_prefix_within`], and the byte offset in `haystack` of the last byte of its first occurrence (0 when
/// the prefix is empty).
fn longest_prefix_found<'a>(original: &'a str, haystack: &str) -> (&'a str, usize) {
    let limit = original.len().min(haystack.len());
    let (matched, reached) =
        longest_byte_prefix_within(&original.as_bytes()[..limit], haystack.as_bytes());
    // Every shorter prefix of an occurring one occurs too: the answer is the last character end within it.
    let mut end = matched;
    while !original.is_char_boundary(end) {
        end -= 1;
    }
    let at = if end == 0 { 0 } else { reached[end % REACHED] };
    (&original[..end], at)
}

/// How many of the longest matched prefixes [`longest_byte_prefix_within`] says where they first ended: enough
/// for the longest one cut back to a character boundary (at most three bytes shorter).
const REACHED: usize = 4;

/// The length of the longest prefix of `pattern` that occurs somewhere in `text`, in one pass over each (the
/// Knuth-Morris-Pratt automaton of `pattern` run over `text`: its state after each byte is the longest prefix of
/// `pattern` ending there, so the largest state it reaches is the answer). Searching for ever longer prefixes
/// one by one costs a substring search each, which on long fields dominated a run's time.
fn longest_byte_prefix_within(pattern: &[u8], text: &[u8]) -> (usize, [usize; REACHED]) {
    let mut reached = [0usize; REACHED];
    if pattern.is_empty() {
        return (0, reached);
    }
    // `fail[i]`: the length of the longest proper prefix of `pattern[..=i]` that is also its suffix.
    let mut fail = vec![0usize; pattern.len()];
    let mut k = 0usize;
    for i in 1..pattern.len() {
        while k > 0 && pattern[i] != pattern[k] {
            k = fail[k - 1];
        }
        if pattern[i] == pattern[k] {
            k += 1;
        }
        fail[i] = k;
    }
    // The state grows by at most one a byte, so the first time it reaches a length is where that prefix first
    // ends, and the best grows one at a time: `reached[l % REACHED]` is where the prefix of length `l` first
    // ended, for the last `REACHED` lengths.
    let (mut state, mut best) = (0usize, 0usize);
    for (at, &byte) in text.iter().enumerate() {
        while state > 0 && byte != pattern[state] {
            state = fail[state - 1];
        }
        if byte == pattern[state] {
            state += 1;
            if state > best {
                best = state;
                reached[best % REACHED] = at;
            }
            if state == pattern.len() {
                return (state, reached);
            }
        }
    }
    (best, reached)
}

/// The first line of `text` (up to the first newline), if not empty.
pub fn first_line(text: &str) -> Option<&str> {
    let line = text.split('\n').next().unwrap_or("").trim_end_matches('\r');
    (!line.trim().is_empty()).then_some(line)
}

/// The last line of `text` that is not blank.
pub fn last_line(text: &str) -> Option<&str> {
    text.split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .rev()
        .find(|l| !l.trim().is_empty())
}

/// Jain's fairness index of the kept shares: 1 when all are equal, 1/n when one field keeps everything.
pub fn jain_index(shares: &[f64]) -> f64 {
    let sum: f64 = shares.iter().sum();
    let squares: f64 = shares.iter().map(|x| x * x).sum();
    if shares.is_empty() || squares == 0.0 {
        1.0
    } else {
        sum * sum / (shares.len() as f64 * squares)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_units_counts_head_and_tail() {
        let original = "0123456789abcdefghij";
        assert_eq!(kept_units(original, original), 20);
        assert_eq!(kept_units(original, "Header\n\n0123\n...\nghij"), 8);
        assert_eq!(kept_units(original, "Header only"), 0);
        assert_eq!(kept_units(original, "0123456789 [cut]"), 10);
        assert_eq!(kept_units("😀😀😀ab", "x😀\n...\n😀ab"), 6);
    }

    /// The one-pass search gives what searching for every prefix of the original one by one gives.
    #[test]
    fn the_head_is_placed_where_a_search_first_finds_it() {
        let cases = [
            ("0123456789", "Header\n0123\n...\n789"),
            ("abab", "xabaabab!"),
            ("aab", "aaab aab"),
            ("abcabd", "abcabcabd."),
            ("😀😀😀ab", "x😀\n...\n😀ab"),
            ("é😀x", "é\u{FFFD}"),
            ("aé", "aè"),
            ("abc", "zzz"),
            ("ab\nab\nabc", "ab\nab\nab\nab\nabx"),
        ];
        for (original, shown) in cases {
            let c = Compared::of(original, shown);
            assert_eq!(
                c.head,
                longest_prefix_within(original, c.rest),
                "{original:?}"
            );
            let searched = (!c.head.is_empty()).then(|| c.rest.find(c.head)).flatten();
            assert_eq!(c.head_at, searched, "{original:?} in {shown:?}");
            assert_eq!(c.rest.len() + c.tail.len(), shown.len());
        }
    }

    #[test]
    fn longest_prefix_within_matches_a_search_for_every_prefix() {
        fn by_search<'a>(original: &'a str, haystack: &str) -> &'a str {
            let mut best = "";
            for (i, c) in original.char_indices() {
                let prefix = &original[..i + c.len_utf8()];
                if haystack.contains(prefix) {
                    best = prefix;
                }
            }
            best
        }
        let cases = [
            ("0123456789", "Header\n0123\n...\n789"),
            ("aab", "aaab"),
            ("abab", "xabaabab"),
            ("aaaa", "aa"),
            ("abcabd", "abcabcabd"),
            ("😀😀😀ab", "x😀\n...\n😀ab"),
            ("é😀x", "é\u{FFFD}"),
            ("", "anything"),
            ("abc", ""),
            ("ab\nab\nabc", "ab\nab\nab\nab\nabx"),
            // "aab" occurs, "aabb" does not: a search that kept "aa" as a border of "aab" would claim all four.
            ("aabb", "aababb"),
            // A match ending inside a character ("a" and the first byte of "é" and "è") keeps the whole ones.
            ("aé", "aè"),
        ];
        for (original, haystack) in cases {
            assert_eq!(
                longest_prefix_within(original, haystack),
                by_search(original, haystack),
                "{original:?} in {haystack:?}"
            );
        }
        // Every pattern of up to 6 and text of up to 7 letters of two kinds: each way a border can fall back.
        let words = |most: u32| {
            (0..=most).flat_map(|n| {
                (0..1u32 << n).map(move |bits| {
                    (0..n)
                        .map(|i| if bits >> i & 1 == 1 { 'b' } else { 'a' })
                        .collect::<String>()
                })
            })
        };
        for original in words(6) {
            for haystack in words(7) {
                assert_eq!(
                    longest_prefix_within(&original, &haystack),
                    by_search(&original, &haystack),
                    "{original:?} in {haystack:?}"
                );
            }
        }
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let text = "[ab😀é\n]{0,12}";
        runner
            .run(&(text, text), |(original, haystack)| {
                proptest::prop_assert_eq!(
                    longest_prefix_within(&original, &haystack),
                    by_search(&original, &haystack)
                );
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_common_suffix_starts_at_a_character_of_both() {
        // "é" and "©" end in the same byte (0xA9): the suffix they share is no character.
        assert_eq!(common_suffix("xé", "y©"), "");
        assert_eq!(common_suffix("xé!", "y©!"), "!");
        assert_eq!(common_suffix("abé", "xbé"), "bé");
        assert_eq!(kept_units("zé", "Header\n©"), 0);
    }

    #[test]
    fn kept_never_exceeds_the_original() {
        assert_eq!(kept_units("aaaa", "aaaa...aaaa"), 4);
    }

    #[test]
    fn lines() {
        assert_eq!(first_line("first\nsecond\n\n"), Some("first"));
        assert_eq!(last_line("first\nsecond\n\n"), Some("second"));
        assert_eq!(first_line("\nx"), None);
        assert_eq!(last_line("  \n"), None);
    }

    #[test]
    fn jain() {
        assert_eq!(jain_index(&[0.5, 0.5]), 1.0);
        assert_eq!(jain_index(&[1.0, 0.0, 0.0, 0.0]), 0.25);
        assert_eq!(jain_index(&[]), 1.0);
        // Fields that all kept nothing are treated alike: fair, not 0/0.
        assert_eq!(jain_index(&[0.0, 0.0]), 1.0);
    }
}
