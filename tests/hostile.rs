//! Hostile users, round three (issue 29, points 4, 6, 7 and 8), through the real binary: counts bounded and
//! memory asked for before it is taken, so that what cannot run is exit 2 and one line, never an abort; no
//! report that budgetlab itself would refuse; nonsense in results files refused; a closed stdout is an error;
//! and every message names its flag.

use std::io::Write;
use std::path::Path;
use std::process::Output;

use assert_cmd::Command;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// The path of the binary under test, for running it through `sh`.
fn binary() -> String {
    env!("CARGO_BIN_EXE_budgetlab").to_string()
}

/// Runs `script` with `sh -c`, the binary's path as `$0`.
fn sh(script: &str, args: &[&str]) -> Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(binary())
        .args(args)
        .output()
        .unwrap()
}

/// Asserts exit 2, nothing on stdout and exactly one line on stderr, and returns that line.
fn refusal(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.ends_with('\n'), "{err:?}");
    err.trim_end().to_string()
}

/// One small batch, as `finalize` reads it.
const BATCH: &str = r#"[{"callId":"c1","toolName":"shell","responseParts":[{"functionResponse":{"id":"c1","name":"shell","response":{"output":"0123456789"}}}]}]"#;

// Point 4: an allocation that cannot be had is exit 2 and one line, never an abort.

#[test]
fn finalize_time_is_bounded_to_what_can_run() {
    // Under a 2 GB address-space limit, so that a binary without the bound cannot take the machine's memory.
    let out = sh(
        "ulimit -v 2000000; printf '%s' \"$1\" | exec \"$0\" finalize --budget 10 --time 4000000000",
        &[BATCH],
    );
    assert_eq!(
        refusal(&out),
        "budgetlab: invalid value '4000000000' for '--time <N>': 4000000000 is not in 1..=1000000 (see --help)"
    );
    let out = budgetlab()
        .args(["finalize", "--budget", "10", "--time", "1000000"])
        .write_stdin("[]")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"{\"entries\":[],\"persisted\":[]}\n");
}

