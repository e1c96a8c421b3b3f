//! Used content: the tokens of a tool result the agent went on to use, and the lines that hold them, read from
//! the session itself rather than guessed from the text's shape, so that a strategy can be judged on what an
//! agent actually needed next.
//!
//! A session is a sequence of [`Utterance`]s in the order they were recorded: the text the agent was given (the
//! task, user messages, the system prompt), what it wrote in each model turn (messages, thoughts, the arguments
//! of its calls) and the tool results, each answering a call of one model turn. [`used_content`] finds, for every
//! result, its used tokens and used lines:
//!
//! - a **word** is a maximal run of letters, digits, `_`, `.`, `/` and `-` with the `.`, `/` and `-` at either
//!   end taken off (an identifier, a path, a dotted name, a number); a path also stands for each of its **tails**
//!   after a `/` (`/repo/src/a.py` is `repo/src/a.py`, `src/a.py` and `a.py`). A **quoted phrase** is the text
//!   between a pair of quotes (`"`, `'` or `` ` ``) on one line that holds a blank. A word or phrase is
//!   **distinctive** when it is at least [`UsedRules::min_token_len`] characters long, holds a letter or digit and
//!   is in no stop list (compared without regard to case): [`STOP_WORDS`] (English and words of any output), the
//!   keywords of Java, Python, JavaScript/TypeScript, Rust, Go and C/C++ ([`LANGUAGE_KEYWORDS`]) and shell words
//!   ([`SHELL_WORDS`]). Tokens are otherwise compared exactly, case included;
//! - a word is **new** in a result when no earlier utterance holds it (the task, an earlier message or thought,
//!   an earlier call's arguments, the call's own arguments, an earlier result); a quoted phrase is new only when
//!   it also holds a distinctive word that is new, so that a phrase quoted from the task is not;
//! - a result's token is **used** when the agent wrote it in one of the next [`UsedRules::turns`] model turns
//!   after the result, other than the turn that made the call (whose calls were all decided before any of its
//!   results came back), in one of these ways: the word, or one of its distinctive tails, is new and the agent
//!   wrote it (as a word or as a tail of a path it wrote); the word is a new path and the agent wrote a path with
//!   a `/` that is one of its tails (`/testbed/src/a/fields.py`, then `open "src/a/fields.py"`: a relative path
//!   against an absolute one, however often `src/a/fields.py` was seen before); the word is a new number of
//!   [`MIN_POSITION_DIGITS`] or more digits and the agent wrote it as a position in a file
//!   ([`position_numbers`]: `goto 1474`, `edit 120:130`, `open src/a.py 880`, `sed -n 120,130p`), or, when it is
//!   long enough to be distinctive, anywhere; the phrase is new and the agent wrote it;
//! - the **used lines** are every line of the result that holds a used token (not only the first), wherever its
//!   text stands but inside a longer word (`Lenient.wrap` holds `Lenient`, `Lenient2` does not). Lines end at
//!   `\n` (a `\r` before it is not part of the line) and ANSI escape sequences are looked through, as the detector
//!   does; a line's needle is the whole line, or for a line longer than [`super::MAX_NEEDLE_LINE_BYTES`] the first
//!   used token on it, where it appears in the raw line.
//!
//! The last results of a session have fewer than `turns` model turns after them, and none the agent never
//! answered: that is what happened, so nothing is made up for them. Pure and deterministic: hash sets and maps are
//! only asked whether they hold a token, never iterated into an output.

use std::collections::{BTreeMap, HashSet};

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
/// The fewest digits of a number that counts when the agent writes it as a position (shorter ones are too
/// common to tell anything: counts, exit codes, small line numbers every view shows).
pub const MIN_POSITION_DIGITS: usize = 3;

/// Words never distinctive however long: English words an agent writes about anything, and words of program
/// output every session holds. Compared in lower case.
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

