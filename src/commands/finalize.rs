//! `budgetlab finalize`: one batch (a file or stdin) through one strategy, built-in or external, printed as
//! JSON with every persistence attempt; or, with `--serve`, the external-strategy protocol's child side for a
//! built-in strategy on stdin and stdout.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, ValueEnum};

use budgetlab::{Backend, BudgetContext, FinalizeJob, JobStrategy, PlanReminders, StrategyName};

use super::flags::{ExternalArgs, TokenFlags};
use super::output::{check_stdout_open, stdout_error, stdout_json_error};
use super::Status;

/// Examples shown after `budgetlab finalize --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab finalize --budget 8000 --input examples/turn.json --pretty
  budgetlab finalize --budget 8000 --strategy salient --input examples/turn.json";

/// Flags of `budgetlab finalize`.
#[derive(Debug, Args)]
pub(crate) struct FinalizeArgs {
    /// Aggregate budget in UTF-16 units: a decimal integer (<= 0 disables) or `inf`.
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "N|inf",
        required_unless_present = "serve"
    )]
    pub(crate) budget: Option<String>,
    /// The strategy to run (see `budgetlab strategies`), or a NAME registered with --external.
    #[arg(long, default_value = "reference")]
    pub(crate) strategy: String,
    /// Speak the external-strategy protocol (docs/protocol.md) on stdin and stdout with the built-in --strategy,
    /// until the end of the input.
    #[arg(long, conflicts_with_all = [
        "budget", "input", "time", "pretty", "context_window", "plan_reminder_files", "fail_persist",
        "artifact_dir", "external", "tokenizer",
    ])]
    pub(crate) serve: bool,
    /// External strategies.
    #[command(flatten)]
    pub(crate) externals: ExternalArgs,
    /// Directory that artifact paths are under (`DIR/<id>.txt`).
    #[arg(long, default_value = "tool-results", value_name = "DIR")]
    pub(crate) artifact_dir: String,
    /// Where complete outputs are persisted.
    #[arg(long, value_enum, default_value_t = BackendArg::Memory)]
    pub(crate) backend: BackendArg,
    /// Make the write with this persistence id fail (repeatable).
    #[arg(long = "fail-persist", value_name = "ID")]
    pub(crate) fail_persist: Vec<String>,
    /// Replace the built-in lifecycle reminders with this file's exact text (repeatable).
    #[arg(long = "plan-reminder-file", value_name = "FILE")]
    pub(crate) plan_reminder_files: Vec<PathBuf>,
    /// The model's context window in tokens, for policies that scale with it.
    #[arg(long, value_name = "TOKENS", allow_negative_numbers = true)]
    pub(crate) context_window: Option<u64>,
    /// Read the batch from this file instead of standard input.
    #[arg(long, value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,
    /// Also finalize the parsed batch N times in-process (1 to 1,000,000) and print the median time to stderr.
    #[arg(long, value_name = "N", allow_negative_numbers = true,
        value_parser = clap::value_parser!(u32).range(1..=i64::from(budgetlab::MAX_TIMED_RUNS)))]
    pub(crate) time: Option<u32>,
    /// Pretty-print the JSON.
    #[arg(long)]
    pub(crate) pretty: bool,
    /// Token counting.
    #[command(flatten)]
    pub(crate) tokens: TokenFlags,
}

/// Persistence backends selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum BackendArg {
    /// Keep artifacts in memory (paths are still reported).
    Memory,
    /// Write real files under the artifact directory.
    Fs,
}

impl From<BackendArg> for Backend {
    fn from(arg: BackendArg) -> Backend {
        match arg {
            BackendArg::Memory => Backend::Memory,
            BackendArg::Fs => Backend::Fs,
        }
    }
}