/// A batch file of one entry whose output is `len` bytes of `x`.
fn large_batch(path: &Path, len: usize) {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    file.write_all(br#"[{"callId":"c1","toolName":"shell","responseParts":[{"functionResponse":{"id":"c1","name":"shell","response":{"output":""#).unwrap();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..len >> 20 {
        file.write_all(&chunk).unwrap();
    }
    file.write_all(br#""}}}]}]"#).unwrap();
    file.flush().unwrap();
}

#[test]
fn a_batch_too_large_for_the_memory_left_is_refused_not_aborted() {
    // 200 MB of input under a 400 MB address-space limit: the file can be read (the binary itself maps under
    // 100 MB), but not parsed beside it, which needs as much again.
    let dir = tempfile::tempdir().unwrap();
    let batch = dir.path().join("big.json");
    large_batch(&batch, 200 << 20);
    let lines = dir.path().join("big.jsonl");
    std::fs::copy(&batch, &lines).unwrap();
    let (batch, lines) = (batch.to_str().unwrap(), lines.to_str().unwrap());
    let out = sh(
        "ulimit -v 400000; exec \"$0\" finalize --budget 1000 --input \"$1\"",
        &[batch],
    );
    let line = refusal(&out);
    assert!(
        line.starts_with(&format!("budgetlab: {batch}: out of memory")),
        "{line}"
    );
    let out = sh("ulimit -v 400000; exec \"$0\" profile \"$1\"", &[lines]);
    let line = refusal(&out);
    // Whether the memory runs out reading the file or parsing its line 1 depends on the build's own footprint
    // (an unoptimised build maps more): either way one line names the file, and the line where it can.
    assert!(
        line.starts_with(&format!("budgetlab: {lines}:1: out of memory"))
            || line.starts_with(&format!("budgetlab: {lines}: out of memory")),
        "{line}"
    );
}

#[test]
fn recorded_batches_run_at_most_as_many_budgets_as_a_scenario_holds() {
    let dir = tempfile::tempdir().unwrap();
    let batches = dir.path().join("b.jsonl");
    std::fs::write(&batches, format!("{BATCH}\n")).unwrap();
    let budgets: Vec<String> = (1..=65).map(|i| (i * 1000).to_string()).collect();
    let out = budgetlab()
        .arg("run")
        .arg("--batches-file")
        .arg(&batches)
        .arg("--budgets")
        .arg(budgets.join(","))
        .arg("--out")
        .arg(dir.path().join("report"))
        .output()
        .unwrap();
    assert_eq!(
        refusal(&out),
        "budgetlab: invalid --budgets \"1000,...\": at most 64 budgets (as in a scenario), got 65"
    );
    assert!(!dir.path().join("report").exists());
}

// Point 6: no report that budgetlab itself would then refuse.

/// Runs budgetlab with `args` and `--out DIR/report`, and asserts the refusal `line` with no report written.
fn refused_before_running(args: &[&str], line: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = budgetlab()
        .args(args)
        .arg("--out")
        .arg(dir.path().join("report"))
        .output()
        .unwrap();
    assert_eq!(refusal(&out), line, "{args:?}");
    assert!(!dir.path().join("report").exists(), "{args:?}");
}

#[test]
fn a_strategy_named_twice_is_refused_before_the_run() {
    let run = ["run", "--scenarios", "many-small", "--batches", "1"];
    for (list, named) in [
        ("reference,reference", "reference"),
        ("head-tail-0.5,head-tail-1/2", "head-tail-0.5"),
        ("uniform,greedy,uniform", "uniform"),
    ] {
        let mut args = run.to_vec();
        args.extend(["--strategies", list]);
        refused_before_running(
            &args,
            &format!("budgetlab: invalid --strategies {list:?}: {named} is named twice"),
        );
        let sweep = [
            "sweep",
            "--scenario",
            "many-small",
            "--batches",
            "1",
            "--budgets",
            "1000..2000",
            "--steps",
            "2",
            "--strategies",
            list,
        ];
        refused_before_running(
            &sweep,
            &format!("budgetlab: invalid --strategies {list:?}: {named} is named twice"),
        );
    }
    let mut args = run.to_vec();
    args.extend([
        "--external",
        "mine=true",
        "--strategies",
        "mine,reference,mine",
    ]);
    refused_before_running(
        &args,
        "budgetlab: invalid --strategies \"mine,reference,mine\": mine is named twice",
    );
}

#[test]
fn a_budget_given_twice_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let batches = dir.path().join("b.jsonl");
    std::fs::write(&batches, format!("{BATCH}\n")).unwrap();
    refused_before_running(
        &[
            "run",
            "--batches-file",
            batches.to_str().unwrap(),
            "--budgets",
            "5000,7000,5000",
        ],
        "budgetlab: invalid --budgets \"5000\": the budget is given twice",
    );
}

// Point 7: nonsense refused.

#[test]
fn a_swept_budget_or_window_is_bounded_as_every_other() {
    for (flag, bound) in [("--budgets", "budgets"), ("--windows", "windows")] {
        refused_before_running(
            &[
                "sweep",
                "--scenario",
                "many-small",
                flag,
                "1..18446744073709551615",
            ],
            &format!(
                "budgetlab: invalid {flag} \"1..18446744073709551615\": TO must be at most 1000000000000 ({bound} are bounded as in a scenario)"
            ),
        );
    }
}

#[test]
fn a_closed_stdout_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let batch = dir.path().join("b.json");
    std::fs::write(&batch, BATCH).unwrap();
    let batch = batch.to_str().unwrap();
    for script in [
        "exec \"$0\" generate --scenario many-small --batches 1 >&-",
        "exec \"$0\" finalize --budget 5 --input \"$1\" >&-",
        "exec \"$0\" strategies >&-",
        "exec \"$0\" simulate --scenario many-small --batches 1 >&-",
    ] {
        let out = sh(script, &[batch]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{script}: {err}");
        assert_eq!(err.lines().count(), 1, "{script}: {err}");
        assert!(
            err.starts_with("budgetlab: <stdout>: Bad file descriptor"),
            "{script}: {err}"
        );
    }
    // With --out, generate writes nothing to stdout, so its state is no matter.
    let out = sh(
        "exec \"$0\" generate --scenario many-small --batches 1 --out \"$1\" >&-",
        &[dir.path().join("g.jsonl").to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0));
}

