//! `budgetlab history` through the binary: a run added reads back with its exact figures, the same run twice
//! and a database that is not a history (or of a newer schema) are refused in one line with exit 2 and left
//! alone, two processes adding at once both land, and `check` exits 0 on a steady history.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// The committed baseline run.
fn baseline() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline")
}

fn results() -> Value {
    serde_json::from_slice(&std::fs::read(baseline().join("results.json")).unwrap()).unwrap()
}

/// The baseline's results.json written again without indentation: the same run's figures in other bytes, so a
/// second night.
fn second_night(dir: &Path) -> PathBuf {
    let folder = dir.join("night2");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(
        folder.join("results.json"),
        serde_json::to_vec(&results()).unwrap(),
    )
    .unwrap();
    folder
}

fn add(db: &Path, run: &Path, commit: &str, date: &str) -> assert_cmd::assert::Assert {
    budgetlab()
        .args(["history", "add"])
        .arg(run)
        .arg("--db")
        .arg(db)
        .args(["--commit", commit, "--date", date])
        .assert()
}

fn one_line_error(out: &std::process::Output) -> String {
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn a_run_added_reads_back_with_its_exact_figures() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let rows = results()["rows"].as_array().unwrap().clone();
    // Eight figures a row without used lines: the six gate metrics and the strategy's and the floor's times.
    let figures = rows.len() * 8;
    let out = add(&db, &baseline(), "6151f2d", "2026-12-01").success();
    assert_eq!(
        String::from_utf8(out.get_output().stdout.clone()).unwrap(),
        format!(
            "added {} as night 1 of 1 ({figures} figures) to {}\n",
            baseline().display(),
            db.display()
        )
    );
    let out = budgetlab()
        .args([
            "history",
            "show",
            "--json",
            "--metric",
            "compliance",
            "--metric",
            "needles",
            "--db",
        ])
        .arg(&db)
        .assert()
        .success();
    let shown: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(shown["nights"][0]["commit"], "6151f2d");
    assert_eq!(shown["nights"][0]["date"], "2026-12-01");
    let series = shown["series"].as_array().unwrap();
    assert_eq!(series.len(), rows.len() * 2);
    for (i, row) in rows.iter().enumerate() {
        for (offset, field) in [
            (0, ("compliance", "rate")),
            (rows.len(), ("needles", "survival")),
        ] {
            let s = &series[offset + i];
            assert_eq!(s["scenario"], row["scenario"]);
            assert_eq!(s["budget"], row["budgetLabel"]);
            assert_eq!(s["strategy"], row["strategy"]);
            assert_eq!(s["values"][0], row[field.0][field.1], "row {i} {field:?}");
        }
    }
    // The Markdown table: one table a figure, nights as rows.
    let out = budgetlab()
        .args([
            "history",
            "show",
            "--metric",
            "compliance",
            "--scenario",
            "cjk-heavy",
            "--budget",
            "abs-20000",
            "--strategy",
            "reference",
            "--db",
        ])
        .arg(&db)
        .assert()
        .success();
    assert_eq!(
        String::from_utf8(out.get_output().stdout.clone()).unwrap(),
        "## compliance\n\n| night | date | commit | cjk-heavy abs-20000 reference |\n|---:|---|---|---:|\n\
         | 1 | 2026-12-01 | 6151f2d | 100.00% |\n\n"
    );
}

#[test]
fn the_same_run_twice_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    add(&db, &baseline(), "aaaa", "2026-12-01").success();
    let out = add(&db, &baseline(), "bbbb", "2026-12-02")
        .get_output()
        .clone();
    let err = one_line_error(&out);
    assert!(
        err.contains("is already in the history (the same results.json"),
        "{err}"
    );
    assert!(
        err.contains("added as the night of 2026-12-01, commit aaaa)"),
        "{err}"
    );
}

#[test]
fn what_is_not_a_history_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "not a database at all, and long enough\n").unwrap();
    let out = add(&notes, &baseline(), "aaaa", "2026-12-01")
        .get_output()
        .clone();
    assert!(
        one_line_error(&out).ends_with("is not a SQLite database; budgetlab never overwrites it\n")
    );
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "not a database at all, and long enough\n"
    );
    let link = dir.path().join("link.sqlite");
    std::os::unix::fs::symlink(dir.path().join("elsewhere.sqlite"), &link).unwrap();
    let out = add(&link, &baseline(), "aaaa", "2026-12-01")
        .get_output()
        .clone();
    assert!(one_line_error(&out).contains("is a symbolic link"));
    assert!(!dir.path().join("elsewhere.sqlite").exists());
    let deep = dir.path().join("a/b/h.sqlite");
    let out = add(&deep, &baseline(), "aaaa", "2026-12-01")
        .get_output()
        .clone();
    assert!(one_line_error(&out).contains("is in a folder that does not exist"));
    assert!(!dir.path().join("a").exists());
    // A newer schema.
    let db = dir.path().join("h.sqlite");
    add(&db, &baseline(), "aaaa", "2026-12-01").success();
    rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", 9)
        .unwrap();
    for args in [&["history", "show"][..], &["history", "check"]] {
        let out = budgetlab()
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        assert!(one_line_error(&out).ends_with(
            "is a history of schema version 9, written by a newer budgetlab; this one reads version 1\n"
        ));
    }
    // Bad flags.
    let out = add(&db, &baseline(), "XYZ", "2026-12-01")
        .get_output()
        .clone();
    assert!(one_line_error(&out).contains("--commit"));
    let out = add(&db, &baseline(), "abcd", "tomorrow")
        .get_output()
        .clone();
    assert!(one_line_error(&out).contains("--date"));
}

#[test]
fn two_processes_adding_at_once_both_land_and_a_steady_history_passes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let second = second_night(dir.path());
    let bin = assert_cmd::cargo::cargo_bin("budgetlab");
    let spawn = |run: &Path, commit: &str, date: &str| {
        std::process::Command::new(&bin)
            .args(["history", "add"])
            .arg(run)
            .arg("--db")
            .arg(&db)
            .args(["--commit", commit, "--date", date, "--json"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn(&baseline(), "aaaa", "2026-12-01");
    let b = spawn(&second, "bbbb", "2026-12-02");
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let added: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            added["figures"],
            results()["rows"].as_array().unwrap().len() * 8
        );
    }
    let out = budgetlab()
        .args(["history", "check", "--json", "--db"])
        .arg(&db)
        .assert()
        .code(0);
    let verdict: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(verdict["passed"], true);
    assert_eq!(verdict["nights"], 2);
    assert_eq!(verdict["newest"]["commit"], "bbbb");
    assert_eq!(verdict["moves"], serde_json::json!([]));
    assert_eq!(verdict["test"]["window"], 5);
    let out = budgetlab()
        .args(["history", "check", "--window", "1", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(one_line_error(&out).contains("--window"));
}
