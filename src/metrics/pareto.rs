//! The trade-offs of a run: for each scenario and budget, what each strategy keeps (needle survival, then
//! retention: the ranking's order) against what it spends, in persistence bytes and in time over the floor, and
//! which strategies no other beats on both at once (the non-dominated ones, the Pareto front). Pure: rows in,
//! views out.
//!
//! Only strategies that kept the budget in every turn can be on a front: one that broke it spends less by
//! sending more than the budget allows, which is no trade-off a user can take. They are listed, unmarked, so
//! that a chart can show them apart. A strategy whose cost has nothing to measure it by (no turn timed) is on no
//! cost front.
//!
//! `results.json` keeps each view's fronts by name ([`ParetoFronts`]), made again from the rows when the file is
//! read, like the ranking. The cost front rests on timings, so like every row's `cost` it may differ between two
//! runs of the same plan; it is the view's `cost` field, which is all that may.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::aggregate::Aggregate;
use super::key::StrategyKey;
use super::ranking::{by_budget, kept_budget, RankedBy};
use crate::scenario::BudgetLabel;

/// The trade-offs of one scenario at one budget.
#[derive(Debug, Clone, PartialEq)]
pub struct ParetoView {
    /// The scenario.
    pub scenario: String,
    /// The budget's label.
    pub budget: BudgetLabel,
    /// What measures what a strategy keeps: needle survival (then retention), or retention where no needle was
    /// planted (as in the ranking).
    pub by: RankedBy,
    /// Every strategy of the scenario at this budget, in the rows' order.
    pub points: Vec<ParetoPoint>,
}

/// One strategy's place among the trade-offs.
#[derive(Debug, Clone, PartialEq)]
pub struct ParetoPoint {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Whether it kept the budget in every turn (only those can be on a front).
    pub kept_budget: bool,
    /// Needle survival (`None` when none was planted).
    pub needles: Option<f64>,
    /// Mean kept share per field (`None` when no turn had a field).
    pub retention: Option<f64>,
    /// Turns run (one a batch).
    pub batches: u64,
    /// Bytes written to artifacts, over every turn.
    pub bytes: u64,
    /// The strategy's time over the floor's (`None`: nothing timed).
    pub cost_ratio: Option<f64>,
    /// On the front of what it keeps against bytes written.
    pub front_bytes: bool,
    /// On the front of what it keeps against time over the floor.
    pub front_cost: bool,
}

/// What a strategy spends, the other side of a trade-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spend {
    /// Bytes written to artifacts.
    Bytes,
    /// The strategy's time over the floor's.
    Cost,
}

impl Spend {
    /// Both, in the order views show them.
    pub const ALL: [Spend; 2] = [Spend::Bytes, Spend::Cost];

    /// What `p` spends (`None`: nothing to measure it by). Bytes are per turn, which orders the strategies of one
    /// view as their totals do (they ran the same turns).
    pub fn of(self, p: &ParetoPoint) -> Option<f64> {
        match self {
            Spend::Bytes => Some(p.bytes as f64 / p.batches.max(1) as f64),
            Spend::Cost => p.cost_ratio,
        }
    }

    /// Whether `p` is on this front.
    pub fn on(self, p: &ParetoPoint) -> bool {
        match self {
            Spend::Bytes => p.front_bytes,
            Spend::Cost => p.front_cost,
        }
    }
}

impl ParetoView {
    /// The value of what a point keeps, on this view's measure (`None`: nothing to measure it by).
    pub fn kept(&self, p: &ParetoPoint) -> Option<f64> {
        match self.by {
            RankedBy::Needles => p.needles,
            RankedBy::Retention => p.retention,
        }
    }

    /// The points on the front of `spend`, least spent first (then in the rows' order): each keeps more than
    /// the one before it, or as much at the same spend.
    pub fn front(&self, spend: Spend) -> Vec<&ParetoPoint> {
        let mut front: Vec<&ParetoPoint> = self.points.iter().filter(|p| spend.on(p)).collect();
        front.sort_by(|a, b| {
            let (x, y) = (spend.of(a), spend.of(b));
            x.unwrap_or(f64::INFINITY)
                .total_cmp(&y.unwrap_or(f64::INFINITY))
        });
        front
    }

