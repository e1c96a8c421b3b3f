//! OpenHands events: an event stream (`~/.openhands/sessions/<sid>/events/<n>.json`, one event a file, read in
//! numeric order) or a trajectory export (one JSON list of events).
//!
//! A call is an action with `tool_call_metadata` (`tool_call_id`, `function_name`); the actions that share
//! `tool_call_metadata.model_response.id` are one batch, in action order (without a `model_response`, each
//! action is a batch of its own). An observation answers the call of its own `tool_call_metadata`, else of
//! the action its `cause` names. Its text is what OpenHands sends the model: for `run`, `metadata.prefix +
//! content + metadata.suffix`, then `[Current working directory: ..]`, `[Python interpreter: ..]` and
//! `[Command finished with exit code N]` lines (the last when N is not -1); for `error`, the content and
//! `[Error occurred in processing last action]`; otherwise the content. A `run` with an exit code other than
//! -1 and 0, and every `error`, failed. Image URLs (`extras.image_urls`, a browser `screenshot`) become
//! `inlineData`. Old exports stored `tool_call_metadata`, `args` and `extras` as Python literals; they are read
//! as such. Known limit: OpenHands also cuts long observations to its configured `max_message_chars`, which the
//! events do not record, so the text is imported whole.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::pyrepr;
use super::read::{parse_document, read_bounded, Source, Tally};
use super::turns::{args_text, image_url_part, kind, ToolResult, Turns};
use super::SessionFormat;
use crate::error::Result;

/// The OpenHands format.
pub(super) struct OpenHands;

fn is_event(v: &Value) -> bool {
    v.get("action").is_some_and(Value::is_string)
        || v.get("observation").is_some_and(Value::is_string)
}

impl SessionFormat for OpenHands {
    fn name(&self) -> &'static str {
        "openhands"
    }

    fn wants_file(&self, file_name: &str) -> bool {
        file_name.ends_with(".json")
    }

    fn sniff_document(&self, doc: &Value) -> bool {
        match doc {
            Value::Array(events) => events.first().is_some_and(is_event),
            one => is_event(one) && one.get("source").is_some(),
        }
    }

    fn read(&self, source: &Source, tally: &mut Tally) -> Result<Turns> {
        let events: Vec<(String, Value)> = match &source.events {
            Some(files) => {
                let mut events = Vec::with_capacity(files.len());
                for path in files {
                    let doc = parse_document(path, &read_bounded(path)?, tally)?;
                    events.push((path.display().to_string(), doc));
                }
                events
            }
            None => match source.document(tally)? {
                Value::Array(list) => list
                    .into_iter()
                    .enumerate()
                    .map(|(i, e)| (format!("{} (event {i})", source.path.display()), e))
                    .collect(),
                one => vec![(source.path.display().to_string(), one)],
            },
        };
        let mut state = State::default();
        for (location, event) in &events {
            state
                .event(event, tally)
                .map_err(|m| crate::error::Error::Import {
                    location: location.clone(),
                    message: m,
                })?;
        }
        Ok(state.turns)
    }
}

#[derive(Default)]
struct State {
    turns: Turns,
    /// The call id of each action event id.
    call_of_action: HashMap<String, String>,
}

/// An object field that may be a JSON object or a stringified Python dict.
fn object_field(
    event: &Map<String, Value>,
    key: &str,
) -> std::result::Result<Option<Map<String, Value>>, String> {
    match event.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m.clone())),
        Some(Value::String(text)) => match pyrepr::parse(text) {
            Ok(Value::Object(m)) => Ok(Some(m)),
            Ok(other) => Err(format!(
                "\"{key}\": a Python literal that is {}, not a dict",
                kind(&other)
            )),
            Err(e) => Err(format!(
                "\"{key}\": not an object or a Python dict literal: {e}"
            )),
        },
        Some(other) => Err(format!(
            "\"{key}\" must be an object, found {}",
            kind(other)
        )),
    }
}

