//! `budgetlab conform`: one built-in finalizer held to the design's contract on edge cases, the production
//! vectors and generated batches; the report folder, the table on stdout (or JUnit XML) and the status say
//! whether every check held.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use budgetlab::atomic::{AtomicFile, Destination, Named};
use budgetlab::conform;
use budgetlab::report::ReportWriter;

use super::flags::{ExternalArgs, ReportFolder};
use super::output::{emit, junit_on_stdout, progress, write_file};
use super::Status;

/// Examples shown after `budgetlab conform --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab conform --strategy salient --cases 200 --out reports/conform-salient";

/// Flags of `budgetlab conform`.
#[derive(Debug, Args)]
#[command(mut_arg("out", |arg| arg
    .help("The report folder: conform.json, summary.md and the counterexamples' batch files")
    .default_value("reports/conform")))]
pub(crate) struct ConformArgs {
    /// The strategy to check (see `budgetlab strategies`), or a NAME registered with --external.
    #[arg(long)]
    pub(crate) strategy: String,
    /// External strategies.
    #[command(flatten)]
    pub(crate) externals: ExternalArgs,
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
    /// Print the report as JSON (what conform.json holds) instead of the table.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Runs the checks: [`Status::ChecksFailed`] when one fails. Both outputs are checked before the run and written
/// before the table is printed.
pub(crate) fn execute(args: ConformArgs) -> anyhow::Result<Status> {
    if args.json && junit_on_stdout(args.junit.as_deref()) {
        anyhow::bail!(budgetlab::Error::invalid(
            "--junit",
            "-",
            "standard output already carries the --json report; give --junit a file"
        ));
    }
    let externals = args.externals.registry("budgetlab-external")?;
    // A split surrogate pair is a check that fails (`surrogates-intact`), not a fault that stops the run.
    externals.configure(|o| o.lone_surrogates = budgetlab::external::LoneSurrogatePolicy::Replace);
    let strategy = externals.resolve(&args.strategy).context("--strategy")?;
    let cases = conform::check_cases(args.cases.unwrap_or(conform::DEFAULT_CASES))?;
    let as_reference = match &args.as_target {
        Some(value) => conform::parse_as(value)?,
        None => false,
    };
    let used = std::slice::from_ref(&strategy);
    let logs = args.externals.report_logs();
    let writer = ReportWriter::new(&args.out.dir).with_externals(&externals, used, logs);
    writer.check().context("--out")?;
    // A JUnit file to replace is begun before the run (its temporary file made beside it), so that a folder it
    // cannot be written in is refused before the report is, not after; a stream is opened only at the end.
    let mut junit_file = None;
    if let Some(path) = &args.junit {
        let destination = Destination::resolve(path).context("--junit")?;
        args.out.refuse_holding(&[Named::new("--junit", path)])?;
        if matches!(destination, Destination::Replace(_)) {
            junit_file = Some(AtomicFile::open(path, destination).context("--junit")?);
        }
    }
    let seed = budgetlab::Seed(args.seed.unwrap_or(conform::DEFAULT_SEED));
    let bar = progress(conform::CaseSet::new(seed, cases).len(), "cases");
    let report = writer.write_with(
        |_| {
            let finalizer = strategy.build();
            Ok(conform::ConformJob {
                finalizer: finalizer.as_ref(),
                strategy: strategy.to_string(),
                finalize_flags: externals.flags_for(&strategy).unwrap_or_default(),
                cases,
                seed,
                as_reference,
                folder: args.out.dir.display().to_string(),
            }
            .run(&|n| bar.inc(n)))
        },
        |report| Ok(conform::folder_files(report)),
    )?;
    bar.finish_and_clear();
    let junit = conform::junit(&report);
    match (junit_file, &args.junit) {
        (Some(mut file), Some(path)) => file
            .write_all(junit.as_bytes())
            .map_err(|e| budgetlab::Error::io(path, e))
            .and_then(|()| file.commit())
            .context("--junit")?,
        (None, Some(path)) => write_file(path, junit.as_bytes()).context("--junit")?,
        _ => {}
    }
    if args.json {
        emit(&conform::json(&report))?;
    } else if !junit_on_stdout(args.junit.as_deref()) {
        emit(conform::markdown(&report).as_bytes())?;
    }
    Ok(Status::of_checks(report.passed))
}
