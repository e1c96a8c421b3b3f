//! The search: per workload, a seeded split of its batches into tuning and validation sets; per budget,
//! successive halving over nested samples of the tuning set, then the finalists and the reference on the
//! validation set.
//!
//! Halving: every setting runs on the first few tuning batches (in the split's shuffled order), the best third
//! goes on to three times as many, and so on until the finalists have run on the whole tuning set. The samples are
//! nested, so a setting that goes on adds batches to its tally instead of starting again. A setting is ranked by
//! whether it meets the constraints (every turn within budget, writes per turn), then by the objective, then by
//! the figures the objective does not weigh, then by fewer writes, then by the order of the candidates (the
//! reference first, then each family's plain form): equal settings keep the simplest. A rung keeps its best third,
//! and with them every setting equal to the last of them on the constraints and the objective: a sample that does
//! not tell settings apart drops none of them by chance. The reference runs on every sample whatever its rank, so
//! that its figures are on the same batches as the finalists'.
//!
//! Each batch is generated once per sample and run through every budget's settings in one task; tasks run in
//! parallel and their sums are added in batch order, so the results are the same on any number of threads.

use std::cmp::Ordering;

use rayon::prelude::*;

use super::score::{Objective, Paired, Sums};
use super::space::Candidate;
use super::{
    CellTune, Constraints, Figures, Recommendation, RungReport, SettingReport, TunePlan, Validated,
    WorkloadTune,
};
use crate::finalize::Finalizer;
use crate::rng::{Seed, Stream};
use crate::run::cost::{Measured, SAMPLES};
use crate::run::{measure_turn, Workload};

/// Each rung keeps this share of its settings (one in three).
pub const ETA: usize = 3;

/// The settings of a budget that reach the validation set (besides the reference).
pub const FINALISTS: usize = 3;

/// The fewest tuning batches of the first rung (or all there are, when fewer).
pub const FIRST_SAMPLE: usize = 6;

