//! `--tokenizer` beyond `run` (issue 14): `sweep`, `simulate` and `finalize` count what the model receives and
//! change nothing without it; `batches.csv` and `summary.md` carry token columns that agree with the records;
//! and a `results.json` whose token figures were edited is refused by every reader.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

const TOKENS: [&str; 4] = ["--tokenizer", "o200k_base", "--token-budget", "10%"];

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// Stdout of a successful command.
fn stdout(args: &[&str]) -> String {
    let out = budgetlab().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs the binary expecting bad input: exit 2, one line on stderr containing every one of `needles`.
fn expect_bad_input(args: &[&str], needles: &[&str]) {
    let out = budgetlab().args(args).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    let mut all = base.to_vec();
    all.extend_from_slice(extra);
    all
}

#[test]
fn simulate_counts_the_model_request_beside_its_units_and_nothing_without_a_tokenizer() {
    let base = [
        "simulate",
        "--scenario",
        "small-window",
        "--batches",
        "3",
        "--json",
    ];
    let plain = stdout(&base);
    assert!(!plain.contains("tokens"), "{plain}");
    let counted = stdout(&with(&base, &TOKENS));
    let (plain, counted): (Vec<&str>, Vec<&str>) =
        (plain.lines().collect(), counted.lines().collect());
    assert_eq!(plain.len(), 3);
    assert_eq!(counted.len(), 3);
    for (p, c) in plain.iter().zip(&counted) {
        let mut turn: Value = serde_json::from_str(c).unwrap();
        let tokens = turn.as_object_mut().unwrap().remove("tokens").unwrap();
        // Without its token figures, the turn is the one printed without a tokenizer, byte for byte.
        assert_eq!(serde_json::to_string(&turn).unwrap(), *p);
        let request = turn["boundaries"].as_array().unwrap().last().unwrap();
        assert_eq!(request["name"], "model-request");
        assert_eq!(tokens["units"], request["total"], "{c}");
        assert_eq!(tokens["tokenizer"], "o200k_base");
        // small-window runs at a 16k window: 10% is 1,600 tokens.
        assert_eq!(tokens["budget"], 1600);
        let n = tokens["tokens"].as_u64().unwrap();
        assert!(n > 0, "{c}");
        assert_eq!(tokens["withinBudget"], n <= 1600);
    }
    // The table: a tokens column, filled on the model request's line only, and the line that sums it up.
    let table = stdout(&with(&base[..5], &TOKENS));
    let first: Value = serde_json::from_str(counted[0]).unwrap();
    let n = first["tokens"]["tokens"].as_u64().unwrap();
    let units = first["tokens"]["units"].as_u64().unwrap();
    assert!(table.lines().nth(1).unwrap().trim_end().ends_with("tokens"));
    let request_line = table
        .lines()
        .find(|l| l.trim_start().starts_with("model-request"))
        .unwrap();
    assert!(
        request_line.trim_end().ends_with(&format!(" {n}")),
        "{request_line}"
    );
    assert!(
        table.contains(&format!(
            "model request: {n} tokens of o200k_base ({units} units, {:.2} units per token)",
            units as f64 / n as f64
        )),
        "{table}"
    );
    let plain_table = stdout(&base[..5]);
    assert!(!plain_table.contains("tokens"), "{plain_table}");
    // A share of the window at a budget without one is refused.
    expect_bad_input(
        &with(&base[..5], &["--budget", "4000", "--tokenizer", "o200k_base", "--token-budget", "10%"]),
        &["invalid --token-budget \"10%\": a share of the context window, and budget abs-4000 has none"],
    );
}

#[test]
fn finalize_reports_the_tokens_the_model_receives_as_budgetlab_tokens_counts_them() {
    let tmp = tempfile::tempdir().unwrap();
    let batch = tmp.path().join("batch.jsonl");
    budgetlab()
        .args([
            "generate",
            "--scenario",
            "cjk-heavy",
            "--batches",
            "1",
            "--out",
        ])
        .arg(&batch)
        .assert()
        .success();
    let input = batch.to_str().unwrap();
    let base = ["finalize", "--budget", "3000", "--input", input];
    let plain = stdout(&base);
    assert!(!plain.contains("\"tokens\""));
    let counted = stdout(&with(
        &base,
        &[
            "--context-window",
            "10000",
            "--tokenizer",
            "o200k_base",
            "--token-budget",
            "10%",
        ],
    ));
    let mut report: Value = serde_json::from_str(&counted).unwrap();
    let tokens = report.as_object_mut().unwrap().remove("tokens").unwrap();
    assert_eq!(
        format!("{}\n", serde_json::to_string(&report).unwrap()),
        plain
    );
    // The finalized entries, counted by `budgetlab tokens` on their own: every text field is budgeted here.
    let entries = tmp.path().join("entries.jsonl");
    fs::write(&entries, format!("{}\n", report["entries"])).unwrap();
    let tally: Value =
        serde_json::from_str(&stdout(&["tokens", entries.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(
        tokens["tokens"], tally["total"]["tokens"],
        "{tokens} {tally}"
    );
    assert_eq!(tokens["units"], tally["total"]["units"]);
    assert_eq!(tokens["units"], 3000);
    assert_eq!(tokens["budget"], 1000);
    // CJK text is about 2 units per token: 3,000 units are more than 1,000 tokens.
    assert_eq!(tokens["withinBudget"], false);
    let n = tokens["tokens"].as_u64().unwrap();
    assert!(n > 1000 && n < 3000, "{tokens}");
    // A fixed budget needs no window; a share of one does.
    let fixed: Value = serde_json::from_str(&stdout(&with(
        &base,
        &["--tokenizer", "o200k_base", "--token-budget", "5000"],
    )))
    .unwrap();
    assert_eq!(fixed["tokens"]["withinBudget"], true);
    assert_eq!(fixed["tokens"]["tokens"], n);
    expect_bad_input(
        &with(
            &base,
            &["--tokenizer", "o200k_base", "--token-budget", "10%"],
        ),
        &["a share of the context window, and no --context-window was given"],
    );
}

/// `sweep.json` without its cost figures (the only ones that differ between runs).
fn sweep_without_cost(dir: &Path) -> Value {
    let mut sweep = read_json(&dir.join("sweep.json"));
    for point in sweep["points"].as_array_mut().unwrap() {
        for row in point["rows"].as_array_mut().unwrap() {
            row.as_object_mut().unwrap().remove("cost");
        }
    }
    sweep
}

#[test]
fn a_sweep_carries_the_token_figures_of_every_point_and_nothing_without_a_tokenizer() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = |out: &Path, extra: &[&str]| {
        budgetlab()
            .args([
                "sweep",
                "--scenario",
                "cjk-heavy",
                "--windows",
                "8000..64000",
                "--steps",
                "3",
                "--batches",
                "3",
                "--out",
            ])
            .arg(out)
            .args(extra)
            .assert()
            .success();
    };
    let (plain, counted) = (tmp.path().join("plain"), tmp.path().join("tokens"));
    sweep(&plain, &[]);
    sweep(&counted, &TOKENS);
    let p = sweep_without_cost(&plain);
    let mut c = sweep_without_cost(&counted);
    assert!(!fs::read_to_string(plain.join("sweep.json"))
        .unwrap()
        .contains("\"tokens\""));
    assert!(!plain.join("charts/sweep-token-compliance.svg").exists());
    assert!(!fs::read_to_string(plain.join("index.html"))
        .unwrap()
        .contains("per token"));
    assert_eq!(
        c["tokens"],
        serde_json::json!({"tokenizer": "o200k_base", "tokenBudget": "10%"})
    );
    c.as_object_mut().unwrap().remove("tokens");
    let mut rows = 0;
    for point in c["points"].as_array_mut().unwrap() {
        let window = point["value"].as_f64().unwrap() as u64;
        for row in point["rows"].as_array_mut().unwrap() {
            let t = row.as_object_mut().unwrap().remove("tokens").unwrap();
            rows += 1;
            assert_eq!(t["compliance"]["budget"].as_u64(), Some(window / 10), "{t}");
            let upt = t["units"].as_f64().unwrap() / t["tokens"].as_f64().unwrap();
            assert_eq!(t["unitsPerToken"].as_f64(), Some(upt));
            assert_eq!(
                t.get("windowLeak").is_some(),
                row["strategy"] == "window-relative",
                "{}",
                row["strategy"]
            );
        }
    }
    assert_eq!(rows, 3 * 3);
    // Beyond the token figures, the sweep is the one without a tokenizer.
    assert!(p == c, "the token sweep differs beyond its token figures");
    for chart in ["sweep-token-compliance.svg", "sweep-token-compliance.png"] {
        assert!(counted.join("charts").join(chart).is_file(), "{chart}");
    }
    let page = fs::read_to_string(counted.join("index.html")).unwrap();
    assert!(page.contains("<th>units per token</th><th>within token budget</th>"));
    assert!(page.contains("charts/sweep-token-compliance.svg"));
    // A budget sweep has no window to take a share of.
    let refused = tmp.path().join("refused");
    expect_bad_input(
        &with(
            &[
                "sweep",
                "--scenario",
                "cjk-heavy",
                "--budgets",
                "1000..4000",
                "--out",
                refused.to_str().unwrap(),
            ],
            &TOKENS,
        ),
        &["no budget of this sweep has a window"],
    );
    assert!(!refused.exists());
}

/// A small token run of two scenarios (a 16k window of mixed output and CJK output at five budgets).
fn token_run(out: &Path, extra: &[&str]) {
    budgetlab()
        .args([
            "run",
            "--scenarios",
            "small-window",
            "cjk-heavy",
            "--strategies",
            "reference,window-relative",
            "--batches",
            "3",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .assert()
        .success();
}

/// The cost columns of batches.csv, the only ones that differ between runs.
const COST_COLUMNS: [&str; 3] = ["cost_ns", "strategy_ns", "floor_ns"];

/// batches.csv as its header and records (cells by column name).
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<(String, String)>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let records = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .cloned()
                .zip(r.iter().map(String::from))
                .collect()
        })
        .collect();
    (header, records)
}

fn cell<'a>(record: &'a [(String, String)], column: &str) -> &'a str {
    &record.iter().find(|(c, _)| c == column).unwrap().1
}

