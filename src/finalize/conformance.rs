//! Shared checks that every strategy's outcome must pass, used by the test suites of all strategies (and by the
//! metrics that judge integrity): order and non-text parts preserved, only slot texts changed, the lifecycle
//! reminder intact, at most one write per entry, and reused paths never rewritten. Budget compliance is checked
//! separately, since only some strategies promise it.

use std::collections::BTreeSet;

use super::slots::SlotScope;
use super::Outcome;
use crate::budget::PlanReminders;
use crate::model::{Batch, Field, Part};

/// Checks the invariants every finalizer keeps, whatever its allocation. Returns the first violation found.
pub fn check_integrity(
    input: &Batch,
    outcome: &Outcome,
    reminders: &PlanReminders,
) -> Result<(), String> {
    let output = &outcome.batch;
    if input.len() != output.len() {
        return Err(format!("{} entries became {}", input.len(), output.len()));
    }
    for (i, (a, b)) in input.iter().zip(output).enumerate() {
        if a.call_id != b.call_id || a.tool_name != b.tool_name || a.extra != b.extra {
            return Err(format!("entry {i}: identity or unknown keys changed"));
        }
        if a.persisted_output_files.is_some()
            && a.persisted_output_files != b.persisted_output_files
        {
            return Err(format!("entry {i}: existing persistedOutputFiles changed"));
        }
        if a.response_parts.len() != b.response_parts.len() {
            return Err(format!("entry {i}: parts added or dropped"));
        }
        for (j, (pa, pb)) in a.response_parts.iter().zip(&b.response_parts).enumerate() {
            if strip_budgeted(pa) != strip_budgeted(pb) {
                return Err(format!(
                    "entry {i} part {j}: a non-budgeted field or media part changed"
                ));
            }
            for field in Field::ALL {
                if pa.field(field).is_some() != pb.field(field).is_some() {
                    return Err(format!(
                        "entry {i} part {j}: {field:?} appeared or vanished"
                    ));
                }
            }
            if let (Some(before), Some(after)) = (pa.field(Field::Output), pb.field(Field::Output))
            {
                if pa.function_name(&a.tool_name) == Some(crate::budget::PLAN_MODE_TOOL) {
                    let keep = reminders.protected_prefix(before);
                    if !after.starts_with(&before[..keep]) {
                        return Err(format!(
                            "entry {i} part {j}: the lifecycle reminder changed"
                        ));
                    }
                }
            }
        }
    }
    let mut written = BTreeSet::new();
    for attempt in &outcome.persisted {
        if !written.insert(attempt.entry) {
            return Err(format!("entry {}: persisted more than once", attempt.entry));
        }
        if input[attempt.entry].persisted_output_files.is_some() {
            return Err(format!(
                "entry {}: rewritten although it had a persistence decision",
                attempt.entry
            ));
        }
    }
    Ok(())
}

/// Checks that the budgeted total of the outcome (in `scope`) is within `limit`.
pub fn check_budget(
    outcome: &Outcome,
    reminders: &PlanReminders,
    scope: SlotScope,
    limit: u64,
) -> Result<(), String> {
    let total = super::budgeted_total(&outcome.batch, reminders, scope);
    if total > limit {
        return Err(format!("budgeted total {total} exceeds the budget {limit}"));
    }
    Ok(())
}

/// A part with its three budgeted string fields blanked, for comparing everything else.
pub fn strip_budgeted(part: &Part) -> Part {
    let mut p = part.clone();
    for field in Field::ALL {
        if let Some(s) = p.field_mut(field) {
            s.clear();
        }
    }
    p
}
