//! Features of the binary and the scripts, each with an outcome known in advance: recorded batches run with
//! `--budgets`, `--mode` and `--legacy`; `finalize --time` and `--pretty`; the `simulate` table; `sweep
//! --windows`; `.ci/nightly` end to end; `scripts/bench-ratios.py` on a made-up criterion folder.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use serde_json::{json, Value};

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A batch of three executed shell calls of 5,000 units each, as `finalize` reads it.
fn three_calls(turn: usize) -> Value {
    Value::Array(
        (0..3)
            .map(|i| {
                let id = format!("t{turn}-c{i}");
                json!({
                    "callId": id,
                    "toolName": "shell",
                    "responseParts": [{"functionResponse": {
                        "id": id, "name": "shell", "response": {"output": "x".repeat(5000)}
                    }}]
                })
            })
            .collect(),
    )
}

/// Runs two recorded turns of [`three_calls`] with `flags` and the reference; returns results.json and the folder.
fn recorded_run(dir: &Path, name: &str, flags: &[&str]) -> (Value, PathBuf) {
    let file = dir.join("turns.jsonl");
    let text = format!("{}\n\n{}\n", three_calls(0), three_calls(1));
    fs::write(&file, &text).unwrap();
    let out = dir.join(name);
    budgetlab()
        .args(["run", "--strategies", "reference", "--batches-file"])
        .arg(&file)
        .args(flags)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    (read_json(&out.join("results.json")), out)
}

fn row<'a>(results: &'a Value, label: &str) -> &'a Value {
    results["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["budgetLabel"] == label)
        .unwrap()
}

