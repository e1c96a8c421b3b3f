//! The contract of final-tool-response-budget.md as named checks, each judging one finalizer on one case.
//!
//! A [`Check`] names one invariant of the design; [`Trial`] runs a finalizer on a case once and the extra runs a
//! check needs (again on the same input, again on its own output, with every write failing, without the plan-mode
//! reminders, and the built-in `reference` beside it) only when a check asks for them, and judges them with the
//! pure predicates of [`invariants`](super::invariants).

use std::cell::OnceCell;

use super::case::Case;
use super::invariants::*;
use crate::finalize::{Finalizer, Outcome, Reference, SlotScope};
use crate::model::Batch;
use crate::persist::{ArtifactStore, Content, InjectedFaults, PersistError, PersistStats};

/// One invariant of the design, as `budgetlab conform` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    /// The budgeted total (outputs, errors and top-level text, plan-mode reminders aside) fits a finite,
    /// positive budget.
    BudgetFits,
    /// A budget of zero, below zero or `inf` leaves the batch as it is and writes nothing.
    DisabledBudgetNoop,
    /// Entries keep their order and identity, and each entry its parts in order.
    OrderKept,
    /// Media parts, non-string values, unknown keys and everything but the output, error and text strings stay
    /// as they were; no budgeted field appears or vanishes.
    NonTextUnchanged,
    /// No cut splits a surrogate pair: no replacement character stands where the input has half a pair.
    SurrogatesIntact,
    /// The plan-mode lifecycle reminder is kept byte for byte and stays outside the budget: with the reminders
    /// taken out of the input, everything else finalizes the same.
    PlanReminder,
    /// Each entry is persisted at most once, and only without an earlier decision; an entry's existing
    /// `persistedOutputFiles` are kept, and a written entry's metadata names what was written.
    PersistOnce,
    /// When every write fails, the batch still fits a budget it fits when writes succeed.
    PersistFailureBounded,
    /// Every shortened field names its entry's artifact paths when it has room for them; an entry is shortened
    /// without a path only when its write failed or it came with the decision that there is no file.
    NamesArtifact,
    /// Finalizing the output again changes nothing and writes nothing.
    Idempotent,
    /// The same input gives the same output and the same writes.
    Deterministic,
    /// Byte-for-byte agreement with the built-in `reference`: entries and persisted content (`--as reference`).
    MatchesReference,
    /// The production sample vectors of `tests/vectors/` give exactly their expected output (`--as reference`).
    MatchesVectors,
}

impl Check {
    /// Every check, in report order.
    pub const ALL: [Check; 13] = [
        Check::BudgetFits,
        Check::DisabledBudgetNoop,
        Check::OrderKept,
        Check::NonTextUnchanged,
        Check::SurrogatesIntact,
        Check::PlanReminder,
        Check::PersistOnce,
        Check::PersistFailureBounded,
        Check::NamesArtifact,
        Check::Idempotent,
        Check::Deterministic,
        Check::MatchesReference,
        Check::MatchesVectors,
    ];

