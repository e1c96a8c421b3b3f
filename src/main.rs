//! The `budgetlab` binary: parses arguments, calls the library, maps errors to exit codes.
//! Bad input exits with status 2 and one line on stderr; a closed stdout pipe is not an error.

mod cli;

use std::io::{self, Read, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;

use budgetlab::scenario::check_batches;
use budgetlab::{
    Backend, BudgetContext, ExternalOptions, ExternalStrategies, FinalizeJob, JobStrategy,
    PlanReminders, StrategyName,
};
use cli::{
    BackendArg, CalibrateArgs, CheckArgs, Cli, Command, CompareArgs, ConformArgs, ExternalArgs,
    FinalizeArgs, GenerateArgs, MergeArgs, ReportArgs, RunArgs, ScenariosArgs, SimulateArgs,
    SweepArgs, TokensArgs,
};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // A bare `budgetlab`: the usage and the commands, on stderr, as for any call that asks for nothing.
            eprint!("{}", e.render());
            return ExitCode::from(2);
        }
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!(
                "budgetlab: {} (see --help)",
                one_line(&e.render().to_string())
            );
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(status) => status,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("budgetlab: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes on one line, like `{:#}`, without repeating a cause that the message before it
/// already ends with (the library's I/O errors name their path and then their cause).
fn message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// clap's multi-line usage error as one line: the message lines before the usage block, joined.
fn one_line(rendered: &str) -> String {
    let message: Vec<&str> = rendered
        .lines()
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    message.join(" ").trim_start_matches("error: ").to_string()
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let kind = match c.downcast_ref::<io::Error>() {
            Some(io) => Some(io.kind()),
            None => c
                .downcast_ref::<serde_json::Error>()
                .and_then(|j| j.io_error_kind()),
        };
        kind == Some(io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Check(args) => return check(args),
        Command::Calibrate(args) => return calibrate(args),
        Command::Conform(args) => return conform(args),
        Command::Finalize(args) => finalize(args),
        Command::Strategies => {
            let mut out = Vec::new();
            let width = StrategyName::ALL
                .iter()
                .map(|s| s.as_str().len())
                .max()
                .unwrap_or(0);
            for s in StrategyName::ALL {
                writeln!(out, "{:<width$} {}", s.as_str(), s.description())?;
            }
            emit(&out)
        }
        Command::Generate(args) => generate(args),
        Command::Scenarios(args) => scenarios(args),
        Command::Run(args) => run_scenarios(args),
        Command::Report(args) => report(args),
        Command::Sweep(args) => sweep(args),
        Command::Simulate(args) => simulate(args),
        Command::Merge(args) => merge(args),
        Command::Compare(args) => compare(args),
        Command::Import(args) => {
            let job = budgetlab::import::ImportJob {
                format: args.format.parse()?,
                paths: args.paths,
                anonymize: args.anonymize.map(budgetlab::Seed),
                skip_bad: args.skip_bad,
            };
            for line in job.write_outputs(args.out.as_deref())?.summary() {
                eprintln!("budgetlab: {line}");
            }
            Ok(())
        }
        Command::Tokens(args) => tokens(args),
    }?;
    Ok(ExitCode::SUCCESS)
}

fn generate(args: GenerateArgs) -> anyhow::Result<()> {
    let mut scenario = budgetlab::Scenario::resolve(&args.scenario)?;
    if let Some(seed) = args.seed {
        scenario.seed = budgetlab::Seed(seed);
    }
    if let Some(batches) = args.batches {
        scenario.batches = check_batches("--batches", batches)?;
    }
    let shard = match &args.shard {
        Some(s) => s.parse()?,
        None => budgetlab::Shard::WHOLE,
    };
    let job = budgetlab::GenerateJob { scenario, shard };
    job.write_outputs(args.out.as_deref(), args.needles.as_deref())?;
    Ok(())
}

fn scenarios(args: ScenariosArgs) -> anyhow::Result<()> {
    let list = match &args.dir {
        Some(dir) => budgetlab::Scenario::load_dir(dir)?,
        None => budgetlab::Scenario::all_shipped(),
    };
    let mut out = Vec::new();
    for s in &list {
        writeln!(out, "{:<18} {}", s.name, s.description)?;
    }
    emit(&out)
}

/// The external strategies and their options, logs defaulting to `default_dir`.
fn externals(
    args: &ExternalArgs,
    default_dir: &str,
) -> anyhow::Result<(ExternalStrategies, ExternalOptions)> {
    let strategies = ExternalStrategies::from_specs(&args.external)?;
    let mut options =
        ExternalOptions::new(args.external_log.as_deref().unwrap_or(default_dir.as_ref()));
    options.timeout = budgetlab::external::parse_timeout(&args.external_timeout)?;
    Ok((strategies, options))
}

fn backend(arg: BackendArg) -> Backend {
    match arg {
        BackendArg::Memory => Backend::Memory,
        BackendArg::Fs => Backend::Fs,
    }
}

/// `finalize --serve`: the protocol's child side for a built-in strategy.
fn serve(args: FinalizeArgs) -> anyhow::Result<()> {
    let strategy: StrategyName = args.strategy.parse().context("--strategy")?;
    let backend = backend(args.backend);
    let out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    budgetlab::external::serve(
        strategy.build().as_ref(),
        &|dir| backend.store(dir),
        io::stdin().lock(),
        out,
    )?;
    Ok(())
}

fn finalize(args: FinalizeArgs) -> anyhow::Result<()> {
    if args.serve {
        return serve(args);
    }
    let budget = args.budget.as_deref().unwrap_or_default();
    let budget = budget.parse().context("--budget")?;
    let (externals, options) = externals(&args.externals, "budgetlab-external")?;
    let strategy =
        JobStrategy::resolve(&args.strategy, &externals, &options).context("--strategy")?;
    let mut ctx = BudgetContext::new(budget);
    ctx.context_window_tokens = args.context_window;
    if !args.plan_reminder_files.is_empty() {
        let texts = args
            .plan_reminder_files
            .iter()
            .map(|p| read_text(p).with_context(|| format!("--plan-reminder-file {}", p.display())))
            .collect::<anyhow::Result<Vec<_>>>()?;
        ctx.reminders = PlanReminders::new(texts);
    }
    let job = FinalizeJob {
        strategy,
        config: Default::default(),
        ctx,
        artifact_dir: args.artifact_dir,
        backend: backend(args.backend),
        fail_ids: args.fail_persist,
    }
    .resolve_artifact_dir()?;
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
    let batch = budgetlab::parse_batch(&bytes, &source)?;
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
    Ok(())
}

/// A failed write to standard output, naming it.
fn stdout_error(e: io::Error) -> budgetlab::Error {
    budgetlab::Error::io("<stdout>", e)
}

/// A failed JSON write to standard output, naming it.
fn stdout_json_error(e: serde_json::Error) -> budgetlab::Error {
    stdout_error(e.into())
}

fn read_text(path: &std::path::Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).map_err(|e| budgetlab::Error::io(path, e))?;
    String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{}: not valid UTF-8", path.display()))
}

