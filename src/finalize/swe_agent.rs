//! `swe-agent`: what SWE-agent does to a tool observation, as publicly documented.
//!
//! - Unit: characters as Python counts them (Unicode scalar values).
//! - Constant: 100,000 characters per result field (each `functionResponse` output and error); top-level text
//!   is left alone.
//! - Shape: head only: a field over 100,000 keeps its first 100,000 characters, followed by a note saying how
//!   many characters were elided.
//! - No persistence and no batch-level cap.

use super::cut_digests::CutField;
use super::per_result::{PerResult, PerResultPolicy, ResultRule};
use super::spec::{Build, Family, StrategySpec};
use crate::budget::BudgetContext;
use crate::model::Field;
use crate::text::head_chars;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "swe-agent",
    description: "SWE-agent: head only, the first 100,000 characters and an elision note",
    family: Family::Policy,
    caps: None,
    gives_up: &[
        "budget-fits",
        "disabled-budget-noop",
        "names-artifact",
        "idempotent",
    ],
    params: &[],
    build: Build::One(|_| Box::new(PerResult(SweAgent))),
};

/// The per-result limit in characters.
pub(crate) const MAX_RESULT_CHARS: usize = 100_000;

/// The SWE-agent policy.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SweAgent;

impl ResultRule for SweAgent {
    fn shortens(&self, _tool: &str, _field: Field, text: &str) -> bool {
        text.chars().nth(MAX_RESULT_CHARS).is_some()
    }

    fn rewrite(&self, _tool: &str, cut: &CutField<'_>, _paths: &[String]) -> String {
        let text = cut.text;
        let kept = head_chars(text, MAX_RESULT_CHARS);
        let elided = text[kept.len()..].chars().count();
        format!("{kept}\n--- the remaining {elided} characters of this observation were elided ---")
    }
}

impl PerResultPolicy for SweAgent {
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
    fn keeps_the_first_100000_characters() {
        let text = format!("{}{}", "😀".repeat(99_999), "tail of the log");
        let (out, store) = run(
            &PerResult(SweAgent),
            vec![output_entry("s", "shell", &text)],
            1_000,
            None,
        );
        assert_eq!(
            output_of(&out, 0),
            format!(
                "{}t\n--- the remaining 14 characters of this observation were elided ---",
                "😀".repeat(99_999)
            )
        );
        assert!(store.artifacts().is_empty());
        let exact = "x".repeat(100_000);
        let (out, _) = run(
            &PerResult(SweAgent),
            vec![output_entry("x", "shell", &exact)],
            1_000,
            None,
        );
        assert_eq!(output_of(&out, 0), exact);
    }
}
