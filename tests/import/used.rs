//! The used lines of an import, on one hand-written session in each of the seven formats
//! (`tests/fixtures/used/`, written by its `make.py`): the path `find_file` printed in the middle of a long
//! output with CRLF line ends and ANSI colours is the one used line of that result; the path the task named, the
//! two-digit id and the path named only five turns later are not. Then the file beside `--out`, its reading back
//! against the batches, `--used-turns`, a session without agent text, and nothing written on failure.

use super::*;
use budgetlab::needles::{read_used_file, UsedRead, UsedRules};

const FORMATS: [&str; 7] = [
    "claude-code",
    "codex",
    "gemini-cli",
    "qwen-code",
    "swe-agent",
    "mini-swe-agent",
    "openhands",
];
const USED_LINE: &str = "\x1b[32m/srv/app/ledger/export_v2.py\x1b[0m";

fn used_fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/used")
        .join(rel)
}

/// Imports the used-lines fixture of `format` with `rules`: the batches' bytes and the used-lines file's.
fn import_used(format: &str, rules: UsedRules) -> (Vec<u8>, Vec<u8>, ImportReport) {
    let job = ImportJob {
        format: format.parse().unwrap(),
        paths: vec![used_fixture(format)],
        anonymize: None,
        skip_bad: false,
        used: rules,
    };
    let (mut out, mut used) = (Vec::new(), Vec::new());
    let report = job
        .write_with_used(&mut out, Some(&mut used), Some("used"), "memory", None)
        .unwrap();
    (out, used, report)
}

/// The used needles' texts of each batch.
fn needles(out: &[u8], used: &[u8]) -> Vec<Option<Vec<String>>> {
    let batches: Vec<budgetlab::Batch> = std::str::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| {
            budgetlab::parse_batch_line(l.as_bytes(), "b")
                .unwrap()
                .entries
        })
        .collect();
    let sha = budgetlab::digest::sha256_hex(out);
    match read_used_file(used, "used", &batches, &sha).unwrap() {
        UsedRead::Found(_, needles) => needles
            .into_iter()
            .map(|b| {
                b.map(|n| {
                    n.into_iter()
                        .filter(|n| n.kind == budgetlab::needles::NeedleKind::Used)
                        .map(|n| n.text)
                        .collect()
                })
            })
            .collect(),
        UsedRead::Stale => panic!("the file names other batches"),
    }
}

#[test]
fn every_format_gives_the_path_find_file_printed_and_the_next_call_opens_as_a_used_needle() {
    for format in FORMATS {
        let (out, used, report) = import_used(format, UsedRules::default());
        let got = needles(&out, &used);
        assert_eq!(got.len(), 6, "{format}");
        // The first result: only the path the agent opened next (not the task's path, not `42`, not the path
        // named five turns later), the whole raw line without its `\r`.
        assert_eq!(
            got[0],
            Some(vec![USED_LINE.to_string()]),
            "{format}: {}",
            String::from_utf8_lossy(&used)
        );
        // The second: `rows`, first seen there and written into the edit of the next turn, on both lines that
        // hold it.
        assert_eq!(
            got[1],
            Some(vec![
                "def export_rows(rows):".to_string(),
                "    return rows[:-1]".to_string()
            ]),
            "{format}"
        );
        assert!(got[2..].iter().all(|b| b == &Some(vec![])), "{format}");
        let tally = &report.used[format];
        assert_eq!(
            (
                tally.sessions,
                tally.unmeasured,
                tally.results,
                tally.results_used,
                tally.lines
            ),
            (1, 0, 6, 2, 3),
            "{format}"
        );
        // The used line sits in the middle: 14 lines before it (16 with mini-swe-agent's wrapper).
        let text: Value =
            serde_json::from_str(std::str::from_utf8(&out).unwrap().lines().next().unwrap())
                .unwrap();
        let output = text["entries"][0]["responseParts"][0]["functionResponse"]["response"]
            ["output"]
            .as_str()
            .unwrap();
        let before = output.find(USED_LINE).unwrap();
        assert_eq!(output[..before].matches("\r\n").count(), 14, "{format}");
        let span: Value =
            serde_json::from_str(std::str::from_utf8(&used).unwrap().lines().nth(1).unwrap())
                .unwrap();
        assert_eq!(
            span["lines"][0]["offset"],
            json!(utf16_len(&output[..before])),
            "{format}"
        );
        assert_eq!(
            span["tokens"][0]["offsets"],
            json!([utf16_len(&output[..before]) + "\x1b[32m/".len()]),
            "{format}"
        );
        assert_eq!(
            span["lines"][0]["tokens"][0],
            json!("srv/app/ledger/export_v2.py"),
            "{format}"
        );
    }
}

