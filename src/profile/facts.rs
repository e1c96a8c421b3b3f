//! What a profile reads from one batch: the facts of each tool result (its size, lines, shape and needles), as
//! a pure function of the batch, so that batches can be read in parallel and folded in order.

use sha2::{Digest, Sha256};

use crate::model::{Batch, Entry, Field};
use crate::needles::{detect_batch, exit_style};
use crate::needles::{Needle, NeedleKind};
use crate::text::utf16_len;

/// The facts of one tool result (one entry of a batch): every text field of it together (top-level text
/// parts, string outputs and string errors; media and non-string values are not text).
#[derive(Debug, Clone, PartialEq)]
pub struct OutputFacts {
    /// The entry's tool name.
    pub tool: String,
    /// UTF-16 units of its text.
    pub units: u64,
    /// Lines of its text: per field, its `\n` count, plus one when it is not empty and does not end in `\n`.
    pub lines: u64,
    /// It holds a character outside the Basic Multilingual Plane (a surrogate pair in UTF-16).
    pub astral: bool,
    /// It holds any character outside ASCII.
    pub non_ascii: bool,
    /// It holds a CRLF line end.
    pub crlf: bool,
    /// It holds an escape character (U+001B, the start of every ANSI escape sequence).
    pub ansi: bool,
    /// One of its fields is, once trimmed, a whole JSON object or array.
    pub json: bool,
    /// The sha256 of its fields' texts (each field's name and length before its text), `None` when it has no
    /// text: results with equal digests are repeats.
    pub digest: Option<[u8; 32]>,
    /// Its needles, as found by [`crate::needles`]: the kind and the relative position in its field (`None`
    /// for a needle that is its field's whole text, which has no position).
    pub needles: Vec<(NeedleKind, Option<f64>)>,
    /// The styles of its exit lines (see [`exit_style`]), sorted, each once.
    pub exit_styles: Vec<String>,
}

/// The facts of one batch.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchFacts {
    /// One per entry, in order.
    pub outputs: Vec<OutputFacts>,
    /// For a generated batch: the needles planted and, of those, the ones the detector found (same kind, field
    /// and offset, the found line starting with the planted text).
    pub planted: Option<(u64, u64)>,
}

impl BatchFacts {
    /// Reads `batch`; `planted` are the generator's needles when it is generated.
    pub fn of(batch: &Batch, planted: Option<&[Needle]>) -> BatchFacts {
        let detected = detect_batch(batch);
        let mut outputs: Vec<OutputFacts> = batch.iter().map(output_facts).collect();
        for n in &detected {
            let text = batch[n.entry].response_parts[n.part]
                .field(n.field)
                .unwrap_or_default();
            let out = &mut outputs[n.entry];
            out.needles.push((n.kind, position(text, n)));
            if n.kind == NeedleKind::ExitInfo {
                if let Some(style) = exit_style(&n.text) {
                    out.exit_styles.push(style);
                }
            }
        }
        for out in &mut outputs {
            out.exit_styles.sort();
            out.exit_styles.dedup();
        }
        let planted = planted.map(|planted| {
            let found = planted
                .iter()
                .filter(|p| detected.iter().any(|d| is_found(p, d)))
                .count();
            (planted.len() as u64, found as u64)
        });
        BatchFacts { outputs, planted }
    }
}

/// Whether the detected needle `d` is the planted needle `p`: same kind, entry, part, field and offset, and
/// `d`'s line starts with `p`'s text (a planted needle may stop before its line ends).
pub fn is_found(p: &Needle, d: &Needle) -> bool {
    (d.entry, d.part, d.field, d.kind, d.offset) == (p.entry, p.part, p.field, p.kind, p.offset)
        && d.text.starts_with(p.text.as_str())
}

/// Where `n` sits in `text`: its offset over the offsets it could have had (0 at the start, 1 at the end).
fn position(text: &str, n: &Needle) -> Option<f64> {
    let room = utf16_len(text).saturating_sub(utf16_len(&n.text));
    (room > 0).then(|| (n.offset as f64 / room as f64).min(1.0))
}

