//! `claude-code`: what Claude Code does to tool results, as publicly reported.
//!
//! - Unit: UTF-16 code units (JavaScript string length), which it calls characters.
//! - Constants: shell output over 30,000 characters is cut; all tool results of one message together are
//!   capped at 200,000 characters (configurable through [`ClaudeCodeConfig`]); a result moved out of the message
//!   keeps a preview of about 2,000 characters.
//! - Shapes: a shell output (a `functionResponse` output of a tool in the configured shell list) over 30,000
//!   keeps its first and last 15,000 characters (surrogate-safe) with a marker line in the middle naming what
//!   was cut; nothing is saved. Then, while the message's tool results (every `functionResponse` output and
//!   error) exceed the cap, the largest remaining result (ties to the earlier one) is persisted (once, existing
//!   paths reused) and each of its fields over 2,000 characters is replaced by a note line naming its length and
//!   file, followed by its first 2,000 characters. A message whose results are all short stays over the cap.

use super::artifacts::{slots_of_entry, EntryWriter};
use super::config::{ClaudeCodeConfig, StrategyConfig, POSITIVE_UNITS};
use super::cut_digests::CutField;
use super::param::{Param, Search, Setting};
use super::per_result::{apply_rule, join_paths, ResultRule};
use super::slots::{collect_slots, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::{Finalizer, Outcome};
use crate::budget::BudgetContext;
use crate::model::{Batch, Field};
use crate::persist::ArtifactStore;
use crate::text::{head, tail, utf16_len};

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "claude-code",
    description: "Claude Code: shell over 30,000 cut in the middle; 200,000 per message, largest results saved first",
    family: Family::Policy,
    caps: None,
    gives_up: &["budget-fits", "disabled-budget-noop", "names-artifact", "idempotent"],
    params: &[
        Param {
            name: "message_cap_chars",
            key: "claude_code.message_cap_chars",
            description: "the cap on all tool results of a message together, in UTF-16 units",
            field: Setting::Units(POSITIVE_UNITS, |c| &mut c.claude_code.message_cap_chars),
            search: Search::Log {
                low: 10_000,
                high: 1_000_000,
                points: 10,
            },
        },
    ],
    build: Build::One(|config| Box::new(ClaudeCode::from_config(config))),
};

/// Shell output longer than this is cut in the middle.
pub(crate) const SHELL_MAX_CHARS: u64 = 30_000;
/// The preview a result moved out of the message keeps.
pub(crate) const PREVIEW_CHARS: u64 = 2_000;

/// The Claude Code policy.
#[derive(Debug, Clone)]
pub(crate) struct ClaudeCode {
    /// The message-level cap.
    pub config: ClaudeCodeConfig,
    /// Tool names whose output is shell output.
    pub shell_tools: Vec<String>,
}

impl Default for ClaudeCode {
    fn default() -> Self {
        ClaudeCode::from_config(&StrategyConfig::default())
    }
}

impl ClaudeCode {
    /// The policy as `config` sets it.
    pub(crate) fn from_config(config: &StrategyConfig) -> Self {
        ClaudeCode {
            config: config.claude_code,
            shell_tools: config.shell_tools.clone(),
        }
    }
}

/// The shell tool's own middle cut.
struct ShellCut<'a> {
    shell_tools: &'a [String],
}

impl ResultRule for ShellCut<'_> {
    fn shortens(&self, tool: &str, field: Field, text: &str) -> bool {
        field == Field::Output
            && self.shell_tools.iter().any(|t| t == tool)
            && utf16_len(text) as u64 > SHELL_MAX_CHARS
    }

    fn rewrite(&self, _tool: &str, cut: &CutField<'_>, _paths: &[String]) -> String {
        let text = cut.text;
        let half = (SHELL_MAX_CHARS / 2) as usize;
        let (first, last) = (head(text, half), tail(text, half));
        let cut = utf16_len(text) - utf16_len(first) - utf16_len(last);
        format!("{first}\n[... {cut} characters of shell output cut here ...]\n{last}")
    }
}

/// The preview of a field moved out of the message.
fn moved_preview(text: &str, paths: &[String]) -> String {
    let length = utf16_len(text);
    let place = if paths.is_empty() {
        "it could not be saved".to_string()
    } else {
        format!("saved to {}", join_paths(paths))
    };
    format!(
        "[Result of {length} characters moved out of the message; {place}. Its first {PREVIEW_CHARS} characters:]\n{}",
        head(text, PREVIEW_CHARS as usize)
    )
}

