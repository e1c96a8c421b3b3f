//! Command-line argument types (clap derive) and nothing else: `main` converts them into the library's
//! validated configuration.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// budgetlab: benchmark and simulate tool-output budget finalizers.
#[derive(Debug, Parser)]
#[command(name = "budgetlab", version, about, propagate_version = true)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// budgetlab's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Finalize one batch (a JSON array of entries) and print the result as JSON.
    Finalize(FinalizeArgs),
    /// List the finalizer strategies with a one-line description each.
    Strategies,
    /// Generate a scenario's batches as JSON Lines (one batch per line), with the needles beside them.
    Generate(GenerateArgs),
    /// List the scenarios with a one-line description each.
    Scenarios(ScenariosArgs),
    /// Run scenarios through every strategy and write results, CSV and a summary to a report folder.
    Run(RunArgs),
    /// Redraw the charts and index.html of a report folder from its results, without rerunning anything.
    Report(ReportArgs),
    /// Run one scenario at many budgets, context windows or head shares and chart the metrics against them.
    Sweep(SweepArgs),
    /// Follow a scenario's turns through the runtime boundaries with one strategy, boundary by boundary.
    Simulate(SimulateArgs),
    /// Combine the report folders of a sharded run into the report of the whole run.
    Merge(MergeArgs),
    /// Check a run against a stored baseline: exit 1 when the reference breaks its contract or a metric moved.
    Check(CheckArgs),
    /// Print the differences of two runs' tracked metrics as a Markdown table.
    Compare(CompareArgs),
    /// Import agent session logs as batches (JSON Lines, one model turn a line) for `finalize` and `run`.
    Import(ImportArgs),
    /// Count the tokens of batches: UTF-16 units, tokens and units per token by tool and by kind of output.
    Tokens(TokensArgs),
    /// Fit a scenario to a corpus of batches; exit 1 when its generated batches do not match the corpus.
    Calibrate(CalibrateArgs),
    /// Check one finalizer against the design's contract; exit 1 with shrunk counterexamples when a check fails.
    Conform(ConformArgs),
}

/// Flags of `budgetlab conform`.
#[derive(Debug, Args)]
pub struct ConformArgs {
    /// The strategy to check (see `budgetlab strategies`).
    #[arg(long)]
    pub strategy: String,
    /// Cases generated from the shipped scenarios, 0 to 100,000, besides the edge cases and vectors (default 2,000).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub cases: Option<u64>,
    /// Seed of the generated cases (default 0).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// Also hold the strategy to the built-in reference and the production vectors: `--as reference`.
    #[arg(long = "as", value_name = "reference")]
    pub as_target: Option<String>,
    /// The report folder: conform.json, summary.md and the counterexamples' batch files.
    #[arg(long, default_value = "reports/conform", value_name = "DIR")]
    pub out: PathBuf,
    /// Also write the checks as JUnit XML to this file (`-`: standard output, instead of the table).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// Flags of `budgetlab import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The logs' format: claude-code, codex, gemini-cli, qwen-code, swe-agent, mini-swe-agent, openhands, or
    /// auto (detected per file).
    #[arg(long, value_name = "FORMAT")]
    pub format: String,
    /// Session files, or folders to walk (recursively, in sorted order).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Write the batches to this file (atomically); `-` or nothing: standard output.
    #[arg(long, value_name = "FILE.jsonl|-")]
    pub out: Option<PathBuf>,
    /// Replace every letter and digit of the results, deterministically per SEED, keeping lengths and shape.
    #[arg(long, value_name = "SEED")]
    pub anonymize: Option<u64>,
    /// Skip malformed files (counted and named on stderr) instead of stopping at the first.
    #[arg(long)]
    pub skip_bad: bool,
}

/// Flags of `budgetlab calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// The corpus: batches, one a line (as `import` writes them).
    #[arg(value_name = "FILE.jsonl")]
    pub input: PathBuf,
    /// The scenario file to write (atomically); `-`: standard output, the comparison then on stderr.
    #[arg(long, value_name = "NAME.toml")]
    pub out: PathBuf,
    /// The scenario's name (default: the file name of --out without `.toml`).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
}

