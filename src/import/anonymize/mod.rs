//! `--anonymize SEED`: every letter and digit of the imported results replaced by another of the same class, so
//! that a team can share a corpus without its secrets while every measure budgetlab takes of it stays the same.
//!
//! What is kept: the length of every text in UTF-16 units (a character becomes one of the same class and the
//! same UTF-16 length: ASCII lowercase, uppercase and digits among themselves, other letters and digits of the
//! Basic Multilingual Plane to BMP ones, astral ones to astral ones, so surrogate pairs stay pairs), every other
//! character (whitespace, line ends, punctuation, symbols, emoji), ANSI escape sequences, the words of
//! [`KEYWORDS`] and the suffixes of [`KEPT_SUFFIXES`] (so exit lines, first error lines and summary lines stay
//! detectable; their numbers may change digits), and, when a whole text is JSON, its structure and object keys
//! (its string values are anonymized, its numbers keep a valid form, `true`/`false`/`null` stay).
//!
//! Replacement goes word by word (a word is a maximal run of letters and digits): a word's replacement is drawn
//! from a stream keyed by (seed, word) ([`crate::rng::Stream::keyed`]), so one seed always replaces a word the
//! same way, in every text and file. Repeated outputs therefore stay repeated, and a different seed gives
//! different text. Call ids, tool names and MIME types are kept; `inlineData` data is anonymized like text.
//! Known limit: letters written as JSON `\uXXXX` escapes inside a JSON text are kept as written.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::model::{Batch, Field};
use crate::rng::{Seed, Stream};

/// Words kept verbatim (case-sensitive, whole words): the vocabulary of exit lines, error lines, summary lines
/// and harness markers that needle detection and profiles look for.
pub const KEYWORDS: &[&str] = &[
    // errors and warnings
    "error",
    "Error",
    "ERROR",
    "errors",
    "Errors",
    "ERRORS",
    "err",
    "Err",
    "ERR",
    "warning",
    "Warning",
    "WARNING",
    "warnings",
    "Warnings",
    "warn",
    "WARN",
    "fatal",
    "Fatal",
    "FATAL",
    "panic",
    "panicked",
    "Traceback",
    "most",
    "recent",
    "call",
    "last",
    "Exception",
    "exception",
    "assert",
    "assertion",
    "Assertion",
    "AssertionError",
    "line",
    "File",
    "thread",
    "main",
    "at",
    "npm",
    "not",
    "found",
    "denied",
    "Permission",
    "No",
    "such",
    "file",
    "or",
    "directory",
    "command",
    "Segmentation",
    "fault",
    "Killed",
    "timeout",
    "Timeout",
    "timed",
    "out",
    // outcomes and summaries
    "fail",
    "Fail",
    "FAIL",
    "failed",
    "Failed",
    "FAILED",
    "failure",
    "failures",
    "Failure",
    "FAILURES",
    "pass",
    "Pass",
    "PASS",
    "passed",
    "Passed",
    "PASSED",
    "ok",
    "OK",
    "skipped",
    "Skipped",
    "SKIPPED",
    "xfailed",
    "xpassed",
    "deselected",
    "ignored",
    "measured",
    "filtered",
    "test",
    "tests",
    "Test",
    "Tests",
    "result",
    "results",
    "summary",
    "short",
    "info",
    "in",
    "Found",
    "found",
    "match",
    "matches",
    "Match",
    "Matches",
    "files",
    "changed",
    "insertion",
    "insertions",
    "deletion",
    "deletions",
    "Build",
    "build",
    "BUILD",
    "SUCCESS",
    "SUCCESSFUL",
    "succeeded",
    "Finished",
    "finished",
    "Compiling",
    "compiling",
    "Ran",
    "total",
    "Total",
    "of",
    "and",
    "with",
    "done",
    "Done",
    // exit information and harness markers
    "exit",
    "Exit",
    "EXIT",
    "code",
    "Code",
    "status",
    "Status",
    "returncode",
    "output",
    "Output",
    "head",
    "tail",
    "elided",
    "chars",
    "characters",
    "Command",
    "Directory",
    "Process",
    "Group",
    "PGID",
    "Wall",
    "time",
    "seconds",
    "lines",
    "more",
    "below",
    "above",
    "omitted",
    "Current",
    "working",
    "Python",
    "interpreter",
    "occurred",
    "processing",
    "action",
    "tool",
    "use",
    "Old",
    "environment",
    "truncated",
    "tokens",
    "true",
    "false",
    "null",
    "None",
    "True",
    "False",
];

/// Word endings kept when a longer word ends with them (`TypeError` keeps `Error`, `ZeroDivisionError` too), so
/// exception names stay recognisable as such.
pub const KEPT_SUFFIXES: &[&str] = &["Error", "Exception", "Warning"];

/// Words longer than this are not remembered (they are rare, like base64 blobs, and would fill the cache).
const CACHED_WORD_CHARS: usize = 64;

/// Remembered words at most, before the cache starts over (its content never changes a result).
const MAX_CACHED_WORDS: usize = 1 << 20;

