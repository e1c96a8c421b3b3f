//! Call ids that repeat: the same id with the same content is a line repeated by a resumed session and counts
//! once; the same id in a later turn with other content is a new result and makes its own batch, in every
//! format that recognises repeats by id, and across the files of one import.

use super::*;

/// Imports `files` (name, contents) written into one temporary folder as `format`.
fn import_written(format: &str, files: &[(&str, String)]) -> (Vec<Value>, ImportReport) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let job = ImportJob {
        format: format.parse().unwrap(),
        paths: vec![dir.path().to_path_buf()],
        anonymize: None,
        skip_bad: false,
        used: Default::default(),
    };
    let mut out = Vec::new();
    let report = job.write(&mut out, "memory", None).unwrap();
    (lines(&out), report)
}

/// The call ids of a demonstration-like history: six calls, then five of the same ids again in later turns.
const IDS: [&str; 11] = [
    "call_1", "call_2", "call_3", "call_4", "call_5", "call_6", "call_1", "call_2", "call_3",
    "call_4", "call_5",
];

fn output(turn: usize) -> String {
    format!("OBSERVATION:\noutput of turn {turn}")
}

/// A SWE-agent function-calling trajectory whose history answers `IDS` in order.
fn swe_agent_trajectory(output: impl Fn(usize) -> String) -> String {
    let mut history = vec![json!({"role": "system", "content": "SETTING", "agent": "main"})];
    for (turn, id) in IDS.iter().enumerate() {
        history.push(
            json!({"role": "assistant", "content": "", "agent": "main", "message_type": "action",
            "tool_calls": [{"id": id, "type": "function",
                "function": {"name": "bash", "arguments": "{}"}}]}),
        );
        history.push(
            json!({"role": "tool", "content": output(turn), "agent": "main",
            "message_type": "observation", "tool_call_ids": [id]}),
        );
    }
    json!({"environment": "swe_main", "trajectory": [], "history": history, "info": {}}).to_string()
}

#[test]
fn swe_agent_history_reusing_call_ids_keeps_every_result() {
    let (batches, report) = import_written(
        "swe-agent",
        &[("demo/demo.traj", swe_agent_trajectory(output))],
    );
    let expected: Vec<Value> = IDS
        .iter()
        .enumerate()
        .map(|(turn, id)| json!([ok(id, "bash", &output(turn))]))
        .collect();
    assert_eq!(batches, expected);
    assert_eq!((report.batches, report.results), (11, 11));
    assert_skipped(&report, &[("system message", 1)]);
}

#[test]
fn a_later_turn_repeating_an_id_and_its_content_is_a_repeat() {
    // Turn 6 (call_1 again) got the very same text as turn 0: nothing tells it from a repeated line, so it
    // counts once; the other later turns are new results.
    let same = |turn: usize| output(if turn == 6 { 0 } else { turn });
    let (batches, report) = import_written(
        "swe-agent",
        &[("demo/demo.traj", swe_agent_trajectory(same))],
    );
    assert_eq!((report.batches, report.results), (10, 10));
    assert_eq!(batches[6], json!([ok("call_2", "bash", &output(7))]));
    assert_skipped(
        &report,
        &[
            ("system message", 1),
            ("tool result repeated (same id and content)", 1),
            ("call repeated in a later turn without a new result", 1),
        ],
    );
}

#[test]
fn mini_swe_agent_tool_messages_reusing_call_ids_keep_every_result() {
    let mut messages = vec![json!({"role": "system", "content": "You are a helpful assistant."})];
    for (turn, id) in IDS.iter().enumerate() {
        messages.push(json!({"role": "assistant", "content": "",
            "tool_calls": [{"id": id, "type": "function",
                "function": {"name": "bash", "arguments": "{}"}}]}));
        messages.push(
            json!({"role": "tool", "tool_call_id": id, "content": output(turn),
            "extra": {"returncode": 0}}),
        );
    }
    let doc = json!({"info": {}, "messages": messages, "trajectory_format": "mini-swe-agent-1.1"});
    let (batches, report) = import_written("mini-swe-agent", &[("t/t.traj.json", doc.to_string())]);
    assert_eq!(batches.len(), 11, "{batches:?}");
    assert_eq!(batches[10], json!([ok("call_5", "bash", &output(10))]));
    assert_eq!(report.results, 11);
}

/// A Claude Code assistant line (one tool_use) and the user line answering it.
fn claude_turn(message: &str, id: &str, text: &str) -> String {
    let call = json!({"type": "assistant", "uuid": format!("a-{message}"), "sessionId": "s",
        "message": {"id": message, "role": "assistant",
            "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {}}]}});
    let result = json!({"type": "user", "uuid": format!("u-{message}"), "sessionId": "s",
        "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": id, "content": text}]}});
    format!("{call}\n{result}\n")
}

