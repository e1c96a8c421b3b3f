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
    for file in [
        "summary.md",
        "index.html",
        "charts/tune-front.svg",
        "charts/tune-front.png",
        "charts/tune-progress.svg",
        "charts/tune-progress.png",
    ] {
        assert!(out.join(file).is_file(), "{file}");
    }
    printed
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap()
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
    // The page answers first with the setting to paste, its validation figures and its gain's interval.
    let page = read(&tmp.path().join("out/index.html"));
    let paste = page
        .find("<code>head-tail-0.65</code>")
        .expect("the setting");
    assert!(
        paste < page.find("<figure").expect("charts"),
        "answer first"
    );
    assert!(
        page.contains(
            "Yes: gain over the reference on the held-out folds +50.0 pts (95% paired interval"
        ),
        "{page}"
    );
    // The gain column gives the cross-fitted gain the recommendation rests on, and each budget's folds are listed.
    let family = cell["crossFit"]["family"].as_str().unwrap();
    assert!(page.contains(&format!(
        "<td class=\"text\">+50.0 pts (95% interval +50.0 pts to +50.0 pts) for {}, 3 held-out folds</td>",
        family.replace('<', "&lt;").replace('>', "&gt;")
    )));
    assert_eq!(page.matches("<td>1 (validation)</td>").count(), 1);
    let summary = read(&tmp.path().join("out/summary.md"));
    assert!(
        summary.contains("| held-out fold | family its search chose |"),
        "{summary}"
    );
    // The answer says what the setting costs, and how the batches were split.
    assert!(cell["recommendation"]["costRatio"].as_f64().unwrap() > 0.0);
    assert_eq!(cell["recommendation"]["stability"]["wins"], 5);
    assert_eq!(v["workloads"][0]["split"]["by"], "batch");
    assert!(
        page.contains("<th>time / floor</th></tr>"),
        "the answer's cost column"
    );
    assert!(page.contains("+50.0 pts (95% interval +50.0 pts to +50.0 pts)"));
    assert!(page.contains("<code>--strategies reference,head-tail-0.65</code>"));
    for chart in ["tune-front", "tune-progress"] {
        assert!(
            page.contains(&format!("src=\"charts/{chart}.svg\"")),
            "{chart}"
        );
        let svg = read(&tmp.path().join(format!("out/charts/{chart}.svg")));
        assert!(svg.contains("recommended: head-tail-0.65"), "{chart}");
        // The reference is named beside its point, besides the legend's entry.
        let named = svg
            .lines()
            .filter(|l| l.trim() == "reference" || l.trim().starts_with("reference ("))
            .count();
        assert!(named >= 2, "{chart}");
    }
}

