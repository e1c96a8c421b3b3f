//! The page of a run: the answer, the trade-offs and the lines the agent used first, then the inputs, the
//! overview, the charts, the trends (with `--history`) and a table of rows per scenario and budget.

use std::fmt::Write as _;

use super::history::trends_section;
use super::{
    bad, bad_class, budgets_text, contents, escape, figures, foot, head, named_once, num, prose,
    row_cells, row_class, row_columns, scenario_table, token_cells, token_columns, RowTable,
};
use crate::history::Table;
use crate::report::chart::data::overview;
use crate::report::chart::Rendered;
use crate::report::export::{pct_opt, TimeUnit};
use crate::run::RunResults;

/// The answer, first on the page: for each scenario and budget, the best strategy that kept the budget, its lead
/// over the next with the interval, and the strategies over budget.
fn answer_table(out: &mut String, results: &RunResults) {
    let lines = crate::report::answer::lines(results);
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
        escape(crate::report::answer::NOTE)
    );
}

/// The trade-offs, after the answer: for each scenario and budget, the strategies on the Pareto fronts of what
/// they keep against bytes written and against cost, each place on a front on a line of its own.
fn pareto_table(out: &mut String, results: &RunResults, charts: &[Rendered]) {
    let lines = crate::report::pareto::lines(results);
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
    let places = |f: &crate::report::pareto::Front| escape(&f.text("\n")).replace('\n', "<br>");
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
    let chart = match charts
        .iter()
        .find(|c| c.stem == crate::report::chart::pareto::STEM)
    {
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
        escape(crate::report::pareto::NOTE)
    );
}

/// The lines the agent used, after the trade-offs when the run measured any: for each workload and budget, the
/// strategies ranked by the share of used lines they kept, with the most any allocation could keep; absent
/// without used lines.
fn used_table(out: &mut String, lines: &[crate::report::used::UsedLine], charts: &[Rendered]) {
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
    let chart = match charts
        .iter()
        .find(|c| c.stem == crate::report::chart::used::STEM)
    {
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
        prose(crate::report::used::NOTE)
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
    let used = crate::report::used::lines(results);
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
            let rows = crate::report::rows_at(results, &s.name, &b.label);
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
            for p in crate::report::answer::placed(results, &s.name, &b.label) {
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
                    escape(&p.lead.map_or("–".to_string(), crate::report::answer::lead_text))
                );
            }
            out.push_str("</tbody></table></div>\n");
        }
        out.push_str("</details>\n");
    }
    foot(&mut out, &results.crate_version);
    out
}
