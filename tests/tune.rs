//! `budgetlab tune` end to end, on recorded batches built so that the best setting is known: a planted optimum
//! (one head share alone keeps both of each output's needles) and a setting that wins only on the tuning set.
//!
//! Every batch is one shell output of 10,000 UTF-16 units in lines of 32 units, with two detector needles (a
//! first-error line and an exit line) put on chosen lines. At a budget of 5,000 units a head-and-tail preview
//! with head share `h` keeps these spans of the output (measured with `budgetlab finalize`, and checked by
//! `the_geometry_the_tests_rest_on_holds` below, so a change to the preview's layout fails there first):
//!
//! | head share | head kept | tail kept from |
//! |---|---|---|
//! | 0.2 (the reference's) | 0..967 | 6132 |
//! | 0.25 | 0..1208 | 6373 |
//! | 0.6 | 0..2901 | 8066 |
//! | 0.65 | 0..3142 | 8307 |
//! | 0.7 | 0..3384 | 8549 |

use assert_cmd::Command;
use serde_json::{json, Value};

const BUDGET: &str = "5000";
const LINE: usize = 32;
const LINES: usize = 10_000 / LINE + 1;
const ERROR_LINE: &str = "FATAL: disk quota exceeded /var";
const EXIT_LINE: &str = "exit code 3";

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// The output of batch `b`: filler lines, with the error line at line `error` and the exit line at line `exit`
/// (each padded to the line's width, so every output has the same layout).
fn output(b: usize, error: usize, exit: usize) -> String {
    let mut text = String::new();
    for n in 0..LINES {
        let line = match n {
            _ if n == error => format!("{ERROR_LINE:<31}\n"),
            _ if n == exit => format!("{EXIT_LINE:<31}\n"),
            _ => format!("step {b:03}-{n:04} compiled modules!\n"),
        };
        assert_eq!(line.len(), LINE, "{line:?}");
        text.push_str(&line);
    }
    text.truncate(10_000);
    text
}

fn batch_line(b: usize, text: &str) -> String {
    let id = format!("c{b}");
    json!([{
        "callId": id,
        "toolName": "shell",
        "responseParts": [{"functionResponse": {"id": id, "name": "shell", "response": {"output": text}}}]
    }])
    .to_string()
}

/// Writes `name.jsonl` in `dir` with one batch per element of `needles` (error line, exit line).
fn batches_file(
    dir: &std::path::Path,
    name: &str,
    needles: &[(usize, usize)],
) -> std::path::PathBuf {
    let file = dir.join(format!("{name}.jsonl"));
    let lines: Vec<String> = needles
        .iter()
        .enumerate()
        .map(|(b, &(error, exit))| batch_line(b, &output(b, error, exit)))
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    file
}

/// `budgetlab tune` on `file` over the head-share family at the test budget; its JSON results.
fn tune(file: &std::path::Path, out: &std::path::Path) -> Value {
    let run = budgetlab()
        .args(["tune", "--batches-file"])
        .arg(file)
        .args([
            "--budgets",
            BUDGET,
            "--families",
            "head-tail",
            "--settings",
            "22",
        ])
        .arg("--out")
        .arg(out)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let printed: Value = serde_json::from_slice(&run.stdout).unwrap();
    let written: Value =
        serde_json::from_slice(&std::fs::read(out.join("tune.json")).unwrap()).unwrap();
    assert_eq!(printed, written, "--json prints what tune.json holds");
    assert!(out.join("summary.md").is_file());
    printed
}

/// The needle survival a strategy gives the test output with needles on `error` and `exit`, from `finalize`.
fn kept(strategy: &str, error: usize, exit: usize) -> (bool, bool) {
    let run = budgetlab()
        .args(["finalize", "--budget", BUDGET, "--strategy", strategy])
        .write_stdin(batch_line(0, &output(0, error, exit)))
        .output()
        .unwrap();
    assert!(run.status.success());
    let v: Value = serde_json::from_slice(&run.stdout).unwrap();
    let text = v["entries"][0]["responseParts"][0]["functionResponse"]["response"]["output"]
        .as_str()
        .unwrap()
        .to_string();
    (text.contains(ERROR_LINE), text.contains(EXIT_LINE))
}

/// Lines of the planted optimum: 3,008 (kept by a head of 0.65, not 0.6) and 8,384 (kept by a tail of 0.65, not
/// 0.7).
const PLANTED: (usize, usize) = (94, 262);
/// Lines only a head share of 0.3 to 0.75 keeps both of (the reference keeps the exit line only).
const TUNING_ONLY: (usize, usize) = (41, 279);
/// Lines the reference keeps both of, and head shares above 0.2 only the first.
const REFERENCE_ONLY: (usize, usize) = (10, 193);

