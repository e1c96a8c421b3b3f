//! `budgetlab run`: scenarios (or recorded batches) through every strategy, written as a report folder; a line
//! on stderr says what was written.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use budgetlab::atomic::Named;
use budgetlab::report::ReportWriter;
use budgetlab::run::{cost::SLOWDOWN_VAR, PlanRequest, RecordedBatches, Workloads};

use super::flags::{existing_path, help, RunFlags, ShardFlag, ThreadsFlag, TokenFlags};
use super::output::{progress, scenario_notes};
use super::Status;

/// Examples shown after `budgetlab run --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab run --quick
  budgetlab run --scenarios shell-heavy --strategies reference,salient --batches 100 --out reports/shell";

/// Flags of `budgetlab run`.
#[derive(Debug, Args)]
#[command(
    mut_arg(
        "batches",
        help(
            "Batches per scenario, 1 to 1,000,000 (default: the scenario's own, at most 60; 12 \
with --quick)"
        )
    ),
    mut_arg("seed", help("Seed for every scenario, overriding theirs"))
)]
pub(crate) struct RunArgs {
    /// Scenario files, directories of them, or shipped scenario names (default: every shipped scenario).
    #[arg(long, num_args = 1.., value_name = "DIR|FILE|NAME")]
    pub(crate) scenarios: Vec<String>,
    /// Strategies, batches, seed and report folder.
    #[command(flatten)]
    pub(crate) run: RunFlags,
    /// The shard.
    #[command(flatten)]
    pub(crate) shard: ShardFlag,
    /// A small run for smoke tests and CI.
    #[arg(long)]
    pub(crate) quick: bool,
    /// Run recorded batches (JSON Lines, one batch a line, the format of `finalize`) instead of scenarios.
    #[arg(long, value_name = "FILE.jsonl", conflicts_with = "scenarios")]
    pub(crate) batches_file: Option<PathBuf>,
    /// Budgets for --batches-file (comma-separated UTF-16 units; default 20000,50000,200000).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "N,...",
        requires = "batches_file",
        allow_negative_numbers = true
    )]
    pub(crate) budgets: Vec<u64>,
    /// Runtime mode for --batches-file (interactive, headless, acp, agent, speculative).
    #[arg(long, value_name = "MODE", requires = "batches_file")]
    pub(crate) mode: Option<String>,
    /// Run --batches-file in the mode's legacy form.
    #[arg(long, requires = "batches_file")]
    pub(crate) legacy: bool,
    /// Worker threads.
    #[command(flatten)]
    pub(crate) threads: ThreadsFlag,
    /// Token counting.
    #[command(flatten)]
    pub(crate) tokens: TokenFlags,
}

impl RunArgs {
    /// What the flags ask the library for; `slowdown` is the test-only [`SLOWDOWN_VAR`] from the environment.
    fn request(
        &self,
        slowdown: Option<String>,
        externals: &budgetlab::ExternalRegistry,
    ) -> PlanRequest {
        let workloads = match &self.batches_file {
            Some(file) => Workloads::Recorded(RecordedBatches {
                file: file.clone(),
                budgets: self.budgets.clone(),
                mode: self.mode.clone(),
                legacy: self.legacy,
            }),
            None => Workloads::Scenarios(self.scenarios.clone()),
        };
        PlanRequest {
            workloads,
            strategies: self.run.strategy_names(),
            externals: externals.clone(),
            batches: self.run.batches.value,
            seed: self.run.seed.value,
            shard: self.shard.value.clone(),
            quick: self.quick,
            slowdown,
            tokens: self.tokens.request(),
        }
    }
}

/// Plans the run, runs it and writes the report folder.
pub(crate) fn execute(args: RunArgs) -> anyhow::Result<Status> {
    let slowdown = std::env::var_os(SLOWDOWN_VAR).map(|v| v.to_string_lossy().into_owned());
    let externals = args.run.externals.registry("budgetlab-external")?;
    let plan = args.request(slowdown, &externals).plan()?;
    let out = &args.run.out;
    let logs = args.run.externals.report_logs();
    let writer = ReportWriter::new(&out.dir).with_externals(&externals, &plan.strategies, logs);
    writer.check().context("--out")?;
    let mut inputs: Vec<Named> = args
        .scenarios
        .iter()
        .filter_map(|s| existing_path("--scenarios", s))
        .collect();
    inputs.extend(
        args.batches_file
            .as_deref()
            .map(|f| Named::new("--batches-file", f)),
    );
    out.refuse_holding(&inputs)?;
    if args.batches_file.is_none() {
        scenario_notes("--scenarios", &args.scenarios);
    }
    if !plan.slowdown.is_empty() {
        eprintln!(
            "budgetlab: {SLOWDOWN_VAR} (test only): {}; the cost figures are not real",
            plan.slowdown.describe()
        );
    }
    args.threads.apply()?;
    let bar = progress(plan.turns(), "turns");
    let output = writer.run(&plan, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    let rows = output.results.rows.len();
    let within = output
        .results
        .rows
        .iter()
        .filter(|r| r.compliance.rate == 1.0)
        .count();
    // The lines the agent used (recorded batches with a used-lines file), per strategy and budget.
    for row in &output.results.rows {
        if let Some(u) = &row.used_needles {
            eprintln!(
                "budgetlab: used needles {} at {}: {} of {} kept ({:.1}%; any allocation: at most {})",
                row.strategy.as_str(),
                row.budget_label,
                u.survived,
                u.needles,
                100.0 * u.survival,
                u.upper_bound
            );
        }
    }
    if let Some(file) = &args.batches_file {
        let used = budgetlab::needles::used_path_for(file);
        if used.exists() && output.results.rows.iter().all(|r| r.used_needles.is_none()) {
            eprintln!(
                "budgetlab: {} holds no used line of these batches (none used, none measured, or written for \
other batches): used needles not measured",
                used.display()
            );
        }
    }
    eprintln!(
        "budgetlab: {} turns, {rows} rows ({within} fully within budget) written to {}; open {}",
        plan.turns(),
        out.dir.display(),
        out.dir.join(budgetlab::report::INDEX_HTML).display()
    );
    Ok(Status::Done)
}
