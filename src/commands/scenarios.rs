//! `budgetlab scenarios`: the shipped scenarios (or a folder's) by name, with a one-line description each.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::output::emit;
use super::Status;

/// Flags of `budgetlab scenarios`.
#[derive(Debug, Args)]
pub(crate) struct ScenariosArgs {
    /// List the `*.toml` scenarios of this directory instead of the shipped ones.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

/// Lists the scenarios.
pub(crate) fn execute(args: ScenariosArgs) -> anyhow::Result<Status> {
    let list = match &args.dir {
        Some(dir) => budgetlab::Scenario::load_dir(dir)?,
        None => budgetlab::Scenario::all_shipped(),
    };
    let mut out = Vec::new();
    for s in &list {
        writeln!(out, "{:<18} {}", s.name, s.description)?;
    }
    emit(&out)?;
    Ok(Status::Done)
}
