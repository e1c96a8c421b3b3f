//! The answer a run gives: for each scenario and budget, the strategies that kept the budget in every turn,
//! best first, then those that broke it. Pure: rows in, rankings out.
//!
//! Strategies that kept the budget are ranked by needle survival, then by retention (by retention alone where no
//! needle was planted). Each ranked strategy's lead over the next is the difference of the figure that orders
//! them, with its paired 95% bootstrap interval ([`resample::paired_interval`]: the same batches, weighed alike
//! in each resample); a lead whose interval holds zero, or smaller than [`SMALLEST_LEAD`], is no lead (a tie).
//! Ties never chain: a strategy shares the rank of those above it only when it is tied with every one of them, so
//! two strategies one of which leads the other for real never share a rank through a third tied with both. Strategies
//! that broke the budget in any turn are never ranked: they follow, fewest violations first, with their rate.
//! Nothing here depends on time: the cost figures are shown beside the ranking by whoever draws it, from the
//! rows.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::aggregate::Aggregate;
use super::key::StrategyKey;
use super::resample::{self, Figure};
use crate::scenario::BudgetLabel;

/// The ranking of one scenario at one budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BudgetRanking {
    /// The scenario.
    pub scenario: String,
    /// The budget's label.
    pub budget: BudgetLabel,
    /// The budget in UTF-16 units (`None` when disabled).
    pub units: Option<u64>,
    /// What orders the strategies that kept the budget: `needles` (then retention), or `retention` where no
    /// needle was planted.
    pub by: RankedBy,
    /// The strategies that kept the budget in every turn, best first.
    pub kept: Vec<Ranked>,
    /// The strategies that broke it in some turn, fewest violations first.
    pub broke: Vec<OverBudget>,
}

/// What orders a ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RankedBy {
    /// Needle survival, then retention.
    Needles,
    /// Retention (no needle was planted).
    Retention,
}

/// A strategy that kept the budget, in its place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Ranked {
    /// Its rank, from 1; tied strategies share one.
    pub rank: usize,
    /// The strategy.
    pub strategy: StrategyKey,
    /// Needle survival (`None` when none was planted).
    pub needles: Option<f64>,
    /// Mean kept share per field (`None` when no turn had a field).
    pub retention: Option<f64>,
    /// Successful artifact writes.
    pub writes: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Its lead over the next strategy ranked; `None` for the last.
    pub lead: Option<Lead>,
}

/// How far a strategy is ahead of the next one ranked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Lead {
    /// The next strategy.
    pub over: StrategyKey,
    /// The figure that orders the two.
    pub figure: LeadFigure,
    /// This strategy's figure minus the next one's (a share: 0.021 is 2.1 points).
    pub difference: f64,
    /// The 95% paired bootstrap interval of the difference; `None` when it cannot be computed (no resamples).
    pub interval: Option<[f64; 2]>,
    /// Whether the lead is real: the interval excludes zero. Two strategies whose lead is not are tied.
    pub real: bool,
}

/// The figure a lead is measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LeadFigure {
    /// Needle survival.
    Needles,
    /// Retention.
    Retention,
}

/// A strategy that broke the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OverBudget {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Share of turns over the budget.
    pub violation_rate: f64,
    /// Needle survival (`None` when none was planted).
    pub needles: Option<f64>,
    /// Mean kept share per field.
    pub retention: Option<f64>,
}

/// The rankings of `rows`, one per (scenario, budget) in the order the rows first name them.
pub fn rank(rows: &[Aggregate]) -> Vec<BudgetRanking> {
    by_budget(rows)
        .into_iter()
        .map(|(scenario, budget, members)| rank_group(scenario, budget, &members))
        .collect()
}

/// The rows of each scenario and budget, in the order their first rows come.
pub(super) fn by_budget(rows: &[Aggregate]) -> Vec<(&str, BudgetLabel, Vec<&Aggregate>)> {
    let mut groups: Vec<(&str, BudgetLabel, Vec<&Aggregate>)> = Vec::new();
    for row in rows {
        match groups
            .iter_mut()
            .find(|(s, b, _)| *s == row.scenario && *b == row.budget_label)
        {
            Some((_, _, members)) => members.push(row),
            None => groups.push((&row.scenario, row.budget_label, vec![row])),
        }
    }
    groups
}

/// The smallest difference that counts as a lead: 0.1 percentage points of needles kept or of the share of each
/// field kept. A difference below it is a tie however narrow its interval, so that a lead of +0.0004 pp never
/// reads as a win.
pub const SMALLEST_LEAD: f64 = 0.001;

/// Whether a row kept the budget in every turn (and ran any): only such a strategy is ranked.
pub(super) fn kept_budget(row: &Aggregate) -> bool {
    row.batches > 0 && row.compliance.violations == 0
}

/// `a` and `b` ordered best first by needle survival (absent last), then retention (absent last), then name.
fn better_first(a: &Aggregate, b: &Aggregate) -> Ordering {
    let desc = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    desc(a.needles.survival, b.needles.survival)
        .then_with(|| desc(a.retention.mean, b.retention.mean))
        .then_with(|| a.strategy.as_str().cmp(b.strategy.as_str()))
}

