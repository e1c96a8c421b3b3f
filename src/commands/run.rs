//! `budgetlab run`: scenarios (or recorded batches) through every strategy, written as a report folder; a line
//! on stderr says what was written.

use anyhow::Context;
use clap::Args;

use budgetlab::report::ReportWriter;
use budgetlab::run::{cost::SLOWDOWN_VAR, PlanRequest};

use super::flags::{help, RunFlags, ShardFlag, ThreadsFlag, TokenFlags, WorkloadFlags};
use super::output::progress;
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
    /// Scenarios or recorded batches.
    #[command(flatten)]
    pub(crate) workload: WorkloadFlags,
    /// Strategies, batches, seed and report folder.
    #[command(flatten)]
    pub(crate) run: RunFlags,
    /// The shard.
    #[command(flatten)]
    pub(crate) shard: ShardFlag,
    /// A small run for smoke tests and CI.
    #[arg(long)]
    pub(crate) quick: bool,
    /// Write results.json without the rows' bootstrap resamples, about half its size (the gate's committed
    /// baseline is kept so): check reads none of them; compare and the ranking then give no paired intervals.
    #[arg(long)]
    pub(crate) compact: bool,
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
    /// Print the lines the agent used kept by each strategy at each budget (default: one line summing them up).
    #[arg(long)]
    pub(crate) verbose: bool,
}

impl RunArgs {
    /// What the flags ask the library for; `slowdown` is the test-only [`SLOWDOWN_VAR`] from the environment.
    fn request(
        &self,
        slowdown: Option<String>,
        externals: &budgetlab::ExternalRegistry,
    ) -> PlanRequest {
        let workloads = self.workload.workloads(self.mode.clone(), self.legacy);
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
    let writer = ReportWriter::new(&out.dir)
        .with_externals(&externals, &plan.strategies, logs)
        .compact(args.compact);
    writer.check().context("--out")?;
    out.refuse_holding(&args.workload.inputs())?;
    args.workload.notes();
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
    // What the agent used (recorded batches with a used-lines file): one line counting the rows, or with
    // --verbose per strategy and budget the tokens over the turns longer than the budget, over every turn, and the
    // lines.
    let used: Vec<f64> = output
        .results
        .rows
        .iter()
        .filter_map(|r| {
            let over = r.over_budget.as_ref().and_then(|o| o.used_tokens.as_ref());
            over.or(r.used_tokens.as_ref()).map(|u| u.survival)
        })
        .collect();
    if !args.verbose && !used.is_empty() {
        let (lo, hi) = used
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &s| {
                (lo.min(s), hi.max(s))
            });
        eprintln!(
            "budgetlab: used tokens measured in {} rows: {:.1}% to {:.1}% kept over the results longer than the \
budget (the report's used table; --verbose lists them)",
            used.len(),
            100.0 * lo,
            100.0 * hi
        );
    }
    for row in output.results.rows.iter().filter(|_| args.verbose) {
        if let Some(t) = &row.used_tokens {
            let over = row.over_budget.as_ref().and_then(|o| {
                o.used_tokens.as_ref().map(|u| {
                    format!(
                        "over budget {} of {} kept ({:.1}%, {} results; any allocation: at most {}); ",
                        u.survived,
                        u.needles,
                        100.0 * u.survival,
                        o.results,
                        u.upper_bound
                    )
                })
            });
            eprintln!(
                "budgetlab: used tokens {} at {}: {}all turns {} of {} kept ({:.1}%)",
                row.strategy.as_str(),
                row.budget_label,
                over.unwrap_or_default(),
                t.survived,
                t.needles,
                100.0 * t.survival
            );
        }
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
    if let Some(file) = &args.workload.batches_file {
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
