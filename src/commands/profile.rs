//! `budgetlab profile`: the shape of tool output in batches files or scenarios, as Markdown, and with `--out` a
//! report folder (profile.json, summary.md, the charts).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use budgetlab::atomic::{refuse_inside, Named};
use budgetlab::profile::{markdown, ProfileJob};

use super::flags::existing_path;
use super::output::emit;
use super::Status;

/// Examples shown after `budgetlab profile --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab import --format auto ~/.claude/projects --out mine.jsonl
  budgetlab profile mine.jsonl --compare mixed-realistic --out reports/profile";

/// Flags of `budgetlab profile`.
#[derive(Debug, Args)]
pub(crate) struct ProfileArgs {
    /// Batches files (JSON Lines, one batch a line) or scenarios (a .toml file or a shipped name), each profiled.
    #[arg(required = true, value_name = "SOURCE")]
    pub(crate) sources: Vec<String>,
    /// A source to compare every SOURCE with (side by side, with the differences).
    #[arg(long, value_name = "SOURCE")]
    pub(crate) compare: Option<String>,
    /// Batches per source, 1 to 1,000,000 (a scenario's first N, default its own number; a file's first N).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) batches: Option<u64>,
    /// Also write a report folder: profile.json, summary.md and the charts.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Print the profiles as JSON (what profile.json holds) instead of Markdown.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Profiles the sources; the folder given to `--out` is checked before anything is read, and written before the
/// Markdown (or the JSON) is printed.
pub(crate) fn execute(args: ProfileArgs) -> anyhow::Result<Status> {
    if let Some(out) = &args.out {
        budgetlab::report::check_folder(out).context("--out")?;
        let sources = args.sources.iter().map(|s| ("SOURCE", s));
        let inputs: Vec<Named> = sources
            .chain(args.compare.iter().map(|s| ("--compare", s)))
            .filter_map(|(flag, s)| existing_path(flag, s))
            .collect();
        refuse_inside(Named::new("--out", out), &inputs)?;
    }
    let report = ProfileJob {
        sources: args.sources,
        compare: args.compare,
        batches: args.batches,
    }
    .run()?;
    if let Some(out) = &args.out {
        budgetlab::report::ReportWriter::new(out).profile(&report)?;
    }
    if args.json {
        emit(&report.json()?)?;
    } else {
        emit(markdown(&report).as_bytes())?;
    }
    Ok(Status::Done)
}
