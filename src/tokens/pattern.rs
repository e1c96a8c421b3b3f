//! Pre-tokenization: the split of a text into the pieces a byte-pair encoding merges within, by the regular
//! expressions OpenAI published with `o200k_base` and `cl100k_base`.
//!
//! Both expressions end with `\s+(?!\S)`: a run of whitespace, less its last character when something other than
//! whitespace follows. Rust's `regex` family has no look-ahead, so the expression is compiled without that
//! alternative and with a plain `\s+` last, and a piece matched by that last alternative is shortened by the
//! rule itself: when text follows and the run holds two characters or more, its last character starts the next
//! piece. `cl100k_base`'s possessive quantifiers (`?+`, `++`, `*+`) are written greedy: in that expression no
//! match needs to give anything back, so both forms match the same text.

use std::str::FromStr;

use regex_automata::meta::Regex;
use regex_automata::{Anchored, Input};

use crate::error::{Error, Result};

/// The alternatives of `o200k_base`'s expression before its two whitespace-run alternatives.
const O200K: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
);

/// The alternatives of `cl100k_base`'s expression before its two whitespace-run alternatives.
const CL100K: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)",
    r"|[^\r\n\p{L}\p{N}]?\p{L}+",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*",
    r"|\s+$",
    r"|\s*[\r\n]",
);

/// Which published pre-tokenization expression splits the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pattern {
    /// `o200k_base`'s (GPT-4o, GPT-4.1, GPT-5, o-series): letters split at case changes, numbers in threes,
    /// `/` kept with punctuation.
    O200k,
    /// `cl100k_base`'s (GPT-4, GPT-3.5): letter runs, numbers in threes, contractions.
    Cl100k,
}

impl Pattern {
    /// Both patterns.
    pub const ALL: [Pattern; 2] = [Pattern::O200k, Pattern::Cl100k];

    /// The pattern's name as `--tokenizer-pattern` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::O200k => "o200k",
            Pattern::Cl100k => "cl100k",
        }
    }

    fn alternatives(self) -> &'static str {
        match self {
            Pattern::O200k => O200K,
            Pattern::Cl100k => CL100K,
        }
    }
}

impl FromStr for Pattern {
    type Err = Error;

    fn from_str(s: &str) -> Result<Pattern> {
        match s {
            "o200k" | "o200k_base" => Ok(Pattern::O200k),
            "cl100k" | "cl100k_base" => Ok(Pattern::Cl100k),
            _ => Err(Error::invalid(
                "--tokenizer-pattern",
                s,
                "expected o200k or cl100k",
            )),
        }
    }
}

/// A compiled pre-tokenizer: splits a text into pieces, in order, that together are the whole text.
#[derive(Debug, Clone)]
pub(crate) struct Pretokenizer {
    /// Pattern 0: the expression's other alternatives; pattern 1: a whitespace run.
    regex: Regex,
}

impl Pretokenizer {
    /// The pre-tokenizer of `pattern`.
    pub(super) fn new(pattern: Pattern) -> Pretokenizer {
        let regex = Regex::new_many(&[pattern.alternatives(), r"\s+"])
            .expect("the published pre-tokenization expressions compile");
        Pretokenizer { regex }
    }

    /// The pieces of `text`, in order.
    pub(super) fn pieces<'t>(&'t self, text: &'t str) -> Pieces<'t> {
        Pieces {
            regex: &self.regex,
            text,
            at: 0,
        }
    }
}

/// The iterator of [`Pretokenizer::pieces`].
pub(crate) struct Pieces<'t> {
    regex: &'t Regex,
    text: &'t str,
    at: usize,
}

impl<'t> Iterator for Pieces<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        let text = self.text;
        let start = self.at;
        if start >= text.len() {
            return None;
        }
        let input = Input::new(text).range(start..).anchored(Anchored::Yes);
        let end = match self.regex.find(input) {
            Some(m) if m.pattern().as_usize() == 1 && m.end() < text.len() => {
                // A whitespace run with text after it keeps its last character for the next piece, unless
                // that character is all it has.
                let run = &text[start..m.end()];
                let last = run.chars().next_back().map_or(0, char::len_utf8);
                if run.len() > last {
                    m.end() - last
                } else {
                    m.end()
                }
            }
            Some(m) if m.end() > start => m.end(),
            // Every character is a letter, a number, whitespace or something else, and each of those starts a
            // match; should one ever not, it is a piece of its own rather than a stop.
            _ => start + text[start..].chars().next().map_or(1, char::len_utf8),
        };
        self.at = end;
        Some(&text[start..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(pattern: Pattern, text: &str) -> Vec<&str> {
        let pre = Box::leak(Box::new(Pretokenizer::new(pattern)));
        pre.pieces(text).collect()
    }

    #[test]
    fn o200k_splits_words_numbers_punctuation_and_whitespace() {
        assert_eq!(
            split(Pattern::O200k, "Hello world, it's 12345 CamelCase\n\n  x  "),
            [
                "Hello", " world", ",", " it's", " ", "123", "45", " Camel", "Case", "\n\n", " ",
                " x", "  "
            ]
        );
        assert_eq!(split(Pattern::O200k, "a   b\tc"), ["a", "  ", " b", "\tc"]);
        assert_eq!(split(Pattern::O200k, "src/a.rs"), ["src", "/a", ".rs"]);
        assert_eq!(split(Pattern::O200k, "日志：完成"), ["日志", "：完成"]);
    }

    #[test]
    fn cl100k_splits_contractions_apart() {
        assert_eq!(
            split(Pattern::Cl100k, "it's CamelCase  \n x"),
            ["it", "'s", " CamelCase", "  \n", " x"]
        );
        assert_eq!(split(Pattern::Cl100k, "x   "), ["x", "   "]);
    }

    #[test]
    fn pieces_cover_the_text_exactly() {
        let text = "😀 \u{301}x \r\n\u{3000}\u{3000}y\u{85}  \u{0}\u{7f}";
        for p in Pattern::ALL {
            let pieces = split(p, text);
            assert_eq!(pieces.concat(), text);
            assert!(pieces.iter().all(|s| !s.is_empty()));
        }
    }

    #[test]
    fn pattern_names_parse() {
        assert_eq!("o200k".parse::<Pattern>().unwrap(), Pattern::O200k);
        assert_eq!("cl100k_base".parse::<Pattern>().unwrap(), Pattern::Cl100k);
        assert_eq!(
            "p50k".parse::<Pattern>().unwrap_err().to_string(),
            "invalid --tokenizer-pattern \"p50k\": expected o200k or cl100k"
        );
    }
}
