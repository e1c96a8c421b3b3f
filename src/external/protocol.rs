//! The messages of the external-strategy protocol, version 1 (docs/protocol.md), as serde types.
//!
//! Every message is one JSON object on one line. The harness opens with a [`Hello`] and the child answers with a
//! [`HelloReply`]; then, one at a time, the harness sends a request (written from a [`Request`], read back by a
//! child with [`OwnedRequest`]) and the child answers with a response: `{"id", "entries", "persisted"}`, or
//! `{"id", "error"}` when it cannot finalize. Entries have the shape `budgetlab finalize` reads and prints, and a
//! persisted record the shape of its `persisted` list, plus the optional index of the entry it belongs to.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::budget::{Budget, BudgetContext, PlanReminders};
use crate::context::TurnContext;
use crate::model::{batch_from_value, Batch, Entry};
use crate::persist::InjectedFaults;

/// The protocol's name, in both handshake messages.
pub const PROTOCOL: &str = "budgetlab-finalizer";

/// The protocol version this budgetlab speaks.
pub const VERSION: u64 = 1;

/// The capability of a child that honours a request's `persistFaults`.
pub const PERSIST_FAULTS: &str = "persist-faults";

/// The capability of a child that wants the turn's context (the task, the calls, the assistant's text): only
/// such a child's requests carry `context`, and only when the batch has one.
pub const CONTEXT: &str = "context";

/// The harness's first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// Always [`PROTOCOL`].
    pub protocol: String,
    /// The version the harness speaks.
    pub version: u64,
}

impl Hello {
    /// The handshake of this version.
    pub fn current() -> Hello {
        Hello {
            protocol: PROTOCOL.into(),
            version: VERSION,
        }
    }
}

/// The child's answer to the handshake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HelloReply {
    /// Always [`PROTOCOL`].
    pub protocol: String,
    /// The version the child speaks; the harness goes on only when it is its own.
    pub version: u64,
    /// The child's own name for its finalizer (for logs; the harness uses the name it registered).
    pub name: String,
    /// Optional behaviours the child supports, such as [`PERSIST_FAULTS`]; unknown ones are ignored.
    #[serde(default)]
    pub capabilities: Vec<String>,
}

/// The persistence failures a request asks the child to simulate, for a harness that injects them (the
/// `persist-failures` scenario, `finalize --fail-persist`): the rule of [`InjectedFaults`], in a form any language
/// can apply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PersistFaults {
    /// Persistence ids whose writes fail.
    pub ids: Vec<String>,
    /// Parts per million of the other writes that fail (0 to 1,000,000).
    pub rate_ppm: u32,
    /// 16 hexadecimal digits: the 8 bytes hashed before the id (the seed, little-endian).
    pub salt: String,
}

impl PersistFaults {
    /// The rule of `faults`, as a request carries it.
    pub fn from_faults(faults: &InjectedFaults) -> PersistFaults {
        let salt = faults
            .seed
            .to_le_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        PersistFaults {
            ids: faults.ids.clone(),
            rate_ppm: faults.rate_ppm,
            salt,
        }
    }

    /// The rule this describes; `None` when the salt is not 16 hexadecimal digits or the rate is over a million.
    pub fn to_faults(&self) -> Option<InjectedFaults> {
        if self.salt.len() != 16 || !self.salt.is_ascii() || self.rate_ppm > 1_000_000 {
            return None;
        }
        let mut bytes = [0u8; 8];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&self.salt[2 * i..2 * i + 2], 16).ok()?;
        }
        let mut ids = self.ids.clone();
        ids.sort();
        Some(InjectedFaults {
            ids,
            rate_ppm: self.rate_ppm,
            seed: u64::from_le_bytes(bytes),
        })
    }
}

/// A request as the harness writes it (borrowing the batch: nothing is copied before serialization).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Request<'a> {
    /// The request's number, 1 for a child's first request; the response must carry it.
    pub id: u64,
    /// The runtime boundary finalizing.
    pub boundary: &'a str,
    /// The budget in UTF-16 units; `null` for no budget (zero or negative also mean none).
    pub budget: Option<i64>,
    /// The model's context window in tokens, when known.
    pub context_window_tokens: Option<u64>,
    /// Where the child persists complete outputs (paths `artifactDir/<id>.txt` for the reference's naming).
    pub artifact_dir: &'a str,
    /// The plan-mode lifecycle reminder texts that stay outside the budget.
    pub reminders: &'a [String],
    /// The batch, entries as `budgetlab finalize` reads them.
    pub batch: &'a [Entry],
    /// Persistence failures to simulate; absent when none are injected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persist_faults: Option<&'a PersistFaults>,
    /// What the runtime knew of the turn; sent only to a child that declared [`CONTEXT`], when the batch has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<&'a TurnContext>,
}