/// The rungs of the planted search on 200 batches (140 tuning ones of 2 needles each): 22 settings on the first
/// 50 tuning batches (the fewest holding 100 needles), then those the sample could not tell from the cut on all
/// 140 (each sample holding the one before it).
#[test]
fn tune_json_lists_every_rungs_settings_with_their_figures_and_fate() {
    let tmp = tempfile::tempdir().unwrap();
    let file = batches_file(tmp.path(), "planted", &[PLANTED; 200]);
    let v = tune(&file, &tmp.path().join("out"));
    let cell = &v["workloads"][0]["cells"][0];
    let rungs = cell["rungs"].as_array().unwrap();
    let samples: Vec<u64> = rungs
        .iter()
        .map(|r| r["batches"].as_u64().unwrap())
        .collect();
    assert_eq!(samples, [50, 140]);
    let events: Vec<u64> = rungs
        .iter()
        .map(|r| r["events"].as_u64().unwrap())
        .collect();
    assert_eq!(events, [100, 280]);
    assert_eq!(cell["search"]["minRungEvents"], 100);
    let settings: Vec<&str> = cell["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["strategy"].as_str().unwrap())
        .collect();
    let mut before: Option<Vec<&str>> = None;
    for (r, rung) in rungs.iter().enumerate() {
        let ran = rung["ran"].as_array().unwrap();
        let names: Vec<&str> = ran
            .iter()
            .map(|s| s["strategy"].as_str().unwrap())
            .collect();
        // In candidate order, the reference first; the first rung runs every setting.
        let order: Vec<usize> = names
            .iter()
            .map(|n| settings.iter().position(|s| s == n).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "rung {r}");
        assert_eq!(names[0], "reference");
        if r == 0 {
            assert_eq!(names, settings);
        }
        // A rung runs what went on from the one before, and the reference.
        if let Some(went_on) = &before {
            let mut expected = went_on.clone();
            if !expected.contains(&"reference") {
                expected.insert(0, "reference");
            }
            assert_eq!(names, expected, "rung {r}");
        }
        // Every figure is on the rung's whole sample; the places rank the settings still in the race.
        let mut places: Vec<u64> = Vec::new();
        for s in ran {
            assert_eq!(s["figures"]["sums"]["turns"], samples[r], "rung {r}");
            if let Some(p) = s["place"].as_u64() {
                places.push(p);
            }
        }
        places.sort_unstable();
        assert_eq!(
            places,
            (0..rung["settings"].as_u64().unwrap()).collect::<Vec<_>>()
        );
        let optimum = ran
            .iter()
            .find(|s| s["strategy"] == "head-tail-0.65")
            .unwrap();
        assert_eq!(optimum["place"], 0);
        assert_eq!(optimum["goesOn"], true);
        assert_eq!(optimum["figures"]["objective"], 1.0);
        assert_eq!(ran[0]["figures"]["objective"], 0.5);
        before = Some(
            ran.iter()
                .filter(|s| s["goesOn"] == true)
                .map(|s| s["strategy"].as_str().unwrap())
                .collect(),
        );
    }
    // On the last rung, those that go on are the finalists, best first by place.
    let finalists: Vec<&str> = cell["finalists"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["tuningRank"].is_null())
        .map(|f| f["strategy"].as_str().unwrap())
        .collect();
    let mut last: Vec<(u64, &str)> = rungs[rungs.len() - 1]["ran"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["goesOn"] == true)
        .map(|s| {
            (
                s["place"].as_u64().unwrap(),
                s["strategy"].as_str().unwrap(),
            )
        })
        .collect();
    last.sort_unstable();
    assert_eq!(last.iter().map(|l| l.1).collect::<Vec<_>>(), finalists);
}

/// The points on the front chart's writes panel that are marked as on the front: exactly the settings of the
/// first rung that kept the budget and that no other such setting beats on both objective and writes per turn,
/// computed here from `tune.json`.
#[test]
fn the_front_chart_marks_exactly_the_settings_no_other_beats_on_both() {
    use budgetlab::report::chart::tune::{front_chart, Mark, Spend};
    let tmp = tempfile::tempdir().unwrap();
    // Needles that head shares tell apart, on a workload where not every setting writes alike.
    let needles: Vec<(usize, usize)> = (0..30)
        .map(|b| [PLANTED, TUNING_ONLY, REFERENCE_ONLY][b % 3])
        .collect();
    let file = batches_file(tmp.path(), "mixed", &needles);
    let v = tune(&file, &tmp.path().join("out"));
    let cell = &v["workloads"][0]["cells"][0];
    let first: Vec<(&str, f64, f64, bool)> = cell["rungs"][0]["ran"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let f = &s["figures"];
            (
                s["strategy"].as_str().unwrap(),
                f["writesPerTurn"].as_f64().unwrap(),
                f["objective"].as_f64().unwrap(),
                f["keptBudget"].as_bool().unwrap(),
            )
        })
        .collect();
    let mut expected: Vec<&str> = first
        .iter()
        .filter(|a| {
            a.3 && !first
                .iter()
                .any(|b| b.3 && b.1 <= a.1 && b.2 >= a.2 && (b.1 < a.1 || b.2 > a.2))
        })
        .map(|a| a.0)
        .collect();
    expected.sort_unstable();
    let results: budgetlab::tune::TuneResults = serde_json::from_value(v.clone()).unwrap();
    let chart = front_chart(&results).unwrap();
    let writes = &chart.rows[0][0];
    assert_eq!(writes.spend, Spend::Writes);
    assert_eq!(writes.points.len(), first.len());
    let mut front: Vec<&str> = writes
        .points
        .iter()
        .filter(|p| p.mark == Mark::Front)
        .map(|p| p.strategy.as_str())
        .collect();
    front.sort_unstable();
    assert_eq!(front, expected);
    assert!(!front.is_empty());
    let marked: Vec<&str> = writes
        .points
        .iter()
        .filter(|p| p.recommended)
        .map(|p| p.strategy.as_str())
        .collect();
    assert_eq!(
        marked,
        [cell["recommendation"]["strategy"].as_str().unwrap()]
    );
    // The cost panel: the finalists and the reference on the validation set.
    let cost = &chart.rows[0][1];
    assert_eq!(cost.spend, Spend::Cost);
    assert_eq!(
        cost.points.len(),
        cell["finalists"].as_array().unwrap().len()
    );
    assert!(cost.points[0].reference);
}

