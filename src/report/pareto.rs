//! The trade-offs table `summary.md` and `index.html` show after the answer: for each scenario and budget, the
//! strategies on the Pareto fronts ([`crate::metrics::pareto`]) of what they keep (needles, then kept per field)
//! against KiB written per turn and against time over the floor, each with its figures. Pure: results in, strings
//! out.

use crate::metrics::pareto::{pareto, ParetoPoint, ParetoView, Spend};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

use super::answer::{budget_text, share};

/// At most this many strategies are named at one place on a front; the rest are counted.
const NAMED: usize = 2;

/// One line of the table: one scenario at one budget.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParetoLine {
    /// The scenario.
    pub scenario: String,
    /// The budget in UTF-16 units, and the context window it comes from.
    pub budget: String,
    /// The front against KiB written per turn, fewest first.
    pub bytes: Front,
    /// The front against time over the floor, cheapest first.
    pub cost: Front,
    /// How many strategies kept the budget, of how many ran: `11 of 19`.
    pub in_budget: String,
}

/// A front as the table shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Front {
    /// Its places, least spent first.
    Places(Vec<Place>),
    /// Why there is none: no strategy kept the budget, or none that did was timed.
    Empty(&'static str),
}

/// One place on a front: the strategies at it (several when every figure shown is the same) and its text,
/// `line-aware (100% / 94.9%, 7.4 KiB)`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Place {
    /// The strategies at this place, in the rows' order.
    pub strategies: Vec<StrategyKey>,
    /// The names (the first few, the rest counted), needles and kept per field, and what they spend.
    pub text: String,
}

impl Front {
    /// The strategies on it, least spent first.
    #[cfg(test)]
    pub(crate) fn strategies(&self) -> Vec<&str> {
        match self {
            Front::Places(places) => places
                .iter()
                .flat_map(|p| p.strategies.iter().map(|s| s.as_str()))
                .collect(),
            Front::Empty(_) => Vec::new(),
        }
    }

    /// The places' texts joined by `sep`, or why there is none.
    pub(crate) fn text(&self, sep: &str) -> String {
        match self {
            Front::Places(places) => places
                .iter()
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>()
                .join(sep),
            Front::Empty(why) => format!("– ({why})"),
        }
    }
}

/// The table of `results`: one line per scenario and budget, in the rows' order.
pub(crate) fn lines(results: &RunResults) -> Vec<ParetoLine> {
    pareto(&results.rows)
        .iter()
        .map(|v| {
            let units = results
                .rows
                .iter()
                .find(|r| r.scenario == v.scenario && r.budget_label == v.budget)
                .and_then(|r| r.budget);
            let kept = v.points.iter().filter(|p| p.kept_budget).count();
            ParetoLine {
                scenario: v.scenario.clone(),
                budget: budget_text(results, &v.scenario, &v.budget, units),
                bytes: front(v, Spend::Bytes, kept),
                cost: front(v, Spend::Cost, kept),
                in_budget: format!("{kept} of {}", v.points.len()),
            }
        })
        .collect()
}

fn front(v: &ParetoView, spend: Spend, kept: usize) -> Front {
    let points = v.front(spend);
    if points.is_empty() {
        return Front::Empty(if kept == 0 {
            "none kept the budget"
        } else {
            "none that kept it was timed"
        });
    }
    // Places: runs of points whose figures are all the same.
    let mut places: Vec<Vec<&ParetoPoint>> = Vec::new();
    for p in points {
        let same = |q: &&ParetoPoint| {
            q.needles == p.needles && q.retention == p.retention && spend.of(q) == spend.of(p)
        };
        match places.last_mut() {
            Some(place) if place.first().is_some_and(same) => place.push(p),
            _ => places.push(vec![p]),
        }
    }
    Front::Places(
        places
            .into_iter()
            .map(|place| {
                let p = place[0];
                let names: Vec<&str> = place.iter().map(|q| q.strategy.as_str()).collect();
                let mut named = names[..names.len().min(NAMED)].join(" = ");
                if names.len() > NAMED {
                    named.push_str(&format!(" (+{} more)", names.len() - NAMED));
                }
                Place {
                    strategies: place.iter().map(|q| q.strategy.clone()).collect(),
                    text: format!(
                        "{named} ({} / {}, {})",
                        share(p.needles),
                        share(p.retention),
                        spent(spend, spend.of(p))
                    ),
                }
            })
            .collect(),
    )
}

/// What a point spends: KiB written per turn (`7.4 KiB`, `<0.1 KiB`, `0 KiB`) or time over the floor (`1.02x`).
fn spent(spend: Spend, x: Option<f64>) -> String {
    let Some(x) = x else {
        return "–".into();
    };
    match spend {
        Spend::Bytes => {
            let kib = x / 1024.0;
            if kib == 0.0 {
                "0 KiB".into()
            } else if kib < 0.05 {
                "<0.1 KiB".into()
            } else if kib < 1000.0 {
                format!("{kib:.1} KiB")
            } else {
                format!("{kib:.0} KiB")
            }
        }
        Spend::Cost => format!("{x:.2}x"),
    }
}