#[test]
fn a_use_five_turns_later_counts_only_with_a_wider_window() {
    // The path is named in the fifth model turn after the result.
    let (out, used, _) = import_used("claude-code", UsedRules::new(4, 4).unwrap());
    assert_eq!(needles(&out, &used)[0], Some(vec![USED_LINE.to_string()]));
    let (out, used, _) = import_used("claude-code", UsedRules::new(5, 4).unwrap());
    let got = needles(&out, &used);
    assert_eq!(
        got[0],
        Some(vec![
            USED_LINE.to_string(),
            "archive/old_rows_exporter.py".to_string()
        ])
    );
    // With tokens of two characters, `42` is distinctive and new: its line is used too.
    let (out, used, _) = import_used("swe-agent", UsedRules::new(3, 2).unwrap());
    let got = needles(&out, &used);
    assert_eq!(
        got[0],
        Some(vec![USED_LINE.to_string(), "id: 42".to_string()])
    );
}

#[test]
fn the_cli_writes_the_used_lines_beside_the_batches_and_says_what_it_found() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("swe.jsonl");
    let out = Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["import", "--format", "swe-agent"])
        .arg(used_fixture("swe-agent"))
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("used tokens and lines (next 3 turns, tokens of 4+ characters) to ")
            && err.contains("swe-agent: 2 used tokens on 3 lines in 2 of 6 results"),
        "{err}"
    );
    let used = std::fs::read(dir.path().join("swe.used.jsonl")).unwrap();
    let batches = std::fs::read(&out_path).unwrap();
    assert_eq!(
        needles(&batches, &used)[0],
        Some(vec![USED_LINE.to_string()])
    );
    // The batches are exactly what an import without the used-lines pass writes.
    let (plain, _) = {
        let job = ImportJob {
            format: "swe-agent".parse().unwrap(),
            paths: vec![used_fixture("swe-agent")],
            anonymize: None,
            skip_bad: false,
            used: UsedRules::default(),
        };
        let mut o = Vec::new();
        let r = job.write(&mut o, "memory", None).unwrap();
        (o, r)
    };
    assert_eq!(batches, plain);

    // Bad flags are refused, and nothing is written.
    let refused = Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["import", "--format", "swe-agent", "--used-turns", "0"])
        .arg(used_fixture("swe-agent"))
        .arg("--out")
        .arg(dir.path().join("x.jsonl"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--used-turns"));
    assert!(!dir.path().join("x.jsonl").exists() && !dir.path().join("x.used.jsonl").exists());
}

#[test]
fn a_session_recording_no_agent_text_is_not_measured_and_said_once() {
    // The gemini-cli fixtures: one conversation has no text, thoughts or arguments at all.
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("g.jsonl");
    let out = Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["import", "--format", "gemini-cli"])
        .arg(fixture("gemini-cli"))
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err.matches("record no assistant message, thought or call arguments")
            .count(),
        1,
        "{err}"
    );
    let used = std::fs::read_to_string(dir.path().join("g.used.jsonl")).unwrap();
    assert!(used.lines().skip(1).any(|l| l == "null"), "{used}");
}