/// An edit of a JSON file.
type Edit = dyn Fn(&mut serde_json::Value);

/// Writes `file` of the report folder `dir` again with `edit` applied to its JSON.
fn edit_json(dir: &Path, file: &str, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join(file);
    let mut value: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut value);
    std::fs::write(&path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
}

#[test]
fn a_results_file_with_nonsense_is_refused_by_every_reader_naming_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    budgetlab()
        .args(["run", "--scenarios", "many-small", "--batches", "3"])
        .args(["--strategies", "reference", "--out"])
        .arg(&good)
        .assert()
        .success();
    let row = "row 1 (scenario many-small, budget abs-4000, strategy reference)";
    const MAX: u64 = u64::MAX;
    let max = MAX;
    let cases: [(Box<Edit>, String); 4] = [
        (
            // A count of 2^64 - 1, in the figure and in the summary it comes from alike.
            Box::new(|r| {
                r["rows"][0]["persistence"]["writes"] = MAX.into();
                r["rows"][0]["summary"]["writes"] = MAX.into();
            }),
            format!("{row}: persistence.writes is {max}, over 9007199254740992 (2^53), the most a count read back may be"),
        ),
        (
            // Buckets whose counts wrap around to the row's 3 batches.
            Box::new(|r| r["rows"][0]["summary"]["overshoot"] = serde_json::json!([[0, MAX], [1, 4]])),
            format!("{row}: summary.overshoot: bucket 0 counts {max} values; a histogram holds at most 9007199254740992 (2^53) in all at line "),
        ),
        (
            Box::new(|r| r["inputs"]["scenarios"][0]["batches"] = MAX.into()),
            format!("inputs.scenarios (many-small): batches is {max}; a run has 1 to 1000000"),
        ),
        (
            // A null ratio beside a filled histogram of the turns' ratios.
            Box::new(|r| r["rows"][0]["cost"]["floorRatio"] = serde_json::Value::Null),
            format!("{row}: cost.floorRatio is null, but cost.summary.floorRatio counts 3: null exactly when it counts none"),
        ),
    ];
    for (edit, expected) in cases {
        let bad = tmp.path().join("bad");
        let _ = std::fs::remove_dir_all(&bad);
        let copied = std::process::Command::new("cp")
            .arg("-R")
            .arg(&good)
            .arg(&bad)
            .status()
            .unwrap();
        assert!(copied.success());
        edit_json(&bad, "results.json", |r| edit(r));
        let results = bad.join("results.json");
        let named = format!("budgetlab: {}: {expected}", results.display());
        let reads: [Vec<std::ffi::OsString>; 3] = [
            vec!["report".into(), bad.clone().into()],
            vec![
                "check".into(),
                "--baseline".into(),
                good.join("results.json").into(),
                "--current".into(),
                results.clone().into(),
            ],
            vec![
                "compare".into(),
                good.join("results.json").into(),
                results.clone().into(),
            ],
        ];
        for args in reads {
            let out = budgetlab().args(&args).output().unwrap();
            let line = refusal(&out);
            assert!(line.starts_with(&named), "{args:?}\n{line}\nlacks\n{named}");
        }
    }
}

