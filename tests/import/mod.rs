//! `budgetlab import` on the fixtures of every session format: each fixture imports to exactly the expected
//! batches (entries, order, grouping, error flags, texts, media), with every pitfall of
//! `shared/formats/agent-sessions.md` for its format in it, and the skipped lines counted by reason. Then the
//! whole fixture tree with `--format auto`, and the binary end to end (stderr report, exit 2 on malformed files,
//! `--skip-bad`, atomic output, anonymization).
//!
//! The fixtures under `tests/fixtures/import/` were written for these tests from the format description; they
//! are not copies of real session logs.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use budgetlab::import::{format_named, FormatChoice, ImportJob, ImportReport};
use budgetlab::utf16_len;
use serde_json::{json, Value};

mod cli;
mod context;
mod formats;
mod repeated_ids;
mod used;

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(rel)
}

/// Imports `rel` (a file or a folder) as `format` through the library; returns the batches and the report.
fn import(format: &str, rel: &str) -> (Vec<Value>, ImportReport) {
    let job = ImportJob {
        format: format.parse().unwrap(),
        paths: vec![fixture(rel)],
        anonymize: None,
        skip_bad: false,
        used: Default::default(),
    };
    let mut out = Vec::new();
    let report = job.write(&mut out, "memory", None).unwrap();
    (lines(&out), report)
}

/// The entries of each batch line written (the object form's `entries`; its context and group are checked in
/// `context.rs`).
fn lines(out: &[u8]) -> Vec<Value> {
    objects(out)
        .into_iter()
        .map(|mut v| match v.get_mut("entries") {
            Some(entries) => entries.take(),
            None => v,
        })
        .collect()
}

