//! `run --tokenizer ... --token-budget ...` end to end (issue 14): the token figures a run writes, that they are
//! the same on any thread count and in merged shards, that a run without `--tokenizer` writes none of them, and
//! that bad flags and mismatched shards are refused with exit 2.

use crate::support::{records_without_cost, results_without_cost};
use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// A small run with tokens: a 16k window of mixed output and of CJK output, two strategies, 5 batches.
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
            "5",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .assert()
        .success();
}

const TOKENS: [&str; 4] = ["--tokenizer", "o200k_base", "--token-budget", "10%"];

fn row<'a>(results: &'a Value, scenario: &str, budget: &str, strategy: &str) -> &'a Value {
    results["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["scenario"] == scenario && r["budgetLabel"] == budget && r["strategy"] == strategy
        })
        .unwrap_or_else(|| panic!("no row {scenario} {budget} {strategy}"))
}

#[test]
fn a_token_run_writes_the_token_figures_and_repeats_on_any_thread_count_and_shard() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    let mut two = TOKENS.to_vec();
    two.extend(["--threads", "2"]);
    token_run(&dir("whole"), &two);
    let mut one = TOKENS.to_vec();
    one.extend(["--threads", "1"]);
    token_run(&dir("one-thread"), &one);
    for i in 0..2 {
        let mut shard = TOKENS.to_vec();
        let spec = format!("{i}/2");
        shard.extend(["--shard", &spec]);
        token_run(&dir(&format!("shard-{i}")), &shard);
    }
    budgetlab()
        .args(["merge", "--out"])
        .arg(dir("merged"))
        .args([dir("shard-1"), dir("shard-0")])
        .assert()
        .success();

    let whole = results_without_cost(&dir("whole"));
    let records = records_without_cost(&dir("whole"));
    for other in ["one-thread", "merged"] {
        assert!(
            results_without_cost(&dir(other)) == whole,
            "{other}: results.json differs beyond the cost"
        );
        assert!(
            records_without_cost(&dir(other)) == records,
            "{other}: batches.jsonl differs beyond the cost"
        );
    }

    assert_eq!(
        whole["inputs"]["tokens"],
        serde_json::json!({"tokenizer": "o200k_base", "tokenBudget": "10%"})
    );
    // Every turn records its tokens beside its units, over the same fields.
    // small-window has one budget, cjk-heavy five; two strategies; five batches.
    assert_eq!(records.len(), (1 + 5) * 2 * 5);
    for r in &records {
        let t = &r["metrics"]["tokens"];
        assert_eq!(t["units"], r["metrics"]["finalTotal"], "{r}");
        let tokens = t["tokens"].as_u64().unwrap();
        assert!(tokens > 0 && tokens <= t["units"].as_u64().unwrap(), "{t}");
        let by_kind: u64 = t["byKind"]
            .as_object()
            .unwrap()
            .values()
            .map(|k| k["tokens"].as_u64().unwrap())
            .sum();
        assert_eq!(by_kind, tokens);
    }
    for r in whole["rows"].as_array().unwrap() {
        let t = &r["tokens"];
        let label = r["budgetLabel"].as_str().unwrap();
        let window = label
            .strip_prefix("window-")
            .map(|w| w.parse::<u64>().unwrap());
        // 10% of the window for window budgets; an absolute budget has no window, so no token compliance.
        match window {
            Some(w) => assert_eq!(t["compliance"]["budget"].as_u64(), Some(w / 10), "{r}"),
            None => assert!(t.get("compliance").is_none(), "{r}"),
        }
        let leak = window.is_some() && r["strategy"] == "window-relative";
        assert_eq!(
            t.get("windowLeak").is_some(),
            leak,
            "{label} {}",
            r["strategy"]
        );
        let upt = t["unitsPerToken"].as_f64().unwrap();
        let expected = t["units"].as_f64().unwrap() / t["tokens"].as_f64().unwrap();
        assert_eq!(upt, expected);
        for (kind, k) in t["byKind"].as_object().unwrap() {
            if let (Some(p10), Some(p90)) = (k["p10"].as_f64(), k["p90"].as_f64()) {
                assert!(p10 <= p90, "{kind}: {k}");
            }
        }
    }
    // CJK text is about 2 units per token: the reference keeps the 16k window's 4,800 units in every turn, but
    // that is more than 1,600 tokens (10% of the window) in most of them.
    let cjk = row(&whole, "cjk-heavy", "window-16000", "reference");
    assert_eq!(cjk["compliance"]["rate"], 1.0);
    assert!(
        cjk["tokens"]["compliance"]["rate"].as_f64().unwrap() < 0.5,
        "{cjk}"
    );
    assert!(cjk["tokens"]["unitsPerToken"].as_f64().unwrap() < 2.5);
    let mixed = row(&whole, "small-window", "window-16000", "reference");
    assert!(mixed["tokens"]["unitsPerToken"].as_f64().unwrap() > 3.0);
    let leak = &row(&whole, "cjk-heavy", "window-16000", "window-relative")["tokens"]["windowLeak"];
    assert_eq!(leak["limitTokens"], 1600);
    // From the turns: with 5 turns the nearest-rank p99 is the largest result's tokens over 1,600.
    let fields: Vec<u64> = records
        .iter()
        .filter(|r| {
            r["scenario"] == "cjk-heavy"
                && r["budgetLabel"] == "window-16000"
                && r["strategy"] == "window-relative"
        })
        .map(|r| r["metrics"]["tokens"]["maxFieldTokens"].as_u64().unwrap())
        .collect();
    assert_eq!(fields.len(), 5);
    let over = fields.iter().filter(|&&f| f > 1600).count() as u64;
    assert_eq!(leak["turns"].as_u64(), Some(over));
    assert_eq!(leak["share"].as_f64(), Some(over as f64 / 5.0));
    let largest = *fields.iter().max().unwrap() as f64 / 1600.0;
    // The row keeps the ratios in thousandths in a histogram of 3 significant digits (exact below 2,048).
    let kept = budgetlab::metrics::LogHistogram::bucket((largest * 1000.0).round() as u64);
    assert_eq!(leak["p99Ratio"].as_f64(), Some(kept as f64 / 1000.0));
    assert!((largest - kept as f64 / 1000.0).abs() <= largest / 1000.0 + 0.0005);
    // The threshold (4,800 units) passes a result of at most 4,800 tokens: 3x the limit.
    assert!(largest > 0.0 && largest <= 3.0, "{leak}");
    // The charts a token run adds.
    for chart in ["units-per-token.svg", "token-compliance.svg"] {
        assert!(dir("whole").join("charts").join(chart).is_file(), "{chart}");
    }
}

