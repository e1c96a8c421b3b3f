//! What the runtime knows about a turn when it finalizes it, for finalizers that choose by content: the task the
//! agent was given, the calls that made the turn's results (name and arguments), and the assistant's text of the
//! turn that made those calls. Never anything from later turns.
//!
//! A [`TurnContext`] is optional everywhere: a batch without one finalizes as before, and the reference never
//! reads it. Every text is bounded ([`MAX_TASK_UNITS`], [`MAX_ASSISTANT_UNITS`], [`MAX_ARGUMENT_UNITS`],
//! [`MAX_CALLS`]); [`TurnContext::validate`] refuses a context over them before anything reads it.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::text::utf16_len;

/// The longest task text a context carries, in UTF-16 units.
pub const MAX_TASK_UNITS: usize = 32 * 1024;
/// The longest assistant text a context carries, in UTF-16 units.
pub const MAX_ASSISTANT_UNITS: usize = 32 * 1024;
/// The longest arguments text of one call, in UTF-16 units.
pub const MAX_ARGUMENT_UNITS: usize = 8 * 1024;
/// The most calls a context describes.
pub const MAX_CALLS: usize = 1024;

/// What the runtime knows about a turn when it finalizes its tool results.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TurnContext {
    /// The task the agent was given (the first user message, an issue's text), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The calls whose results the batch holds, in batch order where known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallContext>,
    /// The assistant's text of the turn that made the calls (its reasoning, the command it wrote), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant: Option<String>,
}

/// One tool call of the turn, as the model made it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallContext {
    /// The call's id, as the batch entry's `callId` has it.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The call's arguments as text (JSON, or the command line the agent wrote).
    #[serde(default)]
    pub arguments: String,
}

impl TurnContext {
    /// Whether the context says nothing.
    pub fn is_empty(&self) -> bool {
        self.task.is_none() && self.calls.is_empty() && self.assistant.is_none()
    }

    /// The call whose id is `call_id`, if the context has it.
    pub fn call(&self, call_id: &str) -> Option<&CallContext> {
        self.calls.iter().find(|c| c.call_id == call_id)
    }

    /// Refuses a context over its bounds, naming `source_name` and the field.
    pub fn validate(&self, source_name: &str) -> Result<()> {
        let over = |field: String, len: usize, max: usize| Error::Batch {
            source_name: source_name.to_string(),
            message: format!(
                "context.{field} is {len} UTF-16 units, over the {max} a context may hold"
            ),
        };
        if let Some(task) = &self.task {
            let len = utf16_len(task);
            if len > MAX_TASK_UNITS {
                return Err(over("task".into(), len, MAX_TASK_UNITS));
            }
        }
        if let Some(text) = &self.assistant {
            let len = utf16_len(text);
            if len > MAX_ASSISTANT_UNITS {
                return Err(over("assistant".into(), len, MAX_ASSISTANT_UNITS));
            }
        }
        if self.calls.len() > MAX_CALLS {
            return Err(Error::Batch {
                source_name: source_name.to_string(),
                message: format!(
                    "context.calls has {} calls, over the {MAX_CALLS} a context may hold",
                    self.calls.len()
                ),
            });
        }
        for (i, call) in self.calls.iter().enumerate() {
            let len = utf16_len(&call.arguments);
            if len > MAX_ARGUMENT_UNITS {
                return Err(over(
                    format!("calls[{i}].arguments"),
                    len,
                    MAX_ARGUMENT_UNITS,
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_over_a_bound_is_refused_naming_the_field() {
        let ok = TurnContext {
            task: Some("fix the bug".into()),
            calls: vec![CallContext {
                call_id: "c1".into(),
                name: "open".into(),
                arguments: "\"src/a.rs\" 120".into(),
            }],
            assistant: Some("Let me open the file.".into()),
        };
        ok.validate("b").unwrap();
        assert_eq!(ok.call("c1").unwrap().name, "open");
        assert!(ok.call("c2").is_none());
        let mut long = ok.clone();
        long.calls[0].arguments = "x".repeat(MAX_ARGUMENT_UNITS + 1);
        assert_eq!(
            long.validate("b").unwrap_err().to_string(),
            Error::Batch {
                source_name: "b".into(),
                message: format!(
                    "context.calls[0].arguments is {} UTF-16 units, over the {MAX_ARGUMENT_UNITS} a context may hold",
                    MAX_ARGUMENT_UNITS + 1
                ),
            }
            .to_string()
        );
        let json = serde_json::to_string(&ok).unwrap();
        assert_eq!(
            json,
            r#"{"task":"fix the bug","calls":[{"callId":"c1","name":"open","arguments":"\"src/a.rs\" 120"}],"assistant":"Let me open the file."}"#
        );
        assert_eq!(serde_json::from_str::<TurnContext>(&json).unwrap(), ok);
        assert!(TurnContext::default().is_empty());
    }
}
