//! `budgetlab compare A B`: the differences of two runs' tracked metrics, row by row (rows matched by scenario,
//! budget label and strategy), as a Markdown table. Pure: two [`RunResults`] in, a [`Comparison`] out, and
//! [`render`] for its text.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::markdown::cell;
use crate::metrics::{Aggregate, Metric, RowKey, StrategyKey};
use crate::run::RunResults;
use crate::scenario::BudgetLabel;

/// One metric of one row that differs.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricChange {
    /// The metric.
    pub metric: Metric,
    /// Its value in A (`None`: nothing to measure it by).
    pub a: Option<f64>,
    /// Its value in B.
    pub b: Option<f64>,
}

/// A row present in both runs whose tracked metrics differ.
#[derive(Debug, Clone, PartialEq)]
pub struct RowChange {
    /// Scenario.
    pub scenario: String,
    /// Budget label.
    pub budget_label: BudgetLabel,
    /// Strategy.
    pub strategy: StrategyKey,
    /// The metrics that differ, in [`Metric::ALL`] order.
    pub changes: Vec<MetricChange>,
}

/// The differences of two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Where A came from.
    pub a: String,
    /// Where B came from.
    pub b: String,
    /// The metrics compared.
    pub metrics: Vec<Metric>,
    /// Scenarios whose inputs differ, one line each.
    pub input_changes: Vec<String>,
    /// Rows in both runs.
    pub matched_rows: usize,
    /// Rows in both runs whose metrics differ, in A's order.
    pub rows: Vec<RowChange>,
    /// Rows only A has, as `scenario · budget · strategy`.
    pub only_a: Vec<String>,
    /// Rows only B has.
    pub only_b: Vec<String>,
}

/// Compares `metrics` of every row of `a` and `b`; `a_name` and `b_name` say where they came from.
pub fn compare(
    a: &RunResults,
    b: &RunResults,
    metrics: &[Metric],
    a_name: &str,
    b_name: &str,
) -> Comparison {
    let b_rows: BTreeMap<RowKey, &Aggregate> = b.rows.iter().map(|r| (r.key(), r)).collect();
    let a_keys: BTreeSet<RowKey> = a.rows.iter().map(Aggregate::key).collect();
    let mut rows = Vec::new();
    let mut only_a = Vec::new();
    let mut matched_rows = 0;
    for row in &a.rows {
        let Some(other) = b_rows.get(&row.key()) else {
            only_a.push(row.key().to_string());
            continue;
        };
        matched_rows += 1;
        let changes: Vec<MetricChange> = metrics
            .iter()
            .map(|&metric| MetricChange {
                metric,
                a: metric.value(row),
                b: metric.value(other),
            })
            .filter(|c| c.a != c.b)
            .collect();
        if !changes.is_empty() {
            rows.push(RowChange {
                scenario: row.scenario.clone(),
                budget_label: row.budget_label,
                strategy: row.strategy.clone(),
                changes,
            });
        }
    }
    let only_b = b
        .rows
        .iter()
        .filter(|r| !a_keys.contains(&r.key()))
        .map(|r| r.key().to_string())
        .collect();
    let input_changes = a
        .inputs
        .scenarios
        .iter()
        .filter_map(|x| {
            let y = b.inputs.scenarios.iter().find(|y| y.name == x.name)?;
            let d = x.differences(y);
            (!d.is_empty()).then(|| format!("{}: {} (A vs B)", x.name, d.join(", ")))
        })
        .collect();
    Comparison {
        a: a_name.into(),
        b: b_name.into(),
        metrics: metrics.to_vec(),
        input_changes,
        matched_rows,
        rows,
        only_a,
        only_b,
    }
}

/// The comparison as JSON (`compare --json`): A and B, the metrics compared, the scenarios whose inputs differ,
/// the number of rows in both, every row with the metrics that differ (null where a figure is absent), and the
/// rows only one run has.
pub fn json(c: &Comparison) -> Vec<u8> {
    let rows: Vec<serde_json::Value> = c
        .rows
        .iter()
        .map(|r| {
            let changes: Vec<serde_json::Value> = r
                .changes
                .iter()
                .map(|m| serde_json::json!({"metric": m.metric.field(), "a": m.a, "b": m.b}))
                .collect();
            serde_json::json!({
                "scenario": r.scenario,
                "budget": r.budget_label.to_string(),
                "strategy": r.strategy.to_string(),
                "changes": changes,
            })
        })
        .collect();
    let metrics: Vec<&str> = c.metrics.iter().map(|m| m.field()).collect();
    let value = serde_json::json!({
        "a": c.a,
        "b": c.b,
        "metrics": metrics,
        "inputChanges": c.input_changes,
        "matchedRows": c.matched_rows,
        "rows": rows,
        "onlyA": c.only_a,
        "onlyB": c.only_b,
    });
    let mut out = serde_json::to_vec_pretty(&value).expect("a JSON value serializes");
    out.push(b'\n');
    out
}

