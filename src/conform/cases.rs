//! The cases `budgetlab conform` runs a finalizer on: hand-made edge cases, the production sample vectors, and
//! batches generated from every shipped scenario at budgets drawn around their size.
//!
//! [`CaseSet`] numbers the [`Case`]s: the edge cases first, then the vectors, then the generated
//! ones, each generated case a pure function of (seed, its number), made only when it is run.

use super::case::Case;
use super::edge_cases::edge_cases;
use super::vectors;
use crate::budget::{Budget, PlanReminders};
use crate::finalize::{budgeted_total, SlotScope};
use crate::generate::Generator;
use crate::persist::PersistenceIds;
use crate::rng::{Seed, Stream};
use crate::scenario::Scenario;

/// Most generated cases one run may ask for (`--cases`).
pub const MAX_GENERATED: u64 = 100_000;

/// How many cases of each origin a set holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CaseCounts {
    /// Hand-made edge cases.
    pub edge: u64,
    /// Production sample vectors.
    pub vectors: u64,
    /// Generated from the shipped scenarios.
    pub generated: u64,
    /// All of them.
    pub total: u64,
}

/// The numbered cases of one run.
#[derive(Debug, Clone)]
pub struct CaseSet {
    seed: Seed,
    edge: Vec<Case>,
    vectors: Vec<Case>,
    generators: Vec<Generator>,
    generated: u64,
}

impl CaseSet {
    /// The edge cases, the vectors and `generated` cases drawn from every shipped scenario under `seed` (which
    /// replaces each scenario's own seed).
    pub fn new(seed: Seed, generated: u64) -> CaseSet {
        let generators = Scenario::all_shipped()
            .into_iter()
            .map(|mut s| {
                s.seed = seed;
                Generator::new(&s)
            })
            .collect();
        CaseSet {
            seed,
            edge: edge_cases(),
            vectors: vectors::cases(),
            generators,
            generated,
        }
    }

    /// How many cases of each origin.
    pub fn counts(&self) -> CaseCounts {
        let (edge, vectors) = (self.edge.len() as u64, self.vectors.len() as u64);
        CaseCounts {
            edge,
            vectors,
            generated: self.generated,
            total: edge + vectors + self.generated,
        }
    }

    /// The number of cases.
    pub fn len(&self) -> u64 {
        self.counts().total
    }

    /// Whether the set is empty (it never is: the edge cases are always there).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The scenarios the generated cases come from, as (name, digest with the run's seed).
    pub fn scenarios(&self) -> Vec<(String, String)> {
        self.generators
            .iter()
            .map(|g| (g.scenario().name.clone(), g.scenario().digest()))
            .collect()
    }

    /// Case `k` (`k < len()`): edge cases, then vectors, then generated cases.
    pub fn case(&self, k: u64) -> Case {
        let edge = self.edge.len() as u64;
        let vectors = self.vectors.len() as u64;
        if k < edge {
            return self.edge[k as usize].clone();
        }
        if k < edge + vectors {
            return self.vectors[(k - edge) as usize].clone();
        }
        self.generated_case(k - edge - vectors)
    }

    /// Generated case `g`: batch `g / S` of scenario `g % S` (S shipped scenarios, in name order), at a budget
    /// drawn from the stream `(seed, "conform-budget", g)`: one of the scenario's own budgets (two times in
    /// five), a share of 1% to 100% of the batch's budgeted total (two in five), or a small budget of 1 to 400
    /// units (one in five). Writes fail for an entry's call id at the scenario's finalizer fault rate, and for
    /// the first entry one time in twenty.
    fn generated_case(&self, g: u64) -> Case {
        let n = self.generators.len() as u64;
        let generator = &self.generators[(g % n) as usize];
        let scenario = generator.scenario();
        let index = g / n;
        let generated = generator.batch(index);
        let batch = generated.batch;
        let mut rng = Stream::derive(self.seed, "conform-budget", g);
        let budgets = scenario.budgets();
        let total = budgeted_total(&batch, &PlanReminders::default(), SlotScope::ALL);
        let draw = rng.below(5);
        let (units, window) = if draw < 2 || (draw < 4 && total == 0) {
            let b = &budgets[rng.index(budgets.len())];
            (b.units, b.window_tokens)
        } else if draw < 4 {
            let share = rng.range(1, 100);
            ((total * share / 100).max(1), budgets[0].window_tokens)
        } else {
            (rng.range(1, 400), budgets[0].window_tokens)
        };
        let mut fail_ids = Vec::new();
        let mut ids = PersistenceIds::new(batch.iter().map(|e| e.call_id.as_str()));
        for (i, entry) in batch.iter().enumerate() {
            let rate = scenario.persistence.finalizer_fault_rate + if i == 0 { 0.05 } else { 0.0 };
            let fails = rng.chance(rate);
            if let Some(id) = ids.assign(&entry.call_id) {
                if fails {
                    fail_ids.push(id);
                }
            }
        }
        let units = i64::try_from(units).unwrap_or(i64::MAX);
        let mut case = Case::new(
            format!("{}/{index}@{units}", scenario.name),
            batch,
            Budget::Units(units),
        );
        case.context_window_tokens = window;
        case.fail_ids = fail_ids;
        case.turn = generated.context;
        case
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_numbers_edge_cases_vectors_then_generated_ones() {
        let set = CaseSet::new(Seed(3), 30);
        let counts = set.counts();
        assert_eq!(counts.vectors, 20);
        assert_eq!(counts.generated, 30);
        assert_eq!(counts.total, counts.edge + 50);
        assert_eq!(set.case(0).name, "edge:empty-batch@1");
        assert_eq!(set.case(counts.edge).name, "vector:within-budget-unchanged");
        // Generated cases take the shipped scenarios in turn, in name order: batch 0 of each, then batch 1.
        let n = set.scenarios().len();
        assert_eq!(n, crate::Scenario::all_shipped().len());
        let first = set.case(counts.edge + 20);
        assert!(first.name.starts_with("cjk-heavy/0@"), "{}", first.name);
        let second_round = set.case(counts.edge + 20 + n as u64);
        assert!(
            second_round.name.starts_with("cjk-heavy/1@"),
            "{}",
            second_round.name
        );
    }

    #[test]
    fn generated_cases_are_a_function_of_seed_and_number() {
        let a = CaseSet::new(Seed(7), 40);
        let b = CaseSet::new(Seed(7), 40);
        let edge = a.counts().edge + 20;
        for k in [edge, edge + 5, edge + 39] {
            assert_eq!(a.case(k), b.case(k));
        }
        let c = CaseSet::new(Seed(8), 40);
        assert_ne!(a.case(edge + 5), c.case(edge + 5));
        // Every budget drawn is finite and positive.
        for k in edge..edge + 40 {
            assert!(a.case(k).budget.limit().is_some());
        }
    }

    #[test]
    fn edge_cases_cover_what_the_contract_names() {
        let cases = edge_cases();
        let has = |prefix: &str| cases.iter().any(|c| c.name.starts_with(prefix));
        for group in [
            "edge:empty-batch@1",
            "edge:empty-fields",
            "edge:disabled-budget@0",
            "edge:disabled-budget@-1",
            "edge:disabled-budget@inf",
            "edge:emoji-cut@241",
            "edge:plan-hook",
            "edge:pre-persisted",
            "edge:duplicate-ids",
            "edge:path-like-ids",
            "edge:persist-fails-all",
            "edge:media",
        ] {
            assert!(has(group), "{group}");
        }
        let names: std::collections::BTreeSet<&str> =
            cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names.len(), cases.len(), "case names are unique");
    }
}
