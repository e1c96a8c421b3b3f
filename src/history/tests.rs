//! The history end to end on records made here: adding (exact values back, nights in date order, the same run
//! refused, an interrupted add leaving nothing, two writers at once), the database's path and schema refused
//! when they must be, and the verdict on a long history with changes injected.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};

use super::*;
use crate::metrics::Metric;

const COMPLIANCE: TrackedFigure = TrackedFigure::Metric(Metric::Compliance);
const RETENTION: TrackedFigure = TrackedFigure::Metric(Metric::Retention);
const COST: TrackedFigure = TrackedFigure::Metric(Metric::Cost);

/// A run of two rows (strategies `a` and `b` of scenario `s` at `abs-100`): compliance, retention and cost.
fn record(
    sha: &str,
    inputs: &str,
    compliance: f64,
    retention: Option<f64>,
    cost: [f64; 2],
) -> RunRecord {
    let mut figures = Vec::new();
    for (i, strategy) in ["a", "b"].into_iter().enumerate() {
        for (figure, value) in [
            (COMPLIANCE, Some(compliance)),
            (RETENTION, retention),
            (COST, Some(cost[i])),
        ] {
            figures.push(RowFigure {
                scenario: "s".into(),
                budget: "abs-100".into(),
                strategy: strategy.into(),
                figure,
                value,
            });
        }
    }
    RunRecord {
        results_sha256: format!("{sha:0>64}"),
        inputs_sha256: format!("{inputs:0>64}"),
        crate_version: "0.1.0".into(),
        results_schema: 7,
        seed: 42,
        inputs: vec![(
            "s".into(),
            inputs.into(),
            "generated".into(),
            42,
            12,
            "modern".into(),
        )],
        figures,
    }
}

fn night(commit: &str, date: &str) -> Night {
    Night::new(Some(commit.into()), date.into(), None).unwrap()
}

fn count(history: &History, table: &str) -> i64 {
    history
        .conn
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

fn db(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("history.sqlite")
}

#[test]
fn a_new_database_has_the_schema_version_and_its_migration() {
    let dir = tempfile::tempdir().unwrap();
    let history = History::open_for_writing(&db(&dir)).unwrap();
    assert_eq!(history.version().unwrap(), 1);
    let steps: Vec<(u32, String)> = history
        .conn
        .prepare("SELECT version, description FROM migrations")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        steps,
        [(
            1,
            "runs, their inputs and every row's tracked figures".to_string()
        )]
    );
    drop(history);
    // Opened again: nothing applied twice.
    let history = History::open_for_writing(&db(&dir)).unwrap();
    assert_eq!(count(&history, "migrations"), 1);
    assert!(History::open(&db(&dir)).is_ok());
}

#[test]
fn added_runs_read_back_exactly_in_date_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = History::open_for_writing(&db(&dir)).unwrap();
    let later = history
        .add(
            &record("2", "i", 0.75, Some(0.5), [1.25, 2.0]),
            &night("bbbb", "2026-12-02"),
            "run2",
        )
        .unwrap();
    assert_eq!(
        later,
        Added {
            run_id: 1,
            night: 1,
            nights: 1,
            figures: 6
        }
    );
    // Added second but dated first: it is night 1.
    let earlier = history
        .add(
            &record("1", "i", 1.0, None, [1.0, 2.5]),
            &Night::new(
                Some("aaaa".into()),
                "2026-12-01T23:00:00Z".into(),
                Some("first".into()),
            )
            .unwrap(),
            "run1",
        )
        .unwrap();
    assert_eq!((earlier.night, earlier.nights), (1, 2));
    let table = history.series(&Filter::default()).unwrap();
    let nights: Vec<(u64, &str, &str)> = table
        .nights
        .iter()
        .map(|n| (n.night, n.date.as_str(), n.short_commit()))
        .collect();
    assert_eq!(
        nights,
        [
            (1, "2026-12-01T23:00:00Z", "aaaa"),
            (2, "2026-12-02", "bbbb")
        ]
    );
    assert_eq!(table.nights[0].label.as_deref(), Some("first"));
    type Values = Vec<Option<Option<f64>>>;
    let series: Vec<(&str, &str, Values)> = table
        .series
        .iter()
        .map(|s| {
            (
                s.key.figure.name(),
                s.key.strategy.as_str(),
                s.values.clone(),
            )
        })
        .collect();
    assert_eq!(
        series,
        [
            ("compliance", "a", vec![Some(Some(1.0)), Some(Some(0.75))]),
            ("compliance", "b", vec![Some(Some(1.0)), Some(Some(0.75))]),
            ("retention", "a", vec![Some(None), Some(Some(0.5))]),
            ("retention", "b", vec![Some(None), Some(Some(0.5))]),
            ("cost", "a", vec![Some(Some(1.0)), Some(Some(1.25))]),
            ("cost", "b", vec![Some(Some(2.5)), Some(Some(2.0))]),
        ]
    );
    // Filters: one figure, one strategy, the last night.
    let filter = Filter {
        figures: vec![COST],
        strategy: Some("b".into()),
        last: Some(1),
        ..Filter::default()
    };
    let table = history.series(&filter).unwrap();
    assert_eq!(table.nights.len(), 1);
    assert_eq!(table.nights[0].night, 2);
    assert_eq!(table.series.len(), 1);
    assert_eq!(table.series[0].values, [Some(Some(2.0))]);
    assert_eq!(
        show::markdown(&table),
        "## cost\n\n| night | date | commit | s abs-100 b |\n|---:|---|---|---:|\n| 2 | 2026-12-02 | bbbb | 2.00x |\n\n"
    );
    assert!(history
        .series(&Filter {
            last: Some(0),
            ..Filter::default()
        })
        .is_err());
}

