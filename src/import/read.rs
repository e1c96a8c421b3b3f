//! Reading one session source with bounded memory: JSON Lines one line at a time (each line refused above
//! [`MAX_LINE_BYTES`] before it is kept), whole JSON documents refused above [`MAX_DOCUMENT_BYTES`], and the
//! tally of what was skipped and why.
//!
//! Lines that hold nothing (blank lines), that are JSON but not an object, and a last line torn off by a writer
//! that stopped mid-line are skipped and counted; any other line that is not JSON makes the file malformed, and
//! the error names the file and line. Lone UTF-16 surrogate escapes (`"\ud83d"`, left by a tool that cut an
//! emoji in half) cannot live in a Rust string: they are replaced by U+FFFD, one unit for one unit, and counted.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// The longest line of a JSON Lines session log that is read, in bytes (64 MiB); a longer line is refused before
/// more of it is kept.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The largest whole-document session file (a trajectory, a gemini-cli conversation, an OpenHands export or one
/// event) that is read, in bytes (256 MiB).
pub const MAX_DOCUMENT_BYTES: u64 = 256 << 20;

/// What was skipped while reading, by reason, and how many lone surrogates were repaired.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Lines (or records, messages, events, content blocks) that produced no batch entry, by reason.
    pub skipped: BTreeMap<&'static str, u64>,
    /// Lone UTF-16 surrogate escapes replaced by U+FFFD.
    pub repaired_surrogates: u64,
}

impl Tally {
    /// Counts one thing skipped for `reason`.
    pub fn skip(&mut self, reason: &'static str) {
        *self.skipped.entry(reason).or_insert(0) += 1;
    }

    /// Adds another tally into this one.
    pub fn merge(&mut self, other: &Tally) {
        for (reason, n) in &other.skipped {
            *self.skipped.entry(reason).or_insert(0) += n;
        }
        self.repaired_surrogates += other.repaired_surrogates;
    }

    /// How many times `reason` was counted.
    pub fn count(&self, reason: &str) -> u64 {
        self.skipped.get(reason).copied().unwrap_or(0)
    }
}

/// One session to import: a file, or an OpenHands event folder (one event a file, in numeric order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The file, or the event folder.
    pub path: PathBuf,
    /// The event files of an event folder, in numeric order; `None` for a file.
    pub events: Option<Vec<PathBuf>>,
}

impl Source {
    /// A single file.
    pub fn file(path: impl Into<PathBuf>) -> Source {
        Source {
            path: path.into(),
            events: None,
        }
    }

    /// An error at `line` (1-based) of this source.
    pub fn error_at(&self, line: usize, message: impl Into<String>) -> Error {
        Error::Import {
            location: format!("{}:{line}", self.path.display()),
            message: message.into(),
        }
    }

    /// An error about this source as a whole (a JSON path in `message` says where).
    pub fn error(&self, message: impl Into<String>) -> Error {
        error_in(&self.path, message)
    }

    /// Calls `f` with every JSON object line of this file, its 1-based line number and `tally`, skipping (and counting)
    /// blank lines, non-object lines and a torn last line.
    pub fn each_line(
        &self,
        tally: &mut Tally,
        f: impl FnMut(usize, Map<String, Value>, &mut Tally) -> Result<()>,
    ) -> Result<()> {
        let file = File::open(&self.path).map_err(|e| Error::io(&self.path, e))?;
        each_line_of(
            BufReader::with_capacity(1 << 16, file),
            &self.path,
            tally,
            f,
        )
    }

    /// The whole file, refused above [`MAX_DOCUMENT_BYTES`].
    pub fn bytes(&self) -> Result<Vec<u8>> {
        read_bounded(&self.path)
    }

    /// The whole file parsed as one JSON value.
    pub fn document(&self, tally: &mut Tally) -> Result<Value> {
        parse_document(&self.path, &self.bytes()?, tally)
    }
}

fn error_in(path: &Path, message: impl Into<String>) -> Error {
    Error::Import {
        location: path.display().to_string(),
        message: message.into(),
    }
}

