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
    };
    let mut out = Vec::new();
    let report = job.write(&mut out, "memory", None).unwrap();
    (lines(&out), report)
}

fn lines(out: &[u8]) -> Vec<Value> {
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
fn claude_code_session_imports_exactly() {
    let (batches, report) = import("claude-code", CLAUDE_MAIN);
    assert_eq!(batches, claude_main_batches());
    assert_skipped(
        &report,
        &[
            ("summary line (compaction)", 1),
            ("file-history-snapshot line", 1),
            ("user line without tool results (user input)", 2),
            ("meta user line (injected, not a tool result)", 1),
            ("assistant line without tool calls", 2),
            ("progress line (hook event)", 1),
            ("system line", 1),
            ("line repeated by a resumed session", 2),
            ("compaction summary (user line)", 1),
            ("line that is JSON but not an object", 1),
            ("queue-operation line", 1),
            ("torn last line (not complete JSON)", 1),
            ("call without a recorded result", 1),
        ],
    );
    assert_eq!((report.batches, report.results), (5, 7));
}

#[test]
fn claude_code_folder_walk_takes_subagent_files_too() {
    let (batches, report) = import("claude-code", "claude-code/projects");
    let mut expected = claude_main_batches();
    // Several tool_result blocks in one user line, answered in reverse order.
    expected.push(json!([
        ok(
            "toolu_S1",
            "Grep",
            "Found 2 files\nsrc/cart.js\nsrc/coupon.js"
        ),
        ok("toolu_S2", "Read", "     1→export const off = 9;\n")
    ]));
    assert_eq!(batches, expected);
    assert_eq!(report.files.len(), 2);
    assert!(report.files[1]
        .path
        .ends_with("subagents/agent-a3f9c1.jsonl"));
}

#[test]
fn codex_rollout_imports_exactly() {
    let k1 = r#"{"output":"cc -c src/lib.c\nsrc/lib.c:41:5: error: implicit declaration of function 'frobnicate'\nmake: *** [Makefile:12: lib.o] Error 1\n","metadata":{"exit_code":2,"duration_seconds":0.4}}"#;
    let k2 = r#"{"output":" M src/lib.c\n","metadata":{"exit_code":0,"duration_seconds":0.0}}"#;
    let k3 = "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nM src/lib.c\n";
    let k4 = "Exit code: 2\nWall time: 1.2 seconds\nTotal output lines: 3\nOutput:\nrunning 12 tests\ntest result: FAILED. 11 passed; 1 failed; 0 ignored\nmake: *** [check] Error 101";
    let k6 = r#"{"output":"Makefile\nsrc\n","metadata":{"exit_code":0,"duration_seconds":0.0}}"#;
    let (batches, report) = import(
        "codex",
        "codex/sessions/2025/10/02/rollout-2025-10-02T09-14-03-0199a8e2-5b1c-7d40-8f3e-2c6b9d0e4a17.jsonl",
    );
    assert_eq!(
        batches,
        vec![
            // Parallel calls, then their outputs in another order; the exec_command_end copies not counted.
            json!([err("call_K1", "shell", k1), ok("call_K2", "shell", k2)]),
            json!([ok("call_K3", "apply_patch", k3)]),
            json!([err("call_K4", "shell_command", k4)]),
            json!([with_media(
                ok(
                    "call_K5",
                    "playwright__browser_take_screenshot",
                    "Took the screenshot of the report page"
                ),
                &[inline("image/png", PNG)]
            )]),
            json!([ok("ls_K6", "local_shell", k6)]),
        ]
    );
    assert_skipped(
        &report,
        &[
            ("session_meta line", 1),
            ("message item", 2),
            ("turn_context line", 1),
            ("event_msg line (UI)", 1),
            ("reasoning item", 2),
            ("event_msg copy of a tool result (UI)", 4),
            ("token_count event", 5),
            ("hosted tool call (no output to import)", 1),
            ("ghost_snapshot item (harness snapshot)", 1),
            ("compacted line (history replacement)", 1),
            ("line repeated by a resumed session", 1),
            ("line of another type", 1),
            ("call without a recorded result", 1),
        ],
    );
}

#[test]
fn codex_legacy_rollout_imports_exactly() {
    let l2 =
        r#"{"output":"1 passed in 0.02s\n","metadata":{"exit_code":0,"duration_seconds":0.2}}"#;
    let l3 = r#"{"output":"test_a.py .\ntest_b.py F\n1 failed, 1 passed in 0.08s\n","metadata":{"exit_code":1,"duration_seconds":0.3}}"#;
    let (batches, report) = import(
        "codex",
        "codex/sessions/2025/05/20/rollout-2025-05-20T16-02-11-5f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f.jsonl",
    );
    assert_eq!(
        batches,
        vec![
            // A single unwrapped content item as the output.
            json!([ok("call_L1", "shell", "test_a.py\ntest_b.py\n")]),
            // No token_count and nothing between them: two sequential calls merge (the documented limit).
            json!([ok("call_L2", "shell", l2), err("call_L3", "shell", l3)]),
        ]
    );
    assert_skipped(
        &report,
        &[
            ("session meta line", 1),
            ("state line", 2),
            ("message item", 1),
            ("reasoning item", 1),
        ],
    );
}

#[test]
fn gemini_cli_document_imports_exactly() {
    let sh = "Command: npm run build\nDirectory: (root)\nOutput: src/app.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 31337";
    let rd = "export function parse(x: string): number {\n  return x;\n}\n";
    let (batches, report) = import(
        "gemini-cli",
        "gemini-cli/tmp/3f2a9d8c/chats/session-2025-09-14T10-22-5b3e9c1a.json",
    );
    assert_eq!(
        batches,
        vec![
            // Every call's result holds both functionResponses: each takes its own. A nonzero exit code with
            // status "success" is not an error.
            json!([
                ok(
                    "run_shell_command-1757845341000-a1",
                    "run_shell_command",
                    sh
                ),
                ok("read_file-1757845341001-b2", "read_file", rd)
            ]),
            json!([
                err(
                    "replace-1757845400000-c3",
                    "replace",
                    "Failed to edit, 0 occurrences found for old_string in /repo/src/app.ts."
                ),
                with_media(
                    ok(
                        "read_many_files-1757845400001-d4",
                        "read_many_files",
                        "Binary content provided (1 item(s))."
                    ),
                    &[inline("image/png", PNG)]
                ),
                err(
                    "web_fetch-1757845400002-e5",
                    "web_fetch",
                    "[Operation Cancelled] Reason: User cancelled the operation."
                ),
            ]),
            // Neither output nor error: the JSON of the response; the nested media part kept.
            json!([with_media(
                ok("read_file-1757845500000-g7", "read_file", "{}"),
                &[inline("application/pdf", "JVBERi0xLjQK")]
            )]),
        ]
    );
    assert_skipped(
        &report,
        &[
            ("message without tool calls", 2),
            ("call without a recorded result", 1),
        ],
    );
}

#[test]
fn gemini_cli_jsonl_replays_replacements_checkpoints_and_rewinds() {
    let (batches, report) = import(
        "gemini-cli",
        "gemini-cli/tmp/7e6d5c4b/chats/session-2026-04-20T08-00-9c1d2e3f.jsonl",
    );
    assert_eq!(
        batches,
        vec![
            // g1 was written twice: the later line (with the result) replaced the earlier one.
            json!([ok(
                "run_shell_command-1776672000000-h8",
                "run_shell_command",
                "Output: 3 passing (12ms)\nProcess Group PGID: 4242"
            )]),
            // g2 was rewound; g3 was dropped by the $set.messages checkpoint; g4 came after it.
            json!([ok(
                "run_shell_command-1776672003000-k11",
                "run_shell_command",
                "Output: lint clean\nProcess Group PGID: 4260"
            )]),
        ]
    );
    assert_skipped(
        &report,
        &[
            ("metadata line", 1),
            ("message record replaced by a later line", 1),
            ("$set line (metadata update)", 1),
            ("message dropped by a rewind", 1),
            ("$rewindTo line", 1),
            ("$set line (checkpoint of the message list)", 1),
            ("message without tool calls", 1),
        ],
    );
}

#[test]
fn qwen_code_chat_imports_exactly() {
    let (batches, report) = import(
        "qwen-code",
        "qwen-code/projects/-home-dev-api/chats/0a9b8c7d-1e2f-4a5b-8c9d-0e1f2a3b4c5d.jsonl",
    );
    assert_eq!(
        batches,
        vec![
            // One turn written as three assistant records sharing a uuid; results one record each, reversed.
            json!([
                ok(
                    "call_q1",
                    "read_file",
                    "import express from 'express';\nexport const router = express.Router();\n"
                ),
                ok(
                    "call_q2",
                    "run_shell_command",
                    "Command: ls src\nDirectory: (root)\nStdout: router.ts\nserver.ts\nStderr: (empty)\nError: (none)\nExit Code: 0"
                )
            ]),
            json!([err(
                "call_q3",
                "write_file",
                "File path must be absolute: src/health.ts"
            )]),
            // The branch abandoned by the rewind is kept, in file order.
            json!([ok(
                "call_q4",
                "run_shell_command",
                "Command: npm test\nStdout: 14 passing\nExit Code: 0"
            )]),
            // call_q6 was never answered; the cancelled call_q5 is an error.
            json!([err(
                "call_q5",
                "edit",
                "[Operation Cancelled] Reason: User did not allow tool call"
            )]),
            json!([with_media(
                ok(
                    "call_q7",
                    "read_file",
                    "Binary content provided (1 item(s))."
                ),
                &[inline("image/jpeg", "/9j/4AAQSkZJRgABAQ==")]
            )]),
        ]
    );
    assert_skipped(
        &report,
        &[
            ("user record", 1),
            ("assistant record without tool calls", 1),
            ("system record", 2),
            ("system record: chat_compression", 1),
            ("call without a recorded result", 1),
        ],
    );
}

#[test]
fn swe_agent_function_calling_trajectory_imports_exactly() {
    let f2 = "OBSERVATION:\nHere's the result of running `cat -n` on /repo/src/flask/app.py:\n     1\timport os\n     2\timport sys\n";
    let (batches, report) = import(
        "swe-agent",
        "swe-agent/run-fc/pallets__flask-5014/pallets__flask-5014.traj",
    );
    assert_eq!(
        batches,
        vec![
            json!([ok("call_f1", "bash", "OBSERVATION:\n./src/flask/app.py")]),
            // tool_calls and tool_call_ids stored as Python list literals; content as text blocks.
            json!([ok("call_f2", "str_replace_editor", f2)]),
        ]
    );
    assert_skipped(
        &report,
        &[
            ("demonstration message", 3),
            ("system message", 1),
            ("user message that answers no call", 1),
            ("call without a recorded result", 1),
        ],
    );
}

#[test]
fn swe_agent_text_mode_trajectory_imports_exactly() {
    let o0 = "Found 1 matches for \"separable.py\" in /astropy__astropy:\n/astropy__astropy/astropy/modeling/separable.py\n(Open file: n/a)\n(Current directory: /astropy__astropy)\nbash-$";
    let o1 = "[File: /astropy__astropy/astropy/modeling/separable.py (317 lines total)]\n1:\"\"\"\n2:Functions to determine if a model is separable\n(315 more lines below)\n(Open file: /astropy__astropy/astropy/modeling/separable.py)\n(Current directory: /astropy__astropy)\nbash-$";
    let o2 = "Traceback (most recent call last):\n  File \"/astropy__astropy/reproduce.py\", line 1, in <module>\n    from astropy.modeling import models as m\nModuleNotFoundError: No module named 'erfa'\n(Open file: /astropy__astropy/astropy/modeling/separable.py)\n(Current directory: /astropy__astropy)\nbash-$";
    let (batches, report) = import(
        "swe-agent",
        "swe-agent/run-0x/astropy__astropy-12907/astropy__astropy-12907.traj",
    );
    assert_eq!(
        batches,
        vec![
            json!([ok("step-0", "find_file", o0)]),
            // No action in the history message: named from trajectory[1].action.
            json!([ok("step-1", "open", o1)]),
            json!([ok("step-2", "python", o2)]),
        ]
    );
    assert_skipped(
        &report,
        &[
            ("demonstration message", 1),
            ("system message", 1),
            ("user message that answers no call", 1),
        ],
    );
}

#[test]
fn mini_swe_agent_trajectories_import_exactly() {
    let m0 = "<returncode>0</returncode>\n<output>\n9:class ASCIIUsernameValidator(validators.RegexValidator):\n19:class UnicodeUsernameValidator(validators.RegexValidator):\n</output>";
    let m2 = "<returncode>1</returncode>\n<output>\nF.\n=================================== FAILURES ===================================\nE   AssertionError: 'a\\n' unexpectedly valid\n1 failed, 1 passed in 0.42s\n</output>";
    let m3 = "<returncode>0</returncode>\n<warning>\nThe output of your last command was too long.\nPlease try a different command that produces less output.\n</warning><output_head>\n/usr/lib/python3/dist-packages/a.py\n</output_head>\n<elided_chars>\n123456 characters elided\n</elided_chars>\n<output_tail>\n/repo/tests/z.py\n</output_tail>";
    let (batches, report) = import(
        "mini-swe-agent",
        "mini-swe-agent/out/django__django-11099/django__django-11099.traj.json",
    );
    assert_eq!(
        batches,
        vec![
            json!([ok("step-0", "bash", m0)]),
            // step-1 got format-error feedback (no <returncode>): no result.
            json!([err("step-2", "bash", m2)]),
            json!([ok("step-3", "bash", m3)]),
        ]
    );
    assert_skipped(
        &report,
        &[
            ("system message", 1),
            (
                "user message without <returncode> (feedback, not a result)",
                3,
            ),
            ("call without a recorded result", 2),
        ],
    );

    let (batches, report) = import(
        "mini-swe-agent",
        "mini-swe-agent/out/sympy__sympy-20590/sympy__sympy-20590.traj.json",
    );
    assert_eq!(
        batches,
        vec![
            json!([
                ok(
                    "call_m1",
                    "bash",
                    "<returncode>0</returncode>\n<output>\n1.7.dev\n</output>"
                ),
                ok(
                    "call_m2",
                    "bash",
                    "<returncode>0</returncode>\n<output>\na1b2c3d Merge pull request #20571\n</output>"
                )
            ]),
            json!([err(
                "call_m3",
                "bash",
                "<returncode>2</returncode>\n<output>\nls: cannot access 'nope': No such file or directory\n</output>"
            )]),
        ]
    );
    assert_skipped(
        &report,
        &[
            ("system message", 1),
            (
                "user message without <returncode> (feedback, not a result)",
                2,
            ),
        ],
    );

    let (batches, _) = import("mini-swe-agent", "mini-swe-agent/bare/messages.json");
    assert_eq!(
        batches,
        vec![json!([ok(
            "step-0",
            "bash",
            "<returncode>0</returncode>\n<output>\n7\n</output>"
        )])]
    );
}

fn openhands_export_batches() -> Vec<Value> {
    let run = "F.\n=== FAILURES ===\nE   assert add(2, 2) == 4\n1 failed, 1 passed in 0.05s\n[The command completed with exit code 1.]\n[Current working directory: /workspace/app]\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code 1]";
    let read = "Here's the result of running `cat -n` on /workspace/app/calc.py:\n     1\tdef add(a, b):\n     2\t    return a - b\n";
    vec![
        // Two actions of one model response, observed in the other order.
        json!([
            err("toolu_01RUN", "execute_bash", run),
            ok("toolu_01READ", "str_replace_editor", read)
        ]),
        json!([err(
            "toolu_01EDIT",
            "str_replace_editor",
            "Parameter `old_str` is required for command: str_replace.\n[Error occurred in processing last action]"
        )]),
        json!([with_media(
            ok(
                "toolu_01PY",
                "execute_ipython_cell",
                "<Figure size 640x480 with 1 Axes>\n![image](data:image/png;base64,...)\n[Jupyter current working directory: /workspace/app]"
            ),
            &[inline("image/png", PNG)]
        )]),
        // The observation has no tool_call_metadata: matched by its cause.
        json!([ok(
            "toolu_01RUN2",
            "execute_bash",
            "hello\n[Current working directory: /workspace/app]\n[Command finished with exit code 0]"
        )]),
    ]
}

fn openhands_old_batches() -> Vec<Value> {
    vec![
        json!([ok(
            "toolu_old1",
            "execute_bash",
            "README.md\nsetup.py\n[Command finished with exit code 0]"
        )]),
        json!([err(
            "toolu_old2",
            "execute_bash",
            "cat: nope: No such file or directory\n[Command finished with exit code 1]"
        )]),
    ]
}

fn openhands_stream_batches() -> Vec<Value> {
    vec![
        json!([
            ok(
                "toolu_S1",
                "execute_bash",
                "● api.service - API\n   Active: active (running)\n[Current working directory: /workspace]\n[Command finished with exit code 0]"
            ),
            ok("toolu_S2", "str_replace_editor", "port = 8080\n")
        ]),
        json!([ok("toolu_S3", "think", "Your thought has been logged.")]),
        // Exit code -1 (no exit): no finished line, not an error. Event 10 comes after event 9.
        json!([ok(
            "toolu_S4",
            "execute_bash",
            "[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command '', send other commands to interact with the current process, or send keys to interrupt/kill the command.]\n[The command timed out.]\n[Current working directory: /workspace]"
        )]),
    ]
}

#[test]
fn openhands_exports_and_event_streams_import_exactly() {
    let (batches, report) = import("openhands", "openhands/exports/trajectory-4f7e2b.json");
    assert_eq!(batches, openhands_export_batches());
    assert_skipped(
        &report,
        &[
            ("action without tool_call_metadata (not a tool call)", 1),
            ("observation that answers no tool call", 2),
            ("call without a recorded result", 1),
        ],
    );

    // Python-repr tool_call_metadata, args and extras; no model_response (one call a batch).
    let (batches, _) = import("openhands", "openhands/exports/old-trajectory-2024.json");
    assert_eq!(batches, openhands_old_batches());

    // An event folder, read in numeric order (10 after 9); metadata.json beside it is not a session.
    let (batches, report) = import("openhands", "openhands/sessions");
    assert_eq!(batches, openhands_stream_batches());
    assert_eq!(report.files.len(), 1);
    assert!(report.files[0].path.ends_with("sessions/7c1e9d2a/events"));
    assert_eq!(report.ignored.len(), 1);
    assert!(report.ignored[0].ends_with("7c1e9d2a/metadata.json"));
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
    };
    let mut out = Vec::new();
    job.write(&mut out, "memory", None).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "[{\"callId\":\"step-0\",\"toolName\":\"bash\",\"responseParts\":[{\"functionResponse\":{\"id\":\"step-0\",\"name\":\"bash\",\"response\":{\"output\":\"<returncode>0</returncode>\\n<output>\\n7\\n</output>\"}}}]}]\n"
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

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

#[test]
fn cli_writes_atomically_and_reports_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("mine.jsonl");
    let out = budgetlab()
        .args(["import", "--format", "auto"])
        .arg(fixture(""))
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("agent-a3f9c1.jsonl: detected claude-code"),
        "{err}"
    );
    assert!(err.contains("budgetlab: read 15 files (2 claude-code, 2 codex, 2 gemini-cli, 3 mini-swe-agent, 3 openhands, 1 qwen-code, 2 swe-agent); wrote 43 batches with "), "{err}");
    assert!(
        err.contains("budgetlab: skipped 1: torn last line (not complete JSON)\n"),
        "{err}"
    );
    assert!(
        err.contains("ignored ")
            && err.contains("metadata.json: not a session log of a known format"),
        "{err}"
    );
    let written = std::fs::read(&out_path).unwrap();
    assert_eq!(lines(&written), import("auto", "").0);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );

    // Standard output gets the same bytes; the file is run by `run --batches-file`.
    let stdout = budgetlab()
        .args(["import", "--format", "auto", "--out", "-"])
        .arg(fixture(""))
        .output()
        .unwrap();
    assert_eq!(stdout.stdout, written);
    let report = dir.path().join("report");
    let run = budgetlab()
        .args([
            "run",
            "--strategies",
            "reference",
            "--budgets",
            "2000",
            "--threads",
            "1",
            "--batches-file",
        ])
        .arg(&out_path)
        .arg("--out")
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stderr).contains("43 turns"));
}

