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
    /// The lines of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 32 + 2);
        let mut units = Vec::with_capacity(text.len() / 32 + 1);
        let mut at = 0;
        let ascii = text.is_ascii();
        while at < text.len() {
            let end = text[at..].find('\n').map_or(text.len(), |p| at + p + 1);
            starts.push(at);
            let len = if ascii {
                end - at
            } else {
                utf16_len(&text[at..end])
            };
            units.push(len as u64);
            at = end;
        }
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
pub(crate) struct Selection {
    keep: Vec<bool>,
    units: Vec<u64>,
    used: u64,
    content: u64,
    marker: u64,
    picked: usize,
}

impl Selection {
    /// Nothing kept yet of `map`, within `content` units.
    pub(crate) fn new(map: &LineMap<'_>, content: u64) -> Self {
        let marker = marker_bound(map.len());
        Selection {
            keep: vec![false; map.len()],
            units: map.units.clone(),
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
        sel: &mut Selection,
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
    fn edges(&self, map: &LineMap<'_>, sel: &mut Selection, head: u64, tail: u64) {
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
    choose: impl FnOnce(&LineMap<'_>, &mut Selection),
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
fn render(header: &str, map: &LineMap<'_>, sel: &Selection) -> String {
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
