//! `budgetlab conform`: one built-in finalizer held to the design's contract on edge cases, the production
//! vectors and generated batches; the report folder, the table on stdout (or JUnit XML) and the status say
//! whether every check held.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use budgetlab::{conform, StrategyName};

use super::flags::ReportFolder;
use super::output::{emit, junit_on_stdout, progress, write_file};
use super::Status;

/// Flags of `budgetlab conform`.
#[derive(Debug, Args)]
#[command(mut_arg("out", |arg| arg
    .help("The report folder: conform.json, summary.md and the counterexamples' batch files")
    .default_value("reports/conform")))]
pub(crate) struct ConformArgs {
    /// The strategy to check (see `budgetlab strategies`).
    #[arg(long)]
    pub(crate) strategy: String,
    /// Cases generated from the shipped scenarios, 0 to 100,000, besides the edge cases and vectors (default 2,000).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) cases: Option<u64>,
    /// Seed of the generated cases (default 0).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub(crate) seed: Option<u64>,
    /// Also hold the strategy to the built-in reference and the production vectors: `--as reference`.
    #[arg(long = "as", value_name = "reference")]
    pub(crate) as_target: Option<String>,
    /// The report folder.
    #[command(flatten)]
    pub(crate) out: ReportFolder,
    /// Also write the checks as JUnit XML to this file (`-`: standard output, instead of the table).
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<PathBuf>,
}

/// Runs the checks: [`Status::ChecksFailed`] when one fails. Both outputs are checked before the run and written
/// before the table is printed.
pub(crate) fn execute(args: ConformArgs) -> anyhow::Result<Status> {
    let strategy: StrategyName = args.strategy.parse().context("--strategy")?;
    let cases = conform::check_cases(args.cases.unwrap_or(conform::DEFAULT_CASES))?;
    let as_reference = match &args.as_target {
        Some(value) => conform::parse_as(value)?,
        None => false,
    };
    args.out.check()?;
    if let Some(path) = &args.junit {
        budgetlab::atomic::Destination::resolve(path).context("--junit")?;
    }
    let finalizer = strategy.build();
    let job = conform::ConformJob {
        finalizer: finalizer.as_ref(),
        strategy: strategy.to_string(),
        finalize_flags: Vec::new(),
        cases,
        seed: budgetlab::Seed(args.seed.unwrap_or(conform::DEFAULT_SEED)),
        as_reference,
        folder: args.out.dir.display().to_string(),
    };
    let bar = progress(job.case_set().len(), "cases");
    let report = job.run(&|n| bar.inc(n));
    bar.finish_and_clear();
    conform::write_folder(&args.out.dir, &report)?;
    if let Some(path) = &args.junit {
        write_file(path, conform::junit(&report).as_bytes()).context("--junit")?;
    }
    if !junit_on_stdout(args.junit.as_deref()) {
        emit(conform::markdown(&report).as_bytes())?;
    }
    Ok(Status::of_checks(report.passed))
}
