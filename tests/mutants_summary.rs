//! `.ci/mutants --summary`: a mutant run again after lines were added above its function is one mutant, and the
//! outcome of the run started last counts; within one run, a mutant either of its passes catches is caught; the
//! record keeps outcomes between machines. Outcome files are written here in cargo-mutants' shapes.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

/// A mutant of `function` (starting at line `first`) at `line` of `src/persist/fs.rs`.
fn mutant(function: &str, first: u64, line: u64, change: &str) -> Value {
    let name = format!("src/persist/fs.rs:{line}:9: {change}");
    json!({
        "name": name,
        "file": "src/persist/fs.rs",
        "function": {"function_name": function, "return_type": "-> bool",
                     "span": {"start": {"line": first, "column": 5}, "end": {"line": first + 4, "column": 6}}},
        "span": {"start": {"line": line, "column": 9}, "end": {"line": line, "column": 13}},
        "replacement": "true",
        "genre": "FnValue",
    })
}

/// One unit pass's folder: the mutants it listed, their outcomes, when it started.
fn pass(dir: &Path, started: &str, outcomes: &[(Value, &str)]) {
    pass_of(dir, "unit", started, outcomes);
}

/// One pass's folder (`unit` or `integration`) of a run of `persist` in `dir`.
fn pass_of(dir: &Path, which: &str, started: &str, outcomes: &[(Value, &str)]) {
    let listed: Vec<&Value> = outcomes.iter().map(|(m, _)| m).collect();
    let timed: Vec<(Value, &str, f64, f64)> = outcomes
        .iter()
        .map(|(m, summary)| (m.clone(), *summary, 0.0, 0.0))
        .collect();
    pass_listing(dir, which, started, &listed, &timed);
}

/// One pass's folder of a run of `persist` in `dir` that set out to test `listed` and has `outcomes`: each a
/// mutant, its outcome, and its build and test seconds.
fn pass_listing(
    dir: &Path,
    which: &str,
    started: &str,
    listed: &[&Value],
    outcomes: &[(Value, &str, f64, f64)],
) {
    let out = dir.join(format!("persist/{which}/mutants.out"));
    fs::create_dir_all(&out).unwrap();
    fs::write(
        out.join("mutants.json"),
        serde_json::to_vec(listed).unwrap(),
    )
    .unwrap();
    let outcomes: Vec<Value> = outcomes
        .iter()
        .map(|(m, summary, build, test)| {
            json!({"scenario": {"Mutant": m}, "summary": summary, "phase_results": [
                {"phase": "Build", "duration": build}, {"phase": "Test", "duration": test}]})
        })
        .collect();
    let file = json!({"outcomes": outcomes, "start_time": started});
    fs::write(
        out.join("outcomes.json"),
        serde_json::to_vec(&file).unwrap(),
    )
    .unwrap();
    fs::write(
        dir.join(format!("persist/{which}/scope.txt")),
        format!("persist\t{which}\twhole\n"),
    )
    .unwrap();
    fs::write(
        dir.join(format!("persist/{which}/tree.txt")),
        format!("commit 0123456789ab, {which} tests, started {started}\n"),
    )
    .unwrap();
}

/// Whether python3, which `.ci/mutants --summary` runs, is missing (a failure under CI, a skip elsewhere).
fn python_missing() -> bool {
    let missing = Command::new("python3").arg("--version").output().is_err();
    if missing {
        crate::support::tool_missing("no python3 on PATH for .ci/mutants --summary");
    }
    missing
}

/// `.ci/mutants --summary` of `dirs`, the tree's mutants now being `tree`, with the record in the folder above
/// the first of `dirs`.
fn summary(dirs: &[&Path], tree: &[&Value]) -> (i32, String) {
    let (code, stdout, _) = summary_in(dirs[0].parent().unwrap(), &[], dirs, tree);
    (code, stdout)
}

