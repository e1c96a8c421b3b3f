//! One line of a batches file (and `budgetlab finalize`'s input): a batch, in either of two forms.
//!
//! - The array form, a JSON array of entries: what every batches file held before turn contexts existed, and
//!   still what `finalize` prints.
//! - The object form, `{"entries": [...], "context": {..}, "group": {"session": "..", "task": ".."}}`, where
//!   `context` (a [`TurnContext`]: what the runtime knew of the turn when it finalized it) and `group` (a
//!   [`BatchGroup`]: the session and the task the batch belongs to) are optional and no other key is allowed.
//!
//! Both forms are read everywhere a batch is read; a line is written in the object form only when it carries a
//! context or a group, so batches without them keep their bytes. Every text is bounded: the context by
//! [`TurnContext::validate`], the group's ids by [`MAX_GROUP_ID_BYTES`].

use std::sync::Arc;

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::TurnContext;
use crate::error::{Error, Result};
use crate::model::{batch_from_value, batches_text, check_parse_memory, without_bom, Batch};

/// The longest session or task id a group may have, in bytes.
pub const MAX_GROUP_ID_BYTES: usize = 1024;

/// The group a batch belongs to: the session that recorded it and, where the source records one, the task (the
/// issue, the benchmark instance) the session worked on. Batches of one group are not independent: a split
/// that must not leak (tune's validation set) keeps each group on one side.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchGroup {
    /// The session: a session id the log records, or the log file's path; for a generated workload, the
    /// scenario's block of consecutive batches (`<scenario>/session-<k>`).
    pub session: String,
    /// The task or issue the session worked on, where the source records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
}

impl BatchGroup {
    /// Refuses a group whose ids are empty or over [`MAX_GROUP_ID_BYTES`], naming `source_name`.
    pub fn validate(&self, source_name: &str) -> Result<()> {
        let check = |field: &str, id: &str| {
            if id.is_empty() || id.len() > MAX_GROUP_ID_BYTES {
                return Err(Error::Batch {
                    source_name: source_name.to_string(),
                    message: format!(
                        "group.{field} must be 1 to {MAX_GROUP_ID_BYTES} bytes, found {}",
                        id.len()
                    ),
                });
            }
            Ok(())
        };
        check("session", &self.session)?;
        if let Some(task) = &self.task {
            check("task", task)?;
        }
        Ok(())
    }
}

/// A batch as one line of a batches file holds it: the entries and, in the object form, the turn's context and
/// the batch's group.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BatchLine {
    /// The entries, in batch order.
    pub entries: Batch,
    /// What the runtime knew of the turn when it finalized it (shared: every finalization of the batch gets it).
    pub context: Option<Arc<TurnContext>>,
    /// The session and task the batch belongs to.
    pub group: Option<BatchGroup>,
}

impl BatchLine {
    /// A line of the array form: the entries alone.
    pub fn plain(entries: Batch) -> BatchLine {
        BatchLine {
            entries,
            context: None,
            group: None,
        }
    }

    /// Whether the line is written in the object form (it carries a context or a group).
    pub fn is_object(&self) -> bool {
        self.context.is_some() || self.group.is_some()
    }
}

impl Serialize for BatchLine {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        if !self.is_object() {
            return self.entries.serialize(serializer);
        }
        let len = 1 + usize::from(self.context.is_some()) + usize::from(self.group.is_some());
        let mut map = serializer.serialize_map(Some(len))?;
        map.serialize_entry("entries", &self.entries)?;
        if let Some(context) = &self.context {
            map.serialize_entry("context", context.as_ref())?;
        }
        if let Some(group) = &self.group {
            map.serialize_entry("group", group)?;
        }
        map.end()
    }
}

/// Parses one batch line of either form from bytes (a leading byte order mark skipped). `source_name` names the
/// input in errors: malformed JSON with its line and column, shape errors with the entry and field, an unknown
/// key of the object form, a context or group over its bounds.
pub fn parse_batch_line(bytes: &[u8], source_name: &str) -> Result<BatchLine> {
    let bytes = without_bom(bytes);
    check_parse_memory(bytes, source_name)?;
    let value: Value = serde_json::from_slice(bytes).map_err(|e| Error::json(source_name, &e))?;
    batch_line_from_value(value, source_name)
}

