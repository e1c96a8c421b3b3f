//! `budgetlab compare A B`: the differences of two runs' tracked metrics, row by row, as a Markdown table or,
//! with `--json`, as JSON.

use std::path::PathBuf;

use clap::Args;

use super::output::emit;
use super::Status;

/// Flags of `budgetlab compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Run A: a report folder, or its results.json.
    #[arg(value_name = "A")]
    pub(crate) a: PathBuf,
    /// Run B: a report folder, or its results.json.
    #[arg(value_name = "B")]
    pub(crate) b: PathBuf,
    /// Compare the cost too: over the floor, as the gate checks it, and the median time (both differ between
    /// any two runs).
    #[arg(long)]
    pub(crate) cost: bool,
    /// Print the comparison as JSON instead of Markdown.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Compares the runs and prints the table (or the JSON).
pub(crate) fn execute(args: CompareArgs) -> anyhow::Result<Status> {
    let job = budgetlab::gate::CompareJob {
        a: args.a,
        b: args.b,
        cost: args.cost,
    };
    let comparison = job.run()?;
    if args.json {
        emit(&budgetlab::gate::compare::json(&comparison))?;
    } else {
        emit(budgetlab::gate::compare::render(&comparison).as_bytes())?;
    }
    Ok(Status::Done)
}
