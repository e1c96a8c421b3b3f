//! `budgetlab merge`: the report folders of a sharded run combined into the report of the whole run.

use std::path::PathBuf;

use clap::Args;

use budgetlab::atomic::Named;

use super::flags::{help, ReportFolder};
use super::Status;

/// Examples shown after `budgetlab merge --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab run --shard 0/2 --out shards/0
  budgetlab run --shard 1/2 --out shards/1
  budgetlab merge shards/0 shards/1 --out reports/merged";

/// Flags of `budgetlab merge`.
#[derive(Debug, Args)]
#[command(mut_arg("out", help("The report folder of the merged run")))]
pub(crate) struct MergeArgs {
    /// The shards' report folders (written by `budgetlab run --shard I/N`), in any order.
    #[arg(required = true, value_name = "DIR")]
    pub(crate) dirs: Vec<PathBuf>,
    /// The report folder of the merged run.
    #[command(flatten)]
    pub(crate) out: ReportFolder,
}

/// Loads the shards, merges them and writes the report.
pub(crate) fn execute(args: MergeArgs) -> anyhow::Result<Status> {
    args.out.check()?;
    let shards: Vec<Named> = args.dirs.iter().map(|d| Named::new("DIR", d)).collect();
    args.out.refuse_holding(&shards)?;
    let shards = args
        .dirs
        .iter()
        .map(|dir| budgetlab::run::ShardReport::load(dir))
        .collect::<budgetlab::Result<Vec<_>>>()?;
    let list = budgetlab::run::shard_list(&shards);
    let results = budgetlab::report::ReportWriter::new(&args.out.dir).merge(shards)?;
    eprintln!(
        "budgetlab: merged shards {list} ({} rows) into {}; open {}",
        results.rows.len(),
        args.out.dir.display(),
        args.out.dir.join(budgetlab::report::INDEX_HTML).display()
    );
    Ok(Status::Done)
}