#[test]
fn the_same_run_twice_is_refused_and_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = History::open_for_writing(&db(&dir)).unwrap();
    let run = record("1", "i", 1.0, None, [1.0, 1.0]);
    history
        .add(&run, &night("aaaa", "2026-12-01"), "r")
        .unwrap();
    let again = history
        .add(&run, &night("bbbb", "2026-12-02"), "reports/r")
        .unwrap_err();
    assert_eq!(
        again.to_string(),
        "reports/r is already in the history (the same results.json, sha256 000000000000, added as the night \
         of 2026-12-01, commit aaaa)"
    );
    assert_eq!(count(&history, "runs"), 1);
    assert_eq!(count(&history, "figures"), 6);
}

#[test]
fn an_interrupted_add_leaves_the_database_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = History::open_for_writing(&db(&dir)).unwrap();
    history
        .add(
            &record("1", "i", 1.0, None, [1.0, 1.0]),
            &night("aaaa", "2026-12-01"),
            "r1",
        )
        .unwrap();
    let before = std::fs::read(db(&dir)).unwrap();
    let second = record("2", "i", 0.5, None, [1.0, 1.0]);
    let failed = history
        .add_failing_at(&second, &night("bbbb", "2026-12-02"), "r2", Some(4))
        .unwrap_err();
    assert!(
        failed
            .to_string()
            .ends_with("add interrupted after 4 figures"),
        "{failed}"
    );
    assert_eq!(count(&history, "runs"), 1);
    assert_eq!(count(&history, "inputs"), 1);
    assert_eq!(count(&history, "figures"), 6);
    drop(history);
    assert_eq!(std::fs::read(db(&dir)).unwrap(), before);
    // And the run can be added afterwards.
    let mut history = History::open_for_writing(&db(&dir)).unwrap();
    history
        .add(&second, &night("bbbb", "2026-12-02"), "r2")
        .unwrap();
    assert_eq!(count(&history, "figures"), 12);
}

#[test]
fn two_writers_at_once_both_land() {
    let dir = tempfile::tempdir().unwrap();
    let path = Arc::new(db(&dir));
    let barrier = Arc::new(Barrier::new(2));
    let writers: Vec<_> = (0..2u8)
        .map(|i| {
            let (path, barrier) = (Arc::clone(&path), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                // Both make the database and its schema, then add, at the same time.
                let mut history = History::open_for_writing(&path)?;
                let run = record(&i.to_string(), "i", 1.0, None, [1.0, 1.0]);
                history.add(&run, &night("aaaa", "2026-12-01"), "r")
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap().unwrap();
    }
    let history = History::open(&path).unwrap();
    assert_eq!(count(&history, "runs"), 2);
    assert_eq!(count(&history, "figures"), 12);
    assert_eq!(count(&history, "migrations"), 1);
}

#[test]
fn a_newer_schema_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    drop(History::open_for_writing(&path).unwrap());
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 2)
        .unwrap();
    let expected = format!(
        "{} is a history of schema version 2, written by a newer budgetlab; this one reads version 1",
        path.display()
    );
    assert_eq!(
        History::open_for_writing(&path).unwrap_err().to_string(),
        expected
    );
    assert_eq!(History::open(&path).unwrap_err().to_string(), expected);
}

