//! The Markdown form of a [`ProfileReport`]: one column per source, the compared source after them, and with it
//! one difference column per source (a size as the ratio source / compared, a share in percentage points, a
//! position or a count as source minus compared). A figure with nothing to measure is `-`, and so is a
//! difference with either side missing.

use std::fmt::Write as _;

use super::{Distribution, NeedleKind, Positions, Profile, ProfileReport, Share};
use crate::thousands::grouped;

/// How a row's figures are told apart.
enum Figure {
    /// UTF-16 units, lines or batches: compared as a ratio.
    Size(Option<u64>),
    /// A share of outputs or batches: compared in percentage points.
    Share(Option<f64>),
    /// A relative position in 0..1: compared as a difference.
    Position(Option<f64>),
    /// A count: compared as a difference.
    Count(u64),
    /// Text, not compared.
    Text(String),
}

impl Figure {
    fn cell(&self) -> String {
        match self {
            Figure::Size(v) => v.map_or_else(dash, grouped),
            Figure::Share(v) => v.map_or_else(dash, percent),
            Figure::Position(v) => v.map_or_else(dash, |p| format!("{p:.2}")),
            Figure::Count(n) => grouped(*n),
            Figure::Text(t) => t.clone(),
        }
    }

    fn difference(&self, base: &Figure) -> String {
        match (self, base) {
            (Figure::Size(Some(a)), Figure::Size(Some(b))) if *b > 0 => {
                format!("×{}", ratio(*a as f64 / *b as f64))
            }
            (Figure::Share(Some(a)), Figure::Share(Some(b))) => {
                format!("{:+.2} pp", (a - b) * 100.0)
            }
            (Figure::Position(Some(a)), Figure::Position(Some(b))) => format!("{:+.2}", a - b),
            (Figure::Count(a), Figure::Count(b)) => {
                let d = *a as i128 - *b as i128;
                if d < 0 {
                    format!("-{}", grouped(d.unsigned_abs() as u64))
                } else {
                    format!("+{}", grouped(d as u64))
                }
            }
            _ => dash(),
        }
    }
}

/// A ratio with two decimals, or three significant digits below 0.1 (so that ×0.005 does not read ×0.00).
fn ratio(r: f64) -> String {
    if r == 0.0 || r >= 0.1 {
        format!("{r:.2}")
    } else {
        let decimals = (2.0 - r.log10().floor()) as usize;
        format!("{r:.decimals$}")
    }
}

fn dash() -> String {
    "-".into()
}

/// A share as a percentage with two decimals.
fn percent(v: f64) -> String {
    format!("{:.2}%", v * 100.0)
}

/// A name as a table cell: `|` escaped and control characters shown as escapes.
fn cell(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '`' => out.push('\''),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// The report as Markdown.
pub fn markdown(report: &ProfileReport) -> String {
    let columns: Vec<&Profile> = report.profiles.iter().chain(&report.compare).collect();
    let mut out = String::from("# Profile\n\n");
    for p in &columns {
        let s = &p.source;
        let what = match s.seed {
            Some(seed) => format!("scenario, seed {seed}"),
            None => "recorded".to_string(),
        };
        let role = if report.compare.as_ref().is_some_and(|c| std::ptr::eq(c, *p)) {
            " (compared with)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "- `{}`{role}: {what}, {} batches, {} outputs",
            cell(&s.name),
            grouped(s.batches),
            grouped(p.outputs)
        );
    }
    out.push('\n');
    let table = Table {
        report,
        columns: &columns,
    };
    table.section(
        &mut out,
        "Sizes (UTF-16 units per output)",
        &size_rows(&columns),
    );
    table.section(&mut out, "Shape (share of outputs)", &shape_rows(&columns));
    table.section(&mut out, "Batches and repeats", &batch_rows(&columns));
    table.section(
        &mut out,
        "Exit lines (share of outputs)",
        &exit_rows(&columns),
    );
    table.section(&mut out, "Needles found", &needle_rows(&columns));
    out.push_str(
        "Percentiles are nearest-rank (the smallest value with at least that share of outputs at or below it). \
Positions run from 0 (the start of a text) to 1 (its end). `-`: nothing to measure.\n",
    );
    for p in &columns {
        tool_table(&mut out, p);
    }
    out
}

/// One row: a label and one figure per column.
type Row = (String, Vec<Figure>);

struct Table<'a> {
    report: &'a ProfileReport,
    columns: &'a [&'a Profile],
}

