//! Faults of an external child: a crash or a hang mid-run, a flood on stderr; no process outlives the
//! command.

use super::*;

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
