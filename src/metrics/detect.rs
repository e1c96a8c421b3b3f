//! Needles found in any text: the exit information, the first error line, the summary lines and the top-level
//! keys of a JSON result, read from the text itself rather than planted by the generator, so that recorded
//! batches (imported from real sessions) get needle survival and its upper bound like generated ones.
//!
//! [`detect`] looks at one text. A text whose first non-blank character opens a JSON object gives its top-level
//! keys (quoted, as they appear) and nothing else. Any other text is read line by line (a line ends at `\n`; a
//! `\r` before it is not part of the line; ANSI colour sequences are looked through), and each line is at most
//! one needle, always the whole line:
//!
//! - **exit information**: a line that is only an exit status in one of the styles harnesses write
//!   (`Exit Code: 1`, `Exit code: 0`, `Exit code 1`, `<returncode>0</returncode>`,
//!   `[Command finished with exit code 2]`, `Process exited with code 1`, `exit status 2`, ...);
//! - **summary lines**, wherever they sit: test-runner totals (two or more counts of passed, failed, tests,
//!   files changed, insertions, packages, matches ...; or one such count with a duration or a `===` banner),
//!   search headers and footers (`Found 3 matches`, `No matches found`, `12 matches in 4 files`), `wc`'s
//!   `total`, and build results (`Finished ... in 2.3s`, `Built target`, `BUILD SUCCESSFUL`, `Done in 4.1s`,
//!   `could not compile`, `make: *** ... Error 2`, npm's closing log line, ...);
//! - **the first error line** (only the first of a text): compiler and tool errors (`error[E0308]: ...`,
//!   `error: ...`, `src/a.c:3:5: error: ...`), exceptions (`ValueError: ...`, `E   KeyError: ...`,
//!   `Exception in thread ...`), panics (`panicked at`, `panic: `), `npm ERR!` and `npm error`, `fatal: `,
//!   log lines at level ERROR or FATAL, failed tests (`FAIL `), and the shell's `No such file or directory`,
//!   `Permission denied` and `command not found`. A summary or exit line is never taken for an error.
//!
//! [`detect_field`] adds one rule for the `error` field of a failed call: when no line above is an error, its
//! first non-blank line is the first error. [`detect_batch`] runs it on every text field of a batch and
//! returns located [`Needle`]s, the form the survival metrics and the upper bound take.
//!
//! On generated batches this finds every needle the generator planted (the detected line starts where the
//! planted needle starts and holds it; `tests/needles.rs` checks every shipped scenario), and more: the
//! `Finished` line of a test build, later `error:` lines are not counted, but every summary-like line is.
//! The cost is one pass over the text's bytes and a few comparisons per line that could be a needle.

use serde::Serialize;

use crate::generate::{Needle, NeedleKind};
use crate::model::{Batch, Field};
use crate::text::utf16_len;

/// Lines longer than this (in bytes, ANSI sequences included) are never needles: needles are short lines, and
/// a long line is minified code, data or prose.
pub const MAX_NEEDLE_LINE_BYTES: usize = 1_000;

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
    if json_keys(text, &mut out) {
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
        match chars.next() {
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(_) | None => {}
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
    if is_exit_info(s) {
        return Some(NeedleKind::ExitInfo);
    }
    if is_summary(s) {
        return Some(NeedleKind::SummaryLine);
    }
    if want_error && is_error(line) {
        return Some(NeedleKind::FirstError);
    }
    None
}

/// `s` without the ASCII prefix `prefix`, compared without regard to ASCII case.
fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.as_bytes().get(..prefix.len())?;
    if head.eq_ignore_ascii_case(prefix.as_bytes()) {
        Some(&s[prefix.len()..])
    } else {
        None
    }
}

/// The length in bytes of the integer (optionally signed) at the start of `s`, if there is one.
fn integer_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let sign = usize::from(b.first() == Some(&b'-'));
    let digits = b[sign..].iter().take_while(|c| c.is_ascii_digit()).count();
    (digits > 0).then_some(sign + digits)
}

/// The phrases an exit status follows, lowercase.
const EXIT_PHRASES: &[&str] = &[
    "command finished with exit code",
    "command exited with code",
    "process finished with exit code",
    "process exited with code",
    "exited with code",
    "exit code",
    "exit status",
    "return code",
    "returncode",
];