/// The batch indices of a workload of `batches` batches split into (tuning, validation), each in the seeded
/// shuffled order: the validation set takes `share` of them (rounded, at least one of each when there are two).
pub fn split(batches: u64, share: f64, seed: Seed, workload: &str) -> (Vec<u64>, Vec<u64>) {
    let mut order: Vec<u64> = (0..batches).collect();
    let mut stream = Stream::keyed(seed, "tune/split", workload.as_bytes());
    for i in (1..order.len()).rev() {
        let j = stream.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let n = order.len();
    let mut validation = ((n as f64) * share).round() as usize;
    if n >= 2 {
        validation = validation.clamp(1, n - 1);
    } else {
        validation = 0;
    }
    let tuning = order.split_off(validation);
    (tuning, order)
}

/// The rungs of a search of `settings` settings on `tuning` batches: (settings run, batches in the sample) per
/// rung; the last runs the finalists on every tuning batch.
pub fn rungs(settings: usize, tuning: usize) -> Vec<(usize, usize)> {
    let mut counts = vec![settings];
    while *counts.last().expect("one") > FINALISTS {
        let c = *counts.last().expect("one");
        counts.push(c.div_ceil(ETA).max(FINALISTS));
    }
    let last = counts.len() - 1;
    counts
        .into_iter()
        .enumerate()
        .map(|(r, c)| {
            let n = tuning / ETA.pow((last - r) as u32).max(1);
            (c, n.max(FIRST_SAMPLE).min(tuning))
        })
        .collect()
}

/// The progress a search of `candidates` settings over `cells` budgets reports in all: every rung's settings
/// on its new batches, then the finalists on the validation set. (The reference's turns once it has dropped
/// out of the ranking are not counted: they are a few more.)
pub fn planned_turns(candidates: usize, tuning: usize, validation: usize, cells: usize) -> u64 {
    let mut turns = 0u64;
    let mut done = 0usize;
    for (settings, batches) in rungs(candidates, tuning) {
        turns += (settings * (batches - done)) as u64;
        done = batches;
    }
    turns += (FINALISTS.min(candidates) * validation) as u64;
    turns * cells as u64
}

/// A setting's tally in one budget's search.
#[derive(Debug, Clone, Default)]
struct Tally {
    sums: Sums,
    batches: usize,
    rung: usize,
}

/// Searches one workload at each of its budgets; `progress` gets the turns run, and the turns added to the plan
/// when settings tied at a rung's cut go on together.
pub(super) fn tune_workload(
    plan: &TunePlan,
    workload: &Workload,
    progress: &(dyn Fn(Step) + Sync),
) -> WorkloadTune {
    let (tuning, validation) = split(
        workload.info.batches,
        plan.validation,
        plan.seed,
        &workload.info.name,
    );
    let candidates = &plan.candidates;
    let finalizers: Vec<Box<dyn Finalizer>> = candidates
        .iter()
        .map(|c| c.name.build_with(&workload.strategy_config))
        .collect();
    let budgets = &workload.info.budgets;
    let mut tallies: Vec<Vec<Tally>> =
        vec![vec![Tally::default(); candidates.len()]; budgets.len()];
    let mut alive: Vec<Vec<usize>> = vec![(0..candidates.len()).collect(); budgets.len()];
    let mut rung_reports: Vec<Vec<RungReport>> = vec![Vec::new(); budgets.len()];
    let mut done = 0usize;
    let plan_rungs = rungs(candidates.len(), tuning.len());
    for (r, &(_, sample)) in plan_rungs.iter().enumerate() {
        let new = &tuning[done..sample];
        // Per new batch: per budget, the sums of each alive setting (the reference too).
        let per_batch: Vec<Vec<Vec<Sums>>> = new
            .par_iter()
            .map(|&index| {
                let generated = workload.batch(index);
                let out: Vec<Vec<Sums>> = budgets
                    .iter()
                    .enumerate()
                    .map(|(b, budget)| {
                        running(&alive[b])
                            .map(|c| {
                                Sums::of(&measure_turn(
                                    workload,
                                    &generated,
                                    budget,
                                    finalizers[c].as_ref(),
                                ))
                            })
                            .collect()
                    })
                    .collect();
                progress(Step::Done(alive.iter().map(|a| a.len() as u64).sum()));
                out
            })
            .collect();
        for batch in &per_batch {
            for (b, sums) in batch.iter().enumerate() {
                for (c, s) in running(&alive[b]).zip(sums) {
                    let t = &mut tallies[b][c];
                    t.sums.add(s, 1);
                    t.batches += 1;
                    t.rung = r;
                }
            }
        }
        done = sample;
        for b in 0..budgets.len() {
            let ranked = rank(&alive[b], &tallies[b], &plan.objective, &plan.constraints);
            let keep = kept(&ranked, &tallies[b], &plan.objective, &plan.constraints);
            // Settings beyond the planned count go on only when tied at the cut: their batches to come were
            // not in the plan.
            if let Some(&(planned, next_sample)) = plan_rungs.get(r + 1) {
                let extra = keep.saturating_sub(planned);
                progress(Step::More((extra * (next_sample - sample)) as u64));
            }
            // What the rung ran, for the report: every setting in candidate order, with its place and whether it
            // goes on (on the last rung, whether it is a finalist).
            let going = if r + 1 == plan_rungs.len() {
                keep.min(FINALISTS)
            } else {
                keep
            };
            let mut ran: Vec<usize> = running(&alive[b]).collect();
            ran.sort_unstable();
            let ran = ran
                .into_iter()
                .map(|c| {
                    let place = ranked.iter().position(|&x| x == c);
                    super::RungSetting {
                        strategy: candidates[c].name.to_string(),
                        place,
                        goes_on: place.is_some_and(|p| p < going),
                        figures: Figures::of(&tallies[b][c].sums, &plan.objective),
                    }
                })
                .collect();
            rung_reports[b].push(RungReport {
                ran,
                batches: sample,
                settings: alive[b].len(),
                best: ranked.first().map(|&c| candidates[c].name.to_string()),
                best_objective: ranked
                    .first()
                    .and_then(|&c| plan.objective.value(&tallies[b][c].sums)),
                reference_objective: plan.objective.value(&tallies[b][0].sums),
            });
            alive[b] = ranked.into_iter().take(keep).collect();
        }
    }
    let cells = budgets
        .iter()
        .enumerate()
        .map(|(b, budget)| {
            let finalists: Vec<usize> = alive[b].iter().copied().take(FINALISTS).collect();
            let validated = validate(
                plan,
                workload,
                &validation,
                budget,
                &finalists,
                &finalizers,
                &tallies[b],
            );
            progress(Step::Done((finalists.len() * validation.len()) as u64));
            let settings = (0..candidates.len())
                .map(|c| setting_report(&candidates[c], &tallies[b][c], &plan.objective))
                .collect();
            let recommendation = recommend(&validated);
            CellTune {
                budget: budget.label.to_string(),
                units: budget.units,
                rungs: std::mem::take(&mut rung_reports[b]),
                settings,
                finalists: validated,
                recommendation,
            }
        })
        .collect();
    WorkloadTune {
        name: workload.info.name.clone(),
        source: workload.info.source,
        digest: workload.info.digest.clone(),
        batches: workload.info.batches,
        tuning: tuning.len() as u64,
        validation: validation.len() as u64,
        cells,
    }
}

/// The settings a rung runs: the alive ones, and the reference (0) always.
fn running(alive: &[usize]) -> impl Iterator<Item = usize> + '_ {
    let reference = (!alive.contains(&0)).then_some(0);
    reference.into_iter().chain(alive.iter().copied())
}

