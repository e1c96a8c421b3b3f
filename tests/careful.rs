//! A careful user's round (issue 46): no flag silently ignored (`run --scenarios X --budgets N`), output paths
//! checked before the work, malformed input counted alike wherever it was found, and one summary line where a
//! list would bury the answer.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// Runs `args`; the exit code and stderr.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = budgetlab().args(args).output().unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn budgets_given_with_scenarios_are_the_budgets_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rep");
    let (code, err) = run(&[
        "run",
        "--scenarios",
        "surrogate-storm",
        "--budgets",
        "5000,900",
        "--strategies",
        "reference",
        "--batches",
        "2",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let mut budgets: Vec<String> = results["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["budget_label"].as_str().unwrap().to_string())
        .collect();
    budgets.sort();
    assert_eq!(budgets, ["abs-5000", "abs-900"]);
    // Bad budgets are refused for scenarios as for recorded batches, naming the flag.
    let (code, err) = run(&[
        "run",
        "--scenarios",
        "surrogate-storm",
        "--budgets",
        "5000,5000",
        "--out",
        dir.path().join("never").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--budgets") && err.contains("given twice"),
        "{err}"
    );
    assert!(!dir.path().join("never").exists());
}