impl<'a> Request<'a> {
    /// The request for `batch` under `ctx`, persisting under `artifact_dir`.
    pub fn new(
        id: u64,
        batch: &'a [Entry],
        ctx: &'a BudgetContext,
        artifact_dir: &'a str,
        persist_faults: Option<&'a PersistFaults>,
    ) -> Request<'a> {
        Request {
            id,
            boundary: ctx.boundary,
            budget: match ctx.budget {
                Budget::Unlimited => None,
                Budget::Units(n) => Some(n),
            },
            context_window_tokens: ctx.context_window_tokens,
            artifact_dir,
            reminders: ctx.reminders.texts(),
            batch,
            persist_faults,
            context: None,
        }
    }

    /// This request with the context of `ctx`, when it has one (for a child that declared [`CONTEXT`]).
    pub fn with_context(mut self, ctx: &'a BudgetContext) -> Request<'a> {
        self.context = ctx.turn.as_deref();
        self
    }

    /// The request as one line, newline included.
    pub fn to_line(&self) -> Vec<u8> {
        let mut line = serde_json::to_vec(self).expect("a request always serialises");
        line.push(b'\n');
        line
    }
}

/// A request as a child reads it.
#[derive(Debug, Clone)]
pub struct OwnedRequest {
    /// The request's number.
    pub id: u64,
    /// The runtime boundary finalizing.
    pub boundary: String,
    /// The budget and context the finalizer is given (its boundary is `finalize`; see [`OwnedRequest::boundary`]).
    pub ctx: BudgetContext,
    /// Where to persist.
    pub artifact_dir: String,
    /// The batch.
    pub batch: Batch,
    /// Persistence failures to simulate.
    pub persist_faults: Option<InjectedFaults>,
}

/// The fields of a request besides its batch.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestHead {
    id: u64,
    boundary: String,
    budget: Option<i64>,
    context_window_tokens: Option<u64>,
    artifact_dir: String,
    reminders: Vec<String>,
    #[serde(default)]
    persist_faults: Option<PersistFaults>,
    #[serde(default)]
    context: Option<TurnContext>,
}

impl OwnedRequest {
    /// Reads a request from its parsed line; the error says what is wrong, and the id when it could be read.
    pub fn from_value(value: Value) -> Result<OwnedRequest, (Option<u64>, String)> {
        let Value::Object(mut map) = value else {
            return Err((None, "a request must be a JSON object".into()));
        };
        let id = map.get("id").and_then(Value::as_u64);
        let fail = |message: String| (id, message);
        let batch = map
            .shift_remove("batch")
            .ok_or_else(|| fail("missing \"batch\"".into()))?;
        let head: RequestHead = serde_json::from_value(Value::Object(map))
            .map_err(|e| fail(format!("invalid request: {e}")))?;
        let batch = batch_from_value(batch, "batch").map_err(|e| fail(e.to_string()))?;
        let persist_faults = match &head.persist_faults {
            None => None,
            Some(p) => Some(p.to_faults().ok_or_else(|| {
                fail("invalid \"persistFaults\": the salt must be 16 hexadecimal digits and the rate at most 1000000".into())
            })?),
        };
        let mut ctx = BudgetContext::new(match head.budget {
            None => Budget::Unlimited,
            Some(n) => Budget::Units(n),
        });
        ctx.context_window_tokens = head.context_window_tokens;
        ctx.reminders = PlanReminders::new(head.reminders);
        if let Some(context) = head.context {
            context
                .validate("request")
                .map_err(|e| fail(format!("invalid \"context\": {e}")))?;
            ctx.turn = Some(std::sync::Arc::new(context));
        }
        Ok(OwnedRequest {
            id: head.id,
            boundary: head.boundary,
            ctx,
            artifact_dir: head.artifact_dir,
            batch,
            persist_faults,
        })
    }
}

