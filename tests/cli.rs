//! The `budgetlab` binary end to end: output shape, backends, and bad input (exit 2, one line, nothing on
//! stdout).

use assert_cmd::Command;
use serde_json::Value;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

const BATCH: &str = r#"[{"callId":"c1","toolName":"shell","responseParts":[{"functionResponse":{"id":"c1","name":"shell","response":{"output":"0123456789012345678901234567890123456789"}}}]}]"#;

fn expect_bad_input(args: &[&str], stdin: &str, needle: &str) {
    let out = budgetlab().args(args).write_stdin(stdin).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let fin = ["finalize", "--budget", "10"];
    expect_bad_input(&fin, "[\n {\"callId\": }", "line 2, column 13");
    expect_bad_input(
        &fin,
        r#"[{"callId":"\ud800","toolName":"t","responseParts":[]}]"#,
        "surrogate",
    );
    expect_bad_input(&fin, r#"{"callId":"a"}"#, "must be a JSON array");
    expect_bad_input(
        &fin,
        r#"[{"toolName":"t","responseParts":[]}]"#,
        "entry 0: missing \"callId\"",
    );
    expect_bad_input(
        &fin,
        r#"[{"callId":"a","toolName":"t"}]"#,
        "missing \"responseParts\"",
    );
    expect_bad_input(
        &["finalize", "--budget", "lots"],
        BATCH,
        "invalid budget \"lots\"",
    );
    expect_bad_input(
        &["finalize", "--budget", "1.5"],
        BATCH,
        "invalid budget \"1.5\"",
    );
    expect_bad_input(
        &["finalize", "--budget", "5", "--strategy", "magic"],
        BATCH,
        "invalid strategy \"magic\"",
    );
    expect_bad_input(
        &[
            "finalize",
            "--budget",
            "5",
            "--input",
            "/nonexistent/batch.json",
        ],
        "",
        "/nonexistent/batch.json",
    );
    expect_bad_input(
        &[
            "finalize",
            "--budget",
            "5",
            "--plan-reminder-file",
            "/nonexistent/r.txt",
        ],
        BATCH,
        "/nonexistent/r.txt",
    );
    expect_bad_input(&["finalize"], BATCH, "--budget");
}

#[test]
fn disabled_budgets_print_the_batch_unchanged() {
    for budget in ["-1", "0", "inf"] {
        let out = budgetlab()
            .args(["finalize", "--budget", budget])
            .write_stdin(BATCH)
            .output()
            .unwrap();
        assert!(out.status.success());
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            got["entries"],
            serde_json::from_str::<Value>(BATCH).unwrap(),
            "budget {budget}"
        );
        assert_eq!(got["persisted"], serde_json::json!([]));
    }
}

#[test]
fn fs_backend_writes_the_artifact_and_reports_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let art = dir.path().join("art");
    let input = dir.path().join("batch.json");
    std::fs::write(&input, BATCH).unwrap();
    let out = budgetlab()
        .args([
            "finalize",
            "--budget",
            "10",
            "--backend",
            "fs",
            "--artifact-dir",
            art.to_str().unwrap(),
        ])
        .args(["--input", input.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = format!("{}/c1.txt", art.display());
    assert_eq!(got["persisted"][0]["path"], Value::String(path.clone()));
    assert_eq!(
        got["entries"][0]["persistedOutputFiles"][0],
        Value::String(path.clone())
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "0123456789012345678901234567890123456789"
    );
}

#[test]
fn strategies_lists_every_strategy() {
    let out = budgetlab().arg("strategies").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for s in budgetlab::StrategyName::ALL {
        assert!(
            text.lines().any(|l| l.starts_with(&*s.as_str())),
            "{s} missing"
        );
    }
}

#[test]
fn shipped_example_finalizes() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/turn.json");
    let out = budgetlab()
        .args(["finalize", "--budget", "8000", "--input", example])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The README: the two small fields keep everything and the two large ones share the rest of the 8,000 units,
    // their full outputs written to artifacts the previews name.
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let input: Value = serde_json::from_slice(&std::fs::read(example).unwrap()).unwrap();
    let entries = got["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 4);
    let response = |batch: &Value, i: usize| {
        batch[i]["responseParts"][0]["functionResponse"]["response"].clone()
    };
    let units = |v: &Value| v.as_str().unwrap().encode_utf16().count();
    for small in [2, 3] {
        assert_eq!(entries[small], input[small], "entry {small}");
    }
    let mut total = 0;
    for i in 0..4 {
        let r = response(&got["entries"], i);
        total += ["output", "error"]
            .iter()
            .filter(|k| r[**k].is_string())
            .map(|k| units(&r[*k]))
            .sum::<usize>();
    }
    assert_eq!(total, 8000);
    let persisted: Vec<(&str, &str)> = got["persisted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["callId"].as_str().unwrap(), p["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        persisted,
        [
            ("call_shell_01", "tool-results/call_shell_01.txt"),
            ("call_mcp_02", "tool-results/call_mcp_02.txt")
        ]
    );
    for (i, (_, path)) in persisted.iter().enumerate() {
        let output = response(&got["entries"], i)["output"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(output.contains(path), "{output}");
        assert!(
            units(&response(&got["entries"], i)["output"]) < units(&response(&input, i)["output"])
        );
        assert_eq!(
            got["persisted"][i]["content"],
            response(&input, i)["output"]
        );
    }
}

#[test]
fn simulate_prints_one_json_object_per_turn() {
    let out = budgetlab()
        .args([
            "simulate",
            "--scenario",
            "shell-heavy",
            "--mode",
            "headless",
            "--legacy",
        ])
        .args(["--strategy", "legacy-layers", "--batches", "4", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    for (i, turn) in lines.iter().enumerate() {
        assert_eq!(turn["batch"], i);
        assert_eq!(turn["mode"], "headless");
        assert_eq!(turn["legacy"], true);
        assert_eq!(turn["strategy"], "legacy-layers");
        let boundaries = turn["boundaries"].as_array().unwrap();
        assert_eq!(boundaries[0]["name"], "producers");
        assert_eq!(boundaries.last().unwrap()["name"], "model-request");
        let last = boundaries.last().unwrap()["total"].as_u64().unwrap();
        assert_eq!(
            turn["withinBudget"],
            last <= turn["budget"].as_u64().unwrap()
        );
    }
}

#[test]
fn simulate_rejects_an_unknown_mode() {
    expect_bad_input(
        &["simulate", "--scenario", "shell-heavy", "--mode", "batch"],
        "",
        "invalid mode \"batch\"",
    );
    expect_bad_input(
        &["simulate", "--scenario", "nope"],
        "",
        "not a shipped scenario",
    );
}
