//! `budgetlab compare` compares like with like: runs of other inputs are one line a scenario and their rows are
//! not diffed, the rows that differ are ranked by the size of their change, the cost is shown only past a stated
//! noise threshold, and two strategies of one run go side by side with the paired interval of their difference.

use serde_json::{json, Value};

use super::{baseline_and_edited, budgetlab, expect_bad_input, path, small_run};

/// Runs `compare` with `args`, expecting success; its stdout.
fn compare(args: &[&str]) -> String {
    let out = budgetlab().arg("compare").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The header lines of a comparison of the deterministic metrics with the default thresholds.
const SHOWN: &str = "Shown: compliance.rate any change, retention.mean any change, needles.survival any change, \
persistence.writes any change (`--threshold METRIC=VALUE` sets them). Ranked: rows are ranked by their largest \
change, percentage points for shares (compliance.rate, retention.mean, needles.survival), percent of A for \
persistence.writes; a figure absent on one side or a change from zero ranks first.";

fn row_of<'a>(
    results: &'a mut Value,
    scenario: &str,
    budget: &str,
    strategy: &str,
) -> &'a mut Value {
    results["rows"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| {
            r["strategy"] == strategy && r["budgetLabel"] == budget && r["scenario"] == scenario
        })
        .unwrap()
}

#[test]
fn runs_of_other_inputs_are_one_line_a_scenario_and_their_rows_are_not_diffed() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    small_run(&a, &[]);
    let b = tmp.path().join("b");
    budgetlab()
        .args([
            "run",
            "--scenarios",
            "surrogate-storm",
            "pre-persisted",
            "--strategies",
            "reference,greedy,codex",
            "--batches",
            "5",
            "--out",
        ])
        .arg(&b)
        .assert()
        .success();
    let text = compare(&[path(&a), path(&b)]);
    assert_eq!(
        text,
        format!(
            "## budgetlab compare\n\nA: `{}` · B: `{}` · 18 rows in both · metrics: compliance.rate, \
             retention.mean, needles.survival, persistence.writes\n\n{SHOWN}\n\n\
             Scenarios whose inputs differ, so their rows are not compared (run both alike to compare them):\n\n\
             - surrogate-storm: batches 7 vs 5 (A vs B); 9 rows not compared\n\
             - pre-persisted: batches 7 vs 5 (A vs B); 9 rows not compared\n\n\
             No row compared: the inputs of every scenario differ.\n",
            a.join("results.json").display(),
            b.join("results.json").display()
        )
    );
    let json: Value = serde_json::from_str(&compare(&[path(&a), path(&b), "--json"])).unwrap();
    assert_eq!(
        json["inputChanges"][0],
        json!({"scenario": "surrogate-storm", "differences": ["batches 7 vs 5"], "rowsNotCompared": 9})
    );
    assert_eq!(
        (&json["matchedRows"], &json["comparedRows"]),
        (&json!(18), &json!(0))
    );
    assert_eq!(json["rows"], json!([]));

    // check says the same in one line, and what to run instead: with no scenario run as the baseline's, there
    // is nothing to check (exit 2, not a table of identical failed rows).
    let out = budgetlab()
        .args(["check", "--baseline", path(&a), "--current", path(&b)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        format!(
            "budgetlab: {}: no scenario ran as the baseline's did (in all 2: batches 7 vs 5, baseline vs \
             current), so nothing can be compared: run them as the baseline was run (budgetlab run --batches 7), \
             or refresh the baseline\n",
            b.join("results.json").display()
        )
    );
}

