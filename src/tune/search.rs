//! The search: per workload, a split of its batches by group into folds ([`super::group::folds`]; fold 0 is the
//! validation set); per fold and budget, a noise-aware successive halving over nested samples of the fold's
//! tuning set (the other folds). Each fold's searches choose a family (the one gaining most over the reference
//! summed over the budgets, `choose_family`), whose best setting at a budget runs with the reference on the
//! fold's held-out batches; fold 0's finalists and chosen setting run on the validation set, and the chosen
//! family is checked under resampling of the tuning set. The recommendation (`recommend`) needs every fold to
//! agree and the gain pooled over every held-out batch to hold.
//!
//! Rungs: the reference runs first on every tuning batch, which says how many objective events (needles and
//! used lines in results longer than the budget, fields for retention) each batch holds. The last rung is the
//! whole tuning set; each rung before it is the shortest prefix of the tuning set (in the split's shuffled order)
//! holding a third of the next rung's events, and at least [`MIN_RUNG_EVENTS`] of them and [`FIRST_SAMPLE`]
//! batches: a sample is as large as the evidence it must hold, not a number of batches. The samples are nested,
//! so a setting that goes on adds batches to its tally.
//!
//! A rung ranks its settings by whether they keep the design's contract and meet the constraints, then by the
//! objective, then by the figures the objective does not weigh, then by fewer writes, then by the order of the
//! candidates (the reference first, then each family's plain form): equal settings keep the simplest. The cut is
//! the setting at a third of the ranking; a rung keeps every setting ranked above it and every one whose paired
//! 95% interval against it reaches it (the objective's difference, summed over the sample's groups, plus 1.96
//! times its standard error is not below 0): a setting the sample cannot tell from the cut is never dropped by
//! chance. The search has a budget of evaluations, [`EVALUATION_FACTOR`] times what a halving keeping a third
//! would run; when keeping every such setting would overrun it, the rung keeps the best it can pay for and the
//! search says so.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::group;
use super::score::{Objective, Paired, Sums, TurnFacts};
use super::space::Candidate;
use super::{
    CellTune, Constraints, CrossFit, Figures, FoldReport, Recommendation, RungReport, SearchReport,
    SettingReport, Stability, TunePlan, Validated, WorkloadTune,
};
use crate::digest::KnownDigests;
use crate::finalize::Finalizer;
use crate::generate::GeneratedBatch;
use crate::rng::Stream;
use crate::run::cost::{Measured, SAMPLES};
use crate::run::{known_digests, measure_turn_with, Workload};
use crate::scenario::ScenarioBudget;

/// A rung's cut is at this share of its ranking (one in three).
pub const ETA: usize = 3;

/// The settings of a budget that reach the validation set (besides the reference).
pub const FINALISTS: usize = 3;

/// The fewest tuning batches of the first rung (or all there are, when fewer).
pub const FIRST_SAMPLE: usize = 6;

/// The fewest objective events a rung's sample holds (or all the tuning set holds, when fewer).
pub const MIN_RUNG_EVENTS: u64 = 100;

/// The search's budget of evaluations, in multiples of what a halving keeping a third at each rung would run.
pub const EVALUATION_FACTOR: u64 = 3;

/// The resamples of the tuning set the winner must hold in.
pub const STABILITY_RESAMPLES: usize = 5;

/// Of which it must win at least this many.
pub const STABILITY_WINS: usize = 4;

/// The normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.96;

/// How many times cheaper (by measured cost over the floor) a finalist tied with the leader must be to be
/// recommended instead: timings of one run vary by tens of percent on a shared machine.
pub const CLEARLY_CHEAPER: f64 = 2.0;

/// The settings each rung plans to run, a third fewer each time down to [`FINALISTS`].
fn planned_counts(settings: usize) -> Vec<usize> {
    let mut counts = vec![settings];
    while *counts.last().expect("one") > FINALISTS {
        let c = *counts.last().expect("one");
        counts.push(c.div_ceil(ETA).max(FINALISTS));
    }
    counts
}

/// The rungs of a search of `settings` settings on tuning batches holding `events` objective events each (in
/// the tuning set's order): (settings planned, batches in the sample) per rung; the last runs on every tuning
/// batch. Rungs whose sample would not grow are left out.
pub fn rungs(settings: usize, events: &[u64]) -> Vec<(usize, usize)> {
    let counts = planned_counts(settings);
    let n = events.len();
    let total: u64 = events.iter().sum();
    let last = counts.len() - 1;
    let mut cumulative = Vec::with_capacity(n);
    let mut sum = 0u64;
    for e in events {
        sum += e;
        cumulative.push(sum);
    }
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (r, &c) in counts.iter().enumerate() {
        let sample = if r == last {
            n
        } else {
            let target = (total / (ETA as u64).pow((last - r) as u32)).max(MIN_RUNG_EVENTS);
            let prefix = cumulative.partition_point(|&s| s < target) + 1;
            prefix.max(FIRST_SAMPLE).min(n)
        };
        match out.last_mut() {
            // A sample no larger than the last rung's tells nothing new: the later rung's plan replaces it.
            Some(prev) if prev.1 >= sample => *prev = (prev.0, prev.1.max(sample)),
            _ => out.push((c, sample)),
        }
    }
    if let Some(l) = out.last_mut() {
        l.1 = n;
    }
    out
}

/// The turns a halving keeping a third runs on `rungs` (the reference's excepted: it runs first on all).
fn classic_turns(rungs: &[(usize, usize)]) -> u64 {
    let mut done = 0usize;
    let mut turns = 0u64;
    for &(settings, batches) in rungs {
        turns += (settings.saturating_sub(1) * (batches - done)) as u64;
        done = batches;
    }
    turns
}

/// The progress a search of `candidates` settings over `cells` budgets plans to report, before the events are
/// known (a rung a third of the batches of the next): the reference on every tuning batch, every rung's settings
/// on its new batches, then the finalists on the validation set. The search adds what it runs beyond it.
pub fn planned_turns(candidates: usize, tuning: usize, validation: usize, cells: usize) -> u64 {
    let counts = planned_counts(candidates);
    let last = counts.len() - 1;
    let batch_rungs: Vec<(usize, usize)> = counts
        .iter()
        .enumerate()
        .map(|(r, &c)| {
            let n = tuning / ETA.pow((last - r) as u32).max(1);
            (c, n.max(FIRST_SAMPLE).min(tuning))
        })
        .collect();
    let turns = tuning as u64
        + classic_turns(&batch_rungs)
        + ((FINALISTS.min(candidates) + 1) * validation) as u64;
    turns * cells as u64
}