fn rank_group(scenario: &str, budget: BudgetLabel, members: &[&Aggregate]) -> BudgetRanking {
    let (mut kept, mut broke): (Vec<&Aggregate>, Vec<&Aggregate>) =
        members.iter().partition(|r| kept_budget(r));
    kept.sort_by(|a, b| better_first(a, b));
    broke.sort_by(|a, b| {
        a.compliance
            .violations
            .cmp(&b.compliance.violations)
            .then_with(|| better_first(a, b))
    });
    let by = if kept.iter().any(|r| r.needles.survival.is_some()) {
        RankedBy::Needles
    } else {
        RankedBy::Retention
    };
    let mut ranked: Vec<Ranked> = Vec::with_capacity(kept.len());
    let mut rank = 1;
    // The first of the strategies sharing the current rank.
    let mut group = 0;
    for (i, row) in kept.iter().enumerate() {
        // Tied with every strategy of the rank above it, it shares the rank; led for real by any, it starts its own.
        if i > 0 && kept[group..i].iter().any(|above| lead(above, row).real) {
            rank = i + 1;
            group = i;
        }
        ranked.push(Ranked {
            rank,
            strategy: row.strategy.clone(),
            needles: row.needles.survival,
            retention: row.retention.mean,
            writes: row.persistence.writes,
            bytes: row.persistence.bytes,
            lead: kept.get(i + 1).map(|next| lead(row, next)),
        });
    }
    BudgetRanking {
        scenario: scenario.to_string(),
        budget,
        units: members.first().and_then(|r| r.budget),
        by,
        kept: ranked,
        broke: broke
            .iter()
            .map(|r| OverBudget {
                strategy: r.strategy.clone(),
                violation_rate: r.compliance.violations as f64 / r.batches as f64,
                needles: r.needles.survival,
                retention: r.retention.mean,
            })
            .collect(),
    }
}

