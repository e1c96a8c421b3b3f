//! `budgetlab tune`: the best settings of the tunable strategy families for a workload, per budget, validated on
//! batches the search did not see; written as a folder (tune.json, summary.md, charts), the recommendations
//! printed on stdout (Markdown, or JSON with `--json`).

use anyhow::Context;
use clap::Args;

use budgetlab::report::ReportWriter;
use budgetlab::run::PlanRequest;
use budgetlab::tune::{Constraints, GroupBy, Objective, Step, TuneRequest, DEFAULT_SETTINGS};

use super::flags::{help, BatchesFlag, ReportFolder, ThreadsFlag, WorkloadFlags};
use super::output::{emit, progress};
use super::Status;

/// Examples shown after `budgetlab tune --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab tune --scenarios mixed-realistic
  budgetlab tune --scenarios mixed-realistic --families salient --out reports/tune
  budgetlab import --format auto ~/.claude/projects --out sessions.jsonl
  budgetlab tune --batches-file sessions.jsonl --budgets 2000,8000,20000 --objective used
  budgetlab tune --scenarios shell-heavy --families weighted,salient --max-writes-per-turn 1";

/// Flags of `budgetlab tune`.
#[derive(Debug, Args)]
#[command(
    mut_arg("batches", help("Batches per scenario, 1 to 1,000,000 (default: the scenario's own number)")),
    mut_arg("out", |arg| arg.help("The output folder").default_value("reports/tune"))
)]
pub(crate) struct TuneArgs {
    /// Scenarios or recorded batches.
    #[command(flatten)]
    pub(crate) workload: WorkloadFlags,
    /// The families to search, comma-separated (default: every tunable one; `budgetlab strategies` lists them).
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    pub(crate) families: Vec<String>,
    /// What to maximise: needles, retention, used (the lines agents used), or a mix such as
    /// needles=0.7,retention=0.3.
    #[arg(long, default_value = "needles", value_name = "OBJECTIVE")]
    pub(crate) objective: String,
    /// Settings to try in all, the reference and one per family at least.
    #[arg(long, default_value_t = DEFAULT_SETTINGS, value_name = "N")]
    pub(crate) settings: usize,
    /// The share of each workload's batches held out to validate the winners on (0.05 to 0.9).
    #[arg(long, default_value_t = budgetlab::tune::DEFAULT_VALIDATION, value_name = "SHARE")]
    pub(crate) validation: f64,
    /// The most artifact writes per turn a recommended setting may make.
    #[arg(long, value_name = "N")]
    pub(crate) max_writes_per_turn: Option<f64>,
    /// The most time over the floor's a recommended setting may take (measured on the validation set).
    #[arg(long, value_name = "RATIO")]
    pub(crate) max_cost_ratio: Option<f64>,
    /// What the split keeps together, never on both sides: session or task (default: the coarsest the batches
    /// record; generated batches go in blocks of consecutive batches).
    #[arg(long, value_name = "session|task")]
    pub(crate) group_by: Option<String>,
    /// Seed of the split into tuning and validation sets and of the sampled settings.
    #[arg(long = "tune-seed", default_value_t = budgetlab::tune::DEFAULT_SEED, value_name = "S")]
    pub(crate) tune_seed: u64,
    /// Batches per scenario.
    #[command(flatten)]
    pub(crate) batches: BatchesFlag,
    /// The output folder.
    #[command(flatten)]
    pub(crate) out: ReportFolder,
    /// Worker threads.
    #[command(flatten)]
    pub(crate) threads: ThreadsFlag,
    /// Print the results (what tune.json holds) as JSON instead of the Markdown summary.
    #[arg(long)]
    pub(crate) json: bool,
}

impl TuneArgs {
    /// What the flags ask the library for.
    fn request(&self) -> anyhow::Result<TuneRequest> {
        let workloads = self.workload.workloads(None, false);
        Ok(TuneRequest {
            // Every field spelled out, none defaulted: a field `run` gains does not compile here until tune
            // says what it takes for it.
            run: PlanRequest {
                workloads,
                // The families' strategies come from `--families`; tune runs no external strategy.
                strategies: Vec::new(),
                externals: budgetlab::ExternalRegistry::default(),
                batches: self.batches.value,
                // The seed of the split is `--tune-seed`; each scenario keeps its own for its batches.
                seed: None,
                shard: None,
                quick: false,
                slowdown: None,
                tokens: None,
            },
            families: self.families.clone(),
            settings: self.settings,
            objective: Objective::parse(&self.objective)?,
            constraints: Constraints {
                max_writes_per_turn: self.max_writes_per_turn,
                max_cost_ratio: self.max_cost_ratio,
            },
            validation: self.validation,
            seed: self.tune_seed,
            group_by: self.group_by.as_deref().map(GroupBy::parse).transpose()?,
        })
    }
}

/// Plans the tune, runs it, writes its folder and prints the recommendations.
pub(crate) fn execute(args: TuneArgs) -> anyhow::Result<Status> {
    let plan = args.request()?.plan()?;
    let out = &args.out;
    let writer = ReportWriter::new(&out.dir);
    writer.check().context("--out")?;
    out.refuse_holding(&args.workload.inputs())?;
    args.workload.notes();
    args.threads.apply()?;
    let bar = progress(plan.turns(), "turns");
    let results = writer.tune(&plan, &|step| match step {
        Step::Done(n) => bar.inc(n),
        Step::More(n) => bar.grow(n),
    })?;
    bar.finish_and_clear();
    if args.json {
        let mut json = serde_json::to_vec_pretty(&results)?;
        json.push(b'\n');
        emit(&json)?;
    } else {
        emit(results.markdown().as_bytes())?;
    }
    eprintln!(
        "budgetlab: {} settings tuned on {} workload(s); written to {}",
        results.settings,
        results.workloads.len(),
        out.dir.display()
    );
    Ok(Status::Done)
}
