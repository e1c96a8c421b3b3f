//! External strategies through `run`, `sweep`, `simulate` and `conform` (issue 13): budgetlab's own reference
//! behind `finalize --serve` gives the built-in reference's results whatever the thread count; a child that
//! crashes mid-run or hangs ends the run with exit 2 and one line, its request saved for replay beside the
//! report, which stays as it was; a child flooding stderr is logged into the report up to the limit; no child or
//! grandchild outlives the command; and `conform` passes the example finalizers and catches the wrong one's two
//! bugs with shrunk counterexamples. Every command runs in a temporary folder: an example finalizer writes its
//! artifacts under `tool-results/` of its working folder, which is budgetlab's.

use crate::support::names;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::tool_missing;

mod conform;
mod faults;
mod flags;

const BIN: &str = env!("CARGO_BIN_EXE_budgetlab");

fn examples() -> String {
    format!("{}/examples/external", env!("CARGO_MANIFEST_DIR"))
}

/// `--external NAME=<budgetlab's finalize --serve with STRATEGY>`.
fn self_serve(name: &str, strategy: &str) -> String {
    format!("{name}='{BIN}' finalize --serve --strategy {strategy}")
}

/// budgetlab with `args`, in `dir`.
fn budgetlab(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "status {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Exit 2, nothing on stdout and one line on stderr (without a panic), returned.
fn one_line_failure(out: &Output) -> String {
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err.trim_end().to_string()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `v` without the figures that differ between any two runs (the cost, and the digests of the files holding
/// it), with the strategy `from` named `to`.
fn comparable(v: &Value, from: &str, to: &str) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "cost" | "costNs" | "strategyNs" | "floorNs" | "sha256"
                    )
                })
                .map(|(k, x)| (k.clone(), comparable(x, from, to)))
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|x| comparable(x, from, to)).collect())
        }
        Value::String(s) if s == from => Value::String(to.to_string()),
        other => other.clone(),
    }
}

/// A report folder's `results.json` and `batches.jsonl`, comparable.
fn report(dir: &Path, from: &str, to: &str) -> (Value, Vec<Value>) {
    let results = comparable(&read_json(&dir.join("results.json")), from, to);
    let records = fs::read_to_string(dir.join("batches.jsonl"))
        .unwrap()
        .lines()
        .map(|l| comparable(&serde_json::from_str(l).unwrap(), from, to))
        .collect();
    (results, records)
}

/// Whether `tool` runs (`--version`); when it does not, the test is skipped, saying so (a failure under CI).
fn have(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        tool_missing(&format!("no {tool} on PATH for examples/external"));
    }
    found
}

#[test]
fn run_with_the_reference_served_gives_the_built_in_results_on_1_and_2_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let serve = self_serve("self", "reference");
    assert_success(&budgetlab(
        dir,
        &[
            "run",
            "--quick",
            "--strategies",
            "reference",
            "--threads",
            "2",
            "--out",
            "built-in",
        ],
    ));
    let (results, records) = report(&dir.join("built-in"), "", "");
    for threads in ["1", "2"] {
        let out = format!("self-{threads}");
        assert_success(&budgetlab(
            dir,
            &[
                "run",
                "--quick",
                "--strategies",
                "self",
                "--external",
                &serve,
                "--threads",
                threads,
                "--out",
                &out,
            ],
        ));
        let (self_results, self_records) = report(&dir.join(&out), "self", "reference");
        assert_eq!(self_results, results, "results.json, {threads} threads");
        assert_eq!(self_records.len(), records.len());
        for (i, (a, b)) in self_records.iter().zip(&records).enumerate() {
            assert_eq!(a, b, "batches.jsonl line {}, {threads} threads", i + 1);
        }
        let raw = read_json(&dir.join(&out).join("results.json"));
        assert_eq!(raw["inputs"]["strategies"], serde_json::json!(["self"]));
        // The served reference writes nothing to stderr: no log, so no external/ folder.
        assert!(!dir.join(&out).join("external").exists());
    }
    // The comparison covered shortened batches and writes.
    let writes: u64 = results["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["persistence"]["writes"].as_u64().unwrap())
        .sum();
    assert!(writes > 50, "{writes}");
    // Nothing was left in the working folder but the reports.
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["built-in", "self-1", "self-2"]);
}

#[test]
fn sweep_and_simulate_with_the_reference_served_give_the_built_in_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let serve = self_serve("self", "reference");
    let sweep = |strategy: &str, out: &str| {
        assert_success(&budgetlab(
            dir,
            &[
                "sweep",
                "--scenario",
                "mixed-realistic",
                "--budgets",
                "2000..50000",
                "--steps",
                "3",
                "--batches",
                "6",
                "--strategies",
                strategy,
                "--external",
                &serve,
                "--out",
                out,
            ],
        ));
        comparable(
            &read_json(&dir.join(out).join("sweep.json")),
            "self",
            "reference",
        )
    };
    let built_in = sweep("reference", "a");
    assert_eq!(sweep("self", "b"), built_in);
    assert_eq!(built_in["points"].as_array().unwrap().len(), 3);

    let simulate = |strategy: &str| {
        let out = budgetlab(
            dir,
            &[
                "simulate",
                "--scenario",
                "shell-heavy",
                "--mode",
                "headless",
                "--batches",
                "4",
                "--json",
                "--strategy",
                strategy,
                "--external",
                &serve,
            ],
        );
        assert_success(&out);
        String::from_utf8(out.stdout).unwrap()
    };
    let built_in = simulate("reference");
    assert_eq!(built_in.lines().count(), 4);
    assert_eq!(
        simulate("self").replace("\"strategy\":\"self\"", "\"strategy\":\"reference\""),
        built_in
    );
}

#[test]
fn run_with_the_python_example_is_the_same_on_1_and_2_threads() {
    if !have("python3") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let external = format!("headtail=python3 '{}/headtail.py'", examples());
    let mut reports = Vec::new();
    for threads in ["1", "2"] {
        let out = format!("t{threads}");
        assert_success(&budgetlab(
            dir,
            &[
                "run",
                "--quick",
                "--scenarios",
                "mixed-realistic",
                "surrogate-storm",
                "--strategies",
                "reference,headtail",
                "--external",
                &external,
                "--threads",
                threads,
                "--out",
                &out,
            ],
        ));
        reports.push(report(&dir.join(&out), "", ""));
    }
    assert_eq!(reports[0], reports[1]);
    let rows = reports[0].0["rows"].as_array().unwrap();
    let headtail: Vec<&Value> = rows
        .iter()
        .filter(|r| r["strategy"] == "headtail")
        .collect();
    assert!(!headtail.is_empty());
    // A batch allocation: every model request within its budget.
    assert!(
        headtail.iter().all(|r| r["compliance"]["rate"] == 1.0),
        "{headtail:?}"
    );
}
