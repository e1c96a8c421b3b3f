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

#[test]
fn calibrate_refuses_an_unwritable_out_before_reading_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    std::fs::write(&file, "not a folder").unwrap();
    // The corpus does not exist: the fit would fail on it, but --out is judged first.
    let (code, err) = run(&[
        "calibrate",
        dir.path().join("missing.jsonl").to_str().unwrap(),
        "--out",
        file.join("fitted.toml").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--out"), "{err}");
    assert!(!err.contains("missing.jsonl"), "{err}");
}

#[test]
fn check_refuses_an_unwritable_junit_before_reading_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    std::fs::write(&file, "not a folder").unwrap();
    let (code, err) = run(&[
        "check",
        "--baseline",
        dir.path().join("no-baseline").to_str().unwrap(),
        "--current",
        dir.path().join("no-current").to_str().unwrap(),
        "--junit",
        file.join("junit.xml").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--junit"), "{err}");
    assert!(!err.contains("no-baseline"), "{err}");
}