#[test]
fn rows_that_differ_are_ranked_by_their_largest_change() {
    let tmp = tempfile::tempdir().unwrap();
    let mut writes = 0;
    let mut mean = 0.0;
    let (a, b) = baseline_and_edited(tmp.path(), |r| {
        // First in A's order, the smaller change: retention down 2 points.
        let first = row_of(r, "surrogate-storm", "abs-1000", "greedy");
        mean = first["retention"]["mean"].as_f64().unwrap();
        first["retention"]["mean"] = (mean - 0.02).into();
        // Later, the larger: writes tripled (+200%).
        let later = row_of(r, "pre-persisted", "abs-12000", "reference");
        writes = later["persistence"]["writes"].as_u64().unwrap();
        later["persistence"]["writes"] = (writes * 3).into();
    });
    assert!(writes > 0);
    let text = compare(&[path(&a), path(&b)]);
    let table = text
        .split_once("2 of 18 rows differ, the largest change first:\n\n")
        .unwrap()
        .1;
    assert_eq!(
        table,
        format!(
            "| # | scenario | budget | strategy | metric | A | B | change |\n\
             |---:|---|---|---|---|---:|---:|---:|\n\
             | 1 | pre-persisted | abs-12000 | reference | persistence.writes | {writes} | {} | +{} (+200.0%) |\n\
             | 2 | surrogate-storm | abs-1000 | greedy | retention.mean | {:.2}% | {:.2}% | -2.00 pp |\n",
            writes * 3,
            writes * 2,
            mean * 100.0,
            (mean - 0.02) * 100.0
        )
    );
    assert!(text.contains(&format!("\n{SHOWN}\n")), "{text}");
    let json: Value = serde_json::from_str(&compare(&[path(&a), path(&b), "--json"])).unwrap();
    let ranked: Vec<(Value, Value, Value)> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["rank"].clone(), r["strategy"].clone(), r["size"].clone()))
        .collect();
    assert_eq!(ranked[0], (json!(1), json!("reference"), json!(2.0)));
    assert_eq!((&ranked[1].0, &ranked[1].1), (&json!(2), &json!("greedy")));
    assert!(
        (ranked[1].2.as_f64().unwrap() - 0.02).abs() < 1e-9,
        "{ranked:?}"
    );
    assert!(
        json["rankedBy"]
            .as_str()
            .unwrap()
            .starts_with("rows are ranked by their largest change, percentage points for shares"),
        "{json}"
    );
}

#[test]
fn cost_shows_only_changes_beyond_the_stated_noise_threshold() {
    let tmp = tempfile::tempdir().unwrap();
    let mut ratios = (0.0, 0.0);
    let (a, b) = baseline_and_edited(tmp.path(), |r| {
        // Noise: half as slow again against the floor, within check's ±100%.
        let noise = row_of(r, "surrogate-storm", "abs-1000", "greedy");
        ratios.0 = noise["cost"]["floorRatio"].as_f64().unwrap();
        noise["cost"]["floorRatio"] = (ratios.0 * 1.5).into();
        // A change: three times as slow.
        let slower = row_of(r, "pre-persisted", "abs-5000", "reference");
        ratios.1 = slower["cost"]["floorRatio"].as_f64().unwrap();
        slower["cost"]["floorRatio"] = (ratios.1 * 3.0).into();
    });
    let line = |place: &str, strategy: &str, rank: usize, ratio: f64, factor: f64, change: &str| {
        format!(
            "| {rank} | {place} | {strategy} | cost.floorRatio | {:.2}x | {:.2}x | {change} |\n",
            ratio,
            ratio * factor
        )
    };
    let text = compare(&[path(&a), path(&b), "--cost"]);
    assert!(
        text.contains(
            "Shown: compliance.rate any change, retention.mean any change, needles.survival any change, \
             persistence.writes any change, cost.floorRatio beyond ±100%, cost.medianNs beyond ±100% \
             (`--threshold METRIC=VALUE` sets them)."
        ),
        "{text}"
    );
    assert!(text.contains("1 of 18 rows differ"), "{text}");
    assert!(
        text.contains(&line(
            "pre-persisted | abs-5000",
            "reference",
            1,
            ratios.1,
            3.0,
            "+200.0%"
        )),
        "{text}"
    );
    assert!(!text.contains("| greedy |"), "{text}");

    // Settable: at 25% the noise shows too, ranked after the larger change.
    let text = compare(&[path(&a), path(&b), "--cost", "--threshold", "cost=25%"]);
    assert!(
        text.contains("cost.floorRatio beyond ±25%, cost.medianNs beyond ±100%"),
        "{text}"
    );
    assert!(text.contains("2 of 18 rows differ"), "{text}");
    assert!(
        text.contains(&format!(
            "{}{}",
            line(
                "pre-persisted | abs-5000",
                "reference",
                1,
                ratios.1,
                3.0,
                "+200.0%"
            ),
            line(
                "surrogate-storm | abs-1000",
                "greedy",
                2,
                ratios.0,
                1.5,
                "+50.0%"
            )
        )),
        "{text}"
    );
    let json: Value =
        serde_json::from_str(&compare(&[path(&a), path(&b), "--cost", "--json"])).unwrap();
    assert_eq!(
        json["thresholds"][4],
        json!({"metric": "cost", "field": "cost.floorRatio", "threshold": "beyond ±100%"})
    );
    assert_eq!(json["rows"].as_array().unwrap().len(), 1);

    expect_bad_input(
        &[
            "compare",
            path(&a),
            path(&b),
            "--cost",
            "--threshold",
            "cost=lots",
        ],
        "invalid --threshold \"cost=lots\": expected a number, X%, abs:X, rel:X or off",
    );
    expect_bad_input(
        &["compare", path(&a), path(&b), "--threshold", "cost=0.5"],
        "invalid --threshold \"cost=0.5\": cost is compared only with --cost",
    );
    expect_bad_input(
        &["compare", path(&a), path(&b), "--threshold", "speed=1"],
        "invalid --threshold \"speed=1\": unknown metric \"speed\"",
    );
}