fn is_exit_info(s: &str) -> bool {
    if s.len() > 80 {
        return false;
    }
    if let Some(rest) = s.strip_prefix("<returncode>") {
        return integer_len(rest).is_some_and(|n| rest[n..] == *"</returncode>");
    }
    let inner = match (s.strip_prefix('['), s.strip_suffix(']')) {
        (Some(_), Some(_)) => &s[1..s.len() - 1],
        _ => s,
    };
    for phrase in EXIT_PHRASES {
        let Some(rest) = strip_prefix_ci(inner, phrase) else {
            continue;
        };
        let rest = rest.trim_start_matches([':', '=', ' ']);
        let Some(n) = integer_len(rest) else {
            return false;
        };
        let after = &rest[n..];
        return after.len() <= 40
            && after
                .chars()
                .next()
                .is_none_or(|c| matches!(c, ' ' | '.' | ',' | ')' | ';'));
    }
    false
}

/// Words a count in a summary line is of.
const TALLY_WORDS: &[&str] = &[
    "passed",
    "failed",
    "failing",
    "passing",
    "skipped",
    "pending",
    "ignored",
    "measured",
    "filtered",
    "xfailed",
    "xpassed",
    "deselected",
    "error",
    "errors",
    "warning",
    "warnings",
    "test",
    "tests",
    "suite",
    "suites",
    "snapshot",
    "snapshots",
    "file",
    "files",
    "insertion",
    "insertions",
    "deletion",
    "deletions",
    "package",
    "packages",
    "match",
    "matches",
    "result",
    "results",
    "line",
    "lines",
    "message",
    "messages",
    "reaction",
    "reactions",
    "total",
    "succeeded",
    "assertions",
    "examples",
    "failures",
    "vulnerabilities",
];

/// Words of test outcomes: one count of these with a duration or a banner is a summary.
const OUTCOME_WORDS: &[&str] = &[
    "passed", "failed", "errors", "error", "skipped", "tests", "test", "xfailed", "xpassed",
];

/// The counts of `s`: each number (digits, with `,` or `.` between digits) followed by a space and a word, as
/// (the word, whether a `,` or `;` came between the previous count and this one).
fn tallies(s: &str) -> Vec<(&str, bool)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut separated = false;
    while i < b.len() {
        let c = b[i];
        if c == b',' || c == b';' {
            separated = true;
            i += 1;
            continue;
        }
        let starts_number = c.is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !starts_number {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len()
            && (b[j].is_ascii_digit()
                || (matches!(b[j], b',' | b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit)))
        {
            j += 1;
        }
        if b.get(j) == Some(&b' ') {
            let w = j + 1;
            let mut k = w;
            while k < b.len() && b[k].is_ascii_alphabetic() {
                k += 1;
            }
            if k > w {
                out.push((&s[w..k], separated || out.is_empty()));
                separated = false;
            }
            i = k;
        } else {
            i = j;
        }
    }
    out
}

/// Whether `s` (trimmed) ends with a duration: `in 2.10s`, `in 1m 5s`, `in 300ms`, `(0.4s)`.
fn has_duration(s: &str) -> bool {
    let s = s.trim_end_matches(|c: char| c == '=' || c == ' ' || c == '.' || c == ')');
    let s = s
        .strip_suffix("ms")
        .or_else(|| s.strip_suffix('s'))
        .unwrap_or("");
    let digits = s.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    digits.len() < s.len()
        && (digits.ends_with(" in ")
            || digits.ends_with('(')
            || digits.ends_with("m ")
            || digits.ends_with(" in"))
}

/// Prefixes (after trimming) of build and tool result lines.
const SUMMARY_PREFIXES: &[&str] = &[
    "[100%] Built target",
    "Built target ",
    "BUILD SUCCESSFUL",
    "BUILD FAILED",
    "BUILD SUCCESS",
    "BUILD FAILURE",
    "[INFO] BUILD SUCCESS",
    "[INFO] BUILD FAILURE",
    "Build succeeded",
    "Build FAILED",
    "Build failed",
    "Compiled successfully",
    "Successfully installed ",
    "error: could not compile",
    "up to date, audited",
    "No matches found",
    "No results found",
    "No files found",
];

