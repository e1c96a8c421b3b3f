//! `budgetlab strategies`: every built-in strategy's name and one-line description, from the strategy table.

use std::io::Write;

use budgetlab::StrategyName;

use super::output::emit;
use super::Status;

/// Lists the strategies, names aligned.
pub(crate) fn execute() -> anyhow::Result<Status> {
    let all = StrategyName::all();
    let width = all.iter().map(|s| s.as_str().len()).max().unwrap_or(0);
    let mut out = Vec::new();
    for s in &all {
        writeln!(out, "{:<width$} {}", s.as_str(), s.description())?;
    }
    emit(&out)?;
    Ok(Status::Done)
}
