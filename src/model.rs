//! The batch model: tool-response batches as the agent runtime records them, in the Gemini (`@google/genai`)
//! part shape, with the runtime's internal `persistedOutputFiles` metadata.
//!
//! Parsing goes through `serde_json::Value` and then moves every string into the typed model, so the text of a
//! large batch is copied exactly once (from the input bytes into its `String`). Unknown keys and unknown parts
//! are kept verbatim and in their order; only the slot texts a finalizer shortens are ever replaced.

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// One tool call's response, in batch order.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The tool call's id (`callId`); the persistence id is derived from its last path component.
    pub call_id: String,
    /// The tool's name (`toolName`); the fallback for a function response without a `name`.
    pub tool_name: String,
    /// The parts sent to the model for this call (`responseParts`), in order.
    pub response_parts: Vec<Part>,
    /// Tri-state persistence metadata (`persistedOutputFiles`): `None` = no decision was made, `Some([])` = a
    /// decision was made and there is no reusable file, `Some(paths)` = reusable artifacts at those paths.
    pub persisted_output_files: Option<Vec<String>>,
    /// Every other key of the entry, verbatim and in input order.
    pub extra: Map<String, Value>,
}

/// One response part: a JSON object such as `{"text": ..}`, `{"functionResponse": ..}`, `{"inlineData": ..}`.
///
/// Parts are kept as their JSON object so that unknown shapes and keys pass through untouched; the accessors
/// below reach the fields a finalizer may shorten.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Part(pub Map<String, Value>);

/// A batch: the entries of one tool-response turn, in their original order.
pub type Batch = Vec<Entry>;

/// Which string field of a part a slot is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Field {
    /// A top-level `text` part (hook context and the like).
    Text,
    /// `functionResponse.response.output`.
    Output,
    /// `functionResponse.response.error`.
    Error,
}

impl Field {
    /// The three fields in the order they are visited within one part.
    pub const ALL: [Field; 3] = [Field::Text, Field::Output, Field::Error];
}

impl Part {
    /// A `{"text": ..}` part.
    pub fn text(text: impl Into<String>) -> Part {
        let mut map = Map::new();
        map.insert("text".into(), Value::String(text.into()));
        Part(map)
    }

    /// A `{"functionResponse": {"id", "name", "response": {..}}}` part with the given output and error.
    pub fn function_response(
        id: &str,
        name: &str,
        output: Option<Value>,
        error: Option<Value>,
    ) -> Part {
        let mut response = Map::new();
        if let Some(o) = output {
            response.insert("output".into(), o);
        }
        if let Some(e) = error {
            response.insert("error".into(), e);
        }
        let mut fr = Map::new();
        fr.insert("id".into(), Value::String(id.into()));
        fr.insert("name".into(), Value::String(name.into()));
        fr.insert("response".into(), Value::Object(response));
        let mut map = Map::new();
        map.insert("functionResponse".into(), Value::Object(fr));
        Part(map)
    }

    fn response(&self) -> Option<&Map<String, Value>> {
        get(get(&self.0, "functionResponse")?.as_object()?, "response")?.as_object()
    }

    fn response_mut(&mut self) -> Option<&mut Map<String, Value>> {
        let fr = get_mut(&mut self.0, "functionResponse")?.as_object_mut()?;
        get_mut(fr, "response")?.as_object_mut()
    }

    /// The string at `field`, if this part has one there (a non-string value is not a text field).
    pub fn field(&self, field: Field) -> Option<&str> {
        match field {
            Field::Text => get(&self.0, "text")?.as_str(),
            Field::Output => get(self.response()?, "output")?.as_str(),
            Field::Error => get(self.response()?, "error")?.as_str(),
        }
    }

