//! The floor of a run, as [`crate::floor`] is the floor of one finalization: the least work any run of the same
//! plan must do, so that a run's time can be read as a ratio to what no run of it can avoid.
//!
//! A run of a plan must make every batch once, and every (budget, strategy) turn of a batch passes the runtime
//! boundaries its mode has, each of which must know the length of what passes it. So [`RunPlan::run_floor`]
//! generates every batch of the plan's shard (or borrows a recorded one), and for each turn measures every text
//! field's UTF-16 length once per boundary the simulation takes it through: in full where the producers hand it
//! over, and after that only what the budget's water-fill allocation keeps of it (a prefix of at most that many
//! bytes, never more than what a finalizer leaves). It hashes, once a batch, the full text of every field the
//! allocation cuts at one budget or more: the producers' fields the reference finalizer cuts and names by digest
//! in its headers (a digest depends on the text alone, so a run needs it once per batch, whatever the strategies
//! and budgets: `run` shares it through `digest::KnownDigests`; a text equal to one hashed already is not hashed
//! again; a preview the reference cuts again at a later boundary, at most the budget long, is left out). It copies no text, builds no
//! preview, persists nothing, measures no needles, counts no tokens and aggregates nothing. Batches run in parallel
//! on the current rayon pool like the run's, and what it returns (sums and an XOR of digests) is the same on any
//! number of threads.
//!
//! Which boundaries a field passes follows `simulate`: the producers, the scheduler's three (before the
//! PostToolBatch hook, the hook, after it) for an executed call only, the runtime's aggregation, then outside the
//! legacy forms the outer finalization and the send guard (when on), and the model request.

use std::borrow::Cow;

use rayon::prelude::*;

use super::{RunPlan, Source, Workload};
use crate::alloc::water_fill;
use crate::digest::sha256;
use crate::model::{Batch, Field};
use crate::simulate::{Origin, SimConfig};
use crate::text::{head_bytes, utf16_len};

/// What the floor of a run did, summed over its batches; returned so that none of the work can be optimised away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunFloor {
    /// Batches made (generated, or taken from the recorded file).
    pub batches: u64,
    /// Turns accounted for: batches x budgets x strategies, as in the run.
    pub turns: u64,
    /// Text fields measured, counting a field once for every boundary of every turn it passes.
    pub measured: u64,
    /// UTF-16 units those measurements found.
    pub units: u64,
    /// Fields hashed: at each budget, those the allocation cuts.
    pub hashed: u64,
    /// UTF-8 bytes hashed.
    pub hashed_bytes: u64,
    /// The XOR of the sha256 digests of the hashed fields.
    pub digest: [u8; 32],
}

impl RunFloor {
    /// The work of both, as if done by one run (order does not matter).
    fn combine(mut self, other: RunFloor) -> RunFloor {
        self.batches += other.batches;
        self.turns += other.turns;
        self.measured += other.measured;
        self.units += other.units;
        self.hashed += other.hashed;
        self.hashed_bytes += other.hashed_bytes;
        for (acc, b) in self.digest.iter_mut().zip(other.digest) {
            *acc ^= b;
        }
        self
    }
}

impl RunPlan {
    /// Does the least work any run of this plan must do (see the module doc) and returns what it found. The batches
    /// of each workload run in parallel on the current rayon pool.
    pub fn run_floor(&self) -> RunFloor {
        let strategies = self.strategies.len() as u64;
        self.workloads
            .iter()
            .map(|workload| {
                let indices: Vec<u64> = self.shard.batches(workload.info.batches).collect();
                indices
                    .par_iter()
                    .map(|&index| batch_floor(workload, strategies, index))
                    .reduce(RunFloor::default, RunFloor::combine)
            })
            .fold(RunFloor::default(), RunFloor::combine)
    }
}

/// How many boundary records of a turn simulated with `config` hold an entry of `origin`.
fn boundaries_passed(config: &SimConfig, origin: Origin) -> u64 {
    let scheduler = if origin == Origin::Executed { 3 } else { 0 };
    let outer = if config.legacy {
        0
    } else {
        1 + u64::from(config.send_guard)
    };
    // The producers, the aggregation and the model request, whatever the mode.
    3 + scheduler + outer
}

