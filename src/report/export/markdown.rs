//! `summary.md`: the tables a reviewer reads in a pull request, one per (scenario, budget), one strategy a row. A
//! run given `--tokenizer` adds two columns, units per token and compliance with the token budget.

use std::fmt::Write as _;

use super::Exporter;
use crate::error::Result;
use crate::metrics::{in_tables, Aggregate, Figure};
use crate::run::RunResults;

/// The Markdown summary.
pub struct SummaryMarkdown;

pub use crate::metrics::duration;

/// The unit a column of times is shown in, named once in its header: one unit a column, so that its numbers
/// compare at a glance. [`TimeUnit::of`] picks the one [`crate::metrics::duration`] would pick for the column's
/// largest time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Nanoseconds, whole.
    Nanoseconds,
    /// Microseconds, one decimal.
    Microseconds,
    /// Milliseconds, one decimal.
    Milliseconds,
}

impl TimeUnit {
    /// The unit of a column of times in nanoseconds: nanoseconds while every time is below 10 µs, microseconds
    /// while every time is below 10 ms, milliseconds beyond.
    pub fn of(ns: impl IntoIterator<Item = u64>) -> TimeUnit {
        match ns.into_iter().max().unwrap_or(0) {
            0..=9_999 => TimeUnit::Nanoseconds,
            10_000..=9_999_999 => TimeUnit::Microseconds,
            _ => TimeUnit::Milliseconds,
        }
    }

    /// The unit's symbol, for the column's header: `ns`, `µs`, `ms`.
    pub fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Nanoseconds => "ns",
            TimeUnit::Microseconds => "µs",
            TimeUnit::Milliseconds => "ms",
        }
    }

    /// A time in nanoseconds as a number of this unit, without the symbol: `9728`, `12.8`.
    pub fn cell(self, ns: u64) -> String {
        match self {
            TimeUnit::Nanoseconds => ns.to_string(),
            TimeUnit::Microseconds => format!("{:.1}", ns as f64 / 1e3),
            TimeUnit::Milliseconds => format!("{:.1}", ns as f64 / 1e6),
        }
    }
}

/// A share as a percentage with one decimal.
pub fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// A share as [`pct`] does, or `–` when there was nothing to measure it by.
pub fn pct_opt(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_string(), pct)
}

/// Needle survival against its upper bound, or "–" when the batches had no needles (none planted, or none found
/// in recorded batches).
pub fn needles_cell(r: &Aggregate) -> String {
    if r.needles.by_kind.values().all(|k| k.planted == 0) {
        "–".to_string()
    } else {
        format!(
            "{} / {}",
            pct_opt(r.needles.survival),
            pct_opt(r.needles.upper_bound)
        )
    }
}

/// A row's UTF-16 units per token of what the model receives (`3.97`), or `–` when nothing was counted.
pub(crate) fn units_per_token_cell(r: &Aggregate) -> String {
    r.tokens
        .as_ref()
        .and_then(|t| t.units_per_token)
        .map_or_else(|| "–".to_string(), |x| format!("{x:.2}"))
}

/// A row's share of turns within the token budget, or `–` when it has none (no `--token-budget`, or a share of
/// the window at a budget without one).
pub(crate) fn token_compliance_cell(r: &Aggregate) -> String {
    r.tokens
        .as_ref()
        .and_then(|t| t.compliance.as_ref())
        .map_or_else(|| "–".to_string(), |c| pct(c.rate))
}

/// One table row of a strategy's aggregate, its median cost in `unit`, with the token columns when `tokens`.
fn row(r: &Aggregate, unit: TimeUnit, tokens: bool) -> String {
    let mut out = plain_row(r, unit);
    if tokens {
        out.push_str(&format!(
            " {} | {} |",
            units_per_token_cell(r),
            token_compliance_cell(r)
        ));
    }
    out
}

/// One table row of a strategy's aggregate, its median cost in `unit`, without the token columns.
fn plain_row(r: &Aggregate, unit: TimeUnit) -> String {
    let mut out = format!(
        "| {} | {} | {} | {} | {} | {} |",
        r.strategy,
        pct(r.compliance.rate),
        r.compliance.max_overshoot,
        pct_opt(r.retention.mean),
        pct_opt(r.retention.budget_used),
        needles_cell(r),
    );
    for f in in_tables() {
        let _ = write!(out, " {} |", figure_cell(f, r));
    }
    let _ = write!(
        out,
        " {} | {} | {} | {} |",
        pct_opt(r.persistence.recoverable),
        r.integrity.total(),
        unit.cell(r.cost.median_ns),
        floor_ratio(r),
    );
    out
}

