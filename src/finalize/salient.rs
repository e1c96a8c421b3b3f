//! `salient`: the reference allocation and persistence, with previews that keep, beside the head and the tail,
//! what the middle of the text says went wrong or how it ended.
//!
//! Each shortened field gets exactly the reference's allocation and header. Its preview is `line-aware`'s head and
//! tail with up to `salient.lines` *picked* pieces of the middle between them, each followed by the reference's
//! `\n...\n` marker: header, blank line, head, `\n...\n`, piece, `\n...\n`, ..., tail. The pieces take at most
//! `salient.share` of the preview's content (markers included) and whatever they leave goes to the head and the
//! tail, cut as `line-aware` cuts them with `head_share`; with nothing picked, or a share of 0, the preview is
//! `line-aware`'s, byte for byte.
//!
//! What is picked is read from the text alone, by this module's own patterns: it shares no code with
//! `src/needles/` and never sees a batch's planted needles (the classes overlap with what `src/needles/` detects,
//! since both look for what a reader of a log needs: errors, exit status, summaries, a JSON result's keys).
//!
//! - In a text whose first non-blank character opens a JSON object: its top-level keys in order (the key, or
//!   the rest of its line when the object is pretty-printed and the line is short).
//! - In any other text: whole lines of at most [`MAX_LINE_BYTES`], in four classes: *errors* (`error`,
//!   `fatal`, `panicked`, `Traceback`, `FAILED`, `ValueError`, `No such file or directory`, `command not found`,
//!   ...), *exit status* (`Exit Code: 1`, `exit status 2`, `returncode`), *summaries* (a number and `passed`,
//!   `errors`, `tests`, `files changed`, `matches`, `packages`, `more lines`, ...; `test result`, `Finished`,
//!   `Built target`, `Done in`) and *warnings*. A word counts at the start of a line, after a byte that is not a
//!   letter, digit or `_`, or right after a colour code; a line is in the first class one of its words is in;
//!   repeated lines count once.
//!
//! The order of picking: errors (the earliest first), then the last exit line, the summaries (the latest first)
//! and the other exit lines; lines the reference's own head and tail would have shown after those it would not;
//! warnings last. Each line is taken alone while the share holds it; then, line by line in the same order, with up
//! to `salient.context` lines on each side while the share still holds that. Pieces closer than a marker are
//! joined with the text between them. Taking pieces shrinks the head and the tail; a piece they still reach is
//! dropped and its units go back to them. Every cut is the reference's surrogate-safe cut or a line boundary, so a
//! preview never splits a pair and never exceeds its allocation.

use std::sync::OnceLock;

use regex_automata::meta::Regex;
use regex_automata::Input;

use super::config::{SalientConfig, CONTEXT_LINES, SALIENT_LINES};
use super::head_share::HeadShare;
use super::line_aware::{fit_lines, line_cuts};
use super::param::{Param, Search, Setting, HEAD_SHARE};
use super::slots::{Slot, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::{slot_lengths, CappedAllocation};
use crate::alloc::water_fill;
use crate::json_keys::{opens_object, top_level_strings};
use crate::text::utf16_len;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "salient",
    description: "reference allocation; previews keep error, exit and summary lines (or a JSON's top-level keys) from the middle beside the head and tail",
    family: Family::ContentAware,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[
        HEAD_SHARE,
        Param {
            name: "share",
            key: "salient.share",
            description: "the most of each preview the picked lines may take; what they leave goes to head and tail",
            field: Setting::Share(|c| &mut c.salient.share),
            search: Search::Shares { steps: 10 },
        },
        Param {
            name: "context",
            key: "salient.context",
            description: "lines kept on each side of a picked line when the share holds them",
            field: Setting::Units(CONTEXT_LINES, |c| &mut c.salient.context),
            search: Search::Each { low: 0, high: 4 },
        },
        Param {
            name: "lines",
            key: "salient.lines",
            description: "the most lines (or JSON keys) one preview picks",
            field: Setting::Units(SALIENT_LINES, |c| &mut c.salient.lines),
            search: Search::Log { low: 2, high: 256, points: 8 },
        },
    ],
    build: Build::One(|config| {
        Box::new(Salient {
            head_share: config.head_share,
            settings: config.salient,
        })
    }),
};

/// Lines longer than this (in bytes) are never picked: they are data, minified code or prose.
pub(crate) const MAX_LINE_BYTES: usize = 500;

