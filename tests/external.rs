//! External strategies end to end: budgetlab's own `finalize --serve` as an external strategy gives exactly the
//! built-in's outcomes (library and binary); a failing child ends `finalize` with exit 2, one line and its request
//! saved for replay; the Python and Node examples in `examples/external/` run through `finalize --external`
//! (skipped, saying so, where `python3` or `node` is missing, except under `CI=true`), and the deliberately wrong
//! one overshoots by one unit and splits surrogate pairs.

use std::fs;
use std::path::Path;
use std::process::Command;

use assert_cmd::Command as Cmd;
use serde_json::Value;

use budgetlab::finalize::{budgeted_total, Reference, SlotScope};
use budgetlab::{
    parse_batch, ArtifactStore, Batch, Budget, BudgetContext, ExternalFinalizer, ExternalOptions,
    ExternalStrategy, FaultyStore, Finalizer, Generator, MemoryStore, Outcome, PlanReminders,
    Scenario,
};

const BIN: &str = env!("CARGO_BIN_EXE_budgetlab");

fn examples() -> String {
    format!("{}/examples/external", env!("CARGO_MANIFEST_DIR"))
}

fn strategy(name: &str, command: &str) -> ExternalStrategy {
    format!("{name}={command}").parse().unwrap()
}

/// The self-serve command: budgetlab's reference behind the protocol.
fn self_serve() -> String {
    format!("'{BIN}' finalize --serve --strategy reference")
}

/// The backend `run` gives a batch of a scenario: in memory under `tool-results`, with the scenario's
/// finalizer fault rate.
fn run_store(scenario: &Scenario, index: u64) -> FaultyStore<MemoryStore> {
    let seed = budgetlab::persist::InjectedFaults::batch_seed(scenario.seed.0, index);
    FaultyStore::new(MemoryStore::new("tool-results"), [])
        .with_rate(scenario.persistence.finalizer_fault_rate, seed)
}

#[test]
fn self_serve_gives_the_reference_outcome_on_every_shipped_scenario() {
    let logs = tempfile::tempdir().unwrap();
    let external = ExternalFinalizer::new(
        strategy("self", &self_serve()),
        ExternalOptions::new(logs.path()),
    );
    let reference = Reference::default();
    let (mut attempts, mut failed, mut shortened) = (0, 0, 0);
    for scenario in Scenario::all_shipped() {
        let generator = Generator::new(&scenario);
        // The finalizer's own writes are rare where producers persist first: more batches there.
        let batches = if scenario.name == "persist-failures" {
            30
        } else {
            3
        };
        for index in 0..batches {
            let batch = generator.batch(index).batch;
            for budget in scenario.budgets() {
                let mut ctx = BudgetContext::new(Budget::Units(budget.units as i64));
                ctx.context_window_tokens = budget.window_tokens;
                let mut built_in_store = run_store(&scenario, index);
                let mut external_store = run_store(&scenario, index);
                let expected = reference.finalize(batch.clone(), &ctx, &mut built_in_store);
                let got = external.finalize(batch.clone(), &ctx, &mut external_store);
                let at = format!("{} batch {index} budget {}", scenario.name, budget.label);
                assert_eq!(external.fault().map(|f| f.problem), None, "{at}");
                assert_eq!(got, expected, "{at}");
                assert_eq!(
                    external_store.inner().artifacts(),
                    built_in_store.inner().artifacts(),
                    "{at}"
                );
                assert_eq!(external_store.stats(), built_in_store.stats(), "{at}");
                attempts += expected.persisted.len();
                failed += expected
                    .persisted
                    .iter()
                    .filter(|a| a.path.is_none())
                    .count();
                shortened += usize::from(expected.batch != batch);
            }
        }
    }
    // The comparison covered shortened batches, writes and injected failures.
    assert!(
        shortened > 20 && attempts > 50 && failed > 0,
        "{shortened} {attempts} {failed}"
    );
    assert_eq!(external.children_started(), 1);
    assert!(external.check().is_ok());
}

/// Writes generated batches of a few scenarios to files; returns their paths.
fn batch_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for name in [
        "mixed-realistic",
        "surrogate-storm",
        "plan-mode",
        "pre-persisted",
    ] {
        let scenario = Scenario::shipped(name).unwrap();
        let generator = Generator::new(&scenario);
        for index in 0..5 {
            let path = dir.join(format!("{name}-{index}.json"));
            let batch = generator.batch(index).batch;
            fs::write(&path, serde_json::to_vec(&batch).unwrap()).unwrap();
            files.push(path);
        }
    }
    files
}