/// The keywords (and built-in literals) of the common languages, never distinctive: every source file shows them.
/// Compared in lower case.
pub const LANGUAGE_KEYWORDS: &[(&str, &[&str])] = &[
    (
        "Java",
        &[
            "abstract",
            "assert",
            "boolean",
            "break",
            "byte",
            "case",
            "catch",
            "char",
            "class",
            "const",
            "continue",
            "default",
            "double",
            "else",
            "enum",
            "extends",
            "final",
            "finally",
            "float",
            "goto",
            "implements",
            "import",
            "instanceof",
            "int",
            "interface",
            "long",
            "native",
            "new",
            "package",
            "permits",
            "private",
            "protected",
            "public",
            "record",
            "return",
            "sealed",
            "short",
            "static",
            "strictfp",
            "super",
            "switch",
            "synchronized",
            "this",
            "throw",
            "throws",
            "transient",
            "try",
            "var",
            "void",
            "volatile",
            "while",
            "yield",
            "true",
            "false",
            "null",
            "string",
            "override",
        ],
    ),
    (
        "Python",
        &[
            "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
            "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
            "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
            "with", "yield", "none", "true", "false", "self", "cls", "print",
        ],
    ),
    (
        "JavaScript/TypeScript",
        &[
            "break",
            "case",
            "catch",
            "class",
            "const",
            "continue",
            "debugger",
            "default",
            "delete",
            "else",
            "export",
            "extends",
            "finally",
            "for",
            "function",
            "if",
            "import",
            "in",
            "instanceof",
            "new",
            "return",
            "super",
            "switch",
            "this",
            "throw",
            "try",
            "typeof",
            "var",
            "void",
            "while",
            "with",
            "yield",
            "let",
            "static",
            "enum",
            "await",
            "async",
            "implements",
            "package",
            "protected",
            "interface",
            "private",
            "public",
            "abstract",
            "declare",
            "readonly",
            "namespace",
            "module",
            "require",
            "type",
            "keyof",
            "infer",
            "any",
            "unknown",
            "never",
            "boolean",
            "number",
            "string",
            "symbol",
            "undefined",
            "null",
            "true",
            "false",
            "of",
            "get",
            "set",
            "as",
            "is",
        ],
    ),
    (
        "Rust",
        &[
            "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
            "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod",
            "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait",
            "true", "type", "unsafe", "use", "where", "while", "some", "none", "ok", "err",
        ],
    ),
    (
        "Go",
        &[
            "break",
            "case",
            "chan",
            "const",
            "continue",
            "default",
            "defer",
            "else",
            "fallthrough",
            "for",
            "func",
            "go",
            "goto",
            "if",
            "import",
            "interface",
            "map",
            "package",
            "range",
            "return",
            "select",
            "struct",
            "switch",
            "type",
            "var",
            "nil",
            "true",
            "false",
        ],
    ),
    (
        "C/C++",
        &[
            "auto",
            "bool",
            "break",
            "case",
            "char",
            "class",
            "const",
            "constexpr",
            "continue",
            "default",
            "define",
            "delete",
            "do",
            "double",
            "else",
            "endif",
            "enum",
            "explicit",
            "extern",
            "float",
            "for",
            "friend",
            "goto",
            "if",
            "ifdef",
            "ifndef",
            "include",
            "inline",
            "int",
            "long",
            "namespace",
            "new",
            "nullptr",
            "operator",
            "pragma",
            "private",
            "protected",
            "public",
            "register",
            "return",
            "short",
            "signed",
            "sizeof",
            "static",
            "std",
            "struct",
            "switch",
            "template",
            "this",
            "typedef",
            "typename",
            "union",
            "unsigned",
            "using",
            "virtual",
            "void",
            "volatile",
            "while",
        ],
    ),
];

/// Shell words and the commands every session runs, never distinctive. Compared in lower case.
pub const SHELL_WORDS: &[&str] = &[
    "bash", "case", "cat", "cd", "chmod", "cp", "declare", "do", "done", "echo", "elif", "else",
    "esac", "eval", "exec", "exit", "export", "false", "fi", "find", "for", "function", "grep",
    "head", "if", "in", "local", "ls", "mkdir", "mv", "printf", "pwd", "read", "return", "rm",
    "sed", "select", "sh", "shift", "sort", "source", "sudo", "tail", "test", "then", "time",
    "touch", "true", "uniq", "unset", "until", "wc", "while", "xargs",
];

