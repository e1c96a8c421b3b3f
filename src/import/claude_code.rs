//! Claude Code sessions: `~/.claude/projects/<project>/<sessionId>.jsonl` (and `.../subagents/agent-*.jsonl`),
//! one JSON object a line.
//!
//! Calls are the `tool_use` blocks of `assistant` lines, grouped into turns by the API message id
//! (`message.id`): a streamed response is written one content block a line, so grouping by line would lose
//! the width of parallel calls. Results are the `tool_result` blocks of `user` lines, matched by `tool_use_id`
//! whatever order or line they come in; `is_error: true` makes an error. The top-level `toolUseResult` is the
//! UI's copy and is ignored; so are compaction summaries, `isMeta` lines, hook `progress` and `system` lines,
//! snapshots and queue operations. Lines repeated by a resumed session are recognised by their ids.
//!
//! Headless runs (`claude -p --output-format stream-json`, as CI jobs record them) are read the same way: their
//! `assistant` and `user` lines carry the same API messages, without the transcript's `uuid` and with the session
//! in `session_id`; the `system` line of subtype `init` opens them, a `result` line closes them (the final answer
//! and the run's cost), and `stream_event` lines (partial messages) may come between. None of those holds a call
//! or a result.

use serde_json::{Map, Value};

use super::read::{Source, Tally};
use super::turns::{args_text, content_text, inline_data, kind, required_str, ToolResult, Turns};
use super::SessionFormat;
use crate::error::Result;

/// The Claude Code format.
pub(super) struct ClaudeCode;

/// Line types only Claude Code writes.
const OWN_TYPES: &[&str] = &[
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
];

impl SessionFormat for ClaudeCode {
    fn name(&self) -> &'static str {
        "claude-code"
    }

    fn wants_file(&self, file_name: &str) -> bool {
        file_name.ends_with(".jsonl")
    }

    fn sniff_line(&self, line: &Map<String, Value>) -> bool {
        let Some(ty) = line.get("type").and_then(Value::as_str) else {
            return false;
        };
        if OWN_TYPES.contains(&ty) {
            return true;
        }
        // A headless run's own lines: its opening, its closing and its partial messages.
        let headless = line.contains_key("session_id")
            && match ty {
                "system" => line.get("subtype").and_then(Value::as_str) == Some("init"),
                "result" => line.contains_key("subtype") && line.contains_key("num_turns"),
                "stream_event" => line.contains_key("event"),
                _ => false,
            };
        if headless {
            return true;
        }
        matches!(ty, "user" | "assistant" | "system")
            && (line.contains_key("isSidechain")
                || line.contains_key("userType")
                || line
                    .get("message")
                    .is_some_and(|m| m.get("content").is_some() && m.get("parts").is_none()))
    }

    fn read(&self, source: &Source, tally: &mut Tally) -> Result<Turns> {
        let mut turns = Turns::new();
        source.each_line(tally, |n, line, tally| {
            read_line(&mut turns, n, &line, tally).map_err(|m| source.error_at(n, m))
        })?;
        Ok(turns)
    }
}