/// `.ci/mutants [FLAGS] --summary DIRS`, started in `tmp`, with `tmp/record.tsv` as its record and
/// `tmp/allowed.txt` (when there is one) as its allowed list, the tree's mutants now being `tree`: exit status,
/// stdout, stderr.
fn summary_in(
    tmp: &Path,
    flags: &[&str],
    dirs: &[&Path],
    tree: &[&Value],
) -> (i32, String, String) {
    let listed = tmp.join("listed.json");
    fs::write(&listed, serde_json::to_vec(tree).unwrap()).unwrap();
    // Named relative to the folder the script is started from (tmp), as a user in that folder would.
    let allowed = if tmp.join("allowed.txt").exists() {
        "allowed.txt"
    } else {
        "/dev/null"
    };
    let out = Command::new(format!("{}/.ci/mutants", env!("CARGO_MANIFEST_DIR")))
        .current_dir(tmp)
        .env("MUTANTS_ALLOWED", allowed)
        .env("MUTANTS_LISTED", &listed)
        .env("MUTANTS_RECORD", tmp.join("record.tsv"))
        .args(flags)
        .arg("--summary")
        .args(dirs)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_rerun_after_lines_moved_counts_once_and_the_later_run_wins() {
    if python_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (run, rerun) = (tmp.path().join("run"), tmp.path().join("rerun"));
    let change = "replace FsStore::is_open -> bool with true";
    let other = "replace FsStore::is_open -> bool with false";
    pass(
        &run,
        "2026-12-01T22:48:00Z",
        &[
            (mutant("FsStore::is_open", 80, 82, change), "MissedMutant"),
            (mutant("FsStore::is_open", 80, 82, other), "CaughtMutant"),
        ],
    );
    // The survivor caught by a rerun started at `started`, at `line` of the function now at `first`.
    let caught_again = |started: &str, first: u64, line: u64| {
        pass(
            &rerun,
            started,
            &[(
                mutant("FsStore::is_open", first, line, change),
                "CaughtMutant",
            )],
        )
    };
    // The function is at line 83 in the tree now.
    let now = |line: u64, change: &str| mutant("FsStore::is_open", 83, line, change);
    let tree = [now(85, change), now(85, other)];
    let tree: Vec<&Value> = tree.iter().collect();
    // Three lines were added above the function since; the test written for the survivor catches it.
    caught_again("2026-12-02T00:09:00Z", 83, 85);
    let (code, text) = summary(&[&run, &rerun], &tree);
    assert!(
        text.contains("| persist | 2 | 2 | 0 | 0 | 0 | 100.0% |"),
        "{text}"
    );
    assert_eq!(code, 0, "{text}");

    // The same rerun started before the run: the run's outcome is the newer one. The missed mutant is named by
    // its line in the tree now.
    caught_again("2026-12-01T20:00:00Z", 83, 85);
    let (code, text) = summary(&[&run, &rerun], &tree);
    assert!(
        text.contains("| persist | 2 | 1 | 1 | 0 | 0 | 50.0% |"),
        "{text}"
    );
    assert!(
        text.contains("- src/persist/fs.rs:85:9: replace FsStore::is_open -> bool with true"),
        "{text}"
    );
    assert!(!text.contains(":82:9:"), "{text}");
    assert_eq!(code, 1, "{text}");

    // A mutant at another place in its function is another mutant.
    caught_again("2026-12-02T00:09:00Z", 83, 86);
    let tree = [now(85, change), now(85, other), now(86, change)];
    let (_, text) = summary(&[&run, &rerun], &tree.iter().collect::<Vec<_>>());
    assert!(
        text.contains("| persist | 3 | 2 | 1 | 0 | 0 | 66.6% |"),
        "{text}"
    );

    // The tree no longer has the survivor (its code changed): its outcome is not counted.
    let tree = [now(85, other), now(86, change)];
    let (code, text) = summary(&[&run, &rerun], &tree.iter().collect::<Vec<_>>());
    assert!(
        text.contains("| persist | 2 | 2 | 0 | 0 | 0 | 100.0% |"),
        "{text}"
    );
    assert!(
        text.contains("the tree no longer has them (their code changed since): 1 of persist."),
        "{text}"
    );
    assert_eq!(code, 0, "{text}");

    // The tree has a mutant no run tested: the module is partly run, and not judged.
    let tree = [now(85, other), now(86, change), now(87, change)];
    let (code, text) = summary(&[&run, &rerun], &tree.iter().collect::<Vec<_>>());
    assert!(
        text.contains("| persist | 2 of 3 (partly run) | 2 | 0 | 0 | 0 | 100.0% |"),
        "{text}"
    );
    assert_eq!(code, 1, "{text}");
}

#[test]
fn a_mutant_either_pass_of_a_run_catches_is_caught_and_a_later_run_still_wins() {
    if python_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (run, rerun) = (tmp.path().join("run"), tmp.path().join("rerun"));
    let (t, f) = (
        "replace FsStore::is_open -> bool with true",
        "replace FsStore::is_open -> bool with false",
    );
    let (unit_caught, unit_missed, both_missed) = (
        mutant("FsStore::is_open", 80, 81, t),
        mutant("FsStore::is_open", 80, 82, t),
        mutant("FsStore::is_open", 80, 82, f),
    );
    let (unit_timeout, integration_timeout) = (
        mutant("FsStore::is_open", 80, 83, t),
        mutant("FsStore::is_open", 80, 83, f),
    );
    pass_of(
        &run,
        "unit",
        "2026-12-02T01:00:00Z",
        &[
            (unit_caught.clone(), "CaughtMutant"),
            (unit_missed.clone(), "MissedMutant"),
            (both_missed.clone(), "MissedMutant"),
            (unit_timeout.clone(), "Timeout"),
            (integration_timeout.clone(), "MissedMutant"),
        ],
    );
    // The integration pass, begun after the unit pass, retests a mutant the unit pass caught (as a survivor's
    // name matched it) and misses it; it catches one the unit pass missed. A mutant either pass timed out on
    // (and neither caught) is a timeout, whichever pass missed it.
    pass_of(
        &run,
        "integration",
        "2026-12-02T02:00:00Z",
        &[
            (unit_caught.clone(), "MissedMutant"),
            (unit_missed.clone(), "CaughtMutant"),
            (both_missed.clone(), "MissedMutant"),
            (unit_timeout.clone(), "MissedMutant"),
            (integration_timeout.clone(), "Timeout"),
        ],
    );
    let tree = [
        &unit_caught,
        &unit_missed,
        &both_missed,
        &unit_timeout,
        &integration_timeout,
    ];
    let (code, text) = summary(&[&run], &tree);
    assert!(
        text.contains("| persist | 5 | 2 | 1 | 0 | 2 | 66.6% |"),
        "{text}"
    );
    assert!(
        text.contains("- src/persist/fs.rs:82:9: replace FsStore::is_open -> bool with false"),
        "{text}"
    );
    assert!(!text.contains(":81:9:"), "{text}");
    assert!(!text.contains(":83:9:"), "{text}");
    assert!(
        !text.contains(":82:9: replace FsStore::is_open -> bool with true"),
        "{text}"
    );
    assert_eq!(code, 1, "{text}");

    // A later run's unit pass misses what the first run caught: the later run wins, whichever of the first
    // run's passes caught it.
    pass(
        &rerun,
        "2026-12-02T03:00:00Z",
        &[
            (unit_caught.clone(), "MissedMutant"),
            (unit_missed.clone(), "MissedMutant"),
        ],
    );
    let (code, text) = summary(&[&run, &rerun], &tree);
    assert!(
        text.contains("| persist | 5 | 0 | 3 | 0 | 2 | 0.0% |"),
        "{text}"
    );
    assert_eq!(code, 1, "{text}");
}

#[test]
fn the_record_keeps_outcomes_for_later_summaries_and_drops_what_the_tree_no_longer_has() {
    if python_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (run, rerun, old) = (
        tmp.path().join("run"),
        tmp.path().join("rerun"),
        tmp.path().join("old"),
    );
    let record = tmp.path().join("record.tsv");
    let (t, f) = (
        "replace FsStore::is_open -> bool with true",
        "replace FsStore::is_open -> bool with false",
    );
    let (caught, missed) = (
        mutant("FsStore::is_open", 80, 81, t),
        mutant("FsStore::is_open", 80, 82, f),
    );
    pass(
        &run,
        "2026-12-02T01:00:00Z",
        &[
            (caught.clone(), "CaughtMutant"),
            (missed.clone(), "MissedMutant"),
        ],
    );
    let tree = [&caught, &missed];
    let (code, text, _) = summary_in(tmp.path(), &["--record"], &[&run], &tree);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("Recorded 2 outcomes in"), "{text}");
    assert_eq!(
        fs::read_to_string(&record)
            .unwrap()
            .lines()
            .skip(1)
            .collect::<Vec<_>>(),
        [
            "src/persist/fs.rs:81:9: replace FsStore::is_open -> bool with true\t1\t9\t1\t13\t\
             CaughtMutant\t0.0\t0.0\t2026-12-02T01:00:00Z\tcommit 0123456789ab\t-",
            "src/persist/fs.rs:82:9: replace FsStore::is_open -> bool with false\t2\t9\t2\t13\t\
             MissedMutant\t0.0\t0.0\t2026-12-02T01:00:00Z\tcommit 0123456789ab\t-",
        ]
    );

    // The record alone gives the same table, with no folder of outcomes left.
    fs::remove_dir_all(&run).unwrap();
    let (code, text, _) = summary_in(tmp.path(), &[], &[], &tree);
    assert!(
        text.contains("| persist | 2 | 1 | 1 | 0 | 0 | 50.0% |"),
        "{text}"
    );
    assert!(
        text.contains("Tested: commit 0123456789ab (2 mutants)."),
        "{text}"
    );
    assert_eq!(code, 1, "{text}");

    // A run begun before the recorded one does not undo it; one begun after it does.
    pass(
        &old,
        "2026-12-01T01:00:00Z",
        &[(missed.clone(), "CaughtMutant")],
    );
    let (_, text, _) = summary_in(tmp.path(), &[], &[&old], &tree);
    assert!(
        text.contains("| persist | 2 | 1 | 1 | 0 | 0 | 50.0% |"),
        "{text}"
    );
    pass(
        &rerun,
        "2026-12-02T02:00:00Z",
        &[(missed.clone(), "CaughtMutant")],
    );
    let (code, text, _) = summary_in(tmp.path(), &["--record"], &[&rerun], &tree);
    assert!(
        text.contains("| persist | 2 | 2 | 0 | 0 | 0 | 100.0% |"),
        "{text}"
    );
    assert_eq!(code, 0, "{text}");

    // The tree's code of the first mutant changed: written again, the record no longer holds its outcome.
    let (code, text, _) = summary_in(tmp.path(), &["--record"], &[], &[&missed]);
    assert_eq!(code, 0, "{text}");
    let kept = fs::read_to_string(&record).unwrap();
    assert_eq!(kept.lines().count(), 2, "{kept}");
    assert!(
        kept.contains("\nsrc/persist/fs.rs:82:9: replace FsStore::is_open -> bool with false\t2\t9\t2\t13\tCaughtMutant\t0.0\t0.0\t2026-12-02T02:00:00Z\t"),
        "{kept}"
    );

    // Another module's summary shows none of persist's outcomes.
    let (_, text, _) = summary_in(tmp.path(), &["--module", "gate"], &[], &[&missed]);
    assert!(!text.contains("| persist |"), "{text}");

    // A file that is no record is refused, and left as it was.
    fs::write(&record, "my notes\n").unwrap();
    let (code, _, err) = summary_in(tmp.path(), &["--record"], &[&rerun], &tree);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("record.tsv:1: not a record of .ci/mutants"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&record).unwrap(), "my notes\n");
}

