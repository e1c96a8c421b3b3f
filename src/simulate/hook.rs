//! The PostToolBatch hook as the simulation models it: it may append context to each output and may rebuild
//! responses, and a rebuilt response does not inherit the internal persistence metadata.

use crate::model::{Batch, Field};
use crate::workload::HookConfig;

/// Applies `hook` to a scheduler's batch.
pub(crate) fn apply(hook: HookConfig, mut batch: Batch) -> Batch {
    if !hook.is_active() {
        return batch;
    }
    let context = hook_context(hook.append_units);
    for entry in &mut batch {
        if hook.rebuild {
            entry.persisted_output_files = None;
        }
        if hook.append_units == 0 {
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
        let out = apply(hook, vec![e.clone()]);
        assert_eq!(
            out[0].response_parts[0].field(Field::Output),
            Some("out\n\n[post-tool")
        );
        assert_eq!(out[0].persisted_output_files, None);
        assert_eq!(apply(HookConfig::default(), vec![e.clone()]), vec![e]);
    }
}
