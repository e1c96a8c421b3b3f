//! gemini-cli chats: `~/.gemini/tmp/<project>/chats/session-<date>-<id>.json` (one `ConversationRecord`
//! document, rewritten whole) or, since 2026, `.jsonl` (a metadata line, then message records where a later
//! record with the same `id` replaces the earlier one, `{"$set": ..}` updates whose `messages` rebuild the
//! list, and `{"$rewindTo": id}` which drops that message and every later one).
//!
//! Calls and results both live in the `toolCalls` of `gemini` messages: one such message is one batch, in
//! `toolCalls` order. A call's `result` is the `Part[]` sent back to the model, and may hold the
//! functionResponse parts of the whole batch, so the part whose `functionResponse.id` is the call's id is
//! the one taken, with the `inlineData`/`fileData` parts that follow it (and those nested in its `parts`).
//! The text is `response.output`, else `response.error`, else the JSON of `response`; the call failed when its
//! `status` is `error` or `cancelled` or the response has an `error`. `resultDisplay` is the UI's and is ignored.

use std::collections::HashMap;
use std::io::Cursor;

use serde_json::{Map, Value};

use super::read::{each_line_of, parse_document, Source, Tally};
use super::turns::{args_text, content_text, required_str, ToolResult, Turns};
use super::SessionFormat;
use crate::error::Result;
use crate::model::Part;

/// The gemini-cli format.
pub(super) struct GeminiCli;

impl SessionFormat for GeminiCli {
    fn name(&self) -> &'static str {
        "gemini-cli"
    }

    fn wants_file(&self, file_name: &str) -> bool {
        file_name.ends_with(".json") || file_name.ends_with(".jsonl")
    }

    fn sniff_line(&self, line: &Map<String, Value>) -> bool {
        line.contains_key("$set")
            || line.contains_key("$rewindTo")
            || (line.contains_key("projectHash") && line.contains_key("sessionId"))
            || (line.get("type").and_then(Value::as_str) == Some("gemini")
                && line.contains_key("id"))
    }

    fn sniff_document(&self, doc: &Value) -> bool {
        doc.get("messages").is_some_and(Value::is_array)
            && (doc.get("projectHash").is_some() || doc.get("sessionId").is_some())
            && doc.get("trajectory_format").is_none()
    }

    fn read(&self, source: &Source, tally: &mut Tally) -> Result<Turns> {
        let bytes = source.bytes()?;
        let mut scratch = Tally::default();
        let mut turns = Turns::new();
        let messages = match parse_document(&source.path, &bytes, &mut scratch) {
            Ok(Value::Object(mut doc)) if doc.get("messages").is_some_and(Value::is_array) => {
                tally.merge(&scratch);
                if let Some(Value::String(id)) = doc.get("sessionId") {
                    turns.session(id);
                }
                match doc.remove("messages") {
                    Some(Value::Array(m)) => m,
                    _ => unreachable!("checked above"),
                }
            }
            _ => replay_lines(source, &bytes, tally)?,
        };
        for (i, message) in messages.iter().enumerate() {
            read_message(&mut turns, i, message, tally)
                .map_err(|m| source.error(format!("messages[{i}]: {m}")))?;
        }
        Ok(turns)
    }
}

/// The message list a JSON Lines session ends with, after replacements, `$set` checkpoints and rewinds.
fn replay_lines(source: &Source, bytes: &[u8], tally: &mut Tally) -> Result<Vec<Value>> {
    let mut messages: Vec<Value> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let reindex = |messages: &[Value], index: &mut HashMap<String, usize>| {
        index.clear();
        for (i, m) in messages.iter().enumerate() {
            if let Some(id) = m.get("id").and_then(Value::as_str) {
                index.insert(id.to_string(), i);
            }
        }
    };
    each_line_of(
        Cursor::new(bytes),
        &source.path,
        tally,
        |n, mut line, tally| {
            if let Some(set) = line.get_mut("$set") {
                match set.get_mut("messages").map(Value::take) {
                    Some(Value::Array(list)) => {
                        messages = list;
                        reindex(&messages, &mut index);
                        tally.skip("$set line (checkpoint of the message list)");
                    }
                    Some(_) => return Err(source.error_at(n, "\"$set.messages\" must be an array")),
                    None => tally.skip("$set line (metadata update)"),
                }
                return Ok(());
            }
            if let Some(target) = line.get("$rewindTo") {
                let Some(id) = target.as_str() else {
                    return Err(source.error_at(n, "\"$rewindTo\" must be a message id string"));
                };
                match index.get(id) {
                    Some(&at) => {
                        for _ in at..messages.len() {
                            tally.skip("message dropped by a rewind");
                        }
                        messages.truncate(at);
                        reindex(&messages, &mut index);
                    }
                    None => tally.skip("rewind to an unknown message"),
                }
                tally.skip("$rewindTo line");
                return Ok(());
            }
            let id = match (line.get("id"), line.get("type")) {
                (Some(Value::String(id)), Some(Value::String(_))) => id.clone(),
                _ => {
                    tally.skip("metadata line");
                    return Ok(());
                }
            };
            match index.get(&id) {
                Some(&at) => {
                    messages[at] = Value::Object(line);
                    tally.skip("message record replaced by a later line");
                }
                None => {
                    index.insert(id, messages.len());
                    messages.push(Value::Object(line));
                }
            }
            Ok(())
        },
    )?;
    Ok(messages)
}

