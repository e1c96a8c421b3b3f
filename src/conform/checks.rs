//! The contract of final-tool-response-budget.md as named checks, each judging one finalizer on one case.
//!
//! A [`Check`] names one invariant of the design; [`Trial`] runs a finalizer on a case once and the extra runs a
//! check needs (again on the same input, again on its own output, with every write failing, without the plan-mode
//! reminders, and the built-in `reference` beside it) only when a check asks for them. The pure predicates below
//! ([`check_integrity`], [`check_budget`], [`order_kept`], [`surrogates_intact`], ...) are also what the property
//! tests of the strategies and of the runtime simulation assert, so that the suites and `budgetlab conform` hold
//! every finalizer to the same contract.

use std::cell::OnceCell;
use std::collections::BTreeSet;

use super::cases::Case;
use crate::budget::{PlanReminders, PLAN_MODE_TOOL};
use crate::finalize::{budgeted_total, Finalizer, Outcome, PersistAttempt, Reference, SlotScope};
use crate::job::FinalizeReport;
use crate::model::{batch_from_value, Batch, Field};
use crate::persist::{ArtifactStore, Content, InjectedFaults, PersistError, PersistStats};
use crate::text::utf16_len;

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

/// Checks the invariants every finalizer keeps, whatever its allocation: [`order_kept`], [`non_text_unchanged`],
/// [`reminder_kept`] and [`persist_once`]. Returns the first violation found.
pub fn check_integrity(
    input: &Batch,
    outcome: &Outcome,
    reminders: &PlanReminders,
) -> Result<(), String> {
    order_kept(input, &outcome.batch)?;
    non_text_unchanged(input, &outcome.batch)?;
    reminder_kept(input, &outcome.batch, reminders)?;
    persist_once(input, outcome)
}

/// Checks that the budgeted total of the outcome (in `scope`) is within `limit`.
pub fn check_budget(
    outcome: &Outcome,
    reminders: &PlanReminders,
    scope: SlotScope,
    limit: u64,
) -> Result<(), String> {
    let total = budgeted_total(&outcome.batch, reminders, scope);
    if total > limit {
        return Err(format!("budgeted total {total} exceeds the budget {limit}"));
    }
    Ok(())
}

/// The name of a part's kind, for messages: its first key (`functionResponse`, `text`, `inlineData`, ...).
fn part_kind(part: &crate::model::Part) -> &str {
    part.0.keys().next().map_or("empty", String::as_str)
}

/// Entries keep their number, order and identity (`callId`, `toolName`); each entry keeps its parts, in order,
/// each of the same kind (the same keys in the same order).
pub fn order_kept(input: &Batch, output: &Batch) -> Result<(), String> {
    if input.len() != output.len() {
        return Err(format!("{} entries became {}", input.len(), output.len()));
    }
    for (i, (a, b)) in input.iter().zip(output).enumerate() {
        if a.call_id != b.call_id || a.tool_name != b.tool_name {
            return Err(format!(
                "entry {i}: ({:?}, {:?}) became ({:?}, {:?}): entries reordered, replaced or renamed",
                a.call_id, a.tool_name, b.call_id, b.tool_name
            ));
        }
        if a.response_parts.len() != b.response_parts.len() {
            return Err(format!(
                "entry {i}: {} parts became {}",
                a.response_parts.len(),
                b.response_parts.len()
            ));
        }
        for (j, (pa, pb)) in a.response_parts.iter().zip(&b.response_parts).enumerate() {
            if !pa.0.keys().eq(pb.0.keys()) {
                return Err(format!(
                    "entry {i} part {j}: a {} part became a {} part: parts reordered or replaced",
                    part_kind(pa),
                    part_kind(pb)
                ));
            }
        }
    }
    Ok(())
}

/// Everything but the output, error and text strings stays as it was: media parts, non-string values, the
/// function response's id and name, unknown keys of parts and entries; no such field appears or vanishes.
pub fn non_text_unchanged(input: &Batch, output: &Batch) -> Result<(), String> {
    for (i, (a, b)) in input.iter().zip(output).enumerate() {
        if a.extra != b.extra {
            return Err(format!("entry {i}: its unknown keys changed"));
        }
        for (j, (pa, pb)) in a.response_parts.iter().zip(&b.response_parts).enumerate() {
            for field in Field::ALL {
                if pa.field(field).is_some() != pb.field(field).is_some() {
                    return Err(format!(
                        "entry {i} part {j}: {} appeared or vanished",
                        field_name(field)
                    ));
                }
            }
            if pa.without_budgeted_text() != pb.without_budgeted_text() {
                let what = if pa.is_media() {
                    "a media part"
                } else {
                    "content outside output, error and text"
                };
                return Err(format!("entry {i} part {j}: {what} changed"));
            }
        }
    }
    Ok(())
}

