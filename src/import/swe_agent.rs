//! SWE-agent trajectories: `<run>/<instance>/<instance>.traj`, one JSON document with `trajectory` (raw steps)
//! and `history` (the chat the model saw), in 1.x and 0.x.
//!
//! Batches come from `history`, which holds what the model was sent (the raw `trajectory[].observation` lacks
//! the template around it). Each assistant message is one turn of width one. With function calling its
//! `tool_calls` name the call and the following `role: "tool"` message answers it by `tool_call_ids`; both
//! fields may be stringified Python lists in old files and are read as Python literals. In text mode the
//! answer is the next message when it is a user observation (`message_type` absent or `observation`); the call
//! is then numbered `step-<n>` (n counts the non-demonstration assistant messages from 0) and named by the
//! first word of its `action` (from the message, else `trajectory[n]`). Demonstration messages (`is_demo`) are
//! skipped. SWE-agent records no error flag, so none is set.

use serde_json::Value;

use super::pyrepr;
use super::read::{Source, Tally};
use super::turns::{args_text, chat_blocks, content_text, kind, ToolResult, Turns};
use super::SessionFormat;
use crate::error::Result;

/// The SWE-agent format.
pub(super) struct SweAgent;

impl SessionFormat for SweAgent {
    fn name(&self) -> &'static str {
        "swe-agent"
    }

    fn wants_file(&self, file_name: &str) -> bool {
        file_name.ends_with(".traj")
    }

    fn sniff_document(&self, doc: &Value) -> bool {
        doc.get("history").is_some_and(Value::is_array) && doc.get("trajectory").is_some()
    }

    fn read(&self, source: &Source, tally: &mut Tally) -> Result<Turns> {
        let doc = source.document(tally)?;
        let mut turns = read_document(&doc, tally).map_err(|m| source.error(m))?;
        if let Some(id) = instance_id(&doc, &source.path, ".traj") {
            turns.issue(&id);
        }
        Ok(turns)
    }
}

/// The benchmark instance (the issue) a trajectory worked on: `instance_id` in its `info`, the `id` of the
/// `problem_statement` its `replay_config` (a JSON text) names, or else the file's name without `suffix` when
/// that name has an instance id's shape (`owner__repo-NUMBER`, as SWE-bench names them and the runners name
/// their files).
pub(super) fn instance_id(doc: &Value, path: &std::path::Path, suffix: &str) -> Option<String> {
    if let Some(Value::String(id)) = doc.get("info").and_then(|i| i.get("instance_id")) {
        return Some(id.clone());
    }
    let replay = match doc.get("replay_config") {
        Some(Value::String(text)) => serde_json::from_str::<Value>(text).ok(),
        Some(other @ Value::Object(_)) => Some(other.clone()),
        _ => None,
    };
    if let Some(Value::String(id)) = replay
        .as_ref()
        .and_then(|r| r.get("problem_statement"))
        .and_then(|p| p.get("id"))
    {
        return Some(id.clone());
    }
    let name = path.file_name()?.to_str()?.strip_suffix(suffix)?;
    let (repo, number) = name.split_once("__")?.1.rsplit_once('-')?;
    (!repo.is_empty() && !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        .then(|| name.to_string())
}

/// A list field that may be a JSON array or a stringified Python list.
pub(super) fn list_field(
    value: Option<&Value>,
    what: &str,
) -> std::result::Result<Vec<Value>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items.clone()),
        Some(Value::String(text)) => match pyrepr::parse(text) {
            Ok(Value::Array(items)) => Ok(items),
            Ok(other) => Err(format!(
                "{what}: a Python literal that is {}, not a list",
                kind(&other)
            )),
            Err(e) => Err(format!("{what}: not a list or a Python list literal: {e}")),
        },
        Some(other) => Err(format!("{what} must be a list, found {}", kind(other))),
    }
}

/// The text (and images) of a message's `content`: a string, or a list of chat blocks.
pub(super) fn content_result(
    content: Option<&Value>,
    what: &str,
    tally: &mut Tally,
) -> std::result::Result<ToolResult, String> {
    match content {
        Some(Value::String(s)) => Ok(ToolResult::text(s.clone(), false)),
        Some(Value::Array(blocks)) => chat_blocks(blocks, tally).map_err(|m| format!("{what}.{m}")),
        None | Some(Value::Null) => Ok(ToolResult::text("", false)),
        Some(other) => Err(format!(
            "{what}.content must be a string or a list of blocks, found {}",
            kind(other)
        )),
    }
}

