//! Splices of a finished text that keep its needles where they are: a character-wise rewrite ([`map_text`]),
//! inserting text ([`insert`]), removing a range ([`remove`]) and inserting a planted line ([`plant`]). The
//! texture of a scenario (`texture`) is applied with these after a kind has written its output, so every needle
//! still names its exact text at its exact UTF-16 offset afterwards.
//!
//! Offsets are UTF-16 units, as needles count them. A rewrite is applied to the pieces between needle
//! boundaries one at a time, so a needle's new text is its old text rewritten; an insertion or a removal never
//! cuts a needle (an insertion at a needle's first unit moves it, a removal drops the needles it covers).

use super::buf::{Planted, Written};
use crate::needles::NeedleKind;
use crate::text::{head, utf16_len};

/// The byte offset of UTF-16 offset `units` of `text` (the end when `units` is past it).
pub(crate) fn byte_at(text: &str, units: usize) -> usize {
    head(text, units).len()
}

/// The UTF-16 length of a needle's text.
fn len_of(n: &Planted) -> usize {
    utf16_len(&n.text)
}

/// Rewrites `w` piece by piece: `f` gets each piece of the text between needle boundaries and appends its
/// rewrite to the output. Needles keep their places: each one's text becomes the rewrite of its pieces.
pub(crate) fn map_text(w: &mut Written, mut f: impl FnMut(&str, &mut String)) {
    let mut cuts: Vec<usize> = Vec::with_capacity(w.needles.len() * 2 + 1);
    for n in &w.needles {
        cuts.push(n.offset);
        cuts.push(n.offset + len_of(n));
    }
    cuts.push(w.units);
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = String::with_capacity(w.text.len() + w.text.len() / 8 + 8);
    // (old offset, new offset) of every cut.
    let mut moved: Vec<(usize, usize)> = Vec::with_capacity(cuts.len() + 1);
    moved.push((0, 0));
    let (mut byte, mut unit, mut new_units) = (0usize, 0usize, 0usize);
    for &cut in &cuts {
        let len = byte_at(&w.text[byte..], cut - unit);
        let before = out.len();
        f(&w.text[byte..byte + len], &mut out);
        new_units += utf16_len(&out[before..]);
        byte += len;
        unit = cut;
        moved.push((cut, new_units));
    }
    let at = |old: usize| {
        let i = moved.partition_point(|&(o, _)| o < old);
        moved[i].1
    };
    for n in &mut w.needles {
        let (start, end) = (at(n.offset), at(n.offset + len_of(n)));
        let from = byte_at(&out, start);
        let to = from + byte_at(&out[from..], end - start);
        n.offset = start;
        n.text = out[from..to].to_string();
    }
    w.needles.retain(|n| !n.text.is_empty());
    w.text = out;
    w.units = new_units;
}

/// Whether UTF-16 offset `at` is strictly inside one of `w`'s needles.
pub(crate) fn inside_needle(w: &Written, at: usize) -> bool {
    w.needles
        .iter()
        .any(|n| n.offset < at && at < n.offset + len_of(n))
}

/// Inserts `s` at UTF-16 offset `at` (not inside a needle); the needles from `at` on move by its length.
pub(crate) fn insert(w: &mut Written, at: usize, s: &str) {
    debug_assert!(!inside_needle(w, at), "insert at {at} inside a needle");
    let byte = byte_at(&w.text, at);
    w.text.insert_str(byte, s);
    let units = utf16_len(s);
    w.units += units;
    for n in &mut w.needles {
        if n.offset >= at {
            n.offset += units;
        }
    }
}

/// Inserts `s` at `at` as a needle of `kind`, keeping the needles in offset order.
pub(crate) fn plant(w: &mut Written, at: usize, s: &str, kind: NeedleKind) {
    insert(w, at, s);
    let i = w.needles.partition_point(|n| n.offset < at);
    w.needles.insert(
        i,
        Planted {
            kind,
            offset: at,
            text: s.to_string(),
        },
    );
}

/// Removes the UTF-16 range `start..end`: the needles inside it go, the later ones move back. A needle the
/// range only partly covers is dropped too (callers remove whole lines, so this does not happen).
pub(crate) fn remove(w: &mut Written, start: usize, end: usize) {
    if end <= start {
        return;
    }
    let from = byte_at(&w.text, start);
    let to = from + byte_at(&w.text[from..], end - start);
    w.text.replace_range(from..to, "");
    let units = end - start;
    w.units -= units;
    w.needles
        .retain(|n| n.offset + len_of(n) <= start || n.offset >= end);
    for n in &mut w.needles {
        if n.offset >= end {
            n.offset -= units;
        }
    }
}

/// The lines of `text` as UTF-16 ranges `(start, end)`, the end before the line's `\n` (and `\r`).
pub(crate) fn line_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for raw in text.split_inclusive('\n') {
        let units = utf16_len(raw);
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        out.push((at, at + utf16_len(line)));
        at += units;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::buf::TextBuf;

    fn sample() -> Written {
        let mut b = TextBuf::with_capacity(64);
        b.push("héllo 😀\n");
        b.needle_line(NeedleKind::FirstError, |b| b.push("error: bad ✗"));
        b.ascii("\nmore\n");
        b.needle_line(NeedleKind::ExitInfo, |b| b.ascii("Exit Code: 1"));
        b.finish()
    }

    fn check(w: &Written) {
        assert_eq!(w.units, utf16_len(&w.text));
        for n in &w.needles {
            let from = byte_at(&w.text, n.offset);
            assert!(w.text[from..].starts_with(&n.text), "{n:?} in {:?}", w.text);
        }
    }

    #[test]
    fn a_rewrite_keeps_every_needle_at_its_place() {
        let mut w = sample();
        map_text(&mut w, |piece, out| {
            for c in piece.chars() {
                match c {
                    '\n' => out.push_str("\r\n"),
                    c if !c.is_ascii() => out.push_str("??"),
                    c => out.push(c),
                }
            }
        });
        assert_eq!(w.text, "h??llo ??\r\nerror: bad ??\r\nmore\r\nExit Code: 1");
        check(&w);
        assert_eq!(w.needles[0].text, "error: bad ??");
        assert_eq!(w.needles[0].offset, 11);
        assert_eq!(w.needles[1].offset, 32);
    }

    #[test]
    fn insertions_and_removals_move_the_needles_after_them() {
        let mut w = sample();
        let exit = w.needles[1].offset;
        insert(&mut w, exit, "😀");
        assert_eq!(w.needles[1].offset, exit + 2);
        check(&w);
        assert!(inside_needle(&w, w.needles[0].offset + 1));
        assert!(!inside_needle(&w, w.needles[0].offset));
        plant(&mut w, 0, "12 matches\n", NeedleKind::SummaryLine);
        assert_eq!(w.needles[0].kind, NeedleKind::SummaryLine);
        check(&w);
        // Remove the first error line with its newline: its needle goes, the exit line moves back.
        let (start, len) = (w.needles[1].offset, utf16_len(&w.needles[1].text));
        remove(&mut w, start, start + len + 1);
        assert_eq!(w.needles.len(), 2);
        assert_eq!(w.text, "12 matches\nhéllo 😀\nmore\n😀Exit Code: 1");
        check(&w);
    }

    #[test]
    fn lines_are_ranges_without_their_line_ends() {
        assert_eq!(
            line_ranges("ab\r\n😀\n\nx"),
            vec![(0, 2), (4, 6), (7, 7), (8, 9)]
        );
        assert_eq!(line_ranges(""), Vec::<(usize, usize)>::new());
    }
}