/// The plan-mode lifecycle reminder at the start of an `enter_plan_mode` output is kept byte for byte.
pub fn reminder_kept(
    input: &Batch,
    output: &Batch,
    reminders: &PlanReminders,
) -> Result<(), String> {
    for (i, (a, b)) in input.iter().zip(output).enumerate() {
        for (j, (pa, pb)) in a.response_parts.iter().zip(&b.response_parts).enumerate() {
            let (Some(before), Some(after)) = (pa.field(Field::Output), pb.field(Field::Output))
            else {
                continue;
            };
            if pa.function_name(&a.tool_name) != Some(PLAN_MODE_TOOL) {
                continue;
            }
            let keep = reminders.protected_prefix(before);
            if !after.starts_with(&before[..keep]) {
                return Err(format!(
                    "entry {i} part {j}: the plan-mode lifecycle reminder changed"
                ));
            }
        }
    }
    Ok(())
}

/// Each entry is persisted at most once and only when it came without a persistence decision; an entry that came
/// with `persistedOutputFiles` keeps them as they were; after a write the entry's `persistedOutputFiles` are the
/// path written (`[]` when the write failed), so that later boundaries reuse it.
pub fn persist_once(input: &Batch, outcome: &Outcome) -> Result<(), String> {
    let mut written = BTreeSet::new();
    for attempt in &outcome.persisted {
        let e = attempt.entry;
        let Some(before) = input.get(e) else {
            return Err(format!(
                "a persistence attempt names entry {e}, which the batch does not have"
            ));
        };
        if !written.insert(e) {
            return Err(format!("entry {e}: persisted more than once"));
        }
        if let Some(paths) = &before.persisted_output_files {
            return Err(format!(
                "entry {e}: written although it came with persistedOutputFiles {paths:?}"
            ));
        }
        if let Some(after) = outcome.batch.get(e) {
            let expected: Vec<String> = attempt.path.iter().cloned().collect();
            if after.persisted_output_files.as_ref() != Some(&expected) {
                return Err(format!(
                    "entry {e}: written to {:?}, but its persistedOutputFiles became {:?}",
                    attempt.path, after.persisted_output_files
                ));
            }
        }
    }
    for (i, (a, b)) in input.iter().zip(&outcome.batch).enumerate() {
        if a.persisted_output_files.is_some()
            && a.persisted_output_files != b.persisted_output_files
        {
            return Err(format!(
                "entry {i}: its persistedOutputFiles {:?} became {:?}",
                a.persisted_output_files, b.persisted_output_files
            ));
        }
    }
    Ok(())
}

/// A shortened field of at least this many UTF-16 units, plus the length of its entry's paths, has room to name
/// them: the design lists the artifact paths "when the allocation permits", and the reference's header (a
/// truncation notice, the sha256 and the paths) takes about 140 units besides the paths.
pub const NOTE_ROOM: usize = 256;

/// Every shortened field names its entry's artifact paths (each of them) when it is at least [`NOTE_ROOM`] units
/// plus their length (a plan-mode reminder it starts with aside); a shortened entry ends without any path only
/// when a write for it failed (or was refused) or it came with `persistedOutputFiles: []`, the decision that there
/// is no file.
pub fn names_artifact(
    input: &Batch,
    outcome: &Outcome,
    reminders: &PlanReminders,
) -> Result<(), String> {
    for c in changed_fields(input, &outcome.batch) {
        let here = format!("entry {} part {} {}", c.entry, c.part, field_name(c.field));
        let paths = outcome.batch[c.entry].artifact_paths();
        if paths.is_empty() {
            let decided_none = input[c.entry]
                .persisted_output_files
                .as_ref()
                .is_some_and(Vec::is_empty);
            let failed = outcome
                .persisted
                .iter()
                .any(|a| a.entry == c.entry && a.path.is_none());
            if !(decided_none || failed) {
                return Err(format!(
                    "{here} was shortened, but its entry has no artifact: it was neither persisted nor came with a path"
                ));
            }
            continue;
        }
        let entry = &input[c.entry];
        let protected = match c.field {
            Field::Output
                if entry.response_parts[c.part].function_name(&entry.tool_name)
                    == Some(PLAN_MODE_TOOL) =>
            {
                reminders.protected_prefix(c.before)
            }
            _ => 0,
        };
        let after = c
            .after
            .strip_prefix(&c.before[..protected])
            .unwrap_or(c.after);
        let room = NOTE_ROOM + paths.iter().map(|p| utf16_len(p)).sum::<usize>();
        if utf16_len(after) < room {
            continue;
        }
        if let Some(missing) = paths.iter().find(|p| !after.contains(p.as_str())) {
            return Err(format!(
                "{here} was shortened to {} units without naming its artifact {missing:?}",
                utf16_len(after)
            ));
        }
    }
    Ok(())
}