    /// Mutable access to the string at `field`, if this part has one there.
    pub fn field_mut(&mut self, field: Field) -> Option<&mut String> {
        let value = match field {
            Field::Text => get_mut(&mut self.0, "text")?,
            Field::Output => get_mut(self.response_mut()?, "output")?,
            Field::Error => get_mut(self.response_mut()?, "error")?,
        };
        match value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The function name that decides the plan-mode exemption: `functionResponse.name`, or `tool_name` when
    /// that key is absent or null. An empty-string name does not fall back; a non-string name matches nothing.
    /// `None` when this is not a function-response part.
    pub fn function_name<'a>(&'a self, tool_name: &'a str) -> Option<&'a str> {
        let fr = get(&self.0, "functionResponse")?.as_object()?;
        match get(fr, "name") {
            None | Some(Value::Null) => Some(tool_name),
            Some(Value::String(name)) => Some(name),
            Some(_) => Some(""),
        }
    }

    /// This part with its three budgeted string fields (text, output, error) emptied, for comparing everything a
    /// finalizer must leave alone: media, non-string values, unknown keys, the function response's id and name.
    pub fn without_budgeted_text(&self) -> Part {
        let mut p = self.clone();
        for field in Field::ALL {
            if let Some(s) = p.field_mut(field) {
                s.clear();
            }
        }
        p
    }

    /// Whether this part and `other` are equal but for their budgeted string fields: the same as comparing their
    /// [`Part::without_budgeted_text`], without copying either part (it runs for every part of every turn).
    pub fn same_but_budgeted_text(&self, other: &Part) -> bool {
        /// Two values of a budgeted field: equal when both are strings (both would be emptied) or when equal.
        fn field_eq(a: &Value, b: &Value) -> bool {
            matches!((a, b), (Value::String(_), Value::String(_))) || a == b
        }
        /// A key whose value is compared its own way, and that way.
        type Nested<'a> = Option<(&'a str, &'a dyn Fn(&Value, &Value) -> bool)>;
        /// Two objects compared key by key (as maps compare: the same keys, each with an equal value), the
        /// values under `budgeted` keys by `field_eq` and under `nested` by `nested_eq`.
        fn map_eq(
            a: &Map<String, Value>,
            b: &Map<String, Value>,
            budgeted: &[&str],
            nested: Nested<'_>,
        ) -> bool {
            a.len() == b.len()
                && a.iter().all(|(key, va)| {
                    get(b, key).is_some_and(|vb| match nested {
                        Some((name, eq)) if name == key.as_str() => eq(va, vb),
                        _ if budgeted.contains(&key.as_str()) => field_eq(va, vb),
                        _ => va == vb,
                    })
                })
        }
        fn response_eq(a: &Value, b: &Value) -> bool {
            match (a, b) {
                (Value::Object(a), Value::Object(b)) => map_eq(a, b, &["output", "error"], None),
                _ => a == b,
            }
        }
        fn function_response_eq(a: &Value, b: &Value) -> bool {
            match (a, b) {
                (Value::Object(a), Value::Object(b)) => {
                    map_eq(a, b, &[], Some(("response", &response_eq)))
                }
                _ => a == b,
            }
        }
        map_eq(
            &self.0,
            &other.0,
            &["text"],
            Some(("functionResponse", &function_response_eq)),
        )
    }

    /// Whether this part is a media part (`inlineData` or `fileData`), which no budget counts or touches.
    pub fn is_media(&self) -> bool {
        self.0.contains_key("inlineData") || self.0.contains_key("fileData")
    }
}

/// Maps of at most this many keys are searched key by key rather than through their hash table.
const SMALL_MAP: usize = 8;

/// `map[key]`. A part's maps hold a handful of keys, and comparing those is cheaper than hashing `key` (the JSON
/// map's hasher is SipHash); the field lookups run several times for every part of every simulated turn.
fn get<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() <= SMALL_MAP {
        map.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        map.get(key)
    }
}

/// `map[key]`, mutable (see [`get`]).
fn get_mut<'a>(map: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Value> {
    if map.len() <= SMALL_MAP {
        map.iter_mut().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        map.get_mut(key)
    }
}

impl Entry {
    /// An entry with the given parts and no persistence decision.
    pub fn new(
        call_id: impl Into<String>,
        tool_name: impl Into<String>,
        parts: Vec<Part>,
    ) -> Entry {
        Entry {
            call_id: call_id.into(),
            tool_name: tool_name.into(),
            response_parts: parts,
            persisted_output_files: None,
            extra: Map::new(),
        }
    }

