//! `history show`'s output: a [`Table`] as Markdown or as JSON. Pure: the binary prints the bytes.
//!
//! The Markdown is the night-by-night table ([`markdown`]: one table a figure, nights as rows, a column a row of
//! the results) when it fits [`COLUMNS`]; otherwise, or on request, a summary of what moved ([`summary`]): one
//! line a series whose deterministic figure changed from a night to the next, with its first and last values and
//! the nights it moved on, every cell cut to fit, so a history of hundreds of rows reads in a terminal.

use std::fmt::Write;

use serde_json::json;

use super::series::Table;
use super::tracked::TrackedFigure;

/// The width a terminal shows, which the default output fits.
pub const COLUMNS: usize = 120;

/// The longest a name (scenario, budget, strategy) is shown in the summary; longer ones end in `…`.
const NAME: usize = 26;

/// At most this many nights are named where a series moved; the rest are counted.
const NIGHTS: usize = 2;

/// The default Markdown: the night-by-night table when every line of it fits [`COLUMNS`], else the summary of
/// what moved.
pub fn default_markdown(table: &Table) -> String {
    let nights = markdown(table);
    if nights.lines().all(|l| l.chars().count() <= COLUMNS) {
        nights
    } else {
        summary(table, false)
    }
}

/// The nights each series moved on: those whose value differs from the night before's (both measured).
fn moves(values: &[Option<Option<f64>>]) -> Vec<usize> {
    (1..values.len())
        .filter(|&i| match (values[i - 1], values[i]) {
            (Some(Some(a)), Some(Some(b))) => a != b,
            _ => false,
        })
        .collect()
}

fn cut(name: &str) -> String {
    if name.chars().count() <= NAME {
        name.to_string()
    } else {
        let kept: String = name.chars().take(NAME - 1).collect();
        format!("{kept}…")
    }
}

/// The summary: a line saying how many series there are and how many moved, then one row a series whose
/// deterministic figure moved (every series with `all`), with its first and last values and the nights it moved
/// on; every line fits [`COLUMNS`]. Wall-clock figures (cost and times) differ every night and are listed only
/// with `all`.
pub fn summary(table: &Table, all: bool) -> String {
    let mut out = String::new();
    if table.nights.is_empty() {
        out.push_str("No nights recorded.\n");
        return out;
    }
    let (first, last) = (&table.nights[0], &table.nights[table.nights.len() - 1]);
    let moved: Vec<(&super::series::Series, Vec<usize>)> = table
        .series
        .iter()
        .map(|s| (s, moves(&s.values)))
        .filter(|(s, m)| all || (s.key.figure.deterministic() && !m.is_empty()))
        .collect();
    let deterministic_moved = table
        .series
        .iter()
        .filter(|s| s.key.figure.deterministic() && !moves(&s.values).is_empty())
        .count();
    let _ = writeln!(
        out,
        "{} nights ({} to {}), {} series, {} moved (a deterministic figure changed between nights).",
        table.nights.len(),
        first.date,
        last.date,
        table.series.len(),
        deterministic_moved
    );
    out.push_str(
        "--all lists every series, --nights prints night by night; --metric, --scenario, --budget, --strategy \
and --last choose.\n\n",
    );
    if moved.is_empty() {
        return out;
    }
    out.push_str("| figure | scenario | budget | strategy | first | last | moved on nights |\n");
    out.push_str("|---|---|---|---|---:|---:|---|\n");
    for (s, m) in moved {
        let value = |v: Option<&Option<Option<f64>>>| match v {
            Some(Some(v)) => s.key.figure.format(*v),
            _ => String::new(),
        };
        let firsts = s.values.iter().find(|v| v.is_some());
        let lasts = s.values.iter().rev().find(|v| v.is_some());
        let mut nights: Vec<String> = m
            .iter()
            .take(NIGHTS)
            .map(|&i| {
                let n = &table.nights[i];
                match &n.commit {
                    Some(c) => format!("{} ({})", n.night, &c[..c.len().min(7)]),
                    None => n.night.to_string(),
                }
            })
            .collect();
        if m.len() > NIGHTS {
            nights.push(format!("+{}", m.len() - NIGHTS));
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            s.key.figure.name(),
            cut(&s.key.scenario),
            cut(&s.key.budget),
            cut(&s.key.strategy),
            value(firsts),
            value(lasts),
            if nights.is_empty() {
                "-".to_string()
            } else {
                nights.join(", ")
            }
        );
    }
    out
}

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
