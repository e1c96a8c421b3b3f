//! Needles found in any text: the exit information, the first error line, the summary lines and the top-level
//! keys of a JSON result, read from the text itself rather than planted by the generator, so that recorded
//! batches (imported from real sessions) get needle survival and its upper bound like generated ones.
//!
//! [`detect`] looks at one text. A text whose first non-blank character opens a JSON object gives its top-level
//! keys (quoted, as they appear; at most [`MAX_JSON_KEYS`]) and nothing else. Any other text is read line by
//! line (a line ends at `\n`; a `\r` before it is not part of the line; ANSI escape sequences are looked
//! through; a line longer than [`MAX_NEEDLE_LINE_BYTES`] is never a needle), and each line is at most one
//! needle, always the whole line:
//!
//! - **exit information** (`exit.rs`): a line that is only an exit status in one of the styles
//!   harnesses write (`Exit Code: 1`, `Exit code: 0`, `Exit code 1`, `<returncode>0</returncode>`,
//!   `[Command finished with exit code 2]`, `Process exited with code 1`, `exit status 2`, ...);
//!   [`exit_style`] names the style;
//! - **summary lines** (`summary.rs`), wherever they sit: test-runner totals (two or more counts
//!   of passed, failed, tests, files changed, insertions, packages, matches ...; or one such count with a
//!   duration or a `===` banner; `Tests run: 5, Failures: 1`; Go's `ok`/`FAIL` package lines), search headers
//!   and footers (`Found 3 matches`, `No matches found`, `12 matches in 4 files`, `End of matches for`), `wc`'s
//!   `total`, and build results (`Finished ... in 2.3s`, `Built target`, `BUILD SUCCESSFUL`, `Done in 4.1s`,
//!   `could not compile`, `make: *** ... Error 2`, npm's closing log line, ...);
//! - **the first error line** (`error.rs`; only the first of a text): compiler and tool errors
//!   (`error[E0308]: ...`, `error: ...`, `src/a.c:3:5: error: ...`, `error TS2345: ...`), exceptions
//!   (`ValueError: ...`, `E   KeyError: ...`, `Exception in thread ...`), panics (`panicked at`, `panic: `),
//!   failed tests (`FAIL `, `--- FAIL: `, `FAILED path::test`), `npm ERR!` and `npm error`, `fatal: `, log
//!   lines at level ERROR or FATAL, and the shell's complaints (`sh: 1: x: not found`, `No such file or
//!   directory`, `Permission denied`, `command not found`). A summary or exit line is never taken for an error.
//!
//! [`detect_field`] adds one rule for the `error` field of a failed call: when no line above is an error, its
//! first non-blank line is the first error. [`detect_batch`] runs it on every text field of a batch and
//! returns located [`Needle`]s, the form the survival metrics and the upper bound take.
//!
//! On generated batches this finds every needle the generator planted (the detected line starts where the
//! planted needle starts and holds it; `tests/needles.rs` checks every shipped scenario), and more: the
//! `Finished` line of a test build, the first line of a cancelled call's error, every failing `make` level and
//! the top-level keys of JSON files the generator does not plant; that test prints how many. The cost is one
//! pass over the text's bytes and a few comparisons per line that could be a needle.

mod agreement;
mod error;
mod exit;
mod json;
mod needle;
mod summary;
mod used;
mod used_file;

use serde::Serialize;

use crate::model::{Batch, Field};
use crate::text::utf16_len;

pub use agreement::{agreement, tool_group, Agreement, AgreementCounts, MALFORMED_TOOL};
pub use needle::{Needle, NeedleKind};
pub use used::{
    position_numbers, used_content, RuleParts, UsedLine, UsedResult, UsedRules, UsedToken,
    Utterance, DEFAULT_MIN_TOKEN_LEN, DEFAULT_USED_TURNS, LANGUAGE_KEYWORDS, MAX_QUOTED_BYTES,
    MAX_USED_TURNS, MIN_POSITION_DIGITS, MIN_TOKEN_LEN_RANGE, SHELL_WORDS, STOP_WORDS,
};
pub use used_file::{
    read_used_file, used_path_for, UsedBatch, UsedHeader, UsedNeedles, UsedRead, UsedSpan,
    UsedTokenSpan, USED_FILE_VERSION,
};

/// Lines longer than this (in bytes, ANSI sequences included) are never needles: needles are short lines, and
/// a long line is minified code, data or prose.
pub const MAX_NEEDLE_LINE_BYTES: usize = 1_000;

/// At most this many top-level keys of one JSON object are needles: an object with more is a map of data (a
/// locale file, a lookup table) rather than a result's fields, and its first keys stand for the rest.
pub const MAX_JSON_KEYS: usize = 32;

/// One needle found in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DetectedNeedle {
    /// What it is.
    pub kind: NeedleKind,
    /// UTF-16 offset of its first unit in the text.
    pub offset: usize,
    /// Its length in UTF-16 units.
    pub len: usize,
}

/// The needles of `text`, in offset order (see the module documentation).
pub fn detect(text: &str) -> Vec<DetectedNeedle> {
    let mut out = Vec::new();
    if json::json_keys(text, &mut out) {
        return out;
    }
    lines(text, &mut out);
    out
}