#[test]
fn without_a_tokenizer_nothing_is_counted_and_nothing_else_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    token_run(&dir("plain"), &[]);
    token_run(&dir("tokens"), &TOKENS);
    let plain = results_without_cost(&dir("plain"));
    assert!(!fs::read_to_string(dir("plain").join("results.json"))
        .unwrap()
        .contains("\"tokens\""));
    assert!(!fs::read_to_string(dir("plain").join("batches.jsonl"))
        .unwrap()
        .contains("\"tokens\""));
    assert!(!dir("plain").join("charts/units-per-token.svg").exists());
    let mut tokens = results_without_cost(&dir("tokens"));
    tokens["inputs"]
        .as_object_mut()
        .unwrap()
        .remove("tokens")
        .unwrap();
    for row in tokens["rows"].as_array_mut().unwrap() {
        row.as_object_mut().unwrap().remove("tokens").unwrap();
    }
    assert!(
        plain == tokens,
        "the token run differs beyond its token figures"
    );
    let mut records = records_without_cost(&dir("tokens"));
    for r in &mut records {
        r["metrics"]
            .as_object_mut()
            .unwrap()
            .remove("tokens")
            .unwrap();
    }
    assert!(records == records_without_cost(&dir("plain")));
}

/// Runs the binary expecting bad input: exit 2, one line on stderr containing `needle`.
fn expect_bad_input(args: &[&str], needle: &str) {
    let out = budgetlab().args(args).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_token_flags_and_mismatched_shards_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let out = out.to_str().unwrap();
    let base = [
        "run",
        "--quick",
        "--scenarios",
        "small-window",
        "--out",
        out,
    ];
    let with = |extra: &[&'static str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        a
    };
    expect_bad_input(
        &with(&["--tokenizer", "o200k_base", "--token-budget", "0%"]),
        "invalid --token-budget \"0%\": a share of the window is a whole percentage, 1% to 100%",
    );
    expect_bad_input(
        &with(&["--tokenizer", "no/such/rank-file"]),
        "invalid --tokenizer \"no/such/rank-file\": not o200k_base, not cl100k_base, and no such file",
    );
    expect_bad_input(&with(&["--token-budget", "10%"]), "--tokenizer");
    assert!(!Path::new(out).exists(), "a refused run wrote its folder");

    let dir = |name: &str| tmp.path().join(name);
    token_run(&dir("s0"), &["--shard", "0/2", "--tokenizer", "o200k_base"]);
    token_run(
        &dir("s1"),
        &["--shard", "1/2", "--tokenizer", "cl100k_base"],
    );
    let merged = dir("merged");
    let s0 = dir("s0");
    let s1 = dir("s1");
    expect_bad_input(
        &[
            "merge",
            "--out",
            merged.to_str().unwrap(),
            s0.to_str().unwrap(),
            s1.to_str().unwrap(),
        ],
        "tokenizer cl100k_base vs tokenizer o200k_base",
    );
}
