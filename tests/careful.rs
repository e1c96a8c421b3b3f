//! A careful user's round (issue 46): no flag silently ignored (`run --scenarios X --budgets N`), output paths
//! checked before the work, malformed input counted alike wherever it was found, and one summary line where a
//! list would bury the answer.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

fn fixture(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(rel)
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
        .map(|r| r["budgetLabel"].as_str().unwrap().to_string())
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

#[test]
fn an_impossible_history_date_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (code, err) = run(&[
        "history",
        "add",
        "--db",
        dir.path().join("h.sqlite").to_str().unwrap(),
        "--date",
        "2026-02-30",
        dir.path().join("no-run").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--date") && err.contains("2026-02-30"),
        "{err}"
    );
}

/// A folder with one good swe-agent trajectory and a truncated one.
fn trajectories(dir: &Path) -> std::path::PathBuf {
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    let good = fixture("swe-agent/run-0x/astropy__astropy-12907/astropy__astropy-12907.traj");
    let text = std::fs::read(&good).unwrap();
    std::fs::write(logs.join("a.traj"), &text).unwrap();
    std::fs::write(logs.join("b.traj"), &text[..text.len() / 2]).unwrap();
    logs
}

#[test]
fn a_truncated_trajectory_is_malformed_walked_or_named() {
    let dir = tempfile::tempdir().unwrap();
    let logs = trajectories(dir.path());
    let out = dir.path().join("out.jsonl");
    let out = out.to_str().unwrap();
    for format in ["auto", "swe-agent"] {
        // Walked or named, without --skip-bad the import stops at the truncated file, naming it.
        for path in [logs.clone(), logs.join("b.traj")] {
            let (code, err) = run(&[
                "import",
                "--format",
                format,
                path.to_str().unwrap(),
                "--out",
                out,
            ]);
            assert_eq!(code, Some(2), "{format} {path:?}: {err}");
            assert!(
                err.contains("b.traj") && err.contains("invalid JSON"),
                "{err}"
            );
            assert!(!Path::new(out).exists());
        }
        // With --skip-bad it is counted as malformed, walked or named, and the good one imported.
        let walked = run(&[
            "import",
            "--skip-bad",
            "--format",
            format,
            logs.to_str().unwrap(),
            "--out",
            out,
        ]);
        let named = run(&[
            "import",
            "--skip-bad",
            "--format",
            format,
            logs.join("a.traj").to_str().unwrap(),
            logs.join("b.traj").to_str().unwrap(),
            "--out",
            out,
        ]);
        for (code, err) in [walked, named] {
            assert_eq!(code, Some(0), "{format}: {err}");
            assert!(
                err.contains("skipped 1 malformed files (--skip-bad)"),
                "{format}: {err}"
            );
            assert!(
                err.contains("read 1 files (1 swe-agent)"),
                "{format}: {err}"
            );
        }
        // The next format's failures are judged on a fresh path: a failed import leaves an earlier output as
        // it was, so it would still be there.
        std::fs::remove_file(out).unwrap();
        let used = out.replace(".jsonl", ".used.jsonl");
        let _ = std::fs::remove_file(used);
    }
}

#[test]
fn import_says_what_it_left_out_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mine.jsonl");
    let (code, err) = run(&[
        "import",
        "--format",
        "auto",
        fixture("").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    // The summary, what was left out, the used lines; and the one warning that a format's sessions could not
    // be measured (the gemini-cli fixture's conversation without agent text).
    assert_eq!(lines.len(), 4, "{err}");
    assert!(lines[0].starts_with("budgetlab: read 15 files ("), "{err}");
    assert!(
        lines[1].starts_with("budgetlab: ignored 1 files that are not session logs, skipped "),
        "{err}"
    );
    assert!(lines[1].ends_with("; --verbose lists them"), "{err}");
    assert!(
        lines[2].starts_with("budgetlab: used tokens and lines "),
        "{err}"
    );
    assert!(
        lines[3].starts_with("budgetlab: gemini-cli: 1 sessions record no assistant message"),
        "{err}"
    );
}

/// A batch file of `entries` entries whose outputs are lines of `line_len` bytes, `lines` of them each, the line
/// breaks escaped (`\n`), as real tool output has them.
fn escaped_batch(path: &Path, entries: usize, lines: usize, line_len: usize) {
    use std::io::Write;
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let line = format!("{}\\n", "y".repeat(line_len));
    file.write_all(b"[").unwrap();
    for i in 0..entries {
        if i > 0 {
            file.write_all(b",").unwrap();
        }
        write!(
            file,
            r#"{{"callId":"c{i}","toolName":"shell","responseParts":[{{"functionResponse":{{"id":"c{i}","name":"shell","response":{{"output":""#
        )
        .unwrap();
        for _ in 0..lines {
            file.write_all(line.as_bytes()).unwrap();
        }
        file.write_all(br#""}}}]}"#).unwrap();
    }
    file.write_all(b"]").unwrap();
    file.flush().unwrap();
}

#[test]
fn finalize_of_a_huge_batch_under_an_address_space_limit_is_refused_not_aborted() {
    // 200 MB in one output with escaped line breaks (the parser's scratch buffer doubles as it fills), and 220 MB
    // of 400,000 small entries (every value its own node): under 700 and 800 MB of address space both aborted
    // (exit 134) when only their text was asked for before parsing.
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.json");
    escaped_batch(&one, 1, 2_000_000, 99);
    let many = dir.path().join("many.json");
    escaped_batch(&many, 400_000, 1, 400);
    for (batch, limit) in [(&one, 700_000), (&one, 800_000), (&many, 800_000)] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v {limit}; exec \"$0\" finalize --budget 50000 --input \"$1\""
            ))
            .arg(env!("CARGO_BIN_EXE_budgetlab"))
            .arg(batch)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        // Done (the memory sufficed) or refused in one line; never an abort.
        assert!(
            out.status.code() == Some(0)
                || (out.status.code() == Some(2)
                    && err.lines().count() == 1
                    && err.contains("out of memory")),
            "{batch:?} under {limit} KB: {:?} {err}",
            out.status
        );
    }
}

#[test]
fn a_headless_claude_code_run_is_imported_like_a_transcript() {
    // `claude -p --output-format stream-json`: an init line, the API messages without uuids, the session in
    // session_id, a result line at the end; two results of one response arriving out of call order.
    let run_log =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code-headless/run.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("h.jsonl");
    for format in ["auto", "claude-code"] {
        let (code, err) = run(&[
            "import",
            "--verbose",
            "--format",
            format,
            run_log.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{err}");
        assert!(
            err.contains("read 1 files (1 claude-code); wrote 2 batches with 3 results"),
            "{err}"
        );
        assert!(
            err.contains("result line (a headless run's answer and cost)"),
            "{err}"
        );
        assert!(!err.contains("line of another type"), "{err}");
        let batches: Vec<Value> = std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let ids: Vec<Vec<&str>> = batches
            .iter()
            .map(|b| {
                b["entries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["callId"].as_str().unwrap())
                    .collect()
            })
            .collect();
        assert_eq!(ids, [vec!["toolu_01", "toolu_02"], vec!["toolu_03"]]);
        for b in &batches {
            assert_eq!(
                b["group"]["session"],
                "5d0c7c52-0000-4000-8000-000000000001"
            );
        }
        std::fs::remove_file(&out).unwrap();
    }
}