#[test]
fn batches_csv_and_summary_md_gain_token_columns_that_agree_with_the_records() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, counted) = (tmp.path().join("plain"), tmp.path().join("tokens"));
    token_run(&plain, &[]);
    token_run(&counted, &TOKENS);
    let (plain_header, plain_rows) = read_csv(&plain.join("batches.csv"));
    let (header, rows) = read_csv(&counted.join("batches.csv"));
    let added = [
        "tokens",
        "units_per_token",
        "token_budget",
        "within_token_budget",
        "token_overshoot",
    ];
    assert!(plain_header.iter().all(|c| !added.contains(&c.as_str())));
    assert_eq!(header[..plain_header.len()], plain_header[..]);
    assert_eq!(header[plain_header.len()..], added.map(String::from));
    let records: Vec<Value> = fs::read_to_string(counted.join("batches.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), records.len());
    assert_eq!(rows.len(), (1 + 5) * 2 * 3);
    let mut checked = (0, 0);
    for ((row, record), plain_row) in rows.iter().zip(&records).zip(&plain_rows) {
        // Every column the plain run has holds the same cell, but for the times.
        for (column, value) in plain_row {
            if !COST_COLUMNS.contains(&column.as_str()) {
                assert_eq!(cell(row, column), value, "{column}");
            }
        }
        let t = &record["metrics"]["tokens"];
        let tokens = t["tokens"].as_u64().unwrap();
        assert_eq!(cell(row, "scenario"), record["scenario"]);
        assert_eq!(cell(row, "batch"), record["metrics"]["batch"].to_string());
        assert_eq!(cell(row, "tokens"), tokens.to_string());
        assert_eq!(
            cell(row, "units_per_token"),
            format!("{:.6}", t["units"].as_f64().unwrap() / tokens as f64)
        );
        let label = record["budgetLabel"].as_str().unwrap();
        match label.strip_prefix("window-") {
            Some(window) => {
                let budget = window.parse::<u64>().unwrap() / 10;
                assert_eq!(cell(row, "token_budget"), budget.to_string());
                assert_eq!(
                    cell(row, "within_token_budget"),
                    (tokens <= budget).to_string()
                );
                assert_eq!(
                    cell(row, "token_overshoot"),
                    tokens.saturating_sub(budget).to_string()
                );
                checked.0 += 1;
                checked.1 += usize::from(tokens > budget);
            }
            None => {
                for column in ["token_budget", "within_token_budget", "token_overshoot"] {
                    assert_eq!(cell(row, column), "", "{label} {column}");
                }
            }
        }
    }
    // Both kinds of verdict are there: CJK output at a 16k window is over 10% of it in tokens.
    assert!(checked.0 > 0 && checked.1 > 0, "{checked:?}");

    // summary.md: two more columns, each row's read from results.json.
    let results = read_json(&counted.join("results.json"));
    let summary = fs::read_to_string(counted.join("summary.md")).unwrap();
    let plain_summary = fs::read_to_string(plain.join("summary.md")).unwrap();
    assert!(!plain_summary.contains("per token"));
    assert!(summary.contains(
        "| cost / floor | units per token | within token budget | lead over the next |\n"
    ));
    let mut table_rows = 0;
    // The answer's and the trade-offs' sections first, then one per scenario and budget (`scenario · budget`).
    let per_budget = summary.split("\n## ").skip(1).filter_map(|section| {
        let title = section.lines().next().unwrap();
        Some((section, title.split_once(" · ")?))
    });
    for (section, (scenario, rest)) in per_budget {
        let label = rest.split_once(' ').unwrap().0;
        for line in section
            .lines()
            .filter(|l| l.contains(" | reference |") || l.contains(" | window-relative |"))
        {
            // The rank, then the strategy.
            let cells: Vec<&str> = line
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .skip(1)
                .collect();
            let row = results["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| {
                    r["scenario"] == scenario
                        && r["budgetLabel"] == label
                        && r["strategy"] == cells[0]
                })
                .unwrap();
            let t = &row["tokens"];
            assert_eq!(cells.len(), 15, "{line}");
            assert_eq!(
                cells[12],
                format!("{:.2}", t["unitsPerToken"].as_f64().unwrap())
            );
            let compliance = match t["compliance"]["rate"].as_f64() {
                Some(rate) => format!("{:.1}%", rate * 100.0),
                None => "–".to_string(),
            };
            assert_eq!(cells[13], compliance, "{scenario} {label}");
            table_rows += 1;
        }
    }
    assert_eq!(table_rows, (1 + 5) * 2);
}

