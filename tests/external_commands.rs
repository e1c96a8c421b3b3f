//! External strategies through `run`, `sweep`, `simulate` and `conform` (issue 13): budgetlab's own reference
//! behind `finalize --serve` gives the built-in reference's results whatever the thread count; a child that
//! crashes mid-run or hangs ends the run with exit 2 and one line, its request saved for replay beside the
//! report, which stays as it was; a child flooding stderr is logged into the report up to the limit; no child or
//! grandchild outlives the command; and `conform` passes the example finalizers and catches the wrong one's two
//! bugs with shrunk counterexamples. Every command runs in a temporary folder: an example finalizer writes its
//! artifacts under `tool-results/` of its working folder, which is budgetlab's.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::tool_missing;

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

/// The process ids a test child appended to `file` in `dir`.
fn pids(dir: &Path, file: &str) -> Vec<u32> {
    fs::read_to_string(dir.join(file))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

/// Whether process `pid` runs (exists and is neither a zombie nor dead).
fn running(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        !state.starts_with(['Z', 'X'])
    })
}

/// Once budgetlab has exited, no child it started and no process those started still runs. (That the children
/// were reaped, not left as zombies, is checked in-process by the run's unit tests.)
fn assert_nothing_runs(dir: &Path) {
    let all: Vec<u32> = pids(dir, "pids")
        .into_iter()
        .chain(pids(dir, "grandchildren"))
        .collect();
    assert!(!all.is_empty(), "no child was started");
    for pid in all {
        let deadline = Instant::now() + Duration::from_secs(5);
        while running(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(pid), "process {pid} outlived budgetlab");
    }
}

/// A child written for the fault tests, as `sh FILE`: it notes its pid, answers the handshake, and answers each
/// request with its batch unchanged (a strategy that changes nothing), running `on_request` first with the
/// request's number in `$n`.
fn write_child(dir: &Path, file: &str, on_request: &str) {
    let script = r#"echo $$ >> pids
read -r hello
echo '{"protocol":"budgetlab-finalizer","version":1,"name":"test"}'
n=0
while IFS= read -r req; do
  n=$((n+1))
  ON_REQUEST
  printf '%s\n' "$req" | sed "s/.*,\"batch\":\(.*\)}$/{\"id\":$n,\"entries\":\1,\"persisted\":[]}/"
done
"#;
    fs::write(dir.join(file), script.replace("ON_REQUEST", on_request)).unwrap();
}

