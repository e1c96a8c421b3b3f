//! `conform` on external finalizers: the served reference, the Python and Node examples, the wrong example's
//! two bugs.

use super::*;

#[test]
fn conform_passes_the_served_reference_as_the_reference() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let serve = self_serve("self", "reference");
    let out = budgetlab(
        dir,
        &[
            "conform",
            "--strategy",
            "self",
            "--external",
            &serve,
            "--as",
            "reference",
            "--cases",
            "20",
            "--out",
            "conform",
        ],
    );
    assert_success(&out);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains(": all 13 checks hold."), "{stdout}");
    let report = read_json(&dir.join("conform/conform.json"));
    assert_eq!(report["strategy"], "self");
    assert_eq!(report["passed"], true);
}

/// `conform` on an example (in `dir`, with few generated cases): the exit status and the report.
fn conform_example(dir: &Path, name: &str, command: &str) -> (Option<i32>, Value) {
    let out = budgetlab(
        dir,
        &[
            "conform",
            "--strategy",
            name,
            "--external",
            &format!("{name}={command}"),
            "--cases",
            "40",
            "--out",
            name,
        ],
    );
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.code(),
        read_json(&dir.join(name).join("conform.json")),
    )
}

/// The checks of a conform report that failed.
fn failed_checks(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] != c["cases"])
        .map(|c| c["check"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn conform_passes_the_python_and_node_examples_on_every_check() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let examples = examples();
    let mut ran = 0;
    if have("python3") {
        let (status, report) = conform_example(
            dir,
            "headtail",
            &format!("python3 '{examples}/headtail.py'"),
        );
        assert_eq!((status, failed_checks(&report)), (Some(0), vec![]));
        assert_eq!(report["checks"].as_array().unwrap().len(), 11);
        ran += 1;
    }
    if have("node") {
        let (status, report) = conform_example(
            dir,
            "headtail-js",
            &format!("node '{examples}/headtail.js'"),
        );
        assert_eq!((status, failed_checks(&report)), (Some(0), vec![]));
        ran += 1;
    }
    if ran > 0 {
        // The examples wrote their artifacts under their working folder, budgetlab's.
        assert!(dir.join("tool-results").is_dir());
    }
}

#[test]
fn conform_catches_both_bugs_of_the_wrong_example_with_shrunk_counterexamples() {
    if !have("python3") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let command = format!("python3 '{}/wrong.py'", examples());
    let (status, report) = conform_example(dir, "wrong", &command);
    assert_eq!(status, Some(1));
    assert_eq!(failed_checks(&report), ["budget-fits", "surrogates-intact"]);
    let counterexample = |check: &str| -> Value {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == check)
            .unwrap()["counterexample"]
            .clone()
    };
    // Overshoot: shrunk to one entry of a few units, one unit over a budget of 1.
    let fits = counterexample("budget-fits");
    assert_eq!(fits["shrunk"]["entries"], 1);
    assert!(fits["shrunk"]["textUnits"].as_u64().unwrap() <= 4, "{fits}");
    assert_eq!(fits["message"], "budgeted total 2 exceeds the budget 1");
    // The split pair: shrunk to one entry whose cut falls inside an emoji.
    let pairs = counterexample("surrogates-intact");
    assert_eq!(pairs["shrunk"]["entries"], 1);
    assert!(
        pairs["shrunk"]["textUnits"].as_u64().unwrap() < 100,
        "{pairs}"
    );
    assert!(
        pairs["message"]
            .as_str()
            .unwrap()
            .contains("a cut splits a surrogate pair"),
        "{pairs}"
    );
    // Each replay command registers the program again, and replays the failure through `finalize`: one unit
    // over, and the split pair refused as a lone surrogate escape.
    let replay = |c: &Value| -> Output {
        let line = c["commands"][0].as_str().unwrap();
        let registered = budgetlab::conform::shell_quote(&format!("wrong={command}"));
        assert!(
            line.starts_with(&format!(
                "budgetlab finalize --external {registered} --strategy wrong "
            )),
            "{line}"
        );
        let path = format!(
            "{}:{}",
            Path::new(BIN).parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Command::new("sh")
            .current_dir(dir)
            .env("PATH", path)
            .args(["-c", line])
            .output()
            .unwrap()
    };
    let out = replay(&fits);
    assert_success(&out);
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entries = budgetlab::parse_batch(printed["entries"].to_string().as_bytes(), "out").unwrap();
    let total = budgetlab::finalize::budgeted_total(
        &entries,
        &budgetlab::PlanReminders::default(),
        budgetlab::finalize::SlotScope::ALL,
    );
    assert_eq!(total, 2, "one unit over the budget of 1");
    let line = one_line_failure(&replay(&pairs));
    assert!(line.contains("lone UTF-16 surrogate escape"), "{line}");
}