#[test]
fn what_is_not_a_history_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |p: &Path| History::open_for_writing(p).unwrap_err().to_string();
    // Not a SQLite database.
    let text = dir.path().join("notes.sqlite");
    std::fs::write(&text, "these are my notes, not a database\n").unwrap();
    assert_eq!(
        refused(&text),
        format!(
            "{} is not a SQLite database; budgetlab never overwrites it",
            text.display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(&text).unwrap(),
        "these are my notes, not a database\n"
    );
    // A SQLite database of something else.
    let other = dir.path().join("other.sqlite");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE mine (x INTEGER); INSERT INTO mine VALUES (7);")
        .unwrap();
    assert!(refused(&other).ends_with(
        "is a SQLite database but not a budgetlab history (it has tables and no schema version)"
    ));
    let kept: i64 = rusqlite::Connection::open(&other)
        .unwrap()
        .query_row("SELECT x FROM mine", [], |r| r.get(0))
        .unwrap();
    assert_eq!(kept, 7);
    // A symbolic link, even to a history.
    let real = db(&dir);
    drop(History::open_for_writing(&real).unwrap());
    let link = dir.path().join("link.sqlite");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_eq!(
        refused(&link),
        format!(
            "{} is a symbolic link; give the database's own path",
            link.display()
        )
    );
    assert!(History::open(&link).is_err());
    // A folder, and a file in a folder that does not exist (not made).
    assert_eq!(
        refused(dir.path()),
        format!("{} is not a regular file", dir.path().display())
    );
    let deep = dir.path().join("no/such/folder/h.sqlite");
    assert!(refused(&deep).contains("is in a folder that does not exist"));
    assert!(!dir.path().join("no").exists());
    // Reading never makes one.
    let missing = dir.path().join("missing.sqlite");
    assert!(History::open(&missing).is_err());
    assert!(!missing.exists());
}

/// A history of `nights` nights of two rows: compliance moves on night 11 (a code change, inputs unchanged) and
/// retention on night 21 (an input change); the cost of strategy `a` doubles from night 31.
fn long_history(history: &mut History, nights: usize) {
    for i in 0..nights {
        let n = i + 1;
        let compliance = if n >= 11 { 0.9 } else { 1.0 };
        let (retention, inputs) = if n >= 21 { (0.6, "j") } else { (0.5, "i") };
        // Deterministic noise of a few percent, the same each test run.
        let noise = 1.0 + 0.03 * (((i * 7919) % 13) as f64 / 6.0 - 1.0);
        let cost_a = if n >= 31 { 2.0 * noise } else { noise };
        let run = record(
            &n.to_string(),
            inputs,
            compliance,
            Some(retention),
            [cost_a, noise],
        );
        history
            .add(
                &run,
                &night(&format!("c{n:03}"), &format!("2026-11-{:02}", n.min(30))),
                "r",
            )
            .unwrap();
    }
}

