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
    /// A nightly history database (`budgetlab history`): its trend charts go on the run's page too, in a section
    /// of their own, and into charts/ as trend-*.svg and .png.
    #[arg(long, value_name = "DB")]
    pub(crate) history: Option<PathBuf>,
    /// With --history: only the last N nights.
    #[arg(long, value_name = "N", requires = "history")]
    pub(crate) last: Option<usize>,
}

/// Redraws the folder's charts and page, and says what it read.
pub(crate) fn execute(args: ReportArgs) -> anyhow::Result<Status> {
    let writer = budgetlab::report::ReportWriter::new(&args.dir);
    let redrawn = match &args.history {
        Some(db) => {
            budgetlab::atomic::refuse_inside(
                budgetlab::atomic::Named::new("DIR", &args.dir),
                &[budgetlab::atomic::Named::new("--history", db)],
            )?;
            let history = budgetlab::history::History::open(db)?;
            let table = history.series(&budgetlab::history::Filter {
                last: args.last,
                ..Default::default()
            })?;
            writer.redraw_with_history(&table)?
        }
        None => writer.redraw()?,
    };
    eprintln!(
        "budgetlab: {} charts and index.html redrawn from {}{}{} in {}",
        redrawn.charts,
        redrawn.source,
        if redrawn.per_batch {
            " and batches.jsonl"
        } else {
            ""
        },
        args.history.as_ref().map_or(String::new(), |db| format!(
            " and the history {}",
            db.display()
        )),
        args.dir.display()
    );
    Ok(Status::Done)
}
