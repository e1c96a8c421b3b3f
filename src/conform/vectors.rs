//! The production finalizer's sample vectors (`tests/vectors/`), compiled into the binary so that `budgetlab
//! conform` needs no file beside it: 20 input batches with the exact output the production finalizer gives, and
//! the two lifecycle reminders they were made with. Each becomes a [`Case`] carrying its expected output.

use serde_json::Value;

use super::case::Case;
use crate::budget::{Budget, PlanReminders};
use crate::model::batch_from_value;

/// The vectors, one JSON object a line (see `tests/vectors/README.md`).
const SAMPLE: &str = include_str!("../../tests/vectors/finalizer-sample.jsonl");
/// The lifecycle reminder for plan mode that may proceed to edits, as the vectors were made with it.
const REMINDER_EDIT: &str = include_str!("../../tests/vectors/plan-reminder-edit.txt");
/// The lifecycle reminder for a planning-only session, as the vectors were made with it.
const REMINDER_PLAN_ONLY: &str = include_str!("../../tests/vectors/plan-reminder-plan-only.txt");

/// The reminders the vectors were made with, in the order `--plan-reminder-file` takes them.
pub fn vector_reminders() -> PlanReminders {
    PlanReminders::new(vec![
        REMINDER_EDIT.to_string(),
        REMINDER_PLAN_ONLY.to_string(),
    ])
}

/// The texts of the vectors' reminder files, named as in `tests/vectors/`.
pub(super) const REMINDER_FILES: [(&str, &str); 2] = [
    ("plan-reminder-edit.txt", REMINDER_EDIT),
    ("plan-reminder-plan-only.txt", REMINDER_PLAN_ONLY),
];

/// Every vector as a case named `vector:<name>`, in file order.
pub(super) fn cases() -> Vec<Case> {
    SAMPLE
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("the embedded vectors are JSON");
            vector_case(v).expect("the embedded vectors have the documented shape")
        })
        .collect()
}

fn vector_case(mut v: Value) -> Option<Case> {
    let name = v["name"].as_str()?.to_string();
    let budget = match &v["budget"] {
        Value::String(s) => s.parse().ok()?,
        n => Budget::Units(n.as_i64()?),
    };
    let fail_ids = v["failPersist"]
        .as_array()?
        .iter()
        .map(|id| id.as_str().map(String::from))
        .collect::<Option<Vec<_>>>()?;
    let artifact_dir = v["artifactDir"].as_str()?.to_string();
    let batch = batch_from_value(v["input"].take(), &name).ok()?;
    Some(Case {
        name: format!("vector:{name}"),
        batch,
        budget,
        context_window_tokens: None,
        reminders: vector_reminders(),
        artifact_dir,
        fail_ids,
        expected: Some(v["expected"].take()),
        turn: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vector_is_read_with_its_expected_output() {
        let cases = cases();
        assert_eq!(cases.len(), 20);
        assert_eq!(cases[0].name, "vector:within-budget-unchanged");
        assert_eq!(cases[0].budget, Budget::Units(1000));
        let throws = cases
            .iter()
            .find(|c| c.name == "vector:persist-throws")
            .unwrap();
        assert_eq!(throws.fail_ids, ["throws"]);
        let negative = cases
            .iter()
            .find(|c| c.name == "vector:budget-negative-disabled")
            .unwrap();
        assert_eq!(negative.budget, Budget::Units(-1));
        assert!(cases
            .iter()
            .all(|c| c.expected.as_ref().is_some_and(|e| e["entries"].is_array())));
        assert!(vector_reminders().texts()[0]
            .starts_with("<system-reminder>\nPlanning mode is now active."));
    }
}