/// Writes a complete output to stdout in one go, so an error never leaves half of it behind.
fn emit(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(bytes).map_err(stdout_error)?;
    stdout.flush().map_err(stdout_error)?;
    Ok(())
}

fn run_scenarios(args: RunArgs) -> anyhow::Result<()> {
    let request = budgetlab::run::PlanRequest {
        scenarios: args.scenarios,
        strategies: args.strategies,
        batches: args.batches,
        seed: args.seed,
        shard: args.shard,
        quick: args.quick,
        batches_file: args.batches_file,
        budgets: args.budgets,
        mode: args.mode,
        legacy: args.legacy,
        slowdown: std::env::var_os(budgetlab::run::cost::SLOWDOWN_VAR)
            .map(|v| v.to_string_lossy().into_owned()),
    };
    let plan = request.plan()?;
    budgetlab::report::check_folder(&args.out).context("--out")?;
    if !plan.slowdown.is_empty() {
        eprintln!(
            "budgetlab: {} (test only): {} repeat their work; the cost figures are not real",
            budgetlab::run::cost::SLOWDOWN_VAR,
            plan.slowdown.describe()
        );
    }
    set_threads(args.threads)?;
    let bar = progress(plan.turns(), "turns");
    let output = plan.run(&|n| bar.inc(n));
    bar.finish_and_clear();
    budgetlab::report::write_report(&args.out, &output)?;
    let rows = output.results.rows.len();
    let within = output
        .results
        .rows
        .iter()
        .filter(|r| r.compliance.rate == 1.0)
        .count();
    eprintln!(
        "budgetlab: {} turns, {rows} rows ({within} fully within budget) written to {}",
        plan.turns(),
        args.out.display()
    );
    Ok(())
}

