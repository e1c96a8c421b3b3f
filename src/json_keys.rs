//! The top-level keys of a JSON object, found by scanning its text rather than parsing it, so that a text cut
//! short (a producer's preview) or not quite JSON still gives the keys before the cut. The needle detector's JSON
//! keys (`needles`) and the keys the `salient` strategy keeps both come from [`top_level_strings`]. A leaf: it
//! names no other module.

/// Whether the first non-blank character of `text` opens a JSON object.
pub(crate) fn opens_object(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// One string at the top level of a JSON object's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TopString {
    /// Byte offset of its opening quote.
    pub(crate) open: usize,
    /// Byte offset of its closing quote.
    pub(crate) close: usize,
    /// Whether it stands where a key stands: right after the object's `{` or a top-level `,`, blanks aside.
    pub(crate) in_key_place: bool,
    /// Whether a `:` follows it in the text, blanks aside.
    pub(crate) colon_follows: bool,
}

/// The strings directly inside the object that `text` opens (its first non-blank character is `{`; otherwise
/// none), in order, read from `text[..end]`: strings nested deeper are skipped, a backslash escapes the byte after
/// it, and the scan stops at the object's closing brace, at a string whose closing quote is not before `end`, or
/// at `end`. Lazy: a caller that has enough stops the scan.
pub(crate) fn top_level_strings(text: &str, end: usize) -> TopLevelStrings<'_> {
    let start = text.len() - text.trim_start().len();
    TopLevelStrings {
        bytes: text.as_bytes(),
        end: end.min(text.len()),
        at: start,
        depth: 0,
        key_place: false,
        done: !opens_object(text),
    }
}

/// The iterator of [`top_level_strings`].
pub(crate) struct TopLevelStrings<'a> {
    bytes: &'a [u8],
    end: usize,
    at: usize,
    depth: usize,
    key_place: bool,
    done: bool,
}

impl Iterator for TopLevelStrings<'_> {
    type Item = TopString;

    fn next(&mut self) -> Option<TopString> {
        let b = self.bytes;
        while !self.done && self.at < self.end {
            let c = b[self.at];
            match c {
                b'"' => {
                    let open = self.at;
                    let in_key_place = self.depth == 1 && self.key_place;
                    self.key_place = false;
                    let mut close = open + 1;
                    while close < self.end && b[close] != b'"' {
                        close += if b[close] == b'\\' { 2 } else { 1 };
                    }
                    if close >= self.end {
                        self.done = true;
                        return None;
                    }
                    self.at = close + 1;
                    if self.depth == 1 {
                        let after = b[close + 1..]
                            .iter()
                            .find(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
                        return Some(TopString {
                            open,
                            close,
                            in_key_place,
                            colon_follows: after == Some(&b':'),
                        });
                    }
                    continue;
                }
                b'{' | b'[' => {
                    self.depth += 1;
                    self.key_place = self.depth == 1 && c == b'{';
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.key_place = false;
                    if self.depth == 0 {
                        self.done = true;
                        return None;
                    }
                }
                b',' => self.key_place = self.depth == 1,
                b' ' | b'\t' | b'\n' | b'\r' => {}
                _ => self.key_place = false,
            }
            self.at += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(text: &str, end: usize) -> Vec<(&str, bool, bool)> {
        top_level_strings(text, end)
            .map(|s| (&text[s.open..=s.close], s.in_key_place, s.colon_follows))
            .collect()
    }

    #[test]
    fn top_level_strings_with_their_place_and_colon() {
        let text = " \n{\"a\": \"x\", \"b\" : {\"c\": 1}, \"d\\\"e\": [\"f\"]} \"g\":";
        assert_eq!(
            strings(text, text.len()),
            [
                ("\"a\"", true, true),
                ("\"x\"", false, false),
                ("\"b\"", true, true),
                ("\"d\\\"e\"", true, true),
            ]
        );
        // Not an object, or nothing after the brace: none.
        assert!(strings("[\"a\": 1]", 8).is_empty());
        assert!(strings("x {\"a\": 1}", 10).is_empty());
        // A string is read only when its closing quote lies before `end`; the scan stops at one that does not.
        let cut = "{\"a\": 1, \"bb\": 2, \"c\": 3}";
        assert_eq!(strings(cut, 12), [("\"a\"", true, true)]);
        assert_eq!(strings(cut, 13).len(), 2);
        // A key in the wrong place is still followed by a colon; a value is in a key's place after a comma.
        assert_eq!(
            strings("{\"a\": \"b\": 1, \"c\"}", 18),
            [
                ("\"a\"", true, true),
                ("\"b\"", false, true),
                ("\"c\"", true, false)
            ]
        );
    }
}