    /// The fronts by name, as `results.json` holds them.
    pub fn fronts(&self) -> ParetoFronts {
        let names = |spend| {
            self.front(spend)
                .into_iter()
                .map(|p| p.strategy.clone())
                .collect()
        };
        ParetoFronts {
            scenario: self.scenario.clone(),
            budget: self.budget,
            by: self.by,
            bytes: names(Spend::Bytes),
            cost: names(Spend::Cost),
        }
    }
}

/// The fronts of one scenario at one budget, by name, as `results.json` holds them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ParetoFronts {
    /// The scenario.
    pub scenario: String,
    /// The budget's label.
    pub budget: BudgetLabel,
    /// What measures what a strategy keeps: `needles` (then retention), or `retention` where no needle was
    /// planted.
    pub by: RankedBy,
    /// The strategies on the front of what they keep against bytes written, fewest bytes first.
    pub bytes: Vec<StrategyKey>,
    /// The strategies on the front of what they keep against time over the floor, cheapest first. Timed: like
    /// every row's `cost`, it may differ between two runs.
    pub cost: Vec<StrategyKey>,
}

/// The fronts of every scenario and budget of `rows` ([`pareto`]), by name.
pub fn fronts(rows: &[Aggregate]) -> Vec<ParetoFronts> {
    pareto(rows).iter().map(ParetoView::fronts).collect()
}

/// The trade-offs of every scenario and budget of `rows`, in the order their first rows come.
pub fn pareto(rows: &[Aggregate]) -> Vec<ParetoView> {
    by_budget(rows)
        .into_iter()
        .map(|(scenario, budget, members)| view(scenario, budget, &members))
        .collect()
}

fn view(scenario: &str, budget: BudgetLabel, members: &[&Aggregate]) -> ParetoView {
    let by = if members
        .iter()
        .any(|r| kept_budget(r) && r.needles.survival.is_some())
    {
        RankedBy::Needles
    } else {
        RankedBy::Retention
    };
    let mut points: Vec<ParetoPoint> = members
        .iter()
        .map(|r| ParetoPoint {
            strategy: r.strategy.clone(),
            kept_budget: kept_budget(r),
            needles: r.needles.survival,
            retention: r.retention.mean,
            batches: r.batches,
            bytes: r.persistence.bytes,
            cost_ratio: r.cost.floor_ratio,
            front_bytes: false,
            front_cost: false,
        })
        .collect();
    let candidates: Vec<usize> = (0..points.len())
        .filter(|&i| points[i].kept_budget)
        .collect();
    let on_bytes = front(&points, &candidates, by, |p| Spend::Bytes.of(p));
    let on_cost = front(&points, &candidates, by, |p| Spend::Cost.of(p));
    for i in on_bytes {
        points[i].front_bytes = true;
    }
    for i in on_cost {
        points[i].front_cost = true;
    }
    ParetoView {
        scenario: scenario.to_string(),
        budget,
        by,
        points,
    }
}

/// What a point keeps, compared best first: the view's measure, then retention (absent worst).
fn keeps(a: &ParetoPoint, b: &ParetoPoint, by: RankedBy) -> Ordering {
    let cmp = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => Ordering::Equal,
    };
    match by {
        RankedBy::Needles => cmp(a.needles, b.needles).then_with(|| cmp(a.retention, b.retention)),
        RankedBy::Retention => cmp(a.retention, b.retention),
    }
}

