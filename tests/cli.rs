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
    for s in budgetlab::StrategyName::all() {
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
    // The book's `finalize` example (book/src/strategies.md): the two small fields keep everything and the two large ones share the rest of the 8,000 units,
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

/// Runs the binary expecting bad input (exit 2, one line on stderr containing every needle, nothing on stdout).
fn expect_refused(args: &[&str], needles: &[&str]) {
    let out = budgetlab().args(args).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn scenario_values_past_their_bounds_are_refused_by_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let head = "name = \"hostile\"\ndescription = \"d\"\nseed = 1\nbatches = 2\n";
    let huge = tmp.path().join("huge.toml");
    std::fs::write(
        &huge,
        format!("{head}[sizes.shell]\nmedian = 1e12\nmin = 1000000000000\nmax = 1000000000000\n"),
    )
    .unwrap();
    let append = tmp.path().join("append.toml");
    std::fs::write(
        &append,
        format!("{head}[hook]\nappend_units = 18446744073709551615\n"),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let cases = [
        (
            &huge,
            "6: field `sizes.shell.median`: must be a positive number of at most 16000000, got 1000000000000",
        ),
        (
            &append,
            "6: field `hook.append_units`: must be at most 1000000, got 18446744073709551615",
        ),
    ];
    for (file, message) in cases {
        let file = file.to_str().unwrap();
        let needle = format!("{file}:{message}");
        let o = out.to_str().unwrap();
        expect_refused(&["generate", "--scenario", file], &[&needle]);
        expect_refused(&["simulate", "--scenario", file], &[&needle]);
        expect_refused(&["run", "--scenarios", file, "--out", o], &[&needle]);
        expect_refused(
            &[
                "sweep",
                "--scenario",
                file,
                "--budgets",
                "1000..2000",
                "--out",
                o,
            ],
            &[&needle],
        );
        assert!(!out.exists(), "a refused scenario wrote {}", out.display());
    }
}

#[test]
fn threads_are_capped_at_four_per_core() {
    let cores = std::thread::available_parallelism().unwrap().get();
    let limit = 4 * cores;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    let above = (limit + 1).to_string();
    let cap = format!("must be at most {limit} (4 x the {cores} available cores)");
    let small = ["--strategies", "reference", "--batches", "1", "--out", o];
    for threads in [above.as_str(), "100000", "18446744073709551615"] {
        let mut args = vec!["run", "--scenarios", "many-small", "--threads", threads];
        args.extend(small);
        expect_refused(&args, &[&format!("invalid --threads \"{threads}\""), &cap]);
        let mut args = vec![
            "sweep",
            "--scenario",
            "many-small",
            "--budgets",
            "1000..2000",
        ];
        args.extend(["--threads", threads]);
        args.extend(small);
        expect_refused(&args, &[&format!("invalid --threads \"{threads}\""), &cap]);
    }
    let mut args = vec!["run", "--scenarios", "many-small", "--threads", "0"];
    args.extend(small);
    expect_refused(
        &args,
        &["invalid --threads \"0\": must be at least 1 (leave --threads out to use every core)"],
    );
    assert!(!out.exists());
    let limit = limit.to_string();
    let mut args = vec![
        "run",
        "--scenarios",
        "many-small",
        "--threads",
        limit.as_str(),
    ];
    args.extend(small);
    budgetlab().args(&args).assert().success();
    assert!(out.join("results.json").is_file());
}

#[test]
fn batches_0_is_refused_by_every_command_that_takes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    for n in ["0", "1000001"] {
        let refusal = format!("invalid --batches \"{n}\": must be between 1 and 1000000");
        expect_refused(
            &["generate", "--scenario", "many-small", "--batches", n],
            &[&refusal],
        );
        expect_refused(
            &["simulate", "--scenario", "many-small", "--batches", n],
            &[&refusal],
        );
        expect_refused(
            &[
                "run",
                "--scenarios",
                "many-small",
                "--batches",
                n,
                "--out",
                o,
            ],
            &[&refusal],
        );
        expect_refused(
            &[
                "sweep",
                "--scenario",
                "many-small",
                "--budgets",
                "1000..2000",
                "--batches",
                n,
                "--out",
                o,
            ],
            &[&refusal],
        );
        expect_refused(
            &["profile", "many-small", "--batches", n, "--out", o],
            &[&refusal],
        );
    }
    assert!(!out.exists());
}

#[test]
fn negative_numbers_and_minus_inf_reach_their_parsers() {
    let disabled = budgetlab()
        .args(["finalize", "--budget", "-5"])
        .write_stdin(BATCH)
        .output()
        .unwrap();
    assert!(disabled.status.success());
    expect_bad_input(
        &["finalize", "--budget", "-inf"],
        BATCH,
        "--budget: invalid budget \"-inf\": expected a decimal integer",
    );
    let tmp = tempfile::tempdir().unwrap();
    let o = tmp.path().join("out");
    let o = o.to_str().unwrap();
    expect_refused(
        &["simulate", "--scenario", "many-small", "--seed", "-1"],
        &["invalid value '-1' for '--seed <S>'"],
    );
    expect_refused(
        &["simulate", "--scenario", "many-small", "--budget", "-5"],
        &["invalid value '-5' for '--budget <N>'"],
    );
    expect_refused(
        &["generate", "--scenario", "many-small", "--batches", "-3"],
        &["invalid value '-3' for '--batches <N>'"],
    );
    expect_refused(
        &[
            "run",
            "--scenarios",
            "many-small",
            "--shard",
            "-1/2",
            "--out",
            o,
        ],
        &["invalid --shard \"-1/2\""],
    );
    expect_refused(
        &[
            "sweep",
            "--scenario",
            "many-small",
            "--budgets",
            "-5..10",
            "--out",
            o,
        ],
        &["invalid --budgets \"-5..10\""],
    );
    expect_refused(
        &[
            "sweep",
            "--scenario",
            "many-small",
            "--budgets",
            "10..100",
            "--steps",
            "-2",
            "--out",
            o,
        ],
        &["invalid value '-2' for '--steps <K>'"],
    );
}

#[test]
fn a_shard_count_out_of_range_says_so_with_its_bound() {
    let too_large = "the shard count is too large: at most 4294967295";
    expect_refused(
        &[
            "generate",
            "--scenario",
            "many-small",
            "--shard",
            "0/18446744073709551615",
        ],
        &["invalid --shard \"0/18446744073709551615\"", too_large],
    );
    let tmp = tempfile::tempdir().unwrap();
    let o = tmp.path().join("out");
    expect_refused(
        &[
            "run",
            "--shard",
            "0/99999999999999999999",
            "--out",
            o.to_str().unwrap(),
        ],
        &[too_large],
    );
    expect_refused(
        &["generate", "--scenario", "many-small", "--shard", "0/0"],
        &["the shard count must be at least 1"],
    );
}

#[test]
fn a_byte_order_mark_before_a_batch_is_skipped() {
    let plain = budgetlab()
        .args(["finalize", "--budget", "10"])
        .write_stdin(BATCH)
        .output()
        .unwrap();
    assert!(plain.status.success());
    let with_bom = budgetlab()
        .args(["finalize", "--budget", "10"])
        .write_stdin(format!("\u{feff}{BATCH}"))
        .output()
        .unwrap();
    assert!(
        with_bom.status.success(),
        "{}",
        String::from_utf8_lossy(&with_bom.stderr)
    );
    assert_eq!(with_bom.stdout, plain.stdout);

    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("recorded.jsonl");
    std::fs::write(&file, format!("\u{feff}{BATCH}\n{BATCH}\n")).unwrap();
    let out = tmp.path().join("out");
    budgetlab()
        .args([
            "run",
            "--batches-file",
            file.to_str().unwrap(),
            "--budgets",
            "10",
        ])
        .args(["--strategies", "reference", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let results: Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["inputs"]["scenarios"][0]["batches"], 2);
}

#[test]
fn invalid_utf8_in_a_batches_file_names_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("recorded.jsonl");
    let mut bytes = format!("{BATCH}\n").into_bytes();
    bytes.extend_from_slice(b"[{\"callId\":\"\xFF\"}]\n");
    bytes.extend_from_slice(format!("{BATCH}\n").as_bytes());
    std::fs::write(&file, bytes).unwrap();
    let out = tmp.path().join("out");
    expect_refused(
        &[
            "run",
            "--batches-file",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &["recorded:2: not valid UTF-8 (byte 13 of the line)"],
    );
    assert!(!out.exists());
}

#[test]
fn bare_budgetlab_prints_its_usage_and_exits_2() {
    let out = budgetlab().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("Usage: budgetlab <COMMAND>"), "{err}");
    for command in ["finalize", "generate", "run", "merge", "check"] {
        assert!(
            err.lines().any(|l| l.trim_start().starts_with(command)),
            "{command} not listed: {err}"
        );
    }
}

#[test]
fn a_failed_write_to_stdout_names_stdout() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full on this system");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("batch.json");
    std::fs::write(&input, BATCH).unwrap();
    let input = input.to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["strategies"],
        &["scenarios"],
        &["finalize", "--budget", "10", "--input", input],
        &["generate", "--scenario", "many-small", "--batches", "1"],
        &["simulate", "--scenario", "many-small", "--batches", "1"],
        &[
            "simulate",
            "--scenario",
            "many-small",
            "--batches",
            "1",
            "--json",
        ],
    ];
    for args in cases {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("budgetlab"))
            .args(*args)
            .stdin(std::process::Stdio::null())
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("budgetlab: <stdout>: No space left on device"),
            "{args:?}: {err}"
        );
    }
}