/// The batches of a JSON Lines text (one batch a line in either form of this module, blank lines
/// skipped, a leading byte order mark skipped) and the text itself. Errors name `name:line`: text that is not
/// UTF-8, a line that is not a batch.
pub(crate) fn parse_jsonl_lines<'a>(
    bytes: &'a [u8],
    name: &str,
) -> Result<(Vec<BatchLine>, &'a str)> {
    let text = batches_text(bytes, name)?;
    let batches = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| parse_batch_line(l.as_bytes(), &format!("{name}:{}", i + 1)))
        .collect::<Result<Vec<_>>>()?;
    Ok((batches, text))
}

/// [`parse_jsonl_lines`] for the entries alone.
pub(crate) fn parse_jsonl_batches<'a>(
    bytes: &'a [u8],
    name: &str,
) -> Result<(Vec<Batch>, &'a str)> {
    let (lines, text) = parse_jsonl_lines(bytes, name)?;
    Ok((lines.into_iter().map(|l| l.entries).collect(), text))
}

/// Where in `key`'s value an error is: `key.path`, or `key` for the value itself.
fn at(key: &str, path: &serde_path_to_error::Path) -> String {
    match path.to_string().as_str() {
        "." => key.to_string(),
        inner => format!("{key}.{inner}"),
    }
}

/// The keys the object form may hold.
const KEYS: [&str; 3] = ["entries", "context", "group"];

