//! The used-lines file: what `budgetlab import` found the agent used, kept beside the batches it belongs to
//! (`X.jsonl` -> `X.used.jsonl`, [`used_path_for`]) so that the batches file stays exactly what `finalize`, the
//! external protocol and `run --batches-file` read.
//!
//! JSON Lines: a [`UsedHeader`] first (the format's version, the sha256 of the batches file's bytes, its number of
//! batches, the rules the lines were found with, whether the results were anonymized), then one line a batch, in
//! batch order: `null` when the session the batch came from recorded nothing the agent wrote (nothing can be said
//! of what it used), else the batch's [`UsedSpan`]s (`[]` when the agent used nothing). [`read_used_file`] reads
//! it back against the batches, checking every span lies inside its field, and gives each span as a
//! [`Needle`] of kind `used`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::UsedRules;
use crate::error::{Error, Result};
use crate::generate::{Needle, NeedleKind};
use crate::model::{Batch, Field};
use crate::text::utf16_len;

/// The version of the used-lines file this build writes and reads.
pub const USED_FILE_VERSION: u64 = 1;

/// The first line of a used-lines file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UsedHeader {
    /// The format's version ([`USED_FILE_VERSION`]).
    pub budgetlab_used_lines: u64,
    /// The sha256 (hex) of the bytes of the batches file the lines belong to.
    pub batches_sha256: String,
    /// The number of batches (and of lines after this one).
    pub batches: u64,
    /// The rules the lines were found with.
    pub rules: UsedRules,
    /// Whether the results were anonymized (the spans' tokens are then left out).
    pub anonymized: bool,
}

/// One used line of a batch, located like a needle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UsedSpan {
    /// Index of the entry in the batch.
    pub entry: usize,
    /// Index of the part in the entry's `responseParts`.
    pub part: usize,
    /// The field of the part that holds it.
    pub field: Field,
    /// Its line among the field's lines (0 for the first).
    pub line: usize,
    /// UTF-16 offset of the needle in the field.
    pub offset: usize,
    /// The needle's length in UTF-16 units.
    pub len: usize,
    /// The used tokens first seen on the line (left out of anonymized imports).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<String>,
}

/// Where the used lines of the batches file `batches` go: `X.jsonl` -> `X.used.jsonl`, any other name gets
/// `.used.jsonl` appended.
pub fn used_path_for(batches: &Path) -> PathBuf {
    let name = batches
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".jsonl").unwrap_or(&name);
    batches.with_file_name(format!("{stem}.used.jsonl"))
}

/// The used needles of each batch (`None` for a batch whose session recorded nothing the agent wrote).
pub type UsedNeedles = Vec<Option<Vec<Needle>>>;

/// What reading a used-lines file gave.
#[derive(Debug, Clone, PartialEq)]
pub enum UsedRead {
    /// The used needles of every batch, and the header.
    Found(UsedHeader, UsedNeedles),
    /// The file belongs to another batches file (its sha256 differs): it says nothing of these batches.
    Stale,
}

/// Reads the used-lines file `bytes` (named `name` in errors, with its line) against `batches`, whose file's bytes
/// hash to `batches_sha256`. Errors: a line that is not JSON of the expected shape, another version, a count of
/// lines other than the header's, a span outside its entry, part or field.
pub fn read_used_file(
    bytes: &[u8],
    name: &str,
    batches: &[Batch],
    batches_sha256: &str,
) -> Result<UsedRead> {
    let bad = |line: usize, message: String| Error::Batch {
        source_name: format!("{name}:{line}"),
        message,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| bad(1, format!("not UTF-8: {e}")))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(bad(1, "empty: no header line".into()));
    };
    let header: UsedHeader =
        serde_json::from_str(first).map_err(|e| bad(1, format!("not a used-lines header: {e}")))?;
    if header.budgetlab_used_lines != USED_FILE_VERSION {
        return Err(bad(
            1,
            format!(
                "version {} of the used-lines file; this build reads version {USED_FILE_VERSION}",
                header.budgetlab_used_lines
            ),
        ));
    }
    if !header.batches_sha256.eq_ignore_ascii_case(batches_sha256) {
        return Ok(UsedRead::Stale);
    }
    let mut out: UsedNeedles = Vec::with_capacity(batches.len());
    for (i, line) in lines {
        let n = i + 1;
        let Some(batch) = batches.get(out.len()) else {
            return Err(bad(
                n,
                format!("more lines than the {} batches", batches.len()),
            ));
        };
        let spans: Option<Vec<UsedSpan>> = serde_json::from_str(line)
            .map_err(|e| bad(n, format!("not a batch's used lines: {e}")))?;
        let needles = spans
            .map(|spans| {
                spans
                    .into_iter()
                    .map(|s| needle_of(batch, s).map_err(|m| bad(n, m)))
                    .collect::<Result<Vec<_>>>()
            })
            .transpose()?;
        out.push(needles);
    }
    if out.len() != batches.len() || header.batches != batches.len() as u64 {
        return Err(bad(
            1,
            format!(
                "{} lines of used lines (header: {}) for {} batches",
                out.len(),
                header.batches,
                batches.len()
            ),
        ));
    }
    Ok(UsedRead::Found(header, out))
}

/// The needle a span stands for in `batch`, or why it lies outside it.
fn needle_of(batch: &Batch, s: UsedSpan) -> std::result::Result<Needle, String> {
    let text = batch
        .get(s.entry)
        .and_then(|e| e.response_parts.get(s.part))
        .and_then(|p| p.field(s.field))
        .ok_or_else(|| {
            format!(
                "entry {} part {} has no {:?} text",
                s.entry, s.part, s.field
            )
        })?;
    let head = crate::text::head(text, s.offset);
    let rest = &text[head.len()..];
    let needle = crate::text::head(rest, s.len);
    if s.len == 0 || utf16_len(head) != s.offset || utf16_len(needle) != s.len {
        return Err(format!(
            "entry {}: the span at {} of {} units lies outside its text of {} units or splits a character",
            s.entry,
            s.offset,
            s.len,
            utf16_len(text)
        ));
    }
    Ok(Needle {
        kind: NeedleKind::Used,
        text: needle.to_string(),
        entry: s.entry,
        part: s.part,
        field: s.field,
        offset: s.offset,
    })
}
