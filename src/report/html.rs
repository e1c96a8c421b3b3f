//! `index.html`: one self-contained page per report folder that works from the file system with no server and
//! no network: the inputs, the summary tables and every chart (linked by relative path) with a caption saying
//! what to read from it. Pure string building; the report writer owns the file.

use std::fmt::Write as _;

use super::chart::data::overview;
use super::chart::{Format, Rendered};
use super::export::{
    figure_cell, floor_ratio, needles_cell, pct, pct_opt, token_compliance_cell,
    units_per_token_cell, TimeUnit,
};
use crate::history::{HistoryVerdict, Table};
use crate::metrics::{in_tables, Aggregate, Column, StrategyKey};
use crate::run::{RunResults, WorkloadInfo};

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

/// The answer, first on the page: for each scenario and budget, the best strategy that kept the budget, its lead
/// over the next with the interval, and the strategies over budget.
fn answer_table(out: &mut String, results: &RunResults) {
    let lines = super::answer::lines(results);
    if lines.is_empty() {
        return;
    }
    out.push_str("<h2 id=\"answer\">Which strategy for each budget</h2>\n");
    out.push_str(
        "<div class=\"scroll\"><table class=\"answer\">\n<tr><th>scenario</th><th class=\"text\">budget (units)</th>\
<th class=\"text\">best that kept the budget</th><th class=\"text\">lead over the next (95% interval)</th>\
<th>needles kept</th><th>kept per field</th><th>cost / floor</th>\
<th class=\"text\">over budget (share of turns)</th></tr>\n",
    );
    let mut last_scenario = None;
    for l in &lines {
        let scenario = named_once(&mut last_scenario, &l.scenario);
        let _ = writeln!(
            out,
            "<tr><td>{scenario}</td><td class=\"text\">{}</td><td class=\"text best\"{}>{}</td>\
<td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"text over\">{}</td></tr>",
            escape(&l.budget),
            bad(l.nobody),
            escape(&l.best),
            escape(&l.lead),
            escape(&l.needles),
            escape(&l.retention),
            escape(&l.cost),
            escape(&l.broke),
        );
    }
    let _ = writeln!(
        out,
        "</table></div>\n<p class=\"note\">{}</p>",
        escape(super::answer::NOTE)
    );
}

/// The trade-offs, after the answer: for each scenario and budget, the strategies on the Pareto fronts of what
/// they keep against bytes written and against cost, each place on a front on a line of its own.
fn pareto_table(out: &mut String, results: &RunResults, charts: &[Rendered]) {
    let lines = super::pareto::lines(results);
    if lines.is_empty() {
        return;
    }
    out.push_str(
        "<h2 id=\"pareto\">What each strategy keeps for what it spends (Pareto fronts)</h2>\n",
    );
    out.push_str(
        "<div class=\"scroll\"><table class=\"answer pareto\">\n<tr><th>scenario</th><th class=\"text\">budget (units)</th>\
<th class=\"text\">front against KiB written per turn (needles / kept per field, KiB)</th>\
<th class=\"text\">front against cost / floor (needles / kept per field, cost)</th><th>kept the budget</th></tr>\n",
    );
    let places = |f: &super::pareto::Front| escape(&f.text("\n")).replace('\n', "<br>");
    let mut last_scenario = None;
    for l in &lines {
        let scenario = named_once(&mut last_scenario, &l.scenario);
        let _ = writeln!(
            out,
            "<tr><td>{scenario}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td>\
<td>{}</td></tr>",
            escape(&l.budget),
            places(&l.bytes),
            places(&l.cost),
            escape(&l.in_budget),
        );
    }
    let chart = match charts.iter().find(|c| c.stem == super::chart::pareto::STEM) {
        Some(c) => format!(
            " <a href=\"#chart-{}\">{}</a> draws them for one scenario.",
            escape(&c.stem),
            escape(&c.title)
        ),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "</table></div>\n<p class=\"note\">{}{chart}</p>",
        escape(super::pareto::NOTE)
    );
}

