//! Line picking: the fit the content-aware strategies share (`relevance`, `rarity`, `structure`).
//!
//! A shortened field keeps the reference's header and blank line; its preview is a choice of whole lines of the
//! original, in their order, with every omitted run of lines replaced by one marker line that says what was cut:
//! `[... lines 12-340 of 900 omitted ...]` (or `[... line 7 of 900 omitted ...]` for one line), line numbers
//! counted from 1. A marker is followed by a line break unless it ends the preview. The markers are counted inside
//! the allocation: each costs at most [`marker_bound`] units while the lines are chosen, so the preview never
//! exceeds its allocation whatever the gaps turn out to be.
//!
//! A strategy chooses by handing [`fit_picked`] a function that fills a [`Selection`]: it offers lines or ranges
//! of lines in its order of preference, and each offer is taken whole when it still fits, else passed over. The
//! plan every strategy follows is [`Plan`]: its own frame lines first, then a reserved head and tail (`edge` of
//! the content, split by `head_share`), then its hits, each with up to `context` lines either side when they fit
//! (else the hit alone), then the rest of the head and the tail as far as the content goes. Cuts fall only at
//! line breaks, so no cut splits a surrogate pair. When the allocation cannot hold two markers and a line, when
//! the text has fewer than three lines, or when nothing was picked, the fit is `line-aware`'s, byte for byte.

use super::head_share::HeadShare;
use super::line_aware::fit_lines;
use crate::text::utf16_len;

/// The text of a field split into lines, each with its line break (`\n`, or `\r\n`), the last one without it
/// when the text does not end with a break.
#[derive(Debug)]
pub(crate) struct LineMap<'a> {
    text: &'a str,
    /// Byte offset of the start of each line, plus `text.len()` at the end.
    starts: Vec<usize>,
    /// UTF-16 units of each line, its break included.
    units: Vec<u64>,
}

impl<'a> LineMap<'a> {
    /// The lines of `text`, found and measured in one pass over its bytes ([`scan_lines`]).
    pub(crate) fn new(text: &'a str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 32 + 2);
        let mut units = Vec::with_capacity(text.len() / 32 + 1);
        scan_lines(text.as_bytes(), |start, len| {
            starts.push(start);
            units.push(len);
        });
        starts.push(text.len());
        LineMap {
            text,
            starts,
            units,
        }
    }

    /// The number of lines.
    pub(crate) fn len(&self) -> usize {
        self.units.len()
    }

    /// Line `i` with its line break.
    pub(crate) fn line(&self, i: usize) -> &'a str {
        &self.text[self.starts[i]..self.starts[i + 1]]
    }

    /// Line `i` without its line break (and without a `\r` before it).
    pub(crate) fn body(&self, i: usize) -> &'a str {
        let line = self.line(i);
        let line = line.strip_suffix('\n').unwrap_or(line);
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// The UTF-16 units of line `i`, its break included.
    pub(crate) fn units(&self, i: usize) -> u64 {
        self.units[i]
    }
}

/// Bytes looked at as one block by [`scan_lines`]: one bit of a `u64` each.
const SCAN_BLOCK: usize = 64;

/// Calls `line(start, units)` for every line of UTF-8 `bytes` in order: its byte offset and its UTF-16 units, its
/// line break included (a line ends after each `\n`; the text after the last one, when not empty, is the last
/// line).
///
/// One pass, a block of [`SCAN_BLOCK`] bytes at a time: three bit masks say which bytes are line breaks, which
/// count a unit (every byte but a continuation byte) and which count a second one (the lead of a 4-byte sequence,
/// a surrogate pair in UTF-16), so a line's units are two population counts per block it spans, with no call per
/// line to a search or a count.
fn scan_lines(bytes: &[u8], mut line: impl FnMut(usize, u64)) {
    // Units of the line being read so far, and where it starts.
    let mut units = 0u64;
    let mut start = 0usize;
    for (k, block) in bytes.chunks(SCAN_BLOCK).enumerate() {
        let base = k * SCAN_BLOCK;
        let (breaks, one, two) = block_masks(block);
        let mut rest = breaks;
        // The first bit of the block not yet counted into a line.
        let mut from = 0u32;
        while rest != 0 {
            let at = rest.trailing_zeros();
            // Bits `from..=at`.
            let span = (u64::MAX >> (63 - at)) & (u64::MAX << from);
            units += u64::from((one & span).count_ones() + (two & span).count_ones());
            line(start, units);
            units = 0;
            start = base + at as usize + 1;
            from = at + 1;
            rest &= rest - 1;
        }
        if from < 64 {
            let span = u64::MAX << from;
            units += u64::from((one & span).count_ones() + (two & span).count_ones());
        }
    }
    if start < bytes.len() {
        line(start, units);
    }
}