/// The progress chart and everything in `tune.json` but the measured time are the same bytes on one thread and
/// on two.
#[test]
fn the_progress_chart_is_the_same_on_any_number_of_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let file = batches_file(tmp.path(), "planted", &[PLANTED; 40]);
    let run = |threads: &str| {
        let out = tmp.path().join(format!("out-{threads}"));
        let status = budgetlab()
            .args(["tune", "--batches-file"])
            .arg(&file)
            .args([
                "--budgets",
                BUDGET,
                "--families",
                "head-tail",
                "--settings",
                "22",
            ])
            .args(["--threads", threads])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(status.status.success());
        out
    };
    let (one, two) = (run("1"), run("2"));
    for file in ["charts/tune-progress.svg", "charts/tune-progress.png"] {
        assert!(
            std::fs::read(one.join(file)).unwrap() == std::fs::read(two.join(file)).unwrap(),
            "{file}"
        );
    }
    let without_time = |dir: &std::path::Path| {
        let mut v: Value =
            serde_json::from_slice(&std::fs::read(dir.join("tune.json")).unwrap()).unwrap();
        for f in v["workloads"][0]["cells"][0]["finalists"]
            .as_array_mut()
            .unwrap()
        {
            f["costRatio"] = Value::Null;
        }
        v["workloads"][0]["cells"][0]["recommendation"]["costRatio"] = Value::Null;
        v
    };
    assert_eq!(without_time(&one), without_time(&two));
}

#[test]
fn a_setting_that_only_wins_on_the_tuning_set_is_not_recommended() {
    let tmp = tempfile::tempdir().unwrap();
    // The batches the search tunes on favour head shares of 0.3 to 0.75; those it validates on, the reference.
    let keys: Vec<u64> = (0..40).collect();
    let (tuning, validation) = budgetlab::tune::group::split(
        &keys,
        0.3,
        budgetlab::Seed(1),
        "overfit",
        &mut budgetlab::tune::SplitReport::default(),
    );
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
    // The page says plainly that the gain does not hold, and the charts mark the reference as the pick.
    let page = read(&tmp.path().join("out/index.html"));
    assert!(
        page.contains(&format!(
            "No, keep the reference: no stable winner: {leader} led on the tuning set, but its gain does not hold on \
the validation set"
        )),
        "{page}"
    );
    let svg = read(&tmp.path().join("out/charts/tune-front.svg"));
    assert!(svg.contains("reference (recommended)"));
    let svg = read(&tmp.path().join("out/charts/tune-progress.svg"));
    assert!(svg.contains("reference (recommended)"));
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

#[test]
fn the_used_objective_on_batches_without_used_lines_is_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let file = batches_file(tmp.path(), "plain", &[PLANTED; 4]);
    let out = tmp.path().join("out");
    for objective in ["used", "needles=0.5,used=0.5"] {
        let run = budgetlab()
            .args(["tune", "--batches-file"])
            .arg(&file)
            .args(["--budgets", BUDGET, "--objective", objective])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{objective}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains("--objective") && err.contains("plain has none"),
            "{err}"
        );
        assert!(!out.exists());
    }
}

