//! `window-relative`: the rule of window-relative-trim-threshold.md. Each result field is judged on its own
//! against a threshold that scales with the model's context window:
//! `max(2,000, min(configured chars, 10% of the window in tokens × 3 chars per token))` UTF-16 units, so a
//! 16k-token window trims at 4,800 units and a 200k one at 60,000 (with the default 100,000 configured chars).
//! Without a context window the threshold is the configured chars, the rule it replaced. A field over the
//! threshold is persisted (once per entry, reusing existing paths) and replaced by a reference-shaped preview
//! (header, head and tail) of at most 2,000 units; there is no batch-level cap, so many results just under the
//! threshold can exceed any budget together.

use super::config::{WindowRelativeConfig, POSITIVE_UNITS};
use super::cut_digests::CutField;
use super::fit::{fit, header_with_digest};
use super::head_share::HeadShare;
use super::param::{Param, Search, Setting, HEAD_SHARE};
use super::per_result::{PerResult, PerResultPolicy, ResultRule};
use super::slots::SlotScope;
use super::spec::{Build, Family, StrategySpec};
use crate::budget::BudgetContext;
use crate::model::Field;
use crate::text::utf16_len;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "window-relative",
    description: "per result: trim over min(configured chars, 10% of the window x 3), floored at 2,000; no batch cap",
    family: Family::Policy,
    caps: None,
    gives_up: &["budget-fits", "disabled-budget-noop"],
    params: &[
        Param {
            name: "configured_chars",
            key: "window_relative.configured_chars",
            description: "the configured threshold in UTF-16 units, the most the window-relative one may be",
            field: Setting::Units(POSITIVE_UNITS, |c| &mut c.window_relative.configured_chars),
            search: Search::Log {
                low: 2_000,
                high: 400_000,
                points: 12,
            },
        },
        Param {
            name: "preview_chars",
            key: "window_relative.preview_chars",
            description: "the length of the preview a trimmed result keeps, in UTF-16 units",
            field: Setting::Units(POSITIVE_UNITS, |c| &mut c.window_relative.preview_chars),
            search: Search::Log {
                low: 500,
                high: 20_000,
                points: 10,
            },
        },
        HEAD_SHARE,
    ],
    build: Build::One(|config| {
        Box::new(PerResult(WindowRelative {
            config: config.window_relative,
            head_share: config.head_share,
        }))
    }),
};

/// The floor of the threshold, in UTF-16 units.
pub(crate) const MIN_THRESHOLD_CHARS: u64 = 2_000;
/// The conservative characters-per-token conversion.
pub(crate) const CHARS_PER_TOKEN: u64 = 3;
/// The share of the window a single result may take, in percent.
pub(crate) const WINDOW_PERCENT: u64 = 10;

/// The trim threshold in UTF-16 units: `max(2000, min(configured, window * 10% * 3))`, or `configured` without a
/// window. The window part is `floor(window * 3 / 10)`.
pub fn window_relative_threshold(configured_chars: u64, window_tokens: Option<u64>) -> u64 {
    match window_tokens {
        None => configured_chars,
        Some(window) => {
            let relative =
                u128::from(window) * u128::from(CHARS_PER_TOKEN) * u128::from(WINDOW_PERCENT) / 100;
            let relative = u64::try_from(relative).unwrap_or(u64::MAX);
            configured_chars.min(relative).max(MIN_THRESHOLD_CHARS)
        }
    }
}

/// The window-relative policy.
#[derive(Debug, Clone, Default)]
pub(crate) struct WindowRelative {
    /// The configured threshold and preview length.
    pub config: WindowRelativeConfig,
    /// The head share of previews.
    pub head_share: HeadShare,
}

struct Rule {
    threshold: u64,
    preview: u64,
    share: HeadShare,
}

impl ResultRule for Rule {
    fn scope(&self) -> SlotScope {
        SlotScope::ALL
    }

    fn persists(&self) -> bool {
        true
    }

    fn shortens(&self, _tool: &str, _field: Field, text: &str) -> bool {
        utf16_len(text) as u64 > self.threshold
    }

    fn names_digest(&self) -> bool {
        true
    }

    fn rewrite(&self, _tool: &str, cut: &CutField<'_>, paths: &[String]) -> String {
        let allocation = self.preview.min(self.threshold);
        let header = header_with_digest(&cut.sha256(), paths);
        fit(cut.text, allocation, &header, self.share)
    }
}

impl PerResultPolicy for WindowRelative {
    const NAME: &'static str = SPEC.name;

    fn rule(&self, ctx: &BudgetContext) -> impl ResultRule + '_ {
        Rule {
            threshold: window_relative_threshold(
                self.config.configured_chars,
                ctx.context_window_tokens,
            ),
            preview: self.config.preview_chars,
            share: self.head_share,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::fit::header;
    use crate::finalize::per_result::PerResult;
    use crate::finalize::testing::{output_entry, output_of, run};

    #[test]
    fn a_rule_by_reference_answers_as_the_rule() {
        let rule = Rule {
            threshold: 3,
            preview: 2,
            share: HeadShare::DEFAULT,
        };
        let by_ref: &dyn ResultRule = &&rule;
        assert_eq!(by_ref.scope(), SlotScope::ALL);
        assert!(by_ref.persists());
        assert!(by_ref.names_digest());
        assert!(by_ref.shortens("shell", Field::Output, "four"));
        assert!(!by_ref.shortens("shell", Field::Output, "one"));
    }

    #[test]
    fn thresholds_follow_the_window() {
        assert_eq!(window_relative_threshold(100_000, Some(16_000)), 4_800);
        assert_eq!(window_relative_threshold(100_000, Some(200_000)), 60_000);
        assert_eq!(window_relative_threshold(100_000, Some(1_000_000)), 100_000);
        assert_eq!(window_relative_threshold(100_000, Some(4_000)), 2_000);
        assert_eq!(window_relative_threshold(1_000, Some(200_000)), 2_000);
        assert_eq!(window_relative_threshold(100_000, None), 100_000);
        assert_eq!(window_relative_threshold(100_000, Some(u64::MAX)), 100_000);
    }

    #[test]
    fn a_16k_window_trims_at_4800_units_and_a_200k_one_at_60000() {
        let batch = vec![
            output_entry("at", "shell", &"a".repeat(4_800)),
            output_entry("over", "shell", &"o".repeat(4_801)),
            output_entry("big", "shell", &"b".repeat(60_001)),
        ];
        let policy = PerResult(WindowRelative::default());
        let (small, store) = run(&policy, batch.clone(), -1, Some(16_000));
        assert_eq!(output_of(&small, 0), "a".repeat(4_800));
        assert_eq!(utf16_len(output_of(&small, 1)), 2_000);
        assert!(output_of(&small, 1)
            .starts_with(&header(&"o".repeat(4_801), &["/tmp/over.txt".into()])));
        assert_eq!(utf16_len(output_of(&small, 2)), 2_000);
        assert_eq!(store.artifacts().len(), 2);

        let (large, store) = run(&policy, batch, -1, Some(200_000));
        assert_eq!(output_of(&large, 1), "o".repeat(4_801));
        assert_eq!(utf16_len(output_of(&large, 2)), 2_000);
        assert_eq!(store.artifacts().len(), 1);
        assert_eq!(store.artifacts()[0].id, "big");
    }

    #[test]
    fn without_a_window_the_configured_chars_apply() {
        let batch = vec![output_entry("c", "shell", &"c".repeat(60_001))];
        let (out, _) = run(&PerResult(WindowRelative::default()), batch, -1, None);
        assert_eq!(output_of(&out, 0), "c".repeat(60_001));
    }
}