/// Which parts of the rule apply: all of them, except to measure what each part adds (`budgetlab import
/// --used-rule-off`, a hidden flag for that measurement). Not part of the used-lines file's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleParts {
    /// Every line holding a used token is a used line (else only the first).
    pub every_line: bool,
    /// Numbers of [`MIN_POSITION_DIGITS`]+ digits count when written as a position.
    pub positions: bool,
    /// The language keywords and shell words are stop words (else [`STOP_WORDS`] alone).
    pub keywords: bool,
    /// A new path is used when the agent writes a relative path that is one of its tails.
    pub path_suffix: bool,
}

impl Default for RuleParts {
    fn default() -> RuleParts {
        RuleParts {
            every_line: true,
            positions: true,
            keywords: true,
            path_suffix: true,
        }
    }
}

impl RuleParts {
    /// The names of the parts, as `--used-rule-off` takes them.
    pub const NAMES: &'static [&'static str] =
        &["every-line", "positions", "keywords", "path-suffix"];

    /// The rule without the named parts (names from [`RuleParts::NAMES`]); `None` for an unknown name.
    pub fn without(names: &[&str]) -> Option<RuleParts> {
        let mut parts = RuleParts::default();
        for name in names {
            match *name {
                "every-line" => parts.every_line = false,
                "positions" => parts.positions = false,
                "keywords" => parts.keywords = false,
                "path-suffix" => parts.path_suffix = false,
                _ => return None,
            }
        }
        Some(parts)
    }
}

/// How used lines are found: how far ahead a use counts and how long a distinctive token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UsedRules {
    /// Model turns after a result in which a use counts (1 to [`MAX_USED_TURNS`]).
    pub turns: usize,
    /// The shortest distinctive token, in characters ([`MIN_TOKEN_LEN_RANGE`]).
    pub min_token_len: usize,
    /// The parts of the rule that apply (all, but to measure what each adds); not written to the used file.
    #[serde(skip)]
    pub parts: RuleParts,
}

impl Default for UsedRules {
    fn default() -> UsedRules {
        UsedRules {
            turns: DEFAULT_USED_TURNS,
            min_token_len: DEFAULT_MIN_TOKEN_LEN,
            parts: RuleParts::default(),
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
            parts: RuleParts::default(),
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

/// One used line of a result: a line holding a used token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UsedLine {
    /// Its index among the result's lines (0 for the first).
    pub line: usize,
    /// UTF-16 offset of the needle (the line, or the token on a long line) in the result's text.
    pub offset: usize,
    /// The needle's length in UTF-16 units.
    pub len: usize,
    /// The used tokens on this line, in their order on it.
    pub tokens: Vec<String>,
}

/// One used token of a result: a distinctive token first seen in it that the agent wrote in its next turns, with
/// every line that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UsedToken {
    /// The token as it appears in the result.
    pub text: String,
    /// The UTF-16 offset in the result's text of each place it appears, in order.
    pub offsets: Vec<usize>,
    /// Its length in UTF-16 units.
    pub len: usize,
    /// The lines that hold it (indices among the result's lines), in order.
    pub lines: Vec<usize>,
}

/// What the agent used of one result: its used tokens (in the order they first appear) and the lines that hold
/// them (in line order).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UsedResult {
    /// Every line holding a used token.
    pub lines: Vec<UsedLine>,
    /// The used tokens.
    pub tokens: Vec<UsedToken>,
}

