//! mini-swe-agent trajectories: `<output>/<instance>/<instance>.traj.json`, `{info, messages,
//! trajectory_format}` (or, in test data, the bare `messages` list).
//!
//! v1 (text mode): each assistant message holds one fenced bash block, and its result is the next user message
//! when that message holds `<returncode>` (format errors, timeouts and limit notices also arrive as user
//! messages, and answer no call). The call is numbered `step-<n>` (n counts assistant messages from 0) and
//! named `bash`. v2 (tool calling): the assistant's `tool_calls` name the calls, and each `role: "tool"`
//! message answers its `tool_call_id`; a batch can then be wider than one. A call failed when its return code,
//! from `extra.returncode` or the `<returncode>N</returncode>` tag, is nonzero.

use serde_json::Value;

use super::read::{Source, Tally};
use super::swe_agent::{content_result, instance_id, said_by_assistant, tool_calls};
use super::turns::{content_text, kind, Turns};
use super::SessionFormat;
use crate::error::Result;

/// The mini-swe-agent format.
pub(super) struct MiniSweAgent;

impl SessionFormat for MiniSweAgent {
    fn name(&self) -> &'static str {
        "mini-swe-agent"
    }

    fn wants_file(&self, file_name: &str) -> bool {
        file_name.ends_with(".json")
    }

    fn sniff_document(&self, doc: &Value) -> bool {
        let messages = match doc {
            Value::Array(list) => list,
            Value::Object(map) => {
                let tagged = map
                    .get("trajectory_format")
                    .and_then(Value::as_str)
                    .is_some_and(|f| f.starts_with("mini-swe-agent"));
                match map.get("messages") {
                    Some(Value::Array(list)) if tagged || map.contains_key("info") => list,
                    _ => return false,
                }
            }
            _ => return false,
        };
        !messages.is_empty()
            && messages
                .iter()
                .all(|m| m.get("role").is_some_and(Value::is_string))
    }

    fn read(&self, source: &Source, tally: &mut Tally) -> Result<Turns> {
        let doc = source.document(tally)?;
        let mut turns = read_document(&doc, tally).map_err(|m| source.error(m))?;
        if let Some(id) = instance_id(&doc, &source.path, ".traj.json") {
            turns.issue(&id);
        }
        Ok(turns)
    }
}

/// The command of the first fenced code block of an assistant's text (```` ```bash ````, or any language tag), as
/// the agent wrote it; `None` without one.
fn fenced_command(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let after = &text[start + 3..];
    let body = &after[after.find('\n')? + 1..];
    let end = body.find("```")?;
    Some(body[..end].trim_end())
}

/// The number in the first `<returncode>N</returncode>` of `text`.
fn tagged_returncode(text: &str) -> Option<i64> {
    let start = text.find("<returncode>")? + "<returncode>".len();
    let len = text[start..].find("</returncode>")?;
    text[start..start + len].trim().parse().ok()
}

fn read_document(doc: &Value, tally: &mut Tally) -> std::result::Result<Turns, String> {
    let messages = match doc {
        Value::Array(list) => list,
        Value::Object(map) => match map.get("messages") {
            Some(Value::Array(list)) => list,
            Some(other) => {
                return Err(format!(
                    "\"messages\" must be a list, found {}",
                    kind(other)
                ))
            }
            None => return Err("no \"messages\" list".into()),
        },
        other => {
            return Err(format!(
                "a trajectory must be an object or a list, found {}",
                kind(other)
            ))
        }
    };
    let mut turns = Turns::new();
    let mut step = 0usize;
    let mut pending: Option<String> = None;
    for (i, message) in messages.iter().enumerate() {
        let what = format!("messages[{i}]");
        let waiting = pending.take();
        match message.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                let turn = format!("step:{step}");
                let raw_calls = match message.get("tool_calls") {
                    Some(Value::Array(calls)) => calls.as_slice(),
                    _ => &[],
                };
                said_by_assistant(&mut turns, &turn, message, raw_calls);
                let calls = match message.get("tool_calls") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(calls)) => tool_calls(calls, &format!("{what}.tool_calls"))?,
                    Some(other) => {
                        return Err(format!(
                            "{what}.tool_calls must be a list, found {}",
                            kind(other)
                        ))
                    }
                };
                if calls.is_empty() {
                    let id = format!("step-{step}");
                    turns.synthetic_call(&turn, &id, "bash");
                    let content = content_text(message.get("content"));
                    if let Some(command) = fenced_command(&content) {
                        turns.arguments(&turn, &id, command);
                    }
                    pending = Some(id);
                } else {
                    for (id, name, args) in calls {
                        if !turns.call(&turn, &id, &name) {
                            tally.skip("tool call repeated (same id in the same turn)");
                        } else {
                            turns.arguments(&turn, &id, args);
                        }
                    }
                }
                step += 1;
            }
            Some("tool") => {
                let id = match message.get("tool_call_id") {
                    Some(Value::String(id)) => id,
                    _ => {
                        return Err(format!(
                            "{what}: a tool message without a string tool_call_id"
                        ))
                    }
                };
                let mut result = content_result(message.get("content"), &what, tally)?;
                let code = message
                    .get("extra")
                    .and_then(|e| e.get("returncode"))
                    .and_then(Value::as_i64)
                    .or_else(|| tagged_returncode(&result.text));
                result.is_error = code.is_some_and(|c| c != 0);
                if !turns.result(id, result) {
                    tally.skip("tool result repeated (same id and content)");
                }
            }
            Some("user") => {
                let mut result = content_result(message.get("content"), &what, tally)?;
                match (waiting, result.text.contains("<returncode>")) {
                    (Some(id), true) => {
                        result.is_error = tagged_returncode(&result.text).is_some_and(|c| c != 0);
                        turns.result(&id, result);
                    }
                    (_, false) => {
                        // The first user message (the task template, holding the issue) is the task.
                        turns.task(&result.text);
                        turns.context(result.text);
                        tally.skip("user message without <returncode> (feedback, not a result)")
                    }
                    (None, true) => {
                        turns.context(result.text);
                        tally.skip("user message that answers no call")
                    }
                }
            }
            _ => {
                turns.context(content_text(message.get("content")));
                tally.skip("system message")
            }
        }
    }
    Ok(turns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_returncode_tag() {
        assert_eq!(
            tagged_returncode("<returncode>0</returncode>\n<output>"),
            Some(0)
        );
        assert_eq!(
            tagged_returncode("x <returncode> 127 </returncode>"),
            Some(127)
        );
        assert_eq!(tagged_returncode("<returncode>n/a</returncode>"), None);
        assert_eq!(tagged_returncode("no tag"), None);
    }
}
