//! The PostToolBatch hook as the simulation models it: it may append context to each output and may rebuild
//! responses, and a rebuilt response does not inherit the internal persistence metadata.

use serde::{Deserialize, Serialize};

use crate::model::{Batch, Field};

/// What the simulated PostToolBatch hook does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct HookConfig {
    /// UTF-16 units of hook context appended (after a blank line) to every string output of the batch.
    pub append_units: usize,
    /// Whether the hook rebuilds the responses, dropping their `persistedOutputFiles`.
    pub rebuild: bool,
}

impl HookConfig {
    /// Whether the hook changes anything.
    pub fn is_active(self) -> bool {
        self.append_units > 0 || self.rebuild
    }

    /// Applies the hook to a scheduler's batch.
    pub fn apply(self, mut batch: Batch) -> Batch {
        if !self.is_active() {
            return batch;
        }
        let context = hook_context(self.append_units);
        for entry in &mut batch {
            if self.rebuild {
                entry.persisted_output_files = None;
            }
            if self.append_units == 0 {
                continue;
            }
            for part in &mut entry.response_parts {
                if let Some(output) = part.field_mut(Field::Output) {
                    output.push_str("\n\n");
                    output.push_str(&context);
                }
            }
        }
        batch
    }
}

/// `units` UTF-16 units of ASCII hook context.
fn hook_context(units: usize) -> String {
    const LINE: &str =
        "[post-tool-batch hook] policy check passed; no secrets detected in tool output.\n";
    LINE.chars().cycle().take(units).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entry, Part};
    use serde_json::json;

    #[test]
    fn appends_context_and_drops_metadata_when_rebuilding() {
        let mut e = Entry::new(
            "c",
            "t",
            vec![Part::function_response("c", "t", Some(json!("out")), None)],
        );
        e.persisted_output_files = Some(vec!["/p".into()]);
        let hook = HookConfig {
            append_units: 10,
            rebuild: true,
        };
        let out = hook.apply(vec![e]);
        assert_eq!(
            out[0].response_parts[0].field(Field::Output),
            Some("out\n\n[post-tool")
        );
        assert_eq!(out[0].persisted_output_files, None);
        let idle = HookConfig::default();
        assert!(!idle.is_active());
    }
}