/// No cut splits a surrogate pair. A Rust string cannot hold half a pair, so a finalizer that cuts one (or a
/// process that sends one) leaves U+FFFD in its place: a changed field with a replacement character is a split
/// when the input field has none, or when the text beside it stands next to an astral character (a pair) in the
/// input.
pub fn surrogates_intact(input: &Batch, output: &Batch) -> Result<(), String> {
    for c in changed_fields(input, output) {
        if let Some(offset) = split_pair(c.before, c.after) {
            return Err(format!(
                "entry {} part {} {}: a cut splits a surrogate pair (U+FFFD at UTF-16 offset {offset} of {} units)",
                c.entry,
                c.part,
                field_name(c.field),
                utf16_len(c.after)
            ));
        }
    }
    Ok(())
}

/// Characters of context on each side of a replacement character matched against the input.
const CONTEXT_CHARS: usize = 16;

/// The UTF-16 offset in `after` of the first replacement character that stands for half a pair of `before`.
fn split_pair(before: &str, after: &str) -> Option<usize> {
    const REPLACEMENT: char = '\u{FFFD}';
    if !after.contains(REPLACEMENT) {
        return None;
    }
    let input_has_some = before.contains(REPLACEMENT);
    after
        .match_indices(REPLACEMENT)
        .find(|&(at, _)| !input_has_some || borders_pair(before, after, at))
        .map(|(at, _)| utf16_len(&after[..at]))
}

/// Whether the text just before (or just after) the replacement character at byte `at` of `after` stands in
/// `before` just before (or just after) an astral character.
fn borders_pair(before: &str, after: &str, at: usize) -> bool {
    let astral = |c: Option<char>| c.is_some_and(|c| c.len_utf16() == 2);
    let ahead = {
        let s = &after[..at];
        let s = s.rsplit('\u{FFFD}').next().unwrap_or(s);
        let start = s
            .char_indices()
            .rev()
            .nth(CONTEXT_CHARS - 1)
            .map_or(0, |(i, _)| i);
        &s[start..]
    };
    let behind = {
        let s = &after[at + '\u{FFFD}'.len_utf8()..];
        let s = s.split('\u{FFFD}').next().unwrap_or(s);
        let end = s
            .char_indices()
            .nth(CONTEXT_CHARS)
            .map_or(s.len(), |(i, _)| i);
        &s[..end]
    };
    (!ahead.is_empty()
        && before
            .match_indices(ahead)
            .any(|(j, m)| astral(before[j + m.len()..].chars().next())))
        || (!behind.is_empty()
            && before
                .match_indices(behind)
                .any(|(j, _)| astral(before[..j].chars().next_back())))
}

/// A string field whose text a finalizer changed.
struct ChangedField<'a> {
    entry: usize,
    part: usize,
    field: Field,
    before: &'a str,
    after: &'a str,
}

/// Every string field present in both batches (matched by entry, part and field) whose text differs.
fn changed_fields<'a>(input: &'a Batch, output: &'a Batch) -> Vec<ChangedField<'a>> {
    let mut out = Vec::new();
    for (e, (a, b)) in input.iter().zip(output).enumerate() {
        for (p, (pa, pb)) in a.response_parts.iter().zip(&b.response_parts).enumerate() {
            for field in Field::ALL {
                if let (Some(before), Some(after)) = (pa.field(field), pb.field(field)) {
                    if before != after {
                        out.push(ChangedField {
                            entry: e,
                            part: p,
                            field,
                            before,
                            after,
                        });
                    }
                }
            }
        }
    }
    out
}

fn any_field_changed(input: &Batch, output: &Batch) -> bool {
    !changed_fields(input, output).is_empty()
}

/// The field's name in the batch format.
fn field_name(field: Field) -> &'static str {
    match field {
        Field::Text => "text",
        Field::Output => "output",
        Field::Error => "error",
    }
}

/// Where a reminder was taken out of a batch: entry, part and the reminder's byte length.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReminderSite {
    entry: usize,
    part: usize,
    protected: usize,
}