/// The used content of every [`Utterance::Result`] of `session`, one a result in their order (see the module
/// documentation).
pub fn used_content(session: &[Utterance<'_>], rules: &UsedRules) -> Vec<UsedResult> {
    let min = rules.min_token_len;
    let parts = rules.parts;
    // What the agent wrote, as token sets, and the next `Said` after each position.
    let said: Vec<Option<SaidSet<'_>>> = session
        .iter()
        .map(|u| match u {
            Utterance::Said { text, .. } => Some(SaidSet::of(text, min, parts)),
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
                for raw in text.split_inclusive('\n') {
                    for t in line_tokens(trim_line_end(raw), min, parts) {
                        see(&mut seen, &t, min, parts);
                    }
                }
                continue;
            }
            Utterance::Result { turn, text } => (turn, text),
        };
        let later = later_turns(session, &said, &next_said, at + 1, turn, rules.turns);
        let lines = result_lines(text, min, parts);
        // Whether each token of the result is used, decided once a token; the used ones in first-seen order.
        let mut decided: HashSet<&str> = HashSet::new();
        let mut tokens: Vec<UsedToken> = Vec::new();
        for line in &lines {
            for t in &line.tokens {
                if decided.insert(t.text) && is_used(t, &seen, &later, min, parts) {
                    tokens.push(UsedToken {
                        text: t.text.to_string(),
                        offsets: Vec::new(),
                        len: utf16_len(t.text),
                        lines: Vec::new(),
                    });
                }
            }
        }
        // Every place of each used token: each line holding its text, a dotted name's part included
        // (`Lenient.wrap` holds `Lenient`), but not inside a longer word. Per line: (place in it, token).
        let mut by_line: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
        for (which, token) in tokens.iter_mut().enumerate() {
            for (index, line) in lines.iter().enumerate() {
                let places = places_in(line.raw, &token.text);
                let Some(&first) = places.first() else {
                    continue;
                };
                if !parts.every_line && !token.lines.is_empty() {
                    break;
                }
                token.offsets.extend(
                    places
                        .iter()
                        .map(|&at| line.offset + utf16_len(&line.raw[..at])),
                );
                token.lines.push(index);
                by_line.entry(index).or_default().push((first, which));
            }
        }
        let mut found = Vec::new();
        for (index, mut used) in by_line {
            used.sort_unstable();
            let line = &lines[index];
            let (offset, len) = if line.raw.len() <= MAX_NEEDLE_LINE_BYTES {
                (line.offset, utf16_len(line.raw))
            } else {
                let (at, first) = used[0];
                (line.offset + utf16_len(&line.raw[..at]), tokens[first].len)
            };
            found.push(UsedLine {
                line: index,
                offset,
                len,
                tokens: used.iter().map(|&(_, i)| tokens[i].text.clone()).collect(),
            });
        }
        out.push(UsedResult {
            lines: found,
            tokens,
        });
        for line in &lines {
            for t in &line.tokens {
                see(&mut seen, t, min, parts);
            }
        }
    }
    out
}

/// Records a token (and a word's path tails) as seen.
fn see(seen: &mut HashSet<String>, t: &Token<'_>, min: usize, parts: RuleParts) {
    let mut add = |k: &str| {
        if !seen.contains(k) {
            seen.insert(k.to_string());
        }
    };
    add(t.text);
    if !t.phrase {
        for tail in path_tails(t.text) {
            if candidate(tail, min, parts) {
                add(tail);
            }
        }
    }
}

/// Whether the token `t` of a result is used: new before the result and written by the agent in `later`.
fn is_used(
    t: &Token<'_>,
    seen: &HashSet<String>,
    later: &[&SaidSet<'_>],
    min: usize,
    parts: RuleParts,
) -> bool {
    let written = |k: &str| later.iter().any(|s| s.tokens.contains(k));
    if t.phrase {
        return tokens_of_phrase(t.text, min, parts).any(|w| !seen.contains(w)) && written(t.text);
    }
    if is_number(t.text) {
        // A number is used when the agent wrote it as a position, or (long enough) as a word.
        return !seen.contains(t.text)
            && (later.iter().any(|s| s.positions.contains(t.text))
                || (distinctive(t.text, min, parts) && written(t.text)));
    }
    // The word or one of its path tails, each new, written by the agent.
    let new_and_written = |k: &str| !seen.contains(k) && written(k);
    if distinctive(t.text, min, parts) && new_and_written(t.text) {
        return true;
    }
    if path_tails(t.text)
        .filter(|k| distinctive(k, min, parts))
        .any(new_and_written)
    {
        return true;
    }
    // A later relative path that is a tail of this new path, however often its parts were seen.
    parts.path_suffix
        && !seen.contains(t.text)
        && path_tails(t.text)
            .filter(|k| k.contains('/') && distinctive(k, min, parts))
            .any(written)
}

/// What the agent wrote in one text: its tokens (words, path tails, quoted phrases) and the numbers it wrote as
/// a position ([`position_numbers`]).
struct SaidSet<'a> {
    tokens: HashSet<&'a str>,
    positions: HashSet<&'a str>,
}