fn report(args: ReportArgs) -> anyhow::Result<()> {
    let redrawn = budgetlab::report::redraw(&args.dir)?;
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
    Ok(())
}

fn sweep(args: SweepArgs) -> anyhow::Result<()> {
    use budgetlab::sweep::{SweepParameter, SweepRequest};
    let parameter = match (args.budgets, args.windows, args.head_shares) {
        (Some(b), _, _) => SweepParameter::Budgets(b),
        (_, Some(w), _) => SweepParameter::Windows(w),
        (_, _, h) => SweepParameter::HeadShares(h.filter(|h| h != "0..1")),
    };
    let plan = SweepRequest {
        scenario: args.scenario,
        parameter,
        steps: args.steps,
        strategies: args.strategies,
        batches: args.batches,
        seed: args.seed,
    }
    .plan()?;
    budgetlab::report::check_folder(&args.out).context("--out")?;
    set_threads(args.threads)?;
    let bar = progress(plan.turns(), "turns");
    let results = plan.run(&|n| bar.inc(n));
    bar.finish_and_clear();
    budgetlab::report::write_sweep(&args.out, &results)?;
    eprintln!(
        "budgetlab: {} turns at {} points written to {}",
        plan.turns(),
        results.points.len(),
        args.out.display()
    );
    Ok(())
}

