//! `budgetlab strategies`: every built-in strategy's name and one-line description, from the strategy table, each
//! followed by the parameters it declares (one indented line each: name, range, default, what it changes); with
//! `--json`, also its family, the fields it promises to fit a budget and the conformance checks it gives up.

use std::io::Write;

use clap::Args;
use serde_json::{json, Value};

use budgetlab::finalize::{Param, ParamKind, SlotScope};
use budgetlab::StrategyName;

use super::output::{emit, stdout_json_error};
use super::Status;

/// Examples shown after `budgetlab strategies --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab strategies
  budgetlab strategies --json";

/// Flags of `budgetlab strategies`.
#[derive(Debug, Args)]
pub(crate) struct StrategiesArgs {
    /// Print the strategies as JSON: name, description, family, the fields capped, the checks given up and the
    /// parameters.
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
        for p in s.params() {
            writeln!(
                out,
                "{:<width$}   - {} ({}, default {}): {}",
                "",
                p.name,
                p.range(),
                s.param_default(p),
                p.description
            )?;
        }
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
        "params": s.params().iter().map(|p| describe_param(s, p)).collect::<Vec<_>>(),
    })
}

/// One parameter of `s` as `--json` gives it: whole numbers as numbers, a head share as its exact text (`"0.2"`);
/// the default is the value `s` uses unconfigured.
fn describe_param(s: &StrategyName, p: &Param) -> Value {
    let default = s.param_default(p);
    let (kind, min, max, default) = match p.kind() {
        ParamKind::Units(bounds) => (
            "units",
            json!(bounds.low),
            json!(bounds.high),
            json!(default.parse::<u64>().ok()),
        ),
        ParamKind::Share => ("share", json!("0"), json!("1"), json!(default)),
    };
    json!({
        "name": p.name,
        "key": p.key,
        "kind": kind,
        "min": min,
        "max": max,
        "default": default,
        "description": p.description,
        "search": p.search.describe(),
        "tuneTries": p.search.values(),
    })
}