/// Replaces letters and digits deterministically per seed; see the module documentation.
#[derive(Debug)]
pub struct Anonymizer {
    seed: Seed,
    keywords: HashSet<&'static str>,
    cache: HashMap<String, String>,
}

impl Anonymizer {
    /// An anonymizer for `seed`.
    pub fn new(seed: Seed) -> Anonymizer {
        Anonymizer {
            seed,
            keywords: KEYWORDS.iter().copied().collect(),
            cache: HashMap::new(),
        }
    }

    /// Anonymizes every result text (`output`, `error`, top-level `text`) and every `inlineData.data` of a batch.
    pub fn batch(&mut self, batch: &mut Batch) {
        for entry in batch.iter_mut() {
            for part in entry.response_parts.iter_mut() {
                for field in Field::ALL {
                    if let Some(text) = part.field_mut(field) {
                        *text = self.text(text);
                    }
                }
                if let Some(Value::String(data)) =
                    part.0.get_mut("inlineData").and_then(|d| d.get_mut("data"))
                {
                    *data = self.plain(data);
                }
            }
        }
    }

    /// Anonymizes one text: as JSON (keys kept) when the whole text is a JSON object or array, else as plain text.
    pub fn text(&mut self, text: &str) -> String {
        let trimmed = text.trim_start();
        if (trimmed.starts_with('{') || trimmed.starts_with('['))
            && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
        {
            self.json(text)
        } else {
            self.plain(text)
        }
    }

    /// Anonymizes plain text: words replaced, everything else kept, ANSI escape sequences whole.
    pub fn plain(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        self.plain_into(text, &mut out);
        out
    }

    fn plain_into(&mut self, text: &str, out: &mut String) {
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if c == '\u{1b}' {
                let n = ansi_len(rest);
                out.push_str(&rest[..n]);
                rest = &rest[n..];
            } else if c.is_alphanumeric() {
                let n = rest
                    .char_indices()
                    .find(|&(_, c)| !c.is_alphanumeric())
                    .map_or(rest.len(), |(i, _)| i);
                self.word_into(&rest[..n], out);
                rest = &rest[n..];
            } else {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }

    fn word_into(&mut self, word: &str, out: &mut String) {
        if self.keywords.contains(word) {
            out.push_str(word);
            return;
        }
        if let Some(suffix) = KEPT_SUFFIXES
            .iter()
            .find(|s| word.len() > s.len() && word.ends_with(*s))
        {
            self.word_into(&word[..word.len() - suffix.len()], out);
            out.push_str(suffix);
            return;
        }
        if let Some(done) = self.cache.get(word) {
            out.push_str(done);
            return;
        }
        let mut stream = Stream::keyed(self.seed, "anonymize/word", word.as_bytes());
        let start = out.len();
        for c in word.chars() {
            out.push(replacement(c, &mut stream));
        }
        if word.chars().count() <= CACHED_WORD_CHARS {
            if self.cache.len() >= MAX_CACHED_WORDS {
                self.cache.clear();
            }
            self.cache
                .insert(word.to_string(), out[start..].to_string());
        }
    }

    /// Anonymizes a JSON text without reparsing it into a different layout: keys, structure, whitespace and
    /// literals are copied; string values and numbers are anonymized in place.
    fn json(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        // One entry a open container: `true` for an object, whose next string is a key when `expect_key`.
        let mut stack: Vec<bool> = Vec::new();
        let mut expect_key = false;
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'"' => {
                    let end = string_end(b, i);
                    let inner = &text[i + 1..end - 1];
                    out.push('"');
                    if expect_key {
                        out.push_str(inner);
                    } else {
                        self.json_string_into(inner, &mut out);
                    }
                    out.push('"');
                    i = end;
                    continue;
                }
                b'{' => {
                    stack.push(true);
                    expect_key = true;
                }
                b'[' => {
                    stack.push(false);
                    expect_key = false;
                }
                b'}' | b']' => {
                    stack.pop();
                    expect_key = false;
                }
                b':' => expect_key = false,
                b',' => expect_key = stack.last() == Some(&true),
                b'-' | b'0'..=b'9' => {
                    let end = i + b[i..]
                        .iter()
                        .position(|c| !matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                        .unwrap_or(b.len() - i);
                    self.number_into(&text[i..end], &mut out);
                    i = end;
                    continue;
                }
                _ => {}
            }
            // Structure, whitespace and the literals true/false/null are copied as they are.
            let c = text[i..].chars().next().expect("in bounds");
            out.push(c);
            i += c.len_utf8();
        }
        out
    }

    /// A JSON number with its digits replaced, keeping a valid number: the first digit of a multi-digit integer
    /// part stays nonzero; sign, point and exponent mark stay.
    fn number_into(&mut self, number: &str, out: &mut String) {
        let mut stream = Stream::keyed(self.seed, "anonymize/number", number.as_bytes());
        let int_digits = number
            .trim_start_matches('-')
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        let mut seen_digit = false;
        for c in number.chars() {
            if c.is_ascii_digit() {
                let lead = !seen_digit && int_digits > 1;
                seen_digit = true;
                out.push(if lead {
                    char::from(b'1' + stream.below(9) as u8)
                } else {
                    char::from(b'0' + stream.below(10) as u8)
                });
            } else {
                if c == '.' || c == 'e' || c == 'E' {
                    seen_digit = true; // only the integer part's lead is special
                }
                out.push(c);
            }
        }
    }