/// The comparison as Markdown: a line naming A and B, the scenarios whose inputs differ, a table of the metrics
/// that differ (or a line saying none do), and the rows only one run has.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## budgetlab compare\n");
    let _ = writeln!(
        out,
        "A: `{}` · B: `{}` · {} rows in both · metrics: {}\n",
        c.a,
        c.b,
        c.matched_rows,
        c.metrics
            .iter()
            .map(|m| m.field())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !c.input_changes.is_empty() {
        out.push_str("Scenarios whose inputs differ:\n\n");
        for line in &c.input_changes {
            let _ = writeln!(out, "- {}", cell(line));
        }
        out.push('\n');
    }
    if c.rows.is_empty() {
        out.push_str("No tracked metric differs between the rows both runs have.\n");
    } else {
        let _ = writeln!(out, "{} of {} rows differ:\n", c.rows.len(), c.matched_rows);
        out.push_str("| scenario | budget | strategy | metric | A | B | change |\n");
        out.push_str("|---|---|---|---|---:|---:|---:|\n");
        for row in &c.rows {
            for m in &row.changes {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    cell(&row.scenario),
                    cell(&row.budget_label.to_string()),
                    cell(&row.strategy),
                    m.metric.field(),
                    m.metric.format_opt(m.a),
                    m.metric.format_opt(m.b),
                    match (m.a, m.b) {
                        (Some(a), Some(b)) => m.metric.format_change(a, b),
                        _ => "-".into(),
                    }
                );
            }
        }
    }
    for (side, rows) in [("A", &c.only_a), ("B", &c.only_b)] {
        if !rows.is_empty() {
            let _ = writeln!(out, "\nRows only {side} has ({}):\n", rows.len());
            for r in rows {
                let _ = writeln!(out, "- {}", cell(r));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{PlanRequest, Workloads};

    fn tiny_run() -> RunResults {
        PlanRequest {
            workloads: Workloads::Scenarios(vec!["pre-persisted".into()]),
            strategies: vec!["reference".into(), "codex".into()],
            batches: Some(2),
            ..PlanRequest::default()
        }
        .plan()
        .unwrap()
        .run(&|_| {})
        .results
    }

    const DETERMINISTIC: [Metric; 4] = [
        Metric::Compliance,
        Metric::Retention,
        Metric::Needles,
        Metric::Writes,
    ];

    #[test]
    fn identical_runs_have_no_differences() {
        let a = tiny_run();
        let b = tiny_run();
        let c = compare(&a, &b, &DETERMINISTIC, "a", "b");
        assert!(c.rows.is_empty() && c.only_a.is_empty() && c.only_b.is_empty());
        assert_eq!(c.matched_rows, a.rows.len());
        let text = render(&c);
        assert!(text.contains("No tracked metric differs"), "{text}");
        assert!(!text.contains("| scenario |"), "{text}");
    }

    #[test]
    fn changed_rows_are_tabled_and_missing_ones_listed() {
        let a = tiny_run();
        let mut b = a.clone();
        b.rows[1].retention.mean = a.rows[1].retention.mean.map(|m| m - 0.125);
        b.rows[1].persistence.writes = a.rows[1].persistence.writes + 4;
        b.rows[1].cost.median_ns += 1;
        let gone = b.rows.pop().unwrap();
        b.inputs.scenarios[0].seed += 1;
        let c = compare(&a, &b, &DETERMINISTIC, "a", "b");
        assert_eq!(c.rows.len(), 1);
        let metrics: Vec<Metric> = c.rows[0].changes.iter().map(|m| m.metric).collect();
        assert_eq!(metrics, [Metric::Retention, Metric::Writes]);
        assert_eq!(c.only_a, [gone.key().to_string()]);
        let text = render(&c);
        assert!(text.contains("1 of "), "{text}");
        assert!(text.contains("| retention.mean |"), "{text}");
        assert!(text.contains("-12.50 pp |"), "{text}");
        assert!(text.contains("Rows only A has (1)"), "{text}");
        assert!(text.contains("pre-persisted: seed"), "{text}");

        b.rows[1].cost.floor_ratio = None;
        let with_cost = compare(&a, &b, &Metric::ALL, "a", "b");
        let metrics: Vec<Metric> = with_cost.rows[0].changes.iter().map(|m| m.metric).collect();
        assert_eq!(
            metrics,
            [
                Metric::Retention,
                Metric::Writes,
                Metric::Cost,
                Metric::Time
            ]
        );
        let text = render(&with_cost);
        assert!(text.contains("| cost.floorRatio |"), "{text}");
        assert!(text.contains(" | - | - |\n"), "{text}");
    }
}
