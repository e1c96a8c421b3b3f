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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};

    use super::*;
    use crate::budget::{Budget, BudgetContext, PLAN_MODE_TOOL};
    use crate::finalize::StrategyName;
    use crate::model::Entry;
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
}