/// `budgetlab finalize` on `file`, run in the file's folder.
fn finalize(file: &Path, budget: &str, extra: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .current_dir(file.parent().unwrap())
        .args(["finalize", "--budget", budget, "--input"])
        .arg(file)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn finalize_external_self_prints_what_the_built_in_prints() {
    let dir = tempfile::tempdir().unwrap();
    let serve = self_serve();
    let external = ["--external", &format!("self={serve}"), "--strategy", "self"];
    let mut shortened = 0;
    for file in batch_files(dir.path()) {
        for budget in ["800", "20000"] {
            let built_in = finalize(&file, budget, &[]);
            assert!(built_in.status.success());
            let via_child = finalize(&file, budget, &external);
            assert!(
                via_child.status.success(),
                "{}",
                String::from_utf8_lossy(&via_child.stderr)
            );
            assert_eq!(
                String::from_utf8(via_child.stdout).unwrap(),
                String::from_utf8(built_in.stdout.clone()).unwrap(),
                "{} at {budget}",
                file.display()
            );
            let report: Value = serde_json::from_slice(&built_in.stdout).unwrap();
            shortened += usize::from(!report["persisted"].as_array().unwrap().is_empty());
        }
    }
    assert!(shortened >= 10, "{shortened}");
    // A failed write the harness injects reaches the child, which reports it as the built-in does.
    let file = dir.path().join("mixed-realistic-0.json");
    let first: Value = serde_json::from_slice(&finalize(&file, "300", &[]).stdout).unwrap();
    let fail = first["persisted"][0]["callId"].as_str().unwrap();
    let injected = ["--fail-persist", fail];
    let built_in = finalize(&file, "300", &injected);
    let via_child = finalize(&file, "300", &[&injected[..], &external[..]].concat());
    assert_eq!(via_child.stdout, built_in.stdout);
    let report: Value = serde_json::from_slice(&built_in.stdout).unwrap();
    assert_eq!(report["persisted"][0]["path"], Value::Null);
    // A quiet child that answers everything leaves no log folder behind.
    assert!(dir.path().join("mixed-realistic-0.json").exists());
    assert!(!dir.path().join("budgetlab-external").exists());
}

#[test]
fn a_failing_child_is_exit_2_one_line_and_a_replayable_request() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("turn.json");
    fs::copy(
        format!("{}/examples/turn.json", env!("CARGO_MANIFEST_DIR")),
        &file,
    )
    .unwrap();
    let logs = dir.path().join("logs");
    let crash = r#"crash=sh -c 'read -r hello; echo "{\"protocol\":\"budgetlab-finalizer\",\"version\":1,\"name\":\"c\"}"; read -r req; echo "out of cheese" >&2; exit 7'"#;
    let out = Cmd::new(BIN)
        .args([
            "finalize",
            "--budget",
            "8000",
            "--strategy",
            "crash",
            "--external",
            crash,
        ])
        .arg("--input")
        .arg(&file)
        .arg("--external-log")
        .arg(&logs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    let saved = logs.join("crash-request-1.json");
    let exchange = logs.join("crash-request-1.jsonl");
    let log = logs.join("crash.0.stderr.log");
    assert_eq!(
        err.trim_end(),
        format!(
            "budgetlab: external strategy crash: request 1: the child exited with status 7 without answering; \
             the request is saved in {} (replay: budgetlab finalize --input {} --budget 8000); its stderr is in \
             {}",
            exchange.display(),
            saved.display(),
            log.display()
        )
    );
    assert_eq!(fs::read_to_string(&log).unwrap(), "out of cheese\n");
    // The saved batch is the input, and replays with the built-in strategies.
    let original = parse_batch(&fs::read(&file).unwrap(), "in").unwrap();
    assert_eq!(
        parse_batch(&fs::read(&saved).unwrap(), "saved").unwrap(),
        original
    );
    assert!(finalize(&saved, "8000", &[]).status.success());
    // The saved exchange replays on any child: here budgetlab's own.
    let answer = Cmd::new(BIN)
        .args(["finalize", "--serve"])
        .pipe_stdin(&exchange)
        .unwrap()
        .output()
        .unwrap();
    assert!(answer.status.success());
    let lines: Vec<Value> = answer
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["id"], 1);
    assert_eq!(
        lines[1]["entries"].as_array().unwrap().len(),
        original.len()
    );
}