/// A token run's folder with `edit` applied to its results.json.
fn edited(from: &Path, to: &Path, edit: &dyn Fn(&mut Value)) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    let mut results = read_json(&to.join("results.json"));
    edit(&mut results);
    fs::write(
        to.join("results.json"),
        serde_json::to_vec_pretty(&results).unwrap(),
    )
    .unwrap();
}

/// The first row of `scenario`, `budget`, `strategy` of results.json.
fn row_mut<'a>(results: &'a mut Value, budget: &str, strategy: &str) -> &'a mut Value {
    results["rows"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| {
            r["scenario"] == "cjk-heavy" && r["budgetLabel"] == budget && r["strategy"] == strategy
        })
        .unwrap()
}

#[test]
fn edited_token_figures_are_refused_by_every_reader_of_results() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    token_run(&dir("s0"), &with(&TOKENS, &["--shard", "0/2"]));
    token_run(&dir("s1"), &with(&TOKENS, &["--shard", "1/2"]));
    // The untouched shards merge.
    budgetlab()
        .args(["merge", "--out"])
        .arg(dir("merged"))
        .args([dir("s0"), dir("s1")])
        .assert()
        .success();
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Edit, Vec<&str>)> = vec![
        (
            "a token count changed",
            Box::new(|r| {
                let t = &mut row_mut(r, "window-16000", "reference")["tokens"];
                t["tokens"] = (t["tokens"].as_u64().unwrap() + 1).into();
            }),
            vec![
                "strategy reference",
                "tokens.unitsPerToken is not tokens.units over tokens.tokens",
            ],
        ),
        (
            "a token count changed with its ratio",
            Box::new(|r| {
                let t = &mut row_mut(r, "window-16000", "reference")["tokens"];
                let tokens = t["tokens"].as_u64().unwrap() + 1;
                t["tokens"] = tokens.into();
                t["unitsPerToken"] = (t["units"].as_f64().unwrap() / tokens as f64).into();
            }),
            vec!["strategy reference", "tokens.byKind: the kinds do not add up"],
        ),
        (
            "a kind's p10 above its p90",
            Box::new(|r| {
                let kinds = &mut row_mut(r, "window-16000", "reference")["tokens"]["byKind"];
                let k = kinds.as_object_mut().unwrap().values_mut().next().unwrap();
                k["p10"] = (k["p90"].as_f64().unwrap() + 0.5).into();
            }),
            vec!["budget window-16000", "p10 is more than p90"],
        ),
        (
            "a compliance above 1",
            Box::new(|r| {
                row_mut(r, "window-16000", "reference")["tokens"]["compliance"]["rate"] = 1.5.into();
            }),
            vec!["tokens.compliance.rate is 1.5"],
        ),
        (
            "a compliance below 0",
            Box::new(|r| {
                row_mut(r, "window-16000", "window-relative")["tokens"]["compliance"]["rate"] = (-0.25).into();
            }),
            vec!["strategy window-relative", "tokens.compliance.rate is -0.25"],
        ),
        (
            "a negative count",
            Box::new(|r| {
                row_mut(r, "window-16000", "reference")["tokens"]["p99Tokens"] = (-3).into();
            }),
            vec!["results.json", "tokens.p99Tokens"],
        ),
        (
            "a token budget not the run's",
            Box::new(|r| {
                let t = &mut row_mut(r, "window-16000", "reference")["tokens"];
                // The overshoot follows, so that only the budget disagrees with the run's.
                let p99 = t["p99Tokens"].as_u64().unwrap().saturating_sub(1700);
                t["compliance"]["budget"] = 1700.into();
                t["compliance"]["p99Overshoot"] = p99.into();
            }),
            vec!["tokens.compliance.budget is 1700, but the run's token budget at this budget is 1600"],
        ),
        (
            "a window leak at the wrong limit",
            Box::new(|r| {
                row_mut(r, "window-16000", "window-relative")["tokens"]["windowLeak"]["limitTokens"] = 1500.into();
            }),
            vec!["tokens.windowLeak.limitTokens is 1500"],
        ),
    ];
    for (i, (what, edit, needles)) in cases.iter().enumerate() {
        let bad = dir(&format!("bad-{i}"));
        edited(&dir("s0"), &bad, edit.as_ref());
        let bad_results = bad.join("results.json");
        let good_results = dir("s0").join("results.json");
        let merged = dir(&format!("merged-{i}"));
        let (s0, s1) = (dir("s0"), dir("s1"));
        let readers: Vec<Vec<&str>> = vec![
            vec!["report", bad.to_str().unwrap()],
            vec![
                "check",
                "--baseline",
                good_results.to_str().unwrap(),
                "--current",
                bad.to_str().unwrap(),
            ],
            vec![
                "check",
                "--baseline",
                bad_results.to_str().unwrap(),
                "--current",
                s0.to_str().unwrap(),
            ],
            vec![
                "compare",
                bad_results.to_str().unwrap(),
                good_results.to_str().unwrap(),
            ],
            vec![
                "merge",
                "--out",
                merged.to_str().unwrap(),
                bad.to_str().unwrap(),
                s1.to_str().unwrap(),
            ],
        ];
        for args in &readers {
            let out = budgetlab().args(args).output().unwrap();
            let err = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(2), "{what}: {args:?}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
            assert!(!err.contains("panicked"), "{err}");
            for needle in needles {
                assert!(
                    err.contains(needle),
                    "{what}: {args:?}: {err:?} lacks {needle:?}"
                );
            }
        }
        assert!(!merged.exists(), "{what}: a refused merge wrote its folder");
        assert!(
            !bad.join("charts").exists(),
            "{what}: a refused report drew its charts"
        );
    }
}