/// One persisted record of a response as a child writes it: `budgetlab finalize`'s shape plus the entry index.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistedRecord<'a> {
    /// The persistence id the write used.
    pub call_id: &'a str,
    /// The tool whose output it is.
    pub tool_name: &'a str,
    /// The complete content written.
    pub content: &'a str,
    /// The artifact path, or `null` when the write failed or was refused.
    pub path: Option<&'a str>,
    /// The index of the entry in the request's batch (optional in the protocol; the harness infers it when
    /// absent).
    pub entry: usize,
}

/// A response as a child writes it.
#[derive(Debug, Serialize)]
pub struct Response<'a> {
    /// The request's id.
    pub id: u64,
    /// The finalized batch, in the request's order.
    pub entries: &'a [Entry],
    /// Every persistence attempt, in the order made.
    pub persisted: Vec<PersistedRecord<'a>>,
}

/// The answer of a child that cannot finalize a request.
#[derive(Debug, Serialize)]
pub struct ErrorResponse<'a> {
    /// The request's id, `null` when it could not be read.
    pub id: Option<u64>,
    /// What went wrong.
    pub error: &'a str,
}

/// A response as the harness reads it: the id, the entries and the persisted records, each record with its
/// fields and the optional entry index.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadResponse {
    /// The finalized batch.
    pub entries: Batch,
    /// The reported attempts, in order.
    pub persisted: Vec<ReportedWrite>,
}

/// One reported persistence attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportedWrite {
    /// The persistence id (`callId`).
    pub call_id: String,
    /// The tool whose output it is.
    pub tool_name: String,
    /// The complete content written.
    pub content: String,
    /// The path, `None` for a failed or refused write.
    pub path: Option<String>,
    /// The entry index the child gave, if any.
    pub entry: Option<u64>,
}

/// What a response line holds, once parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A response to request `id`.
    Response(u64, ReadResponse),
    /// The child's error for request `id` (`None` when it gave none).
    Error(Option<u64>, String),
}

impl Answer {
    /// Reads a parsed response line; the error says which field is wrong.
    pub fn from_value(value: Value) -> Result<Answer, String> {
        let Value::Object(mut map) = value else {
            return Err("a response must be a JSON object".into());
        };
        let id = match map.get("id") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .ok_or_else(|| format!("\"id\" must be a request number, found {v}"))?,
            ),
        };
        if let Some(error) = map.shift_remove("error") {
            let message = match error {
                Value::String(s) => s,
                other => other.to_string(),
            };
            return Ok(Answer::Error(id, message));
        }
        let id = id.ok_or("missing \"id\"")?;
        let entries = map.shift_remove("entries").ok_or("missing \"entries\"")?;
        let entries = batch_from_value(entries, "\"entries\"").map_err(|e| e.to_string())?;
        let persisted = match map.shift_remove("persisted") {
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(i, item)| reported(item).map_err(|m| format!("persisted[{i}]: {m}")))
                .collect::<Result<Vec<_>, _>>()?,
            Some(_) => return Err("\"persisted\" must be an array".into()),
            None => return Err("missing \"persisted\"".into()),
        };
        Ok(Answer::Response(id, ReadResponse { entries, persisted }))
    }
}