    /// The artifact paths this entry already has (empty when none or undecided).
    pub fn artifact_paths(&self) -> &[String] {
        self.persisted_output_files.as_deref().unwrap_or(&[])
    }
}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let len = 3 + usize::from(self.persisted_output_files.is_some()) + self.extra.len();
        let mut map = serializer.serialize_map(Some(len))?;
        map.serialize_entry("callId", &self.call_id)?;
        map.serialize_entry("toolName", &self.tool_name)?;
        map.serialize_entry("responseParts", &self.response_parts)?;
        if let Some(files) = &self.persisted_output_files {
            map.serialize_entry("persistedOutputFiles", files)?;
        }
        for (k, v) in &self.extra {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Parses a batch (a JSON array of entries) from bytes. `source_name` names the input in error messages.
///
/// Malformed JSON and lone surrogate escapes are reported with line and column; shape errors name the entry
/// index and the field.
pub fn parse_batch(bytes: &[u8], source_name: &str) -> Result<Batch> {
    let bytes = without_bom(bytes);
    check_parse_memory(bytes, source_name)?;
    let value: Value = serde_json::from_slice(bytes).map_err(|e| Error::json(source_name, &e))?;
    batch_from_value(value, source_name)
}

/// Below this many bytes a batch is parsed without first asking for its memory: what it needs is no matter.
const PARSE_MEMORY_CHECKED_FROM: usize = 1 << 20;

/// Refuses, as an error naming `source_name`, a batch whose parsed form could not be held: the memory it needs
/// ([`parse_memory`]: its text, the parser's scratch buffer and its values) is reserved fallibly and released
/// before the parser, whose allocations cannot fail gracefully, takes it. Without this a batch too large for the memory
/// left (under a `ulimit -v`, say) aborts the process.
pub(crate) fn check_parse_memory(bytes: &[u8], source_name: &str) -> Result<()> {
    let len = bytes.len();
    if len < PARSE_MEMORY_CHECKED_FROM {
        return Ok(());
    }
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(parse_memory(bytes))
        .map_err(|_| Error::Batch {
            source_name: source_name.to_string(),
            message: format!("out of memory: its {len} bytes cannot be parsed in the memory left"),
        })
}

/// The bytes of memory each JSON value of a batch takes once parsed, beyond its text: a tree node, a map's slot
/// and the allocation a string or array holds (measured: 400,000 small entries of 220 MB took 1.3 GB).
const PARSED_BYTES_PER_VALUE: usize = 160;

/// What parsing `bytes` into a batch may need beside them, at most: the text (at most as long as the JSON), the
/// parser's scratch buffer for the longest string with escapes in it (it grows by doubling, the old buffer held
/// while the new one fills: three times the string) and every value's own memory ([`PARSED_BYTES_PER_VALUE`]
/// for each `{`, `[`, `,` and `:` outside strings). Found in one pass over the bytes.
fn parse_memory(bytes: &[u8]) -> usize {
    let (mut values, mut longest, mut run) = (1usize, 0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in bytes {
        if in_string {
            run += 1;
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                longest = longest.max(run);
            }
        } else {
            match b {
                b'"' => {
                    in_string = true;
                    run = 0;
                }
                b'{' | b'[' | b',' | b':' => values += 1,
                _ => {}
            }
        }
    }
    bytes
        .len()
        .saturating_add(longest.saturating_mul(3))
        .saturating_add(values.saturating_mul(PARSED_BYTES_PER_VALUE))
}

/// The UTF-8 byte order mark some editors put at the start of a file.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte order mark: JSON has none, but a file saved with one is still meant as
/// JSON.
pub(crate) fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// The text of a JSON Lines file: `bytes` as UTF-8, without a leading byte order mark. When they are not UTF-8,
/// the error is the 1-based line and the 1-based byte within that line where the first invalid sequence starts.
pub(crate) fn jsonl_text(bytes: &[u8]) -> std::result::Result<&str, (usize, usize)> {
    let bytes = without_bom(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        (line, good.len() - line_start + 1)
    })
}

/// [`jsonl_text`] of a batches file named `name`, its error naming `name:line` and the byte.
pub(crate) fn batches_text<'a>(bytes: &'a [u8], name: &str) -> Result<&'a str> {
    jsonl_text(bytes).map_err(|(line, byte)| Error::Batch {
        source_name: format!("{name}:{line}"),
        message: format!("not valid UTF-8 (byte {byte} of the line)"),
    })
}

/// Converts a parsed JSON value into a batch, moving (not copying) its strings.
pub(crate) fn batch_from_value(value: Value, source_name: &str) -> Result<Batch> {
    let bad = |message: String| Error::Batch {
        source_name: source_name.to_string(),
        message,
    };
    let Value::Array(items) = value else {
        return Err(bad(format!(
            "a batch must be a JSON array of entries, found {}",
            kind(&value)
        )));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| entry_from_value(item).map_err(|m| bad(format!("entry {i}: {m}"))))
        .collect()
}