/// Searches one workload at each of its budgets; `progress` gets the turns run, and the turns added to the plan.
pub(super) fn tune_workload(
    plan: &TunePlan,
    workload: &Workload,
    progress: &(dyn Fn(Step) + Sync),
) -> crate::error::Result<WorkloadTune> {
    let (groups, mut split_report) = group::workload_groups(workload, plan.group_by)?;
    let (tuning, validation) = group::split(
        &groups,
        plan.validation,
        plan.seed,
        &workload.info.name,
        &mut split_report,
    );
    let finalizers: Vec<Box<dyn Finalizer>> = plan
        .candidates
        .iter()
        .map(|c| c.name.build_with(&workload.strategy_config))
        .collect();
    let name = &workload.info.name;
    let folds = group::folds(&groups, plan.validation, plan.seed, name);
    let fold_tunings: Vec<Vec<u64>> = (0..folds.len())
        .map(|k| match k {
            0 => tuning.clone(),
            _ => group::fold_tuning(&groups, plan.validation, plan.seed, name, &folds, k),
        })
        .collect();
    let planned = planned_turns(plan.candidates.len(), tuning.len(), validation.len(), 1)
        + fold_tunings[1..]
            .iter()
            .zip(&folds[1..])
            .map(|(t, f)| planned_turns(plan.candidates.len(), t.len(), 0, 1) + 2 * f.len() as u64)
            .sum::<u64>();
    let mut cells: Vec<Cell> = workload
        .info
        .budgets
        .iter()
        .map(|budget| Cell {
            plan,
            workload,
            finalizers: &finalizers,
            budget,
            groups: &groups,
            progress,
            planned_left: planned,
        })
        .collect();
    // Every fold's search at every budget; fold 0's kept whole (it is reported), the others' best settings per
    // family.
    let mut primary: Vec<Searched> = Vec::new();
    let mut bests: Vec<Vec<FamilyBests>> = Vec::new();
    for (k, fold_tuning) in fold_tunings.iter().enumerate() {
        let mut fold_bests = Vec::new();
        for cell in &mut cells {
            let searched = cell.search(fold_tuning);
            fold_bests.push(searched.family_bests(plan));
            if k == 0 {
                primary.push(searched);
            }
        }
        bests.push(fold_bests);
    }
    let families: Vec<Option<String>> = bests
        .iter()
        .map(|b| choose_family(b, plan.candidates.len()))
        .collect();
    let stabilities = family_stability(plan, &primary, &bests[0], families[0].as_deref());
    let cells = cells
        .iter_mut()
        .zip(primary)
        .zip(stabilities)
        .enumerate()
        .map(|(b, ((cell, searched), stability))| {
            let chosen_in = |k: usize| {
                families[k]
                    .as_ref()
                    .and_then(|f| bests[k][b].get(f))
                    .map(|&(c, _)| c)
            };
            let others: Vec<FoldEvidence> = (1..folds.len())
                .map(|k| {
                    let strategy = chosen_in(k);
                    let batches = match strategy {
                        Some(c) => {
                            let mut run = cell.run(&[0, c], &folds[k]);
                            let setting = run.pop().expect("two runs");
                            let reference = run.pop().expect("two runs");
                            folds[k]
                                .iter()
                                .zip(setting.into_iter().zip(reference))
                                .map(|(&i, (x, r))| (groups[i as usize], x, r))
                                .collect()
                        }
                        None => Vec::new(),
                    };
                    FoldEvidence {
                        family: families[k].clone(),
                        strategy,
                        batches,
                    }
                })
                .collect();
            let out = cell.finish(
                searched,
                &tuning,
                &validation,
                chosen_in(0),
                stability,
                families[0].clone(),
                others,
            );
            if cell.planned_left > 0 {
                progress(Step::Done(cell.planned_left));
            }
            out
        })
        .collect();
    Ok(WorkloadTune {
        name: workload.info.name.clone(),
        source: workload.info.source,
        digest: workload.info.digest.clone(),
        batches: workload.info.batches,
        tuning: tuning.len() as u64,
        validation: validation.len() as u64,
        split: split_report,
        cells,
    })
}

/// What a rung's search reports: turns run, or turns added to the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// This many more turns were run.
    Done(u64),
    /// This many turns were added to the plan (the search ran more than planned).
    More(u64),
}

/// One budget's search.
struct Cell<'a> {
    plan: &'a TunePlan,
    workload: &'a Workload,
    finalizers: &'a [Box<dyn Finalizer>],
    budget: &'a ScenarioBudget,
    groups: &'a [u64],
    progress: &'a (dyn Fn(Step) + Sync),
    planned_left: u64,
}

/// One turn: its sums, and its (strategy, floor) nanoseconds when timed.
fn turn(
    workload: &Workload,
    generated: &GeneratedBatch,
    budget: &ScenarioBudget,
    finalizer: &dyn Finalizer,
    known: &Arc<KnownDigests>,
) -> Sums {
    let (metrics, facts) = measure_turn_with(
        workload,
        generated,
        budget,
        finalizer,
        Some(known),
        |record, reminders| TurnFacts::of(generated, record, reminders, budget.units),
    );
    Sums::of(&metrics, &facts)
}

