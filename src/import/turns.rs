//! Turn grouping, shared by every format: calls are recorded under the key of the model turn that made them,
//! results under their call id, in any order; [`Turns::into_batches`] then makes one batch per turn, in the
//! order turns first appeared, holding the calls that got a result in call order.
//!
//! A call id is not unique across a session: some logs reuse ids in later turns (SWE-agent demonstration
//! trajectories number their calls from 1 again). So a repeat is told by what repeats. A call id seen again in
//! the same turn is a repeated line (a resumed session) and is ignored; seen in another turn, it is a new call.
//! A result with the id and the content (text, error flag, non-text parts) of a result already recorded is a
//! repeated line and is ignored; with other content it is a new result. The k-th call recorded with an id gets
//! the k-th result recorded with it. A call left without a result is dropped (counted apart when its id's
//! result came again with the same content: a resumed session that repeated the call in a turn of its own),
//! and a turn left with no entry makes no batch. This module also builds the batch entries: the result text as
//! `functionResponse.response.output` (or `.error`), images and other non-text content as `inlineData` parts
//! beside it.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::read::Tally;
use crate::context::{
    CallContext, TurnContext, MAX_ARGUMENT_UNITS, MAX_ASSISTANT_UNITS, MAX_CALLS, MAX_TASK_UNITS,
};
use crate::model::{Entry, Part};
use crate::needles::{used_content, UsedResult, UsedRules, Utterance};

/// A tool result as the model received it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The text, exactly as recorded (several text blocks joined with `"\n"`).
    pub text: String,
    /// Whether the call failed: the text goes to `response.error` instead of `response.output`.
    pub is_error: bool,
    /// Non-text parts (`inlineData`, or `fileData` for a content given by reference), in recorded order.
    pub media: Vec<Part>,
}

impl ToolResult {
    /// A text-only result.
    pub fn text(text: impl Into<String>, is_error: bool) -> ToolResult {
        ToolResult {
            text: text.into(),
            is_error,
            media: Vec::new(),
        }
    }
}

/// One imported entry, with whether its call id was made up by the importer (`step-<n>`) rather than recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedEntry {
    /// The batch entry.
    pub entry: Entry,
    /// `true` when the log had no call id and the importer numbered the call itself.
    pub synthetic_id: bool,
    /// Which result recorded under this call id it is (0 for the first): with the call id, the key of its
    /// used lines (see [`Turns::used_content`]).
    pub rank: usize,
}

#[derive(Debug)]
struct Call {
    id: String,
    name: String,
    /// The call's arguments as the agent wrote them (for the batch's context), when the format gives them.
    arguments: String,
    synthetic: bool,
    /// How many calls with this id were recorded before this one: it gets the result of the same rank.
    rank: usize,
}

/// What the session recorded under one call id.
#[derive(Debug, Default)]
struct Recorded {
    /// The turn of each call with this id, in the order recorded.
    turns: Vec<usize>,
    /// The key number of each call's model turn, in the same order (for the used lines).
    keys: Vec<usize>,
    /// Its distinct results, in the order recorded (`None` once taken by a call).
    results: Vec<Option<ToolResult>>,
    /// Results ignored because they repeated one of `results`.
    repeated: usize,
}

/// One piece of the session in recorded order, for the used lines (see [`Turns::used_content`]).
#[derive(Debug)]
enum Spoken {
    /// Text the agent was given.
    Context(String),
    /// Text the agent wrote in the model turn of this key number.
    Said { key: usize, text: String },
    /// The result of this rank recorded under this call id, when it was recorded.
    Result { id: String, rank: usize },
}

/// The calls of a session grouped by model turn, and their results by call id; and, for the used lines, what the
/// agent was given and wrote, in recorded order; and, for each batch's context, the task, the assistant's text of
/// each turn and the calls' arguments.
#[derive(Debug, Default)]
pub struct Turns {
    turns: Vec<Vec<Call>>,
    turn_of_key: HashMap<String, usize>,
    ids: HashMap<String, Recorded>,
    spoken: Vec<Spoken>,
    key_numbers: HashMap<String, usize>,
    /// The key number of each turn, by turn index.
    turn_keys: Vec<usize>,
    /// The task and the number of key numbers given out when it was recorded: a turn keyed before it was
    /// made before the task was known, and its context has no task.
    task: Option<(String, usize)>,
    /// The assistant's text of each model turn, by key number.
    wrote: HashMap<usize, String>,
    /// The session's id, where the log records one.
    session: Option<String>,
    /// The task's or issue's id, where the log records one.
    issue: Option<String>,
}

