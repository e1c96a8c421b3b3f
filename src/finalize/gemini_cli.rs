//! `gemini-cli`: what the Gemini CLI does to a tool result, as publicly documented.
//!
//! - Unit: UTF-16 code units (JavaScript string length), which the CLI calls characters.
//! - Constants: a per-result threshold of `min(4 × (context window tokens − tokens already in the prompt),
//!   40,000)` characters; without a known window, 40,000. The tokens already in the prompt come from
//!   [`GeminiCliConfig`] (default 0).
//! - Shape: a result field over the threshold keeps its first fifth and last four fifths of the threshold
//!   (surrogate-safe), with a marker line between them that names the number of characters left out and the
//!   file the complete output was saved to. The entry is persisted once (existing paths reused).
//! - No batch-level cap. Applies to each `functionResponse` output and error; top-level text is left alone.

use super::config::{GeminiCliConfig, UNITS};
use super::cut_digests::CutField;
use super::param::{Param, Search, Setting};
use super::per_result::{join_paths, PerResult, PerResultPolicy, ResultRule};
use super::spec::{Build, Family, StrategySpec};
use crate::budget::BudgetContext;
use crate::model::Field;
use crate::text::{head, tail, utf16_len};

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "gemini-cli",
    description: "Gemini CLI: over min(4 x free window tokens, 40,000) chars, 1/5 head 4/5 tail; full output saved",
    family: Family::Policy,
    caps: None,
    gives_up: &["budget-fits", "disabled-budget-noop", "idempotent"],
    params: &[
        Param {
            name: "prompt_tokens",
            key: "gemini_cli.prompt_tokens",
            description: "tokens already in the prompt, taken from the window before the threshold is worked out",
            field: Setting::Units(UNITS, |c| &mut c.gemini_cli.prompt_tokens),
            search: Search::Fact,
        },
    ],
    build: Build::One(|config| {
        Box::new(PerResult(GeminiCli {
            config: config.gemini_cli,
        }))
    }),
};

/// The upper bound of the threshold, in characters.
pub(crate) const MAX_THRESHOLD_CHARS: u64 = 40_000;
/// Characters per remaining token of the window.
pub(crate) const CHARS_PER_TOKEN: u64 = 4;

/// The threshold for a window of `window_tokens` with `prompt_tokens` already used.
pub(crate) fn gemini_threshold(window_tokens: Option<u64>, prompt_tokens: u64) -> u64 {
    match window_tokens {
        None => MAX_THRESHOLD_CHARS,
        Some(window) => window
            .saturating_sub(prompt_tokens)
            .saturating_mul(CHARS_PER_TOKEN)
            .min(MAX_THRESHOLD_CHARS),
    }
}

/// The Gemini CLI policy.
#[derive(Debug, Clone, Default)]
pub(crate) struct GeminiCli {
    /// The tokens already in the prompt.
    pub config: GeminiCliConfig,
}

struct Rule {
    threshold: u64,
}

impl ResultRule for Rule {
    fn persists(&self) -> bool {
        true
    }

    fn shortens(&self, _tool: &str, _field: Field, text: &str) -> bool {
        utf16_len(text) as u64 > self.threshold
    }

    fn rewrite(&self, _tool: &str, cut: &CutField<'_>, paths: &[String]) -> String {
        let text = cut.text;
        let head_units = self.threshold / 5;
        let first = head(text, head_units as usize);
        let last = tail(text, (self.threshold - head_units) as usize);
        let left_out = utf16_len(text) - utf16_len(first) - utf16_len(last);
        let saved = if paths.is_empty() {
            "the complete output could not be saved".to_string()
        } else {
            format!("complete output saved to {}", join_paths(paths))
        };
        format!("{first}\n[{left_out} characters not shown; {saved}]\n{last}")
    }
}

impl PerResultPolicy for GeminiCli {
    const NAME: &'static str = SPEC.name;

    fn rule(&self, ctx: &BudgetContext) -> impl ResultRule + '_ {
        Rule {
            threshold: gemini_threshold(ctx.context_window_tokens, self.config.prompt_tokens),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::per_result::PerResult;
    use crate::finalize::testing::{output_entry, output_of, run};

    #[test]
    fn threshold_is_four_chars_per_free_token_capped_at_40000() {
        assert_eq!(gemini_threshold(None, 0), 40_000);
        assert_eq!(gemini_threshold(Some(1_000_000), 0), 40_000);
        assert_eq!(gemini_threshold(Some(8_000), 2_000), 24_000);
        assert_eq!(gemini_threshold(Some(1_000), 5_000), 0);
    }

    #[test]
    fn keeps_a_fifth_head_and_four_fifths_tail_and_saves_a_file() {
        let text: String = (0..30_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let policy = GeminiCli {
            config: GeminiCliConfig {
                prompt_tokens: 2_000,
            },
        };
        let (out, store) = run(
            &PerResult(policy),
            vec![output_entry("g", "shell", &text)],
            -1,
            Some(8_000),
        );
        assert_eq!(
            output_of(&out, 0),
            format!(
                "{}\n[6000 characters not shown; complete output saved to /tmp/g.txt]\n{}",
                &text[..4_800],
                &text[10_800..]
            )
        );
        assert_eq!(&*store.artifacts()[0].content, text);
    }

    #[test]
    fn output_up_to_the_threshold_is_kept_and_nothing_saved() {
        // The threshold of a window of 8,000 tokens with 2,000 in the prompt: 24,000 units.
        let policy = GeminiCli {
            config: GeminiCliConfig {
                prompt_tokens: 2_000,
            },
        };
        let at = "é".repeat(24_000);
        let batch = vec![
            output_entry("short", "shell", "ok"),
            output_entry("at", "shell", &at),
            output_entry("over", "shell", &format!("{at}x")),
        ];
        let (out, store) = run(&PerResult(policy), batch, -1, Some(8_000));
        assert_eq!(output_of(&out, 0), "ok");
        assert_eq!(output_of(&out, 1), at);
        assert_eq!(
            output_of(&out, 2),
            format!(
                "{}\n[1 characters not shown; complete output saved to /tmp/over.txt]\n{}x",
                "é".repeat(4_800),
                "é".repeat(19_199)
            )
        );
        let ids: Vec<&str> = store.artifacts().iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["over"]);
    }

    #[test]
    fn counts_utf16_units_and_keeps_pairs_whole() {
        // 20,001 emoji are 40,002 units: over the 40,000 threshold. Head 8,000 units (4,000 emoji), tail 32,000.
        let emoji = "😀".repeat(20_001);
        let (out, _) = run(
            &PerResult(GeminiCli::default()),
            vec![output_entry("e", "shell", &emoji)],
            -1,
            None,
        );
        assert_eq!(
            output_of(&out, 0),
            format!(
                "{}\n[2 characters not shown; complete output saved to /tmp/e.txt]\n{}",
                "😀".repeat(4_000),
                "😀".repeat(16_000)
            )
        );
    }
}
