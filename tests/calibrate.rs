//! `budgetlab calibrate` end to end: a corpus generated from a shipped scenario the fit was never tuned on is
//! fitted within every tolerance of issue 12 (checked again here from the profiles, not from calibrate's own
//! table), the imported fixture corpus is fitted (its shares and exit-line styles within their tolerances) and
//! its scenario runs, a corpus no scenario can fit exits 1 with the figure it misses, and bad input is exit 2
//! with one line and nothing written.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::{json, Value};

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// Runs `budgetlab ARGS` in `dir`: exit status, stdout, stderr.
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = budgetlab().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = run(dir, args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    out
}

/// `profile.json`'s first profile and its compared one.
fn profiles(dir: &Path, report: &str) -> (Value, Value) {
    let json: Value =
        serde_json::from_slice(&fs::read(dir.join(report).join("profile.json")).unwrap()).unwrap();
    (json["profiles"][0].clone(), json["compare"].clone())
}

fn share(v: &Value) -> f64 {
    v["share"].as_f64().unwrap_or(0.0)
}

/// Every figure of the check, from two profiles: p10, p50, p90 and p99 within 10%, the share above 100,000
/// within a factor of 2 when the corpus has at least 20 such outputs, every shape share within 1 percentage point,
/// the median batch width equal. Returns the figures that miss.
fn misses(fitted: &Value, corpus: &Value) -> Vec<String> {
    let mut missed = Vec::new();
    let p10 = |p: &Value| {
        p["sizes"]["quantiles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["percent"] == 10.0)
            .unwrap()["units"]
            .as_f64()
            .unwrap()
    };
    let (f, c) = (p10(fitted), p10(corpus));
    if (f - c).abs() > 0.1 * c {
        missed.push(format!("p10: {f} vs {c}"));
    }
    for p in ["median", "p90", "p99"] {
        let (f, c) = (
            fitted["sizes"]["distribution"][p].as_f64().unwrap(),
            corpus["sizes"]["distribution"][p].as_f64().unwrap(),
        );
        if (f - c).abs() > 0.1 * c {
            missed.push(format!("{p}: {f} vs {c}"));
        }
    }
    let giants = |p: &Value| p["sizes"]["above"][2].clone();
    assert_eq!(giants(corpus)["units"], 100_000);
    if giants(corpus)["outputs"]["count"].as_u64().unwrap() >= 20 {
        let (f, c) = (
            share(&giants(fitted)["outputs"]),
            share(&giants(corpus)["outputs"]),
        );
        if f == 0.0 || (f / c).max(c / f) > 2.0 {
            missed.push(format!("above 100,000: {f} vs {c}"));
        }
    }
    let mut shares = vec![(
        "repeated",
        share(&fitted["repeats"]["repeated"]),
        share(&corpus["repeats"]["repeated"]),
    )];
    for s in ["astral", "nonAscii", "crlf", "ansi", "empty"] {
        shares.push((s, share(&fitted["shape"][s]), share(&corpus["shape"][s])));
    }
    for (name, f, c) in shares {
        if (f - c).abs() > 0.01 + 1e-9 {
            missed.push(format!("{name}: {f} vs {c}"));
        }
    }
    if fitted["width"]["distribution"]["median"] != corpus["width"]["distribution"]["median"] {
        missed.push("width".into());
    }
    missed
}

#[test]
fn a_generated_corpus_the_fit_was_not_tuned_on_is_fitted_within_every_tolerance() {
    // The fit was designed on swe-agent-recorded and the import fixtures; shell-heavy (wide batches of long logs
    // with exit lines and summaries) is another workload, at a seed of its own.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &[
            "generate",
            "--scenario",
            "shell-heavy",
            "--batches",
            "200",
            "--seed",
            "5",
            "--out",
            "corpus.jsonl",
        ],
    );
    let table = ok(d, &["calibrate", "corpus.jsonl", "--out", "fitted.toml"]);
    assert!(
        table.contains("## budgetlab calibrate: the fit passes ("),
        "{table}"
    );
    assert!(!table.contains("**missed**"), "{table}");
    let toml = fs::read_to_string(d.join("fitted.toml")).unwrap();
    assert!(
        toml.starts_with("# Fitted by `budgetlab calibrate`"),
        "{toml}"
    );
    assert!(toml.contains("\nname = \"fitted\"\n"), "{toml}");
    let scenario = budgetlab::Scenario::load(&d.join("fitted.toml")).unwrap();
    // Checked again from the profiles of the scenario's own batches and the corpus.
    ok(
        d,
        &[
            "profile",
            "fitted.toml",
            "--compare",
            "corpus.jsonl",
            "--out",
            "report",
        ],
    );
    let (fitted, corpus) = profiles(d, "report");
    assert_eq!(fitted["source"]["batches"].as_u64(), Some(scenario.batches));
    assert!(corpus["outputs"].as_u64().unwrap() > 500);
    assert_eq!(misses(&fitted, &corpus), Vec::<String>::new());
    // The corpus's exit-line styles are fitted too (each within a point).
    let styles = |p: &Value| -> Vec<(String, f64)> {
        p["exitStyles"]["styles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["style"].as_str().unwrap().to_string(),
                    share(&s["outputs"]),
                )
            })
            .collect()
    };
    let (f, c) = (styles(&fitted), styles(&corpus));
    assert!(!c.is_empty());
    for (style, want) in &c {
        let got = f.iter().find(|(s, _)| s == style).map_or(0.0, |s| s.1);
        assert!(
            (got - want).abs() <= 0.01 + 1e-9,
            "{style}: {got} vs {want}"
        );
    }
    // The same corpus gives the same scenario, byte for byte.
    ok(
        d,
        &[
            "calibrate",
            "corpus.jsonl",
            "--out",
            "again.toml",
            "--name",
            "fitted",
        ],
    );
    assert_eq!(fs::read(d.join("again.toml")).unwrap(), toml.as_bytes());
}

