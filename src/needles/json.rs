//! The top-level keys of a JSON object result, at most [`MAX_JSON_KEYS`] of them.

use super::{DetectedNeedle, NeedleKind, MAX_JSON_KEYS};
use crate::json_keys::top_level_strings;
use crate::text::utf16_len;

/// The top-level keys of `text` when it is a JSON object (its first non-blank character is `{`): each key's
/// quoted text where it stands (a top-level string followed by a `:`), pushed to `out`, the first
/// [`MAX_JSON_KEYS`] only. Whether any key was found (a `{` that does not open an object with keys is read as
/// lines instead). A text cut short (a producer preview) still gives the keys before the cut; nothing after the
/// object's closing brace is read.
pub(super) fn json_keys(text: &str, out: &mut Vec<DetectedNeedle>) -> bool {
    // UTF-16 offset of a byte, kept up to date from the last key's (keys come in order).
    let mut unit_at = (0usize, 0usize);
    let mut units_before = |i: usize| -> usize {
        let (from, units) = unit_at;
        let u = units + utf16_len(&text[from..i]);
        unit_at = (i, u);
        u
    };
    let found = out.len();
    for key in top_level_strings(text, text.len()).filter(|s| s.colon_follows) {
        out.push(DetectedNeedle {
            kind: NeedleKind::JsonKey,
            offset: units_before(key.open),
            len: utf16_len(&text[key.open..=key.close]),
        });
        if out.len() - found == MAX_JSON_KEYS {
            break;
        }
    }
    out.len() > found
}