/// Small recorded batches, one a line, for the fault tests (the children answer them with `sed`).
fn small_batches(dir: &Path) -> PathBuf {
    let mut lines = String::new();
    for i in 0..12 {
        lines.push_str(&format!(
            r#"[{{"callId":"c{i}","toolName":"shell","responseParts":[{{"functionResponse":{{"name":"shell","response":{{"output":"{}"}}}}}}]}}]"#,
            "x".repeat(300 + i)
        ));
        lines.push('\n');
    }
    let path = dir.join("small.jsonl");
    fs::write(&path, lines).unwrap();
    path
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The one failure line's parts: the saved exchange, the saved batch and the budget of the replay, and the log.
fn saved_paths(line: &str) -> (String, String, String, Option<String>) {
    let after = |marker: &str| -> String {
        let start = line
            .find(marker)
            .unwrap_or_else(|| panic!("{marker} in {line}"))
            + marker.len();
        line[start..]
            .split([' ', ')', ';'])
            .next()
            .unwrap()
            .to_string()
    };
    let log = line
        .contains("; its stderr is in ")
        .then(|| after("; its stderr is in "));
    (
        after("the request is saved in "),
        after("budgetlab finalize --input "),
        after(" --budget "),
        log,
    )
}

#[test]
fn a_child_that_crashes_or_hangs_mid_run_fails_it_in_one_line_and_leaves_the_report_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let batches = small_batches(dir);
    let batches = batches.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--batches-file",
            batches,
            "--budgets",
            "100,200",
            "--threads",
            "2",
            "--out",
            "report",
        ];
        args.extend_from_slice(extra);
        budgetlab(dir, &args)
    };
    // The report an earlier run left.
    assert_success(&run(&["--strategies", "reference"]));
    let before = fs::read(dir.join("report/results.json")).unwrap();
    let files = names(&dir.join("report"));

    write_child(
        dir,
        "crash.sh",
        r#"if [ $n = 3 ]; then echo "boom at request $n" >&2; exit 3; fi"#,
    );
    let out = run(&[
        "--strategies",
        "reference,crash",
        "--external",
        "crash=sh crash.sh",
    ]);
    let line = one_line_failure(&out);
    assert!(
        line.starts_with(
            "budgetlab: external strategy crash: request 3: the child exited with status 3 without answering; \
             the request is saved in report.failed/external/crash-request-3.jsonl (replay: budgetlab finalize \
             --input report.failed/external/crash-request-3.json --budget "
        ),
        "{line}"
    );
    let (exchange, batch, budget, log) = saved_paths(&line);
    let log = log.expect("the crash wrote to stderr");
    assert!(log.starts_with("report.failed/external/crash."), "{log}");
    assert_eq!(
        fs::read_to_string(dir.join(&log)).unwrap(),
        "boom at request 3\n"
    );
    // The saved batch replays with `finalize`; the saved exchange starts with the handshake.
    assert_success(&budgetlab(
        dir,
        &["finalize", "--input", &batch, "--budget", &budget],
    ));
    let exchange = fs::read_to_string(dir.join(&exchange)).unwrap();
    assert_eq!(exchange.lines().count(), 2);
    assert!(
        exchange.starts_with("{\"protocol\":\"budgetlab-finalizer\",\"version\":1}\n{\"id\":3,")
    );
    assert_eq!(
        fs::read_to_string(dir.join("report.failed/fault.txt"))
            .unwrap()
            .lines()
            .next(),
        Some(line.as_str())
    );
    assert!(dir.join("report.failed/.budgetlab-report").is_file());
    assert!(dir
        .join("report.failed/external/.budgetlab-report")
        .is_file());
    // The report of the earlier run is as it was.
    assert_eq!(fs::read(dir.join("report/results.json")).unwrap(), before);
    assert_eq!(names(&dir.join("report")), files);
    assert_nothing_runs(dir);

    // A child that hangs: the timeout ends it, its grandchild dies with its group, and the failed run's folder
    // (budgetlab's) is replaced.
    fs::remove_file(dir.join("pids")).unwrap();
    write_child(
        dir,
        "hang.sh",
        r#"if [ $n = 2 ]; then sleep 1000 & echo $! >> grandchildren; wait; fi"#,
    );
    let started = Instant::now();
    let out = run(&[
        "--strategies",
        "hang",
        "--external",
        "hang=sh hang.sh",
        "--external-timeout",
        "0.5",
    ]);
    let line = one_line_failure(&out);
    assert!(
        line.starts_with(
            "budgetlab: external strategy hang: request 2: the child gave no answer within 0.5 s; the request \
             is saved in report.failed/external/hang-request-2.jsonl"
        ),
        "{line}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "it did not wait for the child"
    );
    assert!(fs::read_to_string(dir.join("report.failed/fault.txt"))
        .unwrap()
        .starts_with("budgetlab: external strategy hang: request 2:"));
    assert!(!dir
        .join("report.failed/external/crash-request-3.json")
        .exists());
    assert_eq!(fs::read(dir.join("report/results.json")).unwrap(), before);
    assert!(!pids(dir, "grandchildren").is_empty());
    assert_nothing_runs(dir);

    // A failed run's folder that budgetlab did not make is refused before anything starts.
    fs::remove_dir_all(dir.join("report.failed")).unwrap();
    fs::create_dir(dir.join("report.failed")).unwrap();
    fs::write(dir.join("report.failed/mine.txt"), "mine").unwrap();
    fs::remove_file(dir.join("pids")).unwrap();
    let out = run(&["--strategies", "crash", "--external", "crash=sh crash.sh"]);
    let line = one_line_failure(&out);
    assert!(
        line.starts_with("budgetlab: --out: report.failed (where a run whose external strategy fails keeps its logs and request) exists and is not a budgetlab report folder"),
        "{line}"
    );
    assert!(!dir.join("pids").exists(), "no child was started");
    assert_eq!(names(&dir.join("report.failed")), ["mine.txt"]);
    // With --external-log, the logs and the request go there instead, and report.failed is not needed.
    let out = run(&[
        "--strategies",
        "crash",
        "--external",
        "crash=sh crash.sh",
        "--external-log",
        "logs",
    ]);
    let line = one_line_failure(&out);
    assert!(
        line.contains("the request is saved in logs/crash-request-3.jsonl"),
        "{line}"
    );
    assert!(dir.join("logs/crash-request-3.json").is_file());
    assert_eq!(names(&dir.join("report.failed")), ["mine.txt"]);
    assert_eq!(fs::read(dir.join("report/results.json")).unwrap(), before);
    assert_nothing_runs(dir);
}