/// A pretty-printed JSON key is kept with the rest of its line when that is at most this many bytes.
const MAX_KEY_LINE_BYTES: usize = 80;

/// The marker after each picked piece (the reference's marker between head and tail).
const MARKER: &str = "\n...\n";
/// Its length in UTF-16 units.
const MARKER_UNITS: u64 = 5;

/// The salient-lines finalizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Salient {
    /// The head share of what the picked pieces leave of a preview.
    pub head_share: HeadShare,
    /// How much is picked.
    pub settings: SalientConfig,
}

impl CappedAllocation for Salient {
    const NAME: &'static str = SPEC.name;

    fn head_share(&self) -> HeadShare {
        self.head_share
    }

    fn allocate(&self, slots: &[Slot], limit: u64) -> Vec<u64> {
        water_fill(&slot_lengths(slots), limit)
    }

    fn fit_slot(&self, text: &str, allocation: u64, header: &str) -> String {
        fit_salient(text, allocation, header, self.head_share, &self.settings)
    }
}

/// The salient fit of `text` to at most `allocation` UTF-16 units behind `header` (see the module
/// documentation). Up to a preview of 5 units, and whenever nothing is picked, it is [`fit`].
pub(crate) fn fit_salient(
    text: &str,
    allocation: u64,
    header: &str,
    head_share: HeadShare,
    settings: &SalientConfig,
) -> String {
    let h = utf16_len(header) as u64;
    if allocation <= h + 2 + MARKER_UNITS {
        return fit_lines(text, allocation, header, head_share);
    }
    let content = allocation - h - 2 - MARKER_UNITS;
    let pieces = pick(text, content, head_share, settings);
    if pieces.is_empty() {
        return fit_lines(text, allocation, header, head_share);
    }
    let used = cost(text, &pieces);
    let (head_end, tail_start) = regions(text, content - used, head_share);
    let mut out = String::with_capacity(header.len() + 2 + 4 * content as usize);
    out.push_str(header);
    out.push_str("\n\n");
    out.push_str(&text[..head_end]);
    out.push_str(MARKER);
    for &(start, end) in &pieces {
        out.push_str(&text[start..end]);
        out.push_str(MARKER);
    }
    out.push_str(&text[tail_start..]);
    out
}

/// A piece of the text by byte offsets, `start..end`, on character boundaries.
type Span = (usize, usize);

/// The byte offsets where the head ends and the tail starts when `rest` units of content are split by `share`:
/// `line-aware`'s cuts.
fn regions(text: &str, rest: u64, share: HeadShare) -> Span {
    let (head_end, tail_start) = line_cuts(text, rest, share);
    (head_end, tail_start.max(head_end))
}

/// The units the pieces take in a preview, markers included.
fn cost(text: &str, pieces: &[Span]) -> u64 {
    pieces
        .iter()
        .map(|&(s, e)| utf16_len(&text[s..e]) as u64 + MARKER_UNITS)
        .sum()
}

/// The pieces of the middle a preview with `content` units keeps, in text order, disjoint, none reaching into the
/// head or the tail that the rest of the content gives.
fn pick(text: &str, content: u64, share: HeadShare, settings: &SalientConfig) -> Vec<Span> {
    let cap = settings.share.head_units(content);
    if cap <= MARKER_UNITS {
        return Vec::new();
    }
    // The head and tail when nothing is picked (`line-aware`'s) and when the whole share is.
    let (shown_head, shown_tail) = regions(text, content, share);
    let (start, end) = regions(text, content - cap, share);
    if start >= end {
        return Vec::new();
    }
    let limit = settings.lines.clamp(SALIENT_LINES.low, SALIENT_LINES.high) as usize;
    let mut candidates = if opens_object(text) {
        json_keys(text, start, end, limit)
            .into_iter()
            .map(|k| (k, false))
            .collect()
    } else {
        salient_lines(text, start, end, limit)
    };
    // Warnings last; before them, what the reference would not show first (a stable sort keeps the order).
    let hidden = |(s, e): Span| s >= shown_head && e <= shown_tail;
    candidates.sort_by_key(|&(line, warning)| (warning, !hidden(line)));
    // The lines alone first, then as much context as the share still holds, line by line.
    let units = |(s, e): Span| utf16_len(&text[s..e]) as u64;
    let mut picked: Vec<Span> = Vec::new();
    let mut used = 0u64;
    for &(line, _) in &candidates {
        if picked.len() == limit {
            break;
        }
        let cost = units(line) + MARKER_UNITS;
        if used + cost <= cap {
            picked.push(line);
            used += cost;
        }
    }
    let context = settings.context.min(CONTEXT_LINES.high) as usize;
    for span in picked.iter_mut() {
        // Context stays out of what the reference's head and tail show, which taking pieces only shrinks.
        let (low, high) = if hidden(*span) {
            (shown_head, shown_tail)
        } else {
            (start, end)
        };
        let wide = with_context(text, *span, context, low, high);
        let extra = units(wide) - units(*span);
        if used + extra <= cap {
            *span = wide;
            used += extra;
        }
    }
    let mut pieces = merge(text, picked);
    // Taking pieces shrinks the head and the tail; drop a piece they still reach, until none does.
    loop {
        let (head_end, tail_start) = regions(text, content - cost(text, &pieces), share);
        let before = pieces.len();
        pieces.retain(|&(s, e)| s >= head_end && e <= tail_start);
        if pieces.len() == before {
            return pieces;
        }
    }
}

