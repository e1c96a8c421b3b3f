//! `budgetlab merge`, `check` and `compare` end to end, and the determinism they rely on: two runs, runs on one
//! or two threads, and the merged shards of a run give the same results.json and batches.jsonl but for the cost
//! figures.

use crate::support::{records_without_cost, results_without_cost};
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

mod compare;
mod cost;
mod refusals;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// A small run (two scenarios, three strategies, 7 batches: shards of 3 are uneven) into `out`.
fn small_run(out: &Path, extra: &[&str]) {
    budgetlab()
        .args([
            "run",
            "--scenarios",
            "surrogate-storm",
            "pre-persisted",
            "--strategies",
            "reference,greedy,codex",
            "--batches",
            "7",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .assert()
        .success();
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// Runs the binary expecting bad input: exit 2, one line on stderr containing `needle`, nothing on stdout.
fn expect_bad_input(args: &[&str], needle: &str) {
    let out = budgetlab().args(args).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn runs_repeat_on_any_thread_count_and_merged_shards_equal_the_whole_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    small_run(&dir("whole"), &["--threads", "2"]);
    small_run(&dir("again"), &["--threads", "2"]);
    small_run(&dir("one-thread"), &["--threads", "1"]);
    for i in 0..3 {
        small_run(&dir(&format!("shard-{i}")), &["--shard", &format!("{i}/3")]);
    }
    let shard = read_json(&dir("shard-1").join("results.json"));
    assert_eq!(
        shard["inputs"]["shard"],
        serde_json::json!({"index": 1, "count": 3})
    );

    let out = budgetlab()
        .args(["merge", "--out"])
        .arg(dir("merged"))
        .args([dir("shard-2"), dir("shard-0"), dir("shard-1")])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let note = String::from_utf8(out.stderr).unwrap();
    assert!(note.contains("merged shards 0/3, 1/3, 2/3"), "{note}");

    let whole = results_without_cost(&dir("whole"));
    assert_eq!(whole["inputs"]["shard"], Value::Null);
    assert_eq!(whole["rows"].as_array().unwrap().len(), 2 * 3 * 3);
    let records = records_without_cost(&dir("whole"));
    assert_eq!(records.len(), 2 * 3 * 3 * 7);
    for other in ["again", "one-thread", "merged"] {
        assert!(
            results_without_cost(&dir(other)) == whole,
            "{other}: results.json differs from the whole run's beyond the cost"
        );
        assert!(
            records_without_cost(&dir(other)) == records,
            "{other}: batches.jsonl differs from the whole run's beyond the cost"
        );
        for file in ["batches.csv", "summary.md"] {
            assert!(dir(other).join(file).is_file(), "{other}/{file}");
        }
    }
}

#[test]
fn merge_refuses_what_is_not_one_whole_sharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    small_run(&dir("a0"), &["--shard", "0/2"]);
    small_run(&dir("a1"), &["--shard", "1/2"]);
    budgetlab()
        .args(["run", "--scenarios", "surrogate-storm", "pre-persisted"])
        .args(["--strategies", "reference,greedy", "--batches", "7"])
        .args(["--shard", "1/2", "--out"])
        .arg(dir("b1"))
        .assert()
        .success();
    let out = dir("merged");
    let merge = |shards: &[PathBuf], needle: &str| {
        let mut args = vec!["merge".to_string(), "--out".into(), path(&out).into()];
        args.extend(shards.iter().map(|s| path(s).to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        expect_bad_input(&args, needle);
        assert!(!out.exists(), "a failed merge wrote {}", out.display());
    };
    merge(&[dir("a0"), dir("b1")], "is not a shard of the same run");
    merge(&[dir("a0")], "the run has 2 shards; missing 1/2");
    merge(
        &[dir("a0"), dir("a0"), dir("a1")],
        "is shard 0/2, and so is",
    );
    merge(&[dir("a0"), dir("nowhere")], "not a report folder");

    // A batches.jsonl cut short or broken is not the file the shard's results.json records the sha256 of.
    let jsonl = dir("a1").join("batches.jsonl");
    let text = fs::read_to_string(&jsonl).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let edited = format!(
        "{}: batches.jsonl is not the file this run wrote",
        path(&dir("a1"))
    );
    fs::write(&jsonl, lines[..lines.len() - 1].join("\n")).unwrap();
    merge(&[dir("a0"), dir("a1")], &edited);
    fs::write(
        &jsonl,
        format!("{}\n{}\n{{\"scenario\":\n", lines[0], lines[1]),
    )
    .unwrap();
    merge(&[dir("a0"), dir("a1")], &edited);
    fs::remove_file(&jsonl).unwrap();
    merge(&[dir("a0"), dir("a1")], "batches.jsonl: No such file");
}

/// The book's compare-and-check flow (book/src/nightly.md, and the two strategies of book/src/running.md), as the
/// binary's arguments. Spelled out here, not read from the book (no test reads it): a change to one must be made
/// to the other.
const BOOK_COMPARE_FLOW: [&[&str]; 4] = [
    &["run", "--quick"],
    &["compare", "reports/baseline", "reports/latest"],
    &["check", "--baseline", "reports/baseline"],
    &[
        "compare",
        "reports/latest",
        "--strategies",
        "reference,greedy",
    ],
];

/// The tolerances a check against the committed baseline runs with: the defaults but cost, which is timing.
fn baseline_tolerances() -> &'static [&'static str] {
    // Timings are not asserted in tests: a busy machine (or a debug build) moves the cost over the floor by
    // several times. The cost check itself is tested on set figures (src/gate/check.rs).
    &["--tolerance", "cost=off"]
}

/// The book's own flow, in a folder holding the committed baseline: a quick run, then `compare` and `check`
/// against the baseline, which agree on what they ran; then the same run checked with a JUnit report.
#[test]
fn a_fresh_quick_run_passes_the_committed_baseline() {
    let tmp = tempfile::tempdir().unwrap();
    let baseline = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline/results.json");
    fs::create_dir_all(tmp.path().join("reports/baseline")).unwrap();
    fs::copy(&baseline, tmp.path().join("reports/baseline/results.json")).unwrap();
    let rows = read_json(&baseline)["rows"].as_array().unwrap().len();
    for args in BOOK_COMPARE_FLOW {
        let out = budgetlab()
            .args(args)
            .args(if args[0] == "check" {
                baseline_tolerances()
            } else {
                &[]
            })
            .current_dir(tmp.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}; the quick run no longer matches reports/baseline/ (see reports/baseline/README.md to \
             refresh it):\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        match args[..2].join(" ").as_str() {
            "compare reports/baseline" => {
                assert!(
                    stdout.ends_with(&format!(
                        "\nNo tracked metric differs beyond its threshold in the {rows} rows compared.\n"
                    )),
                    "{stdout}"
                );
                assert!(!stdout.contains("inputs differ"), "{stdout}");
            }
            "check --baseline" => {
                assert!(
                    stdout.starts_with("## budgetlab check: passed\n"),
                    "{stdout}"
                )
            }
            _ => {}
        }
    }
    let current = tmp.path().join("reports/latest");
    let junit = tmp.path().join("ci/check.xml");
    // Cost is timing, which tests never gate on (baseline_tolerances).
    let out = budgetlab()
        .args(["check", "--baseline"])
        .arg(&baseline)
        .arg("--current")
        .arg(&current)
        .arg("--junit")
        .arg(&junit)
        .args(baseline_tolerances())
        .output()
        .unwrap();
    let verdict = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the quick run no longer matches reports/baseline/ (see reports/baseline/README.md to refresh it):\n{verdict}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        verdict.starts_with("## budgetlab check: passed\n"),
        "{verdict}"
    );
    assert!(
        verdict.contains(" 0 only in the baseline, 0 only in the current run."),
        "{verdict}"
    );
    let xml = fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<testsuites name=\"budgetlab check\" tests=\""),
        "{xml}"
    );
    assert!(xml.contains("failures=\"0\">"), "{xml}");
}

