//! The cost check: a strategy made three times slower fails its rows' cost checks and nothing else.

use super::*;
use std::collections::BTreeMap;

/// A run of two scenarios through three strategies, 12 batches each, with the test-only slowdown when given.
fn cost_run(out: &Path, slowdown: Option<&str>) -> String {
    let mut cmd = budgetlab();
    cmd.args(["run", "--scenarios", "mixed-realistic", "many-small"])
        .args([
            "--strategies",
            "reference,greedy,codex",
            "--batches",
            "12",
            "--out",
        ])
        .arg(out)
        .env_remove("BUDGETLAB_TEST_SLOWDOWN");
    if let Some(s) = slowdown {
        cmd.env("BUDGETLAB_TEST_SLOWDOWN", s);
    }
    let done = cmd.output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    String::from_utf8(done.stderr).unwrap()
}

/// The failed checks of a verdict's table, as (scenario, budget, strategy, check).
fn failed_checks(verdict: &str) -> Vec<(String, String, String, String)> {
    verdict
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| scenario |"))
        .map(|l| {
            let cells: Vec<String> = l
                .split(" | ")
                .map(|c| c.trim_matches(['|', ' ']).to_string())
                .collect();
            (
                cells[0].clone(),
                cells[1].clone(),
                cells[2].clone(),
                cells[3].clone(),
            )
        })
        .collect()
}

/// The gate's cost is the strategy's time over the floor's, measured side by side in one process: a strategy
/// made three times slower fails the cost check of every one of its rows and nothing else, while an unchanged run
/// passes, whatever the other tests running meanwhile do to the machine.
#[test]
fn the_cost_check_fails_a_threefold_slowdown_and_passes_an_unchanged_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    cost_run(&dir("base"), None);
    cost_run(&dir("same"), None);
    let note = cost_run(&dir("slow"), Some("reference:3"));
    assert!(
        note.contains("BUDGETLAB_TEST_SLOWDOWN (test only): reference x3 repeat their work"),
        "{note}"
    );
    let check = |current: &str| {
        let out = budgetlab()
            .args(["check", "--baseline"])
            .arg(dir("base"))
            .arg("--current")
            .arg(dir(current))
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };

    let (code, verdict) = check("same");
    assert_eq!(
        code,
        Some(0),
        "an unchanged run failed the gate:\n{verdict}"
    );

    let (code, verdict) = check("slow");
    assert_eq!(code, Some(1), "{verdict}");
    let failed = failed_checks(&verdict);
    let reference_rows = 6 + 3; // mixed-realistic's budgets and many-small's
    assert_eq!(failed.len(), reference_rows, "{verdict}");
    for (_, _, strategy, kind) in &failed {
        assert_eq!(
            (strategy.as_str(), kind.as_str()),
            ("reference", "cost"),
            "{verdict}"
        );
    }
    assert!(verdict.contains("cost.floorRatio moved from "), "{verdict}");
    // The results themselves are the strategy's own: only the cost figures differ from the unslowed run.
    assert!(results_without_cost(&dir("slow")) == results_without_cost(&dir("base")));

    // The knob refuses what it cannot do.
    let out = budgetlab()
        .args(["run", "--quick", "--scenarios", "many-small", "--out"])
        .arg(dir("never"))
        .env("BUDGETLAB_TEST_SLOWDOWN", "reference:0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("invalid BUDGETLAB_TEST_SLOWDOWN \"reference:0\": the factor is a whole number from 1 to 10"),
        "{err}"
    );
    assert!(!dir("never").exists());
}

/// Every file of a folder, by its path under the folder, with its bytes.
fn folder_bytes(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

/// The fixed clock (what `scripts/same-outputs` compares two builds with) makes a run's every byte follow from
/// its input: two runs on different thread counts write the same files, cost figures and charts included, and the
/// per-batch cost is the one the formula gives (a unit of budgeted text plus one, the floor half the units plus
/// one).
#[test]
fn under_the_fixed_clock_a_run_writes_the_same_bytes_on_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |name: &str, threads: &str| {
        let out = tmp.path().join(name);
        let done = budgetlab()
            .args(["run", "--scenarios", "mixed-realistic", "--strategies"])
            .args([
                "reference,greedy",
                "--batches",
                "6",
                "--threads",
                threads,
                "--out",
            ])
            .arg(&out)
            .env("BUDGETLAB_TEST_SLOWDOWN", "fixed-clock")
            .output()
            .unwrap();
        assert!(done.status.success());
        assert!(String::from_utf8_lossy(&done.stderr)
            .contains("BUDGETLAB_TEST_SLOWDOWN (test only): the clock is fixed; the cost figures are not real"));
        out
    };
    let (one, two) = (run("one", "1"), run("two", "2"));
    let files = folder_bytes(&one);
    assert!(files.len() >= 10, "{:?}", files.keys());
    assert!(files == folder_bytes(&two), "the two runs' files differ");
    let csv = String::from_utf8(files[Path::new("batches.csv")].clone()).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let input: u64 = cells[col("input_total")].parse().unwrap();
        let strategy: u64 = cells[col("strategy_ns")].parse().unwrap();
        let floor: u64 = cells[col("floor_ns")].parse().unwrap();
        assert!(strategy > input, "{line}");
        assert!(floor > input / 2, "{line}");
        assert_eq!(cells[col("cost_ns")], cells[col("strategy_ns")], "{line}");
    }
}