#[test]
fn a_failed_import_writes_neither_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.traj"),
        "{\"history\": 3, \"trajectory\": []}",
    )
    .unwrap();
    let out_path = dir.path().join("o.jsonl");
    let out = Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["import", "--format", "swe-agent"])
        .arg(dir.path().join("bad.traj"))
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "only the input is left"
    );
}

#[test]
fn a_used_lines_file_of_other_batches_is_stale_and_a_span_outside_its_text_is_refused() {
    let (out, used, _) = import_used("codex", UsedRules::default());
    let batches: Vec<budgetlab::Batch> = std::str::from_utf8(&out)
        .unwrap()
        .lines()
        .map(|l| {
            budgetlab::parse_batch_line(l.as_bytes(), "b")
                .unwrap()
                .entries
        })
        .collect();
    assert_eq!(
        read_used_file(&used, "u", &batches, &"0".repeat(64)).unwrap(),
        UsedRead::Stale
    );
    let sha = budgetlab::digest::sha256_hex(&out);
    let text = String::from_utf8(used).unwrap();
    let broken = text.replacen("\"offset\":440", "\"offset\":99999", 1);
    let e = read_used_file(broken.as_bytes(), "u", &batches, &sha)
        .unwrap_err()
        .to_string();
    assert!(e.contains("u:2") && e.contains("outside its text"), "{e}");
    let short: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    let e = read_used_file(short.as_bytes(), "u", &batches, &sha)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("2 lines of used lines (header: 6) for 6 batches"),
        "{e}"
    );
}

#[test]
fn run_on_imported_sessions_measures_used_needles_apart_from_the_detectors() {
    let dir = tempfile::tempdir().unwrap();
    let batches = dir.path().join("all.jsonl");
    let import = Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["import", "--format", "auto"])
        .arg(used_fixture(""))
        .arg("--out")
        .arg(&batches)
        .output()
        .unwrap();
    assert_eq!(import.status.code(), Some(0));
    let report = dir.path().join("report");
    let run = Command::cargo_bin("budgetlab")
        .unwrap()
        .args([
            "run",
            "--verbose",
            "--strategies",
            "reference",
            "--budgets",
            "300,20000",
            "--threads",
            "1",
            "--batches-file",
        ])
        .arg(&batches)
        .arg("--out")
        .arg(&report)
        .output()
        .unwrap();
    let err = String::from_utf8(run.stderr).unwrap();
    assert_eq!(run.status.code(), Some(0), "{err}");
    assert!(
        err.contains("budgetlab: used needles reference at abs-20000: 21 of 21 kept (100.0%; any allocation: at most 21)"),
        "{err}"
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("results.json")).unwrap())
            .unwrap();
    let rows = results["rows"].as_array().unwrap();
    let at = |units: u64| rows.iter().find(|r| r["budget"] == json!(units)).unwrap();
    let tight = &at(300)["usedNeedles"];
    assert_eq!(tight["needles"], json!(21));
    let (kept, bound) = (
        tight["survived"].as_u64().unwrap(),
        tight["upperBound"].as_u64().unwrap(),
    );
    assert!(kept < 21 && kept <= bound && bound <= 21, "{tight}");
    assert_eq!(at(300)["summary"]["usedNeedles"], json!(21));
    // The used tokens, led by the turns longer than the budget: all 7 of the 7 results there, none kept.
    assert!(
        err.contains("budgetlab: used tokens reference at abs-300: over budget 0 of 7 kept (0.0%, 7 results; any allocation: at most 0); all turns 7 of 14 kept (50.0%)"),
        "{err}"
    );
    // The detector's needles are not pooled with them.
    let planted: u64 = at(20000)["summary"]["needles"]
        .as_object()
        .unwrap()
        .values()
        .map(|k| k["planted"].as_u64().unwrap())
        .sum();
    assert!(
        planted > 0
            && !at(20000)["summary"]["needles"]
                .as_object()
                .unwrap()
                .contains_key("used")
    );
    let csv = std::fs::read_to_string(report.join("batches.csv")).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .contains(",used_needles,used_survived,used_upper_bound,"));

    // The same batches without their used-lines file: no used figure, rather than zero.
    std::fs::remove_file(dir.path().join("all.used.jsonl")).unwrap();
    let again = dir.path().join("again");
    let run = Command::cargo_bin("budgetlab")
        .unwrap()
        .args([
            "run",
            "--strategies",
            "reference",
            "--budgets",
            "300",
            "--batches-file",
        ])
        .arg(&batches)
        .arg("--out")
        .arg(&again)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(again.join("results.json")).unwrap())
            .unwrap();
    assert!(results["rows"][0].get("usedNeedles").is_none());
}

