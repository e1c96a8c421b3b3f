//! `budgetlab scenarios`: the shipped scenarios (or a folder's) by name, with a one-line description each.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::output::emit;
use super::Status;

/// Examples shown after `budgetlab scenarios --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab scenarios
  budgetlab scenarios --json";

/// Flags of `budgetlab scenarios`.
#[derive(Debug, Args)]
pub(crate) struct ScenariosArgs {
    /// List the `*.toml` scenarios of this directory instead of the shipped ones.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
    /// Print the list as JSON: each scenario's name, description, mode, seed, batches, budgets and digest.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Lists the scenarios.
pub(crate) fn execute(args: ScenariosArgs) -> anyhow::Result<Status> {
    let list = match &args.dir {
        Some(dir) => budgetlab::Scenario::load_dir(dir)?,
        None => budgetlab::Scenario::all_shipped(),
    };
    let mut out = Vec::new();
    if args.json {
        let list: Vec<serde_json::Value> = list.iter().map(budgetlab::Scenario::summary).collect();
        serde_json::to_writer_pretty(&mut out, &list)?;
        out.push(b'\n');
    } else {
        for s in &list {
            writeln!(out, "{:<18} {}", s.name, s.description)?;
        }
    }
    emit(&out)?;
    Ok(Status::Done)
}