/// `spans` sorted and joined where they overlap or where what lies between two is no longer than a marker.
fn merge(text: &str, mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_unstable();
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match out.last_mut() {
            Some(last) if s <= last.1 || utf16_len(&text[last.1..s]) as u64 <= MARKER_UNITS => {
                last.1 = last.1.max(e);
            }
            _ => out.push((s, e)),
        }
    }
    out
}

/// `line` with up to `context` whole lines before and after it that lie within `start..end`.
fn with_context(text: &str, line: Span, context: usize, start: usize, end: usize) -> Span {
    let (mut s, mut e) = line;
    for _ in 0..context {
        // The line before: from after the line break before `s - 1` to before that break.
        if s == 0 || s - 1 <= start {
            break;
        }
        let prev = text[..s - 1].rfind('\n').map_or(0, |p| p + 1);
        if prev < start {
            break;
        }
        s = prev;
    }
    for _ in 0..context {
        // The line after: from after the break at `e` to the next break (a `\r` before it left out).
        let Some(next) = text[e..].find('\n').map(|p| e + p + 1) else {
            break;
        };
        let stop = line_end(text, next);
        if stop > end || next >= end {
            break;
        }
        e = stop;
    }
    (s, e)
}

/// The end of the line starting at `from`: the next `\n` (or the end), less a `\r` before it.
fn line_end(text: &str, from: usize) -> usize {
    let nl = text[from..].find('\n').map_or(text.len(), |p| from + p);
    if nl > from && text.as_bytes()[nl - 1] == b'\r' {
        nl - 1
    } else {
        nl
    }
}

/// The top-level keys of the JSON object `text` opens that lie within `start..end`, in order, at most `limit`:
/// each the quoted key, or from the key to the end of its line when the key starts its line and that is at most
/// [`MAX_KEY_LINE_BYTES`] long. A key is a top-level string in a key's place (after the `{` or a `,`); a text that
/// is not valid JSON is read as far as the scan goes.
fn json_keys(text: &str, start: usize, end: usize, limit: usize) -> Vec<Span> {
    top_level_strings(text, end)
        .filter(|s| s.in_key_place && s.open >= start)
        .take(limit)
        .map(|s| key_span(text, s.open, s.close + 1, end))
        .collect()
}

/// The piece kept for a key quoted at `start..key_end`: to the end of its line when the key starts its line and
/// the line is short and ends before `end`, else the key alone.
fn key_span(text: &str, start: usize, key_end: usize, end: usize) -> Span {
    let starts_line = text[..start]
        .bytes()
        .rev()
        .find(|&c| c != b' ' && c != b'\t')
        .is_none_or(|c| c == b'\n');
    if starts_line {
        let stop = line_end(text, key_end);
        if stop <= end && stop - start <= MAX_KEY_LINE_BYTES {
            return (start, stop);
        }
    }
    (start, key_end)
}

