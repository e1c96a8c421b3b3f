//! Each session format's fixtures import to exactly the expected batches: entries, order, grouping, error
//! flags, texts, media, and the skipped lines counted by reason.

use super::*;

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