fn is_summary(s: &str) -> bool {
    if s.len() > 300 {
        return false;
    }
    // Build results and search headers by their words.
    let core = s.trim_start_matches(|c: char| !c.is_ascii_alphanumeric() && c != '[');
    if SUMMARY_PREFIXES.iter().any(|p| core.starts_with(p)) {
        return true;
    }
    if (core.starts_with("Finished ") || core.starts_with("Done in ")) && has_duration(core) {
        return true;
    }
    if s.contains("A complete log of this run can be found in") {
        return true;
    }
    if let Some(rest) = s.strip_prefix("Found ") {
        if let Some(n) = integer_len(rest) {
            let word: String = rest[n..]
                .trim_start()
                .chars()
                .take_while(char::is_ascii_alphabetic)
                .collect();
            return matches!(
                word.as_str(),
                "match"
                    | "matches"
                    | "result"
                    | "results"
                    | "file"
                    | "files"
                    | "occurrence"
                    | "occurrences"
                    | "line"
                    | "lines"
            );
        }
    }
    if is_make_failure(s) {
        return true;
    }
    // `wc -l`'s last line.
    if let Some(n) = integer_len(s) {
        if s[n..] == *" total" {
            return true;
        }
    }
    // `Ran 12 tests in 0.3s`, `OK`, `FAILED (failures=1)`.
    if (s.starts_with("Ran ") && s.contains(" test") && has_duration(s))
        || s.starts_with("FAILED (")
        || s.starts_with("OK (")
    {
        return true;
    }
    let counts = tallies(s);
    let known: Vec<&(&str, bool)> = counts
        .iter()
        .filter(|(w, _)| TALLY_WORDS.contains(w))
        .collect();
    if known.len() >= 2 && known.iter().skip(1).any(|(_, sep)| *sep) {
        return true;
    }
    // `12 matches in 4 files`, `1 match in 1 file`.
    if let [(first, _), (second, _), ..] = counts.as_slice() {
        if matches!(*first, "match" | "matches") && matches!(*second, "file" | "files") {
            return true;
        }
    }
    known.iter().any(|(w, _)| OUTCOME_WORDS.contains(w))
        && (has_duration(s) || s.starts_with("==") || s.starts_with("--"))
}

/// `make: *** [target] Error 2`, `make[1]: *** ...`, `gmake: *** ...`.
fn is_make_failure(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("make").or_else(|| s.strip_prefix("gmake")) else {
        return false;
    };
    let rest = match rest.strip_prefix('[') {
        Some(r) => r.split_once(']').map_or("", |(_, after)| after),
        None => rest,
    };
    rest.starts_with(": *** ")
        && rest
            .rsplit_once(" Error ")
            .is_some_and(|(_, n)| integer_len(n) == Some(n.len()))
}

/// Whether `line` (untrimmed at its start: most error lines begin in the first column) is an error line.
fn is_error(line: &str) -> bool {
    let s = line.trim_end();
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if first == b' ' || first == b'\t' {
        // Indented lines are code, stack frames or context, but for a few messages that are errors anywhere.
        let t = s.trim_start();
        return t.starts_with("panicked at ") || t.contains("' panicked at ");
    }
    // error[E0308]: ..., error: ..., Error: ..., ERROR: ..., ERROR ...
    for word in ["error", "Error", "ERROR"] {
        if let Some(rest) = s.strip_prefix(word) {
            let next = rest.bytes().next();
            let ok = match word {
                "error" => matches!(next, Some(b':' | b'[')),
                "Error" => matches!(next, None | Some(b':' | b'[' | b'!')),
                _ => matches!(next, None | Some(b':' | b'[' | b' ' | b']' | b'!')),
            };
            if ok {
                return true;
            }
        }
    }
    if s.starts_with("npm ERR!")
        || s.starts_with("npm error")
        || s.starts_with("fatal: ")
        || s.starts_with("Fatal error")
        || s.starts_with("FATAL")
        || s.starts_with("panic: ")
        || s.starts_with("Exception in thread ")
        || s.starts_with("Uncaught ")
        || s.starts_with("FAIL ")
        || s.starts_with("[ERROR]")
        || s.starts_with("[FATAL]")
        || s.starts_with("Segmentation fault")
        || s.contains("' panicked at ")
        || s.starts_with("panicked at ")
    {
        return true;
    }
    // `src/a.c:3:5: error: ...`, `x.py:3: error: ...`.
    if !s.starts_with('/') || s.contains(": ") {
        for marker in [": error:", ": error[", ": fatal error:", ": Error:"] {
            if s.contains(marker) {
                return true;
            }
        }
    }
    // The shell's own complaints.
    if [
        ": No such file or directory",
        ": Permission denied",
        ": command not found",
    ]
    .iter()
    .any(|tail| s.ends_with(tail) && s.len() > tail.len())
    {
        return true;
    }
    // Log lines at level ERROR or FATAL: a timestamp or bracket first, the level as a word early on.
    if first.is_ascii_digit() || first == b'[' {
        let head = &s[..floor_char_boundary(s, 48)];
        for level in [" ERROR ", " FATAL ", " CRITICAL ", "[ERROR]", "[FATAL]", " E "] {
            if head.contains(level) {
                return true;
            }
        }
    }
    is_exception_line(s)
}