#[test]
fn cli_malformed_file_is_exit_2_unless_skip_bad() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let good = std::fs::read(fixture(CLAUDE_MAIN)).unwrap();
    std::fs::write(logs.join("a.jsonl"), &good).unwrap();
    // A line that is not JSON in the middle of a Claude Code file (not its torn tail).
    std::fs::write(
        logs.join("b.jsonl"),
        "{\"type\":\"summary\",\"summary\":\"s\",\"leafUuid\":\"x\"}\n{\"type\":\"user\", oops}\n{\"type\":\"summary\",\"summary\":\"t\",\"leafUuid\":\"y\"}\n",
    )
    .unwrap();
    let out_path = dir.path().join("out.jsonl");
    let out = budgetlab()
        .args(["import", "--format", "claude-code"])
        .arg(&logs)
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("b.jsonl:2: invalid JSON at column"), "{err}");
    assert!(!out_path.exists(), "nothing half-written");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
    let stdout_run = budgetlab()
        .args(["import", "--format", "claude-code"])
        .arg(&logs)
        .output()
        .unwrap();
    assert_eq!(stdout_run.status.code(), Some(2));
    assert!(
        stdout_run.stdout.is_empty(),
        "nothing on standard output either"
    );

    let out = budgetlab()
        .args(["import", "--format", "claude-code", "--skip-bad"])
        .arg(&logs)
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("skipped malformed file ") && err.contains("b.jsonl:2: invalid JSON"),
        "{err}"
    );
    assert!(
        err.contains("budgetlab: skipped 1 malformed files (--skip-bad)"),
        "{err}"
    );
    assert_eq!(
        lines(&std::fs::read(&out_path).unwrap()),
        claude_main_batches()
    );
}