/// The patterns of picked lines: case-sensitive literals (so that a search skips to candidates quickly), each
/// ending at an ASCII word boundary. None needs a boundary before it: a colour code (`\x1b[31merror`) ends in a
/// letter. Pattern `i` is in class [`CLASS_OF`]`[i]`; a line with matches of several patterns is in
/// the first class of them.
const PATTERNS: [&str; 5] = [
    // Errors.
    concat!(
        r"(?-u:(?:error|ERROR|fatal|Fatal|FATAL|panic|panicked|PANIC|Traceback|FAIL|FAILED|Failed|failed",
        r"|exception|aborted|Aborted|Error|Exception)\b|Segmentation fault|command not found",
        r"|No such file or directory|Permission denied|npm ERR!|undefined reference|cannot find)",
    ),
    // Exit status.
    r"(?-u:(?:Exit Code|Exit code|exit code|EXIT CODE|Exit status|exit status|exited with|returncode|return code)\b)",
    // Summaries: a count of something (only after a number, see [`COUNTING`]).
    concat!(
        r"(?-u:(?:passed|errors|tests|files changed|file changed|insertions",
        r"|deletions|matches|packages|skipped|more lines|total)\b)",
    ),
    // Summaries by their words.
    r"(?-u:(?:test result|Finished|Built target|BUILD SUCCESSFUL|BUILD FAILED|Done in|No matches|Ran)\b)",
    // Warnings.
    r"(?-u:(?:warnings|warning|Warning|WARNING|deprecated)\b)",
];

/// The class of each pattern: 0 errors, 1 exit status, 2 summaries, 3 warnings.
const CLASS_OF: [usize; 5] = [0, 1, 2, 2, 3];

/// The pattern whose matches count only right after a number and a space (`3 passed`, `12 files changed`).
const COUNTING: usize = 2;

/// The compiled patterns.
fn patterns() -> &'static Regex {
    static PATTERNS_RE: OnceLock<Regex> = OnceLock::new();
    PATTERNS_RE.get_or_init(|| Regex::new_many(&PATTERNS).expect("the patterns compile"))
}

/// The class of the line `text[start..end]`, or `None` when none of its matches counts.
fn class_of(re: &Regex, text: &str, start: usize, end: usize) -> Option<usize> {
    re.find_iter(Input::new(text).span(start..end))
        .map(|m| (m.pattern().as_usize(), m.start()))
        .filter(|&(_, at)| starts_word(text, start, at))
        .filter(|&(p, at)| p != COUNTING || after_a_number(&text.as_bytes()[start..at]))
        .map(|(p, _)| CLASS_OF[p])
        .min()
}

/// Whether a match starting at byte `at` of `text` starts a word: at the start of its line, after a byte that is
/// neither a letter, a digit nor `_`, or right after a colour code (`\x1b[1;31m`). `Error` and `Exception` may
/// end a word (`ValueError`).
fn starts_word(text: &str, line_start: usize, at: usize) -> bool {
    let b = text.as_bytes();
    if at == line_start || b[at..].starts_with(b"Error") || b[at..].starts_with(b"Exception") {
        return true;
    }
    let prev = b[at - 1];
    if !(prev.is_ascii_alphanumeric() || prev == b'_') {
        return true;
    }
    // `ESC [`, digits and semicolons, `m`, just before.
    if prev != b'm' {
        return false;
    }
    let params = b[line_start..at - 1]
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_digit() || **c == b';')
        .count();
    let open = at - 1 - params;
    open >= line_start + 2 && b[open - 1] == b'[' && b[open - 2] == 0x1b
}

/// Whether `before` ends with a digit and one space.
fn after_a_number(before: &[u8]) -> bool {
    matches!(before, [.., d, b' '] if d.is_ascii_digit())
}

