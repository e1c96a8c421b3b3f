//! What the long commands tell their user besides their outputs: the page to open, progress lines in a log (no
//! terminal), which scenario runs when a shipped one and a local file share its name, and JSON for machines from
//! `check`, `scenarios` and `calibrate`.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn budgetlab(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_budgetlab"));
    cmd.current_dir(dir);
    cmd
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

fn shipped_text(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{name}.toml")),
    )
    .unwrap()
}

/// `text` with its top-level `seed = N` line replaced by `seed = seed`.
fn with_seed(text: &str, seed: u64) -> String {
    let mut done = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            if !done && l.starts_with("seed = ") {
                done = true;
                format!("seed = {seed}")
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(done, "the scenario has a top-level seed line");
    lines.join("\n") + "\n"
}

/// The progress lines of `stderr` about `units`, as (done, of, percent).
fn progress_lines(stderr: &str, units: &str) -> Vec<(u64, u64, u64)> {
    let number = |s: &str| s.replace(',', "").parse::<u64>().unwrap();
    stderr
        .lines()
        .filter(|l| l.contains(&format!(" {units} (")))
        .map(|l| {
            let rest = l.strip_prefix("budgetlab: ").unwrap();
            let (done, rest) = rest.split_once(" of ").unwrap();
            let (of, rest) = rest.split_once(&format!(" {units} (")).unwrap();
            let (percent, rest) = rest.split_once("%), ").unwrap();
            assert!(rest.ends_with(" elapsed"), "{l}");
            let clock = rest.trim_end_matches(" elapsed");
            assert_eq!(clock.split(':').count(), 3, "{l}");
            (number(done), number(of), number(percent))
        })
        .collect()
}

#[test]
fn a_run_names_its_page_and_without_a_terminal_prints_progress_lines_that_only_grow() {
    let tmp = tempfile::tempdir().unwrap();
    let out = budgetlab(tmp.path())
        .args(["run", "--quick", "--scenarios", "many-small"])
        .args(["--strategies", "reference,proportional", "--out", "rep"])
        .env("BUDGETLAB_PROGRESS_INTERVAL_MS", "0")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    // many-small: 12 batches at 3 budgets, 2 strategies.
    let lines = progress_lines(&err, "turns");
    assert!(!lines.is_empty(), "{err}");
    let mut last = 0;
    for &(done, of, percent) in &lines {
        assert_eq!(of, 72, "{err}");
        assert!(done >= last && done <= of, "{err}");
        assert_eq!(percent, done * 100 / of);
        last = done;
    }
    let final_line = err.lines().last().unwrap();
    assert_eq!(
        final_line,
        "budgetlab: 72 turns, 6 rows (6 fully within budget) written to rep; open rep/index.html"
    );
    assert!(tmp.path().join("rep/index.html").is_file());

    // The default interval is ten seconds: a run this small prints no progress line in a log.
    let quiet = budgetlab(tmp.path())
        .args(["run", "--quick", "--scenarios", "many-small"])
        .args([
            "--strategies",
            "reference",
            "--batches",
            "1",
            "--out",
            "rep",
        ])
        .env_remove("BUDGETLAB_PROGRESS_INTERVAL_MS")
        .output()
        .unwrap();
    let err = stderr(&quiet);
    assert!(quiet.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn calibrate_reports_progress_and_prints_json_whose_verdict_is_its_exit_status() {
    let tmp = tempfile::tempdir().unwrap();
    let gen = budgetlab(tmp.path())
        .args([
            "generate",
            "--scenario",
            "mixed-realistic",
            "--batches",
            "40",
        ])
        .args(["--out", "corpus.jsonl"])
        .output()
        .unwrap();
    assert!(gen.status.success(), "{}", stderr(&gen));
    let out = budgetlab(tmp.path())
        .args(["calibrate", "corpus.jsonl", "--out", "fit.toml", "--json"])
        .env("BUDGETLAB_PROGRESS_INTERVAL_MS", "0")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["passed"], out.status.code() == Some(0), "{json}");
    assert_eq!(json["corpus"]["name"], "corpus.jsonl");
    assert_eq!(json["corpus"]["batches"], 40);
    assert_eq!(json["scenario"]["name"], "fit");
    let checks = json["checks"].as_array().unwrap();
    assert!(checks.len() >= 10, "{json}");
    let checked = checks.iter().filter(|c| !c["passed"].is_null()).count();
    let failed = checks.iter().filter(|c| c["passed"] == false).count();
    assert!(checked > 0);
    assert_eq!(json["passed"], failed == 0);
    for c in checks {
        assert_eq!(c["miss"].is_null(), c["passed"].is_null(), "{c}");
    }
    assert!(json["tools"].as_array().is_some_and(|t| !t.is_empty()));
    // 12 rounds of the parametric fit and 12 of the empirical one at most, and the final check: the last line
    // says all of them are done.
    let steps = budgetlab::calibrate::PROGRESS_STEPS;
    assert_eq!(steps, 25);
    let lines = progress_lines(&err, "steps of fitting");
    assert_eq!(lines.last(), Some(&(steps, steps, 100)), "{err}");
    assert!(lines.windows(2).all(|w| w[0].0 <= w[1].0), "{err}");
}

#[test]
fn check_and_scenarios_print_json() {
    let tmp = tempfile::tempdir().unwrap();
    let run = budgetlab(tmp.path())
        .args(["run", "--quick", "--scenarios", "many-small", "one-giant"])
        .args(["--strategies", "reference,send-guard", "--out", "rep"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    let out = budgetlab(tmp.path())
        .args(["check", "--baseline", "rep", "--current", "rep", "--json"])
        .args(["--tolerance", "cost=off"])
        .output()
        .unwrap();
    let err = stderr(&out);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    // send-guard is over budget in one-giant, but only the reference is held to the budget: the run passes
    // against itself.
    assert_eq!(out.status.code(), Some(0), "{err}{json}");
    assert_eq!(json["passed"], true);
    assert_eq!(json["matchedRows"], 12);
    assert_eq!(json["failed"], 0);
    let cases = json["cases"].as_array().unwrap();
    assert_eq!(json["checks"], cases.len());
    assert!(cases.iter().all(|c| c["passed"] == true));
    assert_eq!(
        cases.iter().filter(|c| c["check"] == "inputs").count(),
        2,
        "one inputs check a scenario"
    );
    let cost = json["tolerances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["metric"] == "cost")
        .unwrap();
    assert_eq!(cost["tolerance"], "off");

    // --json and --junit - would both want stdout.
    let both = budgetlab(tmp.path())
        .args(["check", "--baseline", "rep", "--current", "rep", "--json"])
        .args(["--junit", "-"])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    assert_eq!(stderr(&both).lines().count(), 1, "{}", stderr(&both));
    assert!(both.stdout.is_empty());

    // The scenarios' JSON digests are those the run recorded.
    let list = budgetlab(tmp.path())
        .args(["scenarios", "--json"])
        .output()
        .unwrap();
    assert!(list.status.success());
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    let list = list.as_array().unwrap();
    let text = budgetlab(tmp.path()).arg("scenarios").output().unwrap();
    assert_eq!(
        list.len(),
        String::from_utf8(text.stdout).unwrap().lines().count()
    );
    let results: Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("rep/results.json")).unwrap())
            .unwrap();
    for info in results["inputs"]["scenarios"].as_array().unwrap() {
        let listed = list.iter().find(|s| s["name"] == info["name"]).unwrap();
        assert_eq!(listed["digest"], info["digest"], "{listed}");
        assert_eq!(listed["seed"], info["seed"], "{listed}");
    }
    let many_small = list.iter().find(|s| s["name"] == "many-small").unwrap();
    let units: Vec<u64> = many_small["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["units"].as_u64().unwrap())
        .collect();
    assert_eq!(units, [4000, 10000, 30000]);
}

#[test]
fn a_local_scenario_file_that_differs_from_the_shipped_one_of_its_name_is_named_on_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("scenarios")).unwrap();
    let local = tmp.path().join("scenarios/shell-heavy.toml");
    let generate = |scenario: &str| {
        budgetlab(tmp.path())
            .args(["generate", "--scenario", scenario, "--batches", "1"])
            .output()
            .unwrap()
    };

    // The same scenario: nothing to say.
    std::fs::write(&local, shipped_text("shell-heavy")).unwrap();
    let out = generate("shell-heavy");
    assert!(out.status.success());
    assert_eq!(stderr(&out), "");

    // Edited: the shipped one runs by name, and says so.
    std::fs::write(&local, with_seed(&shipped_text("shell-heavy"), 4242)).unwrap();
    let shipped_batch = generate("shell-heavy");
    assert_eq!(
        stderr(&shipped_batch),
        "budgetlab: note: the shipped scenario shell-heavy runs, not scenarios/shell-heavy.toml, which \
         differs from it; `--scenario scenarios/shell-heavy.toml` runs the file\n"
    );
    // The file, named, runs and says so; its batch is not the shipped one's.
    let file_batch = generate("scenarios/shell-heavy.toml");
    assert_eq!(
        stderr(&file_batch),
        "budgetlab: note: scenarios/shell-heavy.toml runs, not the shipped scenario shell-heavy, which \
         differs from it; `--scenario shell-heavy` runs the shipped one\n"
    );
    assert_ne!(shipped_batch.stdout, file_batch.stdout);

    // A run of every shipped scenario says it once, for that scenario only.
    let run = budgetlab(tmp.path())
        .args([
            "run",
            "--quick",
            "--strategies",
            "reference",
            "--batches",
            "1",
        ])
        .args(["--out", "rep"])
        .output()
        .unwrap();
    let err = stderr(&run);
    assert!(run.status.success(), "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("note:")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("the shipped scenario shell-heavy runs"));
}

#[test]
fn strategies_print_json_with_what_each_promises() {
    let tmp = tempfile::tempdir().unwrap();
    let text = budgetlab(tmp.path()).arg("strategies").output().unwrap();
    let out = budgetlab(tmp.path())
        .args(["strategies", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = json.as_array().unwrap();
    // The same strategies as the text listing, in its order.
    let names: Vec<&str> = list.iter().map(|s| s["name"].as_str().unwrap()).collect();
    let listed: Vec<String> = String::from_utf8(text.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(names, listed);
    let by = |name: &str| list.iter().find(|s| s["name"] == name).unwrap();
    assert_eq!(by("reference")["family"], "batch-allocation");
    assert_eq!(by("reference")["caps"], "output, error and text");
    assert_eq!(by("reference")["givesUp"], serde_json::json!([]));
    assert_eq!(by("send-guard")["caps"], "output and error");
    assert_eq!(by("head-tail-0.5")["family"], "head-share");
    assert_eq!(by("codex")["family"], "policy");
    assert_eq!(by("codex")["caps"], Value::Null);
    assert_eq!(
        by("codex")["givesUp"],
        serde_json::json!([
            "budget-fits",
            "disabled-budget-noop",
            "names-artifact",
            "idempotent"
        ])
    );
    assert!(list
        .iter()
        .all(|s| !s["description"].as_str().unwrap().is_empty()));
    // Each strategy's parameters, with range and default (the value it uses unconfigured).
    assert_eq!(by("codex")["params"], serde_json::json!([]));
    assert_eq!(
        by("window-relative")["params"][0],
        serde_json::json!({
            "name": "configured_chars",
            "key": "window_relative.configured_chars",
            "kind": "units",
            "min": 1,
            "max": 1_000_000_000_000u64,
            "default": 100_000,
            "description": "the configured threshold in UTF-16 units, the most the window-relative one may be",
            "search": "12 values from 2000 to 400000, log-spaced",
            "tuneTries": ["2000", "3200", "5200", "8500", "14000", "22000", "36000", "58000", "94000",
                "150000", "250000", "400000"]
        })
    );
    let names = |s: &str| -> Vec<String> {
        by(s)["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names("weighted"), ["output", "error", "text", "head_share"]);
    assert_eq!(
        names("window-relative"),
        ["configured_chars", "preview_chars", "head_share"]
    );
    let share = &by("head-tail-0.5")["params"][0];
    assert_eq!(
        (
            &share["kind"],
            &share["min"],
            &share["max"],
            &share["default"]
        ),
        (
            &serde_json::json!("share"),
            &serde_json::json!("0"),
            &serde_json::json!("1"),
            &serde_json::json!("0.5")
        )
    );
    assert_eq!(by("weighted")["params"][1]["default"], 2);
    assert_eq!(by("weighted")["params"][3]["default"], "0.2");
}