#[test]
fn recorded_batches_run_at_the_given_budgets_mode_and_legacy_form() {
    let tmp = tempfile::tempdir().unwrap();
    let flags = ["--budgets", "6000,20000", "--mode", "headless", "--legacy"];
    let (legacy, out) = recorded_run(tmp.path(), "legacy", &flags);
    let text = fs::read_to_string(tmp.path().join("turns.jsonl")).unwrap();
    let info = &legacy["inputs"]["scenarios"][0];
    assert_eq!(info["name"], "turns");
    assert_eq!(info["source"], "recorded");
    assert_eq!(info["digest"], budgetlab::digest::sha256_hex(&text));
    assert_eq!(
        (info["seed"].as_u64(), info["batches"].as_u64()),
        (Some(0), Some(2))
    );
    assert_eq!(
        (info["mode"].as_str(), info["legacy"].as_bool()),
        (Some("headless"), Some(true))
    );
    let labels: Vec<(&str, u64)> = info["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["label"].as_str().unwrap(), b["units"].as_u64().unwrap()))
        .collect();
    assert_eq!(labels, [("abs-6000", 6000), ("abs-20000", 20_000)]);
    assert_eq!(legacy["rows"].as_array().unwrap().len(), 2);
    // Legacy headless: one scheduler per call keeps each 5,000-unit output, and the turn concatenates them to
    // 15,000 units, 9,000 over a budget of 6,000, in both turns.
    let tight = row(&legacy, "abs-6000");
    assert_eq!(
        (tight["mode"].as_str(), tight["legacy"].as_bool()),
        (Some("headless"), Some(true))
    );
    assert_eq!(
        tight["compliance"],
        json!({"rate": 0.0, "violations": 2, "maxOvershoot": 9000, "p99Overshoot": 9000,
               "violationBoundaries": {"headless-turn": 2}})
    );
    assert_eq!(row(&legacy, "abs-20000")["compliance"]["rate"], 1.0);
    // Runs of `x` hold no needle the detector could find: the summary says so rather than showing a score.
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("## turns · abs-6000 (6000 units) · headless (legacy) · 2 batches"),
        "{summary}"
    );
    assert!(summary.contains("| reference | 0.0% | 9000 |"), "{summary}");
    assert!(summary.contains(" | – | "), "{summary}");

    // The same turns in the current runtime: the outer finalization bounds the turn.
    let (current, _) = recorded_run(tmp.path(), "current", &flags[..4]);
    assert_eq!(current["inputs"]["scenarios"][0]["legacy"], false);
    let tight = row(&current, "abs-6000");
    assert_eq!(
        (
            tight["compliance"]["rate"].as_f64(),
            tight["legacy"].as_bool()
        ),
        (Some(1.0), Some(false))
    );

    // Without flags: the interactive mode at the default budgets.
    let (default, _) = recorded_run(tmp.path(), "default", &[]);
    let info = &default["inputs"]["scenarios"][0];
    assert_eq!(
        (info["mode"].as_str(), info["legacy"].as_bool()),
        (Some("interactive"), Some(false))
    );
    let labels: Vec<&str> = info["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["abs-20000", "abs-50000", "abs-200000"]);

    // A mode that does not exist is bad input.
    let out = budgetlab()
        .args(["run", "--batches-file"])
        .arg(tmp.path().join("turns.jsonl"))
        .args(["--mode", "batch", "--out"])
        .arg(tmp.path().join("bad"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid mode \"batch\""));
    assert!(!tmp.path().join("bad").exists());
}

const BATCH: &str = r#"[{"callId":"c1","toolName":"shell","responseParts":[{"functionResponse":{"id":"c1","name":"shell","response":{"output":"0123456789012345678901234567890123456789"}}}]}]"#;

#[test]
fn finalize_time_reports_to_stderr_and_pretty_only_changes_the_layout() {
    let finalize = |extra: &[&str]| {
        budgetlab()
            .args(["finalize", "--budget", "20"])
            .args(extra)
            .write_stdin(BATCH)
            .output()
            .unwrap()
    };
    let plain = finalize(&[]);
    assert!(plain.status.success() && plain.stderr.is_empty());
    let compact = String::from_utf8(plain.stdout).unwrap();
    assert_eq!(compact.lines().count(), 1);

    // --time N: the same output on stdout, one line with N runs' median, minimum and maximum on stderr.
    let timed = finalize(&["--time", "7"]);
    assert!(timed.status.success());
    assert_eq!(String::from_utf8(timed.stdout).unwrap(), compact);
    let note = String::from_utf8(timed.stderr).unwrap();
    let numbers: Vec<u128> = note
        .trim_end()
        .strip_prefix("finalize: median ")
        .and_then(|rest| {
            let (median, rest) = rest.split_once(" ns over 7 runs (min ")?;
            let (min, rest) = rest.split_once(" ns, max ")?;
            let max = rest.strip_suffix(" ns)")?;
            Some(vec![
                median.parse().ok()?,
                min.parse().ok()?,
                max.parse().ok()?,
            ])
        })
        .unwrap_or_else(|| panic!("unexpected timing line {note:?}"));
    assert_eq!(note.lines().count(), 1);
    assert!(
        numbers[1] <= numbers[0] && numbers[0] <= numbers[2],
        "{note}"
    );

    // --pretty: the same JSON value, indented.
    let pretty = finalize(&["--pretty"]);
    assert!(pretty.status.success());
    let pretty = String::from_utf8(pretty.stdout).unwrap();
    let value: Value = serde_json::from_str(&compact).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&pretty).unwrap(), value);
    assert_eq!(pretty, serde_json::to_string_pretty(&value).unwrap() + "\n");
    assert_eq!(compact, serde_json::to_string(&value).unwrap() + "\n");
    assert!(pretty.contains("\n  \"entries\": [\n"), "{pretty}");
}

