//! The page of a nightly history (`budgetlab history report`) and its nights and trends, which a run's page
//! shows too when redrawn with `--history`.

use std::fmt::Write as _;

use super::{contents, escape, figures, foot_saying, head};
use crate::history::{HistoryVerdict, Table};
use crate::report::chart::Rendered;

/// The nights of a history (night, date, commit, label, the figures that moved on it) and its trend charts.
pub(super) fn trends_section(out: &mut String, table: &Table, trends: &[Rendered]) {
    let moved = crate::report::chart::trend::moved_nights(table);
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
