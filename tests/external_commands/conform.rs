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
    // over, and the split pair shown as conform judged it (its lone surrogate escape replaced, not refused).
    let replay = |c: &Value| -> Output {
        let line = c["commands"][0].as_str().unwrap();
        let registered = budgetlab::conform::shell_quote(&format!("wrong={command}"));
        assert!(
            line.starts_with(&format!(
                "budgetlab finalize --external {registered} --external-lone-surrogates replace --strategy wrong "
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
    // The split pair is shown, as conform saw it: a replacement character where half the pair was.
    let out = replay(&pairs);
    assert_success(&out);
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(printed.contains('\u{FFFD}'), "{printed}");
    // Every printed command runs and shows its output.
    for check in ["budget-fits", "surrogates-intact"] {
        let x = counterexample(check);
        for line in x["commands"].as_array().unwrap() {
            let out = Command::new("sh")
                .current_dir(dir)
                .env(
                    "PATH",
                    format!(
                        "{}:{}",
                        Path::new(BIN).parent().unwrap().display(),
                        std::env::var("PATH").unwrap_or_default()
                    ),
                )
                .args(["-c", line.as_str().unwrap()])
                .output()
                .unwrap();
            assert_success(&out);
            let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(printed["entries"].is_array(), "{printed}");
        }
    }
}

/// The Python example with its handshake declaring no persist-faults capability (the context one kept), written
/// into `dir`.
fn without_persist_faults(dir: &Path) -> String {
    let source = fs::read_to_string(format!("{}/headtail.py", examples())).unwrap();
    let changed = source.replace(
        r#""capabilities": ["persist-faults", "context"]"#,
        r#""capabilities": ["context"]"#,
    );
    assert_ne!(changed, source, "the example declares persist-faults");
    let path = dir.join("plain.py");
    fs::write(&path, changed).unwrap();
    format!("python3 '{}'", path.display())
}

#[test]
fn conform_runs_every_check_a_child_without_persist_faults_allows_and_reports_the_rest_not_run() {
    if !have("python3") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let command = without_persist_faults(dir);
    let out = budgetlab(
        dir,
        &[
            "conform",
            "--strategy",
            "plain",
            "--external",
            &format!("plain={command}"),
            "--cases",
            "40",
            "--out",
            "plain",
            "--junit",
            "plain.xml",
        ],
    );
    assert_success(&out);
    let table = String::from_utf8(out.stdout).unwrap();
    let report = read_json(&dir.join("plain/conform.json"));
    assert_eq!(report["passed"], true);
    let checks = report["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 11);
    let reason = "the finalizer does not declare the persist-faults capability";
    for check in checks {
        if check["check"] == "persist-failure-bounded" {
            assert_eq!(check["cases"], 0, "{check}");
            assert_eq!(check["notRun"], reason, "{check}");
        } else {
            assert!(check["cases"].as_u64().unwrap() > 0, "{check}");
            assert_eq!(check["passed"], check["cases"], "{check}");
            assert!(check.get("notRun").is_none(), "{check}");
        }
    }
    // The cases that inject failed writes were left out, and said so.
    let left_out = report["casesNotRun"].as_u64().unwrap();
    assert!(left_out > 0, "{report}");
    assert!(
        table.contains(&format!(
            "| `persist-failure-bounded` | 0 | - | not run: {reason} |"
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "{left_out} cases that inject failed writes not run"
        )),
        "{table}"
    );
    let junit = fs::read_to_string(dir.join("plain.xml")).unwrap();
    assert!(
        junit.contains(&format!(
            "name=\"persist-failure-bounded\">\n      <skipped message=\"not run: {reason}\"/>"
        )),
        "{junit}"
    );
    assert!(junit.contains("failures=\"0\" skipped=\"1\""), "{junit}");
}
