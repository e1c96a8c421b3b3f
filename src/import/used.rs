//! The used-lines pass of an import: for each batch written, the tokens of its results the agent used and the
//! lines holding them ([`crate::needles::used_content`], found per session by [`super::Turns::used_content`]),
//! gathered into the
//! used-lines file ([`crate::needles::UsedHeader`]) that goes beside the batches, and counted per format for the
//! report. The batches' bytes are hashed as they are written, so that the file names the batches it belongs to.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use sha2::{Digest, Sha256};

use crate::model::{Batch, Field};
use crate::needles::{
    UsedBatch, UsedHeader, UsedResult, UsedRules, UsedSpan, UsedTokenSpan, USED_FILE_VERSION,
};

/// What the used-lines pass found in the sessions of one format.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsedTally {
    /// Sessions whose used lines were found.
    pub sessions: u64,
    /// Sessions that record nothing the agent wrote (no message, thought or call arguments): not measured.
    pub unmeasured: u64,
    /// Results written from measured sessions.
    pub results: u64,
    /// Of those, results with at least one used line.
    pub results_used: u64,
    /// Used lines.
    pub lines: u64,
    /// Used tokens.
    pub tokens: u64,
}

/// The used-lines file being made: one line a batch, and the hash of the batches written.
pub(super) struct UsedSink {
    rules: UsedRules,
    anonymized: bool,
    lines: Vec<u8>,
    batches: u64,
    hasher: Sha256,
}

impl UsedSink {
    pub(super) fn new(rules: UsedRules, anonymized: bool) -> UsedSink {
        UsedSink {
            rules,
            anonymized,
            lines: Vec::new(),
            batches: 0,
            hasher: Sha256::new(),
        }
    }

    /// Adds a batch line: its bytes as written (for the hash) and its used lines (`None`: not measured), keyed
    /// by call id and rank; `ranks` holds each entry's rank.
    pub(super) fn batch(
        &mut self,
        written: &[u8],
        batch: &Batch,
        ranks: &[usize],
        used: Option<&HashMap<(String, usize), UsedResult>>,
        tally: &mut UsedTally,
    ) {
        self.hasher.update(written);
        self.batches += 1;
        let Some(used) = used else {
            self.lines.extend_from_slice(b"null\n");
            return;
        };
        let mut spans = UsedBatch::default();
        for (e, entry) in batch.iter().enumerate() {
            tally.results += 1;
            let key = (entry.call_id.clone(), ranks.get(e).copied().unwrap_or(0));
            let Some(found) = used.get(&key).filter(|u| !u.tokens.is_empty()) else {
                continue;
            };
            let lines = &found.lines;
            // The imported text is in the first part's output, or its error for a failed call.
            let field = match entry.response_parts.first() {
                Some(p) if p.field(Field::Output).is_some() => Field::Output,
                Some(p) if p.field(Field::Error).is_some() => Field::Error,
                _ => continue,
            };
            tally.results_used += 1;
            tally.lines += lines.len() as u64;
            tally.tokens += found.tokens.len() as u64;
            spans
                .tokens
                .extend(found.tokens.iter().map(|t| UsedTokenSpan {
                    entry: e,
                    part: 0,
                    field,
                    offsets: t.offsets.clone(),
                    len: t.len,
                }));
            spans.lines.extend(lines.iter().map(|l| UsedSpan {
                entry: e,
                part: 0,
                field,
                line: l.line,
                offset: l.offset,
                len: l.len,
                tokens: if self.anonymized {
                    Vec::new()
                } else {
                    l.tokens.clone()
                },
            }));
        }
        serde_json::to_writer(&mut self.lines, &spans).expect("writing to memory");
        self.lines.push(b'\n');
    }

    /// Writes the header and the batch lines to `out`.
    pub(super) fn finish(self, out: &mut dyn Write) -> std::io::Result<()> {
        let header = UsedHeader {
            budgetlab_used_lines: USED_FILE_VERSION,
            batches_sha256: crate::digest::hex(&self.hasher.finalize().into()),
            batches: self.batches,
            rules: self.rules,
            anonymized: self.anonymized,
        };
        serde_json::to_writer(&mut *out, &header)?;
        out.write_all(b"\n")?;
        out.write_all(&self.lines)
    }
}

/// The report's lines about used lines: one a format, then the formats that record no agent text.
pub(super) fn summary(
    tallies: &BTreeMap<&'static str, UsedTally>,
    rules: &UsedRules,
    destination: &str,
) -> Vec<String> {
    let mut lines = Vec::new();
    let parts: Vec<String> = tallies
        .iter()
        .filter(|(_, t)| t.sessions > 0)
        .map(|(format, t)| {
            format!(
                "{format}: {} used tokens on {} lines in {} of {} results",
                t.tokens, t.lines, t.results_used, t.results
            )
        })
        .collect();
    lines.push(format!(
        "used tokens and lines (next {} turns, tokens of {}+ characters) to {destination}: {}",
        rules.turns,
        rules.min_token_len,
        if parts.is_empty() {
            "none measured".to_string()
        } else {
            parts.join("; ")
        }
    ));
    for (format, t) in tallies {
        if t.unmeasured > 0 {
            lines.push(format!(
                "{format}: {} sessions record no assistant message, thought or call arguments; their used lines are \
not measured (null in the used-lines file)",
                t.unmeasured
            ));
        }
    }
    lines
}
