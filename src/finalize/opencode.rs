//! `opencode`: what opencode does to a tool result, as publicly documented.
//!
//! - Units: lines (the text split at `\n`) and UTF-8 bytes.
//! - Constants: at most 2,000 lines and at most 50 KiB (51,200 bytes, counting the line breaks between kept
//!   lines) per result field (each `functionResponse` output and error); top-level text is left alone.
//! - Shape: head only, whole lines: the longest run of lines from the start within both limits (none when the
//!   first line alone is over 50 KiB), then a blank line and a note naming how many lines were shown out of how
//!   many and the file the complete output was written to.
//! - Every cut result is written to a file in full (once per entry, existing paths reused), so nothing is
//!   lost. No batch-level cap.

use super::cut_digests::CutField;
use super::per_result::{join_paths, PerResult, PerResultPolicy, ResultRule};
use super::spec::{Build, Family, StrategySpec};
use crate::budget::BudgetContext;
use crate::model::Field;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "opencode",
    description: "opencode: head only, 2,000 lines or 50 KiB of whole lines; full output saved",
    family: Family::Policy,
    caps: None,
    gives_up: &["budget-fits", "disabled-budget-noop", "idempotent"],
    params: &[],
    build: Build::One(|_| Box::new(PerResult(OpenCode))),
};

/// The most lines a result keeps.
pub(crate) const MAX_LINES: usize = 2_000;
/// The most bytes a result keeps (50 KiB).
pub(crate) const MAX_BYTES: usize = 50 * 1024;

/// The opencode policy.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OpenCode;

/// The kept prefix of `text` in bytes, the lines it holds and the lines of `text`.
fn kept_lines(text: &str) -> (usize, usize, usize) {
    let mut bytes = 0usize;
    let mut kept = 0usize;
    let mut total = 0usize;
    for (i, line) in text.split('\n').enumerate() {
        total += 1;
        if kept == i && i < MAX_LINES {
            let added = line.len() + usize::from(i > 0);
            if bytes + added <= MAX_BYTES {
                bytes += added;
                kept += 1;
            }
        }
    }
    (bytes, kept, total)
}

impl ResultRule for OpenCode {
    fn persists(&self) -> bool {
        true
    }

    fn shortens(&self, _tool: &str, _field: Field, text: &str) -> bool {
        let (_, kept, total) = kept_lines(text);
        kept < total
    }

    fn rewrite(&self, _tool: &str, cut: &CutField<'_>, paths: &[String]) -> String {
        let text = cut.text;
        let (bytes, kept, total) = kept_lines(text);
        let saved = if paths.is_empty() {
            "writing the complete output failed".to_string()
        } else {
            format!("complete output in {}", join_paths(paths))
        };
        format!(
            "{}\n\n(Showing lines 1-{kept} of {total}; {saved}.)",
            &text[..bytes]
        )
    }
}

impl PerResultPolicy for OpenCode {
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
    fn keeps_at_most_2000_whole_lines() {
        let text: String = (0..2_500).map(|i| format!("{i}\n")).collect();
        let (out, store) = run(
            &PerResult(OpenCode),
            vec![output_entry("l", "shell", &text)],
            -1,
            None,
        );
        let kept: String = (0..2_000).map(|i| format!("{i}\n")).collect();
        assert_eq!(
            output_of(&out, 0),
            format!(
                "{}\n\n(Showing lines 1-2000 of 2501; complete output in /tmp/l.txt.)",
                kept.trim_end_matches('\n')
            )
        );
        assert_eq!(&*store.artifacts()[0].content, text);
        // Exactly 2,000 lines without a final break are kept whole.
        let exact = kept.trim_end_matches('\n').to_string();
        let (out, store) = run(
            &PerResult(OpenCode),
            vec![output_entry("x", "shell", &exact)],
            -1,
            None,
        );
        assert_eq!(output_of(&out, 0), exact);
        assert!(store.artifacts().is_empty());
    }

    #[test]
    fn measures_bytes_not_units() {
        // 400 CJK characters are 1,200 bytes (400 units): 42 lines and 41 breaks take 50,441 bytes, a 43rd
        // would take 51,642.
        let line = "中".repeat(400);
        let text = vec![line.as_str(); 60].join("\n");
        let (out, _) = run(
            &PerResult(OpenCode),
            vec![output_entry("b", "shell", &text)],
            -1,
            None,
        );
        assert_eq!(
            output_of(&out, 0),
            format!(
                "{}\n\n(Showing lines 1-42 of 60; complete output in /tmp/b.txt.)",
                vec![line.as_str(); 42].join("\n")
            )
        );
        // A first line over 50 KiB keeps nothing but the note.
        let wide = "w".repeat(MAX_BYTES + 1);
        let (out, _) = run(
            &PerResult(OpenCode),
            vec![output_entry("w", "shell", &wide)],
            -1,
            None,
        );
        assert_eq!(
            output_of(&out, 0),
            "\n\n(Showing lines 1-0 of 1; complete output in /tmp/w.txt.)"
        );
    }
}
