//! `budgetlab check`: the nightly gate. A run is checked against a stored baseline; the verdict goes to stdout as
//! Markdown (and as JUnit XML to `--junit`), and the status says whether the gate passed.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use budgetlab::atomic::{refuse_same_file, Named};
use budgetlab::gate::{
    results_file, CheckJob, JUnitXml, Tolerances, VerdictExporter, VerdictJson, VerdictMarkdown,
};

use super::output::{begin_file, emit, finish_file, junit_on_stdout};
use super::Status;

/// Examples shown after `budgetlab check --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab run --quick
  budgetlab check --baseline reports/baseline --junit reports/junit.xml";

/// Flags of `budgetlab check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The baseline: a results.json, or a report folder holding one.
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: PathBuf,
    /// The run to check: a report folder, or its results.json.
    #[arg(long, default_value = "reports/latest", value_name = "DIR")]
    pub(crate) current: PathBuf,
    /// Tolerances, METRIC=VALUE[,METRIC=VALUE...] (repeatable). Metrics: compliance, retention, needles
    /// (default ±0.005 absolute), writes (±5%), cost (the strategy's time over the floor's, ±100%), time (the
    /// median time per batch, off). VALUE: X in the metric's kind (absolute for shares, relative for writes, cost
    /// and time), X% (relative), abs:X, rel:X, or off.
    #[arg(long = "tolerance", value_name = "SPEC")]
    pub(crate) tolerances: Vec<String>,
    /// Also write the checks as JUnit XML to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<PathBuf>,
    /// Print the verdict as JSON (every check, passed or failed) instead of Markdown.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Checks the run: [`Status::ChecksFailed`] when the gate fails. The JUnit file is written before the verdict is
/// printed, so a bad output path fails before anything is shown.
pub(crate) fn execute(args: CheckArgs) -> anyhow::Result<Status> {
    if args.json && junit_on_stdout(args.junit.as_deref()) {
        anyhow::bail!(budgetlab::Error::invalid(
            "--junit",
            "-",
            "standard output already carries the --json verdict; give --junit a file"
        ));
    }
    if let Some(junit) = &args.junit {
        refuse_same_file(
            Named::new("--junit", junit),
            &[
                Named::new("--baseline", &results_file(&args.baseline)),
                Named::new("--current", &results_file(&args.current)),
            ],
        )?;
    }
    // A JUnit file that cannot be written is refused before the runs are read and checked.
    let begun = match &args.junit {
        Some(path) => begin_file(path).context("--junit")?,
        None => None,
    };
    let job = CheckJob {
        baseline: args.baseline,
        current: args.current,
        tolerances: Tolerances::from_specs(&args.tolerances)?,
    };
    let verdict = job.run()?;
    if let Some(path) = &args.junit {
        finish_file(begun, path, &JUnitXml.serialize(&verdict)).context("--junit")?;
    }
    // `--junit -` puts the XML alone on stdout, in place of the Markdown verdict.
    if args.json {
        emit(&VerdictJson.serialize(&verdict))?;
    } else if !junit_on_stdout(args.junit.as_deref()) {
        emit(&VerdictMarkdown.serialize(&verdict))?;
    }
    Ok(Status::of_checks(verdict.passed()))
}