/// The candidates no other candidate dominates: keeps at least as much at no greater spend, and strictly more
/// or strictly less. Candidates whose spend is unknown are on no front.
fn front(
    points: &[ParetoPoint],
    candidates: &[usize],
    by: RankedBy,
    spend: impl Fn(&ParetoPoint) -> Option<f64>,
) -> Vec<usize> {
    let known: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|&i| spend(&points[i]).is_some())
        .collect();
    let dominates = |a: &ParetoPoint, b: &ParetoPoint| {
        let (sa, sb) = (
            spend(a).unwrap_or(f64::INFINITY),
            spend(b).unwrap_or(f64::INFINITY),
        );
        let keeps = keeps(a, b, by);
        keeps != Ordering::Less && sa <= sb && (keeps == Ordering::Greater || sa < sb)
    };
    known
        .iter()
        .copied()
        .filter(|&i| !known.iter().any(|&j| dominates(&points[j], &points[i])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{CostTally, RowKey, RowSummary};
    use crate::workload::Mode;

    /// A row of `name` at budget 1,000 over 10 batches, `violations` of them over budget, with these figures.
    fn row_with(
        name: &str,
        violations: u64,
        needles: Option<f64>,
        bytes: u64,
        cost_ratio: Option<f64>,
    ) -> Aggregate {
        let mut summary = RowSummary::default();
        for i in 0..10 {
            summary.add(&crate::metrics::tests::aggregate::quiet(i, 1));
        }
        let strategy = StrategyKey::from(name);
        let key = RowKey {
            scenario: "s",
            budget: BudgetLabel::Absolute(1000),
            strategy: &strategy,
        };
        let mut row = Aggregate::from_summary(
            key,
            Mode::Interactive,
            false,
            1000,
            summary,
            CostTally::default(),
            None,
        );
        row.compliance.violations = violations;
        row.needles.survival = needles;
        row.persistence.bytes = bytes;
        row.cost.floor_ratio = cost_ratio;
        row
    }

    #[test]
    fn the_front_is_of_strategies_that_kept_the_budget_and_no_other_beats_on_both() {
        // (strategy, violations, needles, bytes, cost ratio)
        let rows = [
            row_with("a", 0, Some(0.9), 1000, Some(2.0)), // best needles, most bytes: on both fronts
            row_with("b", 0, Some(0.8), 100, Some(1.0)),  // fewer bytes, cheaper: on both
            row_with("c", 0, Some(0.8), 500, Some(3.0)),  // dominated by b on both
            row_with("d", 3, Some(1.0), 0, Some(0.5)),    // broke the budget: on no front
            row_with("e", 0, Some(0.7), 100, None), // as many bytes as b, fewer needles; no cost
            row_with("f", 0, Some(0.8), 100, Some(1.0)), // the same as b: both stay
        ];
        let views = pareto(&rows);
        assert_eq!(views.len(), 1);
        let v = &views[0];
        assert_eq!(v.by, RankedBy::Needles);
        let on = |f: fn(&ParetoPoint) -> bool| -> Vec<&str> {
            v.points
                .iter()
                .filter(|p| f(p))
                .map(|p| p.strategy.as_str())
                .collect()
        };
        assert_eq!(on(|p| p.front_bytes), ["a", "b", "f"]);
        assert_eq!(on(|p| p.front_cost), ["a", "b", "f"]);
        assert_eq!(on(|p| !p.kept_budget), ["d"]);
        assert_eq!(v.kept(&v.points[0]), Some(0.9));
    }

    #[test]
    fn without_needles_retention_measures_what_is_kept() {
        let mut a = row_with("a", 0, None, 10, Some(1.0));
        a.retention.mean = Some(0.5);
        let mut b = row_with("b", 0, None, 20, Some(1.0));
        b.retention.mean = Some(0.6);
        let mut c = row_with("c", 0, None, 30, Some(1.0));
        c.retention.mean = Some(0.55);
        let v = &pareto(&[a, b, c])[0];
        assert_eq!(v.by, RankedBy::Retention);
        let front: Vec<&str> = v
            .points
            .iter()
            .filter(|p| p.front_bytes)
            .map(|p| p.strategy.as_str())
            .collect();
        assert_eq!(front, ["a", "b"]);
        // The cost ratios tie, so the most retention alone is on the cost front.
        let cost: Vec<bool> = v.points.iter().map(|p| p.front_cost).collect();
        assert_eq!(cost, [false, true, false]);
    }

    #[test]
    fn a_front_runs_from_least_spent_to_most_kept_and_names_it_so_for_results_json() {
        let rows = [
            row_with("a", 0, Some(0.9), 1000, Some(2.0)),
            row_with("b", 0, Some(0.8), 100, Some(1.0)),
            row_with("c", 0, Some(0.8), 500, Some(3.0)),
            row_with("d", 3, Some(1.0), 0, Some(0.5)),
            row_with("e", 0, Some(0.7), 10, None),
        ];
        let v = &pareto(&rows)[0];
        let names =
            |spend| -> Vec<&str> { v.front(spend).iter().map(|p| p.strategy.as_str()).collect() };
        assert_eq!(names(Spend::Bytes), ["e", "b", "a"]);
        assert_eq!(names(Spend::Cost), ["b", "a"]);
        // Bytes are per turn (ten turns a row).
        assert_eq!(Spend::Bytes.of(&v.points[0]), Some(100.0));
        assert_eq!(Spend::Cost.of(&v.points[4]), None);
        let fronts = fronts(&rows);
        assert_eq!(
            serde_json::to_string(&fronts).unwrap(),
            r#"[{"scenario":"s","budget":"abs-1000","by":"needles","bytes":["e","b","a"],"cost":["b","a"]}]"#
        );
        let back: Vec<ParetoFronts> =
            serde_json::from_str(&serde_json::to_string(&fronts).unwrap()).unwrap();
        assert_eq!(back, fronts);
    }

    proptest::proptest! {
        /// On any rows, a marked strategy kept the budget and no strategy that kept it beats it on both at once,
        /// and every strategy that kept the budget and is not marked (its spend known) is beaten by one that is.
        #[test]
        fn no_dominated_strategy_is_ever_marked(
            figures in proptest::collection::vec(
                (0u64..3, 0u8..5, 0u8..4, 0u64..4, proptest::option::of(0u8..4)),
                1..9,
            )
        ) {
            let rows: Vec<Aggregate> = figures
                .iter()
                .enumerate()
                .map(|(i, &(violations, needles, retention, bytes, cost))| {
                    let mut r = row_with(
                        &format!("s{i}"),
                        violations % 2,
                        (needles > 0).then(|| f64::from(needles) / 4.0),
                        bytes * 100,
                        cost.map(|c| 1.0 + f64::from(c) / 2.0),
                    );
                    r.retention.mean = Some(f64::from(retention) / 3.0);
                    r
                })
                .collect();
            let v = &pareto(&rows)[0];
            for spend in Spend::ALL {
                let beats = |a: &ParetoPoint, b: &ParetoPoint| {
                    let (sa, sb) = (spend.of(a).unwrap(), spend.of(b).unwrap());
                    let k = keeps(a, b, v.by);
                    k != Ordering::Less && sa <= sb && (k == Ordering::Greater || sa < sb)
                };
                let in_budget: Vec<&ParetoPoint> = v
                    .points
                    .iter()
                    .filter(|p| p.kept_budget && spend.of(p).is_some())
                    .collect();
                for p in &v.points {
                    if spend.on(p) {
                        proptest::prop_assert!(p.kept_budget && spend.of(p).is_some());
                        proptest::prop_assert!(!in_budget.iter().any(|q| beats(q, p)), "{:?} is dominated", p.strategy);
                    } else if p.kept_budget && spend.of(p).is_some() {
                        proptest::prop_assert!(
                            in_budget.iter().any(|q| spend.on(q) && beats(q, p)),
                            "{:?} is not dominated but not marked", p.strategy
                        );
                    }
                }
                let front = v.front(spend);
                proptest::prop_assert!(front
                    .windows(2)
                    .all(|w| spend.of(w[0]) <= spend.of(w[1]) && keeps(w[0], w[1], v.by) != Ordering::Greater));
            }
        }
    }
}