/// One batch of a session: its entries and what the runtime knew of its turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedBatch {
    /// The entries, in call order.
    pub entries: Vec<ImportedEntry>,
    /// The task, the calls of the entries (name and arguments) and the assistant's text of the turn.
    pub context: TurnContext,
}

impl Turns {
    /// An empty session.
    pub fn new() -> Turns {
        Turns::default()
    }

    /// Records call `id` of tool `name` in the turn keyed `turn`. `false` (and nothing recorded) when that
    /// turn already holds a call with this id.
    pub fn call(&mut self, turn: &str, id: &str, name: &str) -> bool {
        self.add_call(turn, id, name, false)
    }

    /// Records a call whose id the importer made up.
    pub fn synthetic_call(&mut self, turn: &str, id: &str, name: &str) -> bool {
        self.add_call(turn, id, name, true)
    }

    fn add_call(&mut self, turn: &str, id: &str, name: &str, synthetic: bool) -> bool {
        let next = self.turns.len();
        let index = self.turn_of_key.get(turn).copied().unwrap_or(next);
        if self.ids.get(id).is_some_and(|r| r.turns.contains(&index)) {
            return false;
        }
        let key = self.key_number(turn);
        let recorded = self.ids.entry(id.to_string()).or_default();
        let rank = recorded.turns.len();
        recorded.turns.push(index);
        recorded.keys.push(key);
        if index == next {
            self.turn_of_key.insert(turn.to_string(), index);
            self.turns.push(Vec::new());
            self.turn_keys.push(key);
        }
        self.turns[index].push(Call {
            id: id.to_string(),
            name: name.to_string(),
            arguments: String::new(),
            synthetic,
            rank,
        });
        true
    }

    /// Records the arguments of call `id` in the turn keyed `turn` (the last call recorded there with that
    /// id), as the agent wrote them: JSON text, or the command line. Nothing when no such call was recorded.
    pub fn arguments(&mut self, turn: &str, id: &str, arguments: impl Into<String>) {
        let Some(&index) = self.turn_of_key.get(turn) else {
            return;
        };
        if let Some(call) = self.turns[index].iter_mut().rev().find(|c| c.id == id) {
            call.arguments = arguments.into();
        }
    }

    /// Records the task the agent was given (its first user message, the issue's text), for the context of the
    /// turns made after it. Only the first non-empty task counts. It is not given text for the used lines by
    /// this call: a format records that with [`Turns::context`].
    pub fn task(&mut self, text: &str) {
        if self.task.is_none() && !text.trim().is_empty() {
            let at = self.key_numbers.len();
            self.task = Some((bounded(text, MAX_TASK_UNITS).to_string(), at));
        }
    }

    /// Records a message the agent wrote in the model turn keyed `turn` (its text or reasoning, not a call's
    /// arguments): what the agent wrote for the used lines ([`Turns::said`]), and the assistant's text of the
    /// turn for its context.
    pub fn message(&mut self, turn: &str, text: impl Into<String>) {
        let text = text.into();
        if text.trim().is_empty() {
            return;
        }
        self.assistant(turn, &text);
        self.said(turn, text);
    }

    /// Records the assistant's text of the model turn keyed `turn` for its context only (a format that records
    /// it for the used lines another way, inside a call's arguments).
    pub fn assistant(&mut self, turn: &str, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let key = self.key_number(turn);
        let wrote = self.wrote.entry(key).or_default();
        if !wrote.is_empty() {
            wrote.push('\n');
        }
        wrote.push_str(text);
    }

    /// Records the session's id, where the log names one (the batches' group); the file's path otherwise.
    pub fn session(&mut self, id: &str) {
        if self.session.is_none() && !id.is_empty() {
            self.session = Some(id.to_string());
        }
    }

    /// Records the id of the task or issue the session worked on, where the log names one (the batches' group).
    pub fn issue(&mut self, id: &str) {
        if self.issue.is_none() && !id.is_empty() {
            self.issue = Some(id.to_string());
        }
    }

    /// The session id and the issue id the log recorded, if any.
    pub fn group_ids(&self) -> (Option<&str>, Option<&str>) {
        (self.session.as_deref(), self.issue.as_deref())
    }

    /// Records a result of call `id`. `false` (and nothing recorded) when a result with this id and the same
    /// content was already recorded.
    pub fn result(&mut self, id: &str, result: ToolResult) -> bool {
        let recorded = self.ids.entry(id.to_string()).or_default();
        if recorded.results.iter().flatten().any(|r| *r == result) {
            recorded.repeated += 1;
            return false;
        }
        let rank = recorded.results.len();
        recorded.results.push(Some(result));
        self.spoken.push(Spoken::Result {
            id: id.to_string(),
            rank,
        });
        true
    }