/// How many of `n` settings go on to the next rung.
fn next_count(n: usize) -> usize {
    n.div_ceil(ETA).max(FINALISTS).min(n)
}

/// What a rung's search reports: turns run, or turns added to the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// This many more turns were run.
    Done(u64),
    /// This many turns were added to the plan (settings tied at a rung's cut went on together).
    More(u64),
}

/// What a setting is ranked by, best greatest: whether it meets the constraints, its objective, the figures the
/// objective does not weigh (so that among settings that keep every needle, the one keeping more of the text
/// ranks first), and fewer writes.
fn rank_key(
    t: &Tally,
    objective: &Objective,
    c: &Constraints,
) -> (bool, Option<f64>, Option<f64>, u64) {
    let s = &t.sums;
    (c.allows(s), objective.value(s), objective.rest(s), s.writes)
}

/// Orders two rank keys, better first.
fn better(
    a: &(bool, Option<f64>, Option<f64>, u64),
    b: &(bool, Option<f64>, Option<f64>, u64),
) -> Ordering {
    let figure = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    b.0.cmp(&a.0)
        .then_with(|| figure(a.1, b.1))
        .then_with(|| figure(a.2, b.2))
        .then(a.3.cmp(&b.3))
}

/// The alive settings, best first (see the module for the order).
fn rank(alive: &[usize], tallies: &[Tally], objective: &Objective, c: &Constraints) -> Vec<usize> {
    let mut ranked = alive.to_vec();
    ranked.sort_by(|&a, &b| {
        better(
            &rank_key(&tallies[a], objective, c),
            &rank_key(&tallies[b], objective, c),
        )
        .then(a.cmp(&b))
    });
    ranked
}

/// How many of the `ranked` settings go on: [`next_count`], and every setting that meets the constraints as the
/// last of them does and equals it on the objective, so that a sample that does not tell settings apart on the
/// objective (every one keeps every needle) drops none of them by a lesser figure or the order they were listed in.
fn kept(ranked: &[usize], tallies: &[Tally], objective: &Objective, c: &Constraints) -> usize {
    let mut keep = next_count(ranked.len());
    if keep == 0 {
        return 0;
    }
    let on_objective = |i: usize| {
        let s = &tallies[ranked[i]].sums;
        (c.allows(s), objective.value(s))
    };
    let cut = on_objective(keep - 1);
    while keep < ranked.len() && on_objective(keep) == cut {
        keep += 1;
    }
    keep
}

/// Runs the finalists (best first) and the reference on the validation batches, timed, and pairs each
/// finalist's turns with the reference's.
fn validate(
    plan: &TunePlan,
    workload: &Workload,
    validation: &[u64],
    budget: &crate::scenario::ScenarioBudget,
    finalists: &[usize],
    finalizers: &[Box<dyn Finalizer>],
    tallies: &[Tally],
) -> Vec<Validated> {
    let mut runs: Vec<usize> = vec![0];
    runs.extend(finalists.iter().copied().filter(|&c| c != 0));
    // Per batch, per run: the sums and the (strategy, floor) nanoseconds.
    let per_batch: Vec<Vec<(Sums, u64, u64)>> = validation
        .par_iter()
        .map(|&index| {
            let generated = workload.batch(index);
            runs.iter()
                .map(|&c| {
                    let measured = Measured::new(finalizers[c].as_ref(), 1).with_samples(SAMPLES);
                    let metrics = measure_turn(workload, &generated, budget, &measured);
                    let (strategy_ns, floor_ns) = measured.totals();
                    (Sums::of(&metrics), strategy_ns, floor_ns)
                })
                .collect()
        })
        .collect();
    let mut reference_sums = Sums::default();
    for batch in &per_batch {
        reference_sums.add(&batch[0].0, 1);
    }
    let objective = &plan.objective;
    let mut out = Vec::new();
    for (k, &c) in runs.iter().enumerate() {
        let mut sums = Sums::default();
        let mut paired = Paired::default();
        let (mut strategy_ns, mut floor_ns) = (0u64, 0u64);
        for (&index, batch) in validation.iter().zip(&per_batch) {
            let (s, sn, fl) = &batch[k];
            sums.add(s, 1);
            paired.add(index, s, &batch[0].0);
            strategy_ns = strategy_ns.saturating_add(*sn);
            floor_ns = floor_ns.saturating_add(*fl);
        }
        let cost_ratio = (floor_ns > 0).then(|| strategy_ns as f64 / floor_ns as f64);
        let candidate = &plan.candidates[c];
        let gain = match (objective.value(&sums), objective.value(&reference_sums)) {
            (Some(a), Some(b)) if c != 0 => Some(a - b),
            _ => None,
        };
        out.push(Validated {
            strategy: candidate.name.to_string(),
            family: candidate.family.clone(),
            reference: c == 0,
            tuning_rank: finalists.iter().position(|&f| f == c),
            tuning: Figures::of(&tallies[c].sums, objective),
            validation: Figures::of(&sums, objective),
            cost_ratio,
            gain,
            gain_interval: (c != 0)
                .then(|| paired.interval(objective).map(|(lo, hi)| [lo, hi]))
                .flatten(),
            meets_constraints: plan.constraints.allows(&sums)
                && plan.constraints.allows_cost(cost_ratio),
        });
    }
    out
}

