//! `budgetlab conform`: a conformance suite that holds one finalizer to the contract of
//! final-tool-response-budget.md.
//!
//! A [`ConformJob`] takes any [`Finalizer`] (a built-in strategy, or anything else that implements the trait)
//! and runs it on every case of a [`CaseSet`] (`cases`: hand-made edge cases, the production sample vectors, and
//! batches generated from every shipped scenario), judging each with every [`Check`] (`checks`: one invariant of
//! the design each). The first failing case of each check is shrunk (`shrink`) to a small counterexample and
//! written as a batch file with the `budgetlab finalize` commands that replay it. The [`ConformReport`]
//! (`report`) becomes Markdown, `conform.json` and JUnit XML (`export`). The same seed gives the same cases and
//! the same bytes, whatever the thread count.

mod case;
mod cases;
mod checks;
mod edge_cases;
mod export;
mod invariants;
mod report;
mod shrink;
mod vectors;

#[cfg(test)]
mod tests;

pub use case::{Case, DEFAULT_ARTIFACT_DIR};
pub use cases::{CaseCounts, CaseSet, MAX_GENERATED};
pub use checks::{Check, Run, Trial, Verdict};
pub use edge_cases::edge_cases;
pub use export::{folder_files, json, junit, markdown};
pub use invariants::{
    check_budget, check_integrity, first_difference, names_artifact, non_text_unchanged,
    order_kept, persist_once, reminder_kept, surrogates_intact, NOTE_ROOM,
};
pub use report::{
    shell_quote, CheckResult, ConformReport, Counterexample, Replay, ScenarioDigest, SCHEMA_VERSION,
};
pub use shrink::{shrink, CaseSize, Shrunk, MAX_EVALUATIONS};
pub use vectors::vector_reminders;

use std::path::Path;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::finalize::Finalizer;
use crate::rng::Seed;

/// Why a check or a case that injects failed writes is not run.
pub const NO_PERSIST_FAULTS: &str = "the finalizer does not declare the persist-faults capability";

/// Generated cases a run makes unless told otherwise (`--cases`).
pub const DEFAULT_CASES: u64 = 2_000;

/// The seed of the generated cases unless told otherwise (`--seed`).
pub const DEFAULT_SEED: u64 = 0;

/// Checks a number of generated cases given as `--cases`: 0 (edge cases and vectors only) to [`MAX_GENERATED`].
pub fn check_cases(cases: u64) -> Result<u64> {
    if cases <= MAX_GENERATED {
        Ok(cases)
    } else {
        Err(Error::invalid(
            "--cases",
            cases.to_string(),
            format!("must be between 0 and {MAX_GENERATED}"),
        ))
    }
}

/// Reads `--as`: only `reference` is known (the finalizer is also held to the built-in reference and the
/// production vectors).
pub fn parse_as(value: &str) -> Result<bool> {
    match value {
        "reference" => Ok(true),
        _ => Err(Error::invalid(
            "--as",
            value,
            "the only finalizer conform can hold another to is `reference`",
        )),
    }
}

/// One conformance run.
pub struct ConformJob<'a> {
    /// The finalizer checked.
    pub finalizer: &'a dyn Finalizer,
    /// Its name as `budgetlab finalize --strategy` takes it, for the replay commands.
    pub strategy: String,
    /// Flags the replay commands carry before the others (for a strategy `--strategy` alone cannot name).
    pub finalize_flags: Vec<String>,
    /// How many generated cases, besides the edge cases and the vectors.
    pub cases: u64,
    /// The seed of the generated cases.
    pub seed: Seed,
    /// Whether the finalizer is also held to the built-in reference and the vectors.
    pub as_reference: bool,
    /// The report folder, as the user named it: the replay commands name the counterexamples' files under it.
    pub folder: String,
}