/// Each batch line written, as it is.
fn objects(out: &[u8]) -> Vec<Value> {
    std::str::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn entry(id: &str, tool: &str, field: &str, text: &str) -> Value {
    json!({"callId": id, "toolName": tool, "responseParts": [
        {"functionResponse": {"id": id, "name": tool, "response": {field: text}}}]})
}

fn ok(id: &str, tool: &str, text: &str) -> Value {
    entry(id, tool, "output", text)
}

fn err(id: &str, tool: &str, text: &str) -> Value {
    entry(id, tool, "error", text)
}

fn with_media(mut entry: Value, parts: &[Value]) -> Value {
    entry["responseParts"]
        .as_array_mut()
        .unwrap()
        .extend(parts.iter().cloned());
    entry
}

fn inline(mime: &str, data: &str) -> Value {
    json!({"inlineData": {"mimeType": mime, "data": data}})
}

/// Asserts the skipped counts of `report` are exactly `expected`.
fn assert_skipped(report: &ImportReport, expected: &[(&str, u64)]) {
    let got: Vec<(&str, u64)> = report.tally.skipped.iter().map(|(k, v)| (*k, *v)).collect();
    let mut want = expected.to_vec();
    want.sort();
    assert_eq!(got, want);
}

const CLAUDE_MAIN: &str =
    "claude-code/projects/-home-dev-shop/7f1c2a4e-0b7d-4c55-9a10-3e2f6f1d8b01.jsonl";

fn claude_main_batches() -> Vec<Value> {
    let a1 = "Exit code 1\n> shop@1.0.0 test\n> node --test\n\n✖ applies coupon (2.1ms)\n  AssertionError [ERR_ASSERTION]: 90 !== 81\nℹ tests 4\nℹ pass 3\nℹ fail 1";
    let a2 = "     1→export function total(items, coupon) {\n     2→  let sum = 0;\n     3→  for (const i of items) sum += i.price;\n     4→  return coupon ? sum - coupon.off : sum;\n     5→}\n";
    vec![
        // One response written as four lines, results out of call order, the UI copy (toolUseResult) ignored.
        json!([err("toolu_A1", "Bash", a1), ok("toolu_A2", "Read", a2)]),
        // Two calls in one line, two results in one line, an image, an absent content.
        json!([
            with_media(
                ok("toolu_B1", "Read", "Screenshot of the cart page"),
                &[inline("image/png", PNG)]
            ),
            ok("toolu_B2", "Grep", "")
        ]),
        json!([err(
            "toolu_C1",
            "Edit",
            "<tool_use_error>String to replace not found in file.\nString:   let sum = 0</tool_use_error>"
        )]),
        // toolu_D1 has no result: dropped, its turn keeps toolu_D2.
        json!([ok(
            "toolu_D2",
            "Bash",
            " src/cart.js | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)"
        )]),
        // A sidechain turn is a batch of its own.
        json!([ok(
            "toolu_E1",
            "Glob",
            "src/cart.test.js\nsrc/coupon.test.js"
        )]),
    ]
}

#[test]
fn a_mixed_folder_imports_with_auto() {
    let (batches, report) = import("auto", "");
    let formats: Vec<(String, &str)> = report
        .files
        .iter()
        .map(|f| {
            (
                f.path
                    .strip_prefix(fixture(""))
                    .unwrap()
                    .display()
                    .to_string(),
                f.format,
            )
        })
        .collect();
    assert_eq!(
        formats,
        [
            ("claude-code/projects/-home-dev-shop/7f1c2a4e-0b7d-4c55-9a10-3e2f6f1d8b01.jsonl", "claude-code"),
            ("claude-code/projects/-home-dev-shop/7f1c2a4e-0b7d-4c55-9a10-3e2f6f1d8b01/subagents/agent-a3f9c1.jsonl", "claude-code"),
            ("codex/sessions/2025/05/20/rollout-2025-05-20T16-02-11-5f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f.jsonl", "codex"),
            ("codex/sessions/2025/10/02/rollout-2025-10-02T09-14-03-0199a8e2-5b1c-7d40-8f3e-2c6b9d0e4a17.jsonl", "codex"),
            ("gemini-cli/tmp/3f2a9d8c/chats/session-2025-09-14T10-22-5b3e9c1a.json", "gemini-cli"),
            ("gemini-cli/tmp/7e6d5c4b/chats/session-2026-04-20T08-00-9c1d2e3f.jsonl", "gemini-cli"),
            ("mini-swe-agent/bare/messages.json", "mini-swe-agent"),
            ("mini-swe-agent/out/django__django-11099/django__django-11099.traj.json", "mini-swe-agent"),
            ("mini-swe-agent/out/sympy__sympy-20590/sympy__sympy-20590.traj.json", "mini-swe-agent"),
            ("openhands/exports/old-trajectory-2024.json", "openhands"),
            ("openhands/exports/trajectory-4f7e2b.json", "openhands"),
            ("openhands/sessions/7c1e9d2a/events", "openhands"),
            ("qwen-code/projects/-home-dev-api/chats/0a9b8c7d-1e2f-4a5b-8c9d-0e1f2a3b4c5d.jsonl", "qwen-code"),
            ("swe-agent/run-0x/astropy__astropy-12907/astropy__astropy-12907.traj", "swe-agent"),
            ("swe-agent/run-fc/pallets__flask-5014/pallets__flask-5014.traj", "swe-agent"),
        ]
        .map(|(p, f)| (p.to_string(), f))
    );
    // The same batches as each file imported with its own format, in the same order.
    let mut expected = Vec::new();
    for (path, format) in &formats {
        let (b, _) = import(format, path);
        expected.extend(b);
    }
    assert_eq!(batches, expected);
    assert_eq!(report.batches, 43);
    assert!(report.ignored.iter().all(|p| p.ends_with("metadata.json")));
    assert!(report.summary().iter().any(|l| l.ends_with("qwen-code/projects/-home-dev-api/chats/0a9b8c7d-1e2f-4a5b-8c9d-0e1f2a3b4c5d.jsonl: detected qwen-code")));
}

#[test]
fn the_output_is_what_finalize_and_run_read() {
    let (batches, _) = import("auto", "");
    for b in &batches {
        let parsed = budgetlab::parse_batch(b.to_string().as_bytes(), "imported").unwrap();
        assert!(!parsed.is_empty());
    }
    // The exact bytes of one line, so the shape cannot drift with the test helpers.
    let job = ImportJob {
        format: FormatChoice::Only(format_named("mini-swe-agent").unwrap()),
        paths: vec![fixture("mini-swe-agent/bare/messages.json")],
        anonymize: None,
        skip_bad: false,
        used: Default::default(),
    };
    let mut out = Vec::new();
    job.write(&mut out, "memory", None).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        concat!(
            "{\"entries\":[{\"callId\":\"step-0\",\"toolName\":\"bash\",\"responseParts\":[{\"functionResponse\":",
            "{\"id\":\"step-0\",\"name\":\"bash\",\"response\":{\"output\":\"<returncode>0</returncode>\\n<output>\\n7\\n",
            "</output>\"}}}]}],\"context\":{\"task\":\"Count the files.\",\"calls\":[{\"callId\":\"step-0\",\"name\":\"bash\",",
            "\"arguments\":\"ls | wc -l\"}],\"assistant\":\"```bash\\nls | wc -l\\n```\"},\"group\":{\"session\":\"messages.json\"}}\n"
        )
    );
}

