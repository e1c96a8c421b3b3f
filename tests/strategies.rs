//! Every strategy through the real binary: `budgetlab finalize --strategy NAME [--context-window TOKENS]`
//! accepts each listed name and the `head-tail-<ratio>` family, and the listing describes each.

use assert_cmd::Command;
use serde_json::{json, Value};

use budgetlab::StrategyName;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// A one-line shell log of `len` units and a short error.
fn batch(len: usize) -> String {
    let log = "x".repeat(len - 1) + "\n";
    json!([
        {"callId": "c1", "toolName": "shell", "responseParts": [
            {"functionResponse": {"name": "shell", "response": {"output": log}}}]},
        {"callId": "c2", "toolName": "read_file", "responseParts": [
            {"functionResponse": {"name": "read_file", "response": {"error": "not found"}}}]}
    ])
    .to_string()
}

fn finalize(strategy: &str, log_len: usize, extra: &[&str]) -> Value {
    let out = budgetlab()
        .args(["finalize", "--budget", "5000", "--strategy", strategy])
        .args(extra)
        .write_stdin(batch(log_len))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{strategy}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn output_len(report: &Value) -> usize {
    report["entries"][0]["responseParts"][0]["functionResponse"]["response"]["output"]
        .as_str()
        .unwrap()
        .encode_utf16()
        .count()
}

#[test]
fn finalize_accepts_every_strategy() {
    let mut names: Vec<String> = StrategyName::all().iter().map(|s| s.to_string()).collect();
    names.extend(["head-tail-0.25".to_string(), "head-tail-1.0".to_string()]);
    for name in &names {
        // 120,000 units: over every strategy's threshold, and over the budget.
        let report = finalize(name, 120_000, &["--context-window", "16000"]);
        assert_eq!(report["entries"].as_array().unwrap().len(), 2, "{name}");
        assert!(output_len(&report) < 120_000, "{name} left the log whole");
    }
}

#[test]
fn the_context_window_reaches_the_policies() {
    // window-relative trims at 4,800 units with a 16k window, but not at all with a 1M one (100,000).
    assert_eq!(
        output_len(&finalize(
            "window-relative",
            60_000,
            &["--context-window", "16000"]
        )),
        2_000
    );
    assert_eq!(
        output_len(&finalize(
            "window-relative",
            60_000,
            &["--context-window", "1000000"]
        )),
        60_000
    );
}

#[test]
fn listing_describes_every_strategy_and_bad_names_exit_2() {
    let out = budgetlab().arg("strategies").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // One line a strategy, then one indented line a parameter it declares.
    let expected: usize = StrategyName::all()
        .iter()
        .map(|s| 1 + s.params().len())
        .sum();
    assert_eq!(text.lines().count(), expected);
    let lines: Vec<&str> = text.lines().collect();
    for s in StrategyName::all() {
        let at = lines
            .iter()
            .position(|l| l.split_whitespace().next() == Some(&*s.as_str()))
            .unwrap_or_else(|| panic!("{s} missing"));
        assert!(lines[at].ends_with(s.description()), "{}", lines[at]);
        for (i, p) in s.params().iter().enumerate() {
            let line = lines[at + 1 + i].trim_start();
            assert!(line.starts_with(&format!("- {} (", p.name)), "{s}: {line}");
            assert!(line.ends_with(p.description), "{s}: {line}");
        }
    }
    let weighted = lines
        .iter()
        .position(|l| l.starts_with("weighted "))
        .unwrap();
    assert_eq!(
        lines[weighted + 2].trim_start(),
        "- error (1 to 1000, default 2): the weight of a tool error in the fair share"
    );
    let half = lines
        .iter()
        .position(|l| l.starts_with("head-tail-0.5 "))
        .unwrap();
    assert!(
        lines[half + 1]
            .trim_start()
            .starts_with("- head_share (0 to 1, default 0.5): "),
        "{}",
        lines[half + 1]
    );
    let out = budgetlab()
        .args(["finalize", "--budget", "10", "--strategy", "head-tail-2"])
        .write_stdin("[]")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("between 0 and 1"), "{err}");
}

#[test]
fn a_configured_strategy_is_a_name_finalize_and_run_take() {
    // The configured threshold and preview replace the defaults (100,000 and 2,000).
    assert_eq!(
        output_len(&finalize(
            "window-relative(configured_chars=8000,preview_chars=500)",
            60_000,
            &[]
        )),
        500
    );
    assert_eq!(
        output_len(&finalize("window-relative", 60_000, &[])),
        60_000
    );
    // A bad parameter: exit 2, one line naming the key and its range.
    let out = budgetlab()
        .args([
            "finalize",
            "--budget",
            "10",
            "--strategy",
            "window-relative(preview_chars=0)",
        ])
        .write_stdin("[]")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "budgetlab: --strategy: invalid strategy \"window-relative(preview_chars=0)\": preview_chars=0: must be \
         at least 1 (preview_chars takes 1 to 1000000000000)\n"
    );
    // `run` splits its list at the commas outside parentheses, and writes the canonical names.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("rep");
    let out = budgetlab()
        .args([
            "run",
            "--scenarios",
            "many-small",
            "--batches",
            "2",
            "--strategies",
            "reference,weighted(head_share=1/2,error=5)",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Value =
        serde_json::from_slice(&std::fs::read(dir.join("results.json")).unwrap()).unwrap();
    let strategies: std::collections::BTreeSet<&str> = results["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(
        strategies,
        ["reference", "weighted(error=5,head_share=0.5)"].into()
    );
}
