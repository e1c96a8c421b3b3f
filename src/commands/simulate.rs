//! `budgetlab simulate`: a scenario's turns through the runtime boundaries with one strategy, printed boundary
//! by boundary as tables or as one JSON object a turn.

use std::io::{self, Write};

use clap::Args;

use budgetlab::simulate::SimulateRequest;

use super::flags::{help, ExternalArgs, ScenarioFlag, SeedFlag, TokenFlags};
use super::output::{check_stdout_open, scenario_notes, stdout_error, stdout_json_error};
use super::Status;

/// Examples shown after `budgetlab simulate --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab simulate --scenario shell-heavy --mode headless --legacy --strategy legacy-layers";

/// Flags of `budgetlab simulate`.
#[derive(Debug, Args)]
#[command(mut_arg("scenario", help("A scenario file, or the name of a shipped scenario")))]
pub(crate) struct SimulateArgs {
    /// The scenario.
    #[command(flatten)]
    pub(crate) scenario: ScenarioFlag,
    /// Runtime mode (interactive, headless, acp, agent, speculative; default: the scenario's).
    #[arg(long, value_name = "MODE")]
    pub(crate) mode: Option<String>,
    /// The strategy at every finalization boundary, or a NAME registered with --external.
    #[arg(long, default_value = "reference")]
    pub(crate) strategy: String,
    /// External strategies.
    #[command(flatten)]
    pub(crate) externals: ExternalArgs,
    /// Run the mode's legacy form (before the shared finalizer).
    #[arg(long)]
    pub(crate) legacy: bool,
    /// Number of turns (1 to 1,000,000).
    #[arg(
        long,
        default_value_t = 5,
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub(crate) batches: u64,
    /// The seed.
    #[command(flatten)]
    pub(crate) seed: SeedFlag,
    /// Budget in UTF-16 units (default: the scenario's first budget).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) budget: Option<u64>,
    /// Leave out the chat send guard.
    #[arg(long)]
    pub(crate) no_send_guard: bool,
    /// One JSON object per turn and line instead of tables.
    #[arg(long)]
    pub(crate) json: bool,
    /// Token counting.
    #[command(flatten)]
    pub(crate) tokens: TokenFlags,
}

impl SimulateArgs {
    /// What the flags ask the library for.
    fn request(&self, externals: &budgetlab::ExternalRegistry) -> SimulateRequest {
        SimulateRequest {
            scenario: self.scenario.value.clone(),
            strategy: self.strategy.clone(),
            externals: externals.clone(),
            mode: self.mode.clone(),
            legacy: self.legacy,
            batches: self.batches,
            seed: self.seed.value,
            budget: self.budget,
            send_guard: !self.no_send_guard,
            tokens: self.tokens.request(),
        }
    }
}

/// Simulates the turns and prints each as it is done.
pub(crate) fn execute(args: SimulateArgs) -> anyhow::Result<Status> {
    check_stdout_open()?;
    let externals = args.externals.registry("budgetlab-external")?;
    let job = args.request(&externals).job()?;
    scenario_notes("--scenario", std::slice::from_ref(&args.scenario.value));
    externals.start(std::slice::from_ref(&job.strategy))?;
    let mut out = io::BufWriter::new(io::stdout().lock());
    for turn in job.turns() {
        // A turn an external strategy faulted in is not its own: it is left out, and the fault reported.
        if externals.faulted() {
            break;
        }
        if args.json {
            serde_json::to_writer(&mut out, &turn).map_err(stdout_json_error)?;
            out.write_all(b"\n").map_err(stdout_error)?;
        } else {
            writeln!(out, "{}", turn.table()).map_err(stdout_error)?;
        }
    }
    out.flush().map_err(stdout_error)?;
    externals.finish_saved()?;
    Ok(Status::Done)
}