    /// The inside of a JSON string value: escapes kept as written (with an escaped ANSI sequence whole), the
    /// text between them anonymized as plain text.
    fn json_string_into(&mut self, inner: &str, out: &mut String) {
        let mut rest = inner;
        while !rest.is_empty() {
            let Some(slash) = rest.find('\\') else {
                self.plain_into(rest, out);
                return;
            };
            self.plain_into(&rest[..slash], out);
            rest = &rest[slash..];
            let n = if rest.starts_with("\\u") { 6 } else { 2 }.min(rest.len());
            let escape = &rest[..n];
            out.push_str(escape);
            rest = &rest[n..];
            if escape.eq_ignore_ascii_case("\\u001b") && rest.starts_with('[') {
                let n = csi_len(rest);
                out.push_str(&rest[..n]);
                rest = &rest[n..];
            }
        }
    }
}

/// The byte length of the ANSI escape sequence at the start of `s` (which starts with ESC): a CSI sequence
/// `ESC [ params final`, an OSC sequence `ESC ] ... (BEL | ESC \)`, or ESC and one character.
fn ansi_len(s: &str) -> usize {
    let rest = &s[1..];
    if rest.starts_with('[') {
        1 + csi_len(rest)
    } else if let Some(osc) = rest.strip_prefix(']') {
        let end = osc.find(['\u{7}', '\u{1b}']).map_or(osc.len(), |i| {
            i + if osc[i..].starts_with("\u{1b}\\") {
                2
            } else {
                1
            }
        });
        2 + end
    } else {
        1 + rest.chars().next().map_or(0, char::len_utf8)
    }
}

/// The byte length of `[ params final` at the start of `s`: parameter and intermediate bytes, then one final
/// byte in `@`..`~`.
fn csi_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 1;
    while i < b.len() && (0x20..=0x3f).contains(&b[i]) {
        i += 1;
    }
    if i < b.len() && (0x40..=0x7e).contains(&b[i]) {
        i += 1;
    }
    i
}

/// The index just past the closing quote of the JSON string starting at `start` (the text is valid JSON).
fn string_end(b: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// Lowercase letters of the BMP outside ASCII that a lowercase non-ASCII letter may become (Greek, Cyrillic).
const BMP_LOWER: &[(u32, u32)] = &[(0x03B1, 0x03C9), (0x0430, 0x044F)];
/// Uppercase letters of the BMP outside ASCII (Greek without the unassigned U+03A2, Cyrillic).
const BMP_UPPER: &[(u32, u32)] = &[(0x0391, 0x03A1), (0x03A3, 0x03A9), (0x0410, 0x042F)];
/// Caseless BMP letters (CJK unified ideographs).
const BMP_OTHER: &[(u32, u32)] = &[(0x4E00, 0x9FA5)];
/// Non-ASCII BMP digits (Arabic-Indic).
const BMP_DIGIT: &[(u32, u32)] = &[(0x0660, 0x0669)];
/// Astral letters (CJK Extension B).
const ASTRAL_LETTER: &[(u32, u32)] = &[(0x20000, 0x2A6D6)];
/// Astral digits (mathematical bold digits).
const ASTRAL_DIGIT: &[(u32, u32)] = &[(0x1D7CE, 0x1D7D7)];

/// The character `c` (a letter or digit) becomes: one of its class, drawn from `stream`.
fn replacement(c: char, stream: &mut Stream) -> char {
    let ascii = |base: u8, n: u64, s: &mut Stream| char::from(base + s.below(n) as u8);
    match c {
        'a'..='z' => ascii(b'a', 26, stream),
        'A'..='Z' => ascii(b'A', 26, stream),
        '0'..='9' => ascii(b'0', 10, stream),
        _ => {
            let astral = c.len_utf16() == 2;
            let table = match (astral, c.is_numeric()) {
                (true, true) => ASTRAL_DIGIT,
                (true, false) => ASTRAL_LETTER,
                (false, true) => BMP_DIGIT,
                (false, false) if c.is_lowercase() => BMP_LOWER,
                (false, false) if c.is_uppercase() => BMP_UPPER,
                (false, false) => BMP_OTHER,
            };
            pick(table, stream)
        }
    }
}

fn pick(ranges: &[(u32, u32)], stream: &mut Stream) -> char {
    let total: u64 = ranges.iter().map(|&(a, b)| u64::from(b - a + 1)).sum();
    let mut k = stream.below(total) as u32;
    for &(a, b) in ranges {
        let n = b - a + 1;
        if k < n {
            return char::from_u32(a + k).expect("the tables hold assigned scalar values");
        }
        k -= n;
    }
    unreachable!("k < total")
}

#[cfg(test)]
mod tests;