    fn key_number(&mut self, turn: &str) -> usize {
        let next = self.key_numbers.len();
        *self.key_numbers.entry(turn.to_string()).or_insert(next)
    }

    /// Records text the agent was given (the task, a user message, the system prompt), in recorded order, for
    /// the used lines. Empty text is not kept.
    pub fn context(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !text.trim().is_empty() {
            self.spoken.push(Spoken::Context(text));
        }
    }

    /// Records text the agent wrote in the model turn keyed `turn` (a message, a thought, a call's arguments:
    /// see [`args_text`]), in recorded order, for the used lines. Empty text is not kept.
    pub fn said(&mut self, turn: &str, text: impl Into<String>) {
        let text = text.into();
        if !text.trim().is_empty() {
            let key = self.key_number(turn);
            self.spoken.push(Spoken::Said { key, text });
        }
    }

    /// Whether the session recorded anything the agent wrote (a message, a thought or a call's arguments).
    pub fn records_agent_text(&self) -> bool {
        self.spoken.iter().any(|s| matches!(s, Spoken::Said { .. }))
    }

    /// The used content of every recorded result, by call id and rank ([`crate::needles::used_content`]); `None`
    /// when the session recorded nothing the agent wrote, so that nothing can be said of what it used. A result
    /// whose call was not recorded is text the model saw all the same, and counts as given.
    pub fn used_content(&self, rules: &UsedRules) -> Option<HashMap<(String, usize), UsedResult>> {
        if !self.records_agent_text() {
            return None;
        }
        let mut session = Vec::with_capacity(self.spoken.len());
        let mut keys = Vec::new();
        for s in &self.spoken {
            match s {
                Spoken::Context(text) => session.push(Utterance::Context(text)),
                Spoken::Said { key, text } => session.push(Utterance::Said { turn: *key, text }),
                Spoken::Result { id, rank } => {
                    let Some(recorded) = self.ids.get(id) else {
                        continue;
                    };
                    let Some(Some(result)) = recorded.results.get(*rank) else {
                        continue;
                    };
                    match recorded.keys.get(*rank) {
                        Some(&turn) => {
                            session.push(Utterance::Result {
                                turn,
                                text: &result.text,
                            });
                            keys.push((id.clone(), *rank));
                        }
                        None => session.push(Utterance::Context(&result.text)),
                    }
                }
            }
        }
        let found = used_content(&session, rules);
        Some(keys.into_iter().zip(found).collect())
    }

    /// Whether a call with id `id` has been recorded.
    pub fn has_call(&self, id: &str) -> bool {
        self.ids.get(id).is_some_and(|r| !r.turns.is_empty())
    }

    /// The batches, in turn order, each with its context; calls without a result and results without a call
    /// are counted in `tally`.
    pub fn into_batches(mut self, tally: &mut Tally) -> Vec<ImportedBatch> {
        let mut batches = Vec::new();
        for (index, turn) in self.turns.into_iter().enumerate() {
            let key = self.turn_keys.get(index).copied().unwrap_or(usize::MAX);
            let mut batch = Vec::new();
            let mut calls = Vec::new();
            for call in turn {
                let Some(recorded) = self.ids.get_mut(&call.id) else {
                    continue; // every recorded call has its id recorded
                };
                let Some(result) = recorded.results.get_mut(call.rank).and_then(Option::take)
                else {
                    if call.rank > 0 && recorded.repeated > 0 {
                        recorded.repeated -= 1;
                        tally.skip("call repeated in a later turn without a new result");
                    } else {
                        tally.skip("call without a recorded result");
                    }
                    continue;
                };
                batch.push(ImportedEntry {
                    entry: entry(&call.id, &call.name, result),
                    synthetic_id: call.synthetic,
                    rank: call.rank,
                });
                if calls.len() < MAX_CALLS {
                    calls.push(CallContext {
                        arguments: bounded(&call.arguments, MAX_ARGUMENT_UNITS).to_string(),
                        call_id: call.id,
                        name: call.name,
                    });
                }
            }
            if !batch.is_empty() {
                let task = match &self.task {
                    Some((task, at)) if key >= *at => Some(task.clone()),
                    _ => None,
                };
                let assistant = self
                    .wrote
                    .get(&key)
                    .map(|t| bounded(t, MAX_ASSISTANT_UNITS).to_string());
                batches.push(ImportedBatch {
                    entries: batch,
                    context: TurnContext {
                        task,
                        calls,
                        assistant,
                    },
                });
            }
        }
        let unmatched: usize = self
            .ids
            .values()
            .map(|r| r.results.iter().flatten().count())
            .sum();
        for _ in 0..unmatched {
            tally.skip("result without a recorded call");
        }
        batches
    }
}