#[test]
fn a_child_flooding_stderr_is_logged_into_the_report_up_to_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let batches = small_batches(dir);
    let flood = format!(
        "flood=sh -c 'echo $$ >> pids; head -c 20000000 /dev/zero | tr \"\\0\" x >&2; exec \"{BIN}\" finalize --serve'"
    );
    let out = budgetlab(
        dir,
        &[
            "run",
            "--batches-file",
            batches.to_str().unwrap(),
            "--strategies",
            "flood",
            "--external",
            &flood,
            "--external-timeout",
            "120",
            "--threads",
            "1",
            "--out",
            "report",
        ],
    );
    assert_success(&out);
    assert_eq!(
        names(&dir.join("report/external")),
        [".budgetlab-report", "flood.0.stderr.log"]
    );
    let log = fs::read(dir.join("report/external/flood.0.stderr.log")).unwrap();
    let limit = budgetlab::external::LOG_LIMIT;
    let note = format!(
        "\n[budgetlab: {} more bytes of stderr were read and not kept]\n",
        20_000_000 - limit
    );
    assert_eq!(log.len() as u64, limit + note.len() as u64);
    assert!(log.ends_with(note.as_bytes()));
    assert!(log[..limit as usize].iter().all(|&b| b == b'x'));
    let results = read_json(&dir.join("report/results.json"));
    assert_eq!(
        results["inputs"]["strategies"],
        serde_json::json!(["flood"])
    );
    assert_eq!(pids(dir, "pids").len(), 1, "one thread, one child");
    assert_nothing_runs(dir);
}

#[test]
fn external_flags_of_the_commands_are_checked_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let refused = |args: &[&str], needle: &str| {
        let line = one_line_failure(&budgetlab(dir, args));
        assert!(line.contains(needle), "{args:?}: {line}");
    };
    refused(
        &["run", "--quick", "--external", "reference=cat"],
        "NAME \"reference\" is a built-in strategy's name",
    );
    refused(
        &[
            "run",
            "--quick",
            "--strategies",
            "nope",
            "--external",
            "mine=cat",
        ],
        "invalid strategy \"nope\": known strategies: reference, ",
    );
    refused(
        &[
            "sweep",
            "--scenario",
            "mixed-realistic",
            "--budgets",
            "10..20",
            "--strategies",
            "mine",
        ],
        "invalid strategy \"mine\"",
    );
    refused(
        &[
            "simulate",
            "--scenario",
            "mixed-realistic",
            "--strategy",
            "mine",
            "--external",
            "mine=x | y",
        ],
        "unquoted `|`",
    );
    refused(
        &[
            "conform",
            "--strategy",
            "gone",
            "--external",
            "gone=/nonexistent/fin",
            "--cases",
            "0",
        ],
        "external strategy gone: start: the child could not be started: /nonexistent/fin",
    );
    refused(
        &[
            "run",
            "--quick",
            "--strategies",
            "gone",
            "--external",
            "gone=/nonexistent/fin",
        ],
        "external strategy gone: start: the child could not be started",
    );
    let line = one_line_failure(&budgetlab(
        dir,
        &[
            "run",
            "--quick",
            "--strategies",
            "nope",
            "--external",
            "mine=cat",
        ],
    ));
    assert!(
        line.ends_with("head-tail-<ratio>; registered with --external: mine"),
        "{line}"
    );
    // A program that cannot start left nothing behind: no report, no failed run's folder.
    assert!(names(dir).is_empty(), "{:?}", names(dir));
}

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