#[test]
fn two_strategies_of_one_run_go_side_by_side_with_their_paired_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    small_run(&a, &[]);
    let text = compare(&[path(&a), "--strategies", "reference,greedy"]);
    assert!(
        text.starts_with(&format!(
            "## budgetlab compare\n\nRun: `{}` · A: `reference` · B: `greedy` · 6 scenarios and budgets with \
             both · metrics: compliance.rate, retention.mean, needles.survival, persistence.writes\n",
            a.join("results.json").display()
        )),
        "{text}"
    );
    assert!(
        text.contains(
            "| # | scenario | budget | metric | A: reference | B: greedy | change | B − A, paired 95% interval |\n"
        ),
        "{text}"
    );
    let json: Value = serde_json::from_str(&compare(&[
        path(&a),
        "--strategies",
        "reference,greedy",
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["mode"], "strategies");
    assert_eq!(json["strategies"], json!({"a": "reference", "b": "greedy"}));
    assert_eq!(json["matchedRows"], 6);
    // Every retention or needle change carries its interval, and the interval holds the difference.
    let rows = json["rows"].as_array().unwrap();
    assert!(!rows.is_empty(), "{json}");
    let mut intervals = 0;
    for r in rows {
        assert_eq!(r["strategy"], Value::Null);
        for c in r["changes"].as_array().unwrap() {
            if ["retention.mean", "needles.survival"].contains(&c["metric"].as_str().unwrap()) {
                let diff = c["b"].as_f64().unwrap() - c["a"].as_f64().unwrap();
                let [lo, hi] = [
                    c["interval"][0].as_f64().unwrap(),
                    c["interval"][1].as_f64().unwrap(),
                ];
                assert!(lo <= diff + 1e-9 && diff <= hi + 1e-9, "{c}");
                intervals += 1;
                let line = format!(
                    "| {} | {} | {} | {} |",
                    r["rank"],
                    r["scenario"].as_str().unwrap(),
                    r["budget"].as_str().unwrap(),
                    c["metric"].as_str().unwrap()
                );
                let shown = text.lines().find(|l| l.starts_with(&line)).unwrap();
                assert!(
                    shown.ends_with(&format!(" | [{:+.2}, {:+.2}] pp |", lo * 100.0, hi * 100.0)),
                    "{shown}"
                );
            } else {
                assert_eq!(c["interval"], Value::Null);
            }
        }
    }
    assert!(intervals > 0, "{json}");

    expect_bad_input(
        &["compare", path(&a), "--strategies", "reference,nosuch"],
        &format!(
            "invalid --strategies \"reference,nosuch\": {} has no strategy \"nosuch\"; it has codex, greedy, \
             reference",
            a.join("results.json").display()
        ),
    );
    expect_bad_input(
        &["compare", path(&a), "--strategies", "greedy,greedy"],
        "invalid --strategies \"greedy,greedy\": \"greedy\" is given twice; name two strategies",
    );
    expect_bad_input(
        &["compare", path(&a), "--strategies", "greedy"],
        "invalid --strategies \"greedy\": expected two strategies, A,B; 1 given",
    );
    expect_bad_input(
        &[
            "compare",
            path(&a),
            path(&a),
            "--strategies",
            "reference,greedy",
        ],
        "--strategies",
    );
}