/// A null workload: half the batches favour a head share of 0.65 (it keeps both needles, the reference one), the
/// other half the reference (it keeps both, 0.65 one): the best setting's true gain is zero, and every other
/// head share's is below it. Over 20 tune seeds (20 splits and cross-fits), tune must recommend a setting other
/// than the reference at most once (the issue's bound); it recommends none (the measured count, asserted exactly
/// so that a change that loosens the check shows here).
#[test]
fn a_setting_whose_true_gain_is_zero_is_recommended_at_most_once_in_20() {
    let tmp = tempfile::tempdir().unwrap();
    let needles: Vec<(usize, usize)> = (0..60)
        .map(|b: usize| {
            // A fixed, balanced interleaving that no split follows.
            if (b * 7 / 3).is_multiple_of(2) {
                PLANTED
            } else {
                REFERENCE_ONLY
            }
        })
        .collect();
    assert_eq!(needles.iter().filter(|n| **n == PLANTED).count(), 30);
    let file = batches_file(tmp.path(), "null", &needles);
    let mut recommended = Vec::new();
    for seed in 1..=20 {
        let out = tmp.path().join(format!("out{seed}"));
        let run = budgetlab()
            .args(["tune", "--batches-file"])
            .arg(&file)
            .args([
                "--budgets",
                BUDGET,
                "--families",
                "head-tail",
                "--settings",
                "22",
                "--tune-seed",
                &seed.to_string(),
                "--json",
            ])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(run.status.success());
        let v: Value = serde_json::from_slice(&run.stdout).unwrap();
        let r = &v["workloads"][0]["cells"][0]["recommendation"];
        if r["strategy"] != "reference" {
            recommended.push((seed, r["strategy"].clone()));
        }
    }
    assert!(recommended.len() <= 1, "{recommended:?}");
    assert_eq!(recommended, [], "the measured false-positive count");
}

/// Batches that record their group (as `import` writes them) are split by the coarsest group they record, the
/// task, never by batch: 40 batches of 8 issues, one session an issue and 5 turns a session.
#[test]
fn recorded_groups_split_by_task_and_no_task_falls_on_both_sides() {
    let tmp = tempfile::tempdir().unwrap();
    let needles: Vec<(usize, usize)> = (0..40).map(|_| PLANTED).collect();
    let plain = batches_file(tmp.path(), "plain", &needles);
    let grouped = tmp.path().join("grouped.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&plain)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(b, line)| {
            format!(
                r#"{{"entries":{line},"group":{{"session":"s{}","task":"issue-{}"}}}}"#,
                b / 5,
                b / 5
            )
        })
        .collect();
    std::fs::write(&grouped, lines.join("\n") + "\n").unwrap();
    let v = tune(&grouped, &tmp.path().join("out"));
    let split = &v["workloads"][0]["split"];
    assert_eq!(split["by"], "task", "{split}");
    assert_eq!(split["groups"], 8);
    assert_eq!(
        split["tuningGroups"].as_u64().unwrap() + split["validationGroups"].as_u64().unwrap(),
        8
    );
    // Whole groups: the validation set holds a multiple of a group's 5 batches.
    assert_eq!(v["workloads"][0]["validation"].as_u64().unwrap() % 5, 0);
    // The plain form records none: each batch is its own group.
    let v = tune(&plain, &tmp.path().join("out-plain"));
    assert_eq!(v["workloads"][0]["split"]["by"], "batch");
    assert_eq!(v["workloads"][0]["split"]["groups"], 40);
}