/// Reads a whole file, refusing it (before reading) when it is larger than [`MAX_DOCUMENT_BYTES`].
pub(super) fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let too_big = || {
        error_in(
            path,
            format!("larger than the limit of {MAX_DOCUMENT_BYTES} bytes for a session document"),
        )
    };
    if len > MAX_DOCUMENT_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // The file may grow while it is read: never keep more than the limit.
    file.take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(too_big());
    }
    Ok(bytes)
}

/// Parses a whole document, repairing lone surrogate escapes; a syntax error names its line and column.
pub(super) fn parse_document(path: &Path, bytes: &[u8], tally: &mut Tally) -> Result<Value> {
    parse_json(bytes, tally).map_err(|e| {
        error_in(
            path,
            format!(
                "invalid JSON at line {}, column {}: {}",
                e.line(),
                e.column(),
                json_message(&e)
            ),
        )
    })
}

/// serde_json's message without its position suffix.
fn json_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_string()
}

/// Parses JSON; when it fails and the text holds lone surrogate escapes, repairs them and tries again.
fn parse_json(bytes: &[u8], tally: &mut Tally) -> std::result::Result<Value, serde_json::Error> {
    match serde_json::from_slice(bytes) {
        Ok(v) => Ok(v),
        Err(e) => match repair_lone_surrogates(bytes) {
            Some((repaired, n)) => {
                let v = serde_json::from_slice(&repaired).map_err(|_| e)?;
                tally.repaired_surrogates += n;
                Ok(v)
            }
            None => Err(e),
        },
    }
}

/// Reads JSON Lines from `reader`; see [`Source::each_line`].
pub(super) fn each_line_of(
    reader: impl BufRead,
    path: &Path,
    tally: &mut Tally,
    f: impl FnMut(usize, Map<String, Value>, &mut Tally) -> Result<()>,
) -> Result<()> {
    each_line_within(reader, path, MAX_LINE_BYTES, tally, f)
}

/// [`each_line_of`] with the line limit as a parameter.
fn each_line_within(
    mut reader: impl BufRead,
    path: &Path,
    max_line: usize,
    tally: &mut Tally,
    mut f: impl FnMut(usize, Map<String, Value>, &mut Tally) -> Result<()>,
) -> Result<()> {
    let mut buf = Vec::new();
    let mut number = 0usize;
    loop {
        buf.clear();
        let read = (&mut reader)
            .take(max_line as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(path, e))?;
        if read == 0 {
            return Ok(());
        }
        number += 1;
        if buf.last() == Some(&b'\n') {
            buf.pop();
        } else if buf.len() > max_line {
            return Err(Error::Import {
                location: format!("{}:{number}", path.display()),
                message: format!("line longer than the limit of {max_line} bytes"),
            });
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            tally.skip("blank line");
            continue;
        }
        match parse_json(&buf, tally) {
            Ok(Value::Object(map)) => f(number, map, tally)?,
            Ok(_) => tally.skip("line that is JSON but not an object"),
            Err(e) => {
                let at_end = reader
                    .fill_buf()
                    .map_err(|e| Error::io(path, e))?
                    .is_empty();
                if at_end {
                    tally.skip("torn last line (not complete JSON)");
                    return Ok(());
                }
                return Err(Error::Import {
                    location: format!("{}:{number}", path.display()),
                    message: format!(
                        "invalid JSON at column {}: {}",
                        e.column(),
                        json_message(&e)
                    ),
                });
            }
        }
    }
}

