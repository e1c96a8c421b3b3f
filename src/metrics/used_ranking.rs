//! The ranking by what the agent used: for each workload and budget where any row measured it (recorded batches
//! with `budgetlab import`'s used-lines file), the strategies that kept the budget in every turn ordered by the
//! share of used tokens still visible over the turns longer than the budget (where a policy can differ), then by
//! that share over every turn, then by the share of used lines; never pooled with the detector's needles. Pure:
//! rows in, rankings out.
//!
//! Strategies with the same share share a rank (used lines carry no resamples, so there is no interval: only an
//! equal share is a tie). A strategy that kept the budget but measured no used line follows, unranked; those
//! that broke the budget in any turn are never ranked and come last, fewest violations first, with their
//! figures. Workloads and budgets without a used line have no ranking at all (nothing to measure is no
//! ranking, not a ranking of zeros).

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::aggregate::{Aggregate, OverBudgetSummary, UsedNeedleSummary};
use super::key::StrategyKey;
use super::ranking::{by_budget, kept_budget};
use crate::scenario::BudgetLabel;

/// The strategies of one workload at one budget ranked by the lines the agent used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UsedRanking {
    /// The workload.
    pub scenario: String,
    /// The budget's label.
    pub budget: BudgetLabel,
    /// The budget in UTF-16 units (`None` when disabled).
    pub units: Option<u64>,
    /// Every strategy of the workload at this budget: ranked best first, then those that kept the budget with
    /// no used line, then those over budget, fewest violations first.
    pub places: Vec<UsedPlace>,
}

/// One strategy's place in a [`UsedRanking`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UsedPlace {
    /// Its rank from 1 among the strategies that kept the budget in every turn (an equal share of used lines
    /// kept shares one); `None` over budget or with no used line.
    pub rank: Option<usize>,
    /// The strategy.
    pub strategy: StrategyKey,
    /// Share of its turns over the budget (0 for a strategy that kept it).
    pub violation_rate: f64,
    /// Its used lines: how many, how many it kept, the most any allocation of the budget could keep and the
    /// shares of those; `None` when its row has none.
    pub used: Option<UsedNeedleSummary>,
    /// Its used tokens over every turn, the same figures; `None` when its row has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<UsedNeedleSummary>,
    /// Its figures over the turns longer than the budget (the results there and their used tokens and lines);
    /// `None` when no turn was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_budget: Option<OverBudgetSummary>,
}

/// The rankings by used lines of `rows`, one per (workload, budget) that has any, in the order the rows first
/// name them; empty when no row has a used line.
pub fn rank_used(rows: &[Aggregate]) -> Vec<UsedRanking> {
    by_budget(rows)
        .into_iter()
        .filter(|(_, _, members)| {
            members
                .iter()
                .any(|r| r.used_needles.is_some() || r.used_tokens.is_some())
        })
        .map(|(scenario, budget, members)| UsedRanking {
            scenario: scenario.to_string(),
            budget,
            units: members.first().and_then(|r| r.budget),
            places: places(&members),
        })
        .collect()
}

/// `a`'s share kept against `b`'s, exactly (cross-multiplied counts).
fn share_order(a: &UsedNeedleSummary, b: &UsedNeedleSummary) -> Ordering {
    (u128::from(a.survived) * u128::from(b.needles))
        .cmp(&(u128::from(b.survived) * u128::from(a.needles)))
}

/// The figures a place is ranked by, in order: used tokens over budget, used tokens, used lines.
fn keys(
    over: Option<&OverBudgetSummary>,
    tokens: Option<&UsedNeedleSummary>,
    lines: Option<&UsedNeedleSummary>,
) -> [Option<UsedNeedleSummary>; 3] {
    [
        over.and_then(|o| o.used_tokens.clone()),
        tokens.cloned(),
        lines.cloned(),
    ]
}

fn row_keys(r: &Aggregate) -> [Option<UsedNeedleSummary>; 3] {
    keys(
        r.over_budget.as_ref(),
        r.used_tokens.as_ref(),
        r.used_needles.as_ref(),
    )
}

fn place_keys(p: &UsedPlace) -> [Option<UsedNeedleSummary>; 3] {
    keys(p.over_budget.as_ref(), p.tokens.as_ref(), p.used.as_ref())
}