impl ConformJob<'_> {
    /// The cases the job runs.
    pub fn case_set(&self) -> CaseSet {
        CaseSet::new(self.seed, self.cases)
    }

    /// Runs every active check on every case (in parallel; the report does not depend on the thread count),
    /// shrinks the first failing case of each failing check, and reports. `progress` is told of each case done.
    pub fn run(&self, progress: &(dyn Fn(u64) + Sync)) -> ConformReport {
        let set = self.case_set();
        let checks = Check::active(self.as_reference);
        // Without the capability, nothing that injects failed writes can run: the cases that name failing ids
        // and the checks that fail every write.
        let faults = self.finalizer.simulates_persist_faults();
        let runs = |check: Check| faults || !check.fails_writes();
        let verdicts: Vec<Option<(u64, Vec<Verdict>)>> = (0..set.len())
            .into_par_iter()
            .map(|k| {
                let case = set.case(k);
                let verdicts = (faults || case.fail_ids.is_empty()).then(|| {
                    let trial = Trial::new(self.finalizer, &case);
                    let judge = |&c: &Check| {
                        if runs(c) {
                            c.evaluate(&trial)
                        } else {
                            Verdict::NotApplicable
                        }
                    };
                    (k, checks.iter().map(judge).collect())
                });
                progress(1);
                verdicts
            })
            .collect();
        let cases_not_run = verdicts.iter().filter(|v| v.is_none()).count() as u64;
        let (case_of, verdicts): (Vec<u64>, Vec<Vec<Verdict>>) =
            verdicts.into_iter().flatten().unzip();
        let results: Vec<CheckResult> = checks
            .par_iter()
            .enumerate()
            .map(|(i, &check)| {
                let applied = verdicts
                    .iter()
                    .filter(|v| v[i] != Verdict::NotApplicable)
                    .count() as u64;
                let passed = verdicts.iter().filter(|v| v[i] == Verdict::Pass).count() as u64;
                let first = verdicts.iter().position(|v| v[i].failed());
                let counterexample = first.map(|k| {
                    let Verdict::Fail(message) = &verdicts[k][i] else {
                        unreachable!("a failed verdict carries its message")
                    };
                    self.counterexample(check, set.case(case_of[k]), message.clone())
                });
                CheckResult {
                    check: check.name().to_string(),
                    description: check.description().to_string(),
                    cases: applied,
                    passed,
                    counterexample,
                    not_run: (!runs(check)).then(|| NO_PERSIST_FAULTS.to_string()),
                }
            })
            .collect();
        ConformReport {
            schema_version: SCHEMA_VERSION,
            budgetlab_version: env!("CARGO_PKG_VERSION").to_string(),
            strategy: self.strategy.clone(),
            as_reference: self.as_reference,
            seed: self.seed,
            cases: set.counts(),
            scenarios: set
                .scenarios()
                .into_iter()
                .map(|(name, digest)| ScenarioDigest { name, digest })
                .collect(),
            cases_not_run,
            passed: results.iter().all(CheckResult::holds),
            checks: results,
        }
    }

    /// Shrinks `case`, which fails `check` with `original_message`, and makes its files and replay commands.
    fn counterexample(&self, check: Check, case: Case, original_message: String) -> Counterexample {
        let original = CaseSize::of(&case);
        let name = case.name.clone();
        let fails = |c: &Case| check.evaluate(&Trial::new(self.finalizer, c)).failed();
        let shrunk = shrink(case, &fails, MAX_EVALUATIONS);
        let case = shrunk.case;
        let trial = Trial::new(self.finalizer, &case);
        let message = match check.evaluate(&trial) {
            Verdict::Fail(m) => m,
            _ => original_message.clone(),
        };
        let replay = Replay {
            strategy: self.strategy.clone(),
            finalize_flags: self.finalize_flags.clone(),
            folder: self.folder.clone(),
        };
        let stem = format!("counterexamples/{}", check.name());
        let input = format!("{stem}.json");
        let mut contents = vec![(input.clone(), case_file(&case))];
        let reminders = replay.reminder_files(check.name(), &case);
        let reminder_names: Vec<String> = reminders.iter().map(|(n, _)| n.clone()).collect();
        contents.extend(reminders.into_iter().map(|(n, t)| (n, t.into_bytes())));
        let command = |strategy: &str, input: &str, fail: &[String]| {
            replay.command(strategy, &case, input, fail, &reminder_names)
        };
        let mut commands = vec![command(&self.strategy, &input, &[])];
        match check {
            Check::PersistFailureBounded => {
                // Every id the finalizer asked to write fails; a NUL cannot go on a command line.
                let mut ids: Vec<String> = trial
                    .all_failing()
                    .requested
                    .iter()
                    .filter(|id| !id.contains('\0'))
                    .cloned()
                    .collect();
                ids.sort();
                ids.dedup();
                commands = vec![command(&self.strategy, &input, &ids)];
            }
            Check::Idempotent => {
                let output = format!("{stem}.output.json");
                contents.push((output.clone(), batch_file(&trial.main().outcome.batch)));
                commands.push(command(&self.strategy, &output, &[]));
            }
            Check::Deterministic => commands.push(commands[0].clone()),
            Check::PlanReminder => {
                if let Some((_, stripped)) =
                    invariants::strip_reminders(&case.batch, &case.reminders)
                {
                    let file = format!("{stem}.without-reminders.json");
                    contents.push((file.clone(), batch_file(&stripped)));
                    commands.push(command(&self.strategy, &file, &[]));
                }
            }
            Check::MatchesReference => commands.push(command("reference", &input, &[])),
            Check::MatchesVectors => {
                if let Some(expected) = &case.expected {
                    let file = format!("{stem}.expected.json");
                    let mut bytes = serde_json::to_vec_pretty(expected).expect("JSON serializes");
                    bytes.push(b'\n');
                    contents.push((file, bytes));
                }
            }
            _ => {}
        }
        Counterexample {
            case: name,
            original_message,
            message,
            original,
            shrunk: CaseSize::of(&case),
            evaluations: shrunk.evaluations,
            files: contents.iter().map(|(n, _)| n.clone()).collect(),
            commands,
            contents,
        }
    }
}

/// A batch as a file `budgetlab finalize --input` reads: pretty JSON and a final newline.
/// A case's batch as `finalize --input` reads it: with its context (the object form) when it has one.
fn case_file(case: &Case) -> Vec<u8> {
    let line = crate::batch_line::BatchLine {
        entries: case.batch.clone(),
        context: case.turn.clone(),
        group: None,
    };
    let mut bytes = serde_json::to_vec_pretty(&line).expect("a batch serializes");
    bytes.push(b'\n');
    bytes
}

fn batch_file(batch: &crate::model::Batch) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(batch).expect("a batch serializes");
    bytes.push(b'\n');
    bytes
}

/// Writes the report folder `dir` (see [`crate::report::write_folder`]: only a folder budgetlab made is replaced):
/// `conform.json`, `summary.md` and the counterexamples.
pub fn write_folder(dir: &Path, report: &ConformReport) -> Result<()> {
    crate::report::write_folder(dir, &folder_files(report))
}