impl<'a> SaidSet<'a> {
    fn of(text: &'a str, min: usize, parts: RuleParts) -> SaidSet<'a> {
        let mut tokens = HashSet::new();
        let mut positions = HashSet::new();
        for raw in text.split_inclusive('\n') {
            let line = trim_line_end(raw);
            for t in line_tokens(line, min, parts) {
                tokens.insert(t.text);
                if !t.phrase {
                    tokens.extend(path_tails(t.text).filter(|k| candidate(k, min, parts)));
                }
            }
            if parts.positions {
                positions.extend(position_numbers(line));
            }
        }
        SaidSet { tokens, positions }
    }
}

/// The token sets of what the agent wrote in the first `k` model turns other than `own` from position `from` on.
fn later_turns<'s, 'a>(
    session: &[Utterance<'a>],
    said: &'s [Option<SaidSet<'a>>],
    next_said: &[usize],
    from: usize,
    own: usize,
    k: usize,
) -> Vec<&'s SaidSet<'a>> {
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

/// Whether `word` is a number of at least [`MIN_POSITION_DIGITS`] digits.
fn is_number(word: &str) -> bool {
    word.len() >= MIN_POSITION_DIGITS && word.bytes().all(|b| b.is_ascii_digit())
}

/// The words after which a number is a position: `goto 1474`, `edit 120:130`, `line 88`, `--view_range 120 130`.
const POSITION_WORDS: &[&str] = &[
    "goto",
    "edit",
    "line",
    "lines",
    "Line",
    "Lines",
    "view_range",
    "--view_range",
];

/// The numbers of [`MIN_POSITION_DIGITS`] or more digits that one line the agent wrote uses as a position in a
/// file: after `goto`, `edit`, `line`/`lines` or `view_range`; after `open PATH` (`open src/a.py 88`); in a `sed`
/// print range (`sed -n 120,130p`, `sed -n 88p`); and the end of a range whose start is one (`120:130`,
/// `120,130`, `120-130`, `[120, 130]`, `120 to 130`).
pub fn position_numbers(line: &str) -> Vec<&str> {
    let words: Vec<(usize, &str)> = line
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '/')))
        .filter(|w| !w.is_empty())
        .map(|w| (w.as_ptr() as usize - line.as_ptr() as usize, w))
        .collect();
    let sed = words.iter().any(|(_, w)| *w == "sed");
    let mut out: Vec<&str> = Vec::new();
    let mut counted = vec![false; words.len()];
    for i in 0..words.len() {
        let (at, w) = words[i];
        // `130p` in a sed range is the number 130.
        let number = match w.strip_suffix('p') {
            Some(n) if sed && is_number(n) => n,
            _ if is_number(w) => w,
            _ => continue,
        };
        let prev = i.checked_sub(1).map(|j| words[j].1);
        let between = |j: usize| line[words[j].0 + words[j].1.len()..at].trim();
        let position = prev.is_some_and(|p| POSITION_WORDS.contains(&p))
            || (2..=3).any(|back| i >= back && words[i - back].1 == "open")
            || (sed
                && (w.ends_with('p') || words.get(i + 1).is_some_and(|(_, n)| n.ends_with('p'))))
            || (i >= 1 && counted[i - 1] && matches!(between(i - 1), ":" | "," | "-" | "to" | ""));
        if position {
            counted[i] = true;
            out.push(number);
        }
    }
    out
}

/// The byte places in `line` where `token` appears, not inside a longer word: the characters either side are
/// neither letters, digits nor `_` (a `.`, `/` or `-` may join it to more: `Lenient.wrap`, `src/a.py`). A line with
/// ANSI sequences is searched between them, so that `ESC[32m` does not join a token.
fn places_in(line: &str, token: &str) -> Vec<usize> {
    let joins = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = Vec::new();
    if token.is_empty() || !line.contains(token) {
        return out;
    }
    let pieces = if line.as_bytes().contains(&0x1b) {
        ansi_free_pieces(line)
    } else {
        vec![line]
    };
    for piece in pieces {
        for (at, _) in piece.match_indices(token) {
            let before = piece[..at].chars().next_back();
            let after = piece[at + token.len()..].chars().next();
            if !joins(before) && !joins(after) {
                out.push(start_in(line, piece) + at);
            }
        }
    }
    out
}

/// One line of a result: where it starts, its raw text (line end removed) and its tokens.
struct ResultLine<'a> {
    offset: usize,
    raw: &'a str,
    tokens: Vec<Token<'a>>,
}