/// The lines the agent used, after the trade-offs when the run measured any: for each workload and budget, the
/// strategies ranked by the share of used lines they kept, with the most any allocation could keep; absent
/// without used lines.
fn used_table(out: &mut String, lines: &[super::used::UsedLine], charts: &[Rendered]) {
    if lines.is_empty() {
        return;
    }
    out.push_str("<h2 id=\"used\">Needles the agent used</h2>\n");
    out.push_str(
        "<div class=\"scroll\"><table class=\"answer used\">\n<tr><th>workload</th><th class=\"text\">budget (units)</th>\
<th>rank</th><th class=\"text\">strategies</th><th>used tokens kept, turns over budget (n)</th>\
<th>share kept over budget</th><th>share kept, all turns</th><th>upper bound over budget (any allocation)</th>\
<th>share of the bound</th><th>used lines kept (over budget / all)</th></tr>\n",
    );
    let mut last_scenario = None;
    let mut last_budget: Option<(&str, &str)> = None;
    for l in lines {
        let scenario = named_once(&mut last_scenario, &l.scenario);
        let budget = if last_budget == Some((&l.scenario, &l.budget)) {
            String::new()
        } else {
            escape(&l.budget)
        };
        last_budget = Some((&l.scenario, &l.budget));
        let _ = writeln!(
            out,
            "<tr><td>{scenario}</td><td class=\"text\">{budget}</td><td{}>{}</td><td class=\"text\">{}</td>\
<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if l.rank == "1" { " class=\"best\"" } else { "" },
            escape(&l.rank),
            escape(&l.names),
            escape(&l.over),
            escape(&l.over_share),
            escape(&l.share),
            escape(&l.bound),
            escape(&l.of_bound),
            escape(&l.lines),
        );
    }
    let chart = match charts.iter().find(|c| c.stem == super::chart::used::STEM) {
        Some(c) => format!(
            " <a href=\"#chart-{}\">{}</a> draws it.",
            escape(&c.stem),
            escape(&c.title)
        ),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "</table></div>\n<p class=\"note\">{}{chart}</p>",
        prose(super::used::NOTE)
    );
}

