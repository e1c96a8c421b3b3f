//! The turn context and group `import` writes beside each batch (the object form of a batch line): the task,
//! the calls of the batch's entries with their arguments, the assistant's text of the turn, the session and the
//! issue; for every format, and under `--anonymize`.

use super::*;

/// Imports `rel` as `format` and returns each line as written.
fn import_objects(format: &str, rel: &str, anonymize: Option<u64>) -> Vec<Value> {
    let job = ImportJob {
        format: format.parse().unwrap(),
        paths: vec![fixture(rel)],
        anonymize: anonymize.map(budgetlab::Seed),
        skip_bad: false,
        used: Default::default(),
    };
    let mut out = Vec::new();
    job.write(&mut out, "memory", None).unwrap();
    objects(&out)
}

/// Every line of every format is the object form, its context naming exactly the calls of its entries, in
/// order, its group a session; what each format records of the task and the issue is there.
#[test]
fn every_format_writes_a_context_naming_the_batch_calls_and_a_group() {
    for (format, rel, task, issue) in [
        ("claude-code", "claude-code", true, false),
        ("codex", "codex", true, false),
        ("gemini-cli", "gemini-cli", true, false),
        ("qwen-code", "qwen-code", true, false),
        ("swe-agent", "swe-agent", true, true),
        ("mini-swe-agent", "mini-swe-agent/out", true, true),
        ("openhands", "openhands", true, false),
    ] {
        let lines = import_objects(format, rel, None);
        assert!(!lines.is_empty(), "{format}");
        let mut tasks = 0;
        for line in &lines {
            let keys: Vec<&str> = line
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, ["entries", "context", "group"], "{format}: {line}");
            let ids: Vec<&Value> = line["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| &e["callId"])
                .collect();
            let calls: Vec<&Value> = line["context"]["calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| &c["callId"])
                .collect();
            assert_eq!(ids, calls, "{format}");
            assert!(!line["group"]["session"].as_str().unwrap().is_empty());
            assert_eq!(
                line["group"].get("task").is_some(),
                issue,
                "{format}: {line}"
            );
            tasks += usize::from(line["context"].get("task").is_some());
            // What finalize reads, and the same entries as the array form.
            let parsed = budgetlab::parse_batch_line(line.to_string().as_bytes(), format).unwrap();
            assert_eq!(parsed.entries.len(), ids.len());
        }
        assert_eq!(tasks > 0, task, "{format}");
    }
}

/// The Claude Code session's first batch, exactly: the first user prompt (not the meta line after it), both
/// calls with their inputs, the turn's thinking and text, the session id.
#[test]
fn claude_code_context_is_what_the_turn_knew() {
    let lines = import_objects("claude-code", CLAUDE_MAIN, None);
    assert_eq!(lines[0]["entries"], claude_main_batches()[0]);
    assert_eq!(
        lines[0]["context"],
        json!({
            "task": "The cart total is wrong when a coupon applies. Fix it.",
            "calls": [
                {"callId": "toolu_A1", "name": "Bash",
                 "arguments": "{\"command\":\"npm test\",\"description\":\"Run the tests\"}"},
                {"callId": "toolu_A2", "name": "Read",
                 "arguments": "{\"file_path\":\"/home/dev/shop/src/cart.js\"}"}
            ],
            "assistant": "Run the tests, read the cart.\nI'll run the tests and read the cart code."
        })
    );
    assert_eq!(
        lines[0]["group"],
        json!({"session": "7f1c2a4e-0b7d-4c55-9a10-3e2f6f1d8b01"})
    );
}

/// SWE-agent: the issue is the task, the instance id (from the file's name) the group's task; the call's
/// arguments are the action the agent wrote.
#[test]
fn swe_agent_context_names_the_issue_and_the_instance() {
    let lines = import_objects("swe-agent", "swe-agent/run-0x", None);
    let first = &lines[0];
    assert!(first["context"]["task"]
        .as_str()
        .unwrap()
        .starts_with("We're currently solving the following issue within our repository.\nISSUE: separability_matrix"));
    assert_eq!(
        first["group"],
        json!({"session": "run-0x/astropy__astropy-12907/astropy__astropy-12907.traj",
               "task": "astropy__astropy-12907"})
    );
    assert_eq!(
        first["context"]["calls"][0]["arguments"],
        "find_file \"separable.py\""
    );
    assert!(first["context"]["assistant"]
        .as_str()
        .unwrap()
        .starts_with("DISCUSSION\nFirst, find the file."));
}

/// Under `--anonymize` the context's texts are anonymized like the results (same lengths, other letters) and
/// the group's ids too, alike across batches of one session.
#[test]
fn anonymize_covers_the_context_and_keeps_groups_together() {
    let plain = import_objects("claude-code", CLAUDE_MAIN, None);
    let anon = import_objects("claude-code", CLAUDE_MAIN, Some(5));
    assert_eq!(plain.len(), anon.len());
    let task = |v: &Value| v["context"]["task"].as_str().unwrap().to_string();
    assert_ne!(task(&plain[0]), task(&anon[0]));
    assert_eq!(utf16_len(&task(&plain[0])), utf16_len(&task(&anon[0])));
    assert!(!anon[0].to_string().contains("coupon"), "{}", anon[0]);
    assert_eq!(
        anon[0]["context"]["calls"][0]["name"],
        plain[0]["context"]["calls"][0]["name"]
    );
    assert_ne!(anon[0]["group"], plain[0]["group"]);
    assert!(anon.iter().all(|l| l["group"] == anon[0]["group"]));
}
