//! `budgetlab calibrate`: a scenario fitted to a corpus of batches, the comparison of its batches with the
//! corpus, and exit 1 when the fit misses.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use budgetlab::atomic::{is_stdout, refuse_same_file, Named};
use budgetlab::calibrate::{calibrate, read_corpus};

use super::output::{begin_file, emit, finish_file, progress};
use super::Status;

/// Examples shown after `budgetlab calibrate --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab generate --scenario shell-heavy --batches 200 --out corpus.jsonl
  budgetlab calibrate corpus.jsonl --out fitted.toml
  budgetlab run --scenarios fitted.toml --out reports/fitted";

/// Flags of `budgetlab calibrate`.
#[derive(Debug, Args)]
pub(crate) struct CalibrateArgs {
    /// The corpus: batches, one a line (as `import` writes them).
    #[arg(value_name = "FILE.jsonl")]
    pub(crate) input: PathBuf,
    /// The scenario file to write (atomically); `-`: standard output, the comparison then on stderr.
    #[arg(long, value_name = "NAME.toml")]
    pub(crate) out: PathBuf,
    /// The scenario's name (default: the file name of --out without `.toml`).
    #[arg(long, value_name = "NAME")]
    pub(crate) name: Option<String>,
    /// Print the mapping and the comparison as JSON instead of Markdown.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Fits, writes the scenario and prints the comparison.
pub(crate) fn execute(args: CalibrateArgs) -> anyhow::Result<Status> {
    refuse_same_file(
        Named::new("--out", &args.out),
        &[Named::new("FILE.jsonl", &args.input)],
    )?;
    // An output path no file can be written at is refused before the fit (8 to 36 s on a corpus), not after it:
    // its temporary file is made now.
    let begun = begin_file(&args.out).context("--out")?;
    let name = match args.name {
        Some(name) => name,
        None if is_stdout(&args.out) => "calibrated".into(),
        None => args
            .out
            .file_stem()
            .map_or("calibrated".into(), |s| s.to_string_lossy().into_owned()),
    };
    let (batches, source) = read_corpus(&args.input)?;
    let bar = progress(budgetlab::calibrate::PROGRESS_STEPS, "steps of fitting");
    let fit = calibrate(&batches, source, &name, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    finish_file(begun, &args.out, fit.toml.as_bytes()).context("--out")?;
    let comparison = if args.json {
        fit.json()
    } else {
        fit.markdown()
    };
    if is_stdout(&args.out) {
        eprint!("{comparison}");
    } else {
        emit(comparison.as_bytes())?;
    }
    Ok(Status::of_checks(fit.passed()))
}
