//! `budgetlab import`: agent session logs read into batches (JSON Lines, one model turn a line), optionally
//! anonymized, with a summary of what was read on stderr.

use std::path::PathBuf;

use clap::Args;

use budgetlab::atomic::{refuse_same_file, Named};
use budgetlab::import::ImportJob;

use super::Status;

/// Examples shown after `budgetlab import --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab import --format auto ~/.claude/projects --out mine.jsonl";

/// Flags of `budgetlab import`.
#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// The logs' format (one of the registered formats, or auto: detected per file).
    #[arg(long, value_name = "FORMAT", help = format_help())]
    pub(crate) format: String,
    /// Session files, or folders to walk (recursively, in sorted order).
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// Write the batches to this file (atomically); `-` or nothing: standard output.
    #[arg(long, value_name = "FILE.jsonl|-")]
    pub(crate) out: Option<PathBuf>,
    /// Replace every letter and digit of the results, deterministically per SEED, keeping lengths and shape.
    #[arg(long, value_name = "SEED", allow_negative_numbers = true)]
    pub(crate) anonymize: Option<u64>,
    /// Skip malformed files (counted and named on stderr) instead of stopping at the first.
    #[arg(long)]
    pub(crate) skip_bad: bool,
    /// Write the lines the agent used to this file (default: beside --out FILE, X.jsonl -> X.used.jsonl; not
    /// written when the batches go to standard output or to a device such as /dev/null)
    #[arg(long, value_name = "FILE.used.jsonl")]
    pub(crate) used_out: Option<PathBuf>,
    /// A result's line is used when a token first seen in it appears in what the agent wrote in the next N model
    /// turns (1 to 100)
    #[arg(long, value_name = "N", default_value_t = budgetlab::needles::DEFAULT_USED_TURNS)]
    pub(crate) used_turns: usize,
    /// The shortest distinctive token of a used line, in characters (2 to 64)
    #[arg(long, value_name = "CHARS", default_value_t = budgetlab::needles::DEFAULT_MIN_TOKEN_LEN)]
    pub(crate) used_min_len: usize,
    /// Measuring the rule only: leave out these parts of it (every-line, positions, keywords, path-suffix)
    #[arg(long, value_name = "PARTS", value_delimiter = ',', hide = true)]
    pub(crate) used_rule_off: Vec<String>,
    /// List every file detected, ignored or skipped and every reason results were skipped (default: one line
    /// counting them).
    #[arg(long)]
    pub(crate) verbose: bool,
}

/// The help of `--format`, listing the registered formats.
fn format_help() -> String {
    format!(
        "The logs' format: {}, or auto (detected per file)",
        budgetlab::import::format_names()
    )
}

/// The parts of the used rule left on by `--used-rule-off`.
fn rule_parts(off: &[String]) -> anyhow::Result<budgetlab::needles::RuleParts> {
    let names: Vec<&str> = off.iter().map(String::as_str).collect();
    budgetlab::needles::RuleParts::without(&names).ok_or_else(|| {
        budgetlab::Error::invalid(
            "--used-rule-off",
            off.join(","),
            format!(
                "names a part not among {}",
                budgetlab::needles::RuleParts::NAMES.join(", ")
            ),
        )
        .into()
    })
}

/// Imports the logs and writes the batches.
pub(crate) fn execute(args: ImportArgs) -> anyhow::Result<Status> {
    if args.out.as_deref().is_none_or(budgetlab::atomic::is_stdout) {
        super::output::check_stdout_open()?;
    }
    if let Some(out) = &args.out {
        let paths: Vec<Named> = args.paths.iter().map(|p| Named::new("PATH", p)).collect();
        refuse_same_file(Named::new("--out", out), &paths)?;
    }
    if let Some(used) = &args.used_out {
        let mut paths: Vec<Named> = args.paths.iter().map(|p| Named::new("PATH", p)).collect();
        paths.extend(args.out.as_deref().map(|o| Named::new("--out", o)));
        refuse_same_file(Named::new("--used-out", used), &paths)?;
    }
    let job = ImportJob {
        format: args.format.parse()?,
        paths: args.paths,
        anonymize: args.anonymize.map(budgetlab::Seed),
        skip_bad: args.skip_bad,
        used: budgetlab::needles::UsedRules {
            parts: rule_parts(&args.used_rule_off)?,
            ..budgetlab::needles::UsedRules::new(args.used_turns, args.used_min_len)?
        },
    };
    let report = job.write_outputs(args.out.as_deref(), args.used_out.as_deref())?;
    let lines = if args.verbose {
        report.summary()
    } else {
        report.brief()
    };
    for line in lines {
        eprintln!("budgetlab: {line}");
    }
    Ok(Status::Done)
}