impl Finalizer for ClaudeCode {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        let shell = ShellCut {
            shell_tools: &self.shell_tools,
        };
        let mut batch = apply_rule(
            &shell,
            batch,
            &ctx.reminders,
            ctx.known_digests.as_deref(),
            store,
        )
        .batch;
        let slots = collect_slots(&batch, &ctx.reminders, SlotScope::TOOL_FIELDS);
        let mut total: u64 = slots.iter().map(|s| s.len).sum();
        let cap = self.config.message_cap_chars;
        let mut writer = EntryWriter::new(&batch);
        if total > cap {
            let mut results: Vec<(usize, u64)> = (0..batch.len())
                .map(|e| (e, slots_of_entry(&slots, e).iter().map(|s| s.len).sum()))
                .filter(|&(_, len)| len > 0)
                .collect();
            results.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            for (e, _) in results {
                if total <= cap {
                    break;
                }
                let own = slots_of_entry(&slots, e);
                if own.iter().all(|s| s.len <= PREVIEW_CHARS) {
                    continue;
                }
                writer.persist(&mut batch, e, own, store);
                for slot in own.iter().filter(|s| s.len > PREVIEW_CHARS) {
                    let preview = moved_preview(slot.text(&batch), batch[e].artifact_paths());
                    total = total - slot.len + utf16_len(&preview) as u64;
                    slot.replace(&mut batch, &preview);
                }
            }
        }
        Outcome {
            batch,
            persisted: writer.into_attempts(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::testing::{output_entry, output_error_entry, output_of, run, text_of};

    #[test]
    fn shell_output_is_cut_in_the_middle_without_a_file() {
        let text: String = (0..50_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let batch = vec![
            output_entry("s", "shell", &text),
            output_entry("r", "read_file", &text),
        ];
        let (out, store) = run(&ClaudeCode::default(), batch, -1, None);
        assert_eq!(
            output_of(&out, 0),
            format!(
                "{}\n[... 20000 characters of shell output cut here ...]\n{}",
                &text[..15_000],
                &text[35_000..]
            )
        );
        assert_eq!(output_of(&out, 1), text);
        assert!(store.artifacts().is_empty());
    }

    #[test]
    fn shell_output_of_exactly_the_cap_is_kept_and_one_unit_more_is_cut() {
        let at = "é".repeat(SHELL_MAX_CHARS as usize);
        let over = format!("{at}x");
        let batch = vec![
            output_entry("at", "shell", &at),
            output_entry("over", "shell", &over),
        ];
        let (out, _) = run(&ClaudeCode::default(), batch, -1, None);
        assert_eq!(output_of(&out, 0), at);
        assert_eq!(
            output_of(&out, 1),
            format!(
                "{}\n[... 1 characters of shell output cut here ...]\n{}x",
                "é".repeat(15_000),
                "é".repeat(14_999)
            )
        );
    }

    #[test]
    fn the_message_cap_moves_the_largest_results_out_first() {
        let batch = vec![
            output_entry("a", "read_file", &"a".repeat(90_000)),
            output_entry("b", "read_file", &"b".repeat(95_000)),
            output_entry("c", "read_file", &"c".repeat(90_000)),
        ];
        let (out, store) = run(&ClaudeCode::default(), batch, -1, None);
        let note =
            "[Result of 95000 characters moved out of the message; saved to /tmp/b.txt. Its first 2000 characters:]\n";
        assert_eq!(output_of(&out, 1), format!("{note}{}", "b".repeat(2_000)));
        assert_eq!(output_of(&out, 0), "a".repeat(90_000));
        assert_eq!(output_of(&out, 2), "c".repeat(90_000));
        assert_eq!(store.artifacts().len(), 1);
        let capped = ClaudeCode {
            config: ClaudeCodeConfig {
                message_cap_chars: 100_000,
            },
            ..ClaudeCode::default()
        };
        let batch = vec![
            output_entry("a", "read_file", &"a".repeat(90_000)),
            output_entry("b", "read_file", &"b".repeat(95_000)),
            output_entry("c", "read_file", &"c".repeat(90_000)),
        ];
        let (_, store) = run(&capped, batch, -1, None);
        let ids: Vec<&str> = store.artifacts().iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["b", "a"]);
    }

    /// The policy with a message cap of `cap` characters.
    fn capped_at(cap: u64) -> ClaudeCode {
        ClaudeCode {
            config: ClaudeCodeConfig {
                message_cap_chars: cap,
            },
            ..ClaudeCode::default()
        }
    }

    #[test]
    fn the_total_after_a_move_counts_the_preview_left_behind() {
        // 275,000 in all; moving `b` leaves 180,000 and its preview, which is still over a cap of 180,000.
        let batch = vec![
            output_entry("a", "read_file", &"a".repeat(90_000)),
            output_entry("b", "read_file", &"b".repeat(95_000)),
            output_entry("c", "read_file", &"c".repeat(90_000)),
        ];
        let (_, store) = run(&capped_at(180_000), batch, -1, None);
        let ids: Vec<&str> = store.artifacts().iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["b", "a"]);
    }

    #[test]
    fn a_moved_result_keeps_a_field_no_longer_than_the_preview() {
        let error = "e".repeat(PREVIEW_CHARS as usize);
        let batch = vec![output_error_entry(
            "big",
            "read_file",
            &"o".repeat(50_000),
            &error,
        )];
        let (out, store) = run(&capped_at(10_000), batch, -1, None);
        assert_eq!(store.artifacts().len(), 1);
        assert!(
            output_of(&out, 0).starts_with("[Result of 50000 characters moved out of the message")
        );
        assert_eq!(text_of(&out, 0, 0, Field::Error), error);
    }
}
