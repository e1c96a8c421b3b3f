//! `merge`, `report`, `check` and `compare` refuse edited shards, results that break their schema, and a shard
//! against a whole run.

use super::*;

#[test]
fn merge_and_report_refuse_a_shard_whose_records_were_edited() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    small_run(&dir("a0"), &["--shard", "0/2"]);
    small_run(&dir("a1"), &["--shard", "1/2"]);
    let (out, a0, a1) = (dir("merged"), dir("a0"), dir("a1"));
    let merge_args = ["merge", "--out", path(&out), path(&a0), path(&a1)];

    // One plausible record edited: a write more, still a well-formed record within every range.
    let jsonl = dir("a1").join("batches.jsonl");
    let original = fs::read_to_string(&jsonl).unwrap();
    let mut lines: Vec<String> = original.lines().map(String::from).collect();
    let mut record: Value = serde_json::from_str(&lines[3]).unwrap();
    let writes = record["metrics"]["writes"].as_u64().unwrap();
    record["metrics"]["writes"] = (writes + 1).into();
    lines[3] = serde_json::to_string(&record).unwrap();
    fs::write(&jsonl, lines.join("\n") + "\n").unwrap();

    let needle = format!(
        "{}: batches.jsonl is not the file this run wrote (sha256 ",
        path(&dir("a1"))
    );
    expect_bad_input(&merge_args, &needle);
    assert!(!out.exists(), "a refused merge wrote {}", out.display());
    expect_bad_input(&["report", path(&dir("a1"))], &needle);

    // A results.json without the sha256 (an older or hand-made file) gives nothing to check the records by.
    fs::write(&jsonl, &original).unwrap();
    let results_path = dir("a0").join("results.json");
    let mut results = read_json(&results_path);
    results.as_object_mut().unwrap().remove("sha256").unwrap();
    fs::write(&results_path, serde_json::to_vec_pretty(&results).unwrap()).unwrap();
    expect_bad_input(
        &merge_args,
        &format!(
            "{}: results.json records no sha256 of batches.jsonl",
            path(&dir("a0"))
        ),
    );
    small_run(&dir("a0"), &["--shard", "0/2"]);

    // The files as written merge.
    budgetlab().args(merge_args).assert().success();
    let merged = read_json(&out.join("results.json"));
    let sha = &merged["sha256"];
    assert_eq!(
        sha["batches.jsonl"].as_str().unwrap(),
        sha256_hex(&fs::read(out.join("batches.jsonl")).unwrap())
    );
    assert_eq!(
        sha["batches.csv"].as_str().unwrap(),
        sha256_hex(&fs::read(out.join("batches.csv")).unwrap())
    );
}

fn sha256_hex(bytes: &[u8]) -> String {
    budgetlab::digest::sha256_hex(bytes)
}

#[test]
fn check_compare_and_report_refuse_results_that_break_their_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    small_run(&base, &[]);
    let greedy = "row 5 (scenario surrogate-storm, budget abs-7001, strategy greedy): ";
    let reference = "row 1 (scenario surrogate-storm, budget abs-1000, strategy reference): ";
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Edit, String)> = vec![
        (
            Box::new(|r| row(r, "greedy", "abs-7001")["retention"]["mean"] = (-0.5).into()),
            format!("{greedy}retention.mean is -0.5, outside 0..1"),
        ),
        (
            Box::new(|r| row(r, "greedy", "abs-7001")["compliance"]["rate"] = 2.0.into()),
            format!("{greedy}compliance.rate is 2, outside 0..1"),
        ),
        (
            Box::new(|r| {
                let copy = row(r, "greedy", "abs-7001").clone();
                r["rows"].as_array_mut().unwrap().push(copy);
            }),
            "row 19 (scenario surrogate-storm, budget abs-7001, strategy greedy): the row is there twice \
             (also row 5)"
                .into(),
        ),
        (
            Box::new(|r| row(r, "reference", "abs-1000")["compliance"]["violations"] = 2.into()),
            format!("{reference}compliance.rate is 1, but 2 violations in 7 batches give 0.7142857142857143"),
        ),
        (
            Box::new(|r| row(r, "reference", "abs-1000")["batches"] = 12.into()),
            format!("{reference}batches is 12, but the run made 7 batches of scenario surrogate-storm"),
        ),
        (
            Box::new(|r| row(r, "greedy", "abs-7001")["persistence"]["writes"] = (-1).into()),
            format!("{greedy}persistence.writes: invalid value: integer `-1`, expected u64 at line"),
        ),
        (
            Box::new(|r| row(r, "greedy", "abs-7001")["retention"]["unitShare"] = Value::Null),
            format!("{greedy}retention.unitShare: invalid type: null, expected f64 at line"),
        ),
        (
            // Null only when there was nothing to measure: this row's turns had fields.
            Box::new(|r| row(r, "greedy", "abs-7001")["retention"]["mean"] = Value::Null),
            format!("{greedy}retention.mean is null, but the row's turns had"),
        ),
        (
            Box::new(|r| r["inputs"]["shard"] = serde_json::json!({"index": 3, "count": 2})),
            "inputs.shard: shard 3/2 does not exist".into(),
        ),
    ];
    for (i, (edit, needle)) in cases.into_iter().enumerate() {
        let dir = tmp.path().join(format!("bad-{i}"));
        fs::create_dir_all(&dir).unwrap();
        let mut results = read_json(&base.join("results.json"));
        edit(&mut results);
        let file = dir.join("results.json");
        fs::write(&file, serde_json::to_vec_pretty(&results).unwrap()).unwrap();
        let needle = format!("{}: {needle}", path(&file));
        let baseline = base.join("results.json");
        expect_bad_input(
            &[
                "check",
                "--baseline",
                path(&baseline),
                "--current",
                path(&dir),
            ],
            &needle,
        );
        expect_bad_input(
            &["check", "--baseline", path(&file), "--current", path(&base)],
            &needle,
        );
        expect_bad_input(&["compare", path(&base), path(&dir)], &needle);
        expect_bad_input(&["report", path(&dir)], &needle);
        assert!(
            !dir.join("index.html").exists() && !dir.join("charts").exists(),
            "report drew from a refused file"
        );
    }

    // NaN is not JSON: the position of the bad token is named.
    let mut text = fs::read_to_string(base.join("results.json")).unwrap();
    let at = text.find("\"mean\": ").unwrap() + "\"mean\": ".len();
    let end = at + text[at..].find([',', '\n']).unwrap();
    text.replace_range(at..end, "NaN");
    let dir = tmp.path().join("nan");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("results.json"), text).unwrap();
    expect_bad_input(
        &["compare", path(&base), path(&dir)],
        "invalid JSON at line",
    );
}

#[test]
fn compare_refuses_a_shard_against_a_whole_run_as_check_does() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    let shard = tmp.path().join("shard");
    small_run(&whole, &[]);
    small_run(&shard, &["--shard", "0/2"]);
    let whole_file = whole.join("results.json");
    let shard_file = shard.join("results.json");
    expect_bad_input(
        &["compare", path(&whole), path(&shard)],
        &format!(
            "{}: is shard 0/2 but A ({}) is a whole run; merge the shards first (budgetlab merge)",
            path(&shard_file),
            path(&whole_file)
        ),
    );
    expect_bad_input(
        &["compare", path(&shard), path(&whole)],
        &format!(
            "{}: is a whole run but A ({}) is shard 0/2",
            path(&whole_file),
            path(&shard_file)
        ),
    );
    let out = budgetlab()
        .args(["compare", path(&shard), path(&shard_file)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
