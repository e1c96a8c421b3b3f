//! Broken surrogate pairs: what a finalizer's cut can really break in the text of a field.
//!
//! The production runtime counts UTF-16 code units, so a cut can land between the two halves of a surrogate pair
//! (an emoji, a rare CJK character). A Rust `String` cannot hold half a pair: a finalizer that cuts there either
//! keeps or drops the whole character (correct, and measured by compliance and retention), or converts lossily
//! and shows U+FFFD REPLACEMENT CHARACTER where the half was. So a broken pair is found by position: the kept
//! head (the longest prefix of the original the field still shows) followed by U+FFFD where the original goes
//! on with a supplementary character, or the kept tail preceded by U+FFFD where the original has one just
//! before it. Replacement characters elsewhere in the shown text (a header or marker that mangled text) count
//! too, beyond those the cut-away middle of the original holds.
//!
//! Not counted here yet: lone surrogate escapes (`"\ud83d"`) in the JSON an external finalizer prints. serde_json
//! refuses them when it decodes, so a harness that runs external finalizers must count them in the raw JSON
//! before decoding and add them to this count (see [`broken_surrogates`]).

use super::retention::Compared;
use crate::text::count_matches;

const REPLACEMENT: char = '\u{FFFD}';

fn replacements(s: &str) -> u64 {
    count_matches(s, "\u{FFFD}") as u64
}

/// Surrogate pairs broken in `shown`, a finalized view of `original`: cuts inside a pair found by their position
/// next to the kept head or tail, or the replacement characters in the rest of `shown` beyond those of the
/// original's cut-away middle, whichever is more (so one replacement character is never counted twice). 0 when
/// `shown` is `original`.
///
/// This is the hook for external finalizers: the lone surrogate escapes counted in their raw JSON output belong
/// in the same per-field count.
pub fn broken_surrogates(original: &str, shown: &str) -> u64 {
    if original == shown {
        return 0;
    }
    broken_in(original, &Compared::of(original, shown))
}