/// An event id as a map key (ids are integers; a string id is taken as written).
fn id_key(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

impl State {
    fn event(&mut self, event: &Value, tally: &mut Tally) -> std::result::Result<(), String> {
        let Some(event) = event.as_object() else {
            return Err(format!("an event must be an object, found {}", kind(event)));
        };
        let metadata = object_field(event, "tool_call_metadata")?;
        let call_id = metadata
            .as_ref()
            .and_then(|m| m.get("tool_call_id"))
            .and_then(Value::as_str);
        if event.get("action").is_some_and(Value::is_string) {
            // The action's arguments (its `thought` among them) are what the agent wrote; a user's are given.
            let object = object_field(event, "args")?;
            let args = object
                .as_ref()
                .map(|a| args_text(&Value::Object(a.clone())))
                .unwrap_or_default();
            let (Some(metadata), Some(call_id)) = (&metadata, call_id) else {
                match event.get("source").and_then(Value::as_str) {
                    Some("agent") => {
                        let key = id_key(event.get("id")).unwrap_or_default();
                        self.turns.said(&format!("event:{key}"), args);
                    }
                    source => {
                        // The user's first message is the task.
                        if source == Some("user") {
                            if let Some(Value::String(content)) =
                                object.as_ref().and_then(|a| a.get("content"))
                            {
                                self.turns.task(content);
                            }
                        }
                        self.turns.context(args)
                    }
                }
                tally.skip("action without tool_call_metadata (not a tool call)");
                return Ok(());
            };
            let name = metadata
                .get("function_name")
                .and_then(Value::as_str)
                .ok_or("tool_call_metadata without a string \"function_name\"")?;
            let turn = match metadata
                .get("model_response")
                .and_then(|r| r.get("id"))
                .and_then(Value::as_str)
            {
                Some(response) => format!("response:{response}"),
                None => format!("call:{call_id}"),
            };
            if let Some(id) = id_key(event.get("id")) {
                self.call_of_action.insert(id, call_id.to_string());
            }
            self.turns.said(&turn, args);
            if !self.turns.call(&turn, call_id, name) {
                tally.skip("tool call repeated (same id in the same turn)");
            } else if let Some(mut object) = object {
                // The action's `thought` is the assistant's text of the turn; the rest its arguments.
                if let Some(Value::String(thought)) = object.shift_remove("thought") {
                    self.turns.assistant(&turn, &thought);
                }
                self.turns
                    .arguments(&turn, call_id, Value::Object(object).to_string());
            }
            return Ok(());
        }
        let Some(kind_of) = event.get("observation").and_then(Value::as_str) else {
            tally.skip("event that is neither action nor observation");
            return Ok(());
        };
        let call = match call_id {
            Some(id) => Some(id.to_string()),
            None => id_key(event.get("cause")).and_then(|c| self.call_of_action.get(&c).cloned()),
        };
        let Some(call) = call.filter(|c| self.turns.has_call(c)) else {
            tally.skip("observation that answers no tool call");
            return Ok(());
        };
        let content = match event.get("content") {
            Some(Value::String(c)) => c.as_str(),
            None | Some(Value::Null) => "",
            Some(other) => {
                return Err(format!(
                    "\"content\" must be a string, found {}",
                    kind(other)
                ))
            }
        };
        let extras = object_field(event, "extras")?.unwrap_or_default();
        let mut result = match kind_of {
            "run" => run_text(content, &extras),
            "error" => ToolResult::text(
                format!("{content}\n[Error occurred in processing last action]"),
                true,
            ),
            _ => ToolResult::text(content, false),
        };
        if let Some(Value::Array(urls)) = extras.get("image_urls") {
            result
                .media
                .extend(urls.iter().filter_map(Value::as_str).map(image_url_part));
        }
        if let Some(Value::String(shot)) = extras.get("screenshot") {
            if shot.starts_with("data:") {
                result.media.push(image_url_part(shot));
            }
        }
        if !self.turns.result(&call, result) {
            tally.skip("tool result repeated (same id and content)");
        }
        Ok(())
    }
}

/// A command observation as the agent sees it, and whether it failed.
fn run_text(content: &str, extras: &Map<String, Value>) -> ToolResult {
    let metadata = extras.get("metadata").and_then(Value::as_object);
    let meta_str = |k: &str| {
        metadata
            .and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let exit_code = metadata
        .and_then(|m| m.get("exit_code"))
        .or_else(|| extras.get("exit_code"))
        .and_then(Value::as_i64)
        .unwrap_or(-1);
    let mut text = format!("{}{content}{}", meta_str("prefix"), meta_str("suffix"));
    let working_dir = meta_str("working_dir");
    if !working_dir.is_empty() {
        text.push_str(&format!("\n[Current working directory: {working_dir}]"));
    }
    let python = meta_str("py_interpreter_path");
    if !python.is_empty() {
        text.push_str(&format!("\n[Python interpreter: {python}]"));
    }
    if exit_code != -1 {
        text.push_str(&format!("\n[Command finished with exit code {exit_code}]"));
    }
    ToolResult::text(text, exit_code != -1 && exit_code != 0)
}
