//! Used lines: the lines of a tool result the agent went on to use, read from the session itself rather than
//! guessed from the text's shape, so that a strategy can be judged on what an agent actually needed next.
//!
//! A session is a sequence of [`Utterance`]s in the order they were recorded: the text the agent was given (the
//! task, user messages, the system prompt), what it wrote in each model turn (messages, thoughts, the arguments
//! of its calls) and the tool results, each answering a call of one model turn. [`used_lines`] finds, for every
//! result, its used lines:
//!
//! - a **token** is a maximal run of letters, digits, `_`, `.`, `/` and `-` with the `.`, `/` and `-` at either
//!   end taken off (an identifier, a path, a dotted name, a number), or the text between a pair of quotes (`"`,
//!   `'` or `` ` ``) on one line that holds a blank (a quoted phrase). A path also stands for each of its tails
//!   after a `/` (`/repo/src/a.py` is `repo/src/a.py`, `src/a.py` and `a.py`). A token is **distinctive** when it
//!   is at least [`UsedRules::min_token_len`] characters long, holds a letter or digit and is not one of the
//!   [`STOP_WORDS`] (compared without regard to case); tokens are otherwise compared exactly, case included;
//! - a token is **new** in a result when no earlier utterance holds it (the task, an earlier message or thought,
//!   an earlier call's arguments, the call's own arguments, an earlier result, an earlier result of the same
//!   turn); a quoted phrase is new only when it also holds a word that is new, so that a phrase quoted from the
//!   task is not;
//! - a new token is **used** when it is a token of what the agent wrote in one of the next
//!   [`UsedRules::turns`] model turns after the result, other than the turn that made the call (whose calls were
//!   all decided before any of its results came back);
//! - a **used line** is the line of the result where a used token first appears. Lines end at `\n` (a `\r`
//!   before it is not part of the line) and ANSI escape sequences are looked through, as the detector does; the
//!   needle is the whole line, or for a line longer than [`super::MAX_NEEDLE_LINE_BYTES`] the first used token
//!   itself, where it appears in the raw line.
//!
//! The last results of a session have fewer than `turns` model turns after them, and none the agent never
//! answered: that is what happened, so nothing is made up for them. Pure and deterministic: hash sets are only
//! asked whether they hold a token, never iterated into an output.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::{trim_line_end, MAX_NEEDLE_LINE_BYTES};
use crate::error::{Error, Result};
use crate::text::utf16_len;

/// The model turns after a result in which a use counts, by default.
pub const DEFAULT_USED_TURNS: usize = 3;
/// The most model turns after a result that may be asked for.
pub const MAX_USED_TURNS: usize = 100;
/// The shortest distinctive token, in characters, by default.
pub const DEFAULT_MIN_TOKEN_LEN: usize = 4;
/// The range of shortest distinctive tokens that may be asked for.
pub const MIN_TOKEN_LEN_RANGE: std::ops::RangeInclusive<usize> = 2..=64;
/// The longest quoted phrase that is a token, in bytes: longer quotes are prose, not a name.
pub const MAX_QUOTED_BYTES: usize = 200;

/// Words never distinctive however long: English words an agent writes about anything, and the keywords and
/// words of program output every session holds. Compared in lower case.
pub const STOP_WORDS: &[&str] = &[
    "about", "above", "after", "again", "all", "also", "and", "any", "are", "args", "because",
    "been", "before", "being", "below", "between", "both", "but", "can", "cannot", "class",
    "could", "def", "does", "doing", "done", "each", "echo", "elif", "else", "error", "errors",
    "false", "file", "files", "first", "for", "from", "function", "have", "having", "here",
    "import", "into", "just", "last", "let", "line", "lines", "list", "look", "make", "more",
    "most", "need", "next", "none", "not", "now", "null", "only", "other", "output", "pass",
    "passed", "print", "return", "run", "same", "see", "self", "should", "some", "such", "than",
    "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through",
    "true", "try", "under", "until", "use", "used", "using", "very", "want", "was", "were", "what",
    "when", "where", "which", "while", "will", "with", "would", "you", "your",
];

/// How used lines are found: how far ahead a use counts and how long a distinctive token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UsedRules {
    /// Model turns after a result in which a use counts (1 to [`MAX_USED_TURNS`]).
    pub turns: usize,
    /// The shortest distinctive token, in characters ([`MIN_TOKEN_LEN_RANGE`]).
    pub min_token_len: usize,
}

impl Default for UsedRules {
    fn default() -> UsedRules {
        UsedRules {
            turns: DEFAULT_USED_TURNS,
            min_token_len: DEFAULT_MIN_TOKEN_LEN,
        }
    }
}