/// [`broken_surrogates`] of an original and a shown text that differ, from their comparison.
pub(super) fn broken_in(original: &str, compared: &Compared<'_>) -> u64 {
    let Compared {
        head,
        head_at,
        tail,
        rest,
    } = *compared;
    // The original's text between the kept head and tail (empty when they overlap).
    let middle = original
        .get(head.len()..original.len() - tail.len())
        .unwrap_or("");

    // Cuts inside a pair, by position: the byte offset in `shown` of each replacement character standing for a
    // half, so that a lone one between head and tail is counted once.
    let mut halves: Vec<usize> = Vec::new();
    if let Some(at) = head_at {
        let end = at + head.len();
        let next = original[head.len()..].chars().next();
        if next.is_some_and(|c| c.len_utf16() == 2) && rest[end..].starts_with(REPLACEMENT) {
            halves.push(end);
        }
    }
    if !tail.is_empty() {
        let before = original[..original.len() - tail.len()].chars().next_back();
        if before.is_some_and(|c| c.len_utf16() == 2) && rest.ends_with(REPLACEMENT) {
            let at = rest.len() - REPLACEMENT.len_utf8();
            if !halves.contains(&at) {
                halves.push(at);
            }
        }
    }

    // Replacement characters outside the kept head and tail that the original's middle cannot account for.
    let outside = match head_at {
        Some(at) => replacements(&rest[..at]) + replacements(&rest[at + head.len()..]),
        None => replacements(rest),
    };
    let stray = outside.saturating_sub(replacements(middle));
    (halves.len() as u64).max(stray)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` cut to its first `head` and last `tail` UTF-16 units the way a lossy UTF-16 finalizer cuts: a half
    /// pair becomes U+FFFD.
    fn lossy_cut(text: &str, head: usize, tail: usize) -> String {
        let units: Vec<u16> = text.encode_utf16().collect();
        format!(
            "{}\n...\n{}",
            String::from_utf16_lossy(&units[..head]),
            String::from_utf16_lossy(&units[units.len() - tail..])
        )
    }

    #[test]
    fn cuts_inside_a_pair_are_found_at_the_head_and_the_tail() {
        let emoji = "😀".repeat(10); // 20 units, pairs at even offsets
                                     // Cuts at pair boundaries break nothing.
        assert_eq!(broken_surrogates(&emoji, &lossy_cut(&emoji, 4, 6)), 0);
        // A head of 5 units ends inside the third pair; a tail of 3 units starts inside the eighth.
        assert_eq!(broken_surrogates(&emoji, &lossy_cut(&emoji, 5, 6)), 1);
        assert_eq!(broken_surrogates(&emoji, &lossy_cut(&emoji, 4, 3)), 1);
        assert_eq!(broken_surrogates(&emoji, &lossy_cut(&emoji, 5, 3)), 2);
        // A head alone, cut inside a pair.
        let units: Vec<u16> = emoji.encode_utf16().collect();
        let head_only = format!("{} [cut]", String::from_utf16_lossy(&units[..7]));
        assert_eq!(broken_surrogates(&emoji, &head_only), 1);
        // Unchanged text never counts.
        assert_eq!(broken_surrogates(&emoji, &emoji), 0);
    }

    #[test]
    fn a_cut_is_counted_even_where_the_original_had_replacement_characters() {
        // The original holds two U+FFFD in its middle; the cut drops them and breaks a pair: a count of the
        // replacement characters alone (1 shown, 2 in the input) would see nothing.
        let original = format!("ab😀cd\u{FFFD}\u{FFFD}{}", "x".repeat(20));
        let units: Vec<u16> = original.encode_utf16().collect();
        let shown = format!(
            "{}\n...\n{}",
            String::from_utf16_lossy(&units[..3]),
            "x".repeat(5)
        );
        assert!(shown.starts_with("ab\u{FFFD}\n"));
        assert_eq!(broken_surrogates(&original, &shown), 1);
    }

    #[test]
    fn a_cut_at_the_tail_is_found_by_its_position_and_one_half_between_head_and_tail_counts_once() {
        // The tail's cut breaks the pair before it; the original's middle holds two U+FFFD, so only the
        // position finds it.
        let original = format!("{}\u{FFFD}\u{FFFD}cd😀ab", "x".repeat(20));
        let units: Vec<u16> = original.encode_utf16().collect();
        let shown = format!(
            "xxxxx\n...\n{}",
            String::from_utf16_lossy(&units[units.len() - 3..])
        );
        assert!(shown.ends_with("\n\u{FFFD}ab"));
        assert_eq!(broken_surrogates(&original, &shown), 1);
        // One replacement character right after the head and right before the tail, each next to a pair of the
        // original: one half, not two.
        assert_eq!(broken_surrogates("ab😀😀cd", "ab\u{FFFD}cd"), 1);
        // Two of them: two halves.
        assert_eq!(broken_surrogates("ab😀😀cd", "ab\u{FFFD}\u{FFFD}cd"), 2);
    }

    #[test]
    fn replacement_characters_outside_the_kept_text_count_beyond_the_middle_ones() {
        let original = format!("{}\u{FFFD}{}", "a".repeat(10), "b".repeat(10));
        // The original's own replacement character, kept in the head: nothing broken.
        assert_eq!(
            broken_surrogates(&original, &format!("{}\u{FFFD}b [cut] bb", "a".repeat(10))),
            0
        );
        // A marker with two replacement characters, where the cut-away middle had one: one stray.
        assert_eq!(
            broken_surrogates(&original, "aaa [\u{FFFD}\u{FFFD}] bbb"),
            1
        );
        // Without a kept head or tail, every new replacement character counts.
        assert_eq!(
            broken_surrogates("xyz😀", "\u{FFFD}\u{FFFD}\u{FFFD} gone"),
            3
        );
    }
}