/// The lead of `a` over `b`, ranked below it: in needle survival when theirs differ, else in retention. Real when
/// its interval lies above zero and it is at least [`SMALLEST_LEAD`].
pub(crate) fn lead(a: &Aggregate, b: &Aggregate) -> Lead {
    let (figure, x, y) = match (a.needles.survival, b.needles.survival) {
        (Some(x), Some(y)) if x != y => (LeadFigure::Needles, x, y),
        _ => (
            LeadFigure::Retention,
            a.retention.mean.unwrap_or(0.0),
            b.retention.mean.unwrap_or(0.0),
        ),
    };
    let interval = resample::paired_interval(
        &a.summary.resamples,
        &b.summary.resamples,
        match figure {
            LeadFigure::Needles => Figure::Needles,
            LeadFigure::Retention => Figure::Retention,
        },
    );
    Lead {
        over: b.strategy.clone(),
        figure,
        difference: x - y,
        interval: interval.map(|(lo, hi)| [lo, hi]),
        real: interval.is_some_and(|(lo, _)| lo > 0.0) && x - y >= SMALLEST_LEAD,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{BatchMetrics, CostTally, NeedleCount, RowKey, RowSummary};
    use crate::needles::NeedleKind;
    use crate::workload::Mode;

    /// A row of `name` over 40 batches at budget 1,000: batch `i` keeps `survived(i)` of 4 needles and the
    /// share `share(i)` of its one field, and is over budget when `over(i)`.
    fn row(
        name: &str,
        survived: impl Fn(usize) -> u64,
        share: impl Fn(usize) -> f64,
        over: impl Fn(usize) -> bool,
    ) -> Aggregate {
        let mut summary = RowSummary::default();
        for i in 0..40 {
            let mut m: BatchMetrics = crate::metrics::tests::aggregate::quiet(i, 1);
            m.needles.insert(
                NeedleKind::ExitInfo,
                NeedleCount {
                    planted: 4,
                    survived: survived(i),
                },
            );
            m.needle_upper_bound = 4;
            m.mean_kept_share = Some(share(i));
            m.min_kept_share = Some(share(i));
            if over(i) {
                m.within_budget = false;
                m.overshoot = 10;
            }
            summary.add(&m);
        }
        let strategy = StrategyKey::from(name);
        let key = RowKey {
            scenario: "s",
            budget: BudgetLabel::Absolute(1000),
            strategy: &strategy,
        };
        Aggregate::from_summary(
            key,
            Mode::Interactive,
            false,
            1000,
            summary,
            CostTally::default(),
            None,
        )
    }

    #[test]
    fn a_strategy_over_budget_is_never_ranked_above_one_that_kept_it() {
        let rows = [
            row("keeps-all-breaks-budget", |_| 4, |_| 1.0, |i| i % 5 == 0),
            row(
                "reference",
                |i| 3 + u64::from(i % 2 == 0),
                |_| 0.8,
                |_| false,
            ),
            row("worse", |_| 2, |_| 0.8, |_| false),
        ];
        let ranking = rank(&rows);
        assert_eq!(ranking.len(), 1);
        let r = &ranking[0];
        assert_eq!(
            (r.scenario.as_str(), r.units, r.by),
            ("s", Some(1000), RankedBy::Needles)
        );
        let names: Vec<&str> = r.kept.iter().map(|k| k.strategy.as_str()).collect();
        assert_eq!(names, ["reference", "worse"]);
        assert_eq!(r.broke.len(), 1);
        assert_eq!(r.broke[0].strategy.as_str(), "keeps-all-breaks-budget");
        assert_eq!(r.broke[0].violation_rate, 0.2);
        assert_eq!(r.broke[0].needles, Some(1.0));
        // reference keeps 3.5 of 4 needles, worse 2: a lead of 37.5 points, real in every resample.
        let lead = r.kept[0].lead.as_ref().unwrap();
        assert_eq!(lead.over.as_str(), "worse");
        assert_eq!(lead.figure, LeadFigure::Needles);
        assert_eq!(lead.difference, 0.375);
        let [lo, hi] = lead.interval.unwrap();
        assert!(
            lo > 0.3 && hi < 0.45 && lo <= 0.375 && 0.375 <= hi,
            "{lo} {hi}"
        );
        assert!(lead.real);
        assert_eq!((r.kept[0].rank, r.kept[1].rank), (1, 2));
        assert_eq!(r.kept[1].lead, None);
    }

    #[test]
    fn strategies_whose_lead_holds_zero_share_a_rank_and_retention_orders_equal_needles() {
        // a and b keep the same needles batch by batch; a keeps more of each field in every batch. c keeps
        // the same as b but a needle more in one batch of 40: ahead on the point figure, not for real.
        let rows = [
            row("b", |_| 3, |_| 0.5, |_| false),
            row("c", |i| 3 + u64::from(i == 7), |_| 0.5, |_| false),
            row("a", |_| 3, |i| 0.6 + 0.01 * (i % 3) as f64, |_| false),
        ];
        let r = &rank(&rows)[0];
        let order: Vec<(&str, usize)> = r
            .kept
            .iter()
            .map(|k| (k.strategy.as_str(), k.rank))
            .collect();
        // c leads on needles (3.025 against 3 of 4) but the interval holds zero: tied with a, which is ahead of
        // b on retention in every resample.
        assert_eq!(order, [("c", 1), ("a", 1), ("b", 3)]);
        let c = r.kept[0].lead.as_ref().unwrap();
        assert_eq!(c.figure, LeadFigure::Needles);
        assert!(!c.real);
        assert!(c.interval.unwrap()[0] <= 0.0);
        let a = r.kept[1].lead.as_ref().unwrap();
        assert_eq!(a.figure, LeadFigure::Retention);
        assert!(a.real && a.difference > 0.1);
    }

    #[test]
    fn without_needles_retention_ranks_and_identical_rows_tie() {
        let mut rows = [
            row("x", |_| 0, |_| 0.7, |_| false),
            row("y", |_| 0, |_| 0.7, |_| false),
        ];
        for r in &mut rows {
            r.needles.survival = None;
            r.needles.upper_bound = None;
        }
        let r = &rank(&rows)[0];
        assert_eq!(r.by, RankedBy::Retention);
        assert_eq!((r.kept[0].rank, r.kept[1].rank), (1, 1));
        let lead = r.kept[0].lead.as_ref().unwrap();
        assert_eq!((lead.difference, lead.interval), (0.0, Some([0.0, 0.0])));
        assert!(!lead.real);
    }

    #[test]
    fn ties_never_chain_and_a_lead_below_the_smallest_that_counts_is_a_tie() {
        // Every batch keeps the same needles; a and b, b and c differ by ±5 points from batch to batch around
        // 1 point (intervals holding zero: tied), while a keeps 2 points more than c in every batch (real).
        let s = |i: usize| if i.is_multiple_of(2) { 0.025 } else { -0.025 };
        let rows = [
            row("c", |_| 3, move |i| 0.68 + s(i), |_| false),
            row("a", |_| 3, move |i| 0.70 + s(i), |_| false),
            row("b", |_| 3, move |i| 0.69 - s(i), |_| false),
        ];
        let r = &rank(&rows)[0];
        let order: Vec<(&str, usize)> = r
            .kept
            .iter()
            .map(|k| (k.strategy.as_str(), k.rank))
            .collect();
        // b is tied with a, c with b but not with a: c does not share a's rank through b.
        assert_eq!(order, [("a", 1), ("b", 1), ("c", 3)]);
        assert!(!r.kept[0].lead.as_ref().unwrap().real);
        assert!(!r.kept[1].lead.as_ref().unwrap().real);
        assert!(lead(&rows[1], &rows[0]).real);
        // A lead of a thousandth of a point in every batch has an interval above zero, and is still a tie.
        let rows = [
            row("x", |_| 3, |_| 0.7, |_| false),
            row("y", |_| 3, |_| 0.699_99, |_| false),
        ];
        let r = &rank(&rows)[0];
        let lead = r.kept[0].lead.as_ref().unwrap();
        assert!(lead.interval.unwrap()[0] > 0.0);
        assert!(!lead.real);
        assert_eq!((r.kept[0].rank, r.kept[1].rank), (1, 1));
    }
}