#[test]
fn cli_refuses_bad_flags_and_undetectable_files() {
    let out = budgetlab()
        .args(["import", "--format", "aider"])
        .arg(fixture(CLAUDE_MAIN))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("invalid --format \"aider\": expected one of claude-code, codex, gemini-cli, qwen-code, swe-agent, mini-swe-agent, openhands, or auto"), "{err}");
    let out = budgetlab()
        .args(["import", "--format", "auto"])
        .arg(fixture("openhands/sessions/7c1e9d2a/metadata.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "metadata.json: not a session log of a known format; give its format with --format"
        ),
        "{err}"
    );
    let out = budgetlab()
        .args(["import", "--format", "codex", "/nonexistent/sessions"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("/nonexistent/sessions"));
}

#[test]
fn cli_anonymize_changes_text_but_not_shape() {
    let run = |seed: &str| {
        let out = budgetlab()
            .args(["import", "--format", "codex", "--anonymize", seed])
            .arg(fixture("codex/sessions/2025/10/02"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        lines(&out.stdout)
    };
    let a = run("9");
    assert_eq!(a, run("9"));
    let first = a[0][0]["responseParts"][0]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap();
    // The structured output is JSON: its keys stay, and so does the error line's keyword.
    let v: Value = serde_json::from_str(first).unwrap();
    assert_eq!(
        v.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["output", "metadata"]
    );
    assert!(
        v["output"].as_str().unwrap().contains(": error: "),
        "{first}"
    );
    assert!(!first.contains("frobnicate"), "{first}");
}

#[test]
fn a_session_copied_by_a_resume_is_not_counted_twice() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(fixture(CLAUDE_MAIN)).unwrap();
    std::fs::write(dir.path().join("a.jsonl"), &good).unwrap();
    std::fs::write(dir.path().join("b-resumed.jsonl"), &good).unwrap();
    let job = ImportJob {
        format: "claude-code".parse().unwrap(),
        paths: vec![dir.path().to_path_buf()],
        anonymize: None,
        skip_bad: false,
    };
    let mut out = Vec::new();
    let report = job.write(&mut out, "memory", None).unwrap();
    assert_eq!(lines(&out), claude_main_batches());
    assert_eq!(report.files.len(), 2);
    assert_eq!((report.files[1].batches, report.files[1].results), (0, 0));
    assert_eq!(
        report.tally.skipped["result repeated from an earlier file (resumed session)"],
        7
    );
}

#[test]
fn lone_surrogate_escapes_become_replacement_characters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"assistant","uuid":"u1","message":{"id":"msg_1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}"#,
            "\n",
            r#"{"type":"user","uuid":"u2","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"cut \ud83d here \ud83d\ude00"}]}}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = budgetlab()
        .args(["import", "--format", "claude-code"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        lines(&out.stdout),
        vec![json!([ok("t1", "Bash", "cut \u{fffd} here 😀")])]
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("budgetlab: replaced 1 lone surrogate escapes with U+FFFD"),
        "{err}"
    );
}