fn read_line(
    turns: &mut Turns,
    number: usize,
    line: &Map<String, Value>,
    tally: &mut Tally,
) -> std::result::Result<(), String> {
    // A transcript names its session `sessionId`, a headless run `session_id`.
    if let Some(Value::String(session)) = line.get("sessionId").or_else(|| line.get("session_id")) {
        turns.session(session);
    }
    let ty = line.get("type").and_then(Value::as_str);
    let content = line
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array);
    match ty {
        Some("assistant") => {
            let mut calls = 0;
            let mut new = 0;
            let message = line.get("message");
            let turn = match message.and_then(|m| m.get("id")).and_then(Value::as_str) {
                Some(id) => id.to_string(),
                None => match line.get("uuid").and_then(Value::as_str) {
                    Some(uuid) => format!("uuid:{uuid}"),
                    None => format!("line:{number}"),
                },
            };
            for (i, block) in content.into_iter().flatten().enumerate() {
                let Some(block) = block.as_object() else {
                    continue;
                };
                match block.get("type").and_then(Value::as_str) {
                    Some("tool_use") => {
                        if let Some(input) = block.get("input") {
                            turns.said(&turn, args_text(input));
                        }
                    }
                    Some("text" | "thinking") => {
                        for key in ["text", "thinking"] {
                            if let Some(Value::String(t)) = block.get(key) {
                                turns.message(&turn, t.clone());
                            }
                        }
                        continue;
                    }
                    _ => continue,
                }
                let at = |m: String| format!("message.content[{i}]: tool_use {m}");
                let id = required_str(block, "id").map_err(at)?;
                let name = required_str(block, "name").map_err(at)?;
                calls += 1;
                new += usize::from(turns.call(&turn, id, name));
                if let Some(input) = block.get("input") {
                    turns.arguments(&turn, id, input.to_string());
                }
            }
            if calls == 0 {
                tally.skip("assistant line without tool calls");
            } else if new == 0 {
                tally.skip("line repeated by a resumed session");
            }
        }
        Some("user") => {
            // What the user (or the harness) wrote is given text: the task, a message, a summary.
            let given = content_text(line.get("message").and_then(|m| m.get("content")));
            let injected = line.get("isCompactSummary") == Some(&Value::Bool(true))
                || line.get("isMeta") == Some(&Value::Bool(true));
            if !injected {
                // The first thing the user wrote is the task.
                turns.task(&given);
            }
            turns.context(given);
            if line.get("isCompactSummary") == Some(&Value::Bool(true)) {
                tally.skip("compaction summary (user line)");
                return Ok(());
            }
            if line.get("isMeta") == Some(&Value::Bool(true)) {
                tally.skip("meta user line (injected, not a tool result)");
                return Ok(());
            }
            let mut results = 0;
            let mut new = 0;
            for (i, block) in content.into_iter().flatten().enumerate() {
                let Some(block) = block.as_object() else {
                    continue;
                };
                if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                    continue;
                }
                let at = |m: String| format!("message.content[{i}]: tool_result {m}");
                let id = required_str(block, "tool_use_id").map_err(at)?;
                let mut result = result_content(block.get("content"), tally).map_err(at)?;
                result.is_error = block.get("is_error") == Some(&Value::Bool(true));
                results += 1;
                new += usize::from(turns.result(id, result));
            }
            if results == 0 {
                tally.skip("user line without tool results (user input)");
            } else if new == 0 {
                tally.skip("line repeated by a resumed session");
            }
        }
        Some("summary") => {
            if let Some(Value::String(summary)) = line.get("summary") {
                turns.context(summary.clone());
            }
            tally.skip("summary line (compaction)")
        }
        Some("progress") => tally.skip("progress line (hook event)"),
        Some("system") => tally.skip("system line"),
        Some("file-history-snapshot") => tally.skip("file-history-snapshot line"),
        Some("queue-operation") => tally.skip("queue-operation line"),
        Some("result") => tally.skip("result line (a headless run's answer and cost)"),
        Some("stream_event") => tally.skip("stream event (a headless run's partial message)"),
        Some(_) => tally.skip("line of another type"),
        None => tally.skip("line without a type"),
    }
    Ok(())
}

/// The text and images of a `tool_result`'s `content`: absent means `""`, a string is the text, an array holds
/// text blocks (joined with `"\n"`) and image (or document) blocks with a base64 or URL source.
fn result_content(
    content: Option<&Value>,
    tally: &mut Tally,
) -> std::result::Result<ToolResult, String> {
    let blocks = match content {
        None | Some(Value::Null) => return Ok(ToolResult::text("", false)),
        Some(Value::String(s)) => return Ok(ToolResult::text(s.clone(), false)),
        Some(Value::Array(blocks)) => blocks,
        Some(other) => {
            return Err(format!(
                "\"content\" must be a string or an array of blocks, found {}",
                kind(other)
            ))
        }
    };
    let mut texts: Vec<&str> = Vec::new();
    let mut media = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => match block.get("text") {
                Some(Value::String(t)) => texts.push(t),
                _ => {
                    return Err(format!(
                        "content[{j}]: a text block without a string \"text\""
                    ))
                }
            },
            Some("image" | "document") => {
                let source = block.get("source").and_then(Value::as_object);
                let field = |k: &str| source.and_then(|s| s.get(k)).and_then(Value::as_str);
                match (
                    field("type"),
                    field("media_type"),
                    field("data"),
                    field("url"),
                ) {
                    (Some("base64"), Some(mime), Some(data), _) => {
                        media.push(inline_data(mime, data))
                    }
                    (Some("url"), _, _, Some(url)) => media.push(super::turns::file_data(url)),
                    _ => {
                        return Err(format!(
                            "content[{j}]: an image block without a base64 or URL source"
                        ))
                    }
                }
            }
            _ => tally.skip("non-text content block of an unsupported type"),
        }
    }
    Ok(ToolResult {
        text: texts.join("\n"),
        is_error: false,
        media,
    })
}