fn reported(value: Value) -> Result<ReportedWrite, String> {
    let Value::Object(mut map) = value else {
        return Err("must be an object {\"callId\", \"toolName\", \"content\", \"path\"}".into());
    };
    let string = |map: &mut Map<String, Value>, key: &str| match map.shift_remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(format!("\"{key}\" must be a string")),
        None => Err(format!("missing \"{key}\"")),
    };
    let call_id = string(&mut map, "callId")?;
    let tool_name = string(&mut map, "toolName")?;
    let content = string(&mut map, "content")?;
    let path = match map.shift_remove("path") {
        Some(Value::String(s)) => Some(s),
        Some(Value::Null) => None,
        Some(_) => return Err("\"path\" must be a string or null".into()),
        None => return Err("missing \"path\" (null for a failed write)".into()),
    };
    let entry = match map.shift_remove("entry") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or("\"entry\" must be an entry index (a non-negative integer)")?,
        ),
    };
    Ok(ReportedWrite {
        call_id,
        tool_name,
        content,
        path,
        entry,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_request_has_the_documented_shape() {
        let batch = crate::model::parse_batch(
            br#"[{"callId":"c1","toolName":"shell","responseParts":[{"text":"hi"}]}]"#,
            "t",
        )
        .unwrap();
        let mut ctx = BudgetContext::new(Budget::Units(300));
        ctx.reminders = PlanReminders::new(vec!["R".into()]);
        let line = Request::new(7, &batch, &ctx, "tool-results", None).to_line();
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "{\"id\":7,\"boundary\":\"finalize\",\"budget\":300,\"contextWindowTokens\":null,\
             \"artifactDir\":\"tool-results\",\"reminders\":[\"R\"],\"batch\":[{\"callId\":\"c1\",\
             \"toolName\":\"shell\",\"responseParts\":[{\"text\":\"hi\"}]}]}\n"
        );
        let ctx = BudgetContext::new(Budget::Unlimited);
        let faults = PersistFaults::from_faults(&InjectedFaults {
            ids: vec!["c1".into()],
            rate_ppm: 250_000,
            seed: 0x0102_0304_0506_0708,
        });
        let value: Value =
            serde_json::from_slice(&Request::new(1, &batch, &ctx, "d", Some(&faults)).to_line())
                .unwrap();
        assert_eq!(value["budget"], Value::Null);
        assert_eq!(
            value["persistFaults"],
            json!({"ids": ["c1"], "ratePpm": 250000, "salt": "0807060504030201"})
        );
        let back = OwnedRequest::from_value(value).unwrap();
        assert_eq!(back.persist_faults.unwrap().seed, 0x0102_0304_0506_0708);
        assert_eq!(back.ctx.budget, Budget::Unlimited);
        assert_eq!(back.batch, batch);
    }

    #[test]
    fn requests_that_cannot_be_read_keep_their_id() {
        let err = OwnedRequest::from_value(json!({"id": 4, "batch": []})).unwrap_err();
        assert_eq!(err.0, Some(4));
        assert!(err.1.contains("missing field `boundary`"), "{}", err.1);
        let err = OwnedRequest::from_value(json!([])).unwrap_err();
        assert_eq!(err, (None, "a request must be a JSON object".to_string()));
        let bad_salt = json!({"id": 1, "boundary": "b", "budget": 1, "contextWindowTokens": null,
            "artifactDir": "d", "reminders": [], "batch": [],
            "persistFaults": {"ids": [], "ratePpm": 1, "salt": "xyz"}});
        assert!(OwnedRequest::from_value(bad_salt)
            .unwrap_err()
            .1
            .contains("salt"));
    }

    #[test]
    fn responses_are_read_field_by_field() {
        let ok = json!({"id": 3, "entries": [], "persisted": [
            {"callId": "c1", "toolName": "shell", "content": "full", "path": "d/c1.txt"},
            {"callId": "c2", "toolName": "shell", "content": "x", "path": null, "entry": 1}]});
        let Answer::Response(3, r) = Answer::from_value(ok).unwrap() else {
            panic!()
        };
        assert_eq!(r.persisted[0].path.as_deref(), Some("d/c1.txt"));
        assert_eq!(
            (r.persisted[0].entry, r.persisted[1].entry),
            (None, Some(1))
        );
        assert_eq!(r.persisted[1].path, None);
        assert_eq!(
            Answer::from_value(json!({"id": 2, "error": "no"})).unwrap(),
            Answer::Error(Some(2), "no".into())
        );
        let err = |v: Value| Answer::from_value(v).unwrap_err();
        assert_eq!(
            err(json!({"entries": [], "persisted": []})),
            "missing \"id\""
        );
        assert_eq!(
            err(json!({"id": 1, "entries": []})),
            "missing \"persisted\""
        );
        assert_eq!(
            err(
                json!({"id": 1, "entries": [], "persisted": [{"callId": "c", "toolName": "t", "content": "x"}]})
            ),
            "persisted[0]: missing \"path\" (null for a failed write)"
        );
        assert_eq!(
            err(json!({"id": -1, "entries": [], "persisted": []})),
            "\"id\" must be a request number, found -1"
        );
        assert!(
            err(json!({"id": 1, "entries": [{}], "persisted": []})).contains("missing \"callId\"")
        );
    }
}
