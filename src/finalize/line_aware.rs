//! `line-aware`: the reference allocation and persistence, with previews cut at line boundaries.
//!
//! The fit is the reference's shape (header, blank line, head, `\n...\n`, tail, within exactly the allocation)
//! but the tail is the longest run of whole lines at the end that fits its share, and the head the longest run
//! of whole lines at the start that fits what the tail left. The last non-empty line of the field (with any
//! blank lines after it) is kept whenever the preview's content can hold it, even when that takes more than the
//! tail's share; this is where exit codes and test summaries live. A part that cannot hold one whole line falls
//! back to the reference's cut by units (surrogate-safe), so a single long line still gets a preview.

use super::fit::fit;
use super::head_share::HeadShare;
use super::param::HEAD_SHARE;
use super::slots::{Slot, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::{slot_lengths, CappedAllocation};
use crate::alloc::water_fill;
use crate::text::{head, tail, utf16_len};

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "line-aware",
    description: "reference allocation; previews cut at line boundaries, keeping the last non-empty line when it fits",
    family: Family::ContentAware,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[HEAD_SHARE],
    build: Build::One(|config| {
        Box::new(LineAware {
            head_share: config.head_share,
        })
    }),
};

/// The line-aware finalizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct LineAware {
    /// The head share of previews (before the last line is protected).
    pub head_share: HeadShare,
}

impl CappedAllocation for LineAware {
    const NAME: &'static str = SPEC.name;

    fn head_share(&self) -> HeadShare {
        self.head_share
    }

    fn allocate(&self, slots: &[Slot], limit: u64) -> Vec<u64> {
        water_fill(&slot_lengths(slots), limit)
    }

    fn fit_slot(&self, text: &str, allocation: u64, header: &str) -> String {
        fit_lines(text, allocation, header, self.head_share)
    }
}

/// The line-aware fit of `text` to at most `allocation` UTF-16 units behind `header`. Up to the split of the
/// content it is [`fit`]; see the module documentation for the cut.
pub(crate) fn fit_lines(text: &str, allocation: u64, header: &str, share: HeadShare) -> String {
    let h = utf16_len(header) as u64;
    if allocation <= h + 2 + 5 {
        // Nothing beyond the header, or a head-only preview of at most 5 units: the reference's fit.
        return fit(text, allocation, header, share);
    }
    let content = allocation - h - 2 - 5;
    let (head_end, tail_start) = line_cuts(text, content, share);
    let (head_part, tail_part) = (&text[..head_end], &text[tail_start..]);
    let mut out = String::with_capacity(header.len() + head_part.len() + tail_part.len() + 7);
    out.push_str(header);
    out.push_str("\n\n");
    out.push_str(head_part);
    out.push_str("\n...\n");
    out.push_str(tail_part);
    out
}

/// Where the line-aware head of a preview with `content` units of text ends and its tail starts, as byte offsets
/// into `text` (see the module documentation). For a `text` longer than `content` units, head and tail never
/// overlap.
pub(super) fn line_cuts(text: &str, content: u64, share: HeadShare) -> (usize, usize) {
    let mut tail_units = content - share.head_units(content);
    let last_len = utf16_len(last_line_segment(text)) as u64;
    if last_len <= content {
        tail_units = tail_units.max(last_len);
    }
    let tail_part = line_tail(text, tail_units as usize);
    let head_units = content - utf16_len(tail_part) as u64;
    let head_part = line_head(text, head_units as usize);
    (head_part.len(), text.len() - tail_part.len())
}

/// From the start of the last line holding anything but line breaks to the end of `text` ("" when none).
fn last_line_segment(text: &str) -> &str {
    let body = text.trim_end_matches(['\n', '\r']);
    if body.is_empty() {
        return "";
    }
    let start = body.rfind('\n').map_or(0, |p| p + 1);
    &text[start..]
}

/// The longest suffix of whole lines within `units`, or the unit cut when no whole non-empty line fits.
fn line_tail(text: &str, units: usize) -> &str {
    let cut = tail(text, units);
    let start = text.len() - cut.len();
    if start == 0 || text.as_bytes()[start - 1] == b'\n' {
        return cut;
    }
    match cut.find('\n') {
        Some(p) if cut[p..].contains(not_a_line_break) => &cut[p + 1..],
        _ => cut,
    }
}

/// The longest prefix of whole lines within `units` (without the final line break), or the unit cut when no
/// whole non-empty line fits.
fn line_head(text: &str, units: usize) -> &str {
    let cut = head(text, units);
    if cut.len() == text.len() || text.as_bytes()[cut.len()] == b'\n' {
        return cut;
    }
    match cut.rfind('\n') {
        Some(p) if cut[..p].contains(not_a_line_break) => &cut[..p],
        _ => cut,
    }
}