#[test]
fn the_simulate_table_shows_each_boundary_of_each_turn() {
    let args = [
        "simulate",
        "--scenario",
        "shell-heavy",
        "--mode",
        "headless",
        "--legacy",
        "--strategy",
        "legacy-layers",
        "--batches",
        "3",
    ];
    let json = stdout_of(budgetlab().args(args).arg("--json"));
    let table = stdout_of(budgetlab().args(args));
    let turns: Vec<Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One table per turn, each followed by a blank line.
    let tables: Vec<&str> = table.split_terminator("\n\n").collect();
    assert_eq!(tables.len(), 3);
    assert_eq!(turns.len(), 3);
    let mut over = 0;
    for (turn, table) in turns.iter().zip(&tables) {
        let budget = turn["budget"].as_u64().unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[0],
            format!(
                "batch {} · headless (legacy) · legacy-layers · budget {budget} · {} · records {}",
                turn["batch"],
                if turn["withinBudget"] == true {
                    "within budget"
                } else {
                    "OVER BUDGET"
                },
                if turn["recordsIdentical"] == true {
                    "identical"
                } else {
                    "DIFFER"
                },
            )
        );
        assert_eq!(
            lines[1].split_whitespace().collect::<Vec<_>>(),
            ["boundary", "units", "of", "budget"]
        );
        let boundaries = turn["boundaries"].as_array().unwrap();
        assert_eq!(lines.len(), 2 + boundaries.len());
        for (line, b) in lines[2..].iter().zip(boundaries) {
            let total = b["total"].as_u64().unwrap();
            let share = format!("{:.1}%", total as f64 / budget as f64 * 100.0);
            let mut expected = vec![
                b["name"].as_str().unwrap().to_string(),
                total.to_string(),
                share,
            ];
            if total > budget {
                expected.push("over".into());
                over += 1;
            }
            assert_eq!(
                line.split_whitespace().collect::<Vec<_>>(),
                expected,
                "{line}"
            );
        }
    }
    // The legacy headless turns of shell-heavy go over budget somewhere, and the table flags it.
    assert!(over > 0, "{table}");
}