fn read_message(
    turns: &mut Turns,
    index: usize,
    message: &Value,
    tally: &mut Tally,
) -> std::result::Result<(), String> {
    let turn = match message.get("id").and_then(Value::as_str) {
        Some(id) => format!("id:{id}"),
        None => format!("index:{index}"),
    };
    let text = message_text(message.get("content"));
    match message.get("type").and_then(Value::as_str) {
        Some("gemini") => {
            turns.message(&turn, text);
            if let Some(Value::Array(thoughts)) = message.get("thoughts") {
                for t in thoughts {
                    turns.message(&turn, args_text(t));
                }
            }
            if let Some(Value::Array(calls)) = message.get("toolCalls") {
                for call in calls {
                    if let Some(args) = call.get("args") {
                        turns.said(&turn, args_text(args));
                    }
                }
            }
        }
        ty => {
            if ty == Some("user") {
                turns.task(&text);
            }
            turns.context(text)
        }
    }
    let calls = match (
        message.get("type").and_then(Value::as_str),
        message.get("toolCalls"),
    ) {
        (Some("gemini"), Some(Value::Array(calls))) if !calls.is_empty() => calls,
        _ => {
            tally.skip("message without tool calls");
            return Ok(());
        }
    };
    for (j, call) in calls.iter().enumerate() {
        let at = |m: String| format!("toolCalls[{j}]: {m}");
        let call = call
            .as_object()
            .ok_or_else(|| at("a tool call must be an object".into()))?;
        let id = required_str(call, "id").map_err(at)?;
        let name = required_str(call, "name").map_err(at)?;
        if !turns.call(&turn, id, name) {
            tally.skip("tool call repeated (same id in the same turn)");
            continue;
        }
        if let Some(args) = call.get("args") {
            turns.arguments(&turn, id, args.to_string());
        }
        let parts = match call.get("result") {
            Some(Value::Array(parts)) => parts,
            None | Some(Value::Null) => continue, // no result recorded: the call is dropped
            Some(_) => return Err(at("\"result\" must be an array of parts".into())),
        };
        let status = call.get("status").and_then(Value::as_str);
        match own_response(parts, id) {
            Some((response, media)) => {
                let mut result = response_result(response);
                result.is_error |= matches!(status, Some("error" | "cancelled"));
                result.media = media;
                if !turns.result(id, result) {
                    tally.skip("tool result repeated (same id and content)");
                }
            }
            None => tally.skip("tool call whose result holds no functionResponse for it"),
        }
    }
    Ok(())
}

/// The text of a message's `content`: a string, or its parts' `text` (a `functionResponse` part is a result, not
/// text), one a line.
pub(super) fn message_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::Array(parts)) => {
            let mut out = String::new();
            for p in parts {
                if let Some(Value::String(t)) = p.get("text") {
                    out.push_str(t);
                    out.push('\n');
                }
            }
            out
        }
        other => content_text(other),
    }
}

/// The functionResponse of call `id` among `parts` (by id; else the only functionResponse, when it has no id),
/// and its media: the parts nested in it, then the media parts that follow it up to the next functionResponse.
pub(super) fn own_response<'a>(
    parts: &'a [Value],
    id: &str,
) -> Option<(&'a Map<String, Value>, Vec<Part>)> {
    let responses: Vec<usize> = parts
        .iter()
        .enumerate()
        .filter(|(_, p)| p.get("functionResponse").is_some_and(Value::is_object))
        .map(|(i, _)| i)
        .collect();
    let fr = |i: usize| parts[i]["functionResponse"].as_object().expect("filtered");
    let at = responses
        .iter()
        .copied()
        .find(|&i| fr(i).get("id").and_then(Value::as_str) == Some(id))
        .or_else(|| match responses.as_slice() {
            [only] if fr(*only).get("id").is_none() => Some(*only),
            _ => None,
        })?;
    let response = fr(at);
    let mut media: Vec<Part> = Vec::new();
    if let Some(Value::Array(nested)) = response.get("parts") {
        media.extend(nested.iter().filter_map(media_part));
    }
    for part in &parts[at + 1..] {
        if part.get("functionResponse").is_some() {
            break;
        }
        media.extend(media_part(part));
    }
    Some((response, media))
}

/// An `inlineData` or `fileData` part, copied as recorded.
fn media_part(part: &Value) -> Option<Part> {
    let map = part.as_object()?;
    (map.contains_key("inlineData") || map.contains_key("fileData")).then(|| Part(map.clone()))
}

/// The text and error flag of a functionResponse: `response.output`, else `response.error`, else the JSON of
/// `response`; failed when `response` has an `error`.
pub(super) fn response_result(fr: &Map<String, Value>) -> ToolResult {
    let response = fr.get("response");
    let field = |k: &str| response.and_then(|r| r.get(k));
    let is_error = field("error").is_some_and(|e| !e.is_null());
    let text = match (field("output"), field("error")) {
        (Some(Value::String(o)), _) => o.clone(),
        (_, Some(Value::String(e))) => e.clone(),
        _ => response.map_or_else(String::new, |r| r.to_string()),
    };
    ToolResult::text(text, is_error)
}