/// The page of a run.
pub fn run_page(
    results: &RunResults,
    charts: &[Rendered],
    per_turn: bool,
    history: Option<(&Table, &[Rendered])>,
) -> String {
    let mut out = String::with_capacity(64 * 1024);
    head(&mut out, "budgetlab report");
    out.push_str("<h1>budgetlab report</h1>\n");
    let scenarios = &results.inputs.scenarios;
    let seeds: std::collections::BTreeSet<u64> = scenarios.iter().map(|s| s.seed).collect();
    let seed = match seeds.len() {
        1 => format!("seed {}", results.seed),
        _ => "each scenario's own seed (Inputs)".to_string(),
    };
    let _ = writeln!(
        out,
        "<p class=\"meta\">budgetlab {} · results schema {} · {} · {} scenario{} · {} strateg{}{}</p>",
        escape(&results.crate_version),
        results.schema_version,
        seed,
        scenarios.len(),
        if scenarios.len() == 1 { "" } else { "s" },
        results.inputs.strategies.len(),
        if results.inputs.strategies.len() == 1 { "y" } else { "ies" },
        match results.inputs.shard {
            Some(s) => format!(" · shard {} of {}", s.index, s.count),
            None => String::new(),
        }
    );
    let used = super::used::lines(results);
    let mut sections = vec![("answer", "Which strategy"), ("pareto", "Trade-offs")];
    if !used.is_empty() {
        sections.push(("used", "Needles the agent used"));
    }
    sections.extend([
        ("inputs", "Inputs"),
        ("overview", "Overview"),
        ("charts", "Charts"),
    ]);
    if history.is_some() {
        sections.push(("trends", "Trends over the nights"));
    }
    sections.push(("tables", "Results by scenario and budget"));
    contents(&mut out, &sections, charts);

    answer_table(&mut out, results);
    pareto_table(&mut out, results, charts);
    used_table(&mut out, &used, charts);

    out.push_str("<h2 id=\"inputs\">Inputs</h2>\n");
    scenario_table(&mut out, scenarios);
    let _ = writeln!(
        out,
        "<p><b>Strategies</b> ({}): {}</p>",
        results.inputs.strategies.len(),
        results
            .inputs
            .strategies
            .iter()
            .map(|s| format!("<code>{}</code>", escape(s)))
            .collect::<Vec<_>>()
            .join(", ")
    );

    out.push_str("<h2 id=\"overview\">Overview: every scenario and budget together</h2>\n");
    let rows = overview(results);
    let unit = TimeUnit::of(rows.iter().map(|r| r.median_cost_ns));
    let _ = writeln!(
        out,
        "<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th class=\"text\">strategy</th><th>turns</th>\
<th>within budget</th><th>max overshoot</th><th>kept per field</th><th>needles / possible</th><th>writes</th>\
<th>duplicate writes</th><th>integrity issues</th><th>median cost ({})</th></tr></thead>\n<tbody>",
        unit.symbol()
    );
    for r in &rows {
        let count = |n: u64| Some(n as f64);
        let _ = writeln!(
            out,
            "<tr{}><td class=\"text\">{}</td>{}</tr>",
            row_class(&r.strategy),
            escape(&r.strategy),
            [
                num("", &r.turns.to_string(), count(r.turns)),
                num(
                    bad_class(r.compliance.is_some_and(|c| c < 1.0)),
                    &pct_opt(r.compliance),
                    r.compliance
                ),
                num("", &r.max_overshoot.to_string(), count(r.max_overshoot)),
                num("", &pct_opt(r.retention), r.retention),
                num(
                    "",
                    &format!("{} / {}", pct_opt(r.needles), pct_opt(r.needle_bound)),
                    r.needles
                ),
                num("", &r.writes.to_string(), count(r.writes)),
                num(
                    bad_class(r.duplicate_writes > 0),
                    &r.duplicate_writes.to_string(),
                    count(r.duplicate_writes)
                ),
                num(
                    bad_class(r.integrity > 0),
                    &r.integrity.to_string(),
                    count(r.integrity)
                ),
                num("", &unit.cell(r.median_cost_ns), count(r.median_cost_ns)),
            ]
            .concat(),
        );
    }
    out.push_str("</tbody></table></div>\n<p class=\"note\">Within budget: share of turns whose model request fits the budget. \
Max overshoot: the most any turn went over, in UTF-16 units. Kept per field: mean share of each original field still \
shown. Needles: planted exit lines, first errors, summary lines and JSON keys still visible, against the most any \
allocation of the same budget could keep. Integrity issues: reordered or dropped parts, changed media or reminders, \
broken surrogates and differing records; 0 for a correct finalizer. Median cost: the median of the rows' median time \
per turn, in the unit its header names (with cost / floor in the tables below, the only figures that differ between runs; cost / floor is the \
strategy's own time over the floor's, the least work any exact finalizer must do on the same input, timed beside \
it so that load on the machine cancels out, averaged over the middle half of the turns).</p>\n");

    out.push_str("<h2 id=\"charts\">Charts</h2>\n");
    if !per_turn {
        out.push_str(
            "<p class=\"note\">This folder has no <code>batches.jsonl</code>: the charts that need single turns are \
drawn from the rows, and the cost chart is left out.</p>\n",
        );
    }
    figures(&mut out, charts);

    if let Some((table, trends)) = history {
        out.push_str("<h2 id=\"trends\">Trends over the nights</h2>\n");
        trends_section(&mut out, table, trends);
    }

    out.push_str("<h2 id=\"tables\">Results by scenario and budget</h2>\n");
    out.push_str("<p class=\"note\">One table per budget a scenario ran at, one strategy a row. Open a scenario to \
see its tables; with scripts on, a click on a column's header sorts a table by it (again: the other way).</p>\n");
    for s in scenarios {
        let _ = writeln!(
            out,
            "<details><summary>{} · {}{} · {} batches · {}</summary>",
            escape(&s.name),
            escape(s.mode.as_str()),
            if s.legacy { " (legacy)" } else { "" },
            s.batches,
            escape(&budgets_text(s))
        );
        for b in &s.budgets {
            let rows = super::rows_at(results, &s.name, &b.label);
            if rows.is_empty() {
                continue;
            }
            let table = RowTable::of(rows.iter().copied());
            let _ = writeln!(
                out,
                "<h3>{} · {} ({} units)</h3>\n<div class=\"scroll\"><table class=\"sortable rows\">\n<thead><tr>\
<th>rank</th><th class=\"text\">strategy</th>{}{}<th class=\"text lead\">lead over the next</th></tr></thead>\n<tbody>",
                escape(&s.name),
                escape(&b.label.to_string()),
                b.units,
                row_columns(table),
                token_columns(results.inputs.tokens.is_some())
            );
            for p in super::answer::placed(results, &s.name, &b.label) {
                let _ = writeln!(
                    out,
                    "<tr{}>{}<td class=\"text\">{}</td>{}{}<td class=\"text lead\" data-v=\"{}\">{}</td></tr>",
                    row_class(&p.row.strategy),
                    num(
                        "",
                        &p.rank.map_or("over budget".to_string(), |r| r.to_string()),
                        p.rank.map(|r| r as f64)
                    ),
                    escape(&p.row.strategy),
                    row_cells(p.row, table),
                    token_cells(p.row),
                    p.lead.map_or(String::new(), |l| l.difference.to_string()),
                    escape(&p.lead.map_or("–".to_string(), super::answer::lead_text))
                );
            }
            out.push_str("</tbody></table></div>\n");
        }
        out.push_str("</details>\n");
    }
    foot(&mut out, &results.crate_version);
    out
}

/// The nights of a history (night, date, commit, label, the figures that moved on it) and its trend charts.
fn trends_section(out: &mut String, table: &Table, trends: &[Rendered]) {
    let moved = super::chart::trend::moved_nights(table);
    let _ = writeln!(
        out,
        "<p class=\"note\">{} night{} of the history, oldest first. A night on which a deterministic figure \
(compliance, retention, needles, writes, used lines) moved is marked on every chart with its commit; \
<code>budgetlab history check</code> lists the rows that moved.</p>",
        table.nights.len(),
        if table.nights.len() == 1 { "" } else { "s" }
    );
    out.push_str(
        "<details><summary>Nights</summary><div class=\"scroll\"><table class=\"sortable\">\n<thead><tr>\
<th>night</th><th class=\"text\">date</th><th class=\"text\">commit</th><th class=\"text\">label</th>\
<th class=\"text\">a deterministic figure moved</th></tr></thead>\n<tbody>\n",
    );
    for n in &table.nights {
        let _ = writeln!(
            out,
            "<tr><td data-v=\"{}\">{}</td><td class=\"text\">{}</td><td class=\"text\"><code>{}</code></td>\
<td class=\"text\">{}</td><td class=\"text\">{}</td></tr>",
            n.night,
            n.night,
            escape(&n.date),
            escape(n.commit.as_deref().unwrap_or("-")),
            escape(n.label.as_deref().unwrap_or("")),
            if moved.iter().any(|(m, _)| *m == n.night) {
                "yes"
            } else {
                ""
            }
        );
    }
    out.push_str("</tbody></table></div></details>\n");
    if trends.is_empty() {
        out.push_str("<p class=\"note\">No figure has a value to draw.</p>\n");
    }
    figures(out, trends);
}

