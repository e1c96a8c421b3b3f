//! Bounded memory (issue 15): `run` streams its records into the report folder a window of batches at a time, in
//! run order and the same bytes on any thread count, leaving nothing of its work behind. (That its peak memory stays
//! flat is `tests/memory.rs`, a test binary of its own.)

use crate::support::records_without_cost;
use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// `batches.csv` without its last three columns (the cost figures).
fn csv_without_cost(dir: &Path) -> Vec<String> {
    fs::read_to_string(dir.join("batches.csv"))
        .unwrap()
        .lines()
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            cells[..cells.len() - 3].join(",")
        })
        .collect()
}

/// A run of 80 batches (more than two windows of 32 on one or two threads) of two scenarios.
fn long_run(out: &Path, threads: &str) {
    budgetlab()
        .args([
            "run",
            "--scenarios",
            "pre-persisted",
            "small-window",
            "--strategies",
            "reference,codex",
            "--batches",
            "80",
            "--threads",
            threads,
            "--out",
        ])
        .arg(out)
        .assert()
        .success();
}

#[test]
fn a_run_of_several_windows_writes_run_order_and_the_same_bytes_on_one_and_two_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    long_run(&one, "1");
    long_run(&two, "2");
    let records = records_without_cost(&one);
    assert_eq!(records_without_cost(&two), records);
    assert_eq!(csv_without_cost(&two), csv_without_cost(&one));

    // Run order: scenario, budget, strategy, batch, as the inputs list them.
    let results: Value =
        serde_json::from_slice(&fs::read(one.join("results.json")).unwrap()).unwrap();
    let mut expected = Vec::new();
    for scenario in results["inputs"]["scenarios"].as_array().unwrap() {
        for budget in scenario["budgets"].as_array().unwrap() {
            for strategy in ["reference", "codex"] {
                for batch in 0..80u64 {
                    expected.push((
                        scenario["name"].as_str().unwrap().to_string(),
                        budget["label"].as_str().unwrap().to_string(),
                        strategy.to_string(),
                        batch,
                    ));
                }
            }
        }
    }
    let order: Vec<(String, String, String, u64)> = records
        .iter()
        .map(|r| {
            (
                r["scenario"].as_str().unwrap().to_string(),
                r["budgetLabel"].as_str().unwrap().to_string(),
                r["strategy"].as_str().unwrap().to_string(),
                r["metrics"]["batch"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(order, expected);
    assert_eq!(csv_without_cost(&one).len(), 1 + expected.len());

    // The files results.json records the sha256 of are the ones written, and nothing of the work is left.
    let sha = |path: &Path| {
        use sha2::Digest;
        sha2::Sha256::digest(fs::read(path).unwrap())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    assert_eq!(
        results["sha256"]["batches.jsonl"],
        sha(&one.join("batches.jsonl"))
    );
    assert_eq!(
        results["sha256"]["batches.csv"],
        sha(&one.join("batches.csv"))
    );
    let mut names: Vec<String> = fs::read_dir(&one)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ".budgetlab-report",
            "batches.csv",
            "batches.jsonl",
            "charts",
            "index.html",
            "results.json",
            "summary.md"
        ]
    );
    let siblings: Vec<String> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(siblings.len(), 2, "{siblings:?}");
}
