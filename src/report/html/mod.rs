//! `index.html`: one self-contained page per report folder that works from the file system with no server and
//! no network: the inputs, the summary tables and every chart (linked by relative path) with a caption saying
//! what to read from it. Pure string building; the report writer owns the file.
//!
//! This file holds what every page shares (the style and script, the head and foot, the charts section, the
//! table cells and the tables of rows and inputs); each kind of page is a file of its own: `run.rs`,
//! `history.rs`, `sweep.rs` and `tune.rs`.

mod history;
mod run;
mod sweep;
#[cfg(test)]
mod tests;
mod tune;

pub use history::history_page;
pub use run::run_page;
pub use sweep::sweep_page;
pub use tune::tune_page;

use std::fmt::Write as _;

use super::chart::{Format, Rendered};
use super::export::{
    figure_cell, floor_ratio, needles_cell, pct, pct_opt, token_compliance_cell,
    units_per_token_cell, TimeUnit,
};
use crate::metrics::{in_tables, Aggregate, Column, StrategyKey};
use crate::run::WorkloadInfo;

const STYLE: &str = r#"
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif; margin: 0; color: #1e1e1e;
  background: #f6f6f4; line-height: 1.45; }
main { max-width: 1800px; margin: 0 auto; padding: 24px 32px 48px; background: #fff; }
h1 { margin: 0 0 4px; font-size: 28px; }
h2 { margin: 36px 0 10px; font-size: 22px; border-bottom: 2px solid #ddd; padding-bottom: 4px; }
h3 { margin: 0 0 8px; font-size: 18px; }
p.meta { color: #555; margin: 0 0 12px; }
nav { margin: 12px 0; font-size: 15px; }
nav a { margin-right: 14px; white-space: nowrap; }
a { color: #2b5d8f; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 14px; }
th, td { padding: 4px 8px; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap; }
th { background: #f0f0ee; font-weight: 600; position: sticky; top: 0; white-space: normal; vertical-align: bottom; }
table.rows { font-size: 13px; }
table.rows th, table.rows td { padding: 4px 5px; }
td.lead { white-space: normal; text-align: left; font-size: 12px; color: #333; }
th.lead { width: 25%; }
.js table.sortable th { cursor: pointer; padding-top: 14px; text-decoration: underline dotted #999;
  text-underline-offset: 3px; }
.js table.sortable th:hover { background: #e4e4e0; }
.js table.sortable th[aria-sort] { background: #e4e4e0; }
.js table.sortable th[aria-sort]::after { position: absolute; top: 2px; left: 0; right: 0; text-align: center;
  font-size: 10px; line-height: 1; color: #333; }
.js table.sortable th[aria-sort=ascending]::after { content: "\25B2"; }
.js table.sortable th[aria-sort=descending]::after { content: "\25BC"; }
td:first-child, th:first-child { text-align: left; }
td.text, th.text { text-align: left; }
td.wrap { white-space: normal; min-width: 260px; max-width: 460px; }
td.digest code { font-size: 11px; word-break: break-all; white-space: normal; }
td.bad { color: #a50026; font-weight: 600; }
td.best { font-weight: 600; }
table.answer { font-size: 13px; }
table.answer td, table.answer th { white-space: normal; }
table.answer td:not(.text) { white-space: nowrap; }
table.answer { width: 100%; }
table.answer td.over { font-size: 12px; color: #555; }
tr.baseline td { font-weight: 600; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
figure { margin: 28px 0 36px; padding: 16px; border: 1px solid #e3e3e3; border-radius: 6px; position: relative; }
.tip { position: absolute; z-index: 2; pointer-events: none; background: #1e1e1e; color: #fff; font-size: 13px;
  padding: 6px 9px; border-radius: 4px; white-space: pre-line; max-width: 420px; }
.tip[hidden] { display: none; }
figure img { display: block; max-width: 100%; height: auto; margin: 0 auto; }
figcaption { margin-top: 10px; font-size: 15px; color: #333; max-width: 1100px; }
figcaption .files { color: #777; font-size: 13px; margin-left: 6px; }
details { margin: 6px 0; }
summary { cursor: pointer; font-weight: 600; padding: 4px 0; }
.note { color: #555; font-size: 14px; max-width: 1100px; }
.scroll { overflow-x: auto; }
footer { margin-top: 40px; color: #777; font-size: 13px; }
"#;

/// The page's script, a few lines with no network: tables of class `sortable` sort by the column whose header is
/// clicked (again: reversed), numbers by their cell's raw `data-v` (an empty one, nothing measured, last either
/// way; ties keep the served order), and the points of a figure's `data-points` (`[x share, y share, line,
/// values]`) show their line and values when the pointer is within 8 pixels of them. Without it the page is the
/// same, in the served order, its charts plain images.
const SCRIPT: &str = r#"
document.documentElement.classList.add('js');
for (const t of document.querySelectorAll('table.sortable')) {
  const body = t.tBodies[0], heads = [...t.tHead.rows[0].cells], served = [...body.rows];
  heads.forEach((th, c) => {
    th.tabIndex = 0;
    const sort = () => {
      const dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
      heads.forEach(h => h.removeAttribute('aria-sort'));
      th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
      const key = r => {
        const d = r.cells[c], v = d.dataset.v, text = d.textContent.trim();
        if (v === '' || (v === undefined && text === '\u2013')) return null;
        return v === undefined ? text.toLowerCase() : Number(v);
      };
      const rows = served.map((r, i) => [key(r), i, r]).sort((a, b) => {
        if (a[0] === null || b[0] === null) return (a[0] === null) - (b[0] === null) || a[1] - b[1];
        const d = typeof a[0] !== typeof b[0] ? (typeof a[0] === 'number' ? -1 : 1)
          : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
        return dir * d || a[1] - b[1];
      });
      body.append(...rows.map(x => x[2]));
    };
    th.addEventListener('click', sort);
    th.addEventListener('keydown', e => { if (e.key === 'Enter') { e.preventDefault(); sort(); } });
  });
}
for (const f of document.querySelectorAll('figure[data-points]')) {
  const pts = JSON.parse(f.dataset.points), img = f.querySelector('img'), tip = document.createElement('div');
  tip.className = 'tip'; tip.hidden = true; tip.setAttribute('role', 'tooltip'); f.append(tip);
  img.addEventListener('mousemove', e => {
    const r = img.getBoundingClientRect(), fr = f.getBoundingClientRect();
    const d = pts.map(p => Math.hypot(r.left + p[0] * r.width - e.clientX, r.top + p[1] * r.height - e.clientY));
    const m = Math.min(...d);
    if (!(m <= 8)) { tip.hidden = true; return; }
    const near = new Map();
    pts.forEach((p, i) => { if (d[i] <= m + 1) near.set(p[3], [...(near.get(p[3]) || []), p[2]]); });
    tip.textContent = [...near].map(([values, lines]) => lines.join(', ') + '\n' + values).join('\n\n');
    const p = pts[d.indexOf(m)], x = r.left - fr.left + p[0] * r.width, y = r.top - fr.top + p[1] * r.height;
    tip.hidden = false;
    tip.style.left = (p[0] > 0.6 ? x - tip.offsetWidth - 12 : x + 12) + 'px';
    tip.style.top = (y + 12) + 'px';
  });
  img.addEventListener('mouseleave', () => { tip.hidden = true; });
}
"#;

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Escapes prose, turning `backticked` spans into code.
fn prose(s: &str) -> String {
    escape(s)
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{part}</code>")
            } else {
                part.to_string()
            }
        })
        .collect()
}

fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n\
</head>\n<body>\n<main>\n",
        escape(title)
    );
}

fn foot(out: &mut String, version: &str) {
    foot_saying(
        out,
        version,
        " <code>budgetlab report DIR</code> redraws the charts and this page from the results.",
    );
}

/// The page's footer, with `more` (HTML) after what it always says.
fn foot_saying(out: &mut String, version: &str, more: &str) {
    let _ = write!(
        out,
        "<footer>Written by budgetlab {}. Everything on this page is in this folder: it opens from the file system \
with no server and no network.{more}\
</footer>\n</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        escape(version)
    );
}

/// The hotspots of a chart as the page's script reads them: a JSON array of `[x share, y share, line, values]`.
fn points(hotspots: &[super::chart::Hotspot]) -> String {
    let points: Vec<serde_json::Value> = hotspots
        .iter()
        .map(|h| serde_json::json!([h.x, h.y, h.line, h.values]))
        .collect();
    serde_json::Value::Array(points).to_string()
}

/// The charts section: every chart with its caption and links to both files, and its hotspots (if any) for the
/// script's tooltips.
fn figures(out: &mut String, charts: &[Rendered]) {
    for c in charts {
        let svg = c.path(Format::Svg);
        let png = c.path(Format::Png);
        let points = if c.hotspots.is_empty() {
            String::new()
        } else {
            format!(" data-points=\"{}\"", escape(&points(&c.hotspots)))
        };
        let _ = write!(
            out,
            "<figure id=\"chart-{stem}\"{points}>\n<h3>{title}</h3>\n<a href=\"{png}\"><img src=\"{svg}\" alt=\"{title}\" \
loading=\"eager\"></a>\n<figcaption>{caption} <span class=\"files\">(<a href=\"{svg}\">SVG</a> · \
<a href=\"{png}\">PNG</a>)</span></figcaption>\n</figure>\n",
            stem = escape(&c.stem),
            title = escape(&c.title),
            caption = prose(&c.caption),
            svg = escape(&svg),
            png = escape(&png),
        );
    }
}

fn contents(out: &mut String, sections: &[(&str, &str)], charts: &[Rendered]) {
    out.push_str("<nav>");
    for (id, name) in sections {
        let _ = write!(out, "<a href=\"#{id}\">{}</a> ", escape(name));
    }
    if !charts.is_empty() {
        out.push_str("<details><summary>Charts</summary>");
        for c in charts {
            let _ = write!(
                out,
                "<a href=\"#chart-{}\">{}</a> ",
                escape(&c.stem),
                escape(&c.title)
            );
        }
        out.push_str("</details>");
    }
    out.push_str("</nav>\n");
}

fn budgets_text(info: &WorkloadInfo) -> String {
    info.budgets
        .iter()
        .map(|b| match b.window_tokens {
            Some(w) => format!("{} ({} units from a {w}-token window)", b.label, b.units),
            None => format!("{} units", b.units),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn scenario_table(out: &mut String, scenarios: &[WorkloadInfo]) {
    out.push_str(
        "<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th>scenario</th><th class=\"text\">source</th>\
<th class=\"text\">mode</th><th>batches</th><th>seed</th><th class=\"text\">budgets</th>\
<th class=\"text\">digest (SHA-256)</th></tr></thead>\n<tbody>\n",
    );
    for s in scenarios {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}{}</td>{}{}\
<td class=\"text wrap\">{}</td><td class=\"text digest\"><code>{}</code></td></tr>",
            escape(&s.name),
            escape(s.source.as_str()),
            escape(s.mode.as_str()),
            if s.legacy { " (legacy)" } else { "" },
            num("", &s.batches.to_string(), Some(s.batches as f64)),
            num("", &s.seed.to_string(), Some(s.seed as f64)),
            escape(&budgets_text(s)),
            escape(&s.digest),
        );
    }
    out.push_str("</tbody></table></div>\n");
}

/// A cell of a number: `text`, with its raw `value` in `data-v` for sorting (empty when nothing was measured:
/// sorted last) and `class` when not empty.
fn num(class: &str, text: &str, value: Option<f64>) -> String {
    let class = if class.is_empty() {
        String::new()
    } else {
        format!(" class=\"{class}\"")
    };
    let value = value
        .filter(|v| v.is_finite())
        .map_or(String::new(), |v| v.to_string());
    format!("<td{class} data-v=\"{value}\">{}</td>", escape(text))
}

/// The class of a cell that is bad when `is_bad`, for [`num`].
fn bad_class(is_bad: bool) -> &'static str {
    if is_bad {
        "bad"
    } else {
        ""
    }
}

/// How a table of rows shows its figures: the median cost in one unit for the column, and the needles' upper
/// bound once, in the header, when every row has planted needles and the same bound (the rows of one scenario
/// and budget: the bound is the batches', whatever the strategy), or beside each row's survival otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RowTable {
    unit: TimeUnit,
    bound: Option<f64>,
}

impl RowTable {
    fn of<'a>(rows: impl Iterator<Item = &'a Aggregate> + Clone) -> RowTable {
        let planted = |r: &Aggregate| r.needles.by_kind.values().any(|k| k.planted > 0);
        let mut bounds = rows
            .clone()
            .map(|r| r.needles.upper_bound.filter(|_| planted(r)));
        let first = bounds.next().flatten();
        RowTable {
            unit: TimeUnit::of(rows.map(|r| r.cost.median_ns)),
            bound: first.filter(|&b| bounds.all(|other| other == Some(b))),
        }
    }
}

/// The header cells of a row's figures (after the cells naming the row): the row figures with a column
/// ([`in_tables`]) between the needles and the recoverable share; see [`RowTable`].
fn row_columns(table: RowTable) -> String {
    let mut out = format!(
        "<th>within budget</th><th>max overshoot</th><th>kept per field</th><th>budget used</th><th>{}</th>",
        match table.bound {
            Some(bound) => format!("needles kept (of {} possible)", pct(bound)),
            None => "needles / possible".to_string(),
        }
    );
    for f in in_tables() {
        let _ = write!(out, "<th>{}</th>", escape(f.label));
    }
    let _ = write!(
        out,
        "<th>recoverable</th><th>integrity issues</th><th>median cost ({})</th><th>cost / floor</th>",
        table.unit.symbol()
    );
    out
}

/// The cells of a row's figures (see [`row_columns`]), each number with its raw value for sorting.
fn row_cells(r: &Aggregate, table: RowTable) -> String {
    let planted = r.needles.by_kind.values().any(|k| k.planted > 0);
    let mut out = [
        num(
            bad_class(r.compliance.rate < 1.0),
            &pct(r.compliance.rate),
            Some(r.compliance.rate),
        ),
        num(
            "",
            &r.compliance.max_overshoot.to_string(),
            Some(r.compliance.max_overshoot as f64),
        ),
        num("", &pct_opt(r.retention.mean), r.retention.mean),
        num(
            "",
            &pct_opt(r.retention.budget_used),
            r.retention.budget_used,
        ),
        num(
            "",
            &match table.bound {
                Some(_) => pct_opt(r.needles.survival),
                None => needles_cell(r),
            },
            r.needles.survival.filter(|_| planted),
        ),
    ]
    .concat();
    for f in in_tables() {
        let value = f.row.map(|value| value(r));
        let issue = f.table == Column::Issue && value.is_some_and(|v| v > 0);
        out.push_str(&num(
            bad_class(issue),
            &figure_cell(f, r),
            value.map(|v| v as f64),
        ));
    }
    out.push_str(&num(
        "",
        &pct_opt(r.persistence.recoverable),
        r.persistence.recoverable,
    ));
    out.push_str(&num(
        bad_class(r.integrity.total() > 0),
        &r.integrity.total().to_string(),
        Some(r.integrity.total() as f64),
    ));
    out.push_str(&num(
        "",
        &table.unit.cell(r.cost.median_ns),
        Some(r.cost.median_ns as f64),
    ));
    out.push_str(&num("", &floor_ratio(r), r.cost.floor_ratio));
    out
}

/// The header cells of the token columns (units per token, within the token budget) of a run or sweep given
/// `--tokenizer`; empty otherwise.
fn token_columns(tokens: bool) -> &'static str {
    if tokens {
        "<th>units per token</th><th>within token budget</th>"
    } else {
        ""
    }
}

/// The token cells of a row (see [`token_columns`]); empty for a row without token figures.
fn token_cells(r: &Aggregate) -> String {
    match &r.tokens {
        Some(t) => {
            num("", &units_per_token_cell(r), t.units_per_token)
                + &num(
                    "",
                    &token_compliance_cell(r),
                    t.compliance.as_ref().map(|c| c.rate),
                )
        }
        None => String::new(),
    }
}

fn bad(is_bad: bool) -> &'static str {
    if is_bad {
        " class=\"bad\""
    } else {
        ""
    }
}

fn row_class(strategy: &StrategyKey) -> &'static str {
    if strategy.is_reference() {
        " class=\"baseline\""
    } else {
        ""
    }
}

/// A grouped table's scenario cell: the scenario's name (escaped) on the first of its lines, empty on the others;
/// `last` is the scenario of the line before.
fn named_once<'a>(last: &mut Option<&'a str>, scenario: &'a str) -> String {
    let cell = if *last == Some(scenario) {
        String::new()
    } else {
        escape(scenario)
    };
    *last = Some(scenario);
    cell
}