impl Table<'_> {
    fn section(&self, out: &mut String, title: &str, rows: &[Row]) {
        let _ = write!(out, "## {title}\n\n|  |");
        for p in self.columns {
            let _ = write!(out, " {} |", cell(&p.source.name));
        }
        let compared = self.report.compare.is_some();
        let sources = self.report.profiles.len();
        if compared {
            for p in &self.report.profiles {
                let _ = write!(out, " {} vs compared |", cell(&p.source.name));
            }
        }
        out.push_str("\n|---|");
        let extra = if compared { sources } else { 0 };
        for _ in 0..self.columns.len() + extra {
            out.push_str("---:|");
        }
        out.push('\n');
        for (label, figures) in rows {
            let _ = write!(out, "| {label} |");
            for f in figures {
                let _ = write!(out, " {} |", f.cell());
            }
            if compared {
                let base = &figures[sources];
                for f in &figures[..sources] {
                    let _ = write!(out, " {} |", f.difference(base));
                }
            }
            out.push('\n');
        }
        out.push('\n');
    }
}

fn row(label: &str, columns: &[&Profile], f: impl Fn(&Profile) -> Figure) -> Row {
    (label.to_string(), columns.iter().map(|p| f(p)).collect())
}

fn distribution_rows(
    rows: &mut Vec<Row>,
    what: &str,
    columns: &[&Profile],
    d: impl Fn(&Profile) -> Distribution,
) {
    rows.push(row(&format!("{what}: median"), columns, |p| {
        Figure::Size(d(p).median)
    }));
    rows.push(row(&format!("{what}: p90"), columns, |p| {
        Figure::Size(d(p).p90)
    }));
    rows.push(row(&format!("{what}: p99"), columns, |p| {
        Figure::Size(d(p).p99)
    }));
    rows.push(row(&format!("{what}: max"), columns, |p| {
        Figure::Size(d(p).max)
    }));
}

fn share(s: Share) -> Figure {
    Figure::Share(s.share)
}

fn size_rows(columns: &[&Profile]) -> Vec<Row> {
    let mut rows = vec![row("outputs", columns, |p| Figure::Count(p.outputs))];
    distribution_rows(&mut rows, "size", columns, |p| p.sizes.distribution);
    rows.push(row("size: mean", columns, |p| {
        Figure::Size(p.sizes.mean.map(|m| m.round() as u64))
    }));
    for (i, units) in super::SIZE_THRESHOLDS.iter().enumerate() {
        rows.push(row(&format!("above {}", grouped(*units)), columns, |p| {
            share(p.sizes.above[i].outputs)
        }));
    }
    rows
}

fn positions_rows(
    rows: &mut Vec<Row>,
    what: &str,
    columns: &[&Profile],
    d: impl Fn(&Profile) -> Positions,
) {
    rows.push(row(&format!("{what}: median"), columns, |p| {
        Figure::Position(d(p).median)
    }));
    rows.push(row(&format!("{what}: mean"), columns, |p| {
        Figure::Position(d(p).mean)
    }));
}

fn shape_rows(columns: &[&Profile]) -> Vec<Row> {
    let mut rows = vec![
        row("with an astral character (surrogate pair)", columns, |p| {
            share(p.shape.astral)
        }),
        row("with any non-ASCII", columns, |p| share(p.shape.non_ascii)),
        row("with CRLF line ends", columns, |p| share(p.shape.crlf)),
        row("with ANSI escapes", columns, |p| share(p.shape.ansi)),
        row("empty", columns, |p| share(p.shape.empty)),
        row("whole JSON", columns, |p| share(p.shape.json)),
    ];
    positions_rows(
        &mut rows,
        "summary line position (0 start, 1 end)",
        columns,
        |p| p.shape.summary_position,
    );
    distribution_rows(&mut rows, "lines per output", columns, |p| p.lines);
    rows
}

fn batch_rows(columns: &[&Profile]) -> Vec<Row> {
    let mut rows = vec![row("batches", columns, |p| {
        Figure::Count(p.width.distribution.count)
    })];
    rows.push(row("batch width: median", columns, |p| {
        Figure::Size(p.width.distribution.median)
    }));
    rows.push(row("batch width: max", columns, |p| {
        Figure::Size(p.width.distribution.max)
    }));
    rows.push(row("batches wider than 1", columns, |p| {
        share(p.width.above_one)
    }));
    rows.push(row("repeated outputs", columns, |p| {
        share(p.repeats.repeated)
    }));
    rows.push(row("most repeated", columns, |p| {
        Figure::Text(p.repeats.most.as_ref().map_or_else(dash, |m| {
            format!(
                "{} × {} units ({})",
                m.copies,
                grouped(m.units),
                cell(&m.tool)
            )
        }))
    }));
    rows
}