/// The masks of one block of at most [`SCAN_BLOCK`] bytes, bit `i` for byte `i` (bits past the block clear): the
/// line breaks, the bytes that count one UTF-16 unit (all but continuation bytes) and those that count a second
/// one (4-byte leads).
fn block_masks(block: &[u8]) -> (u64, u64, u64) {
    if block.len() == SCAN_BLOCK {
        return full_block_masks(block.try_into().expect("a whole block"));
    }
    let mut padded = [0u8; SCAN_BLOCK];
    padded[..block.len()].copy_from_slice(block);
    let (breaks, one, two) = full_block_masks(&padded);
    // The padding's zero bytes would count one unit each.
    let valid = (1u64 << block.len()) - 1;
    (breaks, one & valid, two)
}

/// [`block_masks`] of a whole block, sixteen bytes a comparison (SSE2, which every x86-64 CPU has).
#[cfg(target_arch = "x86_64")]
fn full_block_masks(block: &[u8; SCAN_BLOCK]) -> (u64, u64, u64) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let (mut breaks, mut one, mut two) = (0u64, 0u64, 0u64);
    for (k, row) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of the x86-64 baseline, and `row` holds the 16 bytes the unaligned load reads.
        let (b, o, t) = unsafe {
            let v = _mm_loadu_si128(row.as_ptr().cast::<__m128i>());
            (
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8))),
                // As signed bytes, continuation bytes 0x80..=0xBF are -128..=-65 and 4-byte leads -16..=-1 (the
                // sign bit, which the mask of `v` itself holds, tells them from ASCII).
                _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(-65))),
                _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(-17))) & _mm_movemask_epi8(v),
            )
        };
        let shift = 16 * k;
        breaks |= u64::from(b as u16) << shift;
        one |= u64::from(o as u16) << shift;
        two |= u64::from(t as u16) << shift;
    }
    (breaks, one, two)
}

/// [`block_masks`] of a whole block, a byte at a time.
#[cfg(not(target_arch = "x86_64"))]
fn full_block_masks(block: &[u8; SCAN_BLOCK]) -> (u64, u64, u64) {
    let (mut breaks, mut one, mut two) = (0u64, 0u64, 0u64);
    for (i, &b) in block.iter().enumerate() {
        breaks |= u64::from(b == b'\n') << i;
        one |= u64::from((b as i8) >= -64) << i;
        two |= u64::from(b >= 0xF0) << i;
    }
    (breaks, one, two)
}

/// The most UTF-16 units any marker of a text of `lines` lines takes, its line break included.
pub(crate) fn marker_bound(lines: usize) -> u64 {
    let digits = lines.max(1).to_string().len() as u64;
    // "[... lines " A "-" B " of " N " omitted ...]" "\n"
    11 + digits + 1 + digits + 4 + digits + 13 + 1
}

/// The marker of the omitted lines `first..=last` (0-based) of a text of `total` lines, without a line break.
pub(crate) fn marker(first: usize, last: usize, total: usize) -> String {
    if first == last {
        format!("[... line {} of {total} omitted ...]", first + 1)
    } else {
        format!(
            "[... lines {}-{} of {total} omitted ...]",
            first + 1,
            last + 1
        )
    }
}

/// The lines a preview keeps, chosen one offer at a time within `content` units (kept lines plus a marker
/// bound per omitted run).
#[derive(Debug)]
pub(crate) struct Selection<'m> {
    keep: Vec<bool>,
    /// The units of each line, the map's own.
    units: &'m [u64],
    used: u64,
    content: u64,
    marker: u64,
    picked: usize,
}