/// A row's total of a figure with a column in the tables of rows, or `–` for one the row does not show.
pub fn figure_cell(f: &Figure, r: &Aggregate) -> String {
    f.row
        .map_or_else(|| "–".to_string(), |value| value(r).to_string())
}

/// The header of the table of rows after `| rank | strategy |`, up to the token columns: each figure column
/// between the needles and the recoverable share, the median cost in `unit`.
fn columns(unit: TimeUnit) -> String {
    let mut out = String::from(
        "| rank | strategy | within budget | max overshoot | kept per field | budget used | needles / possible |",
    );
    for f in in_tables() {
        let _ = write!(out, " {} |", f.label);
    }
    let _ = write!(
        out,
        " recoverable | integrity issues | median cost ({}) | cost / floor |",
        unit.symbol()
    );
    out
}

/// The alignment row matching [`columns`].
fn alignment() -> String {
    let mut out = String::from("\n|---:|---|---:|---:|---:|---:|---:|");
    for _ in in_tables() {
        out.push_str("---:|");
    }
    out.push_str("---:|---:|---:|---:|");
    out
}

/// A row's cost over the floor's (`1.23x`), or `–` when nothing was measured.
pub fn floor_ratio(r: &Aggregate) -> String {
    r.cost
        .floor_ratio
        .map_or_else(|| "–".to_string(), |x| format!("{x:.2}x"))
}

/// The answer first: for each scenario and budget, the best strategy that kept the budget and its lead.
fn answer(out: &mut String, results: &RunResults) {
    let lines = crate::report::answer::lines(results);
    if lines.is_empty() {
        return;
    }
    out.push_str("## Which strategy for each budget\n\n");
    out.push_str(
        "| scenario | budget (units) | best that kept the budget | lead over the next (95% interval) | needles kept | kept per field | cost / floor | over budget (share of turns) |\n\
|---|---|---|---|---:|---:|---:|---|\n",
    );
    for l in &lines {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            l.scenario, l.budget, l.best, l.lead, l.needles, l.retention, l.cost, l.broke
        );
    }
    let _ = writeln!(out, "\n{}\n", crate::report::answer::NOTE);
}

/// The trade-offs: for each scenario and budget, the strategies on the Pareto fronts of what they keep against
/// bytes written and against cost, one compact table.
fn pareto_table(out: &mut String, results: &RunResults) {
    let lines = crate::report::pareto::lines(results);
    if lines.is_empty() {
        return;
    }
    out.push_str("## What each strategy keeps for what it spends (Pareto fronts)\n\n");
    out.push_str(
        "| scenario | budget (units) | front against KiB written per turn (needles / kept per field, KiB) | front against cost / floor (needles / kept per field, cost) | kept the budget |\n\
|---|---|---|---|---:|\n",
    );
    for l in &lines {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            l.scenario,
            l.budget,
            l.bytes.text(" → "),
            l.cost.text(" → "),
            l.in_budget
        );
    }
    let _ = writeln!(out, "\n{}\n", crate::report::pareto::NOTE);
}