#[test]
fn runs_are_ordered_by_their_time_and_bad_input_leaves_the_record_as_it_was() {
    if python_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (run, rerun, bad) = (
        tmp.path().join("run"),
        tmp.path().join("rerun"),
        tmp.path().join("bad"),
    );
    let record = tmp.path().join("record.tsv");
    let missed = mutant(
        "FsStore::is_open",
        80,
        82,
        "replace FsStore::is_open -> bool with false",
    );
    let tree = [&missed];
    pass(
        &run,
        "2026-12-02T07:30:25.25Z",
        &[(missed.clone(), "MissedMutant")],
    );
    let (code, _, err) = summary_in(tmp.path(), &["--record"], &[&run], &tree);
    assert_eq!(code, 1, "{err}");
    let kept = fs::read_to_string(&record).unwrap();

    // 250825963 ns past the second is later than 25 hundredths, though it sorts first as text.
    pass(
        &rerun,
        "2026-12-02T07:30:25.250825963Z",
        &[(missed.clone(), "CaughtMutant")],
    );
    let (code, text, _) = summary_in(tmp.path(), &[], &[&rerun], &tree);
    assert!(
        text.contains("| persist | 1 | 1 | 0 | 0 | 0 | 100.0% |"),
        "{text}"
    );
    assert_eq!(code, 0, "{text}");
    pass(
        &rerun,
        "2026-12-02T07:30:25.2Z",
        &[(missed.clone(), "CaughtMutant")],
    );
    let (code, text, _) = summary_in(tmp.path(), &[], &[&rerun], &tree);
    assert!(
        text.contains("| persist | 1 | 0 | 1 | 0 | 0 | 0.0% |"),
        "{text}"
    );
    assert_eq!(code, 1, "{text}");

    // Each of these is refused with one line (exit 2), and the record stays as it was, with nothing beside it.
    let refused = |flags: &[&str], dirs: &[&Path], says: &str| {
        let (code, _, err) = summary_in(tmp.path(), flags, dirs, &tree);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(says), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert_eq!(fs::read_to_string(&record).unwrap(), kept);
    };
    // cargo-mutants' "Failure" is no verdict: the recorded outcome stands.
    pass(&bad, "2026-12-02T08:00:00Z", &[(missed.clone(), "Failure")]);
    let (code, text, _) = summary_in(tmp.path(), &["--record"], &[&bad], &tree);
    assert!(
        text.contains("| persist | 1 | 0 | 1 | 0 | 0 | 0.0% |"),
        "{text}"
    );
    assert_eq!(code, 1, "{text}");
    assert_eq!(fs::read_to_string(&record).unwrap(), kept);
    // A start that is no time cannot be ordered.
    pass(&bad, "soon", &[(missed.clone(), "CaughtMutant")]);
    refused(&["--record"], &[&bad], "'soon' is not a time");
    // A folder with no outcomes (a typo) is no empty run.
    refused(
        &["--record"],
        &[&tmp.path().join("typo")],
        "typo: no outcomes.json under it",
    );
    // Options go before --summary.
    refused(
        &["--record"],
        &[&run, Path::new("--module")],
        "'--module' after --summary",
    );
    assert_eq!(
        crate::support::names(tmp.path()),
        ["bad", "listed.json", "record.tsv", "rerun", "run"]
    );
    // A record holding a mutant twice (two branches' records joined) is refused.
    let row = kept.lines().nth(1).unwrap();
    fs::write(&record, format!("{kept}{row}\n")).unwrap();
    let (code, _, err) = summary_in(tmp.path(), &[], &[], &tree);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("record.tsv:3: the mutant of line 2 again"),
        "{err}"
    );
}