/// Converts a parsed JSON value (an array of entries, or the object form) into a batch line, moving its strings.
pub(crate) fn batch_line_from_value(value: Value, source_name: &str) -> Result<BatchLine> {
    let bad = |message: String| Error::Batch {
        source_name: source_name.to_string(),
        message,
    };
    let mut map = match value {
        Value::Object(map) => map,
        other => return batch_from_value(other, source_name).map(BatchLine::plain),
    };
    // An object without "entries" is most likely one entry given alone, or something else entirely: say what a
    // batch is rather than which key is foreign.
    let Some(entries) = map.shift_remove("entries") else {
        let keys: Vec<String> = map.keys().take(3).map(|k| format!("{k:?}")).collect();
        return Err(bad(format!(
            "a batch must be a JSON array of entries (or an object holding \"entries\"), found an object {}",
            if keys.is_empty() {
                "with no key".to_string()
            } else {
                format!("with {}", keys.join(", "))
            }
        )));
    };
    if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(bad(format!(
            "unknown key {key:?} in a batch object (it holds \"entries\" and optionally \"context\" and \"group\")"
        )));
    }
    let entries = match entries {
        entries @ Value::Array(_) => batch_from_value(entries, source_name)?,
        other => {
            return Err(bad(format!(
                "\"entries\" must be a JSON array of entries, found {}",
                crate::model::kind(&other)
            )))
        }
    };
    let context = match map.shift_remove("context") {
        None | Some(Value::Null) => None,
        Some(value) => {
            let context: TurnContext = serde_path_to_error::deserialize(value)
                .map_err(|e| bad(format!("{}: {}", at("context", e.path()), e.inner())))?;
            context.validate(source_name)?;
            Some(Arc::new(context))
        }
    };
    let group = match map.shift_remove("group") {
        None | Some(Value::Null) => None,
        Some(value) => {
            let group: BatchGroup = serde_path_to_error::deserialize(value)
                .map_err(|e| bad(format!("{}: {}", at("group", e.path()), e.inner())))?;
            group.validate(source_name)?;
            Some(group)
        }
    };
    Ok(BatchLine {
        entries,
        context,
        group,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{CallContext, MAX_TASK_UNITS};

    const ENTRY: &str = r#"{"callId":"c1","toolName":"t","responseParts":[{"text":"x"}]}"#;

    fn err(line: &str) -> String {
        parse_batch_line(line.as_bytes(), "b.jsonl:3")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn the_array_form_reads_as_before_and_writes_back_the_same() {
        let line = format!("[{ENTRY}]");
        let parsed = parse_batch_line(line.as_bytes(), "b").unwrap();
        assert_eq!(
            parsed.entries,
            crate::parse_batch(line.as_bytes(), "b").unwrap()
        );
        assert_eq!((parsed.context.clone(), parsed.group.clone()), (None, None));
        assert_eq!(serde_json::to_string(&parsed).unwrap(), line);
    }

    #[test]
    fn the_object_form_carries_a_context_and_a_group() {
        let line = format!(
            r#"{{"entries":[{ENTRY}],"context":{{"task":"fix it","calls":[{{"callId":"c1","name":"open","arguments":"a.rs 400"}}],"assistant":"Let me look."}},"group":{{"session":"s1","task":"issue-7"}}}}"#
        );
        let parsed = parse_batch_line(line.as_bytes(), "b").unwrap();
        assert_eq!(parsed.entries.len(), 1);
        assert_eq!(
            parsed.context.as_deref(),
            Some(&TurnContext {
                task: Some("fix it".into()),
                calls: vec![CallContext {
                    call_id: "c1".into(),
                    name: "open".into(),
                    arguments: "a.rs 400".into(),
                }],
                assistant: Some("Let me look.".into()),
            })
        );
        assert_eq!(
            parsed.group,
            Some(BatchGroup {
                session: "s1".into(),
                task: Some("issue-7".into())
            })
        );
        assert_eq!(serde_json::to_string(&parsed).unwrap(), line);
        // Both optional: entries alone in the object form.
        let bare = parse_batch_line(format!(r#"{{"entries":[{ENTRY}]}}"#).as_bytes(), "b").unwrap();
        assert_eq!(bare, BatchLine::plain(parsed.entries.clone()));
    }

    #[test]
    fn a_bad_object_is_refused_in_one_line_naming_what() {
        assert_eq!(
            err(&format!(r#"{{"entries":[{ENTRY}],"contxt":{{}}}}"#)),
            "b.jsonl:3: unknown key \"contxt\" in a batch object (it holds \"entries\" and optionally \"context\" and \"group\")"
        );
        assert_eq!(
            err(r#"{"context":{}}"#),
            "b.jsonl:3: a batch must be a JSON array of entries (or an object holding \"entries\"), found an object with \"context\""
        );
        assert_eq!(
            err(r#"{"entries":{}}"#),
            "b.jsonl:3: \"entries\" must be a JSON array of entries, found an object"
        );
        assert_eq!(
            err(r#"{"entries":[{"callId":"a","responseParts":[]}]}"#),
            "b.jsonl:3: entry 0: missing \"toolName\""
        );
        let e = err(r#"{"entries":[],"context":{"task":"x","mood":1}}"#);
        assert!(
            e.starts_with("b.jsonl:3: context.mood: unknown field `mood`"),
            "{e}"
        );
        let e = err(r#"{"entries":[],"context":{"calls":[{"callId":"a","name":3}]}}"#);
        assert!(
            e.starts_with("b.jsonl:3: context.calls[0].name: invalid type"),
            "{e}"
        );
        assert_eq!(
            err(r#"{"entries":[],"group":{"session":""}}"#),
            "b.jsonl:3: group.session must be 1 to 1024 bytes, found 0"
        );
        let e = err(r#"{"entries":[],"group":{"task":"t"}}"#);
        assert!(
            e.starts_with("b.jsonl:3: group: missing field `session`"),
            "{e}"
        );
        let long = format!(
            r#"{{"entries":[],"context":{{"task":"{}"}}}}"#,
            "x".repeat(MAX_TASK_UNITS + 1)
        );
        assert_eq!(
            err(&long),
            format!(
                "b.jsonl:3: context.task is {} UTF-16 units, over the {MAX_TASK_UNITS} a context may hold",
                MAX_TASK_UNITS + 1
            )
        );
        let e = err("{\"entries\":[],\n \"group\": }");
        assert!(
            e.starts_with("b.jsonl:3: invalid JSON at line 2, column 11"),
            "{e}"
        );
    }
}