/// The needles of `text` found at `field` of a part: [`detect`], and for an `error` field without an error
/// line, its first non-blank line as the first error.
pub fn detect_field(field: Field, text: &str) -> Vec<DetectedNeedle> {
    let mut out = detect(text);
    if field == Field::Error && !out.iter().any(|n| n.kind == NeedleKind::FirstError) {
        if let Some(first) = first_nonblank_line(text) {
            let at = out.partition_point(|n| n.offset < first.offset);
            if out.get(at).is_none_or(|n| n.offset != first.offset) {
                out.insert(at, first);
            }
        }
    }
    out
}

/// The needles of every text field of `batch` (top-level text parts, string outputs and errors), located by
/// entry, part and field, in the order the generator lists its planted needles.
pub fn detect_batch(batch: &Batch) -> Vec<Needle> {
    let mut out = Vec::new();
    for (e, entry) in batch.iter().enumerate() {
        for (p, part) in entry.response_parts.iter().enumerate() {
            // Field::ALL is in Field order (text, output, error), the order of the generator's needles.
            for field in Field::ALL {
                let Some(text) = part.field(field) else {
                    continue;
                };
                for n in detect_field(field, text) {
                    out.push(Needle {
                        kind: n.kind,
                        text: slice_units(text, n.offset, n.len).to_string(),
                        entry: e,
                        part: p,
                        field,
                        offset: n.offset,
                    });
                }
            }
        }
    }
    out
}

/// The style of an exit-information line (as [`detect`] finds them; ANSI sequences and surrounding blanks are
/// looked through): the line up to its status, `N`, and the closing of its wrapper, so `Exit Code: 137
/// (SIGKILL)` is `Exit Code: N` and `[Command finished with exit code 2]` is
/// `[Command finished with exit code N]`. `None` for any other line.
pub fn exit_style(line: &str) -> Option<String> {
    let mut plain = String::new();
    let seen = if line.as_bytes().contains(&0x1b) {
        strip_ansi(line, &mut plain);
        &plain
    } else {
        line
    };
    exit::style(seen.trim())
}

/// The part of `text` from UTF-16 offset `offset`, `len` units long (whole characters).
pub fn slice_units(text: &str, offset: usize, len: usize) -> &str {
    let start = crate::text::head(text, offset).len();
    let rest = &text[start..];
    &rest[..crate::text::head(rest, len).len()]
}

fn first_nonblank_line(text: &str) -> Option<DetectedNeedle> {
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line = trim_line_end(raw);
        if !line.trim().is_empty() {
            if line.len() > MAX_NEEDLE_LINE_BYTES {
                return None;
            }
            return Some(DetectedNeedle {
                kind: NeedleKind::FirstError,
                offset,
                len: utf16_len(line),
            });
        }
        offset += utf16_len(raw);
    }
    None
}

fn trim_line_end(raw: &str) -> &str {
    let line = raw.strip_suffix('\n').unwrap_or(raw);
    line.strip_suffix('\r').unwrap_or(line)
}

/// Scans `text` line by line, pushing each needle line.
fn lines(text: &str, out: &mut Vec<DetectedNeedle>) {
    let mut offset = 0usize;
    let mut error_found = false;
    let mut plain = String::new();
    for raw in text.split_inclusive('\n') {
        let units = utf16_len(raw);
        let line = trim_line_end(raw);
        if !line.is_empty() && line.len() <= MAX_NEEDLE_LINE_BYTES {
            let seen: &str = if line.as_bytes().contains(&0x1b) {
                strip_ansi(line, &mut plain);
                &plain
            } else {
                line
            };
            if let Some(kind) = classify(seen, !error_found) {
                error_found |= kind == NeedleKind::FirstError;
                let len = if line.len() == raw.len() {
                    units
                } else {
                    utf16_len(line)
                };
                out.push(DetectedNeedle { kind, offset, len });
            }
        }
        offset += units;
    }
}

/// `line` without its ANSI escape sequences (CSI sequences `ESC [ ... final`, and `ESC` with one more
/// character), into `out`.
fn strip_ansi(line: &str, out: &mut String) {
    out.clear();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        // A CSI sequence runs to its final byte; any other escape is ESC and one character.
        if chars.next() == Some('[') {
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
    }
}

/// What one line (ANSI already removed, line end removed) is, if it is a needle. `want_error`: whether an
/// error line still counts (only the first does).
fn classify(line: &str, want_error: bool) -> Option<NeedleKind> {
    let s = line.trim();
    if s.is_empty() {
        return None;
    }
    if exit::is_exit_info(s) {
        return Some(NeedleKind::ExitInfo);
    }
    if summary::is_summary(s) {
        return Some(NeedleKind::SummaryLine);
    }
    if want_error && error::is_error(line) {
        return Some(NeedleKind::FirstError);
    }
    None
}

/// `s` without the ASCII prefix `prefix`, compared without regard to ASCII case.
pub(super) fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.as_bytes().get(..prefix.len())?;
    if head.eq_ignore_ascii_case(prefix.as_bytes()) {
        Some(&s[prefix.len()..])
    } else {
        None
    }
}

/// The length in bytes of the integer (optionally signed) at the start of `s`, if there is one.
pub(super) fn integer_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let sign = usize::from(b.first() == Some(&b'-'));
    let digits = b[sign..].iter().take_while(|c| c.is_ascii_digit()).count();
    (digits > 0).then_some(sign + digits)
}

#[cfg(test)]
pub(crate) mod tests;
