//! Helpers shared by the integration test modules: batch builders and running the finalizers in-process.

use budgetlab::{
    Budget, BudgetContext, Entry, Field, MemoryStore, Outcome, Part, PlanReminders, StrategyName,
};
use serde_json::{json, Value};

/// A function-response part with a string output.
pub(crate) fn output_part(id: &str, name: &str, output: &str) -> Part {
    Part::function_response(id, name, Some(json!(output)), None)
}

/// An entry with one function response carrying `output`.
pub(crate) fn shell_entry(call_id: &str, output: &str) -> Entry {
    Entry::new(
        call_id,
        "shell",
        vec![output_part(call_id, "shell", output)],
    )
}

/// Runs `strategy` at `budget` with the given reminders; returns the outcome and the store.
pub(crate) fn run_with(
    strategy: StrategyName,
    batch: Vec<Entry>,
    budget: i64,
    reminders: PlanReminders,
) -> (Outcome, MemoryStore) {
    let mut store = MemoryStore::new("/tmp");
    let mut ctx = BudgetContext::new(Budget::Units(budget));
    ctx.reminders = reminders;
    let outcome = strategy.build().finalize(batch, &ctx, &mut store);
    (outcome, store)
}

/// Runs the reference finalizer with the built-in reminders.
pub(crate) fn reference(batch: Vec<Entry>, budget: i64) -> (Outcome, MemoryStore) {
    run_with(
        StrategyName::REFERENCE,
        batch,
        budget,
        PlanReminders::default(),
    )
}

/// The string at `field` of part `part` of entry `entry`.
pub(crate) fn field(outcome: &Outcome, entry: usize, part: usize, f: Field) -> &str {
    outcome.batch[entry].response_parts[part]
        .field(f)
        .expect("field present")
}

/// The JSON of a value, for whole-part comparisons.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

/// Whether the tests run in CI (`CI` set to anything but empty, `0` or `false`, as CI systems set it).
pub(crate) fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// A test that cannot run its tool (`what` says which and why): in CI a failure, since CI installs the tool
/// (`.ci/run`) and a green run must mean the test ran; elsewhere a skip, said on stderr.
pub(crate) fn tool_missing(what: &str) {
    assert!(
        !in_ci(),
        "{what}; CI is set, so this test must run (.ci/run installs the tool)"
    );
    eprintln!("skipped: {what}");
}

/// `results.json` of the report folder `dir` without what differs between two runs of the same plan: each row's
/// cost figures, each Pareto view's cost front (timed), and the sha256 of the per-batch files (which hold
/// per-batch costs).
pub(crate) fn results_without_cost(dir: &std::path::Path) -> Value {
    let mut results: Value =
        serde_json::from_slice(&std::fs::read(dir.join("results.json")).unwrap()).unwrap();
    results.as_object_mut().unwrap().remove("sha256");
    for row in results["rows"].as_array_mut().unwrap() {
        row.as_object_mut().unwrap().remove("cost").unwrap();
    }
    for view in results["pareto"].as_array_mut().unwrap() {
        view.as_object_mut().unwrap().remove("cost").unwrap();
    }
    results
}

/// `batches.jsonl` of the report folder `dir` without the cost figures, one value a record.
pub(crate) fn records_without_cost(dir: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("batches.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            for cost in ["costNs", "strategyNs", "floorNs"] {
                record.as_object_mut().unwrap().remove(cost).unwrap();
            }
            record
        })
        .collect()
}

/// The names in `dir`, sorted.
pub(crate) fn names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
