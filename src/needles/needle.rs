//! The needle vocabulary: the pieces of an output that a reader must still be able to see after finalization
//! (the exit information, the first error line, the closing summary line, the top-level keys of a JSON result,
//! the lines an agent used).
//!
//! The generator plants them where real tools put them (mostly at the end of shell logs, at the start of JSON),
//! the detector finds them in any text, and `import` finds the lines an agent used; all report them beside the
//! batch, never inside it: each needle names its entry, part and field and gives its exact text and UTF-16
//! offset in that field, so a later measurement can tell whether a strategy kept it.

use serde::{Deserialize, Serialize};

use crate::model::{Batch, Field};

/// What a needle is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NeedleKind {
    /// The exit information at the end of a command's output (`Exit Code: 101`).
    ExitInfo,
    /// The first error line of a log or trace (`error[E0308]: mismatched types`).
    FirstError,
    /// The closing summary line (`test result: FAILED. ...`, `== 3 failed, 41 passed in 2.10s ==`).
    SummaryLine,
    /// A top-level key of a JSON result, quoted as it appears (`"total_count"`).
    JsonKey,
    /// A line the turn's context points at (the window a call asked for, the test the task names, the hit the
    /// assistant looks for), planted in the middle of a long output by a scenario's `[focus]`.
    Relevant,
    /// A line of a recorded result that the agent went on to use (found by `budgetlab import`); never planted,
    /// and measured apart from the other kinds.
    Used,
    /// One place of a token of a recorded result that the agent went on to use (found by `budgetlab import`);
    /// never planted, measured apart from the other kinds, a token surviving when any of its places' text is
    /// still visible in its field.
    UsedToken,
}

/// One planted needle, located in a generated batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Needle {
    /// What it is.
    pub kind: NeedleKind,
    /// Its exact text, as it appears in the field.
    pub text: String,
    /// Index of the entry in the batch.
    pub entry: usize,
    /// Index of the part in the entry's `responseParts`.
    pub part: usize,
    /// The field of the part that holds it.
    pub field: Field,
    /// UTF-16 offset of its first unit within the field's text.
    pub offset: usize,
}

impl Needle {
    /// Whether the needle is still present, unchanged and at its offset, in `batch`.
    pub fn is_at_place_in(&self, batch: &Batch) -> bool {
        let Some(text) = batch
            .get(self.entry)
            .and_then(|e| e.response_parts.get(self.part))
            .and_then(|p| p.field(self.field))
        else {
            return false;
        };
        let start = crate::text::head(text, self.offset);
        crate::text::utf16_len(start) == self.offset
            && text[start.len()..].starts_with(self.text.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entry, Part};

    #[test]
    fn locates_needles_by_utf16_offset() {
        let out = "😀 ok\nExit Code: 0".to_string();
        let batch = vec![Entry::new(
            "c",
            "shell",
            vec![Part::function_response(
                "c",
                "shell",
                Some(out.into()),
                None,
            )],
        )];
        let mut n = Needle {
            kind: NeedleKind::ExitInfo,
            text: "Exit Code: 0".into(),
            entry: 0,
            part: 0,
            field: Field::Output,
            offset: 6,
        };
        assert!(n.is_at_place_in(&batch));
        n.offset = 5;
        assert!(!n.is_at_place_in(&batch));
        n.offset = 6;
        n.field = Field::Error;
        assert!(!n.is_at_place_in(&batch));
        let json = serde_json::to_string(&n).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"exit-info","text":"Exit Code: 0","entry":0,"part":0,"field":"error","offset":6}"#
        );
    }
}