/// `text` cut to at most `units` UTF-16 units, never inside a surrogate pair.
fn bounded(text: &str, units: usize) -> &str {
    crate::text::head(text, units)
}

/// The text of a call's arguments as the agent wrote them, for the used lines: every string and number of a JSON
/// value (object keys left out), one a line, so that escapes such as `\n` do not glue words together; a string
/// that is itself a JSON object or array (Codex's `arguments`) is read as one.
pub(super) fn args_text(value: &Value) -> String {
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::String(s) => {
                let t = s.trim_start();
                if t.starts_with('{') || t.starts_with('[') {
                    if let Ok(inner @ (Value::Object(_) | Value::Array(_))) =
                        serde_json::from_str::<Value>(s)
                    {
                        walk(&inner, out);
                        return;
                    }
                }
                out.push_str(s);
                out.push('\n');
            }
            Value::Number(n) => {
                out.push_str(&n.to_string());
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => map.values().for_each(|v| walk(v, out)),
            Value::Bool(_) | Value::Null => {}
        }
    }
    let mut out = String::new();
    walk(value, &mut out);
    out
}

/// The text of a chat message's `content` for the used lines: a string, or the `text` of its blocks (`text`,
/// `thinking`, `reasoning`), one a line.
pub(super) fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let mut out = String::new();
            for b in blocks {
                for key in ["text", "thinking", "reasoning"] {
                    if let Some(Value::String(t)) = b.get(key) {
                        out.push_str(t);
                        out.push('\n');
                    }
                }
            }
            out
        }
        _ => String::new(),
    }
}

/// The batch entry of one result: a function-response part with the text as `output` (or `error`), then the
/// non-text parts.
pub(super) fn entry(call_id: &str, tool_name: &str, result: ToolResult) -> Entry {
    let text = Value::String(result.text);
    let (output, error) = if result.is_error {
        (None, Some(text))
    } else {
        (Some(text), None)
    };
    let mut parts = vec![Part::function_response(call_id, tool_name, output, error)];
    parts.extend(result.media);
    Entry::new(call_id, tool_name, parts)
}

/// An `{"inlineData": {"mimeType", "data"}}` part.
pub(super) fn inline_data(mime_type: &str, data: &str) -> Part {
    let mut inner = Map::new();
    inner.insert("mimeType".into(), Value::String(mime_type.into()));
    inner.insert("data".into(), Value::String(data.into()));
    let mut map = Map::new();
    map.insert("inlineData".into(), Value::Object(inner));
    Part(map)
}

/// A `{"fileData": {"fileUri"}}` part, for non-text content recorded only as a URL.
pub(super) fn file_data(uri: &str) -> Part {
    let mut inner = Map::new();
    inner.insert("fileUri".into(), Value::String(uri.into()));
    let mut map = Map::new();
    map.insert("fileData".into(), Value::Object(inner));
    Part(map)
}

/// The part for an image URL: a `data:<mime>[;base64],<data>` URL becomes `inlineData` with that MIME type and
/// the data as written after the comma; any other URL a `fileData` reference.
pub(super) fn image_url_part(url: &str) -> Part {
    if let Some(rest) = url.strip_prefix("data:") {
        if let Some((header, data)) = rest.split_once(',') {
            let mime = header.split(';').next().unwrap_or("");
            return inline_data(mime, data);
        }
    }
    file_data(url)
}

