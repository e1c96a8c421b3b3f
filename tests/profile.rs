//! `budgetlab profile` end to end: a hand-built batches file whose every figure is known, a comparison, the
//! imported fixture corpus (and its anonymized copy) against a scenario, the report folder, determinism over
//! thread counts, and bad input (exit 2, one line, nothing written).

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{json, Value};

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

fn entry(tool: &str, output: &str) -> Value {
    json!({"callId": "c", "toolName": tool, "responseParts": [
        {"functionResponse": {"id": "c", "name": tool, "response": {"output": output}}}
    ]})
}

/// The hand-built corpus of `profile::tests`: outputs of 19 (twice), 36, 0, 8, 18 and 12,021 units in batches
/// of width 2, 1, 1 and 3.
fn hand_built(dir: &Path) -> PathBuf {
    let a = "Exit code: 0\nhello\n";
    let f = format!("\x1b[31merror: boom\x1b[0m\n{}", "x".repeat(12_000));
    let batches = [
        json!([
            entry("bash", a),
            entry("grep", "Found 2 matches\na.rs:1: x\r\nb.rs:2: y")
        ]),
        json!([entry("bash", "")]),
        json!([entry("read", "😀 café\n")]),
        json!([
            entry("mcp", "{\"a\": 1, \"b\": [2]}"),
            entry("bash", a),
            entry("bash", &f)
        ]),
    ];
    let path = dir.join("hand.jsonl");
    let text: Vec<String> = batches.iter().map(Value::to_string).collect();
    fs::write(&path, text.join("\n") + "\n").unwrap();
    path
}

fn success(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_hand_built_file_profiles_to_its_known_figures_in_markdown_json_and_charts() {
    let dir = tempfile::tempdir().unwrap();
    let file = hand_built(dir.path());
    let out = dir.path().join("report");
    let md = success(budgetlab().arg("profile").arg(&file).arg("--out").arg(&out));
    // Sizes sorted 0, 8, 18, 19, 19, 36, 12021: median rank 4, p90 rank 7; one output in seven above 10,000.
    for line in [
        "| outputs | 7 |",
        "| size: median | 19 |",
        "| size: p90 | 12,021 |",
        "| size: max | 12,021 |",
        "| size: mean | 1,732 |",
        "| above 10,000 | 14.29% |",
        "| above 100,000 | 0.00% |",
        "| with an astral character (surrogate pair) | 14.29% |",
        "| with CRLF line ends | 14.29% |",
        "| with ANSI escapes | 14.29% |",
        "| empty | 14.29% |",
        "| whole JSON | 14.29% |",
        "| summary line position (0 start, 1 end): median | 0.00 |",
        "| lines per output: median | 2 |",
        "| batch width: median | 1 |",
        "| batch width: max | 3 |",
        "| batches wider than 1 | 50.00% |",
        "| repeated outputs | 14.29% |",
        "| most repeated | 2 × 19 units (bash) |",
        "| no exit line | 71.43% |",
        "| `Exit code: N` | 28.57% |",
        "| needles | 6 |",
        "| exit lines | 2 |",
        "| JSON keys: position, median | 0.07 |",
        "| planted / found / beyond | - |",
        "| bash | 4 | 57.14% | 19 | 12,021 | 12,021 | 12,021 |",
        "| read | 1 | 14.29% | 8 | 8 | 8 | 8 |",
    ] {
        assert!(md.contains(line), "{line}\n{md}");
    }
    // The folder: the same Markdown, the JSON of the same figures, two charts in two formats, the marker.
    assert_eq!(fs::read_to_string(out.join("summary.md")).unwrap(), md);
    let json = read_json(&out.join("profile.json"));
    assert_eq!(json["schemaVersion"], 1);
    assert_eq!(json["compare"], Value::Null);
    let p = &json["profiles"][0];
    assert_eq!(p["source"]["kind"], "recorded");
    assert_eq!(p["source"]["batches"], 4);
    assert_eq!(
        p["source"]["digest"],
        budgetlab::digest::sha256_hex(fs::read(&file).unwrap())
    );
    assert_eq!(
        p["sizes"]["distribution"],
        json!({"count": 7, "median": 19, "p90": 12021, "p99": 12021, "max": 12021})
    );
    assert_eq!(p["sizes"]["above"][0]["outputs"]["count"], 1);
    assert_eq!(p["width"]["aboveOne"], json!({"count": 2, "share": 0.5}));
    assert_eq!(p["needles"]["planted"], Value::Null);
    for chart in ["size-cdf", "shape"] {
        let svg = fs::read_to_string(out.join(format!("charts/{chart}.svg"))).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("hand.jsonl"),
            "{chart}"
        );
        assert!(fs::read(out.join(format!("charts/{chart}.png")))
            .unwrap()
            .starts_with(b"\x89PNG"));
    }
    assert!(budgetlab::report::is_report_folder(&out));
    // Run again into the same folder: budgetlab's own folder is replaced; `--json` prints what profile.json
    // holds, byte for byte.
    let printed = success(
        budgetlab()
            .arg("profile")
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .arg("--json"),
    );
    assert_eq!(
        printed.as_bytes(),
        fs::read(out.join("profile.json")).unwrap()
    );
    assert_eq!(serde_json::from_str::<Value>(&printed).unwrap(), json);
}