fn exit_rows(columns: &[&Profile]) -> Vec<Row> {
    let mut styles: Vec<&str> = Vec::new();
    for p in columns {
        for s in &p.exit_styles.styles {
            if !styles.contains(&s.style.as_str()) {
                styles.push(&s.style);
            }
        }
    }
    let mut rows = vec![row("no exit line", columns, |p| share(p.exit_styles.none))];
    for style in styles {
        rows.push(row(&format!("`{}`", cell(style)), columns, |p| {
            let found = p.exit_styles.styles.iter().find(|s| s.style == style);
            match found {
                Some(s) => share(s.outputs),
                None => Figure::Share((p.outputs > 0).then_some(0.0)),
            }
        }));
    }
    rows
}

fn kind_name(kind: NeedleKind) -> &'static str {
    match kind {
        NeedleKind::ExitInfo => "exit lines",
        NeedleKind::FirstError => "first errors",
        NeedleKind::SummaryLine => "summary lines",
        NeedleKind::JsonKey => "JSON keys",
        NeedleKind::Used => "used lines",
        NeedleKind::UsedToken => "used tokens",
        NeedleKind::Relevant => "relevant lines",
    }
}

fn needle_rows(columns: &[&Profile]) -> Vec<Row> {
    let mut rows = vec![row("needles", columns, |p| Figure::Count(p.needles.total))];
    let kinds: Vec<NeedleKind> = columns
        .first()
        .map(|p| p.needles.kinds.iter().map(|k| k.kind).collect())
        .unwrap_or_default();
    for kind in kinds {
        let of = |p: &Profile| p.needles.kinds.iter().find(|k| k.kind == kind).cloned();
        let name = kind_name(kind);
        rows.push(row(name, columns, |p| {
            Figure::Count(of(p).map_or(0, |k| k.count))
        }));
        rows.push(row(&format!("{name}: outputs with one"), columns, |p| {
            Figure::Share(of(p).and_then(|k| k.outputs.share))
        }));
        rows.push(row(&format!("{name}: position, median"), columns, |p| {
            Figure::Position(of(p).and_then(|k| k.positions.median))
        }));
        rows.push(row(&format!("{name}: in the first tenth"), columns, |p| {
            Figure::Share(of(p).and_then(|k| k.positions.first_tenth))
        }));
        rows.push(row(&format!("{name}: in the last tenth"), columns, |p| {
            Figure::Share(of(p).and_then(|k| k.positions.last_tenth))
        }));
    }
    rows.push(row("planted / found / beyond", columns, |p| {
        Figure::Text(p.needles.planted.map_or_else(dash, |c| {
            format!(
                "{} / {} / {}",
                grouped(c.planted),
                grouped(c.found),
                grouped(c.beyond)
            )
        }))
    }));
    rows
}

fn tool_table(out: &mut String, p: &Profile) {
    let _ = write!(
        out,
        "\n## Tools of `{}`\n\n| tool | outputs | share | median | p90 | p99 | max |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
        cell(&p.source.name),
    );
    for t in &p.tools {
        let d = &t.sizes;
        let size = |v: Option<u64>| v.map_or_else(dash, grouped);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(&t.tool),
            grouped(d.count),
            t.share.map_or_else(dash, percent),
            size(d.median),
            size(d.p90),
            size(d.p99),
            size(d.max)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(666_756), "666,756");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(percent(0.0164), "1.64%");
        assert_eq!(Figure::Share(None).cell(), "-");
        assert_eq!(
            Figure::Size(Some(777)).difference(&Figure::Size(Some(314))),
            "×2.47"
        );
        assert_eq!(
            Figure::Share(Some(0.0617)).difference(&Figure::Share(Some(0.0164))),
            "+4.53 pp"
        );
        assert_eq!(Figure::Count(3).difference(&Figure::Count(1_005)), "-1,002");
        assert_eq!(
            Figure::Size(Some(317)).difference(&Figure::Size(Some(63_586))),
            "×0.00499"
        );
        assert_eq!(
            Figure::Size(Some(0)).difference(&Figure::Size(Some(9))),
            "×0.00"
        );
        assert_eq!(
            Figure::Size(Some(9)).difference(&Figure::Size(Some(100))),
            "×0.0900"
        );
        assert_eq!(Figure::Size(Some(1)).difference(&Figure::Size(None)), "-");
        assert_eq!(
            Figure::Size(Some(1)).difference(&Figure::Size(Some(0))),
            "-"
        );
        assert_eq!(cell("a|b`c\n"), "a\\|b'c\\n");
    }
}