#[test]
fn external_flags_are_checked() {
    let bad = |args: &[&str], needle: &str| {
        let out = Cmd::new(BIN).args(args).write_stdin("[]").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    };
    bad(
        &["finalize", "--budget", "5", "--external", "reference=cat"],
        "NAME \"reference\" is a built-in strategy's name",
    );
    bad(
        &["finalize", "--budget", "5", "--external", "x=a | b"],
        "unquoted `|` at character 3 is a shell operator",
    );
    bad(
        &[
            "finalize",
            "--budget",
            "5",
            "--external",
            "x=cat",
            "--external",
            "x=cat",
        ],
        "NAME \"x\" is registered twice",
    );
    bad(
        &["finalize", "--budget", "5", "--external-timeout", "-1"],
        "invalid --external-timeout \"-1\"",
    );
    bad(
        &["finalize", "--serve", "--budget", "5"],
        "'--serve' cannot be used with",
    );
    bad(
        &["finalize", "--serve", "--external", "x=cat"],
        "'--serve' cannot be used with",
    );
    bad(
        &["finalize", "--serve", "--strategy", "mine"],
        "invalid strategy \"mine\"",
    );
    bad(
        &[
            "finalize",
            "--budget",
            "5",
            "--strategy",
            "gone",
            "--external",
            "gone=/nonexistent/fin",
        ],
        "external strategy gone: start: the child could not be started: /nonexistent/fin",
    );
}

/// Whether `tool` runs; in CI a missing tool fails the test, elsewhere it is skipped with a line
/// ([`tool_missing`](crate::support::tool_missing)).
fn have(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        crate::support::tool_missing(&format!("no {tool} on PATH for examples/external"));
    }
    found
}

/// Runs an example through `finalize --external` on each batch file at `budget`; checks the contract it
/// keeps and returns the outputs.
fn run_example(
    name: &str,
    command: &str,
    files: &[std::path::PathBuf],
    budget: i64,
) -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    let mut persisted = 0;
    for file in files {
        let artifacts = dir
            .path()
            .join(file.file_stem().unwrap())
            .join("tool-results");
        let out = Cmd::new(BIN)
            .args([
                "finalize",
                "--budget",
                &budget.to_string(),
                "--strategy",
                name,
            ])
            .args(["--external", &format!("{name}={command}")])
            .arg("--artifact-dir")
            .arg(&artifacts)
            .arg("--input")
            .arg(file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let input = parse_batch(&fs::read(file).unwrap(), "in").unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let entries = parse_batch(report["entries"].to_string().as_bytes(), "out").unwrap();
        let reminders = PlanReminders::default();
        let total = budgeted_total(&entries, &reminders, SlotScope::ALL);
        assert!(
            total <= budget as u64,
            "{name} {}: {total} > {budget}",
            file.display()
        );
        let ids = |b: &Batch| b.iter().map(|e| e.call_id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&entries), ids(&input), "order and entries kept");
        for w in report["persisted"].as_array().unwrap() {
            persisted += 1;
            let path = w["path"].as_str().unwrap();
            let on_disk = fs::read_to_string(path).unwrap();
            assert_eq!(on_disk, w["content"].as_str().unwrap(), "{path}");
        }
        let strip = |mut v: Value| {
            // Artifact paths differ between the two examples' temporary folders only by the folder.
            let text = v
                .to_string()
                .replace(&dir.path().display().to_string(), "DIR");
            v = serde_json::from_str(&text).unwrap();
            serde_json::to_vec(&v).unwrap()
        };
        outputs.push(strip(report));
    }
    assert!(persisted > 0, "{name} persisted nothing");
    outputs
}

#[test]
fn the_python_and_node_examples_keep_the_budget_and_agree() {
    let dir = tempfile::tempdir().unwrap();
    let files = batch_files(dir.path());
    let examples = examples();
    let python = have("python3").then(|| {
        run_example(
            "headtail",
            &format!("python3 '{examples}/headtail.py'"),
            &files,
            2_000,
        )
    });
    let node = have("node").then(|| {
        run_example(
            "headtail-js",
            &format!("node '{examples}/headtail.js'"),
            &files,
            2_000,
        )
    });
    if let (Some(python), Some(node)) = (python, node) {
        assert_eq!(python, node, "the two examples cut the same way");
    }
}