/// The floor of batch `index` of `workload`, run by `strategies` strategies at each of its budgets.
fn batch_floor(workload: &Workload, strategies: u64, index: u64) -> RunFloor {
    let batch: Cow<'_, Batch> = match &workload.source {
        Source::Generated(generator) => Cow::Owned(generator.batch(index).batch),
        Source::Recorded(batches) => Cow::Borrowed(&batches[index as usize]),
    };
    let origins = Origin::of_turn(&batch);
    let mut texts: Vec<(&str, u64)> = Vec::new();
    for (entry, &origin) in batch.iter().zip(&origins) {
        let passes = boundaries_passed(&workload.sim, origin);
        for part in &entry.response_parts {
            texts.extend(
                Field::ALL
                    .into_iter()
                    .filter_map(|f| part.field(f))
                    .map(|t| (t, passes)),
            );
        }
    }
    let mut work = RunFloor {
        batches: 1,
        ..RunFloor::default()
    };
    let mut lengths = vec![0u64; texts.len()];
    // The texts hashed so far in this batch, at any budget.
    let mut hashed: Vec<&str> = Vec::new();
    for budget in &workload.info.budgets {
        let mut allocation: Option<Vec<u64>> = None;
        for _ in 0..strategies {
            work.turns += 1;
            // The producers hand every field over in full.
            for (len, (text, _)) in lengths.iter_mut().zip(&texts) {
                *len = utf16_len(text) as u64;
                work.measured += 1;
                work.units += *len;
            }
            let allocation = allocation.get_or_insert_with(|| {
                let cut = cut_allocation(&lengths, budget.units);
                work.hash_cut(&texts, &lengths, &cut, &mut hashed);
                cut
            });
            // Every later boundary sees at most what the allocation keeps.
            for (((text, passes), &len), &kept) in texts.iter().zip(&lengths).zip(allocation.iter())
            {
                let text = if len > kept {
                    head_bytes(text, kept as usize)
                } else {
                    text
                };
                for _ in 1..*passes {
                    work.measured += 1;
                    work.units += utf16_len(text) as u64;
                }
            }
        }
    }
    work
}

/// The allocation of `budget` units over fields of `lengths`: every length when they fit, else the water-fill.
fn cut_allocation(lengths: &[u64], budget: u64) -> Vec<u64> {
    if lengths.iter().sum::<u64>() <= budget {
        lengths.to_vec()
    } else {
        water_fill(lengths, budget)
    }
}

