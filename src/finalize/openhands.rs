//! `openhands`: what OpenHands does to a tool observation, as publicly documented.
//!
//! - Unit: characters as Python counts them (Unicode scalar values), so an emoji counts one.
//! - Constant: 30,000 characters per result field (each `functionResponse` output and error on its own); top-
//!   level text is left alone.
//! - Shape: a field over 30,000 keeps its first and last 15,000 characters with a marker line in the middle
//!   saying how many were clipped.
//! - No persistence and no batch-level cap.

use super::cut_digests::CutField;
use super::per_result::{PerResult, PerResultPolicy, ResultRule};
use super::spec::{Build, Family, StrategySpec};
use crate::budget::BudgetContext;
use crate::model::Field;
use crate::text::{head_chars, tail_chars};

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "openhands",
    description: "OpenHands: 30,000 characters per result, half head half tail; nothing saved",
    family: Family::Policy,
    caps: None,
    gives_up: &[
        "budget-fits",
        "disabled-budget-noop",
        "names-artifact",
        "idempotent",
    ],
    params: &[],
    build: Build::One(|_| Box::new(PerResult(OpenHands))),
};

/// The per-result limit in characters.
pub(crate) const MAX_RESULT_CHARS: usize = 30_000;

/// The OpenHands policy.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OpenHands;

impl ResultRule for OpenHands {
    fn shortens(&self, _tool: &str, _field: Field, text: &str) -> bool {
        text.chars().nth(MAX_RESULT_CHARS).is_some()
    }

    fn rewrite(&self, _tool: &str, cut: &CutField<'_>, _paths: &[String]) -> String {
        let text = cut.text;
        let half = MAX_RESULT_CHARS / 2;
        let (first, last) = (head_chars(text, half), tail_chars(text, half));
        let clipped = text[first.len()..text.len() - last.len()].chars().count();
        format!("{first}\n(... {clipped} characters clipped from the middle of this result ...)\n{last}")
    }
}

impl PerResultPolicy for OpenHands {
    const NAME: &'static str = SPEC.name;

    fn rule(&self, _ctx: &BudgetContext) -> impl ResultRule + '_ {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::per_result::PerResult;
    use crate::finalize::testing::{output_entry, output_of, run};

    #[test]
    fn counts_code_points_and_keeps_half_on_each_side() {
        // 30,000 emoji are 60,000 UTF-16 units but 30,000 characters: untouched.
        let fits = "😀".repeat(30_000);
        let (out, _) = run(
            &PerResult(OpenHands),
            vec![output_entry("f", "shell", &fits)],
            100,
            None,
        );
        assert_eq!(output_of(&out, 0), fits);
        let over = format!("{}{}", "中".repeat(20_000), "😀".repeat(20_000));
        let (out, store) = run(
            &PerResult(OpenHands),
            vec![output_entry("o", "shell", &over)],
            100,
            None,
        );
        assert_eq!(
            output_of(&out, 0),
            format!(
                "{}\n(... 10000 characters clipped from the middle of this result ...)\n{}",
                "中".repeat(15_000),
                "😀".repeat(15_000)
            )
        );
        assert!(store.artifacts().is_empty());
    }
}