#[test]
fn the_wrong_example_overshoots_by_one_and_splits_pairs() {
    if !have("python3") {
        return;
    }
    let logs = tempfile::tempdir().unwrap();
    let artifacts = logs.path().join("tool-results");
    let artifacts = artifacts.to_str().unwrap();
    let emoji = "😀".repeat(3_000);
    let batch = parse_batch(
        format!(
            r#"[{{"callId":"a","toolName":"shell","responseParts":[{{"functionResponse":{{"name":"shell","response":{{"output":"{emoji}"}}}}}}]}},
                {{"callId":"b","toolName":"shell","responseParts":[{{"text":"x{emoji}"}}]}}]"#
        )
        .as_bytes(),
        "emoji",
    )
    .unwrap();
    let mut options = ExternalOptions::new(logs.path());
    options.lone_surrogates = budgetlab::external::LoneSurrogatePolicy::Replace;
    let wrong = ExternalFinalizer::new(
        strategy("wrong", &format!("python3 '{}/wrong.py'", examples())),
        options,
    );
    for budget in 1_000..1_004 {
        let ctx = BudgetContext::new(Budget::Units(budget));
        let out: Outcome = wrong.finalize(batch.clone(), &ctx, &mut MemoryStore::new(artifacts));
        assert!(wrong.check().is_ok(), "{:?}", wrong.fault());
        let total = budgeted_total(&out.batch, &PlanReminders::default(), SlotScope::ALL);
        assert_eq!(total, budget as u64 + 1, "overshoots by exactly one unit");
    }
    assert!(wrong.lone_surrogates() > 0, "pairs were split");
    drop(wrong);

    // Through `finalize`, a split pair is refused and named.
    let file = logs.path().join("emoji.json");
    fs::write(&file, serde_json::to_vec(&batch).unwrap()).unwrap();
    let command = format!("wrong=python3 '{}/wrong.py'", examples());
    let out = finalize(
        &file,
        "1001",
        &[
            "--external",
            &command,
            "--strategy",
            "wrong",
            "--artifact-dir",
            artifacts,
            "--external-log",
            logs.path().to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("budgetlab: external strategy wrong: request 1: malformed answer: ")
            && err.contains("lone UTF-16 surrogate escape"),
        "{err}"
    );
}

/// `headtail.py` declares the `context` capability: `finalize` hands it the context of an object-form batch,
/// which the example writes to its log, and its cut is the same as without a context.
#[test]
fn the_python_example_receives_the_turn_context() {
    if !have("python3") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let output = "0123456789".repeat(80);
    let entries = format!(
        r#"[{{"callId":"c1","toolName":"shell","responseParts":[{{"functionResponse":{{"name":"shell","response":{{"output":"{output}"}}}}}}]}}]"#
    );
    let context = r#"{"task":"fix the parser","calls":[{"callId":"c1","name":"shell","arguments":"{\"command\":\"make\"}"}],"assistant":"Building."}"#;
    let with = dir.path().join("with.json");
    let without = dir.path().join("without.json");
    fs::write(
        &with,
        format!(r#"{{"entries":{entries},"context":{context},"group":{{"session":"s"}}}}"#),
    )
    .unwrap();
    fs::write(&without, &entries).unwrap();
    let run = |input: &Path, logs: &str| {
        let out = Cmd::new(BIN)
            .current_dir(dir.path())
            .args([
                "finalize",
                "--budget",
                "300",
                "--strategy",
                "headtail",
                "--external",
            ])
            .arg(format!("headtail=python3 '{}/headtail.py'", examples()))
            .args(["--external-log", logs, "--input"])
            .arg(input)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let log: String = fs::read_dir(dir.path().join(logs))
            .map(|d| {
                d.map(|f| fs::read_to_string(f.unwrap().path()).unwrap())
                    .collect()
            })
            .unwrap_or_default();
        (out.stdout, log)
    };
    let (cut_with, log_with) = run(&with, "logs-with");
    let (cut_without, log_without) = run(&without, "logs-without");
    assert_eq!(
        cut_with, cut_without,
        "head and tail do not read the context"
    );
    assert!(
        log_with.contains(&format!("headtail: request 1 context {context}")),
        "{log_with}"
    );
    assert!(!log_without.contains("context"), "{log_without}");
}
