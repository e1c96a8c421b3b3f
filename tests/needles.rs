//! The needle detector on generated batches: on every shipped scenario it finds every needle the generator
//! planted (a detected needle of the same kind, in the same field, at the same offset, whose text starts with
//! the planted text: a detected needle is always a whole line, and `cjk-heavy` plants its log errors without
//! the `trace_id=...` that ends their line), and
//! what it finds beyond those is counted and printed (`cargo test --release --test integration needles --
//! --nocapture`).

use std::collections::BTreeMap;

use budgetlab::needles::detect_batch;
use budgetlab::{Generator, Needle, NeedleKind, Scenario};

/// Batches of each scenario the detector reads.
const BATCHES: u64 = 80;

/// Planted needles the detector missed, and the detected ones beyond the planted, by kind.
fn missed_and_beyond(
    planted: &[Needle],
    detected: &[Needle],
) -> (Vec<Needle>, BTreeMap<NeedleKind, usize>) {
    let same = |p: &Needle, d: &Needle| {
        (d.entry, d.part, d.field, d.kind, d.offset) == (p.entry, p.part, p.field, p.kind, p.offset)
            && d.text.starts_with(p.text.as_str())
    };
    let missed = planted
        .iter()
        .filter(|p| !detected.iter().any(|d| same(p, d)))
        .cloned()
        .collect();
    let mut beyond = BTreeMap::new();
    for d in detected
        .iter()
        .filter(|d| !planted.iter().any(|p| same(p, d)))
    {
        *beyond.entry(d.kind).or_default() += 1;
    }
    (missed, beyond)
}

#[test]
fn the_detector_finds_every_planted_needle_in_every_shipped_scenario() {
    let (mut all_planted, mut all_beyond) = (0usize, 0usize);
    let shipped = Scenario::all_shipped();
    for s in &shipped {
        let g = Generator::new(s);
        let mut planted = 0;
        let mut beyond: BTreeMap<NeedleKind, usize> = BTreeMap::new();
        for i in 0..BATCHES {
            let b = g.batch(i);
            let detected = detect_batch(&b.batch);
            // A relevant needle is relevant by the turn's context, not by its shape: the detector reads no
            // context, and only a content-aware strategy is asked to keep it.
            let shaped: Vec<Needle> = b
                .needles
                .iter()
                .filter(|n| n.kind != NeedleKind::Relevant)
                .cloned()
                .collect();
            let (missed, extra) = missed_and_beyond(&shaped, &detected);
            assert!(
                missed.is_empty(),
                "{} batch {i}: missed {:?}",
                s.name,
                missed.iter().take(3).collect::<Vec<_>>()
            );
            planted += shaped.len();
            for (k, n) in extra {
                *beyond.entry(k).or_default() += n;
            }
        }
        let extra: usize = beyond.values().sum();
        eprintln!(
            "{}: {planted} planted, all found; {extra} beyond {beyond:?}",
            s.name
        );
        all_planted += planted;
        all_beyond += extra;
    }
    eprintln!(
        "every shipped scenario, {BATCHES} batches each: {all_planted} planted, all found; {all_beyond} beyond"
    );
    assert!(shipped.len() >= 12, "{}", shipped.len());
    assert!(all_planted > 5_000, "{all_planted}");
}

#[test]
fn a_needle_the_detector_misses_is_reported() {
    // The comparison itself can fail: a planted needle one unit off, or of another kind, is missed.
    let s = Scenario::shipped("shell-heavy").unwrap();
    let b = Generator::new(&s).batch(0);
    let detected = detect_batch(&b.batch);
    let mut moved = b.needles.clone();
    moved[0].offset += 1;
    assert_eq!(missed_and_beyond(&moved, &detected).0, [moved[0].clone()]);
    let mut other = b.needles.clone();
    other[0].kind = match other[0].kind {
        NeedleKind::ExitInfo => NeedleKind::SummaryLine,
        _ => NeedleKind::ExitInfo,
    };
    assert_eq!(missed_and_beyond(&other, &detected).0, [other[0].clone()]);
    let (missed, beyond) = missed_and_beyond(&b.needles, &detected);
    assert!(missed.is_empty());
    assert_eq!(
        beyond.values().sum::<usize>(),
        detected.len() - b.needles.len()
    );
}

/// One shell result of about 60,600 units: an exit line first, an error line in the middle, a test summary
/// last.
fn long_log() -> String {
    let mut out = String::from("Exit code: 1\n");
    for _ in 0..300 {
        out.push_str(&"x".repeat(99));
        out.push('\n');
    }
    out.push_str("error: late failure\n");
    for _ in 0..300 {
        out.push_str(&"y".repeat(99));
        out.push('\n');
    }
    out.push_str(SUMMARY);
    out
}

const SUMMARY: &str =
    "test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s\n";