/// The largest char boundary of `s` at or below `i`.
fn floor_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `ValueError: ...`, `E       KeyError: 'EUR'`, `java.lang.IllegalStateException: ...`, `AssertionError`,
/// `E   assert 1 == 2`.
fn is_exception_line(s: &str) -> bool {
    let mut t = s;
    if let Some(rest) = s.strip_prefix('E') {
        if rest.starts_with("   ") {
            let body = rest.trim_start();
            if !body.is_empty() {
                // pytest's explanation lines: the first one is the error.
                return true;
            }
        }
        if rest.starts_with(' ') {
            t = rest.trim_start();
        }
    }
    let name_len = t
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.' || *c == b'$')
        .count();
    if name_len == 0 || !t.as_bytes()[0].is_ascii_alphabetic() {
        return false;
    }
    let name = &t[..name_len];
    let rest = &t[name_len..];
    let named = ["Error", "Exception", "Exit", "Interrupt", "Fault", "Failure"]
        .iter()
        .any(|end| name.ends_with(end));
    named && (rest.is_empty() || rest.starts_with(": ") || rest == ":")
}

/// The top-level keys of `text` when it is a JSON object (its first non-blank character is `{`): each key's
/// quoted text where it stands, pushed to `out`. Whether any key was found (a `{` that does not open an object
/// with keys is read as lines instead). A text cut short (a producer preview) still gives the keys before the
/// cut; nothing after the object's closing brace is read.
fn json_keys(text: &str, out: &mut Vec<DetectedNeedle>) -> bool {
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') {
        return false;
    }
    let b = text.as_bytes();
    let start = text.len() - trimmed.len();
    let mut depth = 0usize;
    let mut i = start;
    // UTF-16 offset of byte `i`, kept up to date lazily.
    let mut unit_at = (0usize, 0usize);
    let mut units_before = |i: usize| -> usize {
        let (from, units) = unit_at;
        let u = units + utf16_len(&text[from..i]);
        unit_at = (i, u);
        u
    };
    let found = out.len();
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            b'"' => {
                let open = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if i >= b.len() {
                    break;
                }
                let close = i;
                if depth == 1 {
                    let mut j = close + 1;
                    while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\n' | b'\r') {
                        j += 1;
                    }
                    if b.get(j) == Some(&b':') {
                        let offset = units_before(open);
                        out.push(DetectedNeedle {
                            kind: NeedleKind::JsonKey,
                            offset,
                            len: utf16_len(&text[open..=close]),
                        });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.len() > found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(NeedleKind, String)> {
        detect(text)
            .into_iter()
            .map(|n| (n.kind, slice_units(text, n.offset, n.len).to_string()))
            .collect()
    }

    use NeedleKind::{ExitInfo, FirstError, JsonKey, SummaryLine};

    #[test]
    fn exit_lines_in_every_harness_style() {
        for line in [
            "Exit Code: 0",
            "Exit Code: 137 (SIGKILL)",
            "Exit code: 1",
            "Exit code 2",
            "<returncode>0</returncode>",
            "<returncode>-1</returncode>",
            "[Command finished with exit code 1]",
            "Process exited with code 3",
            "exit status 2",
        ] {
            assert_eq!(kinds(&format!("x\n{line}\ny")), [(ExitInfo, line.into())]);
        }
        for not in [
            "Exit code: none",
            "the exit code was 1 yesterday",
            "Exit codes: 1, 2",
            "<returncode>x</returncode>",
        ] {
            assert_eq!(kinds(not), [], "{not}");
        }
    }

    #[test]
    fn summaries_wherever_they_sit() {
        for line in [
            "test result: FAILED. 40 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s",
            "=================== 1 failed, 41 passed in 2.10s ===================",
            "==== 41 passed in 2.10s ====",
            " 3 files changed, 10 insertions(+), 2 deletions(-)",
            " 1 file changed, 1 insertion(+)",
            "added 120 packages, and audited 121 packages in 3s",
            "Tests:       1 failed, 5 passed, 6 total",
            "Found 3 matches for \"foo\" in /repo:",
            "Found 12 files",
            "No matches found for \"foo\" in /repo",
            "12 matches in 4 files",
            "1 match in 1 file",
            "  1234 total",
            "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1.20s",
            "[100%] Built target ledger",
            "gmake: *** [Makefile:136: all] Error 2",
            "make[1]: *** [CMakeFiles/Makefile2:98: all] Error 2",
            "error: could not compile `ledger` (lib) due to 2 previous errors",
            "Done in 12.3s",
            "BUILD SUCCESSFUL in 3s",
            "— 1,234 messages, 5,678 reactions —",
            "Ran 12 tests in 0.031s",
            "FAILED (failures=1)",
        ] {
            assert_eq!(kinds(line), [(SummaryLine, line.into())], "{line}");
        }
        for not in [
            "drwxr-xr-x  3 dev dev  1234 Mar  5 12:00 src",
            "src/lib.rs:12:    let total = sum(&entries, self.rate)?;",
            "We have 3 cats and 2 dogs.",
            "Found a bug",
        ] {
            assert_eq!(kinds(not), [], "{not}");
        }
    }

    #[test]
    fn only_the_first_error_line_counts() {
        let log = "Compiling a\n\x1b[1;31merror[E0308]\x1b[0m: mismatched types\n  --> src/a.rs:1:2\nerror: aborting\n";
        assert_eq!(
            kinds(log),
            [(
                FirstError,
                "\x1b[1;31merror[E0308]\x1b[0m: mismatched types".into()
            )]
        );
        for line in [
            "error: linker `cc` not found",
            "Error: ENOENT: no such file or directory, open 'a'",
            "ERROR:  canceling statement due to statement timeout",
            "src/a.c:3:5: error: implicit declaration of function 'f'",
            "KeyError: 'EUR'",
            "E       ValueError: amount must be positive, got -5",
            "java.lang.IllegalStateException: closed",
            "AssertionError",
            "thread 'main' panicked at src/main.rs:2:5:",
            "npm ERR! code ERESOLVE",
            "npm error code ERESOLVE",
            "fatal: not a git repository (or any of the parent directories): .git",
            "2025-03-04 12:00:01.123 ERROR [billing] 付款失败",
            "ls: cannot access 'x': No such file or directory",
            "bash: foo: command not found",
            "FAIL src/a.test.ts",
        ] {
            assert_eq!(kinds(line), [(FirstError, line.into())], "{line}");
        }
        for not in [
            "    raise ValueError(\"x\")",
            "Error handling is done by the caller.",
            "error_rate: 0.1",
            "Traceback (most recent call last):",
            "    at Foo.bar (a.js:1:2)",
            "test a::b ... FAILED",
            "pub enum Error {",
        ] {
            assert_eq!(kinds(not), [], "{not}");
        }
    }

    #[test]
    fn crlf_and_offsets_in_utf16_units() {
        let text = "😀 start\r\nFound 2 matches\r\nExit Code: 1";
        let found = detect(text);
        assert_eq!(
            found,
            [
                DetectedNeedle {
                    kind: SummaryLine,
                    offset: 10,
                    len: 15
                },
                DetectedNeedle {
                    kind: ExitInfo,
                    offset: 27,
                    len: 12
                }
            ]
        );
    }

    #[test]
    fn json_results_give_their_top_level_keys_only() {
        let pretty = "{\n  \"total_count\": 2,\n  \"items\": [{\"error\": \"x\"}],\n  \"é\": {\"a\": 1}\n}";
        assert_eq!(
            kinds(pretty),
            [
                (JsonKey, "\"total_count\"".into()),
                (JsonKey, "\"items\"".into()),
                (JsonKey, "\"é\"".into())
            ]
        );
        let cut = "{\"a\":1,\"b\":\"x\\\"y\",\"c\n\n[Output truncated]";
        assert_eq!(
            kinds(cut),
            [(JsonKey, "\"a\"".into()), (JsonKey, "\"b\"".into())]
        );
        assert_eq!(kinds("{}\nError: x"), [(FirstError, "Error: x".into())]);
    }

    #[test]
    fn an_error_field_without_an_error_line_starts_with_one() {
        let text = "\n  Cannot enter plan mode: a plan is awaiting approval.\nmore";
        let found = detect_field(Field::Error, text);
        assert_eq!(found.len(), 1);
        assert_eq!(
            slice_units(text, found[0].offset, found[0].len),
            "  Cannot enter plan mode: a plan is awaiting approval."
        );
        assert_eq!(detect_field(Field::Output, text), []);
        let traced = "Traceback (most recent call last):\n  File \"a.py\"\nTimeoutError: slow";
        assert_eq!(
            detect_field(Field::Error, traced)
                .iter()
                .map(|n| n.offset)
                .collect::<Vec<_>>(),
            [50]
        );
    }
}