fn output_facts(entry: &Entry) -> OutputFacts {
    let mut f = OutputFacts {
        tool: entry.tool_name.clone(),
        units: 0,
        lines: 0,
        astral: false,
        non_ascii: false,
        crlf: false,
        ansi: false,
        json: false,
        digest: None,
        needles: Vec::new(),
        exit_styles: Vec::new(),
    };
    let mut hash = Sha256::new();
    for part in &entry.response_parts {
        for field in Field::ALL {
            let Some(text) = part.field(field) else {
                continue;
            };
            let units = utf16_len(text) as u64;
            f.units += units;
            let newlines = text.bytes().filter(|&b| b == b'\n').count() as u64;
            f.lines += newlines + u64::from(!text.is_empty() && !text.ends_with('\n'));
            f.non_ascii |= !text.is_ascii();
            // A character outside the BMP takes two UTF-16 units and four UTF-8 bytes (lead byte 0xF0..0xF4).
            f.astral |= text.bytes().any(|b| b >= 0xF0);
            f.crlf |= text.contains("\r\n");
            f.ansi |= text.as_bytes().contains(&0x1b);
            f.json |= is_json(text);
            hash.update([field as u8]);
            hash.update((text.len() as u64).to_le_bytes());
            hash.update(text.as_bytes());
        }
    }
    if f.units > 0 {
        f.digest = Some(hash.finalize().into());
    }
    f
}

/// Whether `text`, trimmed, is one whole JSON object or array.
fn is_json(text: &str) -> bool {
    let t = text.trim();
    (t.starts_with('{') || t.starts_with('['))
        && serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Part;
    use serde_json::json;

    fn entry(tool: &str, output: &str) -> Entry {
        Entry::new(
            "c",
            tool,
            vec![Part::function_response(
                "c",
                tool,
                Some(json!(output)),
                None,
            )],
        )
    }

    #[test]
    fn shape_of_one_output() {
        // 1 + 2 (CRLF) + 1 + 1 + 2 (the emoji's surrogate pair) + 1 + 5 (ESC [ 3 1 m) + 1 units.
        let f = output_facts(&entry("bash", "a\r\nb 😀\n\x1b[31mc"));
        assert_eq!(
            (
                f.units,
                f.lines,
                f.astral,
                f.non_ascii,
                f.crlf,
                f.ansi,
                f.json
            ),
            (14, 3, true, true, true, true, false)
        );
        let f = output_facts(&entry("bash", "é\n"));
        assert_eq!(
            (f.units, f.lines, f.astral, f.non_ascii),
            (2, 1, false, true)
        );
        let f = output_facts(&entry("mcp", " {\"a\": [1, 2]}\n"));
        assert!(f.json);
        assert!(!output_facts(&entry("mcp", "{\"a\": [1, 2]")).json);
        assert!(!output_facts(&entry("mcp", "\"just a string\"")).json);
        let empty = output_facts(&entry("bash", ""));
        assert_eq!((empty.units, empty.lines, empty.digest), (0, 0, None));
        assert_eq!(
            output_facts(&entry("a", "same")).digest,
            output_facts(&entry("b", "same")).digest
        );
        assert_ne!(
            output_facts(&entry("a", "same")).digest,
            output_facts(&entry("a", "same ")).digest
        );
    }

    #[test]
    fn needles_get_positions_and_exit_styles() {
        // 16 + 12 + 12 units. "Found 2 matches" at 0 (room 40 - 15 = 25): position 0. "Exit code: 1" at 28
        // (room 40 - 12 = 28): position 1.
        let text = "Found 2 matches\nfoo.rs:1: x\nExit code: 1";
        assert_eq!(utf16_len(text), 40);
        let facts = BatchFacts::of(&vec![entry("grep", text)], None);
        let out = &facts.outputs[0];
        assert_eq!(
            out.needles,
            [
                (NeedleKind::SummaryLine, Some(0.0)),
                (NeedleKind::ExitInfo, Some(1.0))
            ]
        );
        assert_eq!(out.exit_styles, ["Exit code: N"]);
        assert_eq!(facts.planted, None);
        // A needle that is the whole text has no position.
        let alone = BatchFacts::of(&vec![entry("bash", "Exit code: 0")], None);
        assert_eq!(alone.outputs[0].needles, [(NeedleKind::ExitInfo, None)]);
    }
}