/// The lines the agent used, after the trade-offs when the run measured any: for each workload and budget, the
/// strategies ranked by the share of used lines they kept, with the most any allocation could keep; absent
/// without used lines.
fn used_table(out: &mut String, results: &RunResults) {
    let lines = crate::report::used::lines(results);
    if lines.is_empty() {
        return;
    }
    out.push_str("## Needles the agent used\n\n");
    out.push_str(
        "| workload | budget (units) | rank | strategies | used tokens kept, turns over budget (n) | share kept over budget | share kept, all turns | upper bound over budget (any allocation) | share of the bound | used lines kept (over budget / all) |\n\
|---|---|---:|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut last: Option<(&str, &str)> = None;
    for l in &lines {
        let here = (l.scenario.as_str(), l.budget.as_str());
        let scenario = if last.is_some_and(|(s, _)| s == here.0) {
            ""
        } else {
            here.0
        };
        let budget = if last == Some(here) { "" } else { here.1 };
        last = Some(here);
        let _ = writeln!(
            out,
            "| {scenario} | {budget} | {} | {} | {} | {} | {} | {} | {} | {} |",
            l.rank, l.names, l.over, l.over_share, l.share, l.bound, l.of_bound, l.lines
        );
    }
    let _ = writeln!(
        out,
        "\n{} `charts/{}.png` draws it.\n",
        crate::report::used::NOTE,
        crate::report::chart::used::STEM
    );
}

/// The whole summary of `results`.
pub(super) fn render(results: &RunResults) -> String {
    let tokens = results.inputs.tokens.as_ref();
    let mut out = String::new();
    let _ = writeln!(out, "# budgetlab results\n");
    let _ = writeln!(
        out,
        "budgetlab {} · schema {} · seed {} · strategies: {}\n",
        results.crate_version,
        results.schema_version,
        results.seed,
        results.inputs.strategies.join(", ")
    );
    if let Some(shard) = results.inputs.shard {
        let _ = writeln!(
            out,
            "Shard {} of {} (merge the shards for the whole run).\n",
            shard.index, shard.count
        );
    }
    answer(&mut out, results);
    pareto_table(&mut out, results);
    used_table(&mut out, results);
    for scenario in &results.inputs.scenarios {
        for budget in &scenario.budgets {
            let rows = crate::report::rows_at(results, &scenario.name, &budget.label);
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(
                out,
                "## {} · {} ({} units) · {}{} · {} batches\n\nseed {} · scenario sha256 `{}`\n",
                scenario.name,
                budget.label,
                budget.units,
                scenario.mode,
                if scenario.legacy { " (legacy)" } else { "" },
                rows[0].batches,
                scenario.seed,
                &scenario.digest[..scenario.digest.len().min(16)],
            );
            let unit = TimeUnit::of(rows.iter().map(|r| r.cost.median_ns));
            out.push_str(&columns(unit));
            if tokens.is_some() {
                out.push_str(" units per token | within token budget |");
            }
            out.push_str(" lead over the next |");
            out.push_str(&alignment());
            if tokens.is_some() {
                out.push_str("---:|---:|");
            }
            out.push_str("---|\n");
            for p in crate::report::answer::placed(results, &scenario.name, &budget.label) {
                let _ = write!(
                    out,
                    "| {} {} {} |",
                    p.rank.map_or("over budget".to_string(), |r| r.to_string()),
                    row(p.row, unit, tokens.is_some()),
                    p.lead
                        .map_or("–".to_string(), crate::report::answer::lead_text)
                );
                out.push('\n');
            }
            out.push('\n');
        }
    }
    out.push_str(
        "Within budget: share of turns whose model request fits the budget. Kept per field: mean share of each \
original field still shown. Budget used: what over-budget turns use of the budget. Needles: planted exit lines, \
first errors, summary lines and JSON keys still visible, against the most any allocation of the same budget could \
keep. Integrity issues: reordered or dropped parts, changed media or reminders, broken surrogates, and differing \
records; 0 for a correct finalizer. Median cost: the median time of a turn, in the unit its header names. Cost / floor: the strategy's own \
time over the floor's (the least work any exact finalizer must do on the same input, timed beside it), averaged \
over the middle half of the turns; load on the machine does not move it, and the nightly gate checks it.\n",
    );
    if let Some(t) = tokens {
        let _ = write!(
            out,
            "\nTokens counted with {}. Units per token: the UTF-16 units of what the model receives over its tokens; \
a budget in units lets through more tokens than it was sized for where this is low (CJK text, dense JSON). Within \
token budget: share of turns whose model request fits ",
            t.tokenizer
        );
        match t.token_budget {
            Some(b @ crate::metrics::TokenBudget::WindowPercent(_)) => {
                let _ = writeln!(
                    out,
                    "the token budget, {b} of the context window (– at budgets without a window)."
                );
            }
            Some(b) => {
                let _ = writeln!(out, "the token budget of {b} tokens.");
            }
            None => out.push_str("a token budget; – without --token-budget.\n"),
        }
    }
    out
}

impl Exporter for SummaryMarkdown {
    fn file_name(&self) -> &'static str {
        "summary.md"
    }

    fn write(&self, results: &RunResults, out: &mut dyn std::io::Write) -> Result<()> {
        out.write_all(render(results).as_bytes())
            .map_err(|e| crate::error::Error::io(self.file_name(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{known_row, one_batch};
    use super::*;
    use crate::metrics::TokenSettings;

    #[test]
    fn a_column_of_times_has_one_unit_picked_by_its_largest() {
        assert_eq!(TimeUnit::of([9_728, 9_999]), TimeUnit::Nanoseconds);
        assert_eq!(TimeUnit::of([9_728, 12_800]), TimeUnit::Microseconds);
        assert_eq!(TimeUnit::of([850, 10_000_000]), TimeUnit::Milliseconds);
        assert_eq!(TimeUnit::of([]), TimeUnit::Nanoseconds);
        let cells = |unit: TimeUnit| [860, 9_728, 12_800, 12_345_678].map(|ns| unit.cell(ns));
        assert_eq!(
            cells(TimeUnit::Nanoseconds),
            ["860", "9728", "12800", "12345678"]
        );
        assert_eq!(
            cells(TimeUnit::Microseconds),
            ["0.9", "9.7", "12.8", "12345.7"]
        );
        assert_eq!(cells(TimeUnit::Milliseconds), ["0.0", "0.0", "0.0", "12.3"]);
        assert_eq!(
            [
                TimeUnit::Nanoseconds,
                TimeUnit::Microseconds,
                TimeUnit::Milliseconds
            ]
            .map(TimeUnit::symbol),
            ["ns", "µs", "ms"]
        );
    }

    #[test]
    fn units_read_well() {
        assert_eq!(pct(0.9995), "100.0%");
        assert_eq!(pct(0.5), "50.0%");
        assert_eq!(pct_opt(Some(0.25)), "25.0%");
        assert_eq!(pct_opt(None), "–");
    }

    #[test]
    fn a_row_shows_each_figure_in_its_column_and_a_dash_where_nothing_was_measured() {
        let mut r = known_row();
        assert!(r.needles.by_kind.values().any(|k| k.planted > 0));
        assert_eq!(
            row(&r, TimeUnit::Microseconds, false),
            "| reference | 25.0% | 7 | – | 50.0% | 75.0% / 100.0% | 3 | 1 | 100.0% | 4 | 12.3 | 2.50x |"
        );
        // No needle planted, no floor measured, no tokens counted: dashes, never a perfect score.
        for k in r.needles.by_kind.values_mut() {
            k.planted = 0;
        }
        r.cost.floor_ratio = None;
        assert_eq!(needles_cell(&r), "–");
        assert_eq!(floor_ratio(&r), "–");
        assert_eq!(
            row(&r, TimeUnit::Nanoseconds, true),
            "| reference | 25.0% | 7 | – | 50.0% | – | 3 | 1 | 100.0% | 4 | 12345 | – | – | – |"
        );
    }

    #[test]
    fn token_cells_show_units_per_token_and_token_compliance() {
        let mut r = known_row();
        assert_eq!(units_per_token_cell(&r), "–");
        let turns = [1_000u64, 1_001, 1_002, 1_003].map(|tokens| crate::metrics::TurnTokens {
            tokens,
            units: tokens * 3 + 1,
            max_field_tokens: tokens,
            by_kind: Default::default(),
        });
        let refs: Vec<_> = turns.iter().collect();
        // 12,022 units over 4,006 tokens; 1,000 and 1,001 tokens fit a budget of 1,001, 1,002 and 1,003 do not.
        r.tokens = Some(crate::metrics::TokenSummary::from_turns(
            &refs,
            Some(1_001),
            None,
        ));
        assert_eq!(units_per_token_cell(&r), "3.00");
        assert_eq!(token_compliance_cell(&r), "50.0%");
        r.tokens = Some(crate::metrics::TokenSummary::from_turns(&refs, None, None));
        assert_eq!(token_compliance_cell(&r), "–");
    }

    #[test]
    fn the_summary_has_one_table_of_pareto_fronts_after_the_answer() {
        let results = crate::report::pareto::tests::with_figures(
            crate::report::pareto::tests::small_run(),
            crate::report::pareto::tests::FIGURES,
        );
        let text = render(&results);
        let answer = text.find("## Which strategy for each budget").unwrap();
        let pareto = text
            .find("## What each strategy keeps for what it spends (Pareto fronts)\n")
            .unwrap();
        let first_scenario = text.find("## surrogate-storm").unwrap();
        assert!(answer < pareto && pareto < first_scenario);
        assert!(
            text.contains(
                "| surrogate-storm | 1,000 | greedy = head-tail-0 (80% / 70%, 1.0 KiB) → reference (90% / 80%, \
8.0 KiB) | uniform (80% / 60%, 1.01x) → reference (90% / 80%, 1.02x) | 4 of 5 |\n"
            ),
            "{text}"
        );
        // One table: a line per scenario and budget.
        let table = &text[pareto..first_scenario];
        assert_eq!(table.matches("\n| surrogate-storm |").count(), 3);
        assert_eq!(table.lines().filter(|l| l.starts_with("|---")).count(), 1);
    }

    #[test]
    fn the_summary_ranks_the_lines_the_agent_used_after_the_trade_offs_only_when_measured() {
        let results = crate::report::used::tests::used_run();
        let text = render(&results);
        let pareto = text.find("## What each strategy keeps").unwrap();
        let used = text.find("## Needles the agent used\n").unwrap();
        let first_scenario = text.find("## surrogate-storm").unwrap();
        assert!(pareto < used && used < first_scenario);
        let table = &text[used..first_scenario];
        assert!(
            table.contains(
                "| surrogate-storm | 1,000 | 1 | reference | 6 of 10 (3 results) | 60% | 70% | 8 (80%) | 75% | – / 14 of 20 |\n\
|  |  | 2 | greedy, head-tail-0 | – | – | – | – | – | – / 9 of 20 |\n\
|  |  | 4 | uniform | – | – | – | – | – | – / 0 of 20 |\n\
|  |  | over budget | codex (50% over) | – | – | – | – | – | – / 20 of 20 |\n\
|  | 7,001 | 1 | reference | – | – | – | – | – | – / 20 of 20 |\n\
|  |  | – | greedy, head-tail-0, uniform | – | – | – | – | – | – |\n\
|  |  | over budget | codex (25% over) | – | – | – | – | – | – |\n\n"
            ),
            "{table}"
        );
        assert!(
            table.contains("`charts/used-needles.png` draws it."),
            "{table}"
        );
        let plain = crate::report::pareto::tests::small_run();
        assert!(!render(&plain).contains("agent used"));
    }

    #[test]
    fn the_summary_has_a_table_a_budget_with_a_row_a_strategy() {
        let mut results = one_batch().results;
        results.rows = vec![known_row()];
        results.rows[0].compliance.violations = results.rows[0].batches;
        results.ranking = crate::metrics::ranking::rank(&results.rows);
        let text = render(&results);
        let budget = &results.inputs.scenarios[0].budgets[0];
        assert!(text.starts_with("# budgetlab results\n"), "{text}");
        assert!(
            text.contains(&format!(
                "## pre-persisted · {} ({} units) · ",
                budget.label, budget.units
            )),
            "{text}"
        );
        // Over budget: not ranked, and listed so in the answer and the table.
        assert!(
            text.contains(&format!(
                "| over budget {} – |\n",
                row(&results.rows[0], TimeUnit::Microseconds, false)
            )),
            "{text}"
        );
        assert!(text.contains("| none kept the budget |"), "{text}");
        assert!(text.contains("| reference 100% |\n"), "{text}");
        assert!(!text.contains("units per token"), "{text}");
        results.inputs.tokens = Some(TokenSettings {
            tokenizer: "o200k_base".into(),
            token_budget: None,
        });
        let text = render(&results);
        assert!(
            text.contains("| within token budget | lead over the next |\n"),
            "{text}"
        );
        assert!(text.contains(&format!(
            "| over budget {} – |\n",
            row(&results.rows[0], TimeUnit::Microseconds, true)
        )));
        assert!(
            text.contains(" | integrity issues | median cost (µs) | cost / floor | "),
            "{text}"
        );
        assert!(text.contains("Tokens counted with o200k_base."), "{text}");
    }
}