impl UsedRules {
    /// The rules, refused when `turns` or `min_token_len` is out of its range (the error names the flag).
    pub fn new(turns: usize, min_token_len: usize) -> Result<UsedRules> {
        if !(1..=MAX_USED_TURNS).contains(&turns) {
            return Err(Error::invalid(
                "--used-turns",
                turns.to_string(),
                format!("must be between 1 and {MAX_USED_TURNS}"),
            ));
        }
        if !MIN_TOKEN_LEN_RANGE.contains(&min_token_len) {
            return Err(Error::invalid(
                "--used-min-len",
                min_token_len.to_string(),
                format!(
                    "must be between {} and {}",
                    MIN_TOKEN_LEN_RANGE.start(),
                    MIN_TOKEN_LEN_RANGE.end()
                ),
            ));
        }
        Ok(UsedRules {
            turns,
            min_token_len,
        })
    }
}

/// One recorded piece of a session, in recorded order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Utterance<'a> {
    /// Text the agent was given: the task, a user message, the system prompt, a demonstration.
    Context(&'a str),
    /// Text the agent wrote in model turn `turn` (any number naming the turn): a message, a thought, a call's
    /// arguments.
    Said {
        /// The model turn.
        turn: usize,
        /// The text.
        text: &'a str,
    },
    /// A tool result answering a call of model turn `turn`.
    Result {
        /// The model turn that made the call.
        turn: usize,
        /// The result's text, as the model received it.
        text: &'a str,
    },
}

/// One used line of a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UsedLine {
    /// Its index among the result's lines (0 for the first).
    pub line: usize,
    /// UTF-16 offset of the needle (the line, or the token on a long line) in the result's text.
    pub offset: usize,
    /// The needle's length in UTF-16 units.
    pub len: usize,
    /// The used tokens that first appear on this line, in their order on it.
    pub tokens: Vec<String>,
}

/// The used lines of every [`Utterance::Result`] of `session`, one list a result in their order, each in line
/// order (see the module documentation).
pub fn used_lines(session: &[Utterance<'_>], rules: &UsedRules) -> Vec<Vec<UsedLine>> {
    let min = rules.min_token_len;
    // What the agent wrote, as token sets, and the next `Said` after each position.
    let said: Vec<Option<HashSet<&str>>> = session
        .iter()
        .map(|u| match u {
            Utterance::Said { text, .. } => Some(token_set(text, min)),
            _ => None,
        })
        .collect();
    let mut next_said = vec![session.len(); session.len() + 1];
    for i in (0..session.len()).rev() {
        next_said[i] = if said[i].is_some() {
            i
        } else {
            next_said[i + 1]
        };
    }

    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for (at, utterance) in session.iter().enumerate() {
        let (turn, text) = match *utterance {
            Utterance::Context(text) | Utterance::Said { text, .. } => {
                for t in tokens(text, min) {
                    if !seen.contains(t.text) {
                        seen.insert(t.text.to_string());
                    }
                }
                continue;
            }
            Utterance::Result { turn, text } => (turn, text),
        };
        let later = later_turns(session, &said, &next_said, at + 1, turn, rules.turns);
        let lines = result_lines(text, min);
        // Each new token at its first line, then whether the agent wrote it.
        let mut first_line: HashMap<&str, usize> = HashMap::new();
        let mut used: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
        for (index, line) in lines.iter().enumerate() {
            for t in &line.tokens {
                if seen.contains(t.text) || first_line.contains_key(t.text) {
                    continue;
                }
                if t.phrase && !tokens_of_phrase(t.text, min).any(|w| !seen.contains(w)) {
                    continue;
                }
                first_line.insert(t.text, index);
                if later.iter().any(|s| s.contains(t.text)) {
                    used.entry(index).or_default().push(t.text);
                }
            }
        }
        let mut found = Vec::new();
        for (index, used_tokens) in used {
            let line = &lines[index];
            let (offset, len) = if line.raw.len() <= MAX_NEEDLE_LINE_BYTES {
                (line.offset, utf16_len(line.raw))
            } else {
                match line.raw.find(used_tokens[0]) {
                    Some(at) => (
                        line.offset + utf16_len(&line.raw[..at]),
                        utf16_len(used_tokens[0]),
                    ),
                    None => continue,
                }
            };
            found.push(UsedLine {
                line: index,
                offset,
                len,
                tokens: used_tokens.iter().map(|t| t.to_string()).collect(),
            });
        }
        out.push(found);
        for line in &lines {
            for t in &line.tokens {
                if !seen.contains(t.text) {
                    seen.insert(t.text.to_string());
                }
            }
        }
    }
    out
}

/// The token sets of what the agent wrote in the first `k` model turns other than `own` from position `from` on.
fn later_turns<'s, 'a>(
    session: &[Utterance<'a>],
    said: &'s [Option<HashSet<&'a str>>],
    next_said: &[usize],
    from: usize,
    own: usize,
    k: usize,
) -> Vec<&'s HashSet<&'a str>> {
    let mut turns: Vec<usize> = Vec::new();
    let mut sets = Vec::new();
    let mut i = next_said[from.min(session.len())];
    while i < session.len() {
        if let (Utterance::Said { turn, .. }, Some(set)) = (&session[i], &said[i]) {
            if *turn != own {
                if !turns.contains(turn) {
                    if turns.len() == k {
                        break;
                    }
                    turns.push(*turn);
                }
                sets.push(set);
            }
        }
        i = next_said[i + 1];
    }
    sets
}

/// One line of a result: where it starts, its raw text (line end removed) and its tokens.
struct ResultLine<'a> {
    offset: usize,
    raw: &'a str,
    tokens: Vec<Token<'a>>,
}

