//! Text made safe for XML 1.0: the one escaper of the XML that budgetlab writes (the gate's and `conform`'s JUnit
//! reports). A leaf: it names no other module.

/// Text made safe for an XML attribute or element: markup escaped, characters XML 1.0 forbids dropped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_drops_forbidden_characters() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\u{1}\n"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\n"
        );
        // Each forbidden kind dropped on its own; the characters just past them kept.
        assert_eq!(escape("a\u{1F}b\u{FFFE}c\u{FFFF}d"), "abcd");
        assert_eq!(escape("\u{20}\u{FFFD}\u{10000}"), " \u{FFFD}\u{10000}");
    }
}