/// The candidate lines of `text` within `start..end`, in the order the module documentation gives, at most
/// `limit` of each class, each with whether it is a warning.
fn salient_lines(text: &str, start: usize, end: usize, limit: usize) -> Vec<(Span, bool)> {
    let re = patterns();
    // Errors and warnings: the first `limit`; exit and summary lines: the last `limit`.
    let mut found: [Vec<Span>; 4] = Default::default();
    let mut at = start;
    while at < end {
        let Some(m) = re.search(&Input::new(text).span(at..end)) else {
            break;
        };
        let line_start = text[..m.start()].rfind('\n').map_or(0, |p| p + 1);
        let stop = line_end(text, m.end());
        let next = text[stop..].find('\n').map_or(text.len(), |p| stop + p + 1);
        at = next;
        if line_start < start || stop > end || stop - line_start > MAX_LINE_BYTES {
            continue;
        }
        let line = (line_start, stop);
        let Some(class) = class_of(re, text, line_start, stop) else {
            continue;
        };
        let list = &mut found[class];
        if list
            .iter()
            .any(|&(s, e)| text[s..e] == text[line_start..stop])
        {
            continue;
        }
        let keeps_last = class == 1 || class == 2;
        if list.len() == limit {
            if !keeps_last {
                continue;
            }
            list.remove(0);
        }
        list.push(line);
    }
    let [errors, exits, summaries, warnings] = found;
    let mut order =
        Vec::with_capacity(errors.len() + exits.len() + summaries.len() + warnings.len());
    order.extend(errors.into_iter().map(|l| (l, false)));
    order.extend(exits.last().map(|&l| (l, false)));
    order.extend(summaries.iter().rev().map(|&l| (l, false)));
    order.extend(exits.iter().rev().skip(1).map(|&l| (l, false)));
    order.extend(warnings.into_iter().map(|l| (l, true)));
    order
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::budget::{Budget, BudgetContext, PlanReminders};
    use crate::finalize::fit::header;
    use crate::finalize::slots::budgeted_total;
    use crate::finalize::testing::{output_entry, output_of, run};
    use crate::finalize::{Finalizer, Reference};
    use crate::model::{Entry, Part};
    use crate::persist::MemoryStore;

    /// Three hundred numbered 30-unit progress lines with an error line after the 150th, then `Exit Code: 101`.
    fn log() -> String {
        let mut s = String::from("Command: cargo build\nOutput:\n");
        for i in 0..300 {
            s.push_str(&format!("   Compiling crate-{i:03} v0.1.0 .\n"));
            if i == 150 {
                s.push_str("error[E0308]: mismatched types\n");
            }
        }
        s.push_str("Exit Code: 101\n");
        s
    }

    const ERROR: &str = "error[E0308]: mismatched types";

    #[test]
    fn a_middle_error_line_survives_where_the_reference_drops_it() {
        let text = log();
        assert!(text.len() > 9_000);
        let batch = vec![output_entry("c", "shell", &text)];
        let (reference, _) = run(&Reference::default(), batch.clone(), 600, None);
        assert!(!output_of(&reference, 0).contains(ERROR));
        let (line_aware, _) = run(
            &crate::finalize::line_aware::LineAware::default(),
            batch.clone(),
            600,
            None,
        );
        assert!(!output_of(&line_aware, 0).contains(ERROR));
        let (salient, store) = run(&Salient::default(), batch, 600, None);
        let out = output_of(&salient, 0);
        assert!(utf16_len(out) <= 600);
        // The error with a line of context on each side, between the head and the tail, each piece followed by the
        // marker; the tail keeps the exit line.
        let piece =
            format!("   Compiling crate-150 v0.1.0 .\n{ERROR}\n   Compiling crate-151 v0.1.0 .");
        assert!(text.contains(&format!("\n{piece}\n")));
        let h = header(&text, &["/tmp/c.txt".into()]);
        assert!(
            out.starts_with(&format!("{h}\n\nCommand: cargo build\nOutput:\n")),
            "{out}"
        );
        assert!(out.contains(&format!("\n...\n{piece}\n...\n")), "{out}");
        assert!(out.ends_with("Exit Code: 101\n"));
        // Persisted once, the whole text.
        assert_eq!(salient.persisted.len(), 1);
        assert_eq!(store.artifacts().len(), 1);
    }

    #[test]
    fn without_context_the_line_alone_and_a_share_of_zero_is_line_aware() {
        let text = log();
        let h = header(&text, &[]);
        let half = HeadShare { num: 1, den: 2 };
        let alone = SalientConfig {
            context: 0,
            ..SalientConfig::default()
        };
        let out = fit_salient(&text, 500, &h, HeadShare::DEFAULT, &alone);
        assert!(out.contains(&format!("\n...\n{ERROR}\n...\n")), "{out}");
        assert!(!out.contains("crate-150"));
        assert!(utf16_len(&out) <= 500);
        let none = SalientConfig {
            share: HeadShare { num: 0, den: 1 },
            ..SalientConfig::default()
        };
        for a in [0, 50, 114, 115, 200, 500, 2_000] {
            for share in [HeadShare::DEFAULT, half] {
                assert_eq!(
                    fit_salient(&text, a, &h, share, &none),
                    fit_lines(&text, a, &h, share),
                    "allocation {a}"
                );
            }
        }
    }

    #[test]
    fn a_text_with_nothing_salient_is_cut_as_line_aware_cuts_it() {
        let text: String = (0..400).map(|i| format!("plain line {i:04}\n")).collect();
        let h = header(&text, &[]);
        for a in [120, 300, 900] {
            assert_eq!(
                fit_salient(&text, a, &h, HeadShare::DEFAULT, &SalientConfig::default()),
                fit_lines(&text, a, &h, HeadShare::DEFAULT)
            );
        }
    }

    #[test]
    fn the_lines_setting_caps_the_picked_lines_and_the_first_error_comes_first() {
        let mut text = String::new();
        for i in 0..200 {
            text.push_str(&format!("progress {i:03}\n"));
            if i % 20 == 10 {
                text.push_str(&format!("error: failure number {i:03}\n"));
            }
        }
        let one = SalientConfig {
            context: 0,
            lines: 1,
            ..SalientConfig::default()
        };
        // The pieces: what lies between the markers after the head and before the tail.
        let pieces = |settings: &SalientConfig| -> Vec<String> {
            let out = fit_salient(&text, 600, "H", HeadShare::DEFAULT, settings);
            let parts: Vec<&str> = out.split(MARKER).collect();
            parts[1..parts.len() - 1]
                .iter()
                .map(|p| p.to_string())
                .collect()
        };
        assert_eq!(pieces(&one), ["error: failure number 010"]);
        let many = SalientConfig { lines: 4, ..one };
        assert_eq!(
            pieces(&many),
            ["010", "030", "050", "070"].map(|n| format!("error: failure number {n}"))
        );
    }

    #[test]
    fn every_line_comes_alone_before_any_context_and_errors_before_summaries_and_warnings() {
        let mut text = String::new();
        for i in 0..100 {
            text.push_str(&format!("step {i:03}\n"));
            match i {
                20 => text.push_str("warning: unused import\n"),
                30 => text.push_str("running 21 tests\n"),
                60 => text.push_str("thread 'main' panicked at src/lib.rs:3:5\n"),
                _ => {}
            }
        }
        // Content 200 - 1 - 7 = 192 and a share of 15/32, 90 units: the panic (41 + 5) and the count (16 + 5)
        // alone (67), not the warning (22 + 5) after them; then the panic's context (2 x 9 units), not the count's.
        let settings = SalientConfig {
            share: HeadShare::new(15, 32).unwrap(),
            ..SalientConfig::default()
        };
        let out = fit_salient(&text, 200, "H", HeadShare::DEFAULT, &settings);
        let parts: Vec<&str> = out.split(MARKER).collect();
        assert_eq!(
            parts[1..parts.len() - 1],
            [
                "running 21 tests",
                "step 060\nthread 'main' panicked at src/lib.rs:3:5\nstep 061"
            ],
            "{out}"
        );
    }

    #[test]
    fn lines_are_classed_from_the_text_alone() {
        let re = patterns();
        let class = |line: &str| class_of(re, line, 0, line.len());
        assert_eq!(class("error[E0308]: mismatched types"), Some(0));
        assert_eq!(class("\x1b[1;31merror\x1b[0m: could not compile"), Some(0));
        assert_eq!(
            class("E       ValueError: amount must be positive"),
            Some(0)
        );
        assert_eq!(class("npm ERR! code ERESOLVE"), Some(0));
        assert_eq!(class("Exit Code: 101"), Some(1));
        assert_eq!(class("<returncode>2</returncode>"), Some(1));
        assert_eq!(class("=== 3 failed, 41 passed in 2.10s ==="), Some(0));
        assert_eq!(class(" 11 files changed, 98 insertions(+)"), Some(2));
        assert_eq!(class("129 matches in 37 files"), Some(2));
        assert_eq!(class("    Finished `dev` profile in 2.3s"), Some(2));
        assert_eq!(class("warning: unused variable"), Some(3));
        // Inside a word, or a count word without a count: nothing.
        assert_eq!(class("   Compiling thiserror v1.0"), None);
        assert_eq!(class("all tests passed"), None);
        assert_eq!(class("a subtotal of 3"), None);
        assert_eq!(class("plain text"), None);
    }

    #[test]
    fn json_keys_in_the_middle_are_kept() {
        let filler = |tag: &str| -> String { (0..60).map(|i| format!("{tag}{i:03} ")).collect() };
        let text = format!(
            r#"{{"first": "{}", "middle_key": {{"inner": "{}"}}, "last": "{}"}}"#,
            filler("a"),
            filler("b"),
            filler("c")
        );
        let out = fit_salient(
            &text,
            300,
            "H",
            HeadShare::DEFAULT,
            &SalientConfig::default(),
        );
        assert!(out.contains("\n...\n\"middle_key\"\n...\n"), "{out}");
        assert!(!out.contains("\"inner\""), "{out}");
        assert!(utf16_len(&out) <= 300);
        // Pretty-printed: the key's short line.
        let pretty = format!(
            "{{\n  \"first\": \"{}\",\n  \"count\": 7,\n  \"rest\": \"{}\"\n}}",
            filler("a"),
            filler("c")
        );
        let out = fit_salient(
            &pretty,
            300,
            "H",
            HeadShare::DEFAULT,
            &SalientConfig::default(),
        );
        // The long line of `first` gives its key alone; `count`'s short line and the key after it are closer than a
        // marker, so one piece.
        assert!(
            out.contains("\n...\n\"first\"\n...\n\"count\": 7,\n  \"rest\"\n...\n"),
            "{out}"
        );
    }

    #[test]
    fn crlf_lines_are_picked_without_their_carriage_return() {
        let mut text = String::new();
        for i in 0..100 {
            text.push_str(&format!("step {i:03} done\r\n"));
            if i == 50 {
                text.push_str("fatal: not a git repository\r\n");
            }
        }
        let alone = SalientConfig {
            context: 0,
            ..SalientConfig::default()
        };
        let out = fit_salient(&text, 300, "H", HeadShare::DEFAULT, &alone);
        assert!(
            out.contains("\n...\nfatal: not a git repository\n...\n"),
            "{out:?}"
        );
        assert!(utf16_len(&out) <= 300);
    }

    const PIECES: &[&str] = &[
        "a",
        "line\n",
        "\r\n",
        "é",
        "中",
        "😀",
        "error: bad\n",
        "Exit Code: 1\n",
        " 3 passed\n",
        "{\"k\": 1,",
        "\"",
        "warning: x\r\n",
    ];

    fn text() -> impl Strategy<Value = String> {
        (
            proptest::collection::vec(0..PIECES.len(), 0..40),
            1usize..60,
        )
            .prop_map(|(idx, rep)| idx.iter().map(|&i| PIECES[i].repeat(rep)).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// A preview never exceeds its allocation (and never cuts a character: a cut inside one would panic).
        #[test]
        fn a_preview_fills_its_allocation_and_never_exceeds_it(
            text in text(),
            allocation in 0u64..3_000,
            share in 0u64..=4,
            context in 0u64..3,
            lines in 1u64..6,
        ) {
            let settings = SalientConfig { share: HeadShare::new(share, 4).unwrap(), context, lines };
            let len = utf16_len(&text) as u64;
            prop_assume!(len > allocation);
            let out = fit_salient(&text, allocation, "HDR 😀", HeadShare::DEFAULT, &settings);
            let units = utf16_len(&out) as u64;
            prop_assert!(units <= allocation, "{} of {}", units, allocation);
        }

        /// On batches of such texts the total fits the budget, and each entry is persisted at most once.
        #[test]
        fn a_batch_fits_its_budget(
            texts in proptest::collection::vec(text(), 1..6),
            budget in 1u64..6_000,
        ) {
            let batch: Vec<Entry> = texts
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let id = format!("c{i}");
                    Entry::new(&id, "shell", vec![Part::function_response(&id, "shell", Some(json!(t)), None)])
                })
                .collect();
            let mut store = MemoryStore::new("/tmp");
            let ctx = BudgetContext::new(Budget::Units(budget as i64));
            let out = Salient::default().finalize(batch, &ctx, &mut store);
            let total = budgeted_total(&out.batch, &PlanReminders::default(), SlotScope::ALL);
            prop_assert!(total <= budget, "{} over {}", total, budget);
            let mut entries: Vec<usize> = out.persisted.iter().map(|p| p.entry).collect();
            entries.sort_unstable();
            entries.dedup();
            prop_assert_eq!(entries.len(), out.persisted.len());
        }
    }
}