fn result_lines(text: &str, min: usize) -> Vec<ResultLine<'_>> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    for raw in text.split_inclusive('\n') {
        let line = trim_line_end(raw);
        out.push(ResultLine {
            offset,
            raw: line,
            tokens: line_tokens(line, min),
        });
        offset += utf16_len(raw);
    }
    out
}

/// A distinctive token, borrowed from its text; `phrase` for a quoted phrase.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    phrase: bool,
}

/// The distinctive tokens of `text`, line by line.
fn tokens(text: &str, min: usize) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    for raw in text.split_inclusive('\n') {
        out.extend(line_tokens(trim_line_end(raw), min));
    }
    out
}

fn token_set(text: &str, min: usize) -> HashSet<&str> {
    tokens(text, min).into_iter().map(|t| t.text).collect()
}

/// The distinctive tokens of one line, in order: each word (with its path tails), and the line's quoted
/// phrases. A line with ANSI sequences is read without them: its tokens are then the tokens of the parts between
/// the sequences.
fn line_tokens(line: &str, min: usize) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    if line.as_bytes().contains(&0x1b) {
        for piece in ansi_free_pieces(line) {
            push_line_tokens(piece, min, &mut out);
        }
    } else {
        push_line_tokens(line, min, &mut out);
    }
    out
}

/// The parts of `line` between its ANSI escape sequences.
fn ansi_free_pieces(line: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != 0x1b {
            i += 1;
            continue;
        }
        pieces.push(&line[start..i]);
        // ESC '[' params final, or ESC and one character (as `strip_ansi` reads them).
        let rest = &line[i + 1..];
        let mut chars = rest.char_indices();
        let mut end = rest.len();
        match chars.next() {
            Some((_, '[')) => {
                for (j, c) in chars {
                    if ('@'..='~').contains(&c) {
                        end = j + c.len_utf8();
                        break;
                    }
                }
            }
            Some((_, c)) => end = c.len_utf8(),
            None => end = 0,
        }
        i += 1 + end;
        start = i;
    }
    pieces.push(&line[start.min(line.len())..]);
    pieces
}

fn push_line_tokens<'a>(line: &'a str, min: usize, out: &mut Vec<Token<'a>>) {
    for word in words(line) {
        push_word(word, min, out);
    }
    for phrase in quoted_phrases(line) {
        if distinctive(phrase, min) {
            out.push(Token {
                text: phrase,
                phrase: true,
            });
        }
    }
}

/// A word and its path tails, those that are distinctive.
fn push_word<'a>(word: &'a str, min: usize, out: &mut Vec<Token<'a>>) {
    if distinctive(word, min) {
        out.push(Token {
            text: word,
            phrase: false,
        });
    }
    let mut rest = word;
    while let Some(slash) = rest.find('/') {
        rest = rest[slash + 1..].trim_start_matches(['/', '.', '-']);
        if distinctive(rest, min) {
            out.push(Token {
                text: rest,
                phrase: false,
            });
        }
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')
}

/// The maximal runs of word characters of `line`, with `.`, `/` and `-` trimmed from both ends.
fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !is_word_char(c))
        .map(|w| w.trim_matches(['.', '/', '-']))
        .filter(|w| !w.is_empty())
}

/// The words of a quoted phrase that are distinctive (to check that the phrase holds a new one).
fn tokens_of_phrase(phrase: &str, min: usize) -> impl Iterator<Item = &str> {
    words(phrase).filter(move |w| distinctive(w, min))
}

/// The texts between a pair of the same quote on `line` that hold a blank, at most [`MAX_QUOTED_BYTES`] long and
/// trimmed of blanks.
fn quoted_phrases(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut open: Option<(char, usize)> = None;
    for (i, c) in line.char_indices() {
        if !matches!(c, '"' | '\'' | '`') {
            continue;
        }
        match open {
            Some((q, start)) if q == c => {
                let inside = line[start..i].trim();
                if inside.contains(char::is_whitespace) && inside.len() <= MAX_QUOTED_BYTES {
                    out.push(inside);
                }
                open = None;
            }
            Some(_) => {}
            None => open = Some((c, i + 1)),
        }
    }
    out
}

/// Whether `token` is long enough, holds a letter or digit and is not a stop word.
fn distinctive(token: &str, min: usize) -> bool {
    let mut chars = 0usize;
    let mut alnum = false;
    for c in token.chars() {
        chars += 1;
        alnum |= c.is_alphanumeric();
    }
    chars >= min && alnum && !is_stop_word(token)
}

fn is_stop_word(token: &str) -> bool {
    token.len() <= 8
        && STOP_WORDS
            .iter()
            .any(|w| w.len() == token.len() && w.eq_ignore_ascii_case(token))
}

#[cfg(test)]
mod tests;