#[test]
fn an_integration_pass_counts_for_its_own_shard_and_not_for_what_it_did_not_reach() {
    if python_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The first shard's folder is named like cargo-mutants' folder of a run before (`*.old`), which only
    // matters below the folder given.
    let (first, second) = (tmp.path().join("shard0.old"), tmp.path().join("shard1"));
    let t = "replace FsStore::is_open -> bool with true";
    let f = "replace FsStore::is_open -> bool with false";
    let (a, b, c, d, e, g) = (
        mutant("FsStore::is_open", 80, 81, t),
        mutant("FsStore::is_open", 80, 82, t),
        mutant("FsStore::is_open", 80, 83, t),
        mutant("FsStore::is_open", 80, 81, f),
        mutant("FsStore::is_open", 80, 82, f),
        mutant("FsStore::is_open", 80, 83, f),
    );
    // Shard 0 catches a and d, and times out on e: nothing left for its integration tests.
    pass_listing(
        &first,
        "unit",
        "2026-12-02T01:00:00Z",
        &[&a, &d, &e],
        &[
            (a.clone(), "CaughtMutant", 5.0, 1.0),
            (d.clone(), "CaughtMutant", 0.0, 0.0),
            (e.clone(), "Timeout", 2.0, 300.0),
        ],
    );
    // Shard 1's unit tests miss b and c, and cargo-mutants fails on g (no verdict). Its integration pass, begun
    // later, also gets d (as cargo-mutants gives every pass a module's "delete field" mutants whatever it is asked
    // for) and misses it; it catches b, and is cut short before c.
    pass_listing(
        &second,
        "unit",
        "2026-12-02T02:00:00Z",
        &[&b, &c, &g],
        &[
            (b.clone(), "MissedMutant", 2.0, 3.0),
            (c.clone(), "MissedMutant", 1.0, 1.0),
            (g.clone(), "Failure", 1.0, 1.0),
        ],
    );
    pass_listing(
        &second,
        "integration",
        "2026-12-02T03:00:00Z",
        &[&b, &c, &d],
        &[
            (d.clone(), "MissedMutant", 9.0, 9.0),
            (b.clone(), "CaughtMutant", 4.0, 5.0),
        ],
    );
    let tree = [&a, &b, &c, &d, &e, &g];
    let (code, text, _) = summary_in(tmp.path(), &["--record"], &[&first, &second], &tree);
    // a, b and d caught; c not tested whole, g not tested; e a timeout. Per viable mutant: a's 5 + 1 s, b's two passes
    // (2 + 4) + (3 + 5) s, d's 0 s; the timeout's 300 s are not a viable mutant's.
    assert!(
        text.contains("| persist | 4 of 6 (partly run) | 3 | 0 | 0 | 1 | 100.0% | 4 s + 3 s |"),
        "{text}"
    );
    assert_eq!(code, 1, "{text}");
    let record = fs::read_to_string(tmp.path().join("record.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = record
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    let row = |m: &Value| {
        rows.iter()
            .find(|r| r[0] == m["name"].as_str().unwrap())
            .map(|r| (r[5], r[6], r[7]))
    };
    assert_eq!(row(&b), Some(("CaughtMutant", "6.0", "8.0")), "{record}");
    assert_eq!(row(&d), Some(("CaughtMutant", "0.0", "0.0")), "{record}");
    assert_eq!(row(&e), Some(("Timeout", "2.0", "300.0")), "{record}");
    assert_eq!(row(&c), None, "{record}");
    assert_eq!(row(&g), None, "{record}");
    assert_eq!(rows.len(), 4, "{record}");
}

#[test]
fn an_allowed_mutant_is_known_by_its_line_in_the_tree_now_and_scores_round_down() {
    if python_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let t = "replace FsStore::is_open -> bool with true";
    // Tested at line 82; three lines were added above the function since, so it is at 85 now.
    let (then, now) = (
        mutant("FsStore::is_open", 80, 82, t),
        mutant("FsStore::is_open", 83, 85, t),
    );
    // 1,799 caught of 1,999 viable: 89.995%, which rounded to a tenth would show as 90.0%.
    let mut outcomes = vec![(then.clone(), "MissedMutant")];
    let mut tree = vec![now.clone()];
    for n in 0..1998u64 {
        let function = format!("FsStore::f{n}");
        let m = mutant(
            &function,
            1000 + 10 * n,
            1001 + 10 * n,
            &format!("replace {function} -> bool with true"),
        );
        outcomes.push((
            m.clone(),
            if n < 1799 {
                "CaughtMutant"
            } else {
                "MissedMutant"
            },
        ));
        tree.push(m);
    }
    pass(&run, "2026-12-02T01:00:00Z", &outcomes);
    fs::write(
        tmp.path().join("allowed.txt"),
        format!(
            "src/persist/fs.rs:85:9: {t} # why\nsrc/persist/fs.rs: replace FsStore::f1997 -> bool with true # why\n"
        ),
    )
    .unwrap();
    let tree: Vec<&Value> = tree.iter().collect();
    let (code, text, stderr) = summary_in(tmp.path(), &[], &[&run], &tree);
    assert!(
        text.contains(&format!("- src/persist/fs.rs:85:9: {t} (allowed: why)")),
        "{text}"
    );
    assert!(!text.contains(":82:9:"), "{text}");
    assert!(
        text.contains("| persist | 1999 | 1799 | 200 (2 allowed) | 0 | 0 | 89.9% |"),
        "{text}"
    );
    assert!(
        stderr.contains("under 90% caught: persist 89.9%"),
        "{stderr}"
    );
    assert_eq!(code, 1, "{text}");
}

/// The record's fingerprint of lines `first` to `last` of `text`: 16 hex digits of their SHA-256.
fn fingerprint(text: &str, first: usize, last: usize) -> String {
    use sha2::{Digest, Sha256};
    let lines: Vec<&str> = text.split('\n').collect();
    let digest = Sha256::digest(lines[first - 1..last].join("\n").as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn an_outcome_of_a_function_whose_code_changed_since_is_not_counted() {
    if python_missing() {
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    if !std::path::Path::new(root).join(".git").exists() {
        // A tree without git's history (a source tarball, a packaged copy): no commit to show the code a run
        // tested, in CI too. `.ci/run` runs this test again in the checkout.
        eprintln!("skipped: not a git checkout");
        return;
    }
    let head = Command::new("git")
        .args(["-C", root, "rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    let Some(head) = head else {
        crate::support::tool_missing("no git checkout to show the code a run tested");
        return;
    };
    let head = String::from_utf8(head.stdout).unwrap().trim().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let t = "replace FsStore::is_open -> bool with true";
    let now = mutant("FsStore::is_open", 80, 82, t);
    let source = fs::read_to_string(format!("{root}/src/persist/fs.rs")).unwrap();
    let row = |print: &str| {
        format!(
            "src/persist/fs.rs:82:9: {t}\t2\t9\t2\t13\tCaughtMutant\t1.0\t1.0\t2026-12-02T01:00:00Z\tcommit {head}\t{print}\n"
        )
    };
    let header = "# .ci/mutants --record: name, start line in function, start column, end line in function, \
                  end column, outcome, build s, test s, run began, tested, function's fingerprint\n";
    // Recorded with the fingerprint of the function as the tree has it now (lines 80 to 84): counted.
    let record = tmp.path().join("record.tsv");
    fs::write(
        &record,
        format!("{header}{}", row(&fingerprint(&source, 80, 84))),
    )
    .unwrap();
    let (code, text, _) = summary_in(tmp.path(), &[], &[], &[&now]);
    assert!(
        text.contains("| persist | 1 | 1 | 0 | 0 | 0 | 100.0% |"),
        "{text}"
    );
    assert_eq!(code, 0, "{text}");
    // Recorded with another: its code changed since, so the mutant is untested.
    fs::write(&record, format!("{header}{}", row("0123456789abcdef"))).unwrap();
    let (code, text, _) = summary_in(tmp.path(), &[], &[], &[&now]);
    assert!(text.contains("| persist | 0 of 1 (partly run) |"), "{text}");
    assert!(
        text.contains(
            "Not counted, as the tree no longer has them (their code changed since): 1 of persist."
        ),
        "{text}"
    );
    assert_eq!(code, 1, "{text}");
    // A record of the first version (no fingerprints) is read, its fingerprints unknown.
    let first_version = header.replace(", function's fingerprint", "");
    fs::write(
        &record,
        format!("{first_version}{}", row("").trim_end_matches(['\t', '\n'])),
    )
    .unwrap();
    let (code, text, _) = summary_in(tmp.path(), &[], &[], &[&now]);
    assert!(
        text.contains("| persist | 1 | 1 | 0 | 0 | 0 | 100.0% |"),
        "{text}"
    );
    assert_eq!(code, 0, "{text}");

    // A run of a commit git knows, of a function that was shorter then (lines 80 to 84, 90 now): its outcome
    // is of other code. The same run of a commit git does not know counts, its code unknown.
    fs::remove_file(&record).unwrap();
    let then = mutant("FsStore::is_open", 80, 82, t);
    let mut grown = now.clone();
    grown["function"]["span"]["end"]["line"] = json!(90);
    for (commit, counted) in [(head.as_str(), false), ("0123456789ab", true)] {
        let run = tmp.path().join(format!("run-{commit}"));
        pass(
            &run,
            "2026-12-02T02:00:00Z",
            &[(then.clone(), "CaughtMutant")],
        );
        let tree_txt = run.join("persist/unit/tree.txt");
        fs::write(
            &tree_txt,
            format!("commit {commit}, unit tests, started 2026-12-02 02:00 UTC\n"),
        )
        .unwrap();
        let (code, text, _) = summary_in(tmp.path(), &[], &[&run], &[&grown]);
        let expected = if counted {
            "| persist | 1 | 1 |"
        } else {
            "| persist | 0 of 1 (partly run) |"
        };
        assert!(text.contains(expected), "{commit}: {text}");
        assert_eq!(code, if counted { 0 } else { 1 }, "{text}");
    }
}
