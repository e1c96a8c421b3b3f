//! `budgetlab strategies`: every built-in strategy's name and one-line description, from the strategy table; with
//! `--json`, also its family, the fields it promises to fit a budget and the conformance checks it gives up.

use std::io::Write;

use clap::Args;
use serde_json::{json, Value};

use budgetlab::finalize::SlotScope;
use budgetlab::StrategyName;

use super::output::{emit, stdout_json_error};
use super::Status;

/// Flags of `budgetlab strategies`.
#[derive(Debug, Args)]
pub(crate) struct StrategiesArgs {
    /// Print the strategies as JSON: name, description, family, the fields capped and the checks given up.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Lists the strategies, names aligned, or as JSON.
pub(crate) fn execute(args: StrategiesArgs) -> anyhow::Result<Status> {
    let all = StrategyName::all();
    if args.json {
        let list: Vec<Value> = all.iter().map(describe).collect();
        let mut out = serde_json::to_vec_pretty(&list).map_err(stdout_json_error)?;
        out.push(b'\n');
        emit(&out)?;
        return Ok(Status::Done);
    }
    let width = all.iter().map(|s| s.as_str().len()).max().unwrap_or(0);
    let mut out = Vec::new();
    for s in &all {
        writeln!(out, "{:<width$} {}", s.as_str(), s.description())?;
    }
    emit(&out)?;
    Ok(Status::Done)
}

/// One strategy as `--json` gives it.
fn describe(s: &StrategyName) -> Value {
    let caps = s.caps().map(|scope| {
        if scope == SlotScope::ALL {
            "output, error and text"
        } else {
            "output and error"
        }
    });
    json!({
        "name": s.as_str(),
        "description": s.description(),
        "family": s.family().as_str(),
        "caps": caps,
        "givesUp": s.gives_up(),
    })
}