/// Replaces every `\uD800`-`\uDFFF` escape that is not half of a well-formed pair with `\uFFFD` (same length
/// in bytes and in UTF-16 units). `None` when there is none.
pub(super) fn repair_lone_surrogates(bytes: &[u8]) -> Option<(Vec<u8>, u64)> {
    // JSON has no backslash outside strings, so escapes can be walked without tracking quotes.
    let hex4 = |at: usize| -> Option<u16> {
        let s = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
        u16::from_str_radix(s, 16).ok()
    };
    let escape_at = |at: usize| bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u');
    let mut out: Option<Vec<u8>> = None;
    let mut repaired = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(unit) = hex4(i + 2) else {
            i += 2;
            continue;
        };
        let lone = match unit {
            0xD800..=0xDBFF => {
                let paired = escape_at(i + 6) && matches!(hex4(i + 8), Some(0xDC00..=0xDFFF));
                if paired {
                    i += 12;
                    continue;
                }
                true
            }
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            let o = out.get_or_insert_with(|| bytes.to_vec());
            o[i + 2..i + 6].copy_from_slice(b"fffd");
            repaired += 1;
        }
        i += 6;
    }
    out.map(|o| (o, repaired))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &str) -> (Result<Vec<(usize, Value)>>, Tally) {
        let mut tally = Tally::default();
        let mut seen = Vec::new();
        let r = each_line_of(
            input.as_bytes(),
            Path::new("s.jsonl"),
            &mut tally,
            |n, m, _| {
                seen.push((n, Value::Object(m)));
                Ok(())
            },
        );
        (r.map(|_| seen), tally)
    }

    #[test]
    fn skips_blank_non_object_and_torn_last_lines() {
        let (seen, tally) = lines("{\"a\":1}\r\n\n  \n[1,2]\n{\"b\":2}\n{\"c\":");
        let seen = seen.unwrap();
        assert_eq!(
            seen,
            vec![
                (1, serde_json::json!({"a":1})),
                (5, serde_json::json!({"b":2}))
            ]
        );
        assert_eq!(tally.count("blank line"), 2);
        assert_eq!(tally.count("line that is JSON but not an object"), 1);
        assert_eq!(tally.count("torn last line (not complete JSON)"), 1);
    }

    #[test]
    fn a_bad_line_before_the_end_names_file_and_line() {
        let (seen, _) = lines("{\"a\":1}\n{\"a\": nope}\n{\"b\":2}\n");
        assert_eq!(
            seen.unwrap_err().to_string(),
            "s.jsonl:2: invalid JSON at column 8: expected ident"
        );
    }

    #[test]
    fn repairs_lone_surrogates_but_not_pairs_or_escaped_backslashes() {
        let src = r#"{"t":"a\ud83d b\ud83d\ude00 c\\ud800 d\udc00"}"#;
        let (fixed, n) = repair_lone_surrogates(src.as_bytes()).unwrap();
        assert_eq!(n, 2);
        assert_eq!(
            String::from_utf8(fixed).unwrap(),
            r#"{"t":"a\ufffd b\ud83d\ude00 c\\ud800 d\ufffd"}"#
        );
        assert_eq!(repair_lone_surrogates(br#"{"t":"\ud83d\ude00"}"#), None);
        let (seen, tally) = lines(&format!("{src}\n"));
        assert_eq!(seen.unwrap()[0].1["t"], "a\u{fffd} b😀 c\\ud800 d\u{fffd}");
        assert_eq!(tally.repaired_surrogates, 2);
    }

    #[test]
    fn refuses_a_line_over_the_limit_without_keeping_more_of_it() {
        let mut tally = Tally::default();
        let input = format!("{{\"a\":1}}\n{{\"b\":\"{}\"}}\n", "x".repeat(100));
        let e = each_line_within(
            input.as_bytes(),
            Path::new("s.jsonl"),
            20,
            &mut tally,
            |_, _, _| Ok(()),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "s.jsonl:2: line longer than the limit of 20 bytes"
        );
        // A line of exactly the limit (plus its newline) is fine.
        let ok = format!("{{\"b\":\"{}\"}}\n", "x".repeat(12));
        assert_eq!(ok.len(), 21);
        each_line_within(
            ok.as_bytes(),
            Path::new("s.jsonl"),
            20,
            &mut tally,
            |_, _, _| Ok(()),
        )
        .unwrap();
    }

    #[test]
    fn refuses_a_document_over_the_limit_before_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let f = File::create(&path).unwrap();
        f.set_len(MAX_DOCUMENT_BYTES + 1).unwrap(); // sparse: no disk space used
        let e = read_bounded(&path).unwrap_err().to_string();
        assert!(
            e.ends_with("larger than the limit of 268435456 bytes for a session document"),
            "{e}"
        );
    }
}