#[test]
fn the_check_flags_each_move_on_its_first_night_and_the_cost_regression() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = History::open_for_writing(&db(&dir)).unwrap();
    long_history(&mut history, 34);
    let test = RankTest::default_test();
    // Night by night, as nightly CI would run it.
    let mut verdicts = Vec::new();
    for last in 1..=34 {
        // The history as it stood on night `last`.
        let whole = history.series(&Filter::default()).unwrap();
        let cut = series::Table {
            nights: whole.nights[..last].to_vec(),
            series: whole
                .series
                .iter()
                .map(|s| Series {
                    key: s.key.clone(),
                    values: s.values[..last].to_vec(),
                })
                .collect(),
        };
        verdicts.push(check::verdict(&cut, &test));
    }
    let failing: Vec<usize> = verdicts
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.passed())
        .map(|(i, _)| i + 1)
        .collect();
    // Nights 11 and 21 (the moves), then the cost from night 35 at the earliest: window 5, so 31..=35.
    assert_eq!(failing, [11, 21]);
    let whole = history.check(&test).unwrap();
    type Seen<'a> = (u64, &'a str, &'a str, Option<f64>, Option<f64>, bool);
    let moves: Vec<Seen> = whole
        .moves
        .iter()
        .map(|m| {
            (
                m.night,
                m.key.figure.name(),
                m.key.strategy.as_str(),
                m.from,
                m.to,
                m.inputs_changed,
            )
        })
        .collect();
    assert_eq!(
        moves,
        [
            (11, "compliance", "a", Some(1.0), Some(0.9), false),
            (11, "compliance", "b", Some(1.0), Some(0.9), false),
            (21, "retention", "a", Some(0.5), Some(0.6), true),
            (21, "retention", "b", Some(0.5), Some(0.6), true),
        ]
    );
    // Night 34 has 4 regressed nights in the window: not yet. Night 35 raises the alarm on `a` alone.
    assert!(whole.passed());
    assert_eq!(whole.cost_tested, 2);
    let run = record("35", "j", 0.9, Some(0.6), [2.0, 1.0]);
    history
        .add(&run, &night("c035", "2026-12-01"), "r")
        .unwrap();
    let v = history.check(&test).unwrap();
    assert!(!v.passed());
    assert_eq!(v.alarms.len(), 1);
    assert_eq!(v.alarms[0].key.strategy, "a");
    assert_eq!(v.alarms[0].since, 31);
    assert_eq!(v.alarms[0].shift.p_value, 1.0 / 252.0);
    let text = check::markdown(&v);
    assert!(
        text.starts_with(
            "# History check: FAIL\n\nNewest night 35 of 35 (2026-12-01, commit c035)."
        ),
        "{text}"
    );
    assert!(text.contains("| s abs-100 a |"), "{text}");
    assert!(
        text.contains("; 2 series tested (a series is tested from its night 10).\n"),
        "{text}"
    );
    assert!(text.contains("| 31 (2026-11-30, commit c031) |"), "{text}");
    let json = check::json(&v);
    assert_eq!(json["passed"], false);
    assert_eq!(json["alarms"][0]["commit"], "c031");
    assert_eq!(json["moves"][2]["inputsChanged"], true);
    assert_eq!(json["moves"][2]["commit"], "c021");
}

#[test]
fn show_fits_120_columns_by_default_and_says_what_moved() {
    use super::series::{NightInfo, Series, SeriesKey, Table};
    let night = |n: u64| NightInfo {
        night: n,
        date: format!("2026-12-{n:02}"),
        commit: Some(format!("{n:0>40}")),
        label: None,
        results_sha256: "0".repeat(64),
        inputs_sha256: "0".repeat(64),
        crate_version: "0.1.0".into(),
    };
    // 40 strategies (long names) of compliance and cost over 3 nights: one compliance series moved on night 3,
    // every cost series moved (wall-clock, listed only with --all).
    let mut series = Vec::new();
    for figure in [COMPLIANCE, COST] {
        for i in 0..40 {
            let moved = figure == COST || i == 7;
            series.push(Series {
                key: SeriesKey {
                    figure,
                    scenario: "mixed-realistic".into(),
                    budget: "window-16000".into(),
                    strategy: format!("head-tail(head=0.{i},tail-first=true,x=1)"),
                },
                values: vec![
                    Some(Some(1.0)),
                    Some(Some(1.0)),
                    Some(Some(if moved { 0.5 } else { 1.0 })),
                ],
            });
        }
    }
    let table = Table {
        nights: (1..=3).map(night).collect(),
        series,
    };
    // The night-by-night table is 40 columns wide: the summary is printed instead.
    assert!(show::markdown(&table).lines().any(|l| l.len() > 1000));
    let text = show::default_markdown(&table);
    assert!(
        text.lines().all(|l| l.chars().count() <= show::COLUMNS),
        "{text}"
    );
    assert!(
        text.starts_with("3 nights (2026-12-01 to 2026-12-03), 80 series, 1 moved"),
        "{text}"
    );
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| compliance"))
        .collect();
    assert_eq!(
        rows,
        ["| compliance | mixed-realistic | window-16000 | head-tail(head=0.7,tail-f… | 100.00% | 50.00% | 3 (0000000) |"]
    );
    // --all lists all 80, each line still within 120 columns.
    let all = show::summary(&table, true);
    assert_eq!(all.lines().filter(|l| l.starts_with("| c")).count(), 80);
    assert!(all.lines().all(|l| l.chars().count() <= show::COLUMNS));
}
