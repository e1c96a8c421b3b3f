//! `budgetlab tokens`: the tokens of batches by tool and by kind of output, as Markdown tables or one JSON object.

use std::path::PathBuf;

use clap::Args;

use budgetlab::tokens::TallyJob;

use super::output::emit;
use super::Status;

/// Examples shown after `budgetlab tokens --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab generate --scenario cjk-heavy --batches 20 --out cjk.jsonl
  budgetlab tokens cjk.jsonl --tokenizer cl100k_base";

/// Flags of `budgetlab tokens`.
#[derive(Debug, Args)]
pub(crate) struct TokensArgs {
    /// The batches: JSON Lines, one batch a line (as `generate` writes them), or one batch (as `finalize` reads
    /// it); `-` reads standard input.
    #[arg(value_name = "FILE.jsonl")]
    pub(crate) input: PathBuf,
    /// o200k_base, cl100k_base, or a tiktoken rank file (base64 token, space, rank, one a line).
    #[arg(long, default_value = "o200k_base", value_name = "NAME|FILE")]
    pub(crate) tokenizer: String,
    /// The pre-tokenization of a rank file: o200k (the default) or cl100k.
    #[arg(long, value_name = "o200k|cl100k")]
    pub(crate) tokenizer_pattern: Option<String>,
    /// One JSON object instead of the Markdown tables.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Counts the tokens and prints the tally.
pub(crate) fn execute(args: TokensArgs) -> anyhow::Result<Status> {
    let job = TallyJob {
        input: args.input,
        tokenizer: args.tokenizer,
        pattern: args.tokenizer_pattern,
    };
    let tally = job.run()?;
    let text = if args.json {
        tally.json()
    } else {
        tally.markdown()
    };
    emit(text.as_bytes())?;
    Ok(Status::Done)
}