/// `run --compact` writes results.json without the bootstrap resamples (the committed baseline is kept so, for
/// the package's size): a third fewer bytes at least, the same figures, and a check against it passes; `compare` of two
/// strategies in it gives no paired interval rather than a made-up one.
#[test]
fn a_compact_run_keeps_every_figure_but_the_resamples_and_still_gates() {
    let tmp = tempfile::tempdir().unwrap();
    let (full, compact) = (tmp.path().join("full"), tmp.path().join("compact"));
    small_run(&full, &[]);
    small_run(&compact, &["--compact"]);
    let (a, b) = (
        fs::read_to_string(full.join("results.json")).unwrap(),
        fs::read_to_string(compact.join("results.json")).unwrap(),
    );
    assert_eq!(a.matches("\"resamples\"").count(), 6 * 3);
    assert_eq!(b.matches("\"resamples\"").count(), 0);
    assert!(b.len() * 3 < a.len() * 2, "{} vs {}", b.len(), a.len());
    let (mut a, mut b) = (
        read_json(&full.join("results.json")),
        read_json(&compact.join("results.json")),
    );
    for results in [&mut a, &mut b] {
        for row in results["rows"].as_array_mut().unwrap() {
            let row = row.as_object_mut().unwrap();
            row.remove("cost");
            row["summary"].as_object_mut().unwrap().remove("resamples");
        }
        let results = results.as_object_mut().unwrap();
        // The ranking's intervals are what differs; the fronts and the file digests follow the timings.
        for volatile in ["ranking", "pareto", "sha256"] {
            results.remove(volatile);
        }
    }
    assert_eq!(a, b);
    let out = budgetlab()
        .args(["check", "--baseline"])
        .arg(&compact)
        .arg("--current")
        .arg(&full)
        .args(baseline_tolerances())
        .output()
        .unwrap();
    let verdict = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{verdict}");
    assert!(
        verdict.starts_with("## budgetlab check: passed\n"),
        "{verdict}"
    );
    // Intervals in the full run's strategy comparison, none in the compact one's.
    let intervals = |run: &Path| {
        let out = budgetlab()
            .arg("compare")
            .arg(run)
            .args(["--strategies", "reference,greedy", "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8(out.stdout).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        fn count(v: &Value) -> usize {
            match v {
                Value::Object(m) => m
                    .iter()
                    .map(|(k, v)| usize::from(k == "interval" && v.is_array()) + count(v))
                    .sum(),
                Value::Array(a) => a.iter().map(count).sum(),
                _ => 0,
            }
        }
        count(&value)
    };
    assert!(intervals(&full) > 0);
    assert_eq!(intervals(&compact), 0);
}

/// A small run in `dir`, and a copy of its results.json edited by `edit` as `dir/current/results.json`.
fn baseline_and_edited(dir: &Path, edit: impl FnOnce(&mut Value)) -> (PathBuf, PathBuf) {
    let base = dir.join("base");
    small_run(&base, &[]);
    let mut results = read_json(&base.join("results.json"));
    edit(&mut results);
    let current = dir.join("current");
    fs::create_dir_all(&current).unwrap();
    fs::write(
        current.join("results.json"),
        serde_json::to_vec_pretty(&results).unwrap(),
    )
    .unwrap();
    (base, current)
}

fn row<'a>(results: &'a mut Value, strategy: &str, budget: &str) -> &'a mut Value {
    results["rows"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| {
            r["strategy"] == strategy
                && r["budgetLabel"] == budget
                && r["scenario"] == "surrogate-storm"
        })
        .unwrap()
}

