//! The pure predicates behind the checks: each compares a finalizer's input with its outcome and returns the first
//! violation of one invariant of the design as a sentence. The property tests of the strategies and of the
//! runtime simulation assert the same predicates, so every suite holds a finalizer to one contract.

use std::collections::BTreeSet;

use crate::budget::{PlanReminders, PLAN_MODE_TOOL};
use crate::finalize::{budgeted_total, Outcome, PersistAttempt, SlotScope};
use crate::job::FinalizeReport;
use crate::model::{batch_from_value, Batch, Field};
use crate::text::utf16_len;

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

pub(super) fn any_field_changed(input: &Batch, output: &Batch) -> bool {
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
pub(super) fn reminder_sites(batch: &Batch, reminders: &PlanReminders) -> Vec<ReminderSite> {
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

pub(super) fn has_reminder(batch: &Batch, reminders: &PlanReminders) -> bool {
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
pub(super) fn same_without_reminders(
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
pub(super) fn same_attempts(
    expected: &[PersistAttempt],
    got: &[PersistAttempt],
) -> Result<(), String> {
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
pub(super) fn matches_expected(
    outcome: &Outcome,
    expected: &serde_json::Value,
) -> Result<(), String> {
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