/// The `enter_plan_mode` outputs that start with a lifecycle reminder.
fn reminder_sites(batch: &Batch, reminders: &PlanReminders) -> Vec<ReminderSite> {
    let mut sites = Vec::new();
    for (e, entry) in batch.iter().enumerate() {
        for (p, part) in entry.response_parts.iter().enumerate() {
            let Some(output) = part.field(Field::Output) else {
                continue;
            };
            if part.function_name(&entry.tool_name) != Some(PLAN_MODE_TOOL) {
                continue;
            }
            let protected = reminders.protected_prefix(output);
            if protected > 0 {
                sites.push(ReminderSite {
                    entry: e,
                    part: p,
                    protected,
                });
            }
        }
    }
    sites
}

fn has_reminder(batch: &Batch, reminders: &PlanReminders) -> bool {
    !reminder_sites(batch, reminders).is_empty()
}

/// `batch` with every protected reminder (and its blank line) taken out of its output, and where; `None` when
/// there is none, or when an output left behind starts with a reminder again (it would be protected in turn).
pub(crate) fn strip_reminders(
    batch: &Batch,
    reminders: &PlanReminders,
) -> Option<(Vec<ReminderSite>, Batch)> {
    let sites = reminder_sites(batch, reminders);
    if sites.is_empty() {
        return None;
    }
    let mut stripped = batch.clone();
    for site in &sites {
        let field = stripped[site.entry].response_parts[site.part]
            .field_mut(Field::Output)
            .expect("a reminder site is a string output");
        field.drain(..site.protected);
        if reminders.protected_prefix(field) > 0 {
            return None;
        }
    }
    Some((sites, stripped))
}

/// The outcome on the batch with its reminders is the outcome on the batch without them, once the reminders are
/// taken out of the former: the reminders neither count against the budget nor change what is persisted.
fn same_without_reminders(
    with: &Outcome,
    sites: &[ReminderSite],
    without: &Outcome,
) -> Result<(), String> {
    let mut with_batch = with.batch.clone();
    for site in sites {
        if let Some(field) = with_batch
            .get_mut(site.entry)
            .and_then(|e| e.response_parts.get_mut(site.part))
            .and_then(|p| p.field_mut(Field::Output))
        {
            field.drain(..site.protected.min(field.len()));
        }
    }
    if with_batch != without.batch {
        return Err(format!(
            "the reminder counts: with the reminders taken out of the input, {}",
            first_difference(&with_batch, &without.batch)
        ));
    }
    same_attempts(&with.persisted, &without.persisted)
        .map_err(|e| format!("the reminder counts: with the reminders taken out of the input, {e}"))
}

/// The persistence attempts agree one for one: id, tool, content, path and entry.
fn same_attempts(expected: &[PersistAttempt], got: &[PersistAttempt]) -> Result<(), String> {
    if expected.len() != got.len() {
        return Err(format!(
            "{} persistence attempts expected, {} made",
            expected.len(),
            got.len()
        ));
    }
    for (i, (a, b)) in expected.iter().zip(got).enumerate() {
        if a.entry != b.entry || a.call_id != b.call_id || a.tool_name != b.tool_name {
            return Err(format!(
                "persistence attempt {i}: entry {} as {:?} expected, entry {} as {:?} made",
                a.entry, a.call_id, b.entry, b.call_id
            ));
        }
        if a.content != b.content {
            return Err(format!(
                "persistence attempt {i} ({:?}): content of {} bytes expected, {} bytes written",
                a.call_id,
                a.content.len(),
                b.content.len()
            ));
        }
        if a.path != b.path {
            return Err(format!(
                "persistence attempt {i} ({:?}): path {:?} expected, {:?} given",
                a.call_id, a.path, b.path
            ));
        }
    }
    Ok(())
}

/// The outcome, printed as `budgetlab finalize` prints it, is the expected JSON (key order aside).
fn matches_expected(outcome: &Outcome, expected: &serde_json::Value) -> Result<(), String> {
    let report = FinalizeReport {
        entries: outcome.batch.clone(),
        persisted: outcome.persisted.clone(),
    };
    let got = serde_json::to_value(&report)
        .map_err(|e| format!("the outcome does not serialize: {e}"))?;
    if &got == expected {
        return Ok(());
    }
    if got["entries"] != expected["entries"] {
        return Err(
            match batch_from_value(expected["entries"].clone(), "the vector") {
                Ok(want) => format!(
                    "against the vector: {}",
                    first_difference(&want, &outcome.batch)
                ),
                Err(_) => "the entries differ from the vector's".into(),
            },
        );
    }
    let (want, got) = (&expected["persisted"], &got["persisted"]);
    let count = |v: &serde_json::Value| v.as_array().map_or(0, Vec::len);
    if count(want) != count(got) {
        return Err(format!(
            "{} persistence attempts expected by the vector, {} made",
            count(want),
            count(got)
        ));
    }
    let i = (0..count(want)).find(|&i| want[i] != got[i]).unwrap_or(0);
    Err(format!(
        "persistence attempt {i} differs from the vector's: {} expected, {} made",
        want[i], got[i]
    ))
}