/// What a setting's search tally reports.
fn setting_report(candidate: &Candidate, t: &Tally, objective: &Objective) -> SettingReport {
    SettingReport {
        strategy: candidate.name.to_string(),
        family: candidate.family.clone(),
        rung: t.rung,
        batches: t.batches,
        figures: Figures::of(&t.sums, objective),
    }
}

/// The recommendation of one budget: the finalist best on the tuning set that meets the constraints on the
/// validation set, when its gain over the reference holds there (the interval's low end above 0); otherwise the
/// reference, saying why.
fn recommend(validated: &[Validated]) -> Recommendation {
    let reference = &validated[0];
    let mut ranked: Vec<&Validated> = validated
        .iter()
        .filter(|v| v.tuning_rank.is_some())
        .collect();
    ranked.sort_by_key(|v| v.tuning_rank);
    let Some(top) = ranked.iter().find(|v| v.meets_constraints) else {
        return Recommendation {
            strategy: reference.strategy.clone(),
            beats_reference: false,
            note: "no finalist met the constraints on the validation set: keep the reference"
                .into(),
        };
    };
    if top.reference {
        return Recommendation {
            strategy: reference.strategy.clone(),
            beats_reference: false,
            note: "the reference ranked first on the tuning set: keep it".into(),
        };
    }
    match top.gain_interval {
        Some([lo, hi]) if lo > 0.0 => Recommendation {
            strategy: top.strategy.clone(),
            beats_reference: true,
            note: format!(
                "gain over the reference on the validation set {} (95% interval {} to {})",
                super::signed_points(top.gain.unwrap_or(0.0)),
                super::signed_points(lo),
                super::signed_points(hi)
            ),
        },
        Some([lo, hi]) if lo == 0.0 && hi == 0.0 => Recommendation {
            strategy: reference.strategy.clone(),
            beats_reference: false,
            note: format!(
                "{} led on the tuning set, but keeps exactly as much as the reference on the validation set: keep the reference",
                top.strategy
            ),
        },
        Some([lo, hi]) => Recommendation {
            strategy: reference.strategy.clone(),
            beats_reference: false,
            note: format!(
                "{} led on the tuning set, but its gain does not hold on the validation set (95% interval {} to {}): keep the reference",
                top.strategy,
                super::signed_points(lo),
                super::signed_points(hi)
            ),
        },
        None => Recommendation {
            strategy: reference.strategy.clone(),
            beats_reference: false,
            note: format!(
                "{} led on the tuning set, but the validation set has nothing to measure its gain on: keep the reference",
                top.strategy
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_is_seeded_disjoint_and_whole() {
        let (t, v) = split(100, 0.3, Seed(1), "w");
        assert_eq!((t.len(), v.len()), (70, 30));
        let mut all: Vec<u64> = t.iter().chain(&v).copied().collect();
        all.sort();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
        assert_eq!(split(100, 0.3, Seed(1), "w"), (t.clone(), v.clone()));
        assert_ne!(split(100, 0.3, Seed(2), "w").1, v);
        assert_eq!(split(1, 0.3, Seed(1), "w"), (vec![0], vec![]));
        assert_eq!(split(2, 0.01, Seed(1), "w").1.len(), 1);
    }

    #[test]
    fn rungs_keep_a_third_on_three_times_the_batches() {
        assert_eq!(
            rungs(240, 700),
            [(240, 8), (80, 25), (27, 77), (9, 233), (3, 700)]
        );
        assert_eq!(rungs(2, 40), [(2, 40)]);
        assert_eq!(rungs(10, 10), [(10, 6), (4, 6), (3, 10)]);
    }
}