#[test]
fn a_sweep_file_with_nonsense_is_refused_naming_the_point_and_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sweep");
    budgetlab()
        .args([
            "sweep",
            "--scenario",
            "many-small",
            "--budgets",
            "1000..4000",
        ])
        .args([
            "--steps",
            "2",
            "--batches",
            "2",
            "--strategies",
            "reference",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    edit_json(&dir, "sweep.json", |s| {
        s["points"][0]["rows"][0]["retention"]["mean"] = (-0.5).into()
    });
    let out = budgetlab().arg("report").arg(&dir).output().unwrap();
    assert_eq!(
        refusal(&out),
        format!(
            "budgetlab: {}: point 1 (1000), row 1 (budget abs-1000, strategy reference): retention.mean is -0.5, \
             outside 0..1",
            dir.join("sweep.json").display()
        )
    );
}

// Point 8: a value starting with `-` is judged by the flag's own parser, which names the flag.

#[test]
fn values_starting_with_a_hyphen_are_judged_by_their_flag() {
    let out = budgetlab()
        .args([
            "finalize",
            "--budget",
            "5",
            "--tokenizer",
            "o200k_base",
            "--token-budget",
            "-1",
        ])
        .write_stdin(BATCH)
        .output()
        .unwrap();
    assert!(refusal(&out).starts_with("budgetlab: invalid --token-budget \"-1\": "));
    let out = budgetlab()
        .args([
            "sweep",
            "--scenario",
            "many-small",
            "--head-shares",
            "-1..1",
        ])
        .output()
        .unwrap();
    assert!(refusal(&out).starts_with("budgetlab: invalid --head-shares \"-1..1\""));
    // Its value may be left out: a flag after it is still a flag.
    let out = budgetlab()
        .args([
            "sweep",
            "--scenario",
            "many-small",
            "--head-shares",
            "--steps",
            "0",
        ])
        .output()
        .unwrap();
    assert!(refusal(&out).starts_with("budgetlab: invalid --steps \"0\""));
    let out = budgetlab()
        .args(["import", "--format", "auto", "--anonymize", "-1", "x.json"])
        .output()
        .unwrap();
    assert!(refusal(&out).contains("'--anonymize <SEED>'"));
}

#[test]
fn an_external_spec_starting_with_a_hyphen_is_judged_as_one() {
    let out = budgetlab()
        .args(["finalize", "--budget", "5", "--external", "-x=cat"])
        .write_stdin(BATCH)
        .output()
        .unwrap();
    assert!(refusal(&out).starts_with("budgetlab: invalid --external \"-x=cat\": NAME must be"));
}

#[test]
fn a_newline_between_the_words_of_an_external_command_is_refused() {
    // sh would run `cat` and then `rm x`: two commands, not the words cat, rm and x.
    let out = budgetlab()
        .args(["finalize", "--budget", "5", "--strategy", "mine"])
        .args(["--external", "mine=cat\nrm x"])
        .write_stdin(BATCH)
        .output()
        .unwrap();
    assert_eq!(
        refusal(&out),
        "budgetlab: invalid --external \"mine=cat\\nrm x\": COMMAND: unquoted newline at character 4 is a shell \
         command separator; no shell runs the command, so quote it, or run a shell explicitly (sh -c '...')"
    );
}

#[test]
fn tokens_skips_a_byte_order_mark_as_every_reader_does() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.jsonl");
    let marked = dir.path().join("marked.jsonl");
    std::fs::write(&plain, format!("{BATCH}\n{BATCH}\n")).unwrap();
    std::fs::write(&marked, format!("\u{feff}{BATCH}\n{BATCH}\n")).unwrap();
    let tally = |path: &Path| {
        let out = budgetlab()
            .arg("tokens")
            .arg("--json")
            .arg(path)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json.as_object_mut().unwrap().remove("source");
        json
    };
    assert_eq!(tally(&marked), tally(&plain));
}

#[test]
fn a_scenario_name_with_a_control_character_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shipped = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/many-small.toml"),
    )
    .unwrap();
    assert!(shipped.contains("\nname = \"many-small\"\n"));
    let evil = dir.path().join("evil.toml");
    std::fs::write(
        &evil,
        shipped.replace(
            "\nname = \"many-small\"\n",
            "\nname = \"evil\\u001b[31mred\"\n",
        ),
    )
    .unwrap();
    let out = budgetlab()
        .args(["generate", "--batches", "1", "--scenario"])
        .arg(&evil)
        .output()
        .unwrap();
    assert_eq!(
        refusal(&out),
        format!(
            "budgetlab: {}:3: field `name`: must not hold control characters (it is printed to the terminal), got \
             \"evil\\u{{1b}}[31mred\"",
            evil.display()
        )
    );
}