/// Flags of `budgetlab tokens`.
#[derive(Debug, Args)]
pub struct TokensArgs {
    /// The batches: JSON Lines, one batch a line (as `generate` writes them), or one batch (as `finalize` reads
    /// it); `-` reads standard input.
    #[arg(value_name = "FILE.jsonl")]
    pub input: PathBuf,
    /// o200k_base, cl100k_base, or a tiktoken rank file (base64 token, space, rank, one a line).
    #[arg(long, default_value = "o200k_base", value_name = "NAME|FILE")]
    pub tokenizer: String,
    /// The pre-tokenization of a rank file: o200k (the default) or cl100k.
    #[arg(long, value_name = "o200k|cl100k")]
    pub tokenizer_pattern: Option<String>,
    /// One JSON object instead of the Markdown tables.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `budgetlab simulate`.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// A scenario file, or the name of a shipped scenario.
    #[arg(long, value_name = "FILE|NAME")]
    pub scenario: String,
    /// Runtime mode (interactive, headless, acp, agent, speculative; default: the scenario's).
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
    /// The strategy at every finalization boundary.
    #[arg(long, default_value = "reference")]
    pub strategy: String,
    /// Run the mode's legacy form (before the shared finalizer).
    #[arg(long)]
    pub legacy: bool,
    /// Number of turns (1 to 1,000,000).
    #[arg(
        long,
        default_value_t = 5,
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub batches: u64,
    /// Override the scenario's seed.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// Budget in UTF-16 units (default: the scenario's first budget).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub budget: Option<u64>,
    /// Leave out the chat send guard.
    #[arg(long)]
    pub no_send_guard: bool,
    /// One JSON object per turn and line instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `budgetlab run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Scenario files, directories of them, or shipped scenario names (default: every shipped scenario).
    #[arg(long, num_args = 1.., value_name = "DIR|FILE|NAME")]
    pub scenarios: Vec<String>,
    /// Comma-separated strategy names (default: every strategy).
    #[arg(long, value_delimiter = ',', value_name = "A,B,...")]
    pub strategies: Vec<String>,
    /// Batches per scenario, 1 to 1,000,000 (default: the scenario's own, at most 60; 12 with --quick).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub batches: Option<u64>,
    /// Seed for every scenario, overriding theirs.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// The report folder.
    #[arg(long, default_value = "reports/latest", value_name = "DIR")]
    pub out: PathBuf,
    /// Run only shard I of N (batches i with i % N == I); `budgetlab merge` combines the shards.
    #[arg(long, value_name = "I/N", allow_hyphen_values = true)]
    pub shard: Option<String>,
    /// A small run for smoke tests and CI.
    #[arg(long)]
    pub quick: bool,
    /// Run recorded batches (JSON Lines, one batch a line, the format of `finalize`) instead of scenarios.
    #[arg(long, value_name = "FILE.jsonl", conflicts_with = "scenarios")]
    pub batches_file: Option<PathBuf>,
    /// Budgets for --batches-file (comma-separated UTF-16 units; default 20000,50000,200000).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "N,...",
        requires = "batches_file",
        allow_negative_numbers = true
    )]
    pub budgets: Vec<u64>,
    /// Runtime mode for --batches-file (interactive, headless, acp, agent, speculative).
    #[arg(long, value_name = "MODE", requires = "batches_file")]
    pub mode: Option<String>,
    /// Run --batches-file in the mode's legacy form.
    #[arg(long, requires = "batches_file")]
    pub legacy: bool,
    /// Worker threads, 1 to 4 x the available cores (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub threads: Option<usize>,
}

/// Flags of `budgetlab merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' report folders (written by `budgetlab run --shard I/N`), in any order.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The report folder of the merged run.
    #[arg(long, default_value = "reports/latest", value_name = "DIR")]
    pub out: PathBuf,
}

/// Flags of `budgetlab check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The baseline: a results.json, or a report folder holding one.
    #[arg(long, value_name = "FILE")]
    pub baseline: PathBuf,
    /// The run to check: a report folder, or its results.json.
    #[arg(long, default_value = "reports/latest", value_name = "DIR")]
    pub current: PathBuf,
    /// Tolerances, METRIC=VALUE[,METRIC=VALUE...] (repeatable). Metrics: compliance, retention, needles
    /// (default ±0.005 absolute), writes (±5%), cost (the strategy's time over the floor's, ±100%), time (the
    /// median time per batch, off). VALUE: X in the metric's kind (absolute for shares, relative for writes, cost
    /// and time), X% (relative), abs:X, rel:X, or off.
    #[arg(long = "tolerance", value_name = "SPEC")]
    pub tolerances: Vec<String>,
    /// Also write the checks as JUnit XML to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// Flags of `budgetlab compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Run A: a report folder, or its results.json.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// Run B: a report folder, or its results.json.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// Compare the cost too: over the floor, as the gate checks it, and the median time (both differ between
    /// any two runs).
    #[arg(long)]
    pub cost: bool,
}

/// Flags of `budgetlab generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// A scenario file, or the name of a shipped scenario (see `budgetlab scenarios`).
    #[arg(long, value_name = "FILE|NAME")]
    pub scenario: String,
    /// Override the scenario's seed.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// Override the scenario's number of batches (1 to 1,000,000).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub batches: Option<u64>,
    /// Write only shard I of N (batches i with i % N == I, keeping their global numbers).
    #[arg(long, value_name = "I/N", allow_hyphen_values = true)]
    pub shard: Option<String>,
    /// Write the needles as JSON Lines to this file.
    #[arg(long, value_name = "FILE")]
    pub needles: Option<PathBuf>,
    /// Write the batches to this file (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Flags of `budgetlab scenarios`.
