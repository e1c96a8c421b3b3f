//! `budgetlab report`: the charts and `index.html` of a report folder redrawn from its results (and its per-batch
//! records when present), without running anything.

use std::path::PathBuf;

use clap::Args;

use super::Status;

/// Examples shown after `budgetlab report --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab run --quick
  budgetlab report reports/latest";

/// Flags of `budgetlab report`.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The report folder (with results.json, and batches.jsonl when present; or a sweep's sweep.json).
    #[arg(value_name = "DIR")]
    pub(crate) dir: PathBuf,
}

/// Redraws the folder's charts and page, and says what it read.
pub(crate) fn execute(args: ReportArgs) -> anyhow::Result<Status> {
    let redrawn = budgetlab::report::ReportWriter::new(&args.dir).redraw()?;
    eprintln!(
        "budgetlab: {} charts and index.html redrawn from {}{} in {}",
        redrawn.charts,
        redrawn.source,
        if redrawn.per_batch {
            " and batches.jsonl"
        } else {
            ""
        },
        args.dir.display()
    );
    Ok(Status::Done)
}