    /// The check's stable name.
    pub fn name(self) -> &'static str {
        match self {
            Check::BudgetFits => "budget-fits",
            Check::DisabledBudgetNoop => "disabled-budget-noop",
            Check::OrderKept => "order-kept",
            Check::NonTextUnchanged => "non-text-unchanged",
            Check::SurrogatesIntact => "surrogates-intact",
            Check::PlanReminder => "plan-reminder",
            Check::PersistOnce => "persist-once",
            Check::PersistFailureBounded => "persist-failure-bounded",
            Check::NamesArtifact => "names-artifact",
            Check::Idempotent => "idempotent",
            Check::Deterministic => "deterministic",
            Check::MatchesReference => "matches-reference",
            Check::MatchesVectors => "matches-vectors",
        }
    }

    /// What the check holds a finalizer to, in one sentence.
    pub fn description(self) -> &'static str {
        match self {
            Check::BudgetFits => {
                "the budgeted total (output, error and text; plan-mode reminders aside) fits a finite, positive budget"
            }
            Check::DisabledBudgetNoop => "a budget of 0, below 0 or inf leaves the batch as it is and writes nothing",
            Check::OrderKept => "entries keep their order and identity, and every entry its parts in order",
            Check::NonTextUnchanged => {
                "media, non-string values and unknown keys unchanged; only output, error and text strings change"
            }
            Check::SurrogatesIntact => "no cut splits a surrogate pair (no U+FFFD where the input has half a pair)",
            Check::PlanReminder => {
                "the plan-mode reminder is kept byte for byte and outside the budget (without it, the rest finalizes the same)"
            }
            Check::PersistOnce => {
                "at most one write per entry, none for an entry with persistedOutputFiles, which are kept as they were"
            }
            Check::PersistFailureBounded => "with every write failing, the batch still fits the budget",
            Check::NamesArtifact => {
                "every shortened field names its entry's artifact paths when it has room; no path only after a failed write"
            }
            Check::Idempotent => "finalizing the output again changes nothing and writes nothing",
            Check::Deterministic => "the same input gives the same output and the same writes",
            Check::MatchesReference => "entries and persisted content byte for byte those of the built-in reference",
            Check::MatchesVectors => "each production sample vector of tests/vectors/ gives exactly its expected output",
        }
    }

    /// Whether the check makes every write fail, which a finalizer must be able to simulate
    /// ([`Finalizer::simulates_persist_faults`]).
    pub fn fails_writes(self) -> bool {
        matches!(self, Check::PersistFailureBounded)
    }

    /// Whether the check belongs to `--as reference` only.
    pub fn reference_only(self) -> bool {
        matches!(self, Check::MatchesReference | Check::MatchesVectors)
    }

    /// The checks a run makes: every check with `as_reference`, the others without it.
    pub fn active(as_reference: bool) -> Vec<Check> {
        Check::ALL
            .into_iter()
            .filter(|c| as_reference || !c.reference_only())
            .collect()
    }

    /// Judges the trial's finalizer on the trial's case.
    pub fn evaluate(self, trial: &Trial<'_>) -> Verdict {
        let case = trial.case;
        let main = &trial.main().outcome;
        let fail = Verdict::Fail;
        let verdict = |r: Result<(), String>| r.map_or_else(fail, |()| Verdict::Pass);
        match self {
            Check::BudgetFits => match case.budget.limit() {
                None => Verdict::NotApplicable,
                Some(limit) => verdict(check_budget(main, &case.reminders, SlotScope::ALL, limit)),
            },
            Check::DisabledBudgetNoop => {
                if case.budget.limit().is_some() {
                    return Verdict::NotApplicable;
                }
                if main.batch != case.batch {
                    return fail(format!(
                        "the budget is {}, yet {}",
                        case.budget,
                        first_difference(&case.batch, &main.batch)
                    ));
                }
                verdict(wrote_nothing(trial.main(), "the budget is disabled"))
            }
            Check::OrderKept => verdict(order_kept(&case.batch, &main.batch)),
            Check::NonTextUnchanged => verdict(non_text_unchanged(&case.batch, &main.batch)),
            Check::SurrogatesIntact => {
                if !any_field_changed(&case.batch, &main.batch) {
                    return Verdict::NotApplicable;
                }
                verdict(surrogates_intact(&case.batch, &main.batch))
            }
            Check::PlanReminder => {
                if !has_reminder(&case.batch, &case.reminders) {
                    return Verdict::NotApplicable;
                }
                if let Err(e) = reminder_kept(&case.batch, &main.batch, &case.reminders) {
                    return fail(e);
                }
                match trial.without_reminders() {
                    None => Verdict::Pass,
                    Some((sites, run)) => {
                        verdict(same_without_reminders(main, sites, &run.outcome))
                    }
                }
            }
            Check::PersistOnce => {
                let decided = case
                    .batch
                    .iter()
                    .any(|e| e.persisted_output_files.is_some());
                if !decided && main.persisted.is_empty() {
                    return Verdict::NotApplicable;
                }
                verdict(persist_once(&case.batch, main))
            }
            Check::PersistFailureBounded => {
                let Some(limit) = case.budget.limit() else {
                    return Verdict::NotApplicable;
                };
                if check_budget(main, &case.reminders, SlotScope::ALL, limit).is_err() {
                    return Verdict::NotApplicable;
                }
                let failing = &trial.all_failing().outcome;
                verdict(
                    check_budget(failing, &case.reminders, SlotScope::ALL, limit)
                        .map_err(|e| format!("with every write failing, {e}")),
                )
            }
            Check::NamesArtifact => {
                if !any_field_changed(&case.batch, &main.batch) {
                    return Verdict::NotApplicable;
                }
                verdict(names_artifact(&case.batch, main, &case.reminders))
            }
            Check::Idempotent => {
                let again = trial.second_pass();
                if again.outcome.batch != main.batch {
                    return fail(format!(
                        "finalizing the output again: {}",
                        first_difference(&main.batch, &again.outcome.batch)
                    ));
                }
                verdict(wrote_nothing(again, "finalizing the output again"))
            }
            Check::Deterministic => {
                let again = trial.repeat();
                if again.outcome.batch != main.batch {
                    return fail(format!(
                        "a second run on the same input: {}",
                        first_difference(&main.batch, &again.outcome.batch)
                    ));
                }
                if again.outcome.persisted != main.persisted
                    || again.requested != trial.main().requested
                {
                    return fail("a second run on the same input persisted differently".into());
                }
                Verdict::Pass
            }
            Check::MatchesReference => {
                let reference = &trial.reference().outcome;
                if reference.batch != main.batch {
                    return fail(format!(
                        "against the reference: {}",
                        first_difference(&reference.batch, &main.batch)
                    ));
                }
                verdict(same_attempts(&reference.persisted, &main.persisted))
            }
            Check::MatchesVectors => match &case.expected {
                None => Verdict::NotApplicable,
                Some(expected) => verdict(matches_expected(main, expected)),
            },
        }
    }
}

