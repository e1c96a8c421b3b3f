//! `budgetlab needles agreement FILE.jsonl`: whether the detector's needles are what agents used, over recorded
//! batches and the used lines `import` wrote beside them; Markdown, or JSON with `--json`.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use budgetlab::needles::{agreement, read_used_file, used_path_for, UsedRead};

use super::output::emit;
use super::Status;

/// Examples shown after `budgetlab needles --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab import --format auto ~/.claude/projects --out mine.jsonl
  budgetlab needles agreement mine.jsonl";

/// Flags of `budgetlab needles`.
#[derive(Debug, Args)]
pub(crate) struct NeedlesArgs {
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: NeedlesCommand,
}

/// The subcommands of `budgetlab needles`.
#[derive(Debug, Subcommand)]
pub(crate) enum NeedlesCommand {
    /// The share of used lines the detector flags, and of detector needles the agent used, per tool and kind.
    #[command(
        after_help = "Examples:\n  budgetlab import --format auto ~/.claude/projects --out mine.jsonl\n  budgetlab needles agreement mine.jsonl --json"
    )]
    Agreement(AgreementArgs),
}

/// Flags of `budgetlab needles agreement`.
#[derive(Debug, Args)]
pub(crate) struct AgreementArgs {
    /// Batches written by `budgetlab import` (their used lines are read from X.used.jsonl beside them).
    #[arg(value_name = "FILE.jsonl")]
    pub(crate) batches: PathBuf,
    /// The used-lines file (default: beside the batches).
    #[arg(long, value_name = "FILE.used.jsonl")]
    pub(crate) used: Option<PathBuf>,
    /// The figures lead with the results longer than this many UTF-16 units (where a finalizer has to choose)
    #[arg(long, value_name = "UNITS", default_value_t = 4000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub(crate) budget: u64,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Runs `budgetlab needles`.
pub(crate) fn execute(args: NeedlesArgs) -> anyhow::Result<Status> {
    let NeedlesCommand::Agreement(args) = args.command;
    let bytes = std::fs::read(&args.batches).map_err(|e| budgetlab::Error::io(&args.batches, e))?;
    let (batches, _) = budgetlab::profile::read_batches_file(&args.batches, None)?;
    let used_path = args
        .used
        .clone()
        .unwrap_or_else(|| used_path_for(&args.batches));
    let used_bytes = std::fs::read(&used_path)
        .map_err(|e| budgetlab::Error::io(&used_path, e))
        .context(
            "the used lines (write them with `budgetlab import --out`, or name them with --used)",
        )?;
    let read = read_used_file(
        &used_bytes,
        &used_path.display().to_string(),
        &batches,
        &budgetlab::digest::sha256_hex(&bytes),
    )?;
    let UsedRead::Found(_, used) = read else {
        bail!(
            "{}: written for other batches than {} (their sha256 differs)",
            used_path.display(),
            args.batches.display()
        );
    };
    let result = agreement(&batches, &used, args.budget);
    if args.json {
        let mut text = serde_json::to_vec_pretty(&result)?;
        text.push(b'\n');
        emit(&text)?;
    } else {
        emit(result.markdown().as_bytes())?;
    }
    Ok(Status::Done)
}
