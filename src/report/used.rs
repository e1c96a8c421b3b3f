//! The table of what the agent used, which `summary.md` and `index.html` show after the trade-offs when a run
//! measured any (recorded batches with `budgetlab import`'s used-lines file): for each workload and budget, the
//! strategies ranked by the share of used tokens they kept over the turns longer than the budget
//! ([`crate::metrics::used_ranking`]), each place leading with that figure and its n (results, tokens), then the
//! share over every turn beside it, the most any allocation of the budget could keep over budget and its share of
//! that bound, and the used lines kept (over budget / every turn). Never pooled with the detector's needles. Pure:
//! results in, strings out.

use crate::metrics::used_ranking::{UsedPlace, UsedRanking};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

use super::answer::{budget_text, over_share, share};

/// One line of the table: the strategies at one place of one workload's ranking at one budget (several when
/// their figures are the same).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UsedLine {
    /// The workload.
    pub scenario: String,
    /// The budget in UTF-16 units, and the context window it comes from.
    pub budget: String,
    /// The rank (`1`), `over budget`, or `–` for strategies that kept the budget with no used line.
    pub rank: String,
    /// The strategies at this place, in ranking order.
    pub strategies: Vec<StrategyKey>,
    /// Their names; over budget, each with its share of turns over it: `greedy (13% over)`.
    pub names: String,
    /// Used tokens kept over the turns longer than the budget, of those there were, with the results there:
    /// `41 of 60 (12 results)`, or `–`.
    pub over: String,
    /// Their share: `68%`, or `–`.
    pub over_share: String,
    /// The share of used tokens kept over every turn (pooled): `82%`, or `–`.
    pub share: String,
    /// The most any allocation of the budget could keep over budget, and its share of the used tokens there:
    /// `50 (83%)`, or `–`.
    pub bound: String,
    /// Used tokens kept over budget over that bound: `82%`, or `–`.
    pub of_bound: String,
    /// Used lines kept over budget and over every turn: `12 of 15 / 14 of 20`, or `–`.
    pub lines: String,
}

/// The table of `results`: a line per place of each workload and budget with used lines, in the rows' order;
/// empty when no row has a used line (the table is then left out).
pub(crate) fn lines(results: &RunResults) -> Vec<UsedLine> {
    results
        .used_ranking
        .iter()
        .flat_map(|r| ranking_lines(results, r))
        .collect()
}

/// Whether two places share a line: the same rank, or both unranked and over budget or not alike, and the same
/// used figures.
fn same_place(a: &UsedPlace, b: &UsedPlace) -> bool {
    let over = |p: &UsedPlace| p.violation_rate > 0.0;
    let counts = |u: Option<&crate::metrics::UsedNeedleSummary>| {
        u.map(|u| (u.needles, u.survived, u.upper_bound))
    };
    let figures = |p: &UsedPlace| {
        (
            counts(p.used.as_ref()),
            counts(p.tokens.as_ref()),
            counts(p.over_budget.as_ref().and_then(|o| o.used_tokens.as_ref())),
            counts(p.over_budget.as_ref().and_then(|o| o.used_lines.as_ref())),
        )
    };
    a.rank == b.rank && over(a) == over(b) && figures(a) == figures(b)
}

fn ranking_lines(results: &RunResults, r: &UsedRanking) -> Vec<UsedLine> {
    let budget = budget_text(results, &r.scenario, &r.budget, r.units);
    let mut groups: Vec<Vec<&UsedPlace>> = Vec::new();
    for p in &r.places {
        match groups.last_mut() {
            Some(group) if same_place(group[0], p) => group.push(p),
            _ => groups.push(vec![p]),
        }
    }
    groups
        .into_iter()
        .map(|group| {
            let p = group[0];
            let over = p.violation_rate > 0.0;
            let names: Vec<String> = group
                .iter()
                .map(|q| {
                    if over {
                        format!("{} ({} over)", q.strategy, over_share(q.violation_rate))
                    } else {
                        q.strategy.to_string()
                    }
                })
                .collect();
            let dash = || "–".to_string();
            let over_tokens = p.over_budget.as_ref().and_then(|o| o.used_tokens.as_ref());
            let kept =
                |u: &crate::metrics::UsedNeedleSummary| format!("{} of {}", u.survived, u.needles);
            let over_lines = p.over_budget.as_ref().and_then(|o| o.used_lines.as_ref());
            UsedLine {
                scenario: r.scenario.clone(),
                budget: budget.clone(),
                rank: match p.rank {
                    Some(rank) => rank.to_string(),
                    None if over => "over budget".into(),
                    None => dash(),
                },
                strategies: group.iter().map(|q| q.strategy.clone()).collect(),
                names: names.join(", "),
                over: match (over_tokens, &p.over_budget) {
                    (Some(u), Some(o)) => format!("{} ({} results)", kept(u), o.results),
                    _ => dash(),
                },
                over_share: over_tokens.map_or_else(dash, |u| share(Some(u.survival))),
                share: p
                    .tokens
                    .as_ref()
                    .map_or_else(dash, |u| share(Some(u.survival))),
                bound: over_tokens.map_or_else(dash, |u| {
                    format!("{} ({})", u.upper_bound, share(Some(u.upper_bound_share)))
                }),
                of_bound: share(over_tokens.and_then(|u| u.of_possible)),
                lines: match (over_lines, p.used.as_ref()) {
                    (None, None) => dash(),
                    (o, all) => format!(
                        "{} / {}",
                        o.map_or_else(dash, kept),
                        all.map_or_else(dash, kept)
                    ),
                },
            }
        })
        .collect()
}