fn shell_batch(id: &str, output: &str) -> serde_json::Value {
    serde_json::json!([{
        "callId": id,
        "toolName": "run_shell_command",
        "responseParts": [{"functionResponse": {"id": id, "name": "run_shell_command", "response": {"output": output}}}]
    }])
}

fn run_recorded(file: &std::path::Path, out: &std::path::Path, budgets: &str) -> serde_json::Value {
    let run = assert_cmd::Command::cargo_bin("budgetlab")
        .unwrap()
        .args([
            "run",
            "--strategies",
            "reference",
            "--budgets",
            budgets,
            "--threads",
            "1",
            "--batches-file",
        ])
        .arg(file)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap()
}

#[test]
fn recorded_batches_report_the_survival_of_the_needles_found_in_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("turns.jsonl");
    let log = long_log();
    // Two turns: the long log, and a short one that fits whole (its exit line survives whatever the budget).
    let text = format!(
        "{}\n{}\n",
        shell_batch("c1", &log),
        shell_batch("c2", "Exit code: 0\nok\n")
    );
    std::fs::write(&file, text).unwrap();
    let results = run_recorded(&file, &dir.path().join("report"), "2000");
    let needles = &results["rows"][0]["needles"];
    // At 2,000 units the reference shows the long log's head and tail: its exit line (12 units from the start)
    // and its summary (the last line) survive, the error 30,000 units in does not; so does the short log's exit
    // line. The best any head-and-tail allocation could do is the same: the error costs half the log.
    let kind = |k: &str| {
        (
            needles["byKind"][k]["planted"].as_u64(),
            needles["byKind"][k]["survived"].as_u64(),
        )
    };
    assert_eq!(kind("exit-info"), (Some(2), Some(2)));
    assert_eq!(kind("first-error"), (Some(1), Some(0)));
    assert_eq!(kind("summary-line"), (Some(1), Some(1)));
    assert_eq!(needles["byKind"].as_object().unwrap().len(), 3);
    assert_eq!(needles["survival"].as_f64(), Some(0.75));
    assert_eq!(needles["upperBound"].as_f64(), Some(0.75));
    assert_eq!(needles["ofPossible"].as_f64(), Some(1.0));
    // With room for the whole log every needle survives.
    let roomy = run_recorded(&file, &dir.path().join("roomy"), "70000");
    assert_eq!(roomy["rows"][0]["needles"]["survival"].as_f64(), Some(1.0));
    assert_eq!(
        roomy["rows"][0]["needles"]["byKind"]["first-error"]["survived"].as_u64(),
        Some(1)
    );
}

#[test]
fn an_imported_corpus_reports_needle_survival_for_what_the_detector_finds() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.jsonl");
    let import = assert_cmd::Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["import", "--format", "auto", "--out"])
        .arg(&corpus)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/import"
        ))
        .output()
        .unwrap();
    assert!(import.status.success());
    let bytes = std::fs::read(&corpus).unwrap();
    let batches: Vec<budgetlab::Batch> = std::str::from_utf8(&bytes)
        .unwrap()
        .lines()
        .map(|l| {
            budgetlab::parse_batch_line(l.as_bytes(), "corpus")
                .unwrap()
                .entries
        })
        .collect();
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for b in &batches {
        for n in detect_batch(b) {
            *expected
                .entry(
                    serde_json::to_value(n.kind)
                        .unwrap()
                        .as_str()
                        .unwrap()
                        .to_string(),
                )
                .or_default() += 1;
        }
    }
    // The fixtures (43 batches of seven formats) hold every kind of needle.
    let counts: Vec<(&str, u64)> = expected.iter().map(|(k, &n)| (k.as_str(), n)).collect();
    assert_eq!(
        counts,
        [
            ("exit-info", 19),
            ("first-error", 14),
            ("json-key", 10),
            ("summary-line", 7)
        ]
    );
    let results = run_recorded(&corpus, &dir.path().join("report"), "300,200000");
    let rows = results["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for row in rows {
        let by_kind = row["needles"]["byKind"].as_object().unwrap();
        let planted: BTreeMap<String, u64> = by_kind
            .iter()
            .map(|(k, v)| (k.clone(), v["planted"].as_u64().unwrap()))
            .collect();
        assert_eq!(planted, expected, "{}", row["budgetLabel"]);
    }
    // At 200,000 units nothing is cut: every needle survives. At 300 units some are lost, and the reference
    // keeps no more than the bound allows (the fixtures' outputs are short: a head and a tail could keep all).
    let roomy = &rows[1]["needles"];
    assert_eq!(roomy["survival"].as_f64(), Some(1.0));
    let tight = &rows[0]["needles"];
    let (survival, bound) = (
        tight["survival"].as_f64().unwrap(),
        tight["upperBound"].as_f64().unwrap(),
    );
    assert!(survival < 1.0 && survival <= bound, "{tight}");
}
