//! The verdict of `budgetlab check` as JSON, for machines: whether the gate passed, what was compared, the
//! tolerance of every tracked metric, and every check made (passed or not), in the verdict's order.

use serde::Serialize;

use super::check::{CheckCase, Verdict};
use super::VerdictExporter;
use crate::metrics::Metric;

/// The JSON verdict.
pub struct VerdictJson;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    passed: bool,
    baseline: &'a str,
    current: &'a str,
    matched_rows: usize,
    baseline_only: usize,
    current_only: usize,
    checks: usize,
    failed: usize,
    /// Every tracked metric's tolerance, as the Markdown verdict words it.
    tolerances: Vec<Tolerance>,
    cases: Vec<Case<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Tolerance {
    metric: &'static str,
    field: &'static str,
    tolerance: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Case<'a> {
    scenario: &'a str,
    /// `null` for a check of a whole scenario.
    budget: Option<String>,
    /// `null` for a check of a whole scenario.
    strategy: Option<&'a str>,
    check: &'static str,
    passed: bool,
    failure: Option<&'a str>,
}

fn case(c: &CheckCase) -> Case<'_> {
    Case {
        scenario: &c.scenario,
        budget: c.budget_label.map(|b| b.to_string()),
        strategy: c.strategy.as_ref().map(|s| s.as_str()),
        check: c.kind.name(),
        passed: c.passed(),
        failure: c.failure.as_deref(),
    }
}

/// The verdict as one pretty-printed JSON object and a newline.
pub fn render(v: &Verdict) -> Vec<u8> {
    let document = Document {
        passed: v.passed(),
        baseline: &v.baseline,
        current: &v.current,
        matched_rows: v.matched_rows,
        baseline_only: v.baseline_only,
        current_only: v.current_only,
        checks: v.cases.len(),
        failed: v.failures().count(),
        tolerances: Metric::all()
            .iter()
            .map(|&m| Tolerance {
                metric: m.name(),
                field: m.field(),
                tolerance: v.tolerances.get(m).describe(m),
            })
            .collect(),
        cases: v.cases.iter().map(case).collect(),
    };
    let mut bytes = serde_json::to_vec_pretty(&document).expect("a verdict serializes");
    bytes.push(b'\n');
    bytes
}

impl VerdictExporter for VerdictJson {
    fn serialize(&self, verdict: &Verdict) -> Vec<u8> {
        render(verdict)
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::CheckKind;
    use super::super::tolerance::Tolerances;
    use super::*;
    use crate::scenario::BudgetLabel;

    #[test]
    fn every_case_is_listed_with_its_outcome_and_a_scenario_check_has_no_row() {
        let verdict = Verdict {
            baseline: "base/results.json".into(),
            current: "cur/results.json".into(),
            tolerances: Tolerances::from_specs(&["writes=off"]).unwrap(),
            matched_rows: 2,
            baseline_only: 0,
            current_only: 1,
            cases: vec![
                CheckCase {
                    scenario: "s".into(),
                    budget_label: None,
                    strategy: None,
                    kind: CheckKind::Inputs,
                    failure: None,
                },
                CheckCase {
                    scenario: "s".into(),
                    budget_label: Some(BudgetLabel::Absolute(1000)),
                    strategy: Some("reference".into()),
                    kind: CheckKind::WithinBudget,
                    failure: Some("2 of 12 batches over budget".into()),
                },
            ],
        };
        let json: serde_json::Value = serde_json::from_slice(&render(&verdict)).unwrap();
        assert_eq!(json["passed"], false);
        assert_eq!(json["checks"], 2);
        assert_eq!(json["failed"], 1);
        assert_eq!(json["currentOnly"], 1);
        assert_eq!(
            json["cases"][0],
            serde_json::json!({"scenario": "s", "budget": null, "strategy": null, "check": "inputs",
                "passed": true, "failure": null})
        );
        assert_eq!(
            json["cases"][1],
            serde_json::json!({"scenario": "s", "budget": "abs-1000", "strategy": "reference",
                "check": "within-budget", "passed": false, "failure": "2 of 12 batches over budget"})
        );
        let tolerances = json["tolerances"].as_array().unwrap();
        assert_eq!(tolerances.len(), Metric::all().len());
        let writes = tolerances.iter().find(|t| t["metric"] == "writes").unwrap();
        assert_eq!(writes["field"], "persistence.writes");
        assert_eq!(writes["tolerance"], "off");
    }
}
