//! qwen-code chats: `~/.qwen/projects/<cwd>/chats/<sessionId>.jsonl`, one `ChatRecord` a line (`user`,
//! `assistant`, `tool_result` or `system`). Older builds used gemini-cli's JSON documents, which detection
//! reads as gemini-cli.
//!
//! Calls are the `functionCall` parts of `assistant` records, grouped by the record's `uuid` (a streamed turn
//! can be written as several records sharing one). Each result is its own `tool_result` record whose
//! `functionResponse` part carries the call id (or `toolCallResult.callId`). The text is `response.output`,
//! else `response.error`, else the JSON of `response`; the call failed when `toolCallResult.status` is `error`
//! or `cancelled`, `toolCallResult.error` is set, or the response has an `error`. Branches abandoned by a
//! rewind or resume stay in the file and are kept, in file order: they were sent to the model too.

use serde_json::{Map, Value};

use super::gemini_cli::{message_text, own_response, response_result};
use super::read::{Source, Tally};
use super::turns::{args_text, required_str, Turns};
use super::SessionFormat;
use crate::error::Result;

/// The qwen-code format.
pub(super) struct QwenCode;

impl SessionFormat for QwenCode {
    fn name(&self) -> &'static str {
        "qwen-code"
    }

    fn wants_file(&self, file_name: &str) -> bool {
        file_name.ends_with(".jsonl")
    }

    fn sniff_line(&self, line: &Map<String, Value>) -> bool {
        let ty = line.get("type").and_then(Value::as_str);
        ty == Some("tool_result")
            || line.contains_key("systemPayload")
            || line.contains_key("toolCallResult")
            || (matches!(ty, Some("user" | "assistant" | "system"))
                && line.contains_key("uuid")
                && line
                    .get("message")
                    .is_some_and(|m| m.get("parts").is_some_and(Value::is_array)))
    }

    fn read(&self, source: &Source, tally: &mut Tally) -> Result<Turns> {
        let mut turns = Turns::new();
        source.each_line(tally, |n, line, tally| {
            read_record(&mut turns, n, &line, tally).map_err(|m| source.error_at(n, m))
        })?;
        Ok(turns)
    }
}

fn read_record(
    turns: &mut Turns,
    number: usize,
    record: &Map<String, Value>,
    tally: &mut Tally,
) -> std::result::Result<(), String> {
    let parts: &[Value] = record
        .get("message")
        .and_then(|m| m.get("parts"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    if let Some(Value::String(session)) = record.get("sessionId") {
        turns.session(session);
    }
    match record.get("type").and_then(Value::as_str) {
        Some("assistant") => {
            let turn = match record.get("uuid").and_then(Value::as_str) {
                Some(uuid) => format!("uuid:{uuid}"),
                None => format!("line:{number}"),
            };
            turns.message(
                &turn,
                message_text(record.get("message").and_then(|m| m.get("parts"))),
            );
            let mut calls = 0;
            for (i, part) in parts.iter().enumerate() {
                let Some(call) = part.get("functionCall") else {
                    continue;
                };
                if let Some(args) = call.get("args") {
                    turns.said(&turn, args_text(args));
                }
                let at = |m: String| format!("message.parts[{i}].functionCall: {m}");
                let call = call
                    .as_object()
                    .ok_or_else(|| at("must be an object".into()))?;
                let id = required_str(call, "id").map_err(at)?;
                let name = required_str(call, "name").map_err(at)?;
                calls += 1;
                if !turns.call(&turn, id, name) {
                    tally.skip("tool call repeated (same id in the same turn)");
                } else if let Some(args) = call.get("args") {
                    turns.arguments(&turn, id, args.to_string());
                }
            }
            if calls == 0 {
                tally.skip("assistant record without tool calls");
            }
        }
        Some("tool_result") => {
            let status = record
                .get("toolCallResult")
                .and_then(|r| r.get("status"))
                .and_then(Value::as_str);
            let error_set = record
                .get("toolCallResult")
                .and_then(|r| r.get("error"))
                .is_some_and(|e| !e.is_null());
            let fallback_id = record
                .get("toolCallResult")
                .and_then(|r| r.get("callId"))
                .and_then(Value::as_str);
            let mut found = 0;
            for (i, part) in parts.iter().enumerate() {
                let Some(fr) = part.get("functionResponse") else {
                    continue;
                };
                let id = match (fr.get("id").and_then(Value::as_str), fallback_id) {
                    (Some(id), _) | (None, Some(id)) => id,
                    (None, None) => {
                        return Err(format!(
                            "message.parts[{i}].functionResponse has no \"id\" and the record no toolCallResult.callId"
                        ))
                    }
                };
                let Some((response, media)) = own_response(&parts[i..], id) else {
                    continue;
                };
                found += 1;
                let mut result = response_result(response);
                result.is_error |= error_set || matches!(status, Some("error" | "cancelled"));
                result.media = media;
                if !turns.result(id, result) {
                    tally.skip("tool result repeated (same id and content)");
                }
            }
            if found == 0 {
                tally.skip("tool_result record without a functionResponse");
            }
        }
        Some("user") => {
            let text = message_text(record.get("message").and_then(|m| m.get("parts")));
            turns.task(&text);
            turns.context(text);
            tally.skip("user record")
        }
        Some("system") => match record.get("subtype").and_then(Value::as_str) {
            Some("chat_compression") => tally.skip("system record: chat_compression"),
            _ => tally.skip("system record"),
        },
        _ => tally.skip("record of another type"),
    }
    Ok(())
}