impl<'m> Selection<'m> {
    /// Nothing kept yet of `map`, within `content` units.
    pub(crate) fn new(map: &'m LineMap<'_>, content: u64) -> Self {
        let marker = marker_bound(map.len());
        Selection {
            keep: vec![false; map.len()],
            units: &map.units,
            used: if map.len() > 0 { marker } else { 0 },
            content,
            marker,
            picked: 0,
        }
    }

    /// Whether line `i` is kept.
    pub(crate) fn kept(&self, i: usize) -> bool {
        self.keep[i]
    }

    /// The units the kept lines and the markers' bounds take.
    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    /// The units still free.
    pub(crate) fn free(&self) -> u64 {
        self.content - self.used
    }

    /// Whether line `i` starts an omitted run with `keep`.
    fn starts_gap(keep: &[bool], i: usize) -> bool {
        !keep[i] && (i == 0 || keep[i - 1])
    }

    /// What keeping every line of `first..end` (clamped to the text) would cost, in units; `None` when nothing in it
    /// is new.
    fn cost(&self, first: usize, end: usize) -> Option<u64> {
        let n = self.keep.len();
        let end = end.min(n);
        if first >= end {
            return None;
        }
        let mut lines = 0u64;
        let mut new = false;
        let mut removed = 0i64;
        for i in first..end {
            if !self.keep[i] {
                new = true;
                lines += self.units[i];
                if Self::starts_gap(&self.keep, i) {
                    removed += 1;
                }
            }
        }
        if !new {
            return None;
        }
        // After: every line of the range is kept, so the only gap that can start in `first..=end` starts at
        // `end`, when that line is not kept (the line before it now is).
        if end < n && Self::starts_gap(&self.keep, end) {
            removed += 1;
        }
        let added = i64::from(end < n && !self.keep[end]);
        let gaps = added - removed;
        let delta = lines as i64 + gaps * self.marker as i64;
        Some((self.used as i64 + delta).max(0) as u64)
    }

    /// Keeps every line of `first..end` when that fits, and says whether it did (a range with nothing new is not
    /// taken).
    pub(crate) fn offer(&mut self, first: usize, end: usize) -> bool {
        self.offer_within(first, end, self.content)
    }

    /// Keeps every line of `first..end` when the total stays within `cap` (and the content).
    pub(crate) fn offer_within(&mut self, first: usize, end: usize, cap: u64) -> bool {
        let Some(after) = self.cost(first, end) else {
            return false;
        };
        if after > cap.min(self.content) {
            return false;
        }
        for k in &mut self.keep[first..end.min(self.units.len())] {
            if !*k {
                *k = true;
                self.picked += 1;
            }
        }
        self.used = after;
        true
    }

    /// Keeps line `i` when it fits.
    pub(crate) fn offer_line(&mut self, i: usize) -> bool {
        self.offer(i, i + 1)
    }
}

/// How a content-aware strategy fills a preview: the shared plan (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    /// The share of the content reserved for the head and the tail before any hit.
    pub edge: HeadShare,
    /// How the head and the tail split it (and the rest of the content at the end).
    pub head_share: HeadShare,
    /// Lines kept on each side of a hit when they fit.
    pub context: usize,
}

impl Plan {
    /// Fills `sel`: `frame` lines, the reserved head and tail, each hit of `hits` (in order) with its context or
    /// alone, then head and tail lines as far as the content goes.
    pub(crate) fn fill(
        &self,
        map: &LineMap<'_>,
        sel: &mut Selection<'_>,
        frame: &[usize],
        hits: impl IntoIterator<Item = usize>,
    ) {
        for &i in frame {
            sel.offer_line(i);
        }
        let reserve = self.edge.head_units(sel.free());
        let head = self.head_share.head_units(reserve);
        self.edges(map, sel, head, reserve - head);
        let n = map.len();
        for hit in hits {
            if sel.kept(hit) && self.context == 0 {
                continue;
            }
            let first = hit.saturating_sub(self.context);
            let end = (hit + self.context + 1).min(n);
            if !sel.offer(first, end) {
                sel.offer_line(hit);
            }
            if sel.free() == 0 {
                break;
            }
        }
        let rest = sel.free();
        let head = self.head_share.head_units(rest);
        self.edges(map, sel, head, rest - head);
        // What the split leaves, to either end.
        let rest = sel.free();
        self.edges(map, sel, rest, rest);
    }

