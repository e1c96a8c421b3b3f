//! Token counts as the model sees them: every budget in budgetlab is in UTF-16 units, and this module says how
//! many tokens of a real tokenizer a text is.
//!
//! A [`Tokenizer`] is OpenAI's `o200k_base` or `cl100k_base`, built into the binary (by the `bpe-openai` crate,
//! which embeds their rank files; see the book's Performance chapter, "Token counting", for why
//! that crate), or any vocabulary a user has in the
//! tiktoken rank-file format ([`Tokenizer::from_rank_file`]: base64 token, space, rank, one a line), encoded by
//! this module's own byte-pair merge (`merge`) after the pre-tokenization of [`Pattern`]. Counting is ordinary
//! encoding: special tokens such as `<|endoftext|>` are text like any other. A `Tokenizer` is cheap to clone
//! (one `Arc`), `Send` and `Sync`, and [`Tokenizer::count`] takes `&self`, so worker threads share one.
//! [`tally`](mod@tally) is what `budgetlab tokens` reports: units, tokens and units per token of a file of
//! batches, by tool and by kind of output. [`TokenRequest`] is what the `--tokenizer` flags ask for, and
//! [`TokenCheck`] holds one model request to a [`TokenBudget`] (`simulate`, `finalize`).

mod budget;
mod check;
mod merge;
mod pattern;
pub mod rank_file;
pub mod tally;

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

pub use budget::{TokenBudget, MAX_TOKEN_BUDGET};
pub use check::{RequestTokens, TokenCheck, TokenRequest};
pub use pattern::Pattern;
pub use tally::{read_batches, Counts, TallyJob, TextKind, TokenTally};

use crate::error::{Error, Result};
use merge::RankTable;
use pattern::Pretokenizer;

/// A tokenizer built into the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Encoding {
    /// `o200k_base`: GPT-4o, GPT-4.1, GPT-5 and the o-series (199,998 tokens).
    O200kBase,
    /// `cl100k_base`: GPT-4 and GPT-3.5 (100,256 tokens).
    Cl100kBase,
}

impl Encoding {
    /// Both built-in encodings.
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    /// The encoding's name, as `--tokenizer` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// The pre-tokenization the encoding was published with.
    pub fn pattern(self) -> Pattern {
        match self {
            Encoding::O200kBase => Pattern::O200k,
            Encoding::Cl100kBase => Pattern::Cl100k,
        }
    }

    fn engine(self) -> &'static bpe_openai::Tokenizer {
        match self {
            Encoding::O200kBase => bpe_openai::o200k_base(),
            Encoding::Cl100kBase => bpe_openai::cl100k_base(),
        }
    }

    /// The encoding's vocabulary as `(token bytes, rank)` in rank order: what a rank file of it holds.
    pub fn vocabulary(self) -> impl Iterator<Item = (&'static [u8], u32)> {
        let bpe = &self.engine().bpe;
        (0..bpe.num_tokens() as u32).map(move |rank| (bpe.token_bytes(rank), rank))
    }
}

impl FromStr for Encoding {
    type Err = Error;

    fn from_str(s: &str) -> Result<Encoding> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| Error::invalid("--tokenizer", s, "expected o200k_base or cl100k_base"))
    }
}

/// A tokenizer: counts the tokens of a text's ordinary encoding. Clones share one vocabulary.
#[derive(Clone)]
pub struct Tokenizer(Arc<Inner>);

struct Inner {
    name: String,
    engine: Engine,
}

enum Engine {
    Builtin(&'static bpe_openai::Tokenizer),
    RankFile { pre: Pretokenizer, ranks: RankTable },
}

impl Tokenizer {
    /// A built-in encoding. Its vocabulary is unpacked on the first use in the process (about a quarter of a
    /// second for `o200k_base`), here rather than in the first count.
    pub fn builtin(encoding: Encoding) -> Tokenizer {
        Tokenizer(Arc::new(Inner {
            name: encoding.as_str().to_string(),
            engine: Engine::Builtin(encoding.engine()),
        }))
    }

    /// A tokenizer from a tiktoken rank file, with the pre-tokenization of `pattern`. A malformed file is an
    /// [`Error::RankFile`] naming the line; the bounds are in [`rank_file`].
    pub fn from_rank_file(path: &Path, pattern: Pattern) -> Result<Tokenizer> {
        let tokens = rank_file::read(path)?;
        Ok(Tokenizer::from_tokens(
            path.display().to_string(),
            tokens,
            pattern,
        ))
    }

    /// A tokenizer from the bytes of a rank file; `source_name` names it in errors and is its [`name`](Self::name).
    pub fn from_rank_bytes(bytes: &[u8], source_name: &str, pattern: Pattern) -> Result<Tokenizer> {
        let tokens = rank_file::parse(bytes, source_name)?;
        Ok(Tokenizer::from_tokens(
            source_name.to_string(),
            tokens,
            pattern,
        ))
    }

