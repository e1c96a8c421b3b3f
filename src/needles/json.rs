//! The top-level keys of a JSON object result, at most [`MAX_JSON_KEYS`] of them.

use super::{DetectedNeedle, MAX_JSON_KEYS};
use crate::generate::NeedleKind;
use crate::text::utf16_len;

/// The top-level keys of `text` when it is a JSON object (its first non-blank character is `{`): each key's
/// quoted text where it stands, pushed to `out`, the first [`MAX_JSON_KEYS`] only. Whether any key was found (a `{` that does not open an object
/// with keys is read as lines instead). A text cut short (a producer preview) still gives the keys before the
/// cut; nothing after the object's closing brace is read.
pub(super) fn json_keys(text: &str, out: &mut Vec<DetectedNeedle>) -> bool {
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') {
        return false;
    }
    let b = text.as_bytes();
    let start = text.len() - trimmed.len();
    let mut depth = 0usize;
    let mut i = start;
    // UTF-16 offset of byte `i`, kept up to date lazily.
    let mut unit_at = (0usize, 0usize);
    let mut units_before = |i: usize| -> usize {
        let (from, units) = unit_at;
        let u = units + utf16_len(&text[from..i]);
        unit_at = (i, u);
        u
    };
    let found = out.len();
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            b'"' => {
                let open = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if i >= b.len() {
                    break;
                }
                let close = i;
                if depth == 1 {
                    let mut j = close + 1;
                    while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\n' | b'\r') {
                        j += 1;
                    }
                    if b.get(j) == Some(&b':') {
                        let offset = units_before(open);
                        out.push(DetectedNeedle {
                            kind: NeedleKind::JsonKey,
                            offset,
                            len: utf16_len(&text[open..=close]),
                        });
                        if out.len() - found == MAX_JSON_KEYS {
                            break;
                        }
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.len() > found
}