#[test]
fn window_sweeps_follow_the_window_relative_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sweep");
    budgetlab()
        .args([
            "sweep",
            "--scenario",
            "mixed-realistic",
            "--windows",
            "5000..1000000",
        ])
        .args(["--steps", "3", "--batches", "1", "--out"])
        .arg(&out)
        .assert()
        .success();
    let sweep = read_json(&out.join("sweep.json"));
    assert_eq!(sweep["axis"], "window");
    assert_eq!(
        sweep["strategies"],
        json!(["reference", "window-relative", "gemini-cli"])
    );
    // Log-spaced windows 5,000, 70,711 (the geometric mean) and 1,000,000 tokens; the budget is 10% of the
    // window at 3 characters a token, at least 2,000 and at most the scenario's configured 100,000.
    let budgets: Vec<(String, u64, u64)> = sweep["scenario"]["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["label"].as_str().unwrap().to_string(),
                b["units"].as_u64().unwrap(),
                b["windowTokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        budgets,
        [
            ("window-5000".to_string(), 2000, 5000),
            ("window-70711".to_string(), 21_213, 70_711),
            ("window-1000000".to_string(), 100_000, 1_000_000)
        ]
    );
    let points = sweep["points"].as_array().unwrap();
    let values: Vec<(f64, &str)> = points
        .iter()
        .map(|p| (p["value"].as_f64().unwrap(), p["label"].as_str().unwrap()))
        .collect();
    assert_eq!(
        values,
        [
            (5000.0, "5000 tokens"),
            (70_711.0, "70711 tokens"),
            (1_000_000.0, "1000000 tokens")
        ]
    );
    for (p, (label, units, _)) in points.iter().zip(&budgets) {
        let rows = p["rows"].as_array().unwrap();
        let strategies: Vec<&str> = rows
            .iter()
            .map(|r| r["strategy"].as_str().unwrap())
            .collect();
        assert_eq!(strategies, ["reference", "window-relative", "gemini-cli"]);
        for r in rows {
            assert_eq!(
                (&r["budgetLabel"], &r["budget"]),
                (&json!(label), &json!(units))
            );
            assert_eq!(r["batches"], 1);
        }
    }
    let mut charts: Vec<String> = fs::read_dir(out.join("charts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    charts.sort();
    assert_eq!(
        charts,
        [
            "sweep-compliance.svg",
            "sweep-needles.svg",
            "sweep-retention.svg",
            "sweep-writes.svg"
        ]
    );
}

/// `.ci/nightly` and the committed baseline copied into `dir`, as a repository would hold them.
fn nightly_checkout(dir: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    fs::create_dir_all(dir.join(".ci")).unwrap();
    fs::create_dir_all(dir.join("reports/baseline")).unwrap();
    fs::copy(root.join(".ci/nightly"), dir.join(".ci/nightly")).unwrap();
    fs::copy(
        root.join("reports/baseline/results.json"),
        dir.join("reports/baseline/results.json"),
    )
    .unwrap();
}

/// Runs `.ci/nightly` in `dir` with the test's binary: (exit code, stdout, the step summary).
fn nightly(dir: &Path) -> (Option<i32>, String, String) {
    let summary = dir.join("step-summary.md");
    let _ = fs::remove_file(&summary);
    // Cost is timed on whatever machine runs the test: not compared, so the test cannot be flaky.
    let out = Process::new("bash")
        .arg(dir.join(".ci/nightly"))
        .args(["--tolerance", "cost=off"])
        .env("BUDGETLAB", env!("CARGO_BIN_EXE_budgetlab"))
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        fs::read_to_string(&summary).unwrap_or_default(),
    )
}

#[test]
fn the_nightly_script_runs_the_gate_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    nightly_checkout(dir);
    let (code, verdict, summary) = nightly(dir);
    assert_eq!(code, Some(0), "{verdict}");
    assert!(
        verdict.starts_with("## budgetlab check: passed\n"),
        "{verdict}"
    );
    assert_eq!(summary, verdict);
    // The report is the quick run's: the committed baseline's rows but for the timed cost and the bootstrap
    // resamples, which the compact baseline leaves out.
    let rows = |path: &Path| -> Vec<Value> {
        read_json(path)["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.as_object_mut().unwrap().remove("cost");
                r["summary"].as_object_mut().unwrap().remove("resamples");
                r
            })
            .collect()
    };
    assert!(
        rows(&dir.join("reports/latest/results.json"))
            == rows(&dir.join("reports/baseline/results.json"))
    );
    let junit = fs::read_to_string(dir.join("reports/junit.xml")).unwrap();
    assert!(junit.contains("failures=\"0\">"), "{junit}");

    // A baseline the run does not match: exit 1 through the pipe into the summary, one failure in the JUnit file.
    let baseline = dir.join("reports/baseline/results.json");
    let mut edited = read_json(&baseline);
    let mean = edited["rows"][0]["retention"]["mean"].as_f64().unwrap();
    edited["rows"][0]["retention"]["mean"] = json!(mean - 0.25);
    fs::write(&baseline, serde_json::to_vec_pretty(&edited).unwrap()).unwrap();
    let (code, verdict, summary) = nightly(dir);
    assert_eq!(code, Some(1), "{verdict}");
    assert!(
        verdict.starts_with("## budgetlab check: FAILED\n"),
        "{verdict}"
    );
    assert!(
        verdict.contains("| retention | retention.mean moved from"),
        "{verdict}"
    );
    assert_eq!(summary, verdict);
    let junit = fs::read_to_string(dir.join("reports/junit.xml")).unwrap();
    assert!(junit.contains("failures=\"1\">"), "{junit}");

    // A baseline that cannot be read: exit 2, nothing on stdout.
    fs::write(&baseline, "{").unwrap();
    let (code, verdict, _) = nightly(dir);
    assert_eq!((code, verdict.as_str()), (Some(2), ""));
}

/// Writes criterion's two files for one benchmark under `root/path/new/`.
fn bench(root: &Path, path: &str, median_ns: f64, bytes: Option<u64>) {
    let dir = root.join(path).join("new");
    fs::create_dir_all(&dir).unwrap();
    let estimate = |x: f64| {
        json!({"confidence_interval": {"confidence_level": 0.95, "lower_bound": x * 0.99, "upper_bound": x * 1.01},
               "point_estimate": x, "standard_error": x * 0.005})
    };
    fs::write(
        dir.join("estimates.json"),
        json!({"mean": estimate(median_ns * 1.02), "median": estimate(median_ns),
               "median_abs_dev": estimate(median_ns * 0.01), "slope": null,
               "std_dev": estimate(median_ns * 0.02)})
        .to_string(),
    )
    .unwrap();
    let mut parts = path.splitn(3, '/');
    let (group, function) = (parts.next().unwrap(), parts.next().unwrap());
    fs::write(
        dir.join("benchmark.json"),
        json!({"group_id": group, "function_id": function, "value_str": parts.next(),
               "throughput": bytes.map(|b| json!({"Bytes": b})), "full_id": path,
               "directory_name": path, "title": path})
        .to_string(),
    )
    .unwrap();
}