#[test]
fn compare_puts_both_side_by_side_with_the_differences() {
    let dir = tempfile::tempdir().unwrap();
    let file = hand_built(dir.path());
    let other = dir.path().join("other.jsonl");
    // One output of 3 + 27 + 1 + 5 = 36 units with a 27-unit summary line at 3, in a batch of one.
    fs::write(
        &other,
        json!([entry("bash", "ok\n1 failed, 3 passed in 0.20s\nmore\n")]).to_string() + "\n",
    )
    .unwrap();
    let md = success(
        budgetlab()
            .arg("profile")
            .arg(&file)
            .arg("--compare")
            .arg(&other),
    );
    let head = format!(
        "|  | {} | {} | {} vs compared |",
        file.display(),
        other.display(),
        file.display()
    );
    assert!(md.contains(&head), "{md}");
    for line in [
        "| outputs | 7 | 1 | +6 |",
        // 19 / 36.
        "| size: median | 19 | 36 | ×0.53 |",
        "| empty | 14.29% | 0.00% | +14.29 pp |",
        "| batches wider than 1 | 50.00% | 0.00% | +50.00 pp |",
        // The summary line starts at 3 of a room of 36 - 27 = 9.
        "| summary line position (0 start, 1 end): median | 0.00 | 0.33 | -0.33 |",
        "| summary lines | 1 | 1 | +0 |",
        "| exit lines: position, median | 0.00 | - | - |",
        "| most repeated | 2 × 19 units (bash) | - | - |",
    ] {
        assert!(md.contains(line), "{line}\n{md}");
    }
    assert!(
        md.contains("(compared with): recorded, 1 batches, 1 outputs"),
        "{md}"
    );
}

fn import(args: &[&str], out: &Path) {
    let result = budgetlab()
        .args(["import", "--format", "auto"])
        .args(args)
        .arg("--out")
        .arg(out)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/import"
        ))
        .output()
        .unwrap();
    assert!(result.status.success());
}

