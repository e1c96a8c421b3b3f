//! The JUnit XML report of `budgetlab check`, for CI systems that show test results: one test suite per
//! scenario, one test case per row and check (named `check`, with the row as its class name), failures with
//! their messages. No timestamps or durations, so the same verdict always gives the same bytes.

use std::fmt::Write as _;

use super::check::{CheckCase, Verdict};
use super::VerdictExporter;
use crate::xml::escape;

/// The JUnit XML report.
pub struct JUnitXml;

/// The row a case belongs to, as a class name: `scenario/budget/strategy`, or the scenario alone.
fn class_name(c: &CheckCase) -> String {
    match (&c.budget_label, &c.strategy) {
        (Some(b), Some(s)) => format!("{}/{b}/{s}", c.scenario),
        _ => c.scenario.clone(),
    }
}

/// The verdict as JUnit XML.
pub fn render(v: &Verdict) -> String {
    // Scenarios in the order their first check appears.
    let mut suites: Vec<(&str, Vec<&CheckCase>)> = Vec::new();
    for c in &v.cases {
        match suites.iter_mut().find(|(name, _)| *name == c.scenario) {
            Some((_, cases)) => cases.push(c),
            None => suites.push((&c.scenario, vec![c])),
        }
    }
    let failures = |cases: &[&CheckCase]| cases.iter().filter(|c| !c.passed()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"budgetlab check\" tests=\"{}\" failures=\"{}\">",
        v.cases.len(),
        v.failures().count()
    );
    for (name, cases) in &suites {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">",
            escape(name),
            cases.len(),
            failures(cases)
        );
        for c in cases {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\"",
                escape(&class_name(c)),
                c.kind.name()
            );
            match &c.failure {
                None => out.push_str("/>\n"),
                Some(message) => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{0}\" type=\"{1}\">{0}</failure>\n    </testcase>",
                        escape(message),
                        c.kind.name()
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

impl VerdictExporter for JUnitXml {
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

    fn case(scenario: &str, kind: CheckKind, failure: Option<&str>) -> CheckCase {
        CheckCase {
            scenario: scenario.into(),
            budget_label: Some(crate::scenario::BudgetLabel::Absolute(20_000)),
            strategy: Some("reference".into()),
            kind,
            failure: failure.map(String::from),
        }
    }

    #[test]
    fn suites_per_scenario_cases_per_check() {
        let v = Verdict {
            baseline: "b".into(),
            current: "c".into(),
            tolerances: Tolerances::default(),
            matched_rows: 1,
            baseline_only: 0,
            current_only: 0,
            cases: vec![
                CheckCase {
                    budget_label: None,
                    strategy: None,
                    ..case("one", CheckKind::Inputs, None)
                },
                case("one", CheckKind::Integrity, None),
                case(
                    "two",
                    CheckKind::Metric(Metric::Retention),
                    Some("moved <far>"),
                ),
                case("one", CheckKind::Metric(Metric::Cost), None),
            ],
        };
        let xml = render(&v);
        assert_eq!(
            xml,
            r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="budgetlab check" tests="4" failures="1">
  <testsuite name="one" tests="3" failures="0">
    <testcase classname="one" name="inputs"/>
    <testcase classname="one/abs-20000/reference" name="integrity"/>
    <testcase classname="one/abs-20000/reference" name="cost"/>
  </testsuite>
  <testsuite name="two" tests="1" failures="1">
    <testcase classname="two/abs-20000/reference" name="retention">
      <failure message="moved &lt;far&gt;" type="retention">moved &lt;far&gt;</failure>
    </testcase>
  </testsuite>
</testsuites>
"#
        );
        assert_eq!(JUnitXml.serialize(&v), xml.into_bytes());
    }
}