#[test]
fn anonymized_corpus_keeps_every_length_structure_and_flag() {
    let (plain, _) = import("auto", "");
    let anon_with = |seed: u64| {
        let job = ImportJob {
            format: FormatChoice::Auto,
            paths: vec![fixture("")],
            anonymize: Some(budgetlab::Seed(seed)),
            skip_bad: false,
            used: Default::default(),
        };
        let mut out = Vec::new();
        job.write(&mut out, "memory", None).unwrap();
        lines(&out)
    };
    let anon = anon_with(5);
    assert_eq!(anon, anon_with(5), "deterministic per seed");
    assert_ne!(anon, anon_with(6), "another seed, other text");
    assert_eq!(plain.len(), anon.len());
    let mut changed = 0;
    for (p, a) in plain.iter().zip(&anon) {
        let (p, a) = (p.as_array().unwrap(), a.as_array().unwrap());
        assert_eq!(p.len(), a.len());
        for (pe, ae) in p.iter().zip(a) {
            assert_eq!(pe["callId"], ae["callId"]);
            assert_eq!(pe["toolName"], ae["toolName"]);
            let (pp, ap) = (
                pe["responseParts"].as_array().unwrap(),
                ae["responseParts"].as_array().unwrap(),
            );
            assert_eq!(pp.len(), ap.len());
            for (x, y) in pp.iter().zip(ap) {
                if let Some(resp) = x
                    .pointer("/functionResponse/response")
                    .and_then(Value::as_object)
                {
                    let other = y
                        .pointer("/functionResponse/response")
                        .unwrap()
                        .as_object()
                        .unwrap();
                    assert_eq!(
                        resp.keys().collect::<Vec<_>>(),
                        other.keys().collect::<Vec<_>>(),
                        "error flags kept"
                    );
                    for (k, v) in resp {
                        let (v, w) = (v.as_str().unwrap(), other[k].as_str().unwrap());
                        assert_eq!(utf16_len(v), utf16_len(w), "{v:?}");
                        assert_eq!(v.lines().count(), w.lines().count());
                        changed += usize::from(v != w);
                    }
                } else {
                    assert_eq!(x["inlineData"]["mimeType"], y["inlineData"]["mimeType"]);
                    assert_eq!(
                        x["inlineData"]["data"].as_str().unwrap().len(),
                        y["inlineData"]["data"].as_str().unwrap().len()
                    );
                }
            }
        }
    }
    assert!(changed > 30, "{changed}");
}
