//! Summary lines: the totals of test runners, search headers and footers, diff stats and build results. A
//! summary line counts wherever it sits in the text (search tools put theirs first, test runners last).

use super::integer_len;

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
    let s = s.trim_end_matches(['=', ' ', '.', ')']);
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
    "End of matches for ",
    "Success: no issues found",
];

pub(super) fn is_summary(s: &str) -> bool {
    if s.len() > 300 {
        return false;
    }
    // Build results and search headers by their words.
    let core = s.trim_start_matches(|c: char| !c.is_ascii_alphanumeric() && c != '[');
    // CMake's progress (`[100%] Built target ledger`) is looked through.
    let core = match core.strip_prefix('[').and_then(|r| r.split_once("%] ")) {
        Some((pct, rest))
            if !pct.is_empty() && pct.bytes().all(|b| b.is_ascii_digit() || b == b' ') =>
        {
            rest
        }
        _ => core,
    };
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
                    | "error"
                    | "errors"
                    | "problem"
                    | "problems"
            );
        }
    }
    if is_make_failure(s) || is_go_package_result(s) {
        return true;
    }
    // Surefire's and JUnit's `Tests run: 5, Failures: 1, Errors: 0, Skipped: 0`.
    if s.strip_prefix("Tests run: ")
        .is_some_and(|rest| integer_len(rest).is_some())
    {
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

/// Go's per-package test result: `ok  \tgithub.com/a/b\t0.012s`, `FAIL\tgithub.com/a/b\t0.3s`,
/// `ok  \tgithub.com/a/b\t(cached)`.
fn is_go_package_result(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("ok").or_else(|| s.strip_prefix("FAIL")) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix([' ', '\t']) else {
        return false;
    };
    let mut fields = rest.trim_start().split('\t');
    let (Some(package), Some(time)) = (fields.next(), fields.next()) else {
        return false;
    };
    let timed = time == "(cached)"
        || time
            .strip_suffix('s')
            .is_some_and(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
    !package.is_empty() && !package.contains(' ') && timed
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