#[test]
fn an_imported_corpus_is_fitted_and_its_scenario_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/import");
    ok(
        d,
        &[
            "import",
            "--format",
            "auto",
            fixtures,
            "--out",
            "mine.jsonl",
        ],
    );
    let (code, table, err) = run(d, &["calibrate", "mine.jsonl", "--out", "mine.toml"]);
    // 55 tiny outputs: every shape share, exit-line style and the summary position are fitted within their
    // tolerance; the exit status says whether the sizes are too (exit 1 exactly when a row is missed).
    let missed: Vec<&str> = table
        .lines()
        .filter(|l| l.ends_with("| **missed** |"))
        .collect();
    assert_eq!(
        code,
        Some(if missed.is_empty() { 0 } else { 1 }),
        "{table}{err}"
    );
    assert!(missed.iter().all(|l| l.starts_with("| size p")), "{table}");
    for row in [
        "empty outputs",
        "repeated outputs",
        "exit line `Exit code N`",
        "summary line position",
    ] {
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("| {row}")))
            .unwrap();
        assert!(line.ends_with("| ok |"), "{line}");
    }
    // The tools' mapping, in the table and as comments of the file.
    assert!(
        table.contains("| execute_bash | 4 | shell | by name |"),
        "{table}"
    );
    assert!(
        table.contains("| (failed calls) | 14 | error_trace | error text only |"),
        "{table}"
    );
    let toml = fs::read_to_string(d.join("mine.toml")).unwrap();
    assert!(
        toml.contains("\n#   execute_bash -> shell (4 outputs, by name)\n"),
        "{toml}"
    );
    // Harness exit lines the generator has no name for are written as the scenario's own lines.
    assert!(toml.contains("exit_lines = { \"Exit code N\" = "), "{toml}");
    assert!(
        toml.contains("\"[The command completed with exit code N]\" = "),
        "{toml}"
    );
    // The fitted scenario is a scenario like any other: run it.
    ok(
        d,
        &[
            "run",
            "--scenarios",
            "mine.toml",
            "--strategies",
            "reference",
            "--batches",
            "20",
            "--out",
            "run",
        ],
    );
    let results: Value =
        serde_json::from_slice(&fs::read(d.join("run/results.json")).unwrap()).unwrap();
    assert_eq!(results["rows"][0]["scenario"], "mine");
}