const BENCH_TABLES: &str = "\
### Reference against the floor

| shape | text bytes | floor | reference | reference / floor | reference throughput |
|---|---:|---:|---:|---:|---:|
| a | 5,000,000 | 2.000 ms | 2.500 ms | 1.25x | 2.00 GB/s |
| b | 7,500,000 | 4.000 ms | 5.000 ms | 1.25x | 1.50 GB/s |

### Every strategy (median, and its ratio to the floor)

| strategy | a | b |
|---|---:|---:|
| greedy | 3.000 ms (1.50x) |  |
| reference | 2.500 ms (1.25x) | 5.000 ms (1.25x) |
| floor | 2.000 ms | 4.000 ms |

### Every strategy against the reference (median / the reference's median, same run)

| strategy | a | b |
|---|---:|---:|
| greedy | 1.20x |  |

### Linearity: every field doubled, the budget kept

| shape | reference x1 | reference x2 | x2 / x1 | floor x1 | floor x2 | x2 / x1 |
|---|---:|---:|---:|---:|---:|---:|
| a | 2.500 ms | 5.000 ms | 2.00x | 2.000 ms | 3.000 ms | 1.50x |

### UTF-16 measurement and the metrics' byte searches against a memchr pass

| input | utf16_len | memchr | utf16_len / memchr | utf16_len ns/byte | utf16_len throughput |
|---|---:|---:|---:|---:|---:|
| ascii-64KiB | 0.5 µs | 0.4 µs | 1.25x | 0.0076 | 131.07 GB/s |
| mixed-1MiB | 0.200 ms | 0.100 ms | 2.00x | 0.1907 | 5.24 GB/s |

### Generation throughput

| scenario | text bytes | median | throughput |
|---|---:|---:|---:|
| mixed-realistic | 950,000 | 1.000 ms | 0.95 GB/s |

";

#[test]
fn bench_ratios_tables_a_criterion_folder() {
    if Process::new("python3").arg("--version").output().is_err() {
        crate::support::tool_missing("no python3 on PATH for scripts/bench-ratios.py");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("criterion");
    // Shapes a and b (c and mixed not run); greedy only in a; criterion's report folders are not benchmarks.
    bench(&root, "finalize_a/reference", 2.5e6, Some(5_000_000));
    bench(&root, "finalize_a/floor", 2.0e6, Some(5_000_000));
    bench(&root, "finalize_a/greedy", 3.0e6, Some(5_000_000));
    fs::create_dir_all(root.join("finalize_a/report")).unwrap();
    bench(&root, "finalize_b/reference", 5.0e6, Some(7_500_000));
    bench(&root, "finalize_b/floor", 4.0e6, Some(7_500_000));
    bench(&root, "linearity_a/reference/1", 2.5e6, None);
    bench(&root, "linearity_a/reference/2", 5.0e6, None);
    bench(&root, "linearity_a/floor/1", 2.0e6, None);
    bench(&root, "linearity_a/floor/2", 3.0e6, None);
    // Listed out of order: ascii before mixed, then by size.
    bench(
        &root,
        "text_scan/utf16_len/mixed-1MiB",
        2.0e5,
        Some(1 << 20),
    );
    bench(&root, "text_scan/memchr/mixed-1MiB", 1.0e5, Some(1 << 20));
    bench(
        &root,
        "text_scan/utf16_len/ascii-64KiB",
        500.0,
        Some(1 << 16),
    );
    bench(&root, "text_scan/memchr/ascii-64KiB", 400.0, Some(1 << 16));
    bench(&root, "generate/mixed-realistic/64", 1.0e6, Some(950_000));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/bench-ratios.py");
    let out = Process::new("python3")
        .arg(&script)
        .arg(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), BENCH_TABLES);

    let out = Process::new("python3")
        .arg(&script)
        .arg(tmp.path().join("none"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("not found; run `cargo bench -- --quick` first"));
}