/// The page of a nightly history (`budgetlab history report`): the verdict for the newest night, the nights and
/// the trend charts.
pub fn history_page(table: &Table, verdict: &HistoryVerdict, trends: &[Rendered]) -> String {
    let mut out = String::with_capacity(32 * 1024);
    head(&mut out, "budgetlab nightly history");
    out.push_str("<h1>budgetlab nightly history</h1>\n");
    let newest = verdict.newest();
    let _ = writeln!(
        out,
        "<p class=\"meta\">{} night{}{}</p>",
        table.nights.len(),
        if table.nights.len() == 1 { "" } else { "s" },
        newest.map_or(String::new(), |n| format!(
            " · newest {} ({}, commit <code>{}</code>)",
            n.night,
            escape(&n.date),
            escape(n.short_commit())
        ))
    );
    contents(
        &mut out,
        &[("verdict", "Verdict"), ("trends", "Trends over the nights")],
        trends,
    );
    out.push_str("<h2 id=\"verdict\">Verdict for the newest night</h2>\n");
    let newest_moves: Vec<_> = verdict.newest_moves().collect();
    let _ = writeln!(
        out,
        "<p><b>{}</b>: {} deterministic figure{} moved on the newest night, {} cost alarm{} ({} cost series \
tested: the last {} nights against the {} before, one-sided Mann-Whitney at alpha {}, a rise of at least {:.0}%). \
<code>budgetlab history check</code> prints the rows.</p>",
        if verdict.passed() { "PASS" } else { "FAIL" },
        newest_moves.len(),
        if newest_moves.len() == 1 { "" } else { "s" },
        verdict.alarms.len(),
        if verdict.alarms.len() == 1 { "" } else { "s" },
        verdict.cost_tested,
        verdict.test.window(),
        verdict.test.window(),
        verdict.test.alpha(),
        (verdict.test.min_ratio() - 1.0) * 100.0,
    );
    out.push_str("<h2 id=\"trends\">Trends over the nights</h2>\n");
    trends_section(&mut out, table, trends);
    foot_saying(
        &mut out,
        env!("CARGO_PKG_VERSION"),
        " <code>budgetlab history report --db DB --out DIR</code> draws it again from the history.",
    );
    out
}

/// The page of a sweep.
pub fn sweep_page(sweep: &crate::sweep::SweepResults, charts: &[Rendered]) -> String {
    let mut out = String::with_capacity(32 * 1024);
    let axis = sweep.axis;
    head(
        &mut out,
        &format!("budgetlab sweep: {}", sweep.scenario.name),
    );
    let _ = writeln!(
        out,
        "<h1>budgetlab sweep: {} over {}</h1>",
        escape(&sweep.scenario.name),
        escape(axis.noun())
    );
    let _ = writeln!(
        out,
        "<p class=\"meta\">budgetlab {} · sweep schema {} · seed {} · {} points · {} batches per point</p>",
        escape(&sweep.crate_version),
        sweep.schema_version,
        sweep.seed,
        sweep.points.len(),
        sweep.scenario.batches
    );
    contents(
        &mut out,
        &[
            ("inputs", "Inputs"),
            ("points", "Values"),
            ("charts", "Charts"),
        ],
        charts,
    );
    out.push_str("<h2 id=\"inputs\">Inputs</h2>\n");
    scenario_table(&mut out, std::slice::from_ref(&sweep.scenario));
    let _ = writeln!(
        out,
        "<p><b>Swept</b>: {} at {}.<br><b>Strategies</b>: {}</p>",
        escape(axis.noun()),
        sweep
            .points
            .iter()
            .map(|p| escape(&p.label))
            .collect::<Vec<_>>()
            .join(", "),
        sweep
            .strategies
            .iter()
            .map(|s| format!("<code>{}</code>", escape(s)))
            .collect::<Vec<_>>()
            .join(", ")
    );

    out.push_str(
        "<h2 id=\"points\">Values</h2>\n<div class=\"scroll\"><table class=\"sortable rows\">\n",
    );
    let table = RowTable::of(sweep.points.iter().flat_map(|p| &p.rows));
    let _ = writeln!(
        out,
        "<thead><tr><th>{}</th><th class=\"text\">budget</th><th class=\"text\">strategy</th>{}{}</tr></thead>\n<tbody>",
        escape(axis.noun()),
        row_columns(table),
        token_columns(sweep.tokens.is_some())
    );
    for p in &sweep.points {
        for r in &p.rows {
            let _ = writeln!(
                out,
                "<tr{}>{}<td class=\"text\">{}</td><td class=\"text\">{}</td>{}{}</tr>",
                row_class(&r.strategy),
                num("", &p.label, Some(p.value)),
                escape(&r.budget_label.to_string()),
                escape(&r.strategy),
                row_cells(r, table),
                token_cells(r)
            );
        }
    }
    out.push_str("</tbody></table></div>\n");
    out.push_str("<h2 id=\"charts\">Charts</h2>\n");
    figures(&mut out, charts);
    foot(&mut out, &sweep.crate_version);
    out
}

