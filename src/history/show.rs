//! `history show`'s output: a [`Table`] as Markdown (one table a figure, nights as rows, a column a row of the
//! results) or as JSON. Pure: the binary prints the bytes.

use std::fmt::Write;

use serde_json::json;

use super::series::Table;
use super::tracked::TrackedFigure;

/// The table as Markdown: for each figure a heading and a table whose rows are the nights (night, date,
/// commit) and whose columns are the results rows (`scenario budget strategy`); `-` where the figure has
/// nothing to measure, blank where the run had no such row.
pub fn markdown(table: &Table) -> String {
    let mut out = String::new();
    if table.nights.is_empty() {
        out.push_str("No nights recorded.\n");
        return out;
    }
    let mut figures: Vec<TrackedFigure> = table.series.iter().map(|s| s.key.figure).collect();
    figures.dedup();
    if figures.is_empty() {
        out.push_str("No series match.\n");
    }
    for figure in figures {
        let series: Vec<_> = table
            .series
            .iter()
            .filter(|s| s.key.figure == figure)
            .collect();
        let _ = writeln!(out, "## {}\n", figure.name());
        out.push_str("| night | date | commit |");
        for s in &series {
            let _ = write!(
                out,
                " {} {} {} |",
                s.key.scenario, s.key.budget, s.key.strategy
            );
        }
        out.push_str("\n|---:|---|---|");
        out.push_str(&"---:|".repeat(series.len()));
        out.push('\n');
        for (i, night) in table.nights.iter().enumerate() {
            let _ = write!(
                out,
                "| {} | {} | {} |",
                night.night,
                night.date,
                night.short_commit()
            );
            for s in &series {
                match s.values[i] {
                    Some(value) => {
                        let _ = write!(out, " {} |", figure.format(value));
                    }
                    None => out.push_str("  |"),
                }
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

/// The table as JSON: `nights` (night, date, commit, label, sha256s, version) and `series` (metric, scenario,
/// budget, strategy; `values`, one a night, null where the figure had nothing to measure or the run had no such
/// row; `present`, one a night, false where the run had no such row).
pub fn json(table: &Table) -> serde_json::Value {
    json!({
        "nights": table.nights,
        "series": table.series.iter().map(|s| json!({
            "metric": s.key.figure.name(),
            "scenario": s.key.scenario,
            "budget": s.key.budget,
            "strategy": s.key.strategy,
            "values": s.values.iter().map(|v| v.flatten()).collect::<Vec<_>>(),
            "present": s.values.iter().map(Option::is_some).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}