#[derive(Debug, Args)]
pub struct ScenariosArgs {
    /// List the `*.toml` scenarios of this directory instead of the shipped ones.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Flags registering external strategies (docs/protocol.md), for every command that runs strategies.
#[derive(Debug, Args)]
pub struct ExternalArgs {
    /// Register strategy NAME (not a built-in name), run by COMMAND (split as a shell would; no shell runs it)
    /// speaking docs/protocol.md (repeatable).
    #[arg(
        long = "external",
        value_name = "NAME=COMMAND",
        allow_hyphen_values = true
    )]
    pub external: Vec<String>,
    /// Seconds one request to an external strategy may take, 0.001 to 86400.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "10",
        allow_hyphen_values = true
    )]
    pub external_timeout: String,
    /// Folder for the external strategies' stderr logs and the request of a fault.
    #[arg(long, value_name = "DIR")]
    pub external_log: Option<PathBuf>,
}

/// Flags of `budgetlab finalize`.
#[derive(Debug, Args)]
pub struct FinalizeArgs {
    /// Aggregate budget in UTF-16 units: a decimal integer (<= 0 disables) or `inf`.
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "N|inf",
        required_unless_present = "serve"
    )]
    pub budget: Option<String>,
    /// The strategy to run (see `budgetlab strategies`), or a NAME registered with --external.
    #[arg(long, default_value = "reference")]
    pub strategy: String,
    /// Speak the external-strategy protocol (docs/protocol.md) on stdin and stdout with the built-in --strategy,
    /// until the end of the input.
    #[arg(long, conflicts_with_all = [
        "budget", "input", "time", "pretty", "context_window", "plan_reminder_files", "fail_persist",
        "artifact_dir", "external",
    ])]
    pub serve: bool,
    /// External strategies.
    #[command(flatten)]
    pub externals: ExternalArgs,
    /// Directory that artifact paths are under (`DIR/<id>.txt`).
    #[arg(long, default_value = "tool-results", value_name = "DIR")]
    pub artifact_dir: String,
    /// Where complete outputs are persisted.
    #[arg(long, value_enum, default_value_t = BackendArg::Memory)]
    pub backend: BackendArg,
    /// Make the write with this persistence id fail (repeatable).
    #[arg(long = "fail-persist", value_name = "ID")]
    pub fail_persist: Vec<String>,
    /// Replace the built-in lifecycle reminders with this file's exact text (repeatable).
    #[arg(long = "plan-reminder-file", value_name = "FILE")]
    pub plan_reminder_files: Vec<PathBuf>,
    /// The model's context window in tokens, for policies that scale with it.
    #[arg(long, value_name = "TOKENS", allow_negative_numbers = true)]
    pub context_window: Option<u64>,
    /// Read the batch from this file instead of standard input.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Also finalize the parsed batch N times in-process and print the median time to stderr.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub time: Option<u32>,
    /// Pretty-print the JSON.
    #[arg(long)]
    pub pretty: bool,
}

/// Persistence backends selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// Keep artifacts in memory (paths are still reported).
    Memory,
    /// Write real files under the artifact directory.
    Fs,
}

/// Flags of `budgetlab report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The report folder (with results.json, and batches.jsonl when present; or a sweep's sweep.json).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Flags of `budgetlab sweep`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("parameter").required(true).args(["budgets", "windows", "head_shares"])))]
pub struct SweepArgs {
    /// A scenario file, or the name of a shipped scenario (see `budgetlab scenarios`).
    #[arg(long, value_name = "FILE|NAME")]
    pub scenario: String,
    /// Sweep the budget from FROM to TO UTF-16 units (log-spaced).
    #[arg(long, value_name = "FROM..TO", allow_hyphen_values = true)]
    pub budgets: Option<String>,
    /// Sweep the context window from FROM to TO tokens (log-spaced); the budget follows the window-relative rule.
    #[arg(long, value_name = "FROM..TO", allow_hyphen_values = true)]
    pub windows: Option<String>,
    /// Sweep the head share of each preview (strategies head-tail-<share>) over FROM..TO (default 0..1).
    #[arg(long, value_name = "FROM..TO", num_args = 0..=1, default_missing_value = "0..1")]
    pub head_shares: Option<String>,
    /// Number of points (default 12; 11 for head shares).
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub steps: Option<usize>,
    /// Comma-separated strategy names (default: reference and four alternatives; for windows, the
    /// window-relative policies and the reference).
    #[arg(long, value_delimiter = ',', value_name = "A,B,...")]
    pub strategies: Vec<String>,
    /// Batches at each point, 1 to 1,000,000 (default: the scenario's, at most 200).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub batches: Option<u64>,
    /// Seed overriding the scenario's.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// The output folder.
    #[arg(long, default_value = "reports/sweep", value_name = "DIR")]
    pub out: PathBuf,
    /// Worker threads, 1 to 4 x the available cores (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub threads: Option<usize>,
}