impl RunFloor {
    /// Hashes the full text of every field longer than its allocation, unless the same text is among `hashed`
    /// (the batch's texts hashed already), which it joins.
    fn hash_cut<'a>(
        &mut self,
        texts: &[(&'a str, u64)],
        lengths: &[u64],
        allocation: &[u64],
        hashed: &mut Vec<&'a str>,
    ) {
        for (((text, _), &len), &kept) in texts.iter().zip(lengths).zip(allocation) {
            if len > kept && !hashed.contains(text) {
                hashed.push(text);
                let digest = sha256(text.as_bytes());
                for (acc, b) in self.digest.iter_mut().zip(digest) {
                    *acc ^= b;
                }
                self.hashed += 1;
                self.hashed_bytes += text.len() as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{Budget, BudgetContext};
    use crate::finalize::StrategyName;
    use crate::generate::Shard;
    use crate::model::Part;
    use crate::persist::MemoryStore;
    use crate::simulate::{simulate_turn_observed, Finalization};
    use crate::workload::Mode;
    use serde_json::Value;

    use crate::run::testing::shell_entry as entry;

    /// Three executed calls (outputs of 50, 400 and 3,000 units, the second with an error of 30) and a repeat of
    /// the first call's id, which the simulation treats as a duplicate answered from the earlier response.
    fn small_batch() -> Batch {
        let mut with_error = entry("b", &"b".repeat(400));
        with_error.response_parts[0] = Part::function_response(
            "b",
            "shell",
            Some(Value::String("b".repeat(400))),
            Some(Value::String("e".repeat(30))),
        );
        vec![
            entry("a", &"a".repeat(50)),
            with_error,
            entry("c", &"c".repeat(3_000)),
            entry("a", &"d".repeat(20)),
        ]
    }

    fn plan_of(batch: &Batch, budget: u64, sim: SimConfig, strategies: usize) -> RunPlan {
        let jsonl = serde_json::to_string(batch).unwrap() + "\n";
        let workload = Workload::from_recorded("small", jsonl.as_bytes(), &[budget], sim).unwrap();
        RunPlan {
            workloads: vec![workload],
            strategies: vec![StrategyName::REFERENCE; strategies],
            shard: Shard::WHOLE,
            slowdown: Default::default(),
            externals: Default::default(),
            tokens: None,
        }
    }

    /// What the reference does in a turn of `batch`: the text fields at its boundaries (counted), the fields it
    /// cuts of the producers' text (count and XOR of their digests), and the longest text it cuts again after
    /// having cut it once (a preview whose header no longer fits the budget).
    fn reference_turn(batch: &Batch, budget: u64, sim: SimConfig) -> (u64, u64, [u8; 32], usize) {
        let config = SimConfig {
            keep_parts: true,
            ..sim
        };
        let ctx = BudgetContext::new(Budget::Units(budget as i64));
        let mut store = MemoryStore::new("tool-results");
        let produced: Vec<&str> = batch
            .iter()
            .flat_map(|e| &e.response_parts)
            .flat_map(|p| Field::ALL.into_iter().filter_map(|f| p.field(f)))
            .collect();
        let (mut cut, mut digest, mut recut) = (0u64, [0u8; 32], 0usize);
        let mut observe = |f: &Finalization<'_>| {
            for (before, after) in f.input.iter().zip(&f.outcome.batch) {
                for (p, q) in before.response_parts.iter().zip(&after.response_parts) {
                    for field in Field::ALL {
                        let (Some(full), Some(kept)) = (p.field(field), q.field(field)) else {
                            continue;
                        };
                        if full == kept {
                            continue;
                        }
                        if produced.contains(&full) {
                            cut += 1;
                            for (acc, b) in digest.iter_mut().zip(sha256(full.as_bytes())) {
                                *acc ^= b;
                            }
                        } else {
                            recut = recut.max(full.len());
                        }
                    }
                }
            }
        };
        let reference = StrategyName::REFERENCE.build();
        let record = simulate_turn_observed(
            batch.clone(),
            reference.as_ref(),
            &ctx,
            &mut store,
            &config,
            Some(&mut observe),
        );
        let measured = record
            .boundaries
            .iter()
            .flat_map(|b| b.parts.as_ref().expect("parts are kept"))
            .flat_map(|e| &e.response_parts)
            .map(|p| {
                Field::ALL
                    .into_iter()
                    .filter(|&f| p.field(f).is_some())
                    .count() as u64
            })
            .sum();
        (measured, cut, digest, recut)
    }

    #[test]
    fn the_floor_measures_each_field_once_per_boundary_it_passes_in_every_mode() {
        let batch = small_batch();
        for mode in [Mode::Interactive, Mode::Headless, Mode::Acp] {
            for legacy in [false, true] {
                for send_guard in [true, false] {
                    let sim = SimConfig {
                        mode,
                        legacy,
                        send_guard,
                        ..SimConfig::default()
                    };
                    let (measured, ..) = reference_turn(&batch, 1_000, sim);
                    let floor = plan_of(&batch, 1_000, sim, 1).run_floor();
                    let label = format!("{mode:?} legacy {legacy} guard {send_guard}");
                    assert_eq!(floor.measured, measured, "{label}");
                    assert_eq!((floor.batches, floor.turns), (1, 1), "{label}");
                }
            }
        }
        // Interactive with the send guard, counted by hand: 5 fields at the producers, the 4 executed fields at
        // the scheduler's three boundaries, 5 at the aggregation, the outer finalization, the send guard and the
        // model request.
        let floor = plan_of(&batch, 1_000, SimConfig::default(), 1).run_floor();
        assert_eq!(floor.measured, 5 + 3 * 4 + 4 * 5);
    }

    #[test]
    fn the_floor_hashes_exactly_the_fields_the_reference_cuts() {
        let batch = small_batch();
        for mode in [Mode::Interactive, Mode::Headless] {
            let sim = SimConfig {
                mode,
                ..SimConfig::default()
            };
            for budget in [100, 500, 1_000, 2_000] {
                let (_, cut, digest, recut) = reference_turn(&batch, budget, sim);
                let floor = plan_of(&batch, budget, sim, 1).run_floor();
                assert!(cut > 0, "{mode:?} at {budget} cuts something");
                assert_eq!(
                    (floor.hashed, floor.digest),
                    (cut, digest),
                    "{mode:?} at {budget}"
                );
                // What the reference cuts again at a later boundary (when the duplicate joins, or in headless mode
                // the batch its schedulers cut call by call) is its own preview, at most the budget long: the floor
                // leaves that hashing out.
                assert!(recut as u64 <= budget, "{mode:?} at {budget}: {recut}");
            }
        }
        // At 1,000 units the water-fill keeps 50, 30 and 20 whole and shares 900 between the 400 and the 3,000:
        // the 3,000 is cut alone; at 500 both long outputs are.
        let at = |budget| plan_of(&batch, budget, SimConfig::default(), 1).run_floor();
        assert_eq!((at(1_000).hashed, at(1_000).hashed_bytes), (1, 3_000));
        assert_eq!((at(500).hashed, at(500).hashed_bytes), (2, 3_400));
        let fits = at(3_500);
        assert_eq!((fits.hashed, fits.digest), (0, [0; 32]));
    }

    #[test]
    fn the_floor_hashes_each_text_once_per_batch_whatever_the_budgets() {
        let batch = small_batch();
        // At 1,000 units the 3,000-unit output is cut; at 500 the 400-unit one too: three cuts in all, two texts.
        let jsonl = serde_json::to_string(&batch).unwrap() + "\n";
        let workload = Workload::from_recorded(
            "small",
            jsonl.as_bytes(),
            &[1_000, 500],
            SimConfig::default(),
        )
        .unwrap();
        let plan = RunPlan {
            workloads: vec![workload],
            ..plan_of(&batch, 1_000, SimConfig::default(), 2)
        };
        let floor = plan.run_floor();
        assert_eq!(
            (floor.turns, floor.hashed, floor.hashed_bytes),
            (4, 2, 3_400)
        );
        let at_500 = plan_of(&batch, 500, SimConfig::default(), 1).run_floor();
        assert_eq!(floor.digest, at_500.digest);
        // The same text in two fields is hashed once: at 1,000 units the water-fill keeps 50, 30 and 20 whole and
        // gives 300 to each of the 400 and the two 3,000s, cutting all three.
        let mut twice = batch.clone();
        twice.push(entry("e", &"c".repeat(3_000)));
        let floor = plan_of(&twice, 1_000, SimConfig::default(), 1).run_floor();
        assert_eq!((floor.hashed, floor.hashed_bytes), (2, 3_400));
    }

    #[test]
    fn the_floor_counts_units_hashes_once_per_budget_and_measures_once_per_turn() {
        let batch = small_batch();
        // At 1,000 units (interactive, send guard): the producers measure 3,500 units; the 3,000-unit output is
        // kept at 1,000 - 50 - 30 - 20 - 400 = 500 units at the 7 later boundaries it passes, the others whole (the
        // duplicate's 20 units at 4 later boundaries).
        let one = plan_of(&batch, 1_000, SimConfig::default(), 1).run_floor();
        let later = 7 * (50 + 30 + 400 + 500) + 4 * 20;
        assert_eq!(one.units, 3_500 + later);
        let three = plan_of(&batch, 1_000, SimConfig::default(), 3).run_floor();
        assert_eq!(three.turns, 3);
        assert_eq!(three.measured, 3 * one.measured);
        assert_eq!(three.units, 3 * one.units);
        assert_eq!(
            (three.hashed, three.digest),
            (one.hashed, one.digest),
            "one digest per budget, whatever the strategies"
        );
    }

    #[test]
    fn a_field_the_allocation_keeps_whole_is_measured_whole_at_every_boundary_whatever_its_bytes() {
        // 100 units in 200 UTF-8 bytes, well within the budget: the allocation keeps all 100 units, and a prefix of
        // 100 bytes (half the text) would be wrong. Interactive with the send guard, an executed call passes 8
        // boundaries: the producers, the scheduler's three, the aggregation, the outer finalization, the send
        // guard and the model request.
        let batch = vec![entry("a", &"\u{e9}".repeat(100))];
        let floor = plan_of(&batch, 1_000, SimConfig::default(), 1).run_floor();
        assert_eq!((floor.measured, floor.units, floor.hashed), (8, 8 * 100, 0));
    }

    #[test]
    fn the_floor_of_a_generated_run_is_the_same_on_any_thread_count_and_sums_over_shards() {
        let scenario = crate::scenario::Scenario::shipped("mixed-realistic").unwrap();
        let plan = RunPlan {
            workloads: vec![Workload::from_scenario(&scenario, Some(6))],
            strategies: vec![StrategyName::REFERENCE, "uniform".parse().unwrap()],
            shard: Shard::WHOLE,
            slowdown: Default::default(),
            externals: Default::default(),
            tokens: None,
        };
        let on = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| plan.run_floor())
        };
        let whole = on(1);
        assert_eq!(on(3), whole);
        let budgets = scenario.budgets().len() as u64;
        assert_eq!((whole.batches, whole.turns), (6, 6 * budgets * 2));
        assert!(whole.hashed > 0 && whole.measured > whole.turns);
        let shards: Vec<RunFloor> = (0..2)
            .map(|index| {
                let plan = RunPlan {
                    shard: Shard { index, count: 2 },
                    ..plan.clone()
                };
                plan.run_floor()
            })
            .collect();
        assert_eq!(shards[0].combine(shards[1]), whole);
        // The digests are XORed: the same work twice cancels out, every count doubles.
        let twice = whole.combine(whole);
        assert_ne!(whole.digest, [0; 32]);
        assert_eq!(twice.digest, [0; 32]);
        assert_eq!(
            (
                twice.batches,
                twice.turns,
                twice.measured,
                twice.units,
                twice.hashed,
                twice.hashed_bytes
            ),
            (
                2 * whole.batches,
                2 * whole.turns,
                2 * whole.measured,
                2 * whole.units,
                2 * whole.hashed,
                2 * whole.hashed_bytes
            )
        );
    }
}