#[test]
fn a_corpus_no_scenario_can_fit_exits_1_naming_what_it_misses() {
    // Forty one-unit outputs, all alike: an empirical size model writes results of one unit, but a sample of
    // thousands of them repeats nearly all, more than a corpus of forty can.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let line = |i: usize| {
        json!([{"callId": format!("c{i}"), "toolName": "bash", "responseParts": [
            {"functionResponse": {"id": format!("c{i}"), "name": "bash", "response": {"output": "y"}}}
        ]}])
        .to_string()
    };
    let text: Vec<String> = (0..40).map(line).collect();
    fs::write(d.join("tiny.jsonl"), text.join("\n") + "\n").unwrap();
    let (code, table, err) = run(d, &["calibrate", "tiny.jsonl", "--out", "tiny.toml"]);
    assert_eq!(code, Some(1), "{table}{err}");
    assert!(
        table.contains("## budgetlab calibrate: the fit MISSES "),
        "{table}"
    );
    assert!(
        table.contains("| size p50 (units) | 1 | 1 | ±10% | ok |"),
        "{table}"
    );
    assert!(table.contains("| bash | 40 | shell | by name |"), "{table}");
    assert!(table.contains("| shell | empirical | "), "{table}");
    let repeated = table
        .lines()
        .find(|l| l.starts_with("| repeated outputs | 97.50% | "))
        .unwrap();
    assert!(repeated.ends_with("| **missed** |"), "{repeated}");
    // The fit is still written, and says it missed.
    let toml = fs::read_to_string(d.join("tiny.toml")).unwrap();
    assert!(
        toml.contains("the check (corpus vs this scenario's batches): MISSED."),
        "{toml}"
    );
    assert!(budgetlab::Scenario::load(&d.join("tiny.toml")).is_ok());
}

#[test]
fn bad_input_is_exit_2_with_one_line_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("empty.jsonl"), "[]\n").unwrap();
    fs::write(d.join("torn.jsonl"), "[{\"callId\": \n").unwrap();
    fs::create_dir(d.join("folder")).unwrap();
    for (args, says) in [
        (
            &["calibrate", "missing.jsonl", "--out", "a.toml"][..],
            "missing.jsonl",
        ),
        (
            &["calibrate", "empty.jsonl", "--out", "a.toml"][..],
            "holds no tool result to fit",
        ),
        (
            &["calibrate", "torn.jsonl", "--out", "a.toml"][..],
            "torn.jsonl:1",
        ),
        (
            &["calibrate", "empty.jsonl", "--out", "folder"][..],
            "folder",
        ),
        (
            &["calibrate", "empty.jsonl", "--out", "a.toml", "--name", " "][..],
            "--name",
        ),
    ] {
        let (code, out, err) = run(d, args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
    }
    assert!(!d.join("a.toml").exists());
    assert_eq!(fs::read_dir(d.join("folder")).unwrap().count(), 0);
}