impl Cell<'_> {
    /// Says `n` turns are about to run: the plan grows when they go beyond it.
    fn account(&mut self, n: u64) {
        let within = n.min(self.planned_left);
        self.planned_left -= within;
        if n > within {
            (self.progress)(Step::More(n - within));
        }
    }

    /// Each of `settings`' sums on each of `batches` (per setting, in batch order).
    fn run(&mut self, settings: &[usize], batches: &[u64]) -> Vec<Vec<Sums>> {
        self.account((settings.len() * batches.len()) as u64);
        let (workload, budget, finalizers, progress) =
            (self.workload, self.budget, self.finalizers, self.progress);
        let per_batch: Vec<Vec<Sums>> = batches
            .par_iter()
            .map(|&index| {
                let generated = workload.batch(index);
                // Every setting of the batch shares its digests.
                let known = known_digests(&generated.batch);
                let out = settings
                    .iter()
                    .map(|&c| turn(workload, &generated, budget, finalizers[c].as_ref(), &known))
                    .collect();
                progress(Step::Done(settings.len() as u64));
                out
            })
            .collect();
        (0..settings.len())
            .map(|k| per_batch.iter().map(|b| b[k]).collect())
            .collect()
    }

    /// The noise-aware halving on `tuning` (see the module).
    fn search(&mut self, tuning: &[u64]) -> Searched {
        let plan = self.plan;
        let objective = &plan.objective;
        let constraints = &plan.constraints;
        let candidates = &plan.candidates;
        // Per setting, its sums on each tuning batch it ran on (a prefix of the tuning set).
        let mut per: Vec<Vec<Sums>> = vec![Vec::new(); candidates.len()];
        per[0] = self.run(&[0], tuning).remove(0);
        let events: Vec<u64> = per[0].iter().map(|s| objective.events(s)).collect();
        let plan_rungs = rungs(candidates.len(), &events);
        let budget_evals = EVALUATION_FACTOR * classic_turns(&plan_rungs);
        let mut spent = 0u64;
        let mut exhausted = false;
        let tuning_groups: Vec<u64> = tuning.iter().map(|&i| self.groups[i as usize]).collect();
        let mut alive: Vec<usize> = (0..candidates.len()).collect();
        let mut rung_reports = Vec::new();
        let mut told_apart = true;
        let mut left_level = 0usize;
        let mut done = 0usize;
        let mut last_rung = vec![0usize; candidates.len()];
        let mut last_ranked = Vec::new();
        for (r, &(_, sample)) in plan_rungs.iter().enumerate() {
            let running: Vec<usize> = alive.iter().copied().filter(|&c| c != 0).collect();
            let new = self.run(&running, &tuning[done..sample]);
            spent += (running.len() * (sample - done)) as u64;
            for (c, sums) in running.iter().zip(new) {
                per[*c].extend(sums);
                last_rung[*c] = r;
            }
            last_rung[0] = r;
            done = sample;
            let tallies: Vec<Sums> = per
                .iter()
                .map(|p| {
                    let mut s = Sums::default();
                    for x in &p[..p.len().min(sample)] {
                        s.add(x, 1);
                    }
                    s
                })
                .collect();
            let ranked = rank(&alive, &tallies, objective, constraints);
            let last = r + 1 == plan_rungs.len();
            let cut = if last {
                FINALISTS.min(ranked.len())
            } else {
                ranked.len().div_ceil(ETA).max(FINALISTS).min(ranked.len())
            };
            let mut keep = kept(
                &ranked,
                cut,
                &per,
                sample,
                &tuning_groups,
                &tallies,
                objective,
                constraints,
            );
            if last {
                last_ranked = ranked.clone();
                // Whether the finalists were told apart from the rest: no other setting reaches the last of them.
                left_level = keep.len().saturating_sub(FINALISTS);
                told_apart = left_level == 0;
                keep.truncate(FINALISTS);
            } else {
                let next = plan_rungs[r + 1].1 - sample;
                let reserve = classic_turns(&plan_rungs[r + 1..])
                    .saturating_sub((plan_rungs[r + 1].0.saturating_sub(1) * next) as u64);
                let affordable =
                    budget_evals.saturating_sub(spent).saturating_sub(reserve) / next.max(1) as u64;
                let allowed = (affordable as usize).max(cut);
                if keep.iter().filter(|&&c| c != 0).count() > allowed {
                    exhausted = true;
                    let mut n = 0;
                    keep.retain(|&c| {
                        if c == 0 {
                            return true;
                        }
                        n += 1;
                        n <= allowed
                    });
                }
            }
            let mut ran: Vec<usize> = alive.clone();
            if !ran.contains(&0) {
                ran.push(0);
            }
            ran.sort_unstable();
            let ran = ran
                .into_iter()
                .map(|c| {
                    let place = ranked.iter().position(|&x| x == c);
                    super::RungSetting {
                        strategy: candidates[c].name.to_string(),
                        place,
                        goes_on: place.is_some() && keep.contains(&c),
                        figures: Figures::of(&tallies[c], objective),
                    }
                })
                .collect();
            rung_reports.push(RungReport {
                ran,
                batches: sample,
                events: events[..sample].iter().sum(),
                settings: alive.len(),
                best: ranked.first().map(|&c| candidates[c].name.to_string()),
                best_objective: ranked.first().and_then(|&c| objective.value(&tallies[c])),
                reference_objective: objective.value(&tallies[0]),
            });
            alive = keep;
        }
        Searched {
            finalists: alive,
            last_ranked,
            per,
            tuning_groups,
            rung_reports,
            last_rung,
            events,
            spent,
            budget_evals,
            exhausted,
            told_apart,
            left_level,
        }
    }

    /// The report of the search `s` on fold 0 (`tuning`, validated on `validation`): the finalists, and the
    /// setting `chosen` when it is not one of them, on the validation set; the recommendation from them, the
    /// stability `stability` of the chosen family and the cross-fitted evidence `cross`.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &mut self,
        s: Searched,
        tuning: &[u64],
        validation: &[u64],
        chosen: Option<usize>,
        stability: Option<Stability>,
        family: Option<String>,
        mut folds: Vec<FoldEvidence>,
    ) -> CellTune {
        let plan = self.plan;
        let objective = &plan.objective;
        let candidates = &plan.candidates;
        let Searched {
            finalists,
            last_ranked,
            per,
            rung_reports,
            last_rung,
            events,
            spent,
            budget_evals,
            exhausted,
            told_apart,
            left_level,
            ..
        } = s;
        let (validated, held_out) = self.validate(
            validation,
            &finalists,
            chosen,
            &last_ranked,
            &per,
            tuning.len(),
        );
        folds.insert(
            0,
            FoldEvidence {
                family: family.clone(),
                strategy: chosen,
                batches: held_out,
            },
        );
        let cross = cross_fit(family, &folds, candidates, objective, &plan.constraints);
        let settings = (0..candidates.len())
            .map(|c| setting_report(&candidates[c], &per[c], last_rung[c], objective))
            .collect();
        let chosen_name = chosen.map(|c| candidates[c].name.to_string());
        let recommendation = recommend(
            &validated,
            chosen_name.as_deref(),
            stability.as_ref(),
            &cross,
        );
        let total_events: u64 = events.iter().sum();
        let note = match (told_apart, exhausted) {
            (true, _) => format!(
                "{} rungs, {} evaluations of a budget of {}; the finalists were told apart from the other settings",
                rung_reports.len(),
                spent,
                budget_evals
            ),
            (false, true) => format!(
                "the evaluation budget ({budget_evals}) ran out before the finalists were told apart: {left_level} more setting(s) could not be told from the last finalist"
            ),
            (false, false) => format!(
                "the tuning set ({total_events} objective events) could not tell {left_level} more setting(s) from the last finalist"
            ),
        };
        CellTune {
            budget: self.budget.label.to_string(),
            units: self.budget.units,
            rungs: rung_reports,
            settings,
            finalists: validated,
            recommendation,
            search: SearchReport {
                evaluations: spent,
                evaluation_budget: budget_evals,
                min_rung_events: MIN_RUNG_EVENTS,
                events: total_events,
                exhausted,
                told_apart,
                note,
            },
            cross_fit: Some(cross),
        }
    }

    /// Runs the finalists (best first) and the reference on the validation batches, timed, and pairs each
    /// finalist's turns with the reference's (resampled by group).
    fn validate(
        &mut self,
        validation: &[u64],
        finalists: &[usize],
        chosen: Option<usize>,
        last_ranked: &[usize],
        per: &[Vec<Sums>],
        tuning: usize,
    ) -> (Vec<Validated>, Vec<(u64, Sums, Sums)>) {
        let plan = self.plan;
        let mut runs: Vec<usize> = vec![0];
        runs.extend(finalists.iter().copied().filter(|&c| c != 0));
        if let Some(c) = chosen.filter(|c| !runs.contains(c)) {
            runs.push(c);
        }
        self.account((runs.len() * validation.len()) as u64);
        let (workload, budget, finalizers, progress) =
            (self.workload, self.budget, self.finalizers, self.progress);
        // Per batch, per run: the sums and the (strategy, floor) nanoseconds.
        let per_batch: Vec<Vec<(Sums, u64, u64)>> = validation
            .par_iter()
            .map(|&index| {
                let generated = workload.batch(index);
                // As in a run, the reference and the finalists share the batch's digests.
                let known = known_digests(&generated.batch);
                let out = runs
                    .iter()
                    .map(|&c| {
                        let measured =
                            Measured::new(finalizers[c].as_ref(), 1).with_samples(SAMPLES);
                        let sums = turn(workload, &generated, budget, &measured, &known);
                        let (strategy_ns, floor_ns) = measured.totals();
                        (sums, strategy_ns, floor_ns)
                    })
                    .collect();
                progress(Step::Done(runs.len() as u64));
                out
            })
            .collect();
        let mut reference_sums = Sums::default();
        for batch in &per_batch {
            reference_sums.add(&batch[0].0, 1);
        }
        let objective = &plan.objective;
        let held_out: Vec<(u64, Sums, Sums)> =
            match chosen.and_then(|c| runs.iter().position(|&r| r == c)) {
                Some(k) => validation
                    .iter()
                    .zip(&per_batch)
                    .map(|(&index, batch)| (self.groups[index as usize], batch[k].0, batch[0].0))
                    .collect(),
                None => Vec::new(),
            };
        let mut out = Vec::new();
        for (k, &c) in runs.iter().enumerate() {
            let mut sums = Sums::default();
            let mut paired = Paired::default();
            let (mut strategy_ns, mut floor_ns) = (0u64, 0u64);
            for (&index, batch) in validation.iter().zip(&per_batch) {
                let (s, sn, fl) = &batch[k];
                sums.add(s, 1);
                paired.add(self.groups[index as usize], s, &batch[0].0);
                strategy_ns = strategy_ns.saturating_add(*sn);
                floor_ns = floor_ns.saturating_add(*fl);
            }
            let cost_ratio = (floor_ns > 0).then(|| strategy_ns as f64 / floor_ns as f64);
            let candidate = &plan.candidates[c];
            let gain = match (objective.value(&sums), objective.value(&reference_sums)) {
                (Some(a), Some(b)) if c != 0 => Some(a - b),
                _ => None,
            };
            let mut tuning_sums = Sums::default();
            for s in &per[c][..per[c].len().min(tuning)] {
                tuning_sums.add(s, 1);
            }
            out.push(Validated {
                strategy: candidate.name.to_string(),
                family: candidate.family.clone(),
                reference: c == 0,
                tuning_rank: (finalists.contains(&c) || Some(c) == chosen)
                    .then(|| last_ranked.iter().position(|&f| f == c))
                    .flatten(),
                tuning: Figures::of(&tuning_sums, objective),
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
        (out, held_out)
    }
}

/// What a setting is ranked by, best greatest: whether it keeps the contract and meets the constraints, its
/// objective, the figures the objective does not weigh (so that among settings that keep every needle, the one
/// keeping more of the text ranks first), and fewer writes.
fn rank_key(
    s: &Sums,
    objective: &Objective,
    c: &Constraints,
) -> (bool, Option<f64>, Option<f64>, u64) {
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
fn rank(alive: &[usize], tallies: &[Sums], objective: &Objective, c: &Constraints) -> Vec<usize> {
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

/// The upper end of the paired 95% interval of `a`'s objective minus `b`'s on the first `sample` tuning batches
/// (in groups `groups`): the batches' differences summed by group, their total plus [`Z95`] standard errors of
/// it. `None` (nothing tells them apart) when the objective has nothing to measure or there is one group.
pub fn paired_upper(a: &[Sums], b: &[Sums], groups: &[u64], objective: &Objective) -> Option<f64> {
    let mut totals = Sums::default();
    for s in b {
        totals.add(s, 1);
    }
    let mut by_group: BTreeMap<u64, f64> = BTreeMap::new();
    for ((x, y), &g) in a.iter().zip(b).zip(groups) {
        let d = objective.linear(x, &totals)? - objective.linear(y, &totals)?;
        *by_group.entry(g).or_insert(0.0) += d;
    }
    let n = by_group.len();
    if n < 2 {
        return None;
    }
    let total: f64 = by_group.values().sum();
    let mean = total / n as f64;
    let var: f64 =
        by_group.values().map(|d| (d - mean).powi(2)).sum::<f64>() * n as f64 / (n - 1) as f64;
    Some(total + Z95 * var.sqrt())
}

/// Whether the tuning batches (in groups `groups`) cannot tell `a` from the better `b`: the paired 95% interval
/// of `a`'s objective minus `b`'s reaches zero ([`paired_upper`]), or nothing tells them apart.
fn not_told_apart(a: &[Sums], b: &[Sums], groups: &[u64], objective: &Objective) -> bool {
    paired_upper(a, b, groups, objective).is_none_or(|upper| upper >= -1e-12)
}

/// The settings a rung keeps, best first: the `cut` best of `ranked`, and every later one that meets the
/// contract and the constraints as the last of them does and whose paired interval against it reaches it.
#[allow(clippy::too_many_arguments)]
fn kept(
    ranked: &[usize],
    cut: usize,
    per: &[Vec<Sums>],
    sample: usize,
    groups: &[u64],
    tallies: &[Sums],
    objective: &Objective,
    c: &Constraints,
) -> Vec<usize> {
    let mut keep: Vec<usize> = ranked[..cut].to_vec();
    let Some(&last) = keep.last() else {
        return keep;
    };
    let last_allows = c.allows(&tallies[last]);
    for &s in &ranked[cut..] {
        let reaches = c.allows(&tallies[s]) == last_allows
            && not_told_apart(
                &per[s][..sample],
                &per[last][..sample],
                &groups[..sample],
                objective,
            );
        if reaches {
            keep.push(s);
        }
    }
    keep
}

/// Per family, its best setting on a search's last rung (the candidate) and that setting's gain over the
/// reference on the whole tuning set.
type FamilyBests = BTreeMap<String, (usize, f64)>;

/// What a search on one fold's tuning set leaves.
struct Searched {
    /// The settings that reach the validation set, best first.
    finalists: Vec<usize>,
    /// The last rung's ranking (every setting that ran on the whole tuning set), best first.
    last_ranked: Vec<usize>,
    /// Per setting, its sums on each tuning batch it ran on (a prefix of the tuning set).
    per: Vec<Vec<Sums>>,
    /// The group of each tuning batch.
    tuning_groups: Vec<u64>,
    rung_reports: Vec<RungReport>,
    last_rung: Vec<usize>,
    events: Vec<u64>,
    spent: u64,
    budget_evals: u64,
    exhausted: bool,
    told_apart: bool,
    left_level: usize,
}

/// The sum of `per`, each weighed by its group's weight in `weight` (1 when `None`).
fn total(per: &[Sums], groups: &[u64], weight: Option<&dyn Fn(u64) -> u64>) -> Sums {
    let mut s = Sums::default();
    for (x, &g) in per.iter().zip(groups) {
        s.add(x, weight.map_or(1, |w| w(g)));
    }
    s
}

impl Searched {
    /// Per family, its setting on the last rung: the best of the last rung's ranking that keeps the contract and
    /// meets the constraints on the whole tuning set, unless the family's plain form (its documented defaults)
    /// also reached the last rung, meets them too and the tuning set cannot tell it from that best (the paired
    /// 95% interval of the plain form minus the best reaches zero, as a rung's cut judges): then the plain form,
    /// the simplest setting the evidence allows, so that a setting picked from a crowd of near-ties by noise is
    /// not what a small tuning set recommends. With its gain over the reference there (families with no setting
    /// are absent).
    fn family_bests(&self, plan: &TunePlan) -> FamilyBests {
        let n = self.tuning_groups.len();
        let reference = total(&self.per[0], &self.tuning_groups, None);
        let ran = |c: usize| c != 0 && self.per[c].len() >= n;
        let allowed = |c: usize| {
            plan.constraints
                .allows(&total(&self.per[c], &self.tuning_groups, None))
        };
        let mut out = FamilyBests::new();
        for &c in &self.last_ranked {
            if !ran(c) {
                continue;
            }
            let family = &plan.candidates[c].family;
            if out.contains_key(family) || !allowed(c) {
                continue;
            }
            let plain = self.last_ranked.iter().copied().find(|&d| {
                d != c
                    && ran(d)
                    && plan.candidates[d].family == *family
                    && plan.candidates[d].name.as_str() == family.as_str()
            });
            let chosen = match plain {
                Some(d)
                    if allowed(d)
                        && not_told_apart(
                            &self.per[d][..n],
                            &self.per[c][..n],
                            &self.tuning_groups,
                            &plan.objective,
                        ) =>
                {
                    d
                }
                _ => c,
            };
            let sums = total(&self.per[chosen], &self.tuning_groups, None);
            if let (Some(x), Some(r)) = (
                plan.objective.value(&sums),
                plan.objective.value(&reference),
            ) {
                out.insert(family.clone(), (chosen, x - r));
            }
        }
        out
    }
}

/// The family a fold's searches choose: the one whose best settings gain most over the reference on its tuning
/// set, summed over the budgets (a family with no setting on a budget's last rung adds nothing there; ties go to
/// the family whose best setting comes first among the candidates); `None` when no family gains.
fn choose_family(bests: &[FamilyBests], candidates: usize) -> Option<String> {
    let mut pooled: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for b in bests {
        for (family, &(c, gain)) in b {
            let e = pooled.entry(family.as_str()).or_insert((0.0, candidates));
            e.0 += gain;
            e.1 = e.1.min(c);
        }
    }
    pooled
        .into_iter()
        .filter(|(_, (gain, _))| *gain > 0.0)
        .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)))
        .map(|(f, _)| f.to_string())
}

/// How the chosen family's setting holds under resampling of fold 0's tuning set, per budget: in how many of
/// [`STABILITY_RESAMPLES`] seeded resamples (whole groups drawn with Poisson weights) the family's setting at
/// this budget (fixed as the search found it) keeps the constraints and beats the reference. Whether the family
/// itself is what the evidence chooses is the cross-fit's question (every fold's search, on its own tuning set,
/// must choose it). `None` at a budget where the family has no setting.
fn family_stability(
    plan: &TunePlan,
    searched: &[Searched],
    bests: &[FamilyBests],
    family: Option<&str>,
) -> Vec<Option<Stability>> {
    let Some(family) = family else {
        return searched.iter().map(|_| None).collect();
    };
    let Some(first) = searched.first() else {
        return Vec::new();
    };
    let groups = &first.tuning_groups;
    let weights: BTreeMap<u64, [u8; STABILITY_RESAMPLES]> = groups
        .iter()
        .map(|&g| {
            let mut stream = Stream::derive(plan.seed, "tune/stability", g);
            (g, std::array::from_fn(|_| stream.poisson_one()))
        })
        .collect();
    let objective = &plan.objective;
    searched
        .iter()
        .zip(bests)
        .map(|(s, best)| {
            let &(c, _) = best.get(family)?;
            let wins = (0..STABILITY_RESAMPLES)
                .filter(|&k| {
                    let w = |g: u64| u64::from(weights[&g][k]);
                    let sums = total(&s.per[c], groups, Some(&w));
                    let reference = total(&s.per[0], groups, Some(&w));
                    plan.constraints.allows(&sums)
                        && objective
                            .value(&sums)
                            .zip(objective.value(&reference))
                            .is_some_and(|(x, r)| x - r > 0.0)
                })
                .count();
            Some(Stability {
                strategy: plan.candidates[c].name.to_string(),
                wins,
                resamples: STABILITY_RESAMPLES,
                needed: STABILITY_WINS,
            })
        })
        .collect()
}

/// One fold's held-out evidence: the family its searches chose, its setting at this budget, and per held-out
/// batch its group, the setting's sums and the reference's.
struct FoldEvidence {
    family: Option<String>,
    strategy: Option<usize>,
    batches: Vec<(u64, Sums, Sums)>,
}

/// The cross-fitted evidence at one budget: each fold's chosen setting against the reference on the fold's
/// held-out batches, and, when every fold chose `family`, the pooled gain with its paired bootstrap interval
/// over the groups of every fold.
fn cross_fit(
    family: Option<String>,
    folds: &[FoldEvidence],
    candidates: &[Candidate],
    objective: &Objective,
    constraints: &Constraints,
) -> CrossFit {
    let mut reports = Vec::new();
    let mut paired = Paired::default();
    let (mut xs, mut rs) = (Sums::default(), Sums::default());
    for f in folds {
        let (mut x, mut r) = (Sums::default(), Sums::default());
        let mut groups = std::collections::BTreeSet::new();
        for (g, a, b) in &f.batches {
            x.add(a, 1);
            r.add(b, 1);
            paired.add(*g, a, b);
            groups.insert(*g);
        }
        xs.add(&x, 1);
        rs.add(&r, 1);
        let mut breaks = Figures::of(&x, objective).breaks;
        if breaks.is_empty() && f.strategy.is_some() && !constraints.allows(&x) {
            breaks.push("constraints not met".into());
        }
        reports.push(FoldReport {
            family: f.family.clone(),
            strategy: f.strategy.map(|c| candidates[c].name.to_string()),
            batches: f.batches.len() as u64,
            groups: groups.len() as u64,
            gain: f
                .strategy
                .and_then(|_| Some(objective.value(&x)? - objective.value(&r)?)),
            breaks,
        });
    }
    let agreed = family.is_some()
        && folds
            .iter()
            .all(|f| f.family == family && f.strategy.is_some());
    let (gain, gain_interval) = if agreed {
        (
            objective
                .value(&xs)
                .zip(objective.value(&rs))
                .map(|(a, b)| a - b),
            paired.interval(objective).map(|(lo, hi)| [lo, hi]),
        )
    } else {
        (None, None)
    };
    CrossFit {
        family,
        agreed,
        folds: reports,
        gain,
        gain_interval,
    }
}

/// What a setting's search tally reports.
fn setting_report(
    candidate: &Candidate,
    per: &[Sums],
    rung: usize,
    objective: &Objective,
) -> SettingReport {
    let mut sums = Sums::default();
    for s in per {
        sums.add(s, 1);
    }
    SettingReport {
        strategy: candidate.name.to_string(),
        family: candidate.family.clone(),
        rung,
        batches: per.len(),
        figures: Figures::of(&sums, objective),
    }
}

/// The recommendation of one budget: the setting `chosen` (fold 0's setting of the family its searches chose, as
/// [`Searched::family_bests`] picks it; among finalists tied with it on both sets' objective, one clearly cheaper), when it meets the
/// contract and the constraints on the validation set, every fold's searches chose its family, its gain over the
/// reference is above 0 on every held-out fold and the low end of the pooled interval `cross` is above 0, and
/// it beats the reference in enough resamples of the tuning set; otherwise the reference, saying why.
fn recommend(
    validated: &[Validated],
    chosen: Option<&str>,
    stability: Option<&Stability>,
    cross: &CrossFit,
) -> Recommendation {
    let reference = &validated[0];
    let keep = |note: String| Recommendation {
        strategy: reference.strategy.clone(),
        beats_reference: false,
        cost_ratio: reference.cost_ratio,
        stability: stability.cloned(),
        note,
    };
    let Some(first) = chosen.and_then(|c| validated.iter().find(|v| v.strategy == c)) else {
        return keep(match &cross.family {
            None => "no family gains over the reference on the tuning set: keep the reference".into(),
            Some(f) => format!(
                "{f} gains most on the tuning set over the budgets, but none of its settings is left at this budget: keep the reference"
            ),
        });
    };
    if !first.meets_constraints {
        return keep(format!(
            "{} did not keep the contract and meet the constraints on the validation set: keep the reference",
            first.strategy
        ));
    }
    // Among the finalists tied with it on both sets, a clearly cheaper one (its measured cost at most
    // 1/CLEARLY_CHEAPER of the chosen one's; a smaller difference is timing noise, and the choice stands, so
    // that the answer does not change from one run to the next).
    let cost = |v: &Validated| v.cost_ratio.unwrap_or(f64::INFINITY);
    let top = validated
        .iter()
        .filter(|v| {
            v.meets_constraints
                && !v.reference
                && v.tuning_rank.is_some()
                && v.tuning.objective == first.tuning.objective
                && v.validation.objective == first.validation.objective
                && cost(v) * CLEARLY_CHEAPER <= cost(first)
        })
        .min_by(|a, b| cost(a).total_cmp(&cost(b)))
        .unwrap_or(first);
    let family = cross.family.clone().unwrap_or_default();
    if let Some(k) = cross
        .folds
        .iter()
        .position(|f| f.family == cross.family && f.strategy.is_none())
    {
        return keep(format!(
            "no stable winner: the search of held-out fold {} of {} left no {family} setting at this budget (nothing there to measure it on): keep the reference",
            k + 1,
            cross.folds.len()
        ));
    }
    if !cross.agreed {
        let chose: Vec<String> = cross
            .folds
            .iter()
            .map(|f| f.family.clone().unwrap_or_else(|| "none".into()))
            .collect();
        return keep(format!(
            "no stable winner: the searches of the {} folds chose different families ({}): keep the reference",
            cross.folds.len(),
            chose.join(", ")
        ));
    }
    if let Some((k, f)) = cross
        .folds
        .iter()
        .enumerate()
        .find(|(_, f)| !f.breaks.is_empty())
    {
        return keep(format!(
            "{} broke the design's contract or the constraints on held-out fold {} ({}): keep the reference",
            f.strategy.clone().unwrap_or_default(),
            k + 1,
            f.breaks.join(", ")
        ));
    }
    match top.gain_interval {
        Some([lo, hi]) if lo == 0.0 && hi == 0.0 => {
            return keep(format!(
                "{} led on the tuning set, but keeps exactly as much as the reference on the validation set: keep the reference",
                top.strategy
            ))
        }
        Some([lo, hi]) if top.gain.is_some_and(|g| g <= 0.0) => {
            return keep(format!(
                "no stable winner: {} led on the tuning set, but its gain does not hold on the validation set (95% interval {} to {}): keep the reference",
                top.strategy,
                super::signed_points(lo),
                super::signed_points(hi)
            ))
        }
        _ => {}
    }
    if let Some((k, f)) = cross
        .folds
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, f)| f.gain.is_some_and(|g| g <= 0.0))
    {
        return keep(format!(
            "no stable winner: {family}'s gain does not hold on held-out fold {} of {} ({} for {}): keep the reference",
            k + 1,
            cross.folds.len(),
            super::signed_points(f.gain.unwrap_or(0.0)),
            f.strategy.clone().unwrap_or_default()
        ));
    }
    let held_out = |lo: f64, hi: f64| {
        format!(
            "gain over the reference on the held-out folds {} (95% paired interval {} to {}; every batch held out once, each fold's {family} setting found by a search on the other folds)",
            super::signed_points(cross.gain.unwrap_or(0.0)),
            super::signed_points(lo),
            super::signed_points(hi)
        )
    };
    let [lo, hi] = match cross.gain_interval {
        Some([lo, hi]) if lo > 0.0 => [lo, hi],
        Some([lo, hi]) => {
            return keep(format!(
                "no stable winner: {family} led on the tuning set, but its {}, which does not exclude no gain: keep the reference",
                held_out(lo, hi)
            ))
        }
        None => {
            return keep(format!(
                "{} led on the tuning set, but the held-out folds have nothing to measure its gain on: keep the reference",
                top.strategy
            ))
        }
    };
    match stability {
        Some(s) if s.wins >= s.needed => Recommendation {
            strategy: top.strategy.clone(),
            beats_reference: true,
            cost_ratio: top.cost_ratio,
            stability: Some(s.clone()),
            note: format!(
                "{}; it beats the reference in {} of {} resamples of the tuning set",
                held_out(lo, hi),
                s.wins,
                s.resamples
            ),
        },
        Some(s) => keep(format!(
            "no stable winner: {family} gains {} on the held-out folds, but {} beats the reference in only {} of {} resamples of the tuning set (at least {} needed): keep the reference",
            super::signed_points(cross.gain.unwrap_or(0.0)),
            top.strategy,
            s.wins,
            s.resamples,
            s.needed
        )),
        None => keep(format!(
            "no stable winner: {} was not checked under resampling: keep the reference",
            top.strategy
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rungs_follow_the_events_they_hold_with_a_minimum() {
        // 700 batches of 2 events: 1,400 in all. Each rung holds a third of the next one's events (467 in 233
        // batches, 156 in 78), and at least 100 (50 batches): the 80-setting rung would hold 52, so the first
        // rung's 50 batches stand for it and the 27 settings come next.
        let events = vec![2u64; 700];
        assert_eq!(
            rungs(240, &events),
            [(240, 50), (27, 78), (9, 233), (3, 700)]
        );
        // Events only in every tenth batch: the samples grow until they hold them.
        let sparse: Vec<u64> = (0..700).map(|i| u64::from(i % 10 == 9) * 20).collect();
        let r = rungs(240, &sparse);
        assert_eq!(r[0], (240, 50));
        assert_eq!(r.last(), Some(&(3, 700)));
        // Fewer events than the minimum: one rung on the whole tuning set.
        assert_eq!(rungs(240, &[1; 40]), [(240, 40)]);
        assert_eq!(rungs(2, &[5; 40]), [(2, 40)]);
    }

    fn validated(
        strategy: &str,
        rank: Option<usize>,
        gain: Option<[f64; 2]>,
        cost: f64,
    ) -> Validated {
        let figures = Figures {
            objective: Some(0.5 + gain.map_or(0.0, |g| g[0])),
            ..Figures::default()
        };
        Validated {
            strategy: strategy.into(),
            family: strategy.into(),
            reference: strategy == "reference",
            tuning_rank: rank,
            tuning: figures.clone(),
            validation: figures,
            cost_ratio: Some(cost),
            gain: gain.map(|g| g[0]),
            gain_interval: gain,
            meets_constraints: true,
        }
    }

    /// Cross-fitted evidence of three folds that chose family `a`, each gaining `gains[k]`, pooled into
    /// `interval`.
    fn cross(gains: [f64; 3], interval: [f64; 2]) -> CrossFit {
        CrossFit {
            family: Some("a".into()),
            agreed: true,
            folds: gains
                .iter()
                .map(|&g| FoldReport {
                    family: Some("a".into()),
                    strategy: Some("a".into()),
                    batches: 10,
                    groups: 10,
                    gain: Some(g),
                    breaks: Vec::new(),
                })
                .collect(),
            gain: Some((interval[0] + interval[1]) / 2.0),
            gain_interval: Some(interval),
        }
    }

    fn stable(wins: usize) -> Stability {
        Stability {
            strategy: "a".into(),
            wins,
            resamples: STABILITY_RESAMPLES,
            needed: STABILITY_WINS,
        }
    }

    #[test]
    fn a_gain_is_recommended_only_when_it_holds_under_resampling() {
        let v = [
            validated("reference", None, None, 1.0),
            validated("a", Some(0), Some([0.1, 0.2]), 2.0),
        ];
        let c = cross([0.1, 0.2, 0.1], [0.05, 0.2]);
        let r = recommend(&v, Some("a"), Some(&stable(4)), &c);
        assert_eq!((r.strategy.as_str(), r.beats_reference), ("a", true));
        assert_eq!(r.cost_ratio, Some(2.0));
        assert!(r.note.starts_with("gain over the reference on the held-out folds +12.5 pts (95% paired interval +5.0 pts to +20.0 pts"), "{}", r.note);
        let r = recommend(&v, Some("a"), Some(&stable(3)), &c);
        assert_eq!(r.strategy, "reference");
        assert!(
            r.note.starts_with("no stable winner: a gains +12.5 pts on the held-out folds, but a beats the reference in only 3 of 5"),
            "{}",
            r.note
        );
        assert!(r.note.contains("only 3 of 5 resamples"), "{}", r.note);
        // The pooled interval must exclude no gain, and every fold must gain.
        let r = recommend(
            &v,
            Some("a"),
            Some(&stable(5)),
            &cross([0.1, 0.2, 0.1], [-0.01, 0.2]),
        );
        assert_eq!(r.strategy, "reference");
        assert!(
            r.note.contains("which does not exclude no gain"),
            "{}",
            r.note
        );
        let r = recommend(
            &v,
            Some("a"),
            Some(&stable(5)),
            &cross([0.1, 0.2, -0.01], [0.05, 0.2]),
        );
        assert_eq!(r.strategy, "reference");
        assert!(
            r.note.contains("does not hold on held-out fold 3 of 3"),
            "{}",
            r.note
        );
        // Folds that chose different families: no stable winner.
        let mut split = cross([0.1, 0.2, 0.1], [0.05, 0.2]);
        split.agreed = false;
        split.folds[1].family = Some("b".into());
        let r = recommend(&v, Some("a"), Some(&stable(5)), &split);
        assert!(
            r.note.contains("chose different families (a, b, a)"),
            "{}",
            r.note
        );
        // A fold whose search left no setting of the family at this budget is said as such, not as a split vote.
        let mut empty = cross([0.1, 0.2, 0.1], [0.05, 0.2]);
        empty.agreed = false;
        empty.folds[1].strategy = None;
        let r = recommend(&v, Some("a"), Some(&stable(5)), &empty);
        assert_eq!(r.strategy, "reference");
        assert!(
            r.note.starts_with("no stable winner: the search of held-out fold 2 of 3 left no a setting at this budget"),
            "{}",
            r.note
        );
    }

    #[test]
    fn the_family_is_the_one_gaining_most_over_the_budgets() {
        let b = |items: &[(&str, usize, f64)]| -> FamilyBests {
            items
                .iter()
                .map(|&(f, c, g)| (f.to_string(), (c, g)))
                .collect()
        };
        // Rarity leads at the second budget by a little, structure at the first by much: structure.
        let bests = [
            b(&[("structure", 5, 0.12), ("rarity", 9, 0.02)]),
            b(&[("structure", 6, 0.10), ("rarity", 9, 0.11)]),
        ];
        assert_eq!(choose_family(&bests, 20).as_deref(), Some("structure"));
        // A family cut before the last rung at a budget adds nothing there.
        let bests = [b(&[("structure", 5, 0.12)]), b(&[("rarity", 9, 0.11)])];
        assert_eq!(choose_family(&bests, 20).as_deref(), Some("structure"));
        // Equal gains: the family whose best setting comes first among the candidates.
        let bests = [b(&[("uniform", 7, 0.1), ("greedy", 8, 0.1)])];
        assert_eq!(choose_family(&bests, 20).as_deref(), Some("uniform"));
        // No family gains: none.
        let bests = [b(&[("uniform", 7, 0.0), ("greedy", 8, -0.1)])];
        assert_eq!(choose_family(&bests, 20), None);
    }

    #[test]
    fn among_tied_finalists_the_cheaper_wins_and_a_contract_breaker_never_does() {
        let mut v = vec![
            validated("reference", None, None, 1.0),
            validated("a", Some(0), Some([0.1, 0.2]), 3.0),
            validated("b", Some(1), Some([0.1, 0.2]), 1.5),
        ];
        let c = cross([0.1, 0.2, 0.1], [0.05, 0.2]);
        assert_eq!(recommend(&v, Some("a"), Some(&stable(5)), &c).strategy, "b");
        // Cheaper by less than CLEARLY_CHEAPER is timing noise: the tuning rank decides.
        v[2].cost_ratio = Some(2.0);
        assert_eq!(recommend(&v, Some("a"), Some(&stable(5)), &c).strategy, "a");
        v[1].meets_constraints = false;
        v[2].meets_constraints = false;
        let r = recommend(&v, Some("a"), Some(&stable(5)), &c);
        assert_eq!(r.strategy, "reference");
        assert!(r.note.contains("did not keep the contract"), "{}", r.note);
    }

    #[test]
    fn the_contract_is_a_hard_constraint() {
        let c = Constraints::default();
        let ok = Sums {
            turns: 1,
            ..Sums::default()
        };
        assert!(c.allows(&ok));
        for broken in [
            Sums {
                unrecoverable: 1,
                ..ok
            },
            Sums {
                exempt_changed: 1,
                ..ok
            },
            Sums {
                over_budget: 1,
                ..ok
            },
        ] {
            assert!(!c.allows(&broken), "{broken:?}");
            assert_eq!(Figures::of(&broken, &Objective::NEEDLES).breaks.len(), 1);
        }
    }

    #[test]
    fn the_needle_objective_is_taken_over_the_results_longer_than_the_budget() {
        let s = Sums {
            turns: 1,
            survived: 9,
            needles: 10,
            long_survived: 1,
            long_needles: 2,
            ..Sums::default()
        };
        let f = Figures::of(&s, &Objective::NEEDLES);
        assert_eq!(
            (f.objective, f.needles_long, f.needles),
            (Some(0.5), Some(0.5), Some(0.9))
        );
        let short = Sums {
            long_survived: 0,
            long_needles: 0,
            ..s
        };
        assert_eq!(Objective::NEEDLES.value(&short), None);
    }

    #[test]
    fn a_family_takes_its_plain_form_unless_the_tuning_set_tells_its_best_apart() {
        let s = |survived: u64| Sums {
            turns: 1,
            long_survived: survived,
            long_needles: 2,
            needles: 2,
            survived,
            ..Sums::default()
        };
        let name = |n: &str| n.parse::<crate::finalize::StrategyName>().unwrap();
        let plan = TunePlan {
            workloads: Vec::new(),
            families: Vec::new(),
            candidates: vec![
                Candidate {
                    name: crate::finalize::StrategyName::REFERENCE,
                    family: "head-tail-<ratio>".into(),
                },
                Candidate {
                    name: name("structure"),
                    family: "structure".into(),
                },
                Candidate {
                    name: name("structure(head_share=0.5)"),
                    family: "structure".into(),
                },
            ],
            objective: Objective::NEEDLES,
            constraints: Constraints::default(),
            validation: 0.3,
            seed: crate::Seed(1),
            group_by: None,
        };
        let groups: Vec<u64> = (0..20).collect();
        let searched = |plain: Vec<Sums>| Searched {
            finalists: vec![2, 1],
            // The tuned setting leads the last rung, its plain form second.
            last_ranked: vec![2, 1, 0],
            per: vec![
                (0..20).map(|_| s(1)).collect(),
                plain,
                (0..20).map(|_| s(2)).collect(),
            ],
            tuning_groups: groups.clone(),
            rung_reports: Vec::new(),
            last_rung: vec![0; 3],
            events: vec![2; 20],
            spent: 0,
            budget_evals: 0,
            exhausted: false,
            told_apart: true,
            left_level: 0,
        };
        // The plain form loses one needle of 40: the tuning set cannot tell it from the leader, and it is taken,
        // with its own gain over the reference (39 of 40 against 20 of 40).
        let close = searched((0..20).map(|i| s(if i == 3 { 1 } else { 2 })).collect());
        let bests = close.family_bests(&plan);
        assert_eq!(bests["structure"], (1, 39.0 / 40.0 - 0.5));
        // The plain form loses a needle in every group: told apart, the leader stays.
        let far = searched((0..20).map(|_| s(1)).collect());
        assert_eq!(far.family_bests(&plan)["structure"], (2, 0.5));
        // A plain form that did not reach the last rung (cut before it) is never taken.
        let mut cut = searched((0..20).map(|_| s(2)).collect());
        cut.per[1].truncate(6);
        cut.last_ranked = vec![2, 0];
        assert_eq!(cut.family_bests(&plan)["structure"], (2, 0.5));
    }

    #[test]
    fn the_paired_interval_tells_a_steady_difference_from_noise() {
        let s = |survived: u64| Sums {
            turns: 1,
            long_survived: survived,
            long_needles: 2,
            needles: 2,
            survived,
            ..Sums::default()
        };
        let groups: Vec<u64> = (0..20).collect();
        let good: Vec<Sums> = (0..20).map(|_| s(2)).collect();
        let bad: Vec<Sums> = (0..20).map(|_| s(1)).collect();
        let noisy: Vec<Sums> = (0..20).map(|i| s(if i % 2 == 0 { 2 } else { 1 })).collect();
        let o = Objective::NEEDLES;
        assert!(paired_upper(&bad, &good, &groups, &o).unwrap() < 0.0);
        assert_eq!(paired_upper(&good, &good, &groups, &o), Some(0.0));
        assert!(paired_upper(&noisy, &good, &groups, &o).unwrap() < 0.0);
        // One group: nothing is told apart.
        assert_eq!(paired_upper(&bad, &good, &[0; 20], &o), None);
        // Two settings differing on a few batches only: within the noise.
        let mostly: Vec<Sums> = (0..20).map(|i| s(if i == 3 { 1 } else { 2 })).collect();
        assert!(paired_upper(&mostly, &good, &groups, &o).unwrap() >= 0.0);
    }
}
