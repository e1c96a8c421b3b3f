//! The page of a sweep: its inputs, a row per value, budget and strategy, and its charts.

use std::fmt::Write as _;

use super::{
    contents, escape, figures, foot, head, num, row_cells, row_class, row_columns, scenario_table,
    token_cells, token_columns, RowTable,
};
use crate::report::chart::Rendered;

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