#[test]
fn needles_agreement_compares_used_lines_with_the_detector() {
    let dir = tempfile::tempdir().unwrap();
    let batches = dir.path().join("fx.jsonl");
    let import = Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["import", "--format", "auto"])
        .arg(used_fixture(""))
        .arg("--out")
        .arg(&batches)
        .output()
        .unwrap();
    assert_eq!(import.status.code(), Some(0));
    let out = Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["needles", "agreement", "--json"])
        .arg(&batches)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    // 7 sessions of 6 results: 2 used tokens on 3 used lines each, none of them an exit, error, summary or
    // JSON-key line; no result is longer than the default budget.
    assert_eq!(
        (got["batches"].clone(), got["unmeasured"].clone()),
        (json!(42), json!(0))
    );
    assert_eq!(got["all"]["used"], json!(21));
    assert_eq!(got["all"]["tokens"], json!(14));
    assert_eq!(got["overBudget"]["results"], json!(0));
    assert_eq!(got["all"]["usedFlagged"], json!(0));
    assert_eq!(got["all"]["usedFlaggedShare"], json!(0.0));
    assert_eq!(got["byTool"]["find_file"]["used"], json!(4));
    let markdown = Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["needles", "agreement"])
        .arg(&batches)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&markdown.stdout)
        .contains("| all | 42 | 14 | 0 (0.0%) | 21 | 0 (0.0%) | 18 | 0 (0.0%) |"));
    // Without the used lines: exit 2, one line naming the file.
    std::fs::remove_file(dir.path().join("fx.used.jsonl")).unwrap();
    let missing = Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["needles", "agreement"])
        .arg(&batches)
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("fx.used.jsonl"));
}