/// What a check found on one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The case gives the check nothing to judge (a disabled budget for `budget-fits`, no reminder for
    /// `plan-reminder`, ...).
    NotApplicable,
    /// The invariant holds.
    Pass,
    /// The invariant is broken, as the message says.
    Fail(String),
}

impl Verdict {
    /// Whether the invariant is broken.
    pub fn failed(&self) -> bool {
        matches!(self, Verdict::Fail(_))
    }
}

/// One finalization of a trial: its outcome and the persistence ids the backend was asked to write.
#[derive(Debug, Clone)]
pub struct Run {
    /// What the finalizer returned.
    pub outcome: Outcome,
    /// Every id the finalizer asked the backend to write, in order (whether or not it reported them).
    pub requested: Vec<String>,
}

/// A finalizer on one case: the main run, and the extra runs the checks ask for, each made once and only when
/// asked.
pub struct Trial<'a> {
    finalizer: &'a dyn Finalizer,
    case: &'a Case,
    main: OnceCell<Run>,
    repeat: OnceCell<Run>,
    second_pass: OnceCell<Run>,
    all_failing: OnceCell<Run>,
    without_reminders: OnceCell<Option<(Vec<ReminderSite>, Run)>>,
    reference: OnceCell<Run>,
}

impl<'a> Trial<'a> {
    /// A trial of `finalizer` on `case`; nothing runs until a check asks.
    pub fn new(finalizer: &'a dyn Finalizer, case: &'a Case) -> Self {
        Trial {
            finalizer,
            case,
            main: OnceCell::new(),
            repeat: OnceCell::new(),
            second_pass: OnceCell::new(),
            all_failing: OnceCell::new(),
            without_reminders: OnceCell::new(),
            reference: OnceCell::new(),
        }
    }

    /// The finalizer on the case, with the case's failing writes.
    pub fn main(&self) -> &Run {
        self.main
            .get_or_init(|| run(self.finalizer, self.case.batch.clone(), self.case, false))
    }

    fn repeat(&self) -> &Run {
        self.repeat
            .get_or_init(|| run(self.finalizer, self.case.batch.clone(), self.case, false))
    }

    fn second_pass(&self) -> &Run {
        self.second_pass.get_or_init(|| {
            run(
                self.finalizer,
                self.main().outcome.batch.clone(),
                self.case,
                false,
            )
        })
    }

    /// The finalizer on the case with every write failing.
    pub fn all_failing(&self) -> &Run {
        self.all_failing
            .get_or_init(|| run(self.finalizer, self.case.batch.clone(), self.case, true))
    }

    fn without_reminders(&self) -> Option<&(Vec<ReminderSite>, Run)> {
        self.without_reminders
            .get_or_init(|| {
                let (sites, stripped) = strip_reminders(&self.case.batch, &self.case.reminders)?;
                Some((sites, run(self.finalizer, stripped, self.case, false)))
            })
            .as_ref()
    }

    fn reference(&self) -> &Run {
        self.reference.get_or_init(|| {
            run(
                &Reference::default(),
                self.case.batch.clone(),
                self.case,
                false,
            )
        })
    }
}

/// Runs `finalizer` on `batch` with the case's context and backend (every write failing when `fail_all`).
fn run(finalizer: &dyn Finalizer, batch: Batch, case: &Case, fail_all: bool) -> Run {
    let mut store = Recorder {
        inner: case.store(fail_all),
        requested: Vec::new(),
    };
    let outcome = finalizer.finalize(batch, &case.ctx(), &mut store);
    Run {
        outcome,
        requested: store.requested,
    }
}

/// A backend that notes every id it is asked to write and passes the write on.
struct Recorder<S> {
    inner: S,
    requested: Vec<String>,
}

impl<S: ArtifactStore> ArtifactStore for Recorder<S> {
    fn write(
        &mut self,
        id: &str,
        tool_name: &str,
        content: &Content,
    ) -> Result<String, PersistError> {
        self.requested.push(id.to_string());
        self.inner.write(id, tool_name, content)
    }

    fn stats(&self) -> PersistStats {
        self.inner.stats()
    }

    fn artifact_dir(&self) -> &str {
        self.inner.artifact_dir()
    }

    /// A write an external finalizer reports is noted like one asked of the backend.
    fn record(&mut self, id: &str, tool_name: &str, content: &Content, path: Option<&str>) {
        self.requested.push(id.to_string());
        self.inner.record(id, tool_name, content, path);
    }

    fn injected_faults(&self) -> Option<InjectedFaults> {
        self.inner.injected_faults()
    }
}

fn wrote_nothing(run: &Run, when: &str) -> Result<(), String> {
    if run.outcome.persisted.is_empty() && run.requested.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{when}, {} persistence attempts were reported and {} writes asked of the backend",
        run.outcome.persisted.len(),
        run.requested.len()
    ))
}

#[cfg(test)]
mod tests;
