//! The library's one error type. Every message names what was wrong and where: the file, the line and column,
//! the entry and field, or the flag, so that the binary can print it as one clear line.

use std::path::PathBuf;

/// Everything that can go wrong in budgetlab's library. The binary maps all of these to exit status 2 (bad input).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is not valid JSON (or holds a lone surrogate escape, which no Rust string can represent).
    #[error("{source_name}: invalid JSON at line {line}, column {column}: {message}")]
    Json {
        /// Where the JSON came from: a file path or `<stdin>`.
        source_name: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// serde_json's description, without its position suffix.
        message: String,
    },
    /// The JSON is well-formed but is not a batch of the documented shape.
    #[error("{source_name}: {message}")]
    Batch {
        /// Where the batch came from: a file path or `<stdin>`.
        source_name: String,
        /// What is wrong, naming the entry index and field.
        message: String,
    },
    /// A value given for a setting (flag or config field) is not acceptable.
    #[error("invalid {what} {value:?}: {reason}")]
    InvalidValue {
        /// The setting, e.g. `--budget`.
        what: String,
        /// The offending value as given.
        value: String,
        /// Why it is rejected and what is accepted instead.
        reason: String,
    },
    /// A scenario file is malformed or holds an invalid value.
    #[error("{path}:{line}: {}{message}", in_field(.field))]
    Scenario {
        /// The scenario file.
        path: String,
        /// 1-based line of the offending field.
        line: usize,
        /// The dotted field name, e.g. `sizes.shell.median`; empty for a syntax error outside any field the
        /// parser could read (an unclosed header, a duplicate key), which the message then names alone.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A results file or report folder is readable but cannot be used as asked: shards of different runs, a
    /// missing or duplicate per-batch record, a shard checked against a whole run.
    #[error("{source_name}: {message}")]
    Report {
        /// The file or folder: a path.
        source_name: String,
        /// What is wrong, and what to do instead when there is something to do.
        message: String,
    },
    /// An output path budgetlab will not write: a folder it did not make, or one no folder can replace.
    #[error("{} {reason}", path.display())]
    Refused {
        /// The path as given.
        path: PathBuf,
        /// Why, starting with a verb ("exists and is not ...").
        reason: String,
    },
    /// A session log given to `budgetlab import` is malformed: its path (and line, for JSON Lines) and what is
    /// wrong there.
    #[error("{location}: {message}")]
    Import {
        /// The file, as `path:line` for a line of a JSON Lines file, `path` for a whole document.
        location: String,
        /// What is wrong, naming the field (or JSON path) when there is one.
        message: String,
    },
    /// A tokenizer's rank file is malformed or too large.
    #[error("{source_name}{}: {message}", at_line(.line))]
    RankFile {
        /// The rank file's path.
        source_name: String,
        /// 1-based line of the problem; `None` when it concerns the whole file.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// An external strategy (a program speaking docs/protocol.md) failed: it could not be started, exited, broke
    /// the protocol, answered the wrong request or took too long. The fault is the program's, never hidden.
    #[error("external strategy {strategy}: {at}: {problem}")]
    External {
        /// The strategy's registered name.
        strategy: String,
        /// Where: `start`, `handshake` or `request N`.
        at: String,
        /// What went wrong, and where the request and the program's stderr were saved.
        problem: String,
    },
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
}

impl Error {
    /// Builds an [`Error::InvalidValue`].
    pub fn invalid(
        what: impl Into<String>,
        value: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Error::InvalidValue {
            what: what.into(),
            value: value.into(),
            reason: reason.into(),
        }
    }

    /// Builds an [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Builds an [`Error::Refused`] for `path`.
    pub fn refused(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Error::Refused {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// Builds an [`Error::RankFile`] about `source_name` (at `line`, when the problem has one).
    pub fn rank_file(
        source_name: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Error::RankFile {
            source_name: source_name.into(),
            line,
            message: message.into(),
        }
    }

    /// Builds an [`Error::Report`] about `source_name`.
    pub fn report(source_name: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Report {
            source_name: source_name.into(),
            message: message.into(),
        }
    }

    /// Converts a serde_json parse error into a position-carrying [`Error::Json`].
    pub fn json(source_name: &str, err: &serde_json::Error) -> Self {
        let full = err.to_string();
        let suffix = format!(" at line {} column {}", err.line(), err.column());
        let mut message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
        if message.contains("hex escape") {
            // serde_json reports an unpaired surrogate such as "\ud800" this way; say what it means.
            message.push_str(" (a lone UTF-16 surrogate or malformed \\u escape: text must be well-formed Unicode)");
        }
        Error::Json {
            source_name: source_name.to_string(),
            line: err.line(),
            column: err.column(),
            message,
        }
    }
}

fn in_field(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!("field `{field}`: ")
    }
}

fn at_line(line: &Option<usize>) -> String {
    line.map(|l| format!(":{l}")).unwrap_or_default()
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The candidate a mistyped `word` most likely meant, for a "did you mean" in a message: the one fewest edits
/// away (insertions, deletions, substitutions, each of a character), when that is at most a third of the word's
/// length (and at least 1, at most 3); `None` when none is that close. Ties go to the first candidate.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let word: Vec<char> = word.chars().collect();
    let most = (word.len() / 3).clamp(1, 3);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let distance = edits(&word, &candidate.chars().collect::<Vec<_>>());
        if distance <= most && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// The edit distance of `a` and `b` (Levenshtein), in two rows.
fn edits(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            row[j + 1] = substitute.min(previous[j + 1] + 1).min(row[j] + 1);
        }
        std::mem::swap(&mut previous, &mut row);
    }
    previous[b.len()]
}

#[cfg(test)]
mod suggestion_tests {
    use super::did_you_mean;

    #[test]
    fn a_near_name_is_suggested_and_a_far_one_is_not() {
        let names = ["reference", "greedy", "salient", "mixed-realistic"];
        assert_eq!(did_you_mean("refrence", names), Some("reference"));
        assert_eq!(
            did_you_mean("mixed-realstic", names),
            Some("mixed-realistic")
        );
        assert_eq!(did_you_mean("gredy", names), Some("greedy"));
        assert_eq!(did_you_mean("magic", names), None);
        assert_eq!(did_you_mean("", names), None);
    }
}