/// The text of an array of chat-completion style content blocks (`{type:"text",text}` joined with `"\n"`) and
/// its images (`{type:"image_url",image_url:{url}}` or `{type:"image",...}` with a data URL); other block types
/// are counted as unsupported. `Err` names the block that is malformed.
pub(super) fn chat_blocks(blocks: &[Value], tally: &mut Tally) -> Result<ToolResult, String> {
    let mut texts: Vec<&str> = Vec::new();
    let mut media = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let kind = block.get("type").and_then(Value::as_str);
        match kind {
            Some("text") => match block.get("text") {
                Some(Value::String(t)) => texts.push(t),
                _ => {
                    return Err(format!(
                        "content[{i}]: a text block without a string \"text\""
                    ))
                }
            },
            Some("image_url") => {
                let url = match block.get("image_url") {
                    Some(Value::String(u)) => u.as_str(),
                    Some(Value::Object(o)) => match o.get("url") {
                        Some(Value::String(u)) => u.as_str(),
                        _ => return Err(format!("content[{i}].image_url: no string \"url\"")),
                    },
                    _ => return Err(format!("content[{i}]: an image_url block without a URL")),
                };
                media.push(image_url_part(url));
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

/// A JSON value's kind, for error messages.
pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The string at `key` of `map`: `Err` names the key when it is missing or not a string.
pub(super) fn required_str<'a>(map: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match map.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("\"{key}\" must be a string, found {}", kind(other))),
        None => Err(format!("missing \"{key}\"")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids(batches: &[ImportedBatch]) -> Vec<Vec<&str>> {
        batches
            .iter()
            .map(|b| b.entries.iter().map(|e| e.entry.call_id.as_str()).collect())
            .collect()
    }

    #[test]
    fn groups_by_turn_in_call_order_whatever_the_result_order() {
        let mut t = Turns::new();
        assert!(t.call("m1", "a", "Bash"));
        assert!(t.call("m2", "c", "Read"));
        assert!(t.call("m1", "b", "Read"));
        assert!(t.result("b", ToolResult::text("B", false)));
        assert!(t.result("c", ToolResult::text("C", true)));
        assert!(t.result("a", ToolResult::text("A", false)));
        assert!(
            !t.call("m1", "a", "Bash"),
            "a call id repeated in its turn is ignored"
        );
        assert!(
            !t.result("a", ToolResult::text("A", false)),
            "so is a repeated result"
        );
        assert!(t.result("zzz", ToolResult::text("orphan", false)));
        t.call("m4", "d", "Bash"); // never answered
        let mut tally = Tally::default();
        let batches = t.into_batches(&mut tally);
        assert_eq!(ids(&batches), vec![vec!["a", "b"], vec!["c"]]);
        assert_eq!(tally.count("call without a recorded result"), 1);
        assert_eq!(tally.count("result without a recorded call"), 1);
        assert_eq!(
            serde_json::to_value(&batches[1].entries[0].entry).unwrap(),
            json!({"callId":"c","toolName":"Read","responseParts":[
                {"functionResponse":{"id":"c","name":"Read","response":{"error":"C"}}}]})
        );
        assert_eq!(
            serde_json::to_value(&batches[0].entries[0].entry).unwrap(),
            json!({"callId":"a","toolName":"Bash","responseParts":[
                {"functionResponse":{"id":"a","name":"Bash","response":{"output":"A"}}}]})
        );
    }

    #[test]
    fn an_id_reused_in_a_later_turn_is_a_new_call_and_a_repeated_content_a_repeat() {
        let mut t = Turns::new();
        assert!(t.call("m1", "a", "Bash"));
        assert!(t.result("a", ToolResult::text("one", false)));
        assert!(
            t.call("m2", "a", "Bash"),
            "the same id in another turn is a new call"
        );
        assert!(
            !t.result("a", ToolResult::text("one", false)),
            "same id and content: a repeat"
        );
        assert!(
            t.result("a", ToolResult::text("two", false)),
            "other content: a new result"
        );
        assert!(
            t.result("a", ToolResult::text("two", true)),
            "the error flag is content"
        );
        assert!(t.call("m3", "a", "Read"));
        // A resumed session repeats the call in a turn of its own, and its result.
        assert!(t.call("m4", "a", "Read"));
        assert!(!t.result("a", ToolResult::text("two", true)));
        let mut tally = Tally::default();
        let batches = t.into_batches(&mut tally);
        assert_eq!(ids(&batches), vec![vec!["a"], vec!["a"], vec!["a"]]);
        let texts: Vec<String> = batches
            .iter()
            .map(|b| serde_json::to_string(&b.entries[0].entry.response_parts).unwrap())
            .collect();
        assert!(texts[0].contains("\"output\":\"one\""), "{texts:?}");
        assert!(texts[1].contains("\"output\":\"two\""), "{texts:?}");
        assert!(texts[2].contains("\"error\":\"two\""), "{texts:?}");
        assert_eq!(
            tally.count("call repeated in a later turn without a new result"),
            1
        );
        assert_eq!(tally.count("call without a recorded result"), 0);
    }

    #[test]
    fn image_urls_become_inline_data_or_file_data() {
        assert_eq!(
            serde_json::to_value(image_url_part("data:image/png;base64,iVBORw0KGgo=")).unwrap(),
            json!({"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}})
        );
        assert_eq!(
            serde_json::to_value(image_url_part("https://x.test/a.png")).unwrap(),
            json!({"fileData":{"fileUri":"https://x.test/a.png"}})
        );
    }
}