#[test]
fn check_fails_with_a_verdict_table_and_junit_failures() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, current) = baseline_and_edited(tmp.path(), |r| {
        let reference = row(r, "reference", "abs-1000");
        reference["compliance"]["rate"] = (4.0 / 7.0).into();
        reference["compliance"]["violations"] = 3.into();
        reference["compliance"]["maxOvershoot"] = 17.into();
        reference["compliance"]["p99Overshoot"] = 17.into();
        reference["integrity"]["brokenSurrogates"] = 3.into();
        let greedy = row(r, "greedy", "abs-7001");
        let mean = greedy["retention"]["mean"].as_f64().unwrap();
        greedy["retention"]["mean"] = (mean - 0.1).into();
        let rows = r["rows"].as_array_mut().unwrap();
        let gone = rows.iter().position(|r| r["strategy"] == "codex").unwrap();
        rows.remove(gone);
    });
    let junit = tmp.path().join("check.xml");
    let out = budgetlab()
        .args(["check", "--baseline"])
        .arg(base.join("results.json"))
        .arg("--current")
        .arg(&current)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdict = String::from_utf8(out.stdout).unwrap();
    assert!(
        verdict.starts_with("## budgetlab check: FAILED\n"),
        "{verdict}"
    );
    assert!(
        verdict.contains("- Rows: 17 compared, 1 only in the baseline, 0 only in the current run."),
        "{verdict}"
    );
    assert!(
        verdict.contains("| scenario | budget | strategy | check | what failed |"),
        "{verdict}"
    );
    for needle in [
        "| surrogate-storm | abs-1000 | reference | within-budget | the reference is over budget",
        "| surrogate-storm | abs-1000 | reference | integrity | the reference has integrity issues: broken surrogates 3 |",
        "| surrogate-storm | abs-1000 | reference | compliance | compliance.rate moved from 100.00% to 57.14%: -42.86 pp, more than the ±0.5 pp allowed |",
        "| surrogate-storm | abs-7001 | greedy | retention | retention.mean moved from",
        "| codex | present | the row is missing from the current run |",
    ] {
        assert!(verdict.contains(needle), "{needle:?} not in\n{verdict}");
    }
    assert!(verdict.contains("- Checks: "), "{verdict}");
    assert!(verdict.contains(" passed, 5 failed."), "{verdict}");
    let xml = fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("failures=\"5\">"), "{xml}");
    assert!(
        xml.contains("<testcase classname=\"surrogate-storm/abs-7001/greedy\" name=\"retention\">\n      <failure message=\"retention.mean moved from"),
        "{xml}"
    );

    // The same run passes with its compliance and integrity restored and loose enough tolerances... but for the
    // missing row, which still fails.
    let out = budgetlab()
        .args([
            "check",
            "--tolerance",
            "retention=0.2",
            "--tolerance",
            "compliance=off",
        ])
        .arg("--baseline")
        .arg(&base)
        .arg("--current")
        .arg(current.join("results.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let verdict = String::from_utf8(out.stdout).unwrap();
    assert!(verdict.contains(" passed, 3 failed."), "{verdict}");
    assert!(!verdict.contains("| retention |"), "{verdict}");
}

#[test]
fn check_refuses_bad_input_with_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, current) = baseline_and_edited(tmp.path(), |r| r["schemaVersion"] = 99.into());
    let base_file = base.join("results.json");
    let junit = tmp.path().join("check.xml");
    let check = |baseline: &Path, current: &Path, extra: &[&str], needle: &str| {
        let mut args = vec![
            "check",
            "--baseline",
            path(baseline),
            "--current",
            path(current),
        ];
        args.extend_from_slice(extra);
        expect_bad_input(&args, needle);
        assert!(!junit.exists(), "junit written on bad input");
    };
    let junit_flag = ["--junit", path(&junit)];
    check(
        &tmp.path().join("none.json"),
        &base,
        &junit_flag,
        "none.json: No such file",
    );
    check(&base, &tmp.path().join("none"), &junit_flag, "No such file");
    check(
        &current,
        &base,
        &junit_flag,
        &format!(
            "results schema version 99; this budgetlab reads version {}",
            budgetlab::run::SCHEMA_VERSION
        ),
    );
    let malformed = tmp.path().join("malformed.json");
    fs::write(&malformed, "{\"schemaVersion\": 1, \"rows\": [").unwrap();
    check(
        &malformed,
        &base,
        &junit_flag,
        "malformed.json: invalid JSON at line 1",
    );
    fs::write(&malformed, "[1, 2]").unwrap();
    check(
        &malformed,
        &base,
        &junit_flag,
        "malformed.json: not a budgetlab results.json (not a JSON object)",
    );
    check(
        &base_file,
        &base,
        &[
            "--tolerance",
            "retention=0.01,speed=2",
            "--junit",
            path(&junit),
        ],
        "invalid --tolerance \"speed=2\": unknown metric",
    );
    check(
        &base_file,
        &base,
        &["--tolerance", "writes=-5%"],
        "at least 0",
    );

    let shard = tmp.path().join("shard");
    small_run(&shard, &["--shard", "0/2"]);
    check(
        &base_file,
        &shard,
        &junit_flag,
        "is shard 0/2 but the baseline is a whole run; merge the shards first",
    );

    let blocked = tmp.path().join("file");
    fs::write(&blocked, "").unwrap();
    check(
        &base_file,
        &base,
        &["--junit", &format!("{}/check.xml", path(&blocked))],
        "--junit",
    );
}

