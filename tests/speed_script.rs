//! `scripts/speed-vs-before.sh`: a side-by-side measurement of two binaries, run here on a tiny workload with the
//! same binary as before and after (so the ratio itself is not checked, only what the script prints and leaves).

use std::path::Path;
use std::process::Command;

fn script() -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/speed-vs-before.sh"));
    cmd
}

/// The number of strategies `budgetlab strategies` lists (what a run runs by default).
fn listed_strategies() -> usize {
    let out = Command::new(env!("CARGO_BIN_EXE_budgetlab"))
        .arg("strategies")
        .output()
        .unwrap();
    assert!(out.status.success());
    // A strategy's line starts with its name; its parameters follow on indented lines.
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(' '))
        .count()
}

/// The number of budgets of the shipped scenario `name`.
fn budgets_of(name: &str) -> usize {
    let out = Command::new(env!("CARGO_BIN_EXE_budgetlab"))
        .args(["scenarios", "--json"])
        .output()
        .unwrap();
    let all: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    all.as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap()["budgets"]
        .as_array()
        .unwrap()
        .len()
}

#[test]
fn speed_script_prints_medians_and_ratios_per_thread_count_and_cleans_up() {
    if Command::new("python3").arg("--version").output().is_err() {
        crate::support::tool_missing("no python3 on PATH for scripts/speed-vs-before.sh");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_budgetlab");
    let tmp = tempfile::tempdir().unwrap();
    let out = script()
        .args([
            "--before",
            bin,
            "--after",
            bin,
            "--runs",
            "3",
            "--batches",
            "1",
        ])
        .args(["--threads", "1 2"])
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], format!("before: {bin}"));
    assert_eq!(lines[1], format!("after:  {bin}"));
    assert_eq!(
        lines[2],
        "workload: run --scenarios mixed-realistic --batches 1, 3 interleaved runs each, medians"
    );
    // One row per thread count and binary: the turns (one batch of mixed-realistic at each of its budgets through
    // every listed strategy), the median seconds and the turns per second they make.
    let turns = (budgets_of("mixed-realistic") * listed_strategies()).to_string();
    let rows: Vec<Vec<&str>> = lines
        .iter()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 5 && (w[1] == "before" || w[1] == "after"))
        .collect();
    assert_eq!(rows.len(), 4, "{stdout}");
    for (row, (threads, binary)) in rows.iter().zip([
        ("1", "before"),
        ("1", "after"),
        ("2", "before"),
        ("2", "after"),
    ]) {
        assert_eq!(
            (row[0], row[1], row[2]),
            (threads, binary, turns.as_str()),
            "{stdout}"
        );
        let seconds: f64 = row[3].parse().unwrap();
        let rate: f64 = row[4].parse().unwrap();
        assert!(seconds > 0.0, "{stdout}");
        assert!(
            (rate - turns.parse::<f64>().unwrap() / seconds).abs() <= 0.01 * rate + 1.0,
            "{stdout}"
        );
    }
    let ratios: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("ratio after/before, "))
        .collect();
    assert_eq!(ratios.len(), 2, "{stdout}");
    for (line, threads) in ratios.iter().zip(["1", "2"]) {
        let (label, ratio) = line.split_once(": ").unwrap();
        assert_eq!(label, format!("{threads} thread(s)"));
        let ratio: f64 = ratio.strip_suffix('x').unwrap().parse().unwrap();
        assert!(ratio > 0.0, "{stdout}");
    }
    // Its temporary folder (the runs' --out folders inside) is gone.
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// Outside a git checkout (a source tarball, a packaged copy) a `--before` that is not a file is still one line
/// of the script's own: git's "not a git repository" does not reach stderr.
#[test]
fn speed_script_outside_a_git_checkout_refuses_a_non_file_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("tree");
    std::fs::create_dir_all(tree.join("scripts")).unwrap();
    let copy = tree.join("scripts/speed-vs-before.sh");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/speed-vs-before.sh"),
        &copy,
    )
    .unwrap();
    let out = Command::new("bash")
        .arg(&copy)
        .args(["--before", "v0.0.0-no-such-commit"])
        .env("GIT_CEILING_DIRECTORIES", tmp.path())
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(
            "speed-vs-before: --before 'v0.0.0-no-such-commit' is neither a file nor a commit"
        ),
        "{stderr}"
    );
}

#[test]
fn speed_script_refuses_bad_arguments_with_one_line_and_status_2() {
    let bin = env!("CARGO_BIN_EXE_budgetlab");
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let missing = missing.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "--before BIN|COMMIT is required"),
        (vec!["--before", missing], "is neither a file nor a commit"),
        (vec!["--before", bin, "--runs", "0"], "--runs must be"),
        (vec!["--before", bin, "--batches", "x"], "--batches must be"),
        (
            vec!["--before", bin, "--threads", "1 0"],
            "--threads must list",
        ),
        (vec!["--before", bin, "--after", missing], "--after"),
        (vec!["--before", bin, "--runs"], "--runs needs a value"),
        (vec!["--before", bin, "--fast"], "unknown argument '--fast'"),
    ];
    for (args, expected) in cases {
        let out = script()
            .args(&args)
            .env("TMPDIR", tmp.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("speed-vs-before: "),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}