    /// Keeps lines from the start while they add at most `head` units, and from the end while they add at most
    /// `tail` units (each run stops at the first line that does not fit).
    fn edges(&self, map: &LineMap<'_>, sel: &mut Selection<'_>, head: u64, tail: u64) {
        let n = map.len();
        let start = sel.used();
        let mut i = 0;
        while i < n {
            if !sel.kept(i) && !sel.offer_within(i, i + 1, start + head) {
                break;
            }
            i += 1;
        }
        let start = sel.used();
        let mut j = n;
        while j > i {
            if !sel.kept(j - 1) && !sel.offer_within(j - 1, j, start + tail) {
                break;
            }
            j -= 1;
        }
    }
}

/// The picked fit of `text` to at most `allocation` UTF-16 units behind `header`: `choose` fills the selection of
/// the text's lines within the preview's content (see the module documentation for when `line-aware`'s fit is
/// used instead).
pub(crate) fn fit_picked(
    text: &str,
    allocation: u64,
    header: &str,
    head_share: HeadShare,
    choose: impl FnOnce(&LineMap<'_>, &mut Selection<'_>),
) -> String {
    let h = utf16_len(header) as u64;
    let map = LineMap::new(text);
    let marker = marker_bound(map.len());
    if map.len() < 3 || allocation <= h + 2 + 2 * marker {
        return fit_lines(text, allocation, header, head_share);
    }
    let content = allocation - h - 2;
    let mut sel = Selection::new(&map, content);
    choose(&map, &mut sel);
    if sel.picked == 0 {
        return fit_lines(text, allocation, header, head_share);
    }
    render(header, &map, &sel)
}

