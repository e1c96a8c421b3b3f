//! The table of the lines the agent used, which `summary.md` and `index.html` show after the trade-offs when a
//! run measured any (recorded batches with `budgetlab import`'s used lines): for each workload and budget, the
//! strategies ranked by the share of used lines they kept ([`crate::metrics::used_ranking`]), each place with its
//! used lines kept, its share, the most any allocation of the budget could keep and its share of that bound.
//! Never pooled with the detector's needles. Pure: results in, strings out.

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
    /// Used lines kept of those there were: `14 of 20`, or `–`.
    pub kept: String,
    /// Their share: `70%`, or `–`.
    pub share: String,
    /// The most any allocation of the budget could keep, and its share of the used lines: `16 (80%)`, or `–`.
    pub bound: String,
    /// Used lines kept over that bound: `87.5%`, or `–` (no used line, or none could be kept).
    pub of_bound: String,
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
    let figures = |p: &UsedPlace| {
        p.used
            .as_ref()
            .map(|u| (u.needles, u.survived, u.upper_bound))
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
            let used = p.used.as_ref();
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
                kept: used.map_or_else(dash, |u| format!("{} of {}", u.survived, u.needles)),
                share: used.map_or_else(dash, |u| share(Some(u.survival))),
                bound: used.map_or_else(dash, |u| {
                    format!("{} ({})", u.upper_bound, share(Some(u.upper_bound_share)))
                }),
                of_bound: share(used.and_then(|u| u.of_possible)),
            }
        })
        .collect()
}

/// What the table's columns mean, for the note under it.
pub(crate) const NOTE: &str = "Lines the agent used: in recorded batches imported with `budgetlab import`, the \
result lines holding a token the agent went on to write in its next turns (the used-lines file beside the \
batches). They are counted apart from the detector's needles and never pooled with them. Only strategies that kept \
the budget in every turn are ranked, by the share of used lines still visible to the model; strategies with the \
same share share a rank (used lines have no resamples, so there is no interval). Upper bound: the most any \
allocation of the same budget could keep visible, with its share of the used lines; share of the bound: the lines \
kept over that bound (100% there: no allocation of this budget keeps more). Strategies over budget are never \
ranked; the share of turns each let over the budget follows its name. –: no used line in that row.";

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
        }
        results.used_ranking = crate::metrics::used_ranking::rank_used(&results.rows);
        results
    }

    #[test]
    fn places_are_ranked_best_first_with_their_figures_and_alike_places_share_a_line() {
        let results = used_run();
        let table: Vec<[String; 7]> = lines(&results)
            .into_iter()
            .map(|l| {
                [
                    l.budget, l.rank, l.names, l.kept, l.share, l.bound, l.of_bound,
                ]
            })
            .collect();
        let row = |cells: [&str; 7]| cells.map(String::from);
        assert_eq!(
            table,
            [
                row([
                    "1,000",
                    "1",
                    "reference",
                    "14 of 20",
                    "70%",
                    "16 (80%)",
                    "87.5%"
                ]),
                row([
                    "1,000",
                    "2",
                    "greedy, head-tail-0",
                    "9 of 20",
                    "45%",
                    "16 (80%)",
                    "56.2%"
                ]),
                row(["1,000", "4", "uniform", "0 of 20", "0%", "16 (80%)", "0%"]),
                row([
                    "1,000",
                    "over budget",
                    "codex (50% over)",
                    "20 of 20",
                    "100%",
                    "16 (80%)",
                    "100%"
                ]),
                row([
                    "7,001",
                    "1",
                    "reference",
                    "20 of 20",
                    "100%",
                    "20 (100%)",
                    "100%"
                ]),
                row([
                    "7,001",
                    "–",
                    "greedy, head-tail-0, uniform",
                    "–",
                    "–",
                    "–",
                    "–"
                ]),
                // codex breaks this budget in the run itself.
                row([
                    "7,001",
                    "over budget",
                    "codex (25% over)",
                    "–",
                    "–",
                    "–",
                    "–"
                ]),
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