impl FinalizeArgs {
    /// The job the flags ask for: strategy, budget context, artifact folder and backend, checked.
    fn job(&self) -> anyhow::Result<FinalizeJob> {
        let budget = self.budget.as_deref().unwrap_or_default();
        let budget = budget.parse().context("--budget")?;
        let (externals, options) = self.externals.resolve("budgetlab-external")?;
        let strategy =
            JobStrategy::resolve(&self.strategy, &externals, &options).context("--strategy")?;
        let mut ctx = BudgetContext::new(budget);
        ctx.context_window_tokens = self.context_window;
        if !self.plan_reminder_files.is_empty() {
            let texts = self
                .plan_reminder_files
                .iter()
                .map(|p| {
                    read_text(p).with_context(|| format!("--plan-reminder-file {}", p.display()))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            ctx.reminders = PlanReminders::new(texts);
        }
        let tokens = self
            .tokens
            .request()
            .map(|r| r.check(self.context_window, "no --context-window was given"))
            .transpose()?;
        Ok(FinalizeJob {
            tokens,
            strategy,
            config: Default::default(),
            ctx,
            artifact_dir: self.artifact_dir.clone(),
            backend: self.backend.into(),
            fail_ids: self.fail_persist.clone(),
        }
        .resolve_artifact_dir()?)
    }
}

/// Refuses an input file that an artifact may replace: a `.txt` file right in the artifact directory of the `fs`
/// backend, where artifacts go as `<id>.txt`.
fn refuse_input_among_artifacts(job: &FinalizeJob, input: &Path) -> anyhow::Result<()> {
    if job.backend != Backend::Fs || input.extension().is_none_or(|x| x != "txt") {
        return Ok(());
    }
    let folder = match input.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => std::fs::canonicalize(parent),
        None => std::env::current_dir(),
    };
    if folder.is_ok_and(|f| f == Path::new(&job.artifact_dir)) {
        anyhow::bail!(budgetlab::Error::invalid(
            "--artifact-dir",
            job.artifact_dir.clone(),
            format!(
                "holds --input {:?}, which an artifact (<id>.txt) may replace; read the batch from elsewhere",
                input.display().to_string()
            ),
        ));
    }
    Ok(())
}

/// Finalizes the batch and prints the report, or serves the protocol with `--serve`.
pub(crate) fn execute(args: FinalizeArgs) -> anyhow::Result<Status> {
    check_stdout_open()?;
    if args.serve {
        return serve(&args);
    }
    let mut job = args.job()?;
    if let Some(input) = &args.input {
        refuse_input_among_artifacts(&job, input)?;
    }
    let (bytes, source) = match &args.input {
        Some(path) => (
            std::fs::read(path).map_err(|e| budgetlab::Error::io(path, e))?,
            path.display().to_string(),
        ),
        None => {
            let mut buf = Vec::new();
            io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| budgetlab::Error::io("<stdin>", e))?;
            (buf, "<stdin>".to_string())
        }
    };
    // Either form of a batch line: the object form's context is told to the strategy (its group is not used).
    let line = budgetlab::parse_batch_line(&bytes, &source)?;
    job.ctx.turn = line.context;
    let batch = line.entries;
    drop(bytes); // the batch owns its text now; the input buffer is not needed any more
    if let Some(runs) = args.time {
        eprintln!("finalize: {}", job.time(&batch, runs as usize)?);
    }
    let report = job.run(batch)?;
    // Nothing can fail from here on but stdout itself, so the report is streamed rather than buffered.
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    if args.pretty {
        serde_json::to_writer_pretty(&mut out, &report).map_err(stdout_json_error)?;
    } else {
        serde_json::to_writer(&mut out, &report).map_err(stdout_json_error)?;
    }
    out.write_all(b"\n").map_err(stdout_error)?;
    out.flush().map_err(stdout_error)?;
    Ok(Status::Done)
}

/// `finalize --serve`: the protocol's child side for a built-in strategy.
fn serve(args: &FinalizeArgs) -> anyhow::Result<Status> {
    let strategy: StrategyName = args.strategy.parse().context("--strategy")?;
    let backend = Backend::from(args.backend);
    let out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    budgetlab::external::serve(
        strategy.build().as_ref(),
        &|dir| backend.store(dir),
        io::stdin().lock(),
        out,
    )?;
    Ok(Status::Done)
}

fn read_text(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).map_err(|e| budgetlab::Error::io(path, e))?;
    String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{}: not valid UTF-8", path.display()))
}