fn simulate(args: SimulateArgs) -> anyhow::Result<()> {
    let mut scenario = budgetlab::Scenario::resolve(&args.scenario)?;
    if let Some(seed) = args.seed {
        scenario.seed = budgetlab::Seed(seed);
    }
    let strategy: StrategyName = args.strategy.parse()?;
    let batches = check_batches("--batches", args.batches)?;
    let mut job = budgetlab::simulate::SimulateJob::new(scenario, strategy, batches);
    if let Some(mode) = &args.mode {
        job.config.mode = mode.parse()?;
    }
    job.config.legacy |= args.legacy;
    job.config.send_guard = !args.no_send_guard;
    if let Some(units) = args.budget {
        if !(1..=budgetlab::scenario::MAX_BUDGET_UNITS).contains(&units) {
            return Err(budgetlab::Error::invalid(
                "--budget",
                units.to_string(),
                format!(
                    "must be between 1 and {}",
                    budgetlab::scenario::MAX_BUDGET_UNITS
                ),
            )
            .into());
        }
        job.budget = budgetlab::scenario::ScenarioBudget {
            label: format!("abs-{units}"),
            units,
            window_tokens: None,
        };
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    for turn in job.turns() {
        if args.json {
            serde_json::to_writer(&mut out, &turn).map_err(stdout_json_error)?;
            out.write_all(b"\n").map_err(stdout_error)?;
        } else {
            writeln!(out, "{}", turn.table()).map_err(stdout_error)?;
        }
    }
    out.flush().map_err(stdout_error)?;
    Ok(())
}

fn merge(args: MergeArgs) -> anyhow::Result<()> {
    budgetlab::report::check_folder(&args.out).context("--out")?;
    let shards = args
        .dirs
        .iter()
        .map(|dir| budgetlab::run::ShardReport::load(dir))
        .collect::<budgetlab::Result<Vec<_>>>()?;
    let list = budgetlab::run::shard_list(&shards);
    let output = budgetlab::run::merge(shards)?;
    budgetlab::report::write_report(&args.out, &output)?;
    eprintln!(
        "budgetlab: merged shards {list} ({} rows) into {}",
        output.results.rows.len(),
        args.out.display()
    );
    Ok(())
}

/// `budgetlab check`: exit 0 when the gate passes, 1 when it fails; the JUnit file is written before the verdict
/// is printed, so bad output paths fail before anything is shown.
fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    use budgetlab::gate::{CheckJob, JUnitXml, Tolerances, VerdictExporter, VerdictMarkdown};
    let job = CheckJob {
        baseline: args.baseline,
        current: args.current,
        tolerances: Tolerances::from_specs(&args.tolerances)?,
    };
    let verdict = job.run()?;
    if let Some(path) = &args.junit {
        write_file(path, &JUnitXml.serialize(&verdict)).context("--junit")?;
    }
    // `--junit -` puts the XML alone on stdout, in place of the Markdown verdict.
    if !args
        .junit
        .as_deref()
        .is_some_and(budgetlab::atomic::is_stdout)
    {
        emit(&VerdictMarkdown.serialize(&verdict))?;
    }
    Ok(if verdict.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `budgetlab conform`: exit 0 when every check holds, 1 when one fails. Both outputs are checked before the run
/// and written before the table is printed.
fn conform(args: ConformArgs) -> anyhow::Result<ExitCode> {
    use budgetlab::conform;
    let strategy: StrategyName = args.strategy.parse().context("--strategy")?;
    let cases = conform::check_cases(args.cases.unwrap_or(conform::DEFAULT_CASES))?;
    let as_reference = match &args.as_target {
        Some(value) => conform::parse_as(value)?,
        None => false,
    };
    budgetlab::report::check_folder(&args.out).context("--out")?;
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
        folder: args.out.display().to_string(),
    };
    let bar = progress(job.case_set().len(), "cases");
    let report = job.run(&|n| bar.inc(n));
    bar.finish_and_clear();
    conform::write_folder(&args.out, &report)?;
    if let Some(path) = &args.junit {
        write_file(path, conform::junit(&report).as_bytes()).context("--junit")?;
    }
    if !args
        .junit
        .as_deref()
        .is_some_and(budgetlab::atomic::is_stdout)
    {
        emit(conform::markdown(&report).as_bytes())?;
    }
    Ok(if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn compare(args: CompareArgs) -> anyhow::Result<()> {
    let job = budgetlab::gate::CompareJob {
        a: args.a,
        b: args.b,
        cost: args.cost,
    };
    let comparison = job.run()?;
    emit(budgetlab::gate::compare::render(&comparison).as_bytes())
}

fn tokens(args: TokensArgs) -> anyhow::Result<()> {
    let job = budgetlab::tokens::TallyJob {
        input: args.input,
        tokenizer: args.tokenizer,
        pattern: args.tokenizer_pattern,
    };
    let tally = job.run()?;
    emit(
        if args.json {
            tally.json()
        } else {
            tally.markdown()
        }
        .as_bytes(),
    )
}

/// `budgetlab calibrate`: the scenario file, the comparison, and exit 1 when the fit misses.
fn calibrate(args: CalibrateArgs) -> anyhow::Result<ExitCode> {
    // Refuse an output path no file can be written to before the fit, not after it.
    budgetlab::atomic::Destination::resolve(&args.out).context("--out")?;
    let name = match args.name {
        Some(name) => name,
        None if budgetlab::atomic::is_stdout(&args.out) => "calibrated".into(),
        None => args
            .out
            .file_stem()
            .map_or("calibrated".into(), |s| s.to_string_lossy().into_owned()),
    };
    let (batches, source) = budgetlab::calibrate::read_corpus(&args.input)?;
    let fit = budgetlab::calibrate::calibrate(&batches, source, &name)?;
    write_file(&args.out, fit.toml.as_bytes())?;
    if budgetlab::atomic::is_stdout(&args.out) {
        eprint!("{}", fit.markdown());
    } else {
        emit(fit.markdown().as_bytes())?;
    }
    Ok(if fit.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Writes a whole file atomically (`-` is stdout), creating its folder when needed.
fn write_file(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    if budgetlab::atomic::is_stdout(path) {
        return emit(bytes);
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| budgetlab::Error::io(parent, e))?;
    }
    let mut file = budgetlab::atomic::AtomicFile::create(path)?;
    file.write_all(bytes)
        .map_err(|e| budgetlab::Error::io(path, e))?;
    file.commit()?;
    Ok(())
}

/// Sizes the worker pool (`--threads`, checked against its cap); results never depend on it.
fn set_threads(threads: Option<usize>) -> anyhow::Result<()> {
    if let Some(threads) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(budgetlab::run::check_threads(threads)?)
            .build_global()
            .context("--threads")?;
    }
    Ok(())
}

/// A progress bar over `len` simulated turns (or other `units`), drawn on stderr when it is a terminal and silent
/// otherwise.
fn progress(len: u64, units: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} {units} ({{eta}} left)"
        ))
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar
}
