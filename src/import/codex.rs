//! OpenAI Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`, one line a record:
//! `{timestamp, type, payload}` envelopes, or (older Rust builds) a bare session-meta first line, bare response
//! items and `{"record_type":"state"}` lines.
//!
//! Calls are the `function_call`, `custom_tool_call` and `local_shell_call` response items; results the
//! `function_call_output` and `custom_tool_call_output` items, matched by `call_id`. Codex records items as
//! they stream, so a turn is a run of calls that no other record interrupts: a reasoning or message item, a
//! `token_count` event (which ends every sampling request), a turn context, a legacy state line, a compaction
//! or any other record ends it. Outputs and the other `event_msg` lines do not: `exec_command_end`, `patch_apply_end` and
//! `mcp_tool_call_end` are the UI's copies of results, counted and ignored so nothing is counted twice.
//! Codex records no error flag; a call failed when its structured output's `metadata.exit_code` or its
//! freeform first line `Exit code: N` is nonzero.

use serde_json::{Map, Value};

use super::read::{Source, Tally};
use super::turns::{
    args_text, content_text, image_url_part, kind, required_str, ToolResult, Turns,
};
use super::SessionFormat;
use crate::error::Result;

/// The Codex CLI format.
pub(super) struct Codex;

const ENVELOPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

impl SessionFormat for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn wants_file(&self, file_name: &str) -> bool {
        file_name.ends_with(".jsonl")
    }

    fn sniff_line(&self, line: &Map<String, Value>) -> bool {
        let ty = line.get("type").and_then(Value::as_str);
        (line.contains_key("payload") && ty.is_some_and(|t| ENVELOPES.contains(&t)))
            || line.contains_key("record_type")
            || (ty.is_none() && line.contains_key("instructions") && line.contains_key("id"))
            || matches!(
                ty,
                Some(
                    "function_call"
                        | "function_call_output"
                        | "custom_tool_call"
                        | "local_shell_call"
                        | "reasoning"
                )
            )
    }

    fn read(&self, source: &Source, tally: &mut Tally) -> Result<Turns> {
        let mut state = State {
            turns: Turns::new(),
            run: 0,
            open: false,
        };
        source.each_line(tally, |n, line, tally| {
            state.line(&line, tally).map_err(|m| source.error_at(n, m))
        })?;
        Ok(state.turns)
    }
}

struct State {
    turns: Turns,
    /// The number of the current run of calls.
    run: u64,
    /// Whether the current run has a call yet.
    open: bool,
}

impl State {
    /// A record that ends the current run of calls.
    fn separate(&mut self) {
        if self.open {
            self.run += 1;
            self.open = false;
        }
    }

    fn line(
        &mut self,
        line: &Map<String, Value>,
        tally: &mut Tally,
    ) -> std::result::Result<(), String> {
        let ty = line.get("type").and_then(Value::as_str);
        let enveloped = line.contains_key("payload") && ty.is_some_and(|t| ENVELOPES.contains(&t))
            || (ty.is_some() && line.get("payload").is_some_and(Value::is_object));
        if !enveloped {
            if line.contains_key("record_type") {
                self.separate();
                tally.skip("state line");
                return Ok(());
            }
            if ty.is_none() {
                self.separate();
                if let Some(Value::String(id)) = line.get("id") {
                    self.turns.session(id);
                }
                tally.skip("session meta line");
                return Ok(());
            }
            return self.item(line, tally);
        }
        let payload = line.get("payload").and_then(Value::as_object);
        match ty {
            Some("response_item") => match payload {
                Some(item) => self.item(item, tally).map_err(|m| format!("payload: {m}")),
                None => Err("a response_item without an object payload".into()),
            },
            Some("event_msg") => {
                match payload.and_then(|p| p.get("type")).and_then(Value::as_str) {
                    Some("token_count") => {
                        self.separate();
                        tally.skip("token_count event");
                    }
                    Some("exec_command_end" | "patch_apply_end" | "mcp_tool_call_end") => {
                        tally.skip("event_msg copy of a tool result (UI)")
                    }
                    _ => tally.skip("event_msg line (UI)"),
                }
                Ok(())
            }
            Some("session_meta") => {
                self.separate();
                if let Some(Value::String(id)) = payload.and_then(|p| p.get("id")) {
                    self.turns.session(id);
                }
                tally.skip("session_meta line");
                Ok(())
            }
            Some("turn_context") => {
                self.separate();
                tally.skip("turn_context line");
                Ok(())
            }
            Some("compacted") => {
                self.separate();
                tally.skip("compacted line (history replacement)");
                Ok(())
            }
            _ => {
                self.separate();
                tally.skip("line of another type");
                Ok(())
            }
        }
    }