#[test]
fn the_report_of_imported_sessions_ranks_strategies_by_the_lines_the_agent_used() {
    let dir = tempfile::tempdir().unwrap();
    let batches = dir.path().join("all.jsonl");
    // Sessions of every format: the import fixtures and the used-lines ones.
    let import = Command::cargo_bin("budgetlab")
        .unwrap()
        .args(["import", "--format", "auto"])
        .arg(fixture(""))
        .arg(used_fixture(""))
        .arg("--out")
        .arg(&batches)
        .output()
        .unwrap();
    assert_eq!(import.status.code(), Some(0));
    let run = |out: &Path| {
        let run = Command::cargo_bin("budgetlab")
            .unwrap()
            .args([
                "run",
                "--strategies",
                "reference,greedy,proportional,uniform",
                "--budgets",
                "40,20000",
                "--threads",
                "1",
                "--batches-file",
            ])
            .arg(&batches)
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
    };
    let report = dir.path().join("report");
    run(&report);
    let read = |name: &str| std::fs::read_to_string(report.join(name)).unwrap();

    // summary.md: a place a line, best first, ties sharing a rank, the bound beside each.
    let summary = read("summary.md");
    assert!(
        summary.contains(
            "## Needles the agent used\n\n\
| workload | budget (units) | rank | strategies | used tokens kept, turns over budget (n) | share kept over budget | share kept, all turns | upper bound over budget (any allocation) | share of the bound | used lines kept (over budget / all) |\n\
|---|---|---:|---|---:|---:|---:|---:|---:|---:|\n\
| all | 40 | 1 | reference, uniform | 1 of 19 (72 results) | 5.3% | 14.3% | 9 (47.4%) | 11.1% | 1 of 26 / 3 of 28 |\n\
|  |  | 3 | greedy, proportional | 0 of 19 (72 results) | 0% | 9.5% | 9 (47.4%) | 0% | 0 of 26 / 2 of 28 |\n\
|  | 20,000 | 1 | greedy, proportional, reference, uniform | – | – | 100% | – | – | – / 28 of 28 |\n\n"
        ),
        "{summary}"
    );

    // results.json: the same ranking, strategy by strategy.
    let results: Value = serde_json::from_str(&read("results.json")).unwrap();
    let ranking = results["usedRanking"].as_array().unwrap();
    assert_eq!(ranking.len(), 2);
    assert_eq!(
        (&ranking[0]["scenario"], &ranking[0]["units"]),
        (&json!("all"), &json!(40))
    );
    let places: Vec<(Value, &str, u64, u64)> = ranking[0]["places"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["rank"].clone(),
                p["strategy"].as_str().unwrap(),
                p["tokens"]["survived"].as_u64().unwrap(),
                p["tokens"]["upperBound"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        places,
        [
            (json!(1), "reference", 3, 11),
            (json!(1), "uniform", 3, 11),
            (json!(3), "greedy", 2, 11),
            (json!(3), "proportional", 2, 11),
        ]
    );

    // index.html: the section after the trade-offs, and the chart naming every strategy.
    let page = read("index.html");
    let (pareto, used, inputs) = (
        page.find("<h2 id=\"pareto\">").unwrap(),
        page.find("<h2 id=\"used\">Needles the agent used</h2>")
            .unwrap(),
        page.find("<h2 id=\"inputs\">").unwrap(),
    );
    assert!(pareto < used && used < inputs);
    assert!(page[used..inputs].contains(
        "<td class=\"text\">reference, uniform</td><td>1 of 19 (72 results)</td><td>5.3%</td><td>14.3%</td><td>9 (47.4%)</td>\
<td>11.1%</td><td>1 of 26 / 3 of 28</td>"
    ));
    assert!(page.contains("<figure id=\"chart-used-needles\">"));
    assert!(page[used..inputs].contains("<a href=\"#chart-used-needles\">"));
    let svg = read("charts/used-needles.svg");
    for name in ["reference", "greedy", "proportional", "uniform"] {
        assert!(svg.contains(&format!(">\n{name}\n</text>")), "{name}");
    }
    assert!(svg.contains("28 used lines · any allocation: at most 35.7%"));
    assert!(report.join("charts/used-needles.png").is_file());

    // A results.json without the ranking (an earlier version 7 file) redraws the same page: it is made again
    // from the rows.
    let mut bare = results.clone();
    bare.as_object_mut().unwrap().remove("usedRanking");
    std::fs::write(
        report.join("results.json"),
        serde_json::to_string_pretty(&bare).unwrap(),
    )
    .unwrap();
    std::fs::remove_file(report.join("index.html")).unwrap();
    Command::cargo_bin("budgetlab")
        .unwrap()
        .arg("report")
        .arg(&report)
        .assert()
        .success();
    assert_eq!(read("index.html"), page);

    // The same batches without their used-lines file: no section, no chart, no ranking; never zeros.
    std::fs::remove_file(dir.path().join("all.used.jsonl")).unwrap();
    let again = dir.path().join("again");
    run(&again);
    let read = |name: &str| std::fs::read_to_string(again.join(name)).unwrap();
    assert!(!read("summary.md").contains("agent used"));
    assert!(!read("index.html").contains("agent used"));
    assert!(!again.join("charts/used-needles.svg").exists());
    let results: Value = serde_json::from_str(&read("results.json")).unwrap();
    assert!(results.get("usedRanking").is_none());
}