fn result_lines(text: &str, min: usize, parts: RuleParts) -> Vec<ResultLine<'_>> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    for raw in text.split_inclusive('\n') {
        let line = trim_line_end(raw);
        out.push(ResultLine {
            offset,
            raw: line,
            tokens: line_tokens(line, min, parts),
        });
        offset += utf16_len(raw);
    }
    out
}

/// A token of a line, borrowed from it: a word (whose path tails stand for it too) or a quoted phrase.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    phrase: bool,
}

/// The candidate tokens of one line, in order: each distinctive word or number of [`MIN_POSITION_DIGITS`]+
/// digits, or word with a distinctive path tail, then the line's quoted phrases. A line with ANSI sequences is
/// read without them: its tokens are then the tokens of the parts between the sequences.
fn line_tokens(line: &str, min: usize, parts: RuleParts) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    if line.as_bytes().contains(&0x1b) {
        for piece in ansi_free_pieces(line) {
            push_line_tokens(piece, min, parts, &mut out);
        }
    } else {
        push_line_tokens(line, min, parts, &mut out);
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

/// Where `piece` (a slice of `line`) starts in `line`, in bytes.
fn start_in(line: &str, piece: &str) -> usize {
    piece.as_ptr() as usize - line.as_ptr() as usize
}

fn push_line_tokens<'a>(piece: &'a str, min: usize, parts: RuleParts, out: &mut Vec<Token<'a>>) {
    for word in words(piece) {
        if candidate(word, min, parts) || path_tails(word).any(|k| candidate(k, min, parts)) {
            out.push(Token {
                text: word,
                phrase: false,
            });
        }
    }
    for phrase in quoted_phrases(piece) {
        if distinctive(phrase, min, parts) {
            out.push(Token {
                text: phrase,
                phrase: true,
            });
        }
    }
}

/// The tails of a path after each `/` (`repo/src/a.py`: `src/a.py`, `a.py`), each without leading `/`, `.` or
/// `-`.
fn path_tails(word: &str) -> impl Iterator<Item = &str> {
    let mut rest = word;
    std::iter::from_fn(move || {
        let slash = rest.find('/')?;
        rest = rest[slash + 1..].trim_start_matches(['/', '.', '-']);
        Some(rest)
    })
    .filter(|t| !t.is_empty())
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
fn tokens_of_phrase(phrase: &str, min: usize, parts: RuleParts) -> impl Iterator<Item = &str> {
    words(phrase).filter(move |w| distinctive(w, min, parts))
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
fn distinctive(token: &str, min: usize, parts: RuleParts) -> bool {
    let mut chars = 0usize;
    let mut alnum = false;
    for c in token.chars() {
        chars += 1;
        alnum |= c.is_alphanumeric();
    }
    chars >= min && alnum && !is_stop_word(token, parts)
}

/// Whether `token` can be a used token: distinctive, or a number that a later call may use as a position.
fn candidate(token: &str, min: usize, parts: RuleParts) -> bool {
    distinctive(token, min, parts) || (parts.positions && is_number(token))
}

/// The longest word of any stop list, in bytes.
const MAX_STOP_BYTES: usize = 16;

/// Every stop word of [`STOP_WORDS`], [`LANGUAGE_KEYWORDS`] and [`SHELL_WORDS`] in lower case, sorted.
fn all_stop_words() -> &'static [&'static str] {
    static ALL: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut all: Vec<&'static str> = STOP_WORDS
            .iter()
            .chain(LANGUAGE_KEYWORDS.iter().flat_map(|(_, words)| words.iter()))
            .chain(SHELL_WORDS)
            .copied()
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    })
}

fn is_stop_word(token: &str, parts: RuleParts) -> bool {
    if !parts.keywords {
        return token.len() <= 8
            && STOP_WORDS
                .iter()
                .any(|w| w.len() == token.len() && w.eq_ignore_ascii_case(token));
    }
    if token.len() > MAX_STOP_BYTES || !token.is_ascii() {
        return false;
    }
    let mut lower = [0u8; MAX_STOP_BYTES];
    for (l, b) in lower.iter_mut().zip(token.bytes()) {
        *l = b.to_ascii_lowercase();
    }
    let lower = std::str::from_utf8(&lower[..token.len()]).unwrap_or("");
    all_stop_words().binary_search(&lower).is_ok()
}

#[cfg(test)]
mod tests;
