//! The Markdown verdict of `budgetlab check`, for a terminal and for a CI job's step summary: the headline, what
//! was compared, the counts, the tolerances, and a table of the failed checks.

use std::fmt::Write as _;

use super::check::{CheckCase, Verdict};
use super::VerdictExporter;

/// At most this many failed checks are tabled; the JUnit report has them all.
pub const MAX_TABLED_FAILURES: usize = 100;

/// The Markdown verdict.
pub struct VerdictMarkdown;

/// Text made safe for a Markdown table cell: pipes escaped, line breaks as spaces.
pub fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// A count with thousands separators: `12,345`.
fn count(n: usize) -> String {
    crate::thousands::grouped(n as u64)
}

fn table_row(c: &CheckCase) -> String {
    format!(
        "| {} | {} | {} | {} | {} |",
        cell(&c.scenario),
        cell(&c.budget_label.map_or("all".into(), |b| b.to_string())),
        cell(c.strategy.as_ref().map_or("all", |s| s.as_str())),
        c.kind.name(),
        cell(c.failure.as_deref().unwrap_or(""))
    )
}

/// The verdict as Markdown.
pub fn render(v: &Verdict) -> String {
    let failed = v.failures().count();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## budgetlab check: {}\n",
        if failed == 0 { "passed" } else { "FAILED" }
    );
    let _ = writeln!(
        out,
        "The run `{}` against the baseline `{}`.\n",
        v.current, v.baseline
    );
    let _ = writeln!(
        out,
        "- Rows: {} compared, {} only in the baseline, {} only in the current run.",
        count(v.matched_rows),
        count(v.baseline_only),
        count(v.current_only)
    );
    let _ = writeln!(
        out,
        "- Checks: {} passed, {} failed.",
        count(v.cases.len() - failed),
        count(failed)
    );
    let _ = writeln!(out, "- Tolerances: {}.\n", v.tolerances.describe());
    if failed == 0 {
        out.push_str(
            "The reference finalizer kept every batch within budget with no integrity issue, and every tracked \
metric is within its tolerance of the baseline.\n",
        );
        return out;
    }
    out.push_str("| scenario | budget | strategy | check | what failed |\n");
    out.push_str("|---|---|---|---|---|\n");
    for c in v.failures().take(MAX_TABLED_FAILURES) {
        out.push_str(&table_row(c));
        out.push('\n');
    }
    if failed > MAX_TABLED_FAILURES {
        let _ = writeln!(
            out,
            "\nThe first {MAX_TABLED_FAILURES} of {} failed checks; the JUnit report (`--junit`) lists them all.",
            count(failed)
        );
    }
    out
}

impl VerdictExporter for VerdictMarkdown {
    fn serialize(&self, verdict: &Verdict) -> Vec<u8> {
        render(verdict).into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::CheckKind;
    use super::super::tolerance::Tolerances;
    use super::*;
    use crate::metrics::Metric;

    fn verdict(cases: Vec<CheckCase>) -> Verdict {
        Verdict {
            baseline: "reports/baseline/results.json".into(),
            current: "reports/latest/results.json".into(),
            tolerances: Tolerances::default(),
            matched_rows: 1234,
            baseline_only: 0,
            current_only: 1,
            cases,
        }
    }

    fn case(kind: CheckKind, failure: Option<&str>) -> CheckCase {
        CheckCase {
            scenario: "a|b".into(),
            budget_label: Some(crate::scenario::BudgetLabel::Absolute(1000)),
            strategy: Some("reference".into()),
            kind,
            failure: failure.map(String::from),
        }
    }

    #[test]
    fn counts_read_well() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(1234567), "1,234,567");
    }

    #[test]
    fn a_pass_has_no_table() {
        let text = render(&verdict(vec![case(CheckKind::Integrity, None)]));
        assert!(text.starts_with("## budgetlab check: passed\n"), "{text}");
        assert!(text.contains(
            "- Rows: 1,234 compared, 0 only in the baseline, 1 only in the current run."
        ));
        assert!(text.contains("- Checks: 1 passed, 0 failed."));
        assert!(text.contains("persistence.writes ±5%"));
        assert!(!text.contains("| scenario |"));
    }

    #[test]
    fn a_failure_tables_every_failed_check() {
        let text = render(&verdict(vec![
            case(CheckKind::Integrity, None),
            case(CheckKind::Metric(Metric::WRITES), Some("moved\nfar")),
            CheckCase {
                budget_label: None,
                strategy: None,
                ..case(CheckKind::Inputs, Some("digest differs"))
            },
        ]));
        assert!(text.starts_with("## budgetlab check: FAILED\n"), "{text}");
        assert!(
            text.contains("| a\\|b | abs-1000 | reference | writes | moved far |"),
            "{text}"
        );
        assert!(
            text.contains("| a\\|b | all | all | inputs | digest differs |"),
            "{text}"
        );
        assert!(text.contains("- Checks: 1 passed, 2 failed."));
    }

    #[test]
    fn failure_lists_are_cut_past_the_cap_only() {
        for (n, note) in [
            (MAX_TABLED_FAILURES, None),
            (
                MAX_TABLED_FAILURES + 5,
                Some("The first 100 of 105 failed checks"),
            ),
        ] {
            let cases = (0..n)
                .map(|_| case(CheckKind::Integrity, Some("bad")))
                .collect();
            let text = render(&verdict(cases));
            assert_eq!(
                text.matches("| integrity | bad |").count(),
                MAX_TABLED_FAILURES
            );
            match note {
                Some(note) => assert!(text.contains(note), "{text}"),
                None => assert!(!text.contains("The first"), "{text}"),
            }
        }
    }

    #[test]
    fn the_exporter_writes_the_rendered_text() {
        let v = verdict(vec![case(CheckKind::Integrity, Some("bad"))]);
        assert_eq!(VerdictMarkdown.serialize(&v), render(&v).into_bytes());
    }
}