#[test]
fn an_imported_corpus_profiled_end_to_end_against_a_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.jsonl");
    import(&[], &corpus);
    let out = dir.path().join("report");
    success(
        budgetlab()
            .arg("profile")
            .arg(&corpus)
            .args(["--compare", "shell-heavy", "--batches", "30", "--out"])
            .arg(&out),
    );
    let json = read_json(&out.join("profile.json"));
    let p = &json["profiles"][0];
    // --batches 30 takes the corpus's first 30 of 43 batches; without it, all 43.
    assert_eq!(p["source"]["batches"], 30);
    let all = dir.path().join("all");
    success(
        budgetlab()
            .arg("profile")
            .arg(&corpus)
            .arg("--out")
            .arg(&all),
    );
    let p = &read_json(&all.join("profile.json"))["profiles"][0];
    assert_eq!(
        (p["source"]["batches"].as_u64(), p["outputs"].as_u64()),
        (Some(43), Some(55))
    );
    // Every harness's exit-line style, told apart.
    let styles: Vec<(&str, u64)> = p["exitStyles"]["styles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["style"].as_str().unwrap(),
                s["outputs"]["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        styles,
        [
            ("<returncode>N</returncode>", 7),
            ("[Command finished with exit code N]", 5),
            ("Exit Code: N", 3),
            ("Exit code: N", 2),
            ("Exit code N", 1),
            ("[The command completed with exit code N]", 1),
        ]
    );
    let counts: Vec<u64> = p["needles"]["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["count"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [19, 14, 7, 10]);
    assert_eq!(p["needles"]["total"], 50);
    // The scenario compared with: generated, its planted needles all found by the detector.
    let c = &json["compare"];
    assert_eq!(c["source"]["kind"], "generated");
    assert_eq!(c["source"]["batches"], 30);
    let planted = &c["needles"]["planted"];
    assert!(planted["planted"].as_u64().unwrap() > 100, "{planted}");
    assert_eq!(planted["found"], planted["planted"]);

    // The anonymized corpus has the same profile but for its name and digest.
    let anonymized = dir.path().join("anonymized.jsonl");
    import(&["--anonymize", "7"], &anonymized);
    assert_ne!(fs::read(&anonymized).unwrap(), fs::read(&corpus).unwrap());
    let anon_out = dir.path().join("anon");
    success(
        budgetlab()
            .arg("profile")
            .arg(&anonymized)
            .arg("--out")
            .arg(&anon_out),
    );
    let mut a = read_json(&anon_out.join("profile.json"))["profiles"][0].clone();
    let mut b = p.clone();
    for v in [&mut a, &mut b] {
        v["source"]["name"] = Value::Null;
        v["source"]["digest"] = Value::Null;
    }
    assert_eq!(a, b);
}

#[test]
fn a_profile_is_the_same_on_any_number_of_threads() {
    let dir = tempfile::tempdir().unwrap();
    let on = |threads: &str| {
        let out = dir.path().join(format!("t{threads}"));
        success(
            budgetlab()
                .env("RAYON_NUM_THREADS", threads)
                .args(["profile", "mixed-realistic", "--batches", "300", "--out"])
                .arg(&out),
        );
        fs::read(out.join("profile.json")).unwrap()
    };
    assert_eq!(on("1"), on("3"));
}

fn bad(args: &[&str], dir: &Path, says: &str) {
    let out = budgetlab()
        .current_dir(dir)
        .arg("profile")
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn bad_input_is_exit_2_with_one_line_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    hand_built(d);
    fs::write(
        d.join("torn.jsonl"),
        format!("{}\n[{{\"callId\": \n", json!([entry("bash", "ok")])),
    )
    .unwrap();
    fs::write(d.join("shape.jsonl"), "{\"not\": \"a batch\"}\n").unwrap();
    fs::write(d.join("empty.jsonl"), "\n\n").unwrap();
    fs::create_dir(d.join("mine")).unwrap();
    fs::write(d.join("mine/notes.txt"), "keep me").unwrap();
    bad(
        &["missing.jsonl"],
        d,
        "missing.jsonl: No such file or directory",
    );
    bad(&["torn.jsonl"], d, "torn.jsonl:2: invalid JSON at line 1");
    bad(
        &["shape.jsonl"],
        d,
        "shape.jsonl:1: a batch must be a JSON array",
    );
    bad(&["empty.jsonl"], d, "holds no batch");
    bad(&["no-such-scenario"], d, "not a shipped scenario");
    bad(&["mine"], d, "is a folder");
    bad(
        &["hand.jsonl", "--batches", "0"],
        d,
        "must be between 1 and 1000000",
    );
    bad(
        &["mixed-realistic", "--batches", "1000001"],
        d,
        "must be between 1 and 1000000",
    );
    bad(
        &["hand.jsonl", "--compare", "missing.jsonl"],
        d,
        "missing.jsonl",
    );
    // A folder budgetlab did not make is refused before anything is read, and left as it was.
    bad(
        &["hand.jsonl", "--out", "mine"],
        d,
        "not a budgetlab report folder",
    );
    assert_eq!(
        fs::read_to_string(d.join("mine/notes.txt")).unwrap(),
        "keep me"
    );
    assert_eq!(fs::read_dir(d.join("mine")).unwrap().count(), 1);
    // A bad source with --out leaves no folder behind.
    bad(&["missing.jsonl", "--out", "new"], d, "missing.jsonl");
    assert!(!d.join("new").exists());
}