#[test]
fn the_geometry_the_tests_rest_on_holds() {
    let (e, x) = PLANTED;
    assert_eq!(kept("head-tail-0.65", e, x), (true, true));
    assert_eq!(kept("head-tail-0.6", e, x), (false, true));
    assert_eq!(kept("head-tail-0.7", e, x), (true, false));
    assert_eq!(kept("reference", e, x), (false, true));
    let (e, x) = TUNING_ONLY;
    assert_eq!(kept("reference", e, x), (false, true));
    assert_eq!(kept("head-tail-0.3", e, x), (true, true));
    let (e, x) = REFERENCE_ONLY;
    assert_eq!(kept("reference", e, x), (true, true));
    assert_eq!(kept("head-tail-0.3", e, x), (true, false));
}

#[test]
fn tune_finds_the_planted_head_share_and_shows_it_holds_on_validation() {
    let tmp = tempfile::tempdir().unwrap();
    let file = batches_file(tmp.path(), "planted", &[PLANTED; 40]);
    let v = tune(&file, &tmp.path().join("out"));
    let cell = &v["workloads"][0]["cells"][0];
    assert_eq!(cell["units"], 5000);
    assert_eq!(cell["recommendation"]["strategy"], "head-tail-0.65");
    assert_eq!(cell["recommendation"]["beatsReference"], true);
    let finalist = &cell["finalists"][1];
    assert_eq!(finalist["strategy"], "head-tail-0.65");
    assert_eq!(finalist["tuningRank"], 0);
    // Every batch is alike: the reference keeps one needle of two, the optimum both, on either set.
    assert_eq!(cell["finalists"][0]["validation"]["objective"], 0.5);
    assert_eq!(finalist["tuning"]["objective"], 1.0);
    assert_eq!(finalist["validation"]["objective"], 1.0);
    assert_eq!(finalist["gain"], 0.5);
    assert_eq!(finalist["gainInterval"], json!([0.5, 0.5]));
    // 12 of the 40 batches are held out (30%), and the search's last rung ran on all 28 others.
    assert_eq!(v["workloads"][0]["validation"], 12);
    assert_eq!(finalist["tuning"]["sums"]["turns"], 28);
    assert_eq!(finalist["validation"]["sums"]["turns"], 12);
}

#[test]
fn a_setting_that_only_wins_on_the_tuning_set_is_not_recommended() {
    let tmp = tempfile::tempdir().unwrap();
    // The batches the search tunes on favour head shares of 0.3 to 0.75; those it validates on, the reference.
    let (tuning, validation) =
        budgetlab::tune::search::split(40, 0.3, budgetlab::Seed(1), "overfit");
    assert_eq!((tuning.len(), validation.len()), (28, 12));
    let needles: Vec<(usize, usize)> = (0..40u64)
        .map(|b| match validation.contains(&b) {
            true => REFERENCE_ONLY,
            false => TUNING_ONLY,
        })
        .collect();
    let file = batches_file(tmp.path(), "overfit", &needles);
    let v = tune(&file, &tmp.path().join("out"));
    let cell = &v["workloads"][0]["cells"][0];
    let top = &cell["finalists"][1];
    assert_eq!(top["tuningRank"], 0);
    // Head shares from 0.3 to 0.75 keep both needles of every tuning batch: one of them leads.
    let leader = top["strategy"].as_str().unwrap().to_string();
    let share: f64 = leader.strip_prefix("head-tail-").unwrap().parse().unwrap();
    assert!((0.3..=0.75).contains(&share), "{leader}");
    assert_eq!(top["tuning"]["objective"], 1.0);
    assert_eq!(top["validation"]["objective"], 0.5);
    assert_eq!(top["gainInterval"], json!([-0.5, -0.5]));
    assert_eq!(cell["recommendation"]["strategy"], "reference");
    assert_eq!(cell["recommendation"]["beatsReference"], false);
    let note = cell["recommendation"]["note"].as_str().unwrap();
    assert!(
        note.contains(&format!(
            "{leader} led on the tuning set, but its gain does not hold on the validation set"
        )),
        "{note}"
    );
    let summary = std::fs::read_to_string(tmp.path().join("out/summary.md")).unwrap();
    assert!(
        summary.contains("| overfit | abs-5000 | `reference` | no |"),
        "{summary}"
    );
}

#[test]
fn tune_refuses_bad_input_in_one_line_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let file = batches_file(tmp.path(), "one", &[PLANTED]);
    let out = tmp.path().join("out");
    for (args, says) in [
        (vec!["--settings", "1"], "--settings"),
        (vec!["--validation", "0.95"], "--validation"),
        (vec!["--families", "nope"], "nope"),
        (vec!["--objective", "speed"], "speed"),
        (vec![], "fewer than 2 batches"),
    ] {
        let run = budgetlab()
            .args(["tune", "--batches-file"])
            .arg(&file)
            .args(["--budgets", BUDGET])
            .args(&args)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?}");
    }
}
