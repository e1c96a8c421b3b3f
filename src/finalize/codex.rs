//! `codex`: what the Codex CLI does to a tool result, as publicly documented.
//!
//! - Unit: UTF-8 bytes.
//! - Constant: 10,000 bytes per result field (each `functionResponse` output and error on its own); top-level
//!   text parts are no tool result and are left alone.
//! - Shape: a field over 10,000 bytes keeps its first 5,000 and its last 5,000 bytes, each cut back to a
//!   character boundary, with a marker line between them that names how many characters (Unicode scalar values)
//!   were removed. The marker is not counted against the 10,000.
//! - No persistence (the removed middle is gone) and no batch-level cap.

use super::cut_digests::CutField;
use super::per_result::{PerResult, PerResultPolicy, ResultRule};
use super::spec::{Build, Family, StrategySpec};
use crate::budget::BudgetContext;
use crate::model::Field;
use crate::text::{head_bytes, tail_bytes};

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "codex",
    description: "Codex CLI: 10,000 UTF-8 bytes per result, half head half tail; nothing saved",
    family: Family::Policy,
    caps: None,
    gives_up: &[
        "budget-fits",
        "disabled-budget-noop",
        "names-artifact",
        "idempotent",
    ],
    params: &[],
    build: Build::One(|_| Box::new(PerResult(Codex))),
};

/// The per-result limit in UTF-8 bytes.
pub(crate) const MAX_RESULT_BYTES: usize = 10_000;

/// The Codex policy.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Codex;

impl ResultRule for Codex {
    fn shortens(&self, _tool: &str, _field: Field, text: &str) -> bool {
        text.len() > MAX_RESULT_BYTES
    }

    fn rewrite(&self, _tool: &str, cut: &CutField<'_>, _paths: &[String]) -> String {
        let text = cut.text;
        let head = head_bytes(text, MAX_RESULT_BYTES / 2);
        let tail = tail_bytes(text, MAX_RESULT_BYTES - MAX_RESULT_BYTES / 2);
        let removed = text[head.len()..text.len() - tail.len()].chars().count();
        format!("{head}\n<< {removed} chars dropped from the middle >>\n{tail}")
    }
}

impl PerResultPolicy for Codex {
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
    fn cuts_in_bytes_on_char_boundaries() {
        // "aé" is 3 bytes: 5,000 bytes of head end after an 'a' (4,999 bytes); the tail starts on an 'é'.
        let text = "aé".repeat(4_000);
        let (out, store) = run(
            &PerResult(Codex),
            vec![output_entry("c", "shell", &text)],
            100,
            None,
        );
        let head = format!("{}a", "aé".repeat(1_666));
        let tail = format!("é{}", "aé".repeat(1_666));
        assert_eq!((head.len(), tail.len()), (4_999, 5_000));
        assert_eq!(
            output_of(&out, 0),
            format!("{head}\n<< 1334 chars dropped from the middle >>\n{tail}")
        );
        assert!(store.artifacts().is_empty());
    }

    #[test]
    fn a_result_of_exactly_the_limit_is_kept_and_one_byte_more_is_cut() {
        let at = "a".repeat(MAX_RESULT_BYTES);
        let batch = vec![
            output_entry("at", "shell", &at),
            output_entry("over", "shell", &format!("{at}b")),
        ];
        let (out, _) = run(&PerResult(Codex), batch, -1, None);
        assert_eq!(output_of(&out, 0), at);
        assert_eq!(
            output_of(&out, 1),
            format!(
                "{}\n<< 1 chars dropped from the middle >>\n{}b",
                "a".repeat(5_000),
                "a".repeat(4_999)
            )
        );
    }

    #[test]
    fn counts_bytes_not_units() {
        // 3,000 emoji: 12,000 bytes but 6,000 UTF-16 units; 1,250 emoji (5,000 bytes) on each side.
        let emoji = "😀".repeat(3_000);
        let (out, _) = run(
            &PerResult(Codex),
            vec![output_entry("e", "shell", &emoji)],
            -1,
            None,
        );
        let side = "😀".repeat(1_250);
        assert_eq!(
            output_of(&out, 0),
            format!("{side}\n<< 500 chars dropped from the middle >>\n{side}")
        );
        // 3,333 CJK characters are 9,999 bytes: untouched, whatever the budget.
        let cjk = "中".repeat(3_333);
        let (out, _) = run(
            &PerResult(Codex),
            vec![output_entry("k", "shell", &cjk)],
            10,
            None,
        );
        assert_eq!(output_of(&out, 0), cjk);
    }
}