/// What the table's columns mean, for the note under it.
pub(crate) const NOTE: &str = "What the agent used: in recorded batches imported with `budgetlab import`, the \
used tokens are the distinctive tokens first seen in a result that the agent wrote in its next turns, and the \
used lines every line holding one (the used-lines file beside the batches; the book's Sessions chapter states the \
rule). A token is kept while any place of it is still visible to the model. The table leads with the turns longer \
than the budget, the only ones where one strategy can keep what another cuts (n: the results there and the used \
tokens in them); the share over every turn, which the turns within the budget flatter, is beside it. They are \
counted apart from the detector's needles and never pooled with them. Only strategies that kept the budget in every \
turn are ranked, by the share of used tokens kept over budget, then over every turn, then by used lines; \
strategies with the same shares share a rank (no resamples, so no interval). Upper bound: the most any head-and-tail \
allocation of the same budget could keep visible over budget, with its share of the used tokens there; share of \
the bound: the tokens kept over that bound. Used lines: kept over budget / over every turn. Strategies over budget \
are never ranked; the share of turns each let over the budget follows its name. –: nothing to measure in that row.";

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::metrics::UsedNeedleSummary;

    /// Used lines of a row: `survived` and `bound` of `needles`.
    fn used(needles: u64, survived: u64, bound: u64) -> Option<UsedNeedleSummary> {
        let mut s = crate::metrics::RowSummary::default();
        (s.used_needles, s.used_survived, s.used_upper_bound) = (needles, survived, bound);
        UsedNeedleSummary::of(&s)
    }

    /// The small run with used lines at its first two budgets, by strategy: at 1,000 units reference keeps 14
    /// of 20 (the bound 16), greedy and head-tail-0 9, uniform none of its; codex keeps all 20 over budget in 2 of
    /// 4 turns. At the second budget only reference has any (the others none: `–`; codex is over this budget in
    /// 1 of 4 turns of the run); the third has none.
    pub(crate) fn used_run() -> RunResults {
        let mut results = crate::report::pareto::tests::with_figures(
            crate::report::pareto::tests::small_run(),
            crate::report::pareto::tests::FIGURES,
        );
        let labels: Vec<_> = results.inputs.scenarios[0]
            .budgets
            .iter()
            .map(|b| b.label)
            .collect();
        for r in &mut results.rows {
            r.used_needles = if r.budget_label == labels[0] {
                match r.strategy.as_str() {
                    "reference" => used(20, 14, 16),
                    "greedy" | "head-tail-0" => used(20, 9, 16),
                    "uniform" => used(20, 0, 16),
                    "codex" => used(20, 20, 16),
                    other => panic!("{other}"),
                }
            } else if r.budget_label == labels[1] && r.strategy.is_reference() {
                used(20, 20, 20)
            } else {
                None
            };
            // Reference alone carries used tokens at the first budget: 14 of 20 kept, 6 of the 10 in its 3
            // results over budget (any allocation: 8).
            if r.budget_label == labels[0] && r.strategy.is_reference() {
                r.used_tokens = used(20, 14, 16);
                r.over_budget = Some(crate::metrics::OverBudgetSummary {
                    turns: 3,
                    results: 3,
                    needles: 0,
                    needles_survived: 0,
                    needle_survival: None,
                    used_lines: None,
                    used_tokens: used(10, 6, 8),
                });
            }
        }
        results.used_ranking = crate::metrics::used_ranking::rank_used(&results.rows);
        results
    }

    #[test]
    fn places_are_ranked_best_first_with_their_figures_and_alike_places_share_a_line() {
        let results = used_run();
        let table: Vec<[String; 9]> = lines(&results)
            .into_iter()
            .map(|l| {
                [
                    l.budget,
                    l.rank,
                    l.names,
                    l.over,
                    l.over_share,
                    l.share,
                    l.bound,
                    l.of_bound,
                    l.lines,
                ]
            })
            .collect();
        let row = |cells: [&str; 9]| cells.map(String::from);
        let d = "–";
        assert_eq!(
            table,
            [
                row([
                    "1,000",
                    "1",
                    "reference",
                    "6 of 10 (3 results)",
                    "60%",
                    "70%",
                    "8 (80%)",
                    "75%",
                    "– / 14 of 20"
                ]),
                row([
                    "1,000",
                    "2",
                    "greedy, head-tail-0",
                    d,
                    d,
                    d,
                    d,
                    d,
                    "– / 9 of 20"
                ]),
                row(["1,000", "4", "uniform", d, d, d, d, d, "– / 0 of 20"]),
                row([
                    "1,000",
                    "over budget",
                    "codex (50% over)",
                    d,
                    d,
                    d,
                    d,
                    d,
                    "– / 20 of 20"
                ]),
                row(["7,001", "1", "reference", d, d, d, d, d, "– / 20 of 20"]),
                row(["7,001", d, "greedy, head-tail-0, uniform", d, d, d, d, d, d]),
                // codex breaks this budget in the run itself.
                row(["7,001", "over budget", "codex (25% over)", d, d, d, d, d, d]),
            ]
        );
        assert!(lines(&results)
            .iter()
            .all(|l| l.scenario == "surrogate-storm"));
    }

    #[test]
    fn no_used_line_no_table() {
        let results = crate::report::pareto::tests::small_run();
        assert!(results.rows.iter().all(|r| r.used_needles.is_none()));
        assert_eq!(results.used_ranking, []);
        assert_eq!(lines(&results), []);
    }
}