fn entry_from_value(value: Value) -> std::result::Result<Entry, String> {
    let Value::Object(mut map) = value else {
        return Err(format!(
            "an entry must be a JSON object, found {}",
            kind(&value)
        ));
    };
    let call_id = take_string(&mut map, "callId")?;
    let tool_name = take_string(&mut map, "toolName")?;
    let parts = match map.shift_remove("responseParts") {
        Some(Value::Array(parts)) => parts,
        Some(other) => {
            return Err(format!(
                "\"responseParts\" must be an array, found {}",
                kind(&other)
            ))
        }
        None => return Err("missing \"responseParts\"".into()),
    };
    let response_parts = parts
        .into_iter()
        .enumerate()
        .map(|(j, p)| match p {
            Value::Object(m) => Ok(Part(m)),
            other => Err(format!(
                "responseParts[{j}] must be a JSON object, found {}",
                kind(&other)
            )),
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let persisted_output_files = match map.shift_remove("persistedOutputFiles") {
        None => None,
        Some(Value::Array(paths)) => Some(
            paths
                .into_iter()
                .enumerate()
                .map(|(j, p)| match p {
                    Value::String(s) => Ok(s),
                    other => Err(format!(
                        "persistedOutputFiles[{j}] must be a string, found {}",
                        kind(&other)
                    )),
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        ),
        Some(other) => {
            return Err(format!(
                "\"persistedOutputFiles\" must be an array of paths, found {}",
                kind(&other)
            ))
        }
    };
    Ok(Entry {
        call_id,
        tool_name,
        response_parts,
        persisted_output_files,
        extra: map,
    })
}

fn take_string(map: &mut Map<String, Value>, key: &str) -> std::result::Result<String, String> {
    match map.shift_remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!(
            "\"{key}\" must be a string, found {}",
            kind(&other)
        )),
        None => Err(format!("missing \"{key}\"")),
    }
}

pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        let src = "\u{feff}[{\"callId\":\"c\",\"toolName\":\"t\",\"responseParts\":[]}]";
        let batch = parse_batch(src.as_bytes(), "bom").unwrap();
        assert_eq!(batch[0].call_id, "c");
        // Only at the start: anywhere else it is not JSON.
        let err = parse_batch(b"[\xEF\xBB\xBF]", "bom")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("bom: invalid JSON at line 1, column 2"),
            "{err}"
        );
        assert_eq!(jsonl_text(b"\xEF\xBB\xBF[]\n[]\n"), Ok("[]\n[]\n"));
    }

    #[test]
    fn invalid_utf8_is_placed_by_line_and_byte() {
        assert_eq!(jsonl_text(b"[]\n[\"ok\"]\n[\"\xFF\"]\n"), Err((3, 3)));
        assert_eq!(jsonl_text(b"\xC3"), Err((1, 1)));
        assert_eq!(jsonl_text(b"\xEF\xBB\xBFab\xC3("), Err((1, 3)));
    }

    #[test]
    fn round_trips_unknown_keys_and_parts_in_order() {
        let src = r#"[{"callId":"c","toolName":"t","responseParts":[{"zeta":1,"alpha":{"b":2,"a":1}},{"text":"x"}],"z":1,"a":[2]}]"#;
        let batch = parse_batch(src.as_bytes(), "test").unwrap();
        assert_eq!(batch[0].extra.keys().collect::<Vec<_>>(), ["z", "a"]);
        let out = serde_json::to_string(&batch).unwrap();
        assert_eq!(
            out,
            r#"[{"callId":"c","toolName":"t","responseParts":[{"zeta":1,"alpha":{"b":2,"a":1}},{"text":"x"}],"z":1,"a":[2]}]"#
        );
    }

    #[test]
    fn numbers_in_unknown_keys_pass_through_verbatim() {
        let src = r#"[{"callId":"c","toolName":"t","responseParts":[{"x":{"n":1.50}}],"big":123456789012345678901234567890,"h":1.50}]"#;
        let out = serde_json::to_string(&parse_batch(src.as_bytes(), "test").unwrap()).unwrap();
        assert_eq!(out, src);
    }

    #[test]
    fn persisted_output_files_stays_tri_state() {
        let src = r#"[{"callId":"a","toolName":"t","responseParts":[]},
                      {"callId":"b","toolName":"t","responseParts":[],"persistedOutputFiles":[]},
                      {"callId":"c","toolName":"t","responseParts":[],"persistedOutputFiles":["/p"]}]"#;
        let batch = parse_batch(src.as_bytes(), "test").unwrap();
        assert_eq!(batch[0].persisted_output_files, None);
        assert_eq!(batch[1].persisted_output_files, Some(vec![]));
        assert_eq!(
            batch[2].persisted_output_files,
            Some(vec!["/p".to_string()])
        );
        let out = serde_json::to_value(&batch).unwrap();
        assert!(out[0].get("persistedOutputFiles").is_none());
        assert_eq!(out[1]["persistedOutputFiles"], serde_json::json!([]));
    }

    #[test]
    fn field_access_reaches_only_string_fields() {
        let src = r#"[{"callId":"a","toolName":"t","responseParts":[
            {"text":"hi"},
            {"functionResponse":{"name":"x","response":{"output":{"k":1},"error":"bad"}}}]}]"#;
        let batch = parse_batch(src.as_bytes(), "test").unwrap();
        let parts = &batch[0].response_parts;
        assert_eq!(parts[0].field(Field::Text), Some("hi"));
        assert_eq!(parts[1].field(Field::Output), None);
        assert_eq!(parts[1].field(Field::Error), Some("bad"));
    }

    /// Comparing parts but for their budgeted text gives what comparing their emptied copies gives.
    #[test]
    fn same_but_budgeted_text_agrees_with_comparing_emptied_copies() {
        let parse = |json: &str| Part(serde_json::from_str(json).unwrap());
        let parts = [
            r#"{"text":"a"}"#,
            r#"{"text":"b"}"#,
            r#"{"text":3}"#,
            r#"{"text":"a","x":1}"#,
            r#"{"x":1,"text":"zz"}"#,
            r#"{"functionResponse":{"id":"i","name":"n","response":{"output":"long"}}}"#,
            r#"{"functionResponse":{"id":"i","name":"n","response":{"output":"short"}}}"#,
            r#"{"functionResponse":{"name":"n","id":"i","response":{"output":"x","error":"e"}}}"#,
            r#"{"functionResponse":{"id":"i","name":"n","response":{"output":"x","error":"f"}}}"#,
            r#"{"functionResponse":{"id":"j","name":"n","response":{"output":"long"}}}"#,
            r#"{"functionResponse":{"id":"i","name":"n","response":{"output":5}}}"#,
            r#"{"functionResponse":{"id":"i","name":"n","response":{"output":"a","extra":[1]}}}"#,
            r#"{"functionResponse":{"id":"i","name":"n","response":["output"]}}"#,
            r#"{"functionResponse":{"id":"i","name":"n","response":"text"}}"#,
            r#"{"functionResponse":[1]}"#,
            r#"{"functionResponse":{"id":"i","name":"n","response":{"output":"z"}},"text":"q"}"#,
            r#"{"inlineData":{"data":"AAAA","mimeType":"image/png"}}"#,
            r#"{}"#,
        ]
        .map(parse);
        let mut equal = 0;
        for a in &parts {
            for b in &parts {
                let expected = a.without_budgeted_text() == b.without_budgeted_text();
                assert_eq!(a.same_but_budgeted_text(b), expected, "{a:?} vs {b:?}");
                equal += usize::from(expected);
            }
        }
        // Besides each part with itself: text "a"/"b", "a"+x/"zz"+x, long/short, x+e/x+f, and their mirrors.
        assert_eq!(equal, parts.len() + 8);
    }

    #[test]
    fn function_name_falls_back_only_when_absent_or_null() {
        let p = |fr: &str| {
            Part(serde_json::from_str(&format!(r#"{{"functionResponse":{fr}}}"#)).unwrap())
        };
        assert_eq!(p(r#"{"response":{}}"#).function_name("tool"), Some("tool"));
        assert_eq!(p(r#"{"name":null}"#).function_name("tool"), Some("tool"));
        assert_eq!(p(r#"{"name":""}"#).function_name("tool"), Some(""));
        assert_eq!(p(r#"{"name":"n"}"#).function_name("tool"), Some("n"));
        assert_eq!(Part::text("x").function_name("tool"), None);
    }

    #[test]
    fn shape_errors_name_the_entry_and_field() {
        let err = |s: &str| {
            parse_batch(s.as_bytes(), "in.json")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("{}"),
            "in.json: a batch must be a JSON array of entries, found an object"
        );
        assert_eq!(
            err(r#"[{"callId":"a","responseParts":[]}]"#),
            "in.json: entry 0: missing \"toolName\""
        );
        assert_eq!(
            err(
                r#"[{"callId":"a","toolName":"t","responseParts":[]},{"callId":1,"toolName":"t","responseParts":[]}]"#
            ),
            "in.json: entry 1: \"callId\" must be a string, found a number"
        );
        assert_eq!(
            err(r#"[{"callId":"a","toolName":"t","responseParts":"x"}]"#),
            "in.json: entry 0: \"responseParts\" must be an array, found a string"
        );
    }

    #[test]
    fn malformed_json_and_lone_surrogates_report_position() {
        let e = parse_batch(b"[\n  {\"callId\": }\n]", "in.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("in.json: invalid JSON at line 2, column 14"),
            "{e}"
        );
        let e = parse_batch(
            br#"[{"callId":"\ud800","toolName":"t","responseParts":[]}]"#,
            "in.json",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("invalid JSON at line 1") && e.contains("surrogate"),
            "{e}"
        );
    }
}