/// Whether `c` is anything but a line break (`\n` or `\r`).
fn not_a_line_break(c: char) -> bool {
    c != '\n' && c != '\r'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::fit::header;
    use crate::finalize::testing::{output_entry, output_of, run};
    use crate::finalize::Reference;

    #[test]
    fn just_past_a_head_only_preview_the_cut_keeps_whole_lines() {
        // A 6-unit header and 16 units: 3 of content, past the 5-unit head-only preview of the reference's fit.
        let text = "aaaa\nbb";
        let share = HeadShare::DEFAULT;
        assert_eq!(fit_lines(text, 16, "HEADER", share), "HEADER\n\na\n...\nbb");
        assert_eq!(fit(text, 16, "HEADER", share), "HEADER\n\n\n...\n\nbb");
        // At the header, its two line breaks and 5 units, the reference's fit.
        assert_eq!(
            fit_lines(text, 13, "HEADER", share),
            fit(text, 13, "HEADER", share)
        );
    }

    #[test]
    fn the_last_line_segment_starts_after_a_line_break() {
        assert_eq!(last_line_segment("a\nbb\n\r\n"), "bb\n\r\n");
        assert_eq!(last_line_segment("only"), "only");
        assert_eq!(last_line_segment("\n\r\n"), "");
        assert_eq!(last_line_segment(""), "");
    }

    #[test]
    fn line_tails_and_heads_keep_whole_lines_when_one_fits() {
        // All of it fits; a cut right after or before a line break is whole lines already.
        assert_eq!(line_tail("ab\ncd", 5), "ab\ncd");
        assert_eq!(line_tail("ab\ncd\nef", 5), "cd\nef");
        assert_eq!(line_head("ab\ncd", 5), "ab\ncd");
        assert_eq!(line_head("ab\ncd\nef", 5), "ab\ncd");
        // A cut inside a line drops the partial line.
        assert_eq!(line_tail("xab\ncd", 4), "cd");
        assert_eq!(line_head("ab\ncdx", 4), "ab");
        // Unless only line breaks would be left: the unit cut then.
        assert_eq!(line_tail("xxab\n\r\n", 4), "b\n\r\n");
        assert_eq!(line_head("\n\r\nabc", 4), "\n\r\na");
        assert_eq!(line_tail("abc", 2), "bc");
        assert_eq!(line_head("abc", 2), "ab");
        // Units are UTF-16 units: a cut never splits a pair.
        assert_eq!(line_tail("a\n😀😀", 3), "😀");
        assert_eq!(line_head("😀😀\na", 3), "😀");
    }

    /// Twenty numbered 30-unit lines, then a 60-unit summary line and a trailing newline.
    fn log() -> String {
        let mut s = String::new();
        for i in 0..20 {
            s.push_str(&format!("line {i:02} of the build output ......\n")[..30]);
            s.push('\n');
        }
        s.push_str("test result: FAILED. 41 passed; 2 failed; finished in 13.21s\n");
        s
    }

    #[test]
    fn keeps_the_last_non_empty_line_when_it_fits() {
        let text = log();
        assert_eq!(text.lines().last().unwrap().len(), 60);
        let h = header(&text, &["/tmp/c.txt".into()]);
        // 150 header + 2 + 5 separator: content 70 at 227. The reference's tail (56 of 70 units) loses the
        // start of the 61-unit summary segment; the line-aware tail keeps it whole and the head gets the 9 left
        // (no whole line, so a unit cut).
        let batch = vec![output_entry("c", "shell", &text)];
        let (out, _) = run(&LineAware::default(), batch.clone(), 227, None);
        let summary = &text[text.len() - 61..];
        assert_eq!(
            output_of(&out, 0),
            format!("{h}\n\n{}\n...\n{summary}", &text[..9])
        );
        let (reference, _) = run(&Reference::default(), batch, 227, None);
        assert_eq!(
            output_of(&reference, 0),
            format!("{h}\n\n{}\n...\n{}", &text[..14], &text[text.len() - 56..])
        );
    }

    #[test]
    fn cuts_at_line_boundaries() {
        let text = log();
        let h = header(&text, &[]);
        // No paths: 107 header. Content 200 - 114 = 86; the tail share of 69 holds the summary segment (61)
        // but no 31-unit line more; the head gets the remaining 25: no whole line, so a unit cut.
        assert_eq!(
            fit_lines(&text, 200, &h, HeadShare::DEFAULT),
            format!("{h}\n\n{}\n...\n{}", &text[..25], &text[text.len() - 61..])
        );
        // Content 146: the tail share 117 holds the summary and one line (92); the head 54 one line (30).
        assert_eq!(
            fit_lines(&text, 260, &h, HeadShare::DEFAULT),
            format!("{h}\n\n{}\n...\n{}", &text[..30], &text[text.len() - 92..])
        );
    }

    #[test]
    fn a_last_line_too_long_for_the_preview_is_cut_by_units() {
        let text = format!("short\n{}", "x".repeat(500));
        let h = "H";
        // Content 100 - 8 = 92: the last line (500) cannot be kept; tail 74 and head 18 by units.
        assert_eq!(
            fit_lines(&text, 100, h, HeadShare::DEFAULT),
            format!("H\n\nshort\n...\n{}", "x".repeat(74))
        );
    }

    #[test]
    fn never_exceeds_the_allocation_and_never_splits_pairs() {
        let text = "😀a\n中😀\n\n😀😀😀\n".repeat(20);
        for a in 0..120 {
            let f = fit_lines(&text, a, "HDR", HeadShare::DEFAULT);
            assert!(utf16_len(&f) as u64 <= a, "allocation {a}");
        }
    }
}
