//! `budgetlab generate`: a scenario's batches (all, or one shard) as JSON Lines on stdout or in a file, and the
//! needles planted in them beside.

use std::path::PathBuf;

use clap::Args;

use budgetlab::atomic::{refuse_same_file, Named};
use budgetlab::generate::GenerateRequest;

use super::flags::{existing_path, help, BatchesFlag, ScenarioFlag, SeedFlag, ShardFlag};
use super::output::{check_stdout_open, scenario_notes};
use super::Status;

/// Examples shown after `budgetlab generate --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab generate --scenario mixed-realistic --batches 100 --out batches.jsonl --needles needles.jsonl";

/// Flags of `budgetlab generate`.
#[derive(Debug, Args)]
#[command(mut_arg(
    "shard",
    help("Write only shard I of N (batches i with i % N == I, keeping their global numbers)")
))]
pub(crate) struct GenerateArgs {
    /// The scenario.
    #[command(flatten)]
    pub(crate) scenario: ScenarioFlag,
    /// Its seed.
    #[command(flatten)]
    pub(crate) seed: SeedFlag,
    /// Its batches.
    #[command(flatten)]
    pub(crate) batches: BatchesFlag,
    /// The shard.
    #[command(flatten)]
    pub(crate) shard: ShardFlag,
    /// Write the needles as JSON Lines to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) needles: Option<PathBuf>,
    /// Write the batches to this file (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Write each batch with its turn context and group: `{"entries", "context", "group"}` a line instead of
    /// the array of entries.
    #[arg(long)]
    pub(crate) context: bool,
}

impl GenerateArgs {
    /// What the flags ask the library for.
    fn request(&self) -> GenerateRequest {
        GenerateRequest {
            scenario: self.scenario.value.clone(),
            seed: self.seed.value,
            batches: self.batches.value,
            shard: self.shard.value.clone(),
            context: self.context,
        }
    }
}

/// Writes the batches and the needles.
pub(crate) fn execute(args: GenerateArgs) -> anyhow::Result<Status> {
    let to_stdout = |path: Option<&std::path::Path>| path.is_some_and(budgetlab::atomic::is_stdout);
    if args.out.is_none() || to_stdout(args.out.as_deref()) || to_stdout(args.needles.as_deref()) {
        check_stdout_open()?;
    }
    let scenario: Vec<Named> = existing_path("--scenario", &args.scenario.value)
        .into_iter()
        .collect();
    for (flag, out) in [("--out", &args.out), ("--needles", &args.needles)] {
        if let Some(out) = out {
            refuse_same_file(Named::new(flag, out), &scenario)?;
        }
    }
    let job = args.request().job()?;
    scenario_notes("--scenario", std::slice::from_ref(&args.scenario.value));
    job.write_outputs(args.out.as_deref(), args.needles.as_deref())?;
    Ok(Status::Done)
}