/// Best first, key by key: a larger share kept, a figure with nothing to measure after one with something.
fn keys_order(a: &[Option<UsedNeedleSummary>; 3], b: &[Option<UsedNeedleSummary>; 3]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => share_order(y, x),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        })
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// Whether a row measured anything the agent used.
fn measured(r: &Aggregate) -> bool {
    r.used_needles.is_some() || r.used_tokens.is_some()
}

/// Best first: the ranking's figures, then by name.
fn better_first(a: &Aggregate, b: &Aggregate) -> Ordering {
    keys_order(&row_keys(a), &row_keys(b))
        .then_with(|| a.strategy.as_str().cmp(b.strategy.as_str()))
}

fn places(members: &[&Aggregate]) -> Vec<UsedPlace> {
    let (mut kept, mut broke): (Vec<&Aggregate>, Vec<&Aggregate>) =
        members.iter().partition(|r| kept_budget(r));
    kept.sort_by(|a, b| better_first(a, b));
    broke.sort_by(|a, b| {
        a.compliance
            .violations
            .cmp(&b.compliance.violations)
            .then_with(|| better_first(a, b))
    });
    let mut out: Vec<UsedPlace> = Vec::with_capacity(members.len());
    for (i, row) in kept.iter().enumerate() {
        let rank = measured(row).then(|| match out.last() {
            Some(
                prev @ UsedPlace {
                    rank: Some(rank), ..
                },
            ) if keys_order(&place_keys(prev), &row_keys(row)) == Ordering::Equal => *rank,
            _ => i + 1,
        });
        out.push(UsedPlace {
            rank,
            strategy: row.strategy.clone(),
            violation_rate: 0.0,
            used: row.used_needles.clone(),
            tokens: row.used_tokens.clone(),
            over_budget: row.over_budget.clone(),
        });
    }
    out.extend(broke.iter().map(|r| UsedPlace {
        rank: None,
        strategy: r.strategy.clone(),
        violation_rate: r.compliance.violations as f64 / r.batches as f64,
        used: r.used_needles.clone(),
        tokens: r.used_tokens.clone(),
        over_budget: r.over_budget.clone(),
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{BatchMetrics, CostTally, RowKey, RowSummary};
    use crate::workload::Mode;

    /// A row of `name` at budget `units` over 4 batches of 5 used lines each: it keeps `kept[i]` of batch `i`'s,
    /// any allocation at most `bound[i]`, and batch `i` is over budget when `over[i]`; no used line when `used`
    /// is false.
    fn row(
        name: &str,
        units: u64,
        kept: [u64; 4],
        bound: [u64; 4],
        over: [bool; 4],
        used: bool,
    ) -> Aggregate {
        let mut summary = RowSummary::default();
        for i in 0..4 {
            let mut m: BatchMetrics = crate::metrics::tests::aggregate::quiet(i, 1);
            if used {
                (m.used_needles, m.used_survived, m.used_upper_bound) = (5, kept[i], bound[i]);
            }
            if over[i] {
                m.within_budget = false;
                m.overshoot = 7;
            }
            summary.add(&m);
        }
        let strategy = StrategyKey::from(name);
        let key = RowKey {
            scenario: "mine",
            budget: BudgetLabel::Absolute(units),
            strategy: &strategy,
        };
        Aggregate::from_summary(
            key,
            Mode::Interactive,
            false,
            units,
            summary,
            CostTally::default(),
            None,
        )
    }

    const BOUND: [u64; 4] = [4, 4, 3, 5];
    const IN: [bool; 4] = [false; 4];

    #[test]
    fn strategies_in_budget_rank_by_used_lines_kept_ties_share_a_rank_and_over_budget_come_last() {
        let rows = [
            row("uniform", 1000, [2, 2, 1, 3], BOUND, IN, true),
            // Keeps every used line by breaking the budget in a turn: never ranked, whatever it keeps.
            row(
                "greedy",
                1000,
                [5; 4],
                BOUND,
                [true, false, false, false],
                true,
            ),
            row("reference", 1000, [4, 3, 3, 4], BOUND, IN, true),
            row("proportional", 1000, [3, 3, 2, 3], BOUND, IN, true),
            row("head-tail-0", 1000, [2, 3, 1, 2], BOUND, IN, true),
            row(
                "send-guard",
                1000,
                [5; 4],
                BOUND,
                [true, true, false, false],
                true,
            ),
            // Another budget of the same workload, and its own ranking.
            row("reference", 50, [0, 1, 0, 0], [1, 1, 0, 1], IN, true),
            row("uniform", 50, [1, 1, 0, 1], [1, 1, 0, 1], IN, true),
        ];
        let ranking = rank_used(&rows);
        assert_eq!(ranking.len(), 2);
        let r = &ranking[0];
        assert_eq!(
            (r.scenario.as_str(), r.budget, r.units),
            ("mine", BudgetLabel::Absolute(1000), Some(1000))
        );
        let order: Vec<(Option<usize>, &str, u64)> = r
            .places
            .iter()
            .map(|p| {
                (
                    p.rank,
                    p.strategy.as_str(),
                    p.used.as_ref().unwrap().survived,
                )
            })
            .collect();
        // reference 14 of 20, proportional 11, then head-tail-0 and uniform 8 each: tied, by name.
        assert_eq!(
            order,
            [
                (Some(1), "reference", 14),
                (Some(2), "proportional", 11),
                (Some(3), "head-tail-0", 8),
                (Some(3), "uniform", 8),
                (None, "greedy", 20),
                (None, "send-guard", 20),
            ]
        );
        let best = r.places[0].used.as_ref().unwrap();
        assert_eq!(
            (best.needles, best.survived, best.upper_bound),
            (20, 14, 16)
        );
        assert_eq!(best.survival, 0.7);
        assert_eq!(best.upper_bound_share, 0.8);
        assert_eq!(best.of_possible, Some(0.875));
        assert_eq!(r.places[0].violation_rate, 0.0);
        assert_eq!(r.places[4].violation_rate, 0.25);
        assert_eq!(r.places[5].violation_rate, 0.5);
        let low = &ranking[1];
        assert_eq!(low.units, Some(50));
        let order: Vec<(Option<usize>, &str)> = low
            .places
            .iter()
            .map(|p| (p.rank, p.strategy.as_str()))
            .collect();
        assert_eq!(order, [(Some(1), "uniform"), (Some(2), "reference")]);
        assert_eq!(
            low.places[1].used.as_ref().unwrap().of_possible,
            Some(1.0 / 3.0)
        );
    }

    #[test]
    fn no_used_line_is_no_ranking_and_a_row_without_any_is_unranked() {
        let none = [
            row("reference", 1000, [0; 4], [0; 4], IN, false),
            row("uniform", 1000, [0; 4], [0; 4], IN, false),
        ];
        assert_eq!(rank_used(&none), []);
        let mixed = [
            row("reference", 1000, [0; 4], [0; 4], IN, false),
            row("uniform", 1000, [0, 0, 0, 0], [0; 4], IN, true),
        ];
        let r = &rank_used(&mixed)[0];
        // Keeping none of its used lines is measured (rank 1 of 1, 0%); a row with none is not.
        assert_eq!(r.places[0].strategy.as_str(), "uniform");
        assert_eq!(r.places[0].rank, Some(1));
        let used = r.places[0].used.as_ref().unwrap();
        assert_eq!((used.survival, used.of_possible), (0.0, None));
        assert_eq!(r.places[1].strategy.as_str(), "reference");
        assert_eq!((r.places[1].rank, &r.places[1].used), (None, &None));
    }

    #[test]
    fn the_ranking_reads_back_from_json() {
        let rows = [row("reference", 1000, [4, 3, 3, 4], BOUND, IN, true)];
        let ranking = rank_used(&rows);
        let json = serde_json::to_string(&ranking).unwrap();
        assert!(
            json.starts_with(
                r#"[{"scenario":"mine","budget":"abs-1000","units":1000,"places":[{"rank":1,"strategy":"reference","violationRate":0.0,"used":{"needles":20,"survived":14,"upperBound":16,"survival":0.7,"upperBoundShare":0.8,"ofPossible":0.875}}]}]"#
            ),
            "{json}"
        );
        assert_eq!(
            serde_json::from_str::<Vec<UsedRanking>>(&json).unwrap(),
            ranking
        );
    }
}