/// A share as a percentage with one decimal, `–` when absent.
fn share(x: Option<f64>) -> String {
    x.map_or("\u{2013}".into(), |x| format!("{:.1}%", x * 100.0))
}

/// A gain and its interval: `+50.0 pts (95% interval +50.0 to +50.0 pts)`.
fn gain_text(v: &crate::tune::Validated) -> String {
    use crate::tune::signed_points;
    match (v.gain, v.gain_interval) {
        (Some(g), Some([lo, hi])) => format!(
            "{} (95% interval {} to {})",
            signed_points(g),
            signed_points(lo),
            signed_points(hi)
        ),
        (Some(g), None) => signed_points(g),
        _ => "\u{2013}".into(),
    }
}

/// The page of a tune's folder: first, per workload and budget, what to paste into `run --strategies`, with the
/// validation figures and the gain's interval, saying plainly when the gain does not hold; then the charts; then
/// every budget's finalists and how the search went.
pub fn tune_page(tune: &crate::tune::TuneResults, charts: &[Rendered]) -> String {
    let mut out = String::with_capacity(32 * 1024);
    head(&mut out, "budgetlab tune");
    out.push_str("<h1>budgetlab tune</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"meta\">budgetlab {} · {} · seed {} · {} settings per budget from {} · {:.0}% of each workload's \
batches held out for validation</p>",
        escape(&tune.crate_version),
        escape(&tune.format),
        tune.seed,
        tune.settings,
        escape(&tune.families.join(", ")),
        tune.validation_share * 100.0
    );
    let mut limits = String::new();
    if let Some(w) = tune.constraints.max_writes_per_turn {
        let _ = write!(limits, ", at most {w} artifact writes per turn");
    }
    if let Some(c) = tune.constraints.max_cost_ratio {
        let _ = write!(limits, ", at most {c}x the floor's time");
    }
    let _ = writeln!(
        out,
        "<p>Objective: maximise <b>{}</b>, with every turn within budget{}.</p>",
        escape(&tune.objective_text),
        escape(&limits)
    );
    contents(
        &mut out,
        &[
            ("paste", "What to run"),
            ("charts", "Charts"),
            ("finalists", "Finalists"),
        ],
        charts,
    );
    out.push_str("<h2 id=\"paste\">What to paste into <code>run --strategies</code></h2>\n");
    // A configured strategy's name has no space to break at: let the answer's text cells break inside one, so
    // that the table fits a laptop's width instead of pushing the gain column out of sight.
    out.push_str(
        "<style>table.tune td.text { overflow-wrap: anywhere; min-width: 6em; }</style>\n",
    );
    out.push_str(
        "<div class=\"scroll\"><table class=\"answer tune\">\n<tr><th>workload</th><th class=\"text\">budget (units)</th>\
<th class=\"text\">paste</th><th class=\"text\">does it beat the reference on the validation set?</th>\
<th>objective on validation</th><th>the reference's</th><th class=\"text\">gain on validation (95% interval)</th>\
<th>time / floor</th></tr>\n",
    );
    let mut last = None;
    for w in &tune.workloads {
        for c in &w.cells {
            let rec = &c.recommendation;
            let reference = c.finalists.iter().find(|v| v.reference);
            let chosen = c.finalists.iter().find(|v| v.strategy == rec.strategy);
            let verdict = if rec.beats_reference {
                match &rec.stability {
                    Some(st) => format!(
                        "Yes: the low end of its gain's interval is above 0, and it wins in {} of {} resamples of the \
tuning set.",
                        st.wins, st.resamples
                    ),
                    None => "Yes: the low end of its gain's interval is above 0.".to_string(),
                }
            } else {
                format!("No, keep the reference: {}.", rec.note)
            };
            // Keeping the reference is an answer, not a fault: the cell is styled as text, never as an error.
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"text\">{} ({})</td><td class=\"text best\"><code>{}</code></td>\
<td class=\"text verdict\">{}</td><td>{}</td><td>{}</td><td class=\"text\">{}</td><td>{}</td></tr>",
                named_once(&mut last, &w.name),
                escape(&c.budget),
                c.units,
                escape(&rec.strategy),
                prose(&verdict),
                share(chosen.and_then(|v| v.validation.objective)),
                share(reference.and_then(|v| v.validation.objective)),
                escape(&match chosen.filter(|v| !v.reference) {
                    Some(v) => gain_text(v),
                    // The reference kept: the gain of the leader on the tuning set, which did not hold.
                    None => c
                        .finalists
                        .iter()
                        .filter(|v| !v.reference && v.tuning_rank.is_some())
                        .min_by_key(|v| v.tuning_rank)
                        .map_or_else(
                            || "\u{2013}".to_string(),
                            |v| format!("{} for {}", gain_text(v), v.strategy)
                        ),
                }),
                escape(&crate::tune::ratio(rec.cost_ratio)),
            );
        }
    }
    out.push_str("</table></div>\n");
    for w in &tune.workloads {
        let mut names: Vec<&str> = vec!["reference"];
        for c in &w.cells {
            if !names.contains(&c.recommendation.strategy.as_str()) {
                names.push(&c.recommendation.strategy);
            }
        }
        let _ = writeln!(
            out,
            "<p>{}: <code>--strategies {}</code> ({} batches: {} tuned on, {} held out; split by {}, {} groups: {} \
tuned on, {} held out, none on both sides)</p>",
            escape(&w.name),
            escape(&names.join(",")),
            w.batches,
            w.tuning,
            w.validation,
            escape(&w.split.by),
            w.split.groups,
            w.split.tuning_groups,
            w.split.validation_groups
        );
    }
    out.push_str(
        "<p class=\"note\">A setting is recommended only when it keeps the design's contract (the budget in every turn, \
every cut output recoverable from its artifact, nothing exempt changed), the low end of the 95% paired bootstrap \
interval of its gain over the reference on the validation set (groups of batches the search never saw) is above 0, \
and it wins in at least 4 of 5 resamples of the tuning set; otherwise the reference is, and the row says why. The \
objective counts needles and used tokens in the results longer than the budget, where a setting can differ. The time \
over the floor's is wall-clock and varies between runs; everything else is the same for the same seed on any number \
of threads.</p>\n",
    );
    out.push_str("<h2 id=\"charts\">Charts</h2>\n");
    figures(&mut out, charts);
    out.push_str("<h2 id=\"finalists\">Finalists</h2>\n");
    for w in &tune.workloads {
        for c in &w.cells {
            let _ = writeln!(
                out,
                "<h3>{} · {} ({} units)</h3>\n<div class=\"scroll\"><table class=\"sortable rows tune\">\n<thead><tr>\
<th class=\"text\">setting</th><th>place on tuning</th><th>objective on tuning</th><th>objective on validation</th>\
<th class=\"text\">gain on validation (95% interval)</th><th>needles, all results</th><th>kept per field</th>\
<th>writes / turn</th><th>time / floor</th><th class=\"text\">contract and constraints</th></tr></thead>\n<tbody>",
                escape(&w.name),
                escape(&c.budget),
                c.units
            );
            for v in &c.finalists {
                let _ = writeln!(
                    out,
                    "<tr{}><td class=\"text\"><code>{}</code>{}</td>{}{}{}<td class=\"text\">{}</td>{}{}{}{}\
<td class=\"text{}\">{}</td></tr>",
                    if v.reference { " class=\"baseline\"" } else { "" },
                    escape(&v.strategy),
                    if v.strategy == c.recommendation.strategy {
                        " (recommended)"
                    } else if v.reference {
                        " (reference)"
                    } else {
                        ""
                    },
                    num(
                        "",
                        &v.tuning_rank.map_or("\u{2013}".into(), |r| (r + 1).to_string()),
                        v.tuning_rank.map(|r| r as f64)
                    ),
                    num("", &share(v.tuning.objective), v.tuning.objective),
                    num("", &share(v.validation.objective), v.validation.objective),
                    escape(&gain_text(v)),
                    num("", &share(v.validation.needles), v.validation.needles),
                    num("", &share(v.validation.retention), v.validation.retention),
                    num(
                        "",
                        &v.validation
                            .writes_per_turn
                            .map_or("\u{2013}".into(), |w| format!("{w:.2}")),
                        v.validation.writes_per_turn
                    ),
                    num(
                        "",
                        &v.cost_ratio.map_or("\u{2013}".into(), |r| format!("{r:.2}x")),
                        v.cost_ratio
                    ),
                    if v.meets_constraints { "" } else { " bad" },
                    escape(&if !v.validation.breaks.is_empty() {
                        crate::tune::contract(&v.validation.breaks)
                    } else if v.meets_constraints {
                        "kept, met".to_string()
                    } else {
                        "kept; constraints not met".to_string()
                    }),
                );
            }
            let steps: Vec<String> = c
                .rungs
                .iter()
                .map(|r| {
                    format!(
                        "{} settings on {} batches ({} objective events)",
                        r.settings, r.batches, r.events
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "</tbody></table></div>\n<p class=\"note\">The search: {}; {}; then the finalists and the reference on \
the {} validation batches. {}Every setting's figures on every rung are in <code>tune.json</code>.</p>",
                escape(&steps.join(", then ")),
                escape(&c.search.note),
                w.validation,
                crate::tune::validation_n(c).map_or(String::new(), |n| escape(&n) + " ")
            );
        }
    }
    foot_saying(
        &mut out,
        &tune.crate_version,
        " <code>tune.json</code> holds every setting evaluated; <code>summary.md</code> the same summary as text.",
    );
    out
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

#[cfg(test)]
mod tests {
    use super::super::export::tests::{known_row, one_batch};
    use super::*;

    #[test]
    fn the_run_page_shows_the_pareto_fronts_after_the_answer() {
        let results = crate::report::pareto::tests::with_figures(
            crate::report::pareto::tests::small_run(),
            crate::report::pareto::tests::FIGURES,
        );
        let page = run_page(&results, &[], true, None);
        let answer = page.find("<h2 id=\"answer\">").unwrap();
        let pareto = page.find("<h2 id=\"pareto\">").unwrap();
        let inputs = page.find("<h2 id=\"inputs\">").unwrap();
        assert!(answer < pareto && pareto < inputs);
        assert!(page.contains("<a href=\"#pareto\">Trade-offs</a>"));
        assert!(
            page.contains(
                "<tr><td>surrogate-storm</td><td class=\"text\">1,000</td>\
<td class=\"text\">greedy = head-tail-0 (80% / 70%, 1.0 KiB)<br>reference (90% / 80%, 8.0 KiB)</td>\
<td class=\"text\">uniform (80% / 60%, 1.01x)<br>reference (90% / 80%, 1.02x)</td><td>4 of 5</td></tr>\n"
            ),
            "{page}"
        );
        // One line per scenario and budget, the scenario named once.
        let table = &page[pareto..inputs];
        assert_eq!(table.matches("<tr><td>").count(), 3);
        assert_eq!(table.matches("surrogate-storm").count(), 1);
    }

    #[test]
    fn the_lines_the_agent_used_have_a_section_after_the_trade_offs_only_when_measured() {
        let results = crate::report::used::tests::used_run();
        let page = run_page(&results, &[], true, None);
        let pareto = page.find("<h2 id=\"pareto\">").unwrap();
        let used = page
            .find("<h2 id=\"used\">Needles the agent used</h2>")
            .unwrap();
        let inputs = page.find("<h2 id=\"inputs\">").unwrap();
        assert!(pareto < used && used < inputs);
        assert!(page.contains("<a href=\"#used\">Needles the agent used</a>"));
        let table = &page[used..inputs];
        assert!(
            table.contains(
                "<tr><td>surrogate-storm</td><td class=\"text\">1,000</td><td class=\"best\">1</td>\
<td class=\"text\">reference</td><td>6 of 10 (3 results)</td><td>60%</td><td>70%</td><td>8 (80%)</td><td>75%</td>\
<td>– / 14 of 20</td></tr>\n\
<tr><td></td><td class=\"text\"></td><td>2</td><td class=\"text\">greedy, head-tail-0</td><td>–</td><td>–</td>\
<td>–</td><td>–</td><td>–</td><td>– / 9 of 20</td></tr>\n"
            ),
            "{table}"
        );
        assert!(
            table.contains(
                "<td>over budget</td><td class=\"text\">codex (50% over)</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>– / 20 of 20</td>"
            ),
            "{table}"
        );
        assert!(
            table.contains(
                "<tr><td></td><td class=\"text\">7,001</td><td class=\"best\">1</td><td class=\"text\">reference</td>"
            ),
            "{table}"
        );
        assert!(table
            .contains("<td>–</td><td class=\"text\">greedy, head-tail-0, uniform</td><td>–</td>"));
        assert_eq!(table.matches("<tr><td").count(), 7);
        assert!(table.contains("<code>budgetlab import</code>"));

        // Without used lines: no section and no link to it, rather than a table of zeros.
        let plain = crate::report::pareto::tests::small_run();
        let page = run_page(&plain, &[], true, None);
        assert!(
            !page.contains("id=\"used\"")
                && !page.contains("#used")
                && !page.contains("agent used")
        );
    }

    #[test]
    fn every_number_of_a_row_carries_its_raw_value_for_sorting_and_a_dash_sorts_last() {
        let r = known_row();
        let table = RowTable {
            unit: TimeUnit::Microseconds,
            bound: None,
        };
        assert_eq!(
            row_cells(&r, table),
            "<td class=\"bad\" data-v=\"0.25\">25.0%</td><td data-v=\"7\">7</td><td data-v=\"\">–</td>\
<td data-v=\"0.5\">50.0%</td><td data-v=\"0.75\">75.0% / 100.0%</td><td data-v=\"3\">3</td>\
<td class=\"bad\" data-v=\"1\">1</td><td data-v=\"1\">100.0%</td><td class=\"bad\" data-v=\"4\">4</td>\
<td data-v=\"12345\">12.3</td><td data-v=\"2.5\">2.50x</td>"
        );
        assert_eq!(
            row_columns(RowTable {
                unit: TimeUnit::Nanoseconds,
                ..table
            }),
            "<th>within budget</th><th>max overshoot</th><th>kept per field</th><th>budget used</th>\
<th>needles / possible</th><th>writes</th><th>duplicate writes</th><th>recoverable</th>\
<th>integrity issues</th><th>median cost (ns)</th><th>cost / floor</th>"
        );
        // A bound every row shares is said once, in the header.
        let shared = RowTable::of([&r, &r].into_iter());
        assert_eq!(
            shared,
            RowTable {
                unit: TimeUnit::Microseconds,
                bound: Some(1.0)
            }
        );
        assert!(row_columns(shared).contains("<th>needles kept (of 100.0% possible)</th>"));
        assert!(row_cells(&r, shared).contains("<td data-v=\"0.75\">75.0%</td>"));
        let mut other = r.clone();
        other.needles.upper_bound = Some(0.9);
        other.cost.median_ns = 9_999;
        assert_eq!(
            RowTable::of([&other, &other].into_iter()),
            RowTable {
                unit: TimeUnit::Nanoseconds,
                bound: Some(0.9)
            }
        );
        assert_eq!(RowTable::of([&r, &other].into_iter()).bound, None);
        for k in other.needles.by_kind.values_mut() {
            k.planted = 0;
        }
        assert_eq!(RowTable::of([&other, &other].into_iter()).bound, None);
        assert_eq!(num("", "x<y", None), "<td data-v=\"\">x&lt;y</td>");
        assert_eq!(num("", "–", Some(f64::NAN)), "<td data-v=\"\">–</td>");
    }

    #[test]
    fn the_tables_of_rows_sort_and_the_answer_grouped_by_scenario_does_not() {
        let mut results = one_batch().results;
        results.rows = vec![known_row()];
        results.rows[0].compliance.violations = results.rows[0].batches;
        results.ranking = crate::metrics::ranking::rank(&results.rows);
        let page = run_page(&results, &[], true, None);
        // The answer, its scenario cell blank under the first of a scenario, keeps its order.
        assert_eq!(page.matches("<table class=\"answer\">").count(), 1);
        // The inputs, the overview and the one table of rows sort, with a head and a body.
        assert_eq!(
            page.matches("<table class=\"sortable\">\n<thead>").count(),
            2
        );
        assert_eq!(
            page.matches("<table class=\"sortable rows\">\n<thead>")
                .count(),
            1
        );
        assert_eq!(page.matches("</thead>\n<tbody>").count(), 3);
        assert_eq!(page.matches("</tbody></table>").count(), 3);
        // Over budget: no rank, sorted last; the median cost in the unit its header names.
        assert!(
            page.contains("<td data-v=\"\">over budget</td><td class=\"text\">reference</td>"),
            "{page}"
        );
        assert!(page.contains("<th>median cost (µs)</th>"), "{page}");
        assert!(page.contains("<td data-v=\"12345\">12.3</td>"), "{page}");
        // The script once, at the end, with no network.
        assert_eq!(page.matches("<script>").count(), 1);
        assert!(page.ends_with("</script>\n</body>\n</html>\n"));
        assert!(!page.contains("http://") && !page.contains("https://"));
    }

    #[test]
    fn a_chart_with_points_carries_them_for_the_tooltips() {
        let chart = |hotspots| Rendered {
            stem: "budget-curves".into(),
            title: "Curves".into(),
            caption: "Read them.".into(),
            svg: Vec::new(),
            png: Vec::new(),
            hotspots,
        };
        let mut out = String::new();
        figures(
            &mut out,
            &[chart(vec![
                crate::report::chart::Hotspot {
                    x: 0.25,
                    y: 0.5,
                    line: "reference".into(),
                    values: "budget: 20,000\nkept: 94.8".into(),
                },
                crate::report::chart::Hotspot {
                    x: 0.0657,
                    y: 1.0,
                    line: "a \"b\" <c>".into(),
                    values: "x".into(),
                },
            ])],
        );
        assert!(
            out.starts_with(
                "<figure id=\"chart-budget-curves\" data-points=\"[[0.25,0.5,&quot;reference&quot;,\
&quot;budget: 20,000\\nkept: 94.8&quot;],[0.0657,1.0,&quot;a \\&quot;b\\&quot; &lt;c&gt;&quot;,&quot;x&quot;]]\">\n"
            ),
            "{out}"
        );
        let mut out = String::new();
        figures(&mut out, &[chart(Vec::new())]);
        assert!(
            out.starts_with("<figure id=\"chart-budget-curves\">\n"),
            "{out}"
        );
    }

    #[test]
    fn text_is_escaped_and_backticks_become_code() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(
            prose("run `budgetlab sweep` <now>"),
            "run <code>budgetlab sweep</code> &lt;now&gt;"
        );
    }
}