/// The header, a blank line and the kept lines with a marker for each omitted run.
fn render(header: &str, map: &LineMap<'_>, sel: &Selection<'_>) -> String {
    let n = map.len();
    let mut out = String::with_capacity(header.len() + 2 + 4 * sel.content as usize);
    out.push_str(header);
    out.push_str("\n\n");
    let mut i = 0;
    while i < n {
        if sel.keep[i] {
            let start = i;
            while i < n && sel.keep[i] {
                i += 1;
            }
            out.push_str(&map.text[map.starts[start]..map.starts[i]]);
        } else {
            let start = i;
            while i < n && !sel.keep[i] {
                i += 1;
            }
            out.push_str(&marker(start, i - 1, n));
            if i < n {
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten lines `l00` to `l09`, each with its line break.
    fn ten() -> String {
        (0..10).map(|i| format!("l{i:02}\n")).collect()
    }

    /// The lines of `text` as `LineMap::new` reads them, by a plain split: (byte offset, UTF-16 units).
    fn split(text: &str) -> Vec<(usize, u64)> {
        let mut out = Vec::new();
        let mut at = 0;
        for piece in text.split_inclusive('\n') {
            out.push((at, utf16_len(piece) as u64));
            at += piece.len();
        }
        out
    }

    #[test]
    fn lines_are_found_and_measured_in_one_pass_as_a_plain_split_finds_them() {
        // Breaks, 2-, 3- and 4-byte characters at every offset around the 64-byte blocks, lines longer than a
        // block, empty lines, `\r\n`, and texts with and without a final break.
        let pieces = [
            "a",
            "\n",
            "é",
            "中",
            "😀",
            "\r\n",
            "\n\n",
            &"x".repeat(70),
            "🇯🇵",
            "𠀀",
        ];
        let mut texts = vec![String::new(), "\n".into(), "abc".into(), "a\n".repeat(64)];
        for seed in 0..200usize {
            let mut t = String::new();
            let mut k = seed;
            for _ in 0..(seed % 90) {
                k = k
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407)
                    % 1_000_003;
                t.push_str(pieces[k % pieces.len()]);
            }
            texts.push(t);
        }
        for text in &texts {
            let map = LineMap::new(text);
            let got: Vec<(usize, u64)> = (0..map.len())
                .map(|i| (map.starts[i], map.units(i)))
                .collect();
            assert_eq!(got, split(text), "{text:?}");
            assert_eq!(map.starts.last(), Some(&text.len()));
            assert_eq!(map.units.iter().sum::<u64>(), utf16_len(text) as u64);
        }
    }

    #[test]
    fn markers_say_which_lines_were_cut() {
        assert_eq!(
            marker(11, 339, 900),
            "[... lines 12-340 of 900 omitted ...]"
        );
        assert_eq!(marker(6, 6, 900), "[... line 7 of 900 omitted ...]");
        // The bound holds the longest marker of a text and its line break.
        assert_eq!(
            marker_bound(900),
            utf16_len("[... lines 900-900 of 900 omitted ...]\n") as u64
        );
        assert_eq!(marker_bound(9), 1 + utf16_len(&marker(0, 8, 9)) as u64);
    }

    #[test]
    fn kept_lines_come_in_order_with_a_marker_for_each_omitted_run() {
        let text = ten();
        let out = fit_picked(&text, 200, "H", HeadShare::DEFAULT, |_, sel| {
            assert!(sel.offer_line(4));
            assert!(sel.offer(0, 2));
            assert!(sel.offer_line(9));
        });
        assert_eq!(
            out,
            "H\n\nl00\nl01\n[... lines 3-4 of 10 omitted ...]\nl04\n[... lines 6-9 of 10 omitted ...]\nl09\n"
        );
        // A trailing run ends the preview without a line break.
        let out = fit_picked(&text, 200, "H", HeadShare::DEFAULT, |_, sel| {
            sel.offer_line(1);
        });
        assert_eq!(
            out,
            "H\n\n[... line 1 of 10 omitted ...]\nl01\n[... lines 3-10 of 10 omitted ...]"
        );
    }

    #[test]
    fn an_offer_is_taken_only_when_the_lines_and_the_markers_fit() {
        let text = ten();
        let map = LineMap::new(&text);
        // Bound 36 (two-digit count): nothing kept costs one marker.
        assert_eq!(marker_bound(10), 36);
        let mut sel = Selection::new(&map, 36 + 4 + 36);
        assert_eq!(sel.used(), 36);
        // Line 5 splits the gap in two: 4 + 36 more.
        assert!(sel.offer_line(5));
        assert_eq!(sel.used(), 76);
        assert!(!sel.offer_line(0), "a line at the start adds 4 units, over");
        // Joining line 4 to line 5 adds its 4 units and no gap: over too.
        assert!(!sel.offer_line(4));
        let mut sel = Selection::new(&map, 200);
        assert!(sel.offer(0, 10));
        assert_eq!(sel.used(), 40, "no gap left, no marker");
        assert!(!sel.offer(3, 5), "nothing new");
    }

    #[test]
    fn short_texts_small_allocations_and_empty_choices_are_cut_as_line_aware_cuts_them() {
        let text = ten();
        let share = HeadShare::DEFAULT;
        for a in [0, 10, 70, 77, 200] {
            assert_eq!(
                fit_picked(&text, a, "H", share, |_, _| {}),
                fit_lines(&text, a, "H", share)
            );
        }
        assert_eq!(
            fit_picked("a\nb", 5, "H", share, |_, sel| {
                sel.offer_line(0);
            }),
            fit_lines("a\nb", 5, "H", share)
        );
    }

    #[test]
    fn the_plan_reserves_the_edges_and_takes_hits_with_their_context() {
        let text: String = (0..30).map(|i| format!("line {i:02}\n")).collect();
        let plan = Plan {
            edge: HeadShare::new(1, 2).unwrap(),
            head_share: HeadShare::new(1, 2).unwrap(),
            context: 1,
        };
        // Content 157, marker bound 36: free 121, reserve 60, head 30 (three 8-unit lines) and tail 30 (three);
        // the hit with its context (24 units and a marker) leaves 13, one more head line.
        let out = fit_picked(&text, 160, "H", HeadShare::DEFAULT, |map, sel| {
            plan.fill(map, sel, &[], [20]);
        });
        assert!(utf16_len(&out) <= 160);
        assert_eq!(
            out,
            "H\n\nline 00\nline 01\nline 02\nline 03\n[... lines 5-19 of 30 omitted ...]\nline 19\nline 20\nline 21\n[... lines 23-27 of 30 omitted ...]\nline 27\nline 28\nline 29\n"
        );
    }
}