/// What the table's columns mean, for the note under it.
pub(crate) const NOTE: &str = "For each scenario and budget, the strategies no other beats on both at once: \
one keeping at least as many needles (then as much of each field) for no more bytes written, or no more time over \
the floor, and more of one or less of the other (the Pareto front), least spent first, each with its needles kept / \
mean kept share per field and what it spends. Strategies with the same figures share a place. Only strategies \
that kept the budget in every turn can be on a front: one over budget spends less by sending more than the budget \
allows, which is no trade-off to take; how many kept it is in the last column. The cost front rests on timings and \
may differ between runs.";

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small run: `surrogate-storm` (three budgets) through five strategies, four batches.
    pub(crate) fn small_run() -> RunResults {
        crate::run::PlanRequest {
            workloads: crate::run::Workloads::Scenarios(vec!["surrogate-storm".into()]),
            strategies: ["reference", "greedy", "uniform", "codex", "head-tail-0"]
                .map(String::from)
                .to_vec(),
            batches: Some(4),
            ..Default::default()
        }
        .plan()
        .unwrap()
        .run(&|_| {})
        .results
    }

    /// One row's figures: (strategy, violations, needles, retention, bytes per turn, cost ratio).
    pub(crate) type Figures<'a> = (&'a str, u64, Option<f64>, Option<f64>, u64, Option<f64>);

    /// Figures of the small run's strategies: greedy and head-tail-0 alike, reference on both fronts, uniform
    /// beaten on bytes but cheapest, codex over budget.
    pub(crate) const FIGURES: &[Figures<'static>] = &[
        ("reference", 0, Some(0.9), Some(0.8), 8192, Some(1.02)),
        ("greedy", 0, Some(0.8), Some(0.7), 1024, Some(1.5)),
        ("uniform", 0, Some(0.8), Some(0.6), 2048, Some(1.01)), // beaten by greedy on bytes
        ("codex", 2, Some(1.0), Some(0.9), 0, Some(0.5)),       // over budget: on no front
        ("head-tail-0", 0, Some(0.8), Some(0.7), 1024, Some(1.5)), // greedy's figures
    ];

    /// `results` with the rows of its first budget set to `figures`, in the rows' order.
    pub(crate) fn with_figures(mut results: RunResults, figures: &[Figures<'_>]) -> RunResults {
        let first = results.rows[0].budget_label;
        let rows = results.rows.iter_mut().filter(|r| r.budget_label == first);
        for (r, &(name, violations, needles, retention, bytes, cost)) in rows.zip(figures) {
            assert_eq!(r.strategy.as_str(), name);
            r.compliance.violations = violations;
            r.needles.survival = needles;
            r.retention.mean = retention;
            r.persistence.bytes = bytes * r.batches;
            r.cost.floor_ratio = cost;
        }
        results.ranking = crate::metrics::ranking::rank(&results.rows);
        results.pareto = crate::metrics::pareto::fronts(&results.rows);
        results
    }

    #[test]
    fn the_tables_fronts_are_the_pareto_views_of_the_rows() {
        let results = small_run();
        let views = pareto(&results.rows);
        let lines = lines(&results);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines.len(), views.len());
        for (line, view) in lines.iter().zip(&views) {
            assert_eq!(line.scenario, view.scenario);
            for (front, spend) in [(&line.bytes, Spend::Bytes), (&line.cost, Spend::Cost)] {
                let expected: Vec<&str> = view
                    .front(spend)
                    .iter()
                    .map(|p| p.strategy.as_str())
                    .collect();
                assert_eq!(front.strategies(), expected, "{} {:?}", line.budget, spend);
            }
        }
        assert_eq!(lines[0].budget, "1,000");
    }

    #[test]
    fn a_line_names_each_place_on_a_front_with_its_figures_and_leaves_out_who_broke_the_budget() {
        let results = with_figures(small_run(), FIGURES);
        let line = &lines(&results)[0];
        assert_eq!(
            line.bytes.text(" → "),
            "greedy = head-tail-0 (80% / 70%, 1.0 KiB) → reference (90% / 80%, 8.0 KiB)"
        );
        assert_eq!(
            line.cost.text(" → "),
            "uniform (80% / 60%, 1.01x) → reference (90% / 80%, 1.02x)"
        );
        assert_eq!(line.in_budget, "4 of 5");
        // Nobody in budget: no front, and why.
        let all_over = with_figures(
            small_run(),
            &[
                ("reference", 1, Some(0.9), Some(0.8), 0, Some(1.0)),
                ("greedy", 1, Some(0.8), Some(0.7), 0, Some(1.0)),
                ("uniform", 1, Some(0.8), Some(0.6), 0, Some(1.0)),
                ("codex", 1, Some(1.0), Some(0.9), 0, Some(0.5)),
                ("head-tail-0", 1, Some(0.8), Some(0.7), 0, Some(1.0)),
            ],
        );
        let line = &lines(&all_over)[0];
        assert_eq!(line.bytes.text(" → "), "– (none kept the budget)");
        assert_eq!(line.cost, Front::Empty("none kept the budget"));
        assert_eq!(line.in_budget, "0 of 5");
    }

    #[test]
    fn spending_reads_in_kib_per_turn_or_times_the_floor() {
        assert_eq!(
            [0.0, 40.0, 7577.6, 2_000_000.0].map(|x| spent(Spend::Bytes, Some(x))),
            ["0 KiB", "<0.1 KiB", "7.4 KiB", "1953 KiB"]
        );
        assert_eq!(spent(Spend::Cost, Some(1.0171)), "1.02x");
        assert_eq!(spent(Spend::Cost, None), "–");
    }
}
