//! Which format a file is, for `--format auto` and for checking files found in folders: from its first JSON
//! Lines records when it is JSON Lines, from the whole document otherwise.
//!
//! Each format says what is unmistakably its own ([`SessionFormat::sniff_line`], [`SessionFormat::sniff_document`]);
//! detection asks them in [`FORMATS`] order. The first [`SNIFFED_LINES`] object lines are tried as records; a
//! file whose first line is not complete JSON (a pretty-printed document) or whose records matched nothing is
//! parsed whole (within [`MAX_DOCUMENT_BYTES`]) and tried as a document. A file that no format claims, or an
//! empty one, is not a session log (`None`); one that is not JSON at all (a truncated document) is malformed (an
//! [`Error::Import`]).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};

use serde_json::Value;

use super::read::{read_bounded, Source, Tally, MAX_DOCUMENT_BYTES};
use super::{SessionFormat, FORMATS};
use crate::error::{Error, Result};

/// How many object lines at the start of a file are tried as records.
pub(super) const SNIFFED_LINES: usize = 20;

/// The format of `source`, if any format claims it.
pub(super) fn detect(source: &Source) -> Result<Option<&'static dyn SessionFormat>> {
    let path = match &source.events {
        Some(events) => match events.first() {
            Some(first) => first,
            None => return Ok(None),
        },
        None => &source.path,
    };
    let mut scratch = Tally::default();
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut buf = Vec::new();
    let mut tried = 0;
    let mut first = true;
    while tried < SNIFFED_LINES {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_DOCUMENT_BYTES + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(value) = super::read::parse_document(path, &buf, &mut scratch) else {
            if first {
                break; // not one record a line: try the whole file as a document
            }
            continue;
        };
        first = false;
        tried += 1;
        if let Value::Object(map) = &value {
            if let Some(f) = FORMATS.iter().copied().find(|f| f.sniff_line(map)) {
                return Ok(Some(f));
            }
        }
        if tried == 1 {
            if let Some(f) = FORMATS.iter().copied().find(|f| f.sniff_document(&value)) {
                return Ok(Some(f));
            }
        }
    }
    if !first {
        return Ok(None); // JSON Lines that no format claims
    }
    let bytes = read_bounded(path)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None); // an empty file: no session in it
    }
    // A file named as a session log (the walk only looks at those) that is not JSON, a truncated one say, is
    // malformed, whether it was named or found in a folder: an error, which `--skip-bad` skips and counts.
    let doc = super::read::parse_document(path, &bytes, &mut scratch)?;
    Ok(FORMATS.iter().copied().find(|f| f.sniff_document(&doc)))
}