    fn item(
        &mut self,
        item: &Map<String, Value>,
        tally: &mut Tally,
    ) -> std::result::Result<(), String> {
        let run = format!("run:{}", self.run);
        match item.get("type").and_then(Value::as_str) {
            Some(ty @ ("function_call" | "custom_tool_call")) => {
                let at = |m: String| format!("{ty} {m}");
                let id = required_str(item, "call_id").map_err(at)?;
                let name = required_str(item, "name").map_err(at)?;
                for key in ["arguments", "input"] {
                    if let Some(args) = item.get(key) {
                        self.turns.said(&run, args_text(args));
                    }
                }
                self.open = true;
                if !self.turns.call(&run, id, name) {
                    tally.skip("line repeated by a resumed session");
                } else if let Some(args) = item.get("arguments").or_else(|| item.get("input")) {
                    self.turns.arguments(&run, id, value_text(args));
                }
            }
            Some("local_shell_call") => {
                let id = match (item.get("call_id"), item.get("id")) {
                    (Some(Value::String(id)), _) | (_, Some(Value::String(id))) => id,
                    _ => {
                        return Err("local_shell_call without a string \"call_id\" or \"id\"".into())
                    }
                };
                if let Some(action) = item.get("action") {
                    self.turns.said(&run, args_text(action));
                }
                self.open = true;
                if !self.turns.call(&run, id, "local_shell") {
                    tally.skip("line repeated by a resumed session");
                } else if let Some(action) = item.get("action") {
                    self.turns.arguments(&run, id, value_text(action));
                }
            }
            Some(ty @ ("function_call_output" | "custom_tool_call_output")) => {
                let at = |m: String| format!("{ty} {m}");
                let id = required_str(item, "call_id").map_err(at)?;
                let result = output(item.get("output"), tally).map_err(at)?;
                if !self.turns.result(id, result) {
                    tally.skip("line repeated by a resumed session");
                }
            }
            Some("web_search_call" | "image_generation_call" | "tool_search_call") => {
                tally.skip("hosted tool call (no output to import)");
            }
            Some("reasoning") => {
                self.separate();
                let run = format!("run:{}", self.run);
                for key in ["summary", "content"] {
                    self.turns.message(&run, content_text(item.get(key)));
                }
                tally.skip("reasoning item");
            }
            Some("message") => {
                self.separate();
                let text = content_text(item.get("content"));
                match item.get("role").and_then(Value::as_str) {
                    Some("assistant") => self.turns.message(&format!("run:{}", self.run), text),
                    role => {
                        // The first user message that is not the harness's (`<environment_context>`, the
                        // instructions file, all in tags) is the task.
                        if role == Some("user") && !text.trim_start().starts_with('<') {
                            self.turns.task(&text);
                        }
                        self.turns.context(text)
                    }
                }
                tally.skip("message item");
            }
            Some("ghost_snapshot") => {
                self.separate();
                tally.skip("ghost_snapshot item (harness snapshot)");
            }
            Some("compaction") => {
                self.separate();
                tally.skip("compaction item");
            }
            _ => {
                self.separate();
                tally.skip("response item of another type");
            }
        }
        Ok(())
    }
}

/// The result of an output item: a string kept verbatim (failed when its exit code is nonzero), or content
/// items (`input_text` joined with `"\n"`, `input_image` data URLs as `inlineData`), or one unwrapped item.
fn output(output: Option<&Value>, tally: &mut Tally) -> std::result::Result<ToolResult, String> {
    let items = match output {
        Some(Value::String(s)) => return Ok(ToolResult::text(s.clone(), failed(s))),
        Some(Value::Array(items)) => items.as_slice(),
        Some(one @ Value::Object(_)) => std::slice::from_ref(one),
        Some(other) => {
            return Err(format!(
                "\"output\" must be a string or content items, found {}",
                kind(other)
            ))
        }
        None => return Err("missing \"output\"".into()),
    };
    let mut texts: Vec<&str> = Vec::new();
    let mut media = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.get("type").and_then(Value::as_str) {
            Some("input_text" | "output_text" | "text") => match item.get("text") {
                Some(Value::String(t)) => texts.push(t),
                _ => {
                    return Err(format!(
                        "output[{i}]: a text item without a string \"text\""
                    ))
                }
            },
            Some("input_image") => match item.get("image_url") {
                Some(Value::String(url)) => media.push(image_url_part(url)),
                _ => {
                    return Err(format!(
                        "output[{i}]: an input_image without a string \"image_url\""
                    ))
                }
            },
            _ => tally.skip("non-text content block of an unsupported type"),
        }
    }
    Ok(ToolResult {
        text: texts.join("\n"),
        is_error: false,
        media,
    })
}

/// Whether a shell output string reports a nonzero exit: the structured form's `metadata.exit_code`, or the
/// freeform form's first line `Exit code: N`.
fn failed(text: &str) -> bool {
    if text.starts_with('{') {
        if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) {
            if let Some(code) = map
                .get("metadata")
                .and_then(|m| m.get("exit_code"))
                .and_then(Value::as_i64)
            {
                return code != 0;
            }
        }
    }
    let first = text.lines().next().unwrap_or("");
    first
        .strip_prefix("Exit code: ")
        .and_then(|n| n.trim().parse::<i64>().ok())
        .is_some_and(|code| code != 0)
}

/// A call's arguments as text for its context: a string as it is (Codex's `arguments` is JSON text already),
/// anything else as compact JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_comes_from_the_exit_code_only() {
        assert!(failed(
            r#"{"output":"boom\n","metadata":{"exit_code":1,"duration_seconds":0.1}}"#
        ));
        assert!(!failed(
            r#"{"output":"ok\n","metadata":{"exit_code":0,"duration_seconds":0.1}}"#
        ));
        assert!(failed("Exit code: 2\nWall time: 0.1 seconds\nOutput:\nno"));
        assert!(!failed("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"));
        assert!(!failed("err: the MCP server failed"));
        assert!(!failed("Output:\nExit code: 3"));
    }
}