#[test]
fn claude_code_keeps_a_reused_id_with_new_content_and_drops_resumed_copies() {
    let first = claude_turn("msg_1", "toolu_A", "first");
    let session = [
        first.clone(),
        claude_turn("msg_2", "toolu_B", "second"),
        claude_turn("msg_3", "toolu_A", "third"),
        // A resumed session writes the first turn again: the same ids and the same content.
        first,
    ]
    .concat();
    let (batches, report) = import_written("claude-code", &[("p/s.jsonl", session)]);
    assert_eq!(
        batches,
        vec![
            json!([ok("toolu_A", "Bash", "first")]),
            json!([ok("toolu_B", "Bash", "second")]),
            json!([ok("toolu_A", "Bash", "third")]),
        ]
    );
    assert_skipped(&report, &[("line repeated by a resumed session", 2)]);
}

#[test]
fn codex_keeps_a_reused_id_with_new_content_and_drops_resumed_copies() {
    let item =
        |payload: Value| json!({"timestamp": "t", "type": "response_item", "payload": payload});
    let call = |id: &str| {
        item(json!({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": id}))
    };
    let out = |id: &str, text: &str| {
        item(json!({"type": "function_call_output", "call_id": id, "output": text}))
    };
    let turn_end =
        json!({"timestamp": "t", "type": "event_msg", "payload": {"type": "token_count"}});
    let lines = [
        json!({"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}),
        call("call_A"),
        out("call_A", "first"),
        turn_end.clone(),
        call("call_A"),
        out("call_A", "second"),
        turn_end.clone(),
        // A resumed session repeats the last output line.
        out("call_A", "second"),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (batches, report) =
        import_written("codex", &[("rollout-2025-01-01T00-00-00-x.jsonl", text)]);
    assert_eq!(
        batches,
        vec![
            json!([ok("call_A", "shell", "first")]),
            json!([ok("call_A", "shell", "second")]),
        ]
    );
    assert_eq!(
        report.tally.skipped["line repeated by a resumed session"],
        1
    );
}

#[test]
fn files_sharing_call_ids_with_other_content_are_all_kept() {
    let other = |turn: usize| format!("OBSERVATION:\nanother instance, turn {turn}");
    let (batches, report) = import_written(
        "swe-agent",
        &[
            ("a/a.traj", swe_agent_trajectory(output)),
            ("b/b.traj", swe_agent_trajectory(other)),
            // A copy of the first: every result repeated from an earlier file.
            ("c/c.traj", swe_agent_trajectory(output)),
        ],
    );
    assert_eq!(batches.len(), 22);
    assert_eq!(batches[11], json!([ok("call_1", "bash", &other(0))]));
    assert_eq!((report.files[2].batches, report.files[2].results), (0, 0));
    assert_eq!(
        report.tally.skipped["result repeated from an earlier file (resumed session)"],
        11
    );
}

#[test]
fn a_reused_ids_used_line_belongs_to_the_result_of_its_own_turn() {
    // call_2 answers in turn 1 and again in turn 7; only turn 7's output prints the path the next call opens.
    let path = "/srv/app/reused/second_result.py";
    let mut history = vec![json!({"role": "system", "content": "SETTING", "agent": "main"})];
    for (turn, id) in IDS.iter().enumerate() {
        let args = if turn == 8 {
            json!({"command": format!("open {path}")}).to_string()
        } else {
            "{}".to_string()
        };
        history.push(
            json!({"role": "assistant", "content": "", "agent": "main", "message_type": "action",
            "tool_calls": [{"id": id, "type": "function",
                "function": {"name": "bash", "arguments": args}}]}),
        );
        let text = if turn == 7 {
            format!("{}\n{path}\nmore", output(turn))
        } else {
            output(turn)
        };
        history.push(json!({"role": "tool", "content": text, "agent": "main",
            "message_type": "observation", "tool_call_ids": [id]}));
    }
    let doc = json!({"environment": "swe_main", "trajectory": [], "history": history, "info": {}});
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("demo")).unwrap();
    std::fs::write(dir.path().join("demo/demo.traj"), doc.to_string()).unwrap();
    let job = ImportJob {
        format: "swe-agent".parse().unwrap(),
        paths: vec![dir.path().to_path_buf()],
        anonymize: None,
        skip_bad: false,
        used: Default::default(),
    };
    let (mut out, mut used) = (Vec::new(), Vec::new());
    job.write_with_used(&mut out, Some(&mut used), Some("used"), "memory", None)
        .unwrap();
    let batches: Vec<budgetlab::Batch> = std::str::from_utf8(&out)
        .unwrap()
        .lines()
        .map(|l| {
            budgetlab::parse_batch_line(l.as_bytes(), "b")
                .unwrap()
                .entries
        })
        .collect();
    assert_eq!(batches.len(), 11);
    let sha = budgetlab::digest::sha256_hex(&out);
    let per_batch = match budgetlab::needles::read_used_file(&used, "used", &batches, &sha).unwrap()
    {
        budgetlab::needles::UsedRead::Found(_, needles) => needles,
        budgetlab::needles::UsedRead::Stale => panic!("the file names other batches"),
    };
    let texts: Vec<Vec<String>> = per_batch
        .into_iter()
        .map(|b| {
            b.unwrap()
                .into_iter()
                .filter(|n| n.kind == budgetlab::NeedleKind::Used)
                .map(|n| n.text)
                .collect()
        })
        .collect();
    let mut expected = vec![Vec::<String>::new(); 11];
    expected[7] = vec![path.to_string()];
    assert_eq!(texts, expected);
}