#[test]
fn compare_tables_only_what_differs() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, current) = baseline_and_edited(tmp.path(), |r| {
        let greedy = row(r, "greedy", "abs-20000");
        greedy["persistence"]["writes"] = 1234.into();
        // One kind of needle lost: its count, its rate and the survival they give, together.
        greedy["needles"]["byKind"]["exit-info"]["survived"] = 0.into();
        greedy["needles"]["byKind"]["exit-info"]["rate"] = 0.0.into();
        let kinds = greedy["needles"]["byKind"].as_object().unwrap();
        let sum = |key: &str| {
            kinds
                .values()
                .map(|k| k[key].as_u64().unwrap())
                .sum::<u64>()
        };
        let survival = sum("survived") as f64 / sum("planted") as f64;
        greedy["needles"]["survival"] = survival.into();
        let upper = greedy["needles"]["upperBound"].as_f64().unwrap();
        greedy["needles"]["ofPossible"] = (survival / upper).min(1.0).into();
    });
    let compare = |a: &Path, b: &Path, extra: &[&str]| {
        let out = budgetlab()
            .arg("compare")
            .arg(a)
            .arg(b)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let same = compare(&base, &base.join("results.json"), &[]);
    assert!(
        same.contains("No tracked metric differs beyond its threshold in the 18 rows compared."),
        "{same}"
    );
    assert!(same.contains("18 rows in both"), "{same}");

    let text = compare(&base, &current, &[]);
    assert!(
        text.contains("1 of 18 rows differ, the largest change first:"),
        "{text}"
    );
    assert!(
        text.contains("| scenario | budget | strategy | metric | A | B | change |"),
        "{text}"
    );
    assert!(
        text.contains("| surrogate-storm | abs-20000 | greedy | needles.survival |"),
        "{text}"
    );
    assert!(
        text.contains("| surrogate-storm | abs-20000 | greedy | persistence.writes |"),
        "{text}"
    );
    assert_eq!(text.matches("| surrogate-storm |").count(), 2, "{text}");
    assert!(!text.contains("cost.medianNs"), "{text}");

    // The same as JSON: the one row that differs, with exactly its two changed metrics and both values.
    let json: serde_json::Value =
        serde_json::from_str(&compare(&base, &current, &["--json"])).unwrap();
    assert_eq!(json["matchedRows"], 18);
    assert_eq!(json["onlyA"], serde_json::json!([]));
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{json}");
    assert_eq!(
        (
            &rows[0]["scenario"],
            &rows[0]["budget"],
            &rows[0]["strategy"]
        ),
        (
            &serde_json::json!("surrogate-storm"),
            &serde_json::json!("abs-20000"),
            &serde_json::json!("greedy")
        )
    );
    let changed: Vec<&str> = rows[0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["metric"].as_str().unwrap())
        .collect();
    assert_eq!(changed, ["needles.survival", "persistence.writes"]);
    let writes = &rows[0]["changes"][1];
    assert_eq!(writes["b"], 1234.0);
    assert_ne!(writes["a"], writes["b"]);

    let with_cost = compare(&base, &current, &["--cost"]);
    assert!(
        with_cost.contains("persistence.writes, cost.floorRatio, cost.medianNs\n"),
        "{with_cost}"
    );

    expect_bad_input(&["compare", path(&base)], "B");
    expect_bad_input(
        &["compare", path(&base), path(&tmp.path().join("none"))],
        "No such file",
    );
}