/// A corpus of `batches` batches: small JSON answers and one-word successes beside 2,000-9,000-unit file views
/// (sizes of two modes, each tool its own), from a fixed seed.
fn bimodal_corpus(batches: usize) -> String {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let words = [
        "alpha", "beta", "gamma", "delta", "value", "status", "item", "count", "total", "name",
    ];
    let mut lines = Vec::new();
    let mut k = 0;
    for _ in 0..batches {
        let mut batch = Vec::new();
        for _ in 0..1 + usize::from(next(4) == 0) {
            k += 1;
            let (tool, text) = match next(20) {
                0..=10 => {
                    let fields: Vec<String> = (0..2 + next(5))
                        .map(|_| {
                            let w = words[next(words.len() as u64) as usize];
                            let digits = 1 + next(6) as u32;
                            format!("\"{w}\": {}", next(10u64.pow(digits)))
                        })
                        .collect();
                    ("get_record", format!("{{{}}}", fields.join(", ")))
                }
                11..=13 => (
                    "Write",
                    ["OK", "Done", "Saved", "Success"][next(4) as usize].to_string(),
                ),
                _ => {
                    let lines: Vec<String> = (0..40 + next(140))
                        .map(|i| {
                            let line: Vec<&str> = (0..3 + next(7))
                                .map(|_| words[next(words.len() as u64) as usize])
                                .collect();
                            format!("{:6}\t{}", i + 1, line.join(" "))
                        })
                        .collect();
                    ("Read", lines.join("\n"))
                }
            };
            let id = format!("call_{k}");
            batch.push(json!({"callId": id, "toolName": tool, "responseParts": [
                {"functionResponse": {"id": id, "name": tool, "response": {"output": text}}}]}));
        }
        lines.push(Value::Array(batch).to_string());
    }
    lines.join("\n") + "\n"
}

#[test]
fn mixed_and_bimodal_corpora_are_fitted_with_empirical_sizes() {
    // Issue 34: per-kind sizes the kinds write to cannot follow a corpus of several tools' sizes. A mix of shipped
    // scenarios in unequal parts and a bimodal corpus, each of a few hundred outputs, are fitted within every
    // tolerance (checked again from the profiles), with empirical size models where the parametric fit missed.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut mix = String::new();
    for (scenario, batches, seed) in [
        ("mixed-realistic", "30", "20260804"),
        ("many-small", "4", "71"),
        ("cjk-heavy", "12", "8606"),
    ] {
        ok(
            d,
            &[
                "generate",
                "--scenario",
                scenario,
                "--batches",
                batches,
                "--seed",
                seed,
                "--out",
                "part.jsonl",
            ],
        );
        mix.push_str(&fs::read_to_string(d.join("part.jsonl")).unwrap());
    }
    fs::write(d.join("mix.jsonl"), mix).unwrap();
    fs::write(d.join("bimodal.jsonl"), bimodal_corpus(220)).unwrap();
    for corpus in ["mix", "bimodal"] {
        let table = ok(
            d,
            &[
                "calibrate",
                &format!("{corpus}.jsonl"),
                "--out",
                &format!("{corpus}.toml"),
            ],
        );
        assert!(
            table.contains("## budgetlab calibrate: the fit passes ("),
            "{table}"
        );
        // Which model each kind got, and why: here the parametric fit missed, so some kinds are empirical.
        assert!(table.contains("| kind | size model | why |"), "{table}");
        assert!(
            table.contains(" | empirical | its p10 was ")
                || table.contains(" | empirical | the parametric fit missed the p"),
            "{table}"
        );
        let toml = fs::read_to_string(d.join(format!("{corpus}.toml"))).unwrap();
        assert!(toml.contains("\n[empirical."), "{toml}");
        ok(
            d,
            &[
                "profile",
                &format!("{corpus}.toml"),
                "--compare",
                &format!("{corpus}.jsonl"),
                "--out",
                &format!("report-{corpus}"),
            ],
        );
        let (fitted, corpus_profile) = profiles(d, &format!("report-{corpus}"));
        assert!(
            corpus_profile["outputs"].as_u64().unwrap() >= 200,
            "{corpus}"
        );
        assert_eq!(
            misses(&fitted, &corpus_profile),
            Vec::<String>::new(),
            "{corpus}"
        );
    }
}
