//! `budgetlab sweep`: one scenario at many budgets, context windows or head shares, written as a folder with the
//! metrics charted against the swept parameter.

use anyhow::Context;
use clap::Args;

use budgetlab::report::ReportWriter;
use budgetlab::run::{cost::SLOWDOWN_VAR, Slowdown};
use budgetlab::sweep::{SweepParameter, SweepRequest};

use super::flags::{existing_path, help, RunFlags, ScenarioFlag, ThreadsFlag, TokenFlags};
use super::output::{progress, scenario_notes};
use super::Status;

/// Examples shown after `budgetlab sweep --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab sweep --scenario mixed-realistic --budgets 2000..200000 --steps 12";

/// Flags of `budgetlab sweep`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("parameter").required(true).args(["budgets", "windows", "head_shares"])))]
#[command(
    mut_arg("strategies", help("Comma-separated strategy names, built-in or registered with --external (default: \
reference and four alternatives; for windows, the window-relative policies and the reference; and every \
--external one)")),
    mut_arg("batches", help("Batches at each point, 1 to 1,000,000 (default: the scenario's, at most 200)")),
    mut_arg("seed", help("Seed overriding the scenario's")),
    mut_arg("out", |arg| arg.help("The output folder").default_value("reports/sweep"))
)]
pub(crate) struct SweepArgs {
    /// The scenario.
    #[command(flatten)]
    pub(crate) scenario: ScenarioFlag,
    /// Sweep the budget from FROM to TO UTF-16 units (log-spaced).
    #[arg(long, value_name = "FROM..TO", allow_hyphen_values = true)]
    pub(crate) budgets: Option<String>,
    /// Sweep the context window from FROM to TO tokens (log-spaced); the budget follows the window-relative rule.
    #[arg(long, value_name = "FROM..TO", allow_hyphen_values = true)]
    pub(crate) windows: Option<String>,
    /// Sweep the head share of each preview (strategies head-tail-<share>) over FROM..TO (default 0..1).
    #[arg(long, value_name = "FROM..TO", num_args = 0..=1, default_missing_value = "0..1")]
    pub(crate) head_shares: Option<String>,
    /// Number of points (default 12; 11 for head shares).
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub(crate) steps: Option<usize>,
    /// Strategies, batches, seed and output folder.
    #[command(flatten)]
    pub(crate) run: RunFlags,
    /// Worker threads.
    #[command(flatten)]
    pub(crate) threads: ThreadsFlag,
    /// Token counting.
    #[command(flatten)]
    pub(crate) tokens: TokenFlags,
}

impl SweepArgs {
    /// What the flags ask the library for.
    fn request(&self, externals: &budgetlab::ExternalRegistry) -> SweepRequest {
        let parameter = match (&self.budgets, &self.windows, &self.head_shares) {
            (Some(b), _, _) => SweepParameter::Budgets(b.clone()),
            (_, Some(w), _) => SweepParameter::Windows(w.clone()),
            (_, _, h) => SweepParameter::HeadShares(h.clone().filter(|h| h != "0..1")),
        };
        SweepRequest {
            scenario: self.scenario.value.clone(),
            parameter,
            steps: self.steps,
            strategies: self.run.strategy_names(),
            externals: externals.clone(),
            batches: self.run.batches.value,
            seed: self.run.seed.value,
            tokens: self.tokens.request(),
        }
    }
}

/// Plans the sweep, runs it and writes its folder.
pub(crate) fn execute(args: SweepArgs) -> anyhow::Result<Status> {
    let externals = args.run.externals.registry("budgetlab-external")?;
    let mut plan = args.request(&externals).plan()?;
    if let Some(spec) = std::env::var_os(SLOWDOWN_VAR) {
        plan.run.slowdown = Slowdown::parse(&spec.to_string_lossy())?;
        eprintln!(
            "budgetlab: {SLOWDOWN_VAR} (test only): {}; the cost figures are not real",
            plan.run.slowdown.describe()
        );
    }
    let out = &args.run.out;
    let logs = args.run.externals.report_logs();
    let writer = ReportWriter::new(&out.dir).with_externals(&externals, &plan.run.strategies, logs);
    writer.check().context("--out")?;
    let scenario: Vec<_> = existing_path("--scenario", &args.scenario.value)
        .into_iter()
        .collect();
    out.refuse_holding(&scenario)?;
    scenario_notes("--scenario", std::slice::from_ref(&args.scenario.value));
    args.threads.apply()?;
    let bar = progress(plan.turns(), "turns");
    let results = writer.sweep(&plan, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    eprintln!(
        "budgetlab: {} turns at {} points written to {}; open {}",
        plan.turns(),
        results.points.len(),
        out.dir.display(),
        out.dir.join(budgetlab::report::INDEX_HTML).display()
    );
    Ok(Status::Done)
}
