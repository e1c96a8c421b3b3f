//! `budgetlab compare A B` / `compare RUN --strategies A,B`: the differences of two runs' tracked metrics, row
//! by row, or of two strategies of one run, as a Markdown table or, with `--json`, as JSON.

use std::path::PathBuf;

use clap::Args;

use super::output::emit;
use super::Status;

/// Examples shown after `budgetlab compare --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab run --quick
  budgetlab compare reports/latest --strategies reference,salient
  budgetlab compare reports/baseline reports/latest";

/// Flags of `budgetlab compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Run A: a report folder, or its results.json.
    #[arg(value_name = "A")]
    pub(crate) a: PathBuf,
    /// Run B: a report folder, or its results.json (not with --strategies).
    #[arg(
        value_name = "B",
        required_unless_present = "strategies",
        conflicts_with = "strategies"
    )]
    pub(crate) b: Option<PathBuf>,
    /// Two strategies of run A side by side, scenario and budget by scenario and budget, instead of two runs.
    #[arg(long, value_name = "A,B")]
    pub(crate) strategies: Option<String>,
    /// Compare the cost too: over the floor, as the gate checks it, and the median time (both differ between
    /// any two runs).
    #[arg(long)]
    pub(crate) cost: bool,
    /// How far a metric may move unshown, METRIC=VALUE[,...] as check's --tolerance (default: any change; cost
    /// and time ±100%, check's cost tolerance); may be repeated.
    #[arg(long, value_name = "SPEC")]
    pub(crate) threshold: Vec<String>,
    /// Print the comparison as JSON instead of Markdown.
    #[arg(long)]
    pub(crate) json: bool,
    /// List every row only one run has (default: past 20, counted per scenario).
    #[arg(long)]
    pub(crate) list: bool,
}

/// Compares the runs and prints the table (or the JSON).
pub(crate) fn execute(args: CompareArgs) -> anyhow::Result<Status> {
    let job = budgetlab::gate::CompareJob {
        a: args.a,
        // clap requires B or --strategies, and not both.
        with: match args.strategies {
            Some(spec) => budgetlab::gate::CompareWith::Strategies(spec),
            None => budgetlab::gate::CompareWith::Run(args.b.unwrap_or_default()),
        },
        cost: args.cost,
        thresholds: args.threshold,
    };
    let comparison = job.run()?;
    if args.json {
        emit(&budgetlab::gate::compare::json(&comparison))?;
    } else {
        emit(budgetlab::gate::compare::render_listing(&comparison, args.list).as_bytes())?;
    }
    Ok(Status::Done)
}