/// The id, function name and arguments (as text: a string as it is, anything else as JSON; empty when absent)
/// of each entry of a `tool_calls` list.
pub(super) fn tool_calls(
    calls: &[Value],
    what: &str,
) -> std::result::Result<Vec<(String, String, String)>, String> {
    calls
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let id = c.get("id").and_then(Value::as_str);
            let name = c
                .get("function")
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str);
            let arguments = match c.get("function").and_then(|f| f.get("arguments")) {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
            };
            match (id, name) {
                (Some(id), Some(name)) => Ok((id.to_string(), name.to_string(), arguments)),
                _ => Err(format!(
                    "{what}[{k}] needs a string \"id\" and \"function.name\""
                )),
            }
        })
        .collect()
}

/// Records what an assistant message wrote (its content, else its `thought` and `action`: the assistant's text
/// of the turn) and its calls' arguments, for the used lines.
pub(super) fn said_by_assistant(turns: &mut Turns, turn: &str, message: &Value, calls: &[Value]) {
    let content = content_text(message.get("content"));
    if content.trim().is_empty() {
        for key in ["thought", "action"] {
            if let Some(Value::String(t)) = message.get(key) {
                turns.message(turn, t.clone());
            }
        }
    } else {
        turns.message(turn, content);
    }
    for call in calls {
        if let Some(args) = call.get("function").and_then(|f| f.get("arguments")) {
            turns.said(turn, args_text(args));
        }
    }
}

fn read_document(doc: &Value, tally: &mut Tally) -> std::result::Result<Turns, String> {
    let history = match doc.get("history") {
        Some(Value::Array(h)) => h,
        Some(other) => return Err(format!("\"history\" must be a list, found {}", kind(other))),
        None => return Err("no \"history\" list".into()),
    };
    let trajectory = doc.get("trajectory").and_then(Value::as_array);
    let mut turns = Turns::new();
    let mut step = 0usize;
    // The text-mode call waiting for the very next message.
    let mut pending: Option<String> = None;
    for (i, message) in history.iter().enumerate() {
        let what = format!("history[{i}]");
        let waiting = pending.take();
        if message.get("is_demo") == Some(&Value::Bool(true)) {
            turns.context(content_text(message.get("content")));
            tally.skip("demonstration message");
            continue;
        }
        let role = message.get("role").and_then(Value::as_str);
        match role {
            Some("assistant") => {
                let turn = format!("step:{step}");
                let calls = list_field(message.get("tool_calls"), &format!("{what}.tool_calls"))?;
                said_by_assistant(&mut turns, &turn, message, &calls);
                if calls.is_empty() {
                    let action = match message.get("action") {
                        Some(Value::String(a)) => Some(a.as_str()),
                        _ => trajectory
                            .and_then(|t| t.get(step))
                            .and_then(|s| s.get("action"))
                            .and_then(Value::as_str),
                    };
                    let name = action
                        .and_then(|a| a.split_whitespace().next())
                        .unwrap_or("unknown");
                    let id = format!("step-{step}");
                    turns.synthetic_call(&turn, &id, name);
                    if let Some(action) = action {
                        turns.arguments(&turn, &id, action.trim());
                    }
                    pending = Some(id);
                } else {
                    for (id, name, args) in tool_calls(&calls, &format!("{what}.tool_calls"))? {
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
                let mut ids = list_field(
                    message.get("tool_call_ids"),
                    &format!("{what}.tool_call_ids"),
                )?;
                if ids.is_empty() {
                    if let Some(id) = message.get("tool_call_id") {
                        ids.push(id.clone());
                    }
                }
                if ids.is_empty() {
                    return Err(format!("{what}: a tool message without tool_call_ids"));
                }
                let result = content_result(message.get("content"), &what, tally)?;
                for id in ids {
                    let Value::String(id) = id else {
                        return Err(format!("{what}.tool_call_ids must hold strings"));
                    };
                    if !turns.result(&id, result.clone()) {
                        tally.skip("tool result repeated (same id and content)");
                    }
                }
            }
            Some("user") => {
                let observation = matches!(
                    message.get("message_type").and_then(Value::as_str),
                    None | Some("observation")
                );
                match waiting {
                    Some(id) if observation => {
                        let result = content_result(message.get("content"), &what, tally)?;
                        turns.result(&id, result);
                    }
                    _ => {
                        let text = content_text(message.get("content"));
                        // The first user message (the instance template, holding the issue) is the task.
                        turns.task(&text);
                        turns.context(text);
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