/// Where two batches first differ, in words: the entry, part and field, and how.
pub fn first_difference(expected: &Batch, got: &Batch) -> String {
    if expected.len() != got.len() {
        return format!("{} entries became {}", expected.len(), got.len());
    }
    for (i, (a, b)) in expected.iter().zip(got).enumerate() {
        if a == b {
            continue;
        }
        if a.call_id != b.call_id || a.tool_name != b.tool_name {
            return format!(
                "entry {i} is ({:?}, {:?}) instead of ({:?}, {:?})",
                b.call_id, b.tool_name, a.call_id, a.tool_name
            );
        }
        if a.response_parts.len() != b.response_parts.len() {
            return format!(
                "entry {i} has {} parts instead of {}",
                b.response_parts.len(),
                a.response_parts.len()
            );
        }
        for (j, (pa, pb)) in a.response_parts.iter().zip(&b.response_parts).enumerate() {
            if pa == pb {
                continue;
            }
            for field in Field::ALL {
                if let (Some(x), Some(y)) = (pa.field(field), pb.field(field)) {
                    if x != y {
                        let units = |s: &str| utf16_len(s);
                        let same = x
                            .chars()
                            .zip(y.chars())
                            .take_while(|(c, d)| c == d)
                            .map(|(c, _)| c.len_utf16())
                            .sum::<usize>();
                        return format!(
                            "entry {i} part {j} {}: {} units instead of {}, first different at unit {same}",
                            field_name(field),
                            units(y),
                            units(x)
                        );
                    }
                }
            }
            return format!("entry {i} part {j} differs outside its output, error and text");
        }
        if a.persisted_output_files != b.persisted_output_files {
            return format!(
                "entry {i} has persistedOutputFiles {:?} instead of {:?}",
                b.persisted_output_files, a.persisted_output_files
            );
        }
        return format!("entry {i} differs in its unknown keys");
    }
    "the batches are the same".into()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};

    use super::super::cases::Case;
    use super::*;
    use crate::budget::{Budget, BudgetContext, PLAN_MODE_TOOL};
    use crate::finalize::StrategyName;
    use crate::model::Entry;
    use crate::model::Part;
    use crate::persist::{FaultyStore, MemoryStore};

    /// Text built from a short random unit repeated: ASCII words, line breaks, emoji, CJK, accents. Mostly
    /// small, sometimes past every peer's threshold (up to a few hundred thousand units).
    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[a-z ]{1,8}",
            Just("\n".to_string()),
            Just("\n\n".to_string()),
            Just("😀".to_string()),
            Just("中文".to_string()),
            Just("é".to_string()),
            Just("Exit Code: 1\n".to_string()),
        ];
        let unit = prop::collection::vec(piece, 1..5).prop_map(|v| v.concat());
        let reps = prop_oneof![4 => 0usize..40, 3 => 0usize..1_500, 2 => 1_000usize..12_000];
        (unit, reps).prop_map(|(u, k)| u.repeat(k))
    }

    fn part(tool: String) -> impl Strategy<Value = Part> {
        let reminder = PlanReminders::default().texts()[0].clone();
        prop_oneof![
            text().prop_map(Part::text),
            (
                prop::option::of(text()),
                prop::option::of(text()),
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(move |(output, error, named, structured)| {
                    let mut response = Map::new();
                    if let Some(o) = output {
                        response.insert("output".into(), Value::String(o));
                    }
                    if structured {
                        response.insert("output".into(), json!({"rows": [1, 2]}));
                    }
                    if let Some(e) = error {
                        response.insert("error".into(), Value::String(e));
                    }
                    let mut fr = Map::new();
                    if named {
                        fr.insert("name".into(), Value::String(tool.clone()));
                    }
                    fr.insert("response".into(), Value::Object(response));
                    let mut map = Map::new();
                    map.insert("functionResponse".into(), Value::Object(fr));
                    Part(map)
                }),
            (prop::option::of(text()), any::<bool>()).prop_map(move |(rest, failed)| {
                let output = match rest {
                    None => reminder.clone(),
                    Some(r) => format!("{reminder}\n\n{r}"),
                };
                let error = failed.then(|| json!("plan mode could not start"));
                Part::function_response("p", PLAN_MODE_TOOL, Some(json!(output)), error)
            }),
            Just(Part(
                json!({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}})
                    .as_object()
                    .unwrap()
                    .clone()
            )),
        ]
    }

    fn entry() -> impl Strategy<Value = Entry> {
        let call_id = prop_oneof![
            Just("c1".to_string()),
            Just("c2".to_string()),
            Just("dir/c1".to_string()),
            Just("..".to_string()),
            "[a-z]{1,6}",
        ];
        let tool = prop_oneof![
            Just("shell".to_string()),
            Just("run_shell_command".to_string()),
            Just("read_file".to_string()),
            Just("mcp_tool".to_string()),
        ];
        let persisted = prop_oneof![
            3 => Just(None),
            1 => Just(Some(vec![])),
            1 => Just(Some(vec!["/pre/artifact.txt".to_string()])),
        ];
        (call_id, tool, persisted)
            .prop_flat_map(|(call_id, tool, persisted)| {
                (
                    Just(call_id),
                    Just(tool.clone()),
                    Just(persisted),
                    prop::collection::vec(part(tool), 0..4),
                )
            })
            .prop_map(|(call_id, tool, persisted, parts)| {
                let mut e = Entry::new(call_id, tool, parts);
                e.persisted_output_files = persisted;
                e
            })
    }

    fn context() -> impl Strategy<Value = BudgetContext> {
        let budget = prop_oneof![
            1 => Just(Budget::Unlimited),
            1 => Just(Budget::Units(0)),
            2 => (1i64..400).prop_map(Budget::Units),
            4 => (400i64..300_000).prop_map(Budget::Units),
        ];
        let window = prop::option::of(prop_oneof![1_000u64..20_000, 20_000u64..2_000_000]);
        (budget, window).prop_map(|(budget, window)| {
            let mut ctx = BudgetContext::new(budget);
            ctx.context_window_tokens = window;
            ctx
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn every_strategy_keeps_integrity_and_capped_ones_fit(
            batch in prop::collection::vec(entry(), 0..7),
            ctx in context(),
            failing in any::<bool>(),
        ) {
            let mut names = StrategyName::all();
            names.push("head-tail-1/3".parse().unwrap());
            for name in names {
                let finalizer = name.build();
                let run = || {
                    let fail: Vec<String> = if failing { vec!["c1".into()] } else { vec![] };
                    let mut store = FaultyStore::new(MemoryStore::new("/tmp"), fail);
                    finalizer.finalize(batch.clone(), &ctx, &mut store)
                };
                let outcome = run();
                if let Err(e) = check_integrity(&batch, &outcome, &ctx.reminders) {
                    return Err(TestCaseError::fail(format!("{name}: {e}")));
                }
                prop_assert_eq!(&outcome, &run(), "{} is not deterministic", name);
                if let Some(limit) = ctx.budget.limit() {
                    if let Some(scope) = name.caps() {
                        if let Err(e) = check_budget(&outcome, &ctx.reminders, scope, limit) {
                            return Err(TestCaseError::fail(format!("{name}: {e}")));
                        }
                    }
                } else if name.caps_batch() {
                    prop_assert_eq!(&outcome.batch, &batch, "{} changed an unbudgeted batch", name);
                }
            }
        }
    }

    fn shell(id: &str, output: &str) -> Entry {
        Entry::new(
            id,
            "shell",
            vec![Part::function_response(
                id,
                "shell",
                Some(json!(output)),
                None,
            )],
        )
    }

    fn set_output(batch: &mut Batch, e: usize, text: &str) {
        *batch[e].response_parts[0].field_mut(Field::Output).unwrap() = text.to_string();
    }

    fn outcome(batch: Batch) -> Outcome {
        Outcome::unchanged(batch)
    }

    fn attempt(entry: usize, path: Option<&str>) -> PersistAttempt {
        PersistAttempt {
            call_id: format!("c{entry}"),
            tool_name: "shell".into(),
            content: Content::from("full"),
            path: path.map(String::from),
            entry,
        }
    }

    #[test]
    fn order_kept_catches_reordered_dropped_and_replaced_parts() {
        let input = vec![shell("a", "1"), shell("b", "2")];
        assert_eq!(order_kept(&input, &input), Ok(()));
        let swapped = vec![input[1].clone(), input[0].clone()];
        assert!(order_kept(&input, &swapped)
            .unwrap_err()
            .contains("entry 0"));
        assert_eq!(
            order_kept(&input, &input[..1].to_vec()).unwrap_err(),
            "2 entries became 1"
        );
        let mut no_parts = input.clone();
        no_parts[1].response_parts.clear();
        assert_eq!(
            order_kept(&input, &no_parts).unwrap_err(),
            "entry 1: 1 parts became 0"
        );
        let mut replaced = input.clone();
        replaced[0].response_parts[0] = Part::text("1");
        assert!(order_kept(&input, &replaced)
            .unwrap_err()
            .contains("a functionResponse part became a text part"));
    }

    #[test]
    fn non_text_unchanged_catches_media_keys_and_vanished_fields() {
        let media = Part(
            json!({"inlineData": {"mimeType": "image/png", "data": "AAAA"}})
                .as_object()
                .unwrap()
                .clone(),
        );
        let input = vec![Entry::new("m", "shot", vec![media, Part::text("x")])];
        let mut changed = input.clone();
        changed[0].response_parts[0].0["inlineData"]["data"] = json!("BBBB");
        assert_eq!(
            non_text_unchanged(&input, &changed).unwrap_err(),
            "entry 0 part 0: a media part changed"
        );
        let mut shortened = input.clone();
        *shortened[0].response_parts[1]
            .field_mut(Field::Text)
            .unwrap() = String::new();
        assert_eq!(non_text_unchanged(&input, &shortened), Ok(()));
        let mut keyed = input.clone();
        keyed[0].extra.insert("status".into(), json!("ok"));
        assert_eq!(
            non_text_unchanged(&input, &keyed).unwrap_err(),
            "entry 0: its unknown keys changed"
        );
        let mut gone = input.clone();
        gone[0].response_parts[1].0["text"] = json!(null);
        assert_eq!(
            non_text_unchanged(&input, &gone).unwrap_err(),
            "entry 0 part 1: text appeared or vanished"
        );
    }

    #[test]
    fn surrogates_intact_tells_a_split_pair_from_a_replacement_character_of_the_input() {
        let input = vec![shell("e", "ab😀😀cd")];
        let mut head_cut = input.clone();
        set_output(&mut head_cut, 0, "ab😀\u{FFFD}");
        assert_eq!(
            surrogates_intact(&input, &head_cut).unwrap_err(),
            "entry 0 part 0 output: a cut splits a surrogate pair (U+FFFD at UTF-16 offset 4 of 5 units)"
        );
        let mut safe = input.clone();
        set_output(&mut safe, 0, "ab😀");
        assert_eq!(surrogates_intact(&input, &safe), Ok(()));
        // The input's own replacement character, kept, is no split; one standing where a pair was, is.
        let input = vec![shell("e", "x\u{FFFD}y 😀tail")];
        let mut kept = input.clone();
        set_output(&mut kept, 0, "x\u{FFFD}y");
        assert_eq!(surrogates_intact(&input, &kept), Ok(()));
        let mut tail_cut = input.clone();
        set_output(&mut tail_cut, 0, "\u{FFFD}tail");
        assert!(surrogates_intact(&input, &tail_cut).is_err());
    }

    #[test]
    fn persist_once_catches_double_writes_rewrites_and_stale_metadata() {
        let mut input = vec![shell("a", "1"), shell("b", "2")];
        input[1].persisted_output_files = Some(vec!["/pre/b.txt".into()]);
        let mut out = outcome(input.clone());
        out.batch[0].persisted_output_files = Some(vec!["tool-results/a.txt".into()]);
        out.persisted = vec![attempt(0, Some("tool-results/a.txt"))];
        assert_eq!(persist_once(&input, &out), Ok(()));
        let mut twice = out.clone();
        twice.persisted.push(attempt(0, Some("tool-results/a.txt")));
        assert_eq!(
            persist_once(&input, &twice).unwrap_err(),
            "entry 0: persisted more than once"
        );
        let mut rewrite = out.clone();
        rewrite
            .persisted
            .push(attempt(1, Some("tool-results/b.txt")));
        assert!(persist_once(&input, &rewrite)
            .unwrap_err()
            .starts_with("entry 1: written although it came with persistedOutputFiles"));
        let mut stale = out.clone();
        stale.batch[0].persisted_output_files = None;
        assert!(persist_once(&input, &stale)
            .unwrap_err()
            .contains("but its persistedOutputFiles became None"));
        let mut lost = out.clone();
        lost.batch[1].persisted_output_files = Some(Vec::new());
        assert!(persist_once(&input, &lost)
            .unwrap_err()
            .starts_with("entry 1: its persistedOutputFiles"));
    }

    #[test]
    fn names_artifact_asks_for_the_path_when_there_is_room_and_a_path_unless_the_write_failed() {
        let long = "L".repeat(2_000);
        let input = vec![shell("a", &long)];
        let path = "tool-results/a.txt";
        let reminders = PlanReminders::default();
        let shortened = |text: &str, paths: Option<Vec<String>>, attempts: Vec<PersistAttempt>| {
            let mut out = outcome(input.clone());
            set_output(&mut out.batch, 0, text);
            out.batch[0].persisted_output_files = paths;
            out.persisted = attempts;
            names_artifact(&input, &out, &reminders)
        };
        let with_path = format!("Persisted at {path}\n{}", "L".repeat(300));
        let written = Some(vec![path.to_string()]);
        assert_eq!(
            shortened(&with_path, written.clone(), vec![attempt(0, Some(path))]),
            Ok(())
        );
        let without = "L".repeat(300);
        assert!(
            shortened(&without, written.clone(), vec![attempt(0, Some(path))])
                .unwrap_err()
                .contains("without naming its artifact")
        );
        // Too short to hold the path: a cut header is enough.
        assert_eq!(
            shortened("Tool output", written, vec![attempt(0, Some(path))]),
            Ok(())
        );
        // Shortened and never persisted: the full output is nowhere.
        assert!(shortened(&without, None, vec![])
            .unwrap_err()
            .contains("it was neither persisted nor came with a path"));
        // The write failed: nothing to name.
        assert_eq!(
            shortened(&without, Some(vec![]), vec![attempt(0, None)]),
            Ok(())
        );
    }

    /// `reference`, except that every other call uses head share 1/2 instead of 1/5.
    struct Alternating(std::sync::atomic::AtomicU64);

    impl Finalizer for Alternating {
        fn name(&self) -> &str {
            "alternating"
        }

        fn finalize(
            &self,
            batch: Batch,
            ctx: &BudgetContext,
            store: &mut dyn ArtifactStore,
        ) -> Outcome {
            let n = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let name = if n.is_multiple_of(2) {
                "reference"
            } else {
                "head-tail-0.5"
            };
            name.parse::<StrategyName>()
                .unwrap()
                .build()
                .finalize(batch, ctx, store)
        }
    }

    /// `reference`, but an entry whose write failed gets its original text back: it trusts the file to be there.
    struct TrustsWrites;

    impl Finalizer for TrustsWrites {
        fn name(&self) -> &str {
            "trusts-writes"
        }

        fn finalize(
            &self,
            batch: Batch,
            ctx: &BudgetContext,
            store: &mut dyn ArtifactStore,
        ) -> Outcome {
            let mut out = Reference::default().finalize(batch.clone(), ctx, store);
            for a in &out.persisted {
                if a.path.is_none() {
                    out.batch[a.entry] = batch[a.entry].clone();
                }
            }
            out
        }
    }

    #[test]
    fn trials_catch_a_nondeterministic_finalizer_and_one_that_leans_on_its_writes() {
        let case = Case::new(
            "t",
            vec![
                shell("a", &"x".repeat(5_000)),
                shell("b", &"y".repeat(5_000)),
            ],
            Budget::Units(1_000),
        );
        let alternating = Alternating(Default::default());
        let trial = Trial::new(&alternating, &case);
        assert!(Check::Deterministic.evaluate(&trial).failed());
        let reference = Reference::default();
        let trial = Trial::new(&reference, &case);
        assert_eq!(Check::Deterministic.evaluate(&trial), Verdict::Pass);
        assert_eq!(Check::PersistFailureBounded.evaluate(&trial), Verdict::Pass);
        let trial = Trial::new(&TrustsWrites, &case);
        assert_eq!(Check::BudgetFits.evaluate(&trial), Verdict::Pass);
        assert_eq!(
            Check::PersistFailureBounded.evaluate(&trial),
            Verdict::Fail(
                "with every write failing, budgeted total 10000 exceeds the budget 1000".into()
            )
        );
        // A disabled budget gives budget-fits and persist-failure-bounded nothing to judge.
        let disabled = Case::new("d", case.batch.clone(), Budget::Units(0));
        let trial = Trial::new(&reference, &disabled);
        assert_eq!(Check::BudgetFits.evaluate(&trial), Verdict::NotApplicable);
        assert_eq!(
            Check::PersistFailureBounded.evaluate(&trial),
            Verdict::NotApplicable
        );
        assert_eq!(Check::DisabledBudgetNoop.evaluate(&trial), Verdict::Pass);
    }
}
