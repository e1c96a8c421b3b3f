//! The used-lines file: what `budgetlab import` found the agent used, kept beside the batches it belongs to
//! (`X.jsonl` -> `X.used.jsonl`, [`used_path_for`]) so that the batches file stays exactly what `finalize`, the
//! external protocol and `run --batches-file` read.
//!
//! JSON Lines: a [`UsedHeader`] first (the format's version, the sha256 of the batches file's bytes, its number of
//! batches, the rules the content was found with, whether the results were anonymized), then one line a batch, in
//! batch order: `null` when the session the batch came from recorded nothing the agent wrote (nothing can be said
//! of what it used), else a [`UsedBatch`]: its used lines ([`UsedSpan`]s) and its used tokens ([`UsedTokenSpan`]s,
//! each with every place it appears), both empty when the agent used nothing. [`read_used_file`] reads it back
//! against the batches, checking every span lies inside its field, and gives each line as a [`Needle`] of kind
//! `used` and each place of a token as one of kind `usedToken` (the token's text read from the batch). Version 1
//! (lines only, the first line of each token) is refused in one line: import again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::UsedRules;
use crate::error::{Error, Result};
use crate::model::{Batch, Field};
use crate::needles::{Needle, NeedleKind};
use crate::text::utf16_len;

/// The version of the used-lines file this build writes and reads.
/// 2: every line holding a used token, and the used tokens (version 1 had only the first line of each).
pub const USED_FILE_VERSION: u64 = 2;

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

/// One used token of a batch: every place it appears in its field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UsedTokenSpan {
    /// Index of the entry in the batch.
    pub entry: usize,
    /// Index of the part in the entry's `responseParts`.
    pub part: usize,
    /// The field of the part that holds it.
    pub field: Field,
    /// UTF-16 offset of each place it appears in the field, ascending (at least one).
    pub offsets: Vec<usize>,
    /// Its length in UTF-16 units.
    pub len: usize,
}

/// The used content of one batch in the used-lines file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UsedBatch {
    /// Every line holding a used token.
    pub lines: Vec<UsedSpan>,
    /// The used tokens.
    pub tokens: Vec<UsedTokenSpan>,
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

/// The used needles of each batch (`None` for a batch whose session recorded nothing the agent wrote): a needle
/// of kind `used` a used line, and one of kind `usedToken` for each place a used token appears.
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
        let used: Option<UsedBatch> = serde_json::from_str(line)
            .map_err(|e| bad(n, format!("not a batch's used content: {e}")))?;
        let needles = used
            .map(|used| {
                let mut needles = Vec::with_capacity(used.lines.len() + used.tokens.len());
                for s in used.lines {
                    let at = (s.entry, s.part, s.field, s.offset, s.len);
                    needles.push(needle_of(batch, at, NeedleKind::Used).map_err(|m| bad(n, m))?);
                }
                for t in used.tokens {
                    if t.offsets.is_empty() || t.offsets.windows(2).any(|w| w[0] >= w[1]) {
                        return Err(bad(
                            n,
                            format!(
                                "entry {}: a used token's offsets are empty or not ascending",
                                t.entry
                            ),
                        ));
                    }
                    let mut text: Option<String> = None;
                    for &offset in &t.offsets {
                        let at = (t.entry, t.part, t.field, offset, t.len);
                        let needle =
                            needle_of(batch, at, NeedleKind::UsedToken).map_err(|m| bad(n, m))?;
                        if text.get_or_insert_with(|| needle.text.clone()) != &needle.text {
                            return Err(bad(
                                n,
                                format!(
                                    "entry {}: a used token's places hold different texts",
                                    t.entry
                                ),
                            ));
                        }
                        needles.push(needle);
                    }
                }
                Ok(needles)
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

/// The needle of `kind` at (entry, part, field, offset, len) in `batch`, or why it lies outside it.
fn needle_of(
    batch: &Batch,
    (entry, part, field, offset, len): (usize, usize, Field, usize, usize),
    kind: NeedleKind,
) -> std::result::Result<Needle, String> {
    let s = Span {
        entry,
        part,
        field,
        offset,
        len,
    };
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
        kind,
        text: needle.to_string(),
        entry: s.entry,
        part: s.part,
        field: s.field,
        offset: s.offset,
    })
}

/// Where a needle lies.
struct Span {
    entry: usize,
    part: usize,
    field: Field,
    offset: usize,
    len: usize,
}