    fn from_tokens(
        name: String,
        tokens: Vec<rank_file::RankedToken>,
        pattern: Pattern,
    ) -> Tokenizer {
        Tokenizer(Arc::new(Inner {
            name,
            engine: Engine::RankFile {
                pre: Pretokenizer::new(pattern),
                ranks: RankTable::new(tokens),
            },
        }))
    }

    /// The tokenizer `--tokenizer NAME|FILE [--tokenizer-pattern P]` names: a built-in encoding's name, or else
    /// the path of a rank file (`./o200k_base` for a file of that name). `pattern` (default `o200k`) applies to a
    /// rank file only.
    pub fn resolve(spec: &str, pattern: Option<&str>) -> Result<Tokenizer> {
        if let Ok(encoding) = spec.parse::<Encoding>() {
            if let Some(p) = pattern {
                return Err(Error::invalid(
                    "--tokenizer-pattern",
                    p,
                    format!(
                        "{spec} has its own pre-tokenization; the pattern applies to a rank file only"
                    ),
                ));
            }
            return Ok(Tokenizer::builtin(encoding));
        }
        let pattern = pattern.map_or(Ok(Pattern::O200k), str::parse)?;
        let path = Path::new(spec);
        if !path.exists() {
            return Err(Error::invalid(
                "--tokenizer",
                spec,
                "not o200k_base, not cl100k_base, and no such file",
            ));
        }
        Tokenizer::from_rank_file(path, pattern)
    }

    /// The tokenizer's name: the encoding's, or the rank file's path.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The number of tokens in the vocabulary.
    pub fn vocabulary_len(&self) -> usize {
        match &self.0.engine {
            Engine::Builtin(t) => t.bpe.num_tokens(),
            Engine::RankFile { ranks, .. } => ranks.len(),
        }
    }

    /// The number of tokens of `text`'s ordinary encoding (no special tokens).
    pub fn count(&self, text: &str) -> usize {
        match &self.0.engine {
            Engine::Builtin(t) => t.count(text),
            Engine::RankFile { pre, ranks } => pre
                .pieces(text)
                .map(|piece| ranks.count(piece.as_bytes()))
                .sum(),
        }
    }
}

impl fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokenizer")
            .field("name", &self.0.name)
            .field("tokens", &self.vocabulary_len())
            .finish()
    }
}

/// Writes `encoding`'s vocabulary as a tiktoken rank file (one `base64 rank` a line).
pub fn write_rank_file(encoding: Encoding, out: &mut impl std::io::Write) -> std::io::Result<()> {
    for (bytes, rank) in encoding.vocabulary() {
        writeln!(out, "{} {rank}", rank_file::encode_base64(bytes))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync + Clone>() {}

    #[test]
    fn a_tokenizer_is_shared_across_threads() {
        assert_send_sync::<Tokenizer>();
        let t = Tokenizer::builtin(Encoding::O200kBase);
        let counts: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|_| {
                    let t = t.clone();
                    s.spawn(move || t.count("hello world"))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(counts, [2, 2]);
    }

    #[test]
    fn names_resolve_to_builtins_and_other_specs_to_files() {
        assert_eq!(
            Tokenizer::resolve("cl100k_base", None).unwrap().name(),
            "cl100k_base"
        );
        assert_eq!(
            Tokenizer::resolve("o200k_base", None)
                .unwrap()
                .vocabulary_len(),
            199_998
        );
        assert_eq!(
            Tokenizer::resolve("o200k_base", Some("cl100k"))
                .unwrap_err()
                .to_string(),
            "invalid --tokenizer-pattern \"cl100k\": o200k_base has its own pre-tokenization; the pattern \
             applies to a rank file only"
        );
        assert_eq!(
            Tokenizer::resolve("gpt2", None).unwrap_err().to_string(),
            "invalid --tokenizer \"gpt2\": not o200k_base, not cl100k_base, and no such file"
        );
    }

    #[test]
    fn a_small_rank_file_counts_by_its_own_merges() {
        let mut text = String::new();
        for b in 0..=255u8 {
            text.push_str(&format!("{} {b}\n", rank_file::encode_base64(&[b])));
        }
        for (i, t) in ["he", "ll", "hell", "hello", " w", " wo", " wor"]
            .iter()
            .enumerate()
        {
            text.push_str(&format!(
                "{} {}\n",
                rank_file::encode_base64(t.as_bytes()),
                256 + i
            ));
        }
        let t = Tokenizer::from_rank_bytes(text.as_bytes(), "tiny", Pattern::O200k).unwrap();
        // Pieces "hello" (a token), " world" (" w", " wo", " wor", then "l" and "d" stay), "!".
        assert_eq!(t.count("hello world!"), 1 + 3 + 1);
        assert_eq!(t.name(), "tiny");
        assert_eq!(t.vocabulary_len(), 263);
    }
}
