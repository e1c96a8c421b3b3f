//! The report's files read back: `batches.csv` parsed with the `csv` crate and `summary.md` parsed as Markdown
//! tables, every named column and cell checked against the records of `batches.jsonl` (recomputed here, not
//! taken from the aggregation), and the charts' data checked against the same records and rows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use budgetlab::metrics::{RowKey, StrategyKey};
use budgetlab::report::chart::{
    compliance, cost_floor, curves, data, needles, overshoot, persistence, retention,
};
use budgetlab::run::{parse_records, BatchRecord, RunResults};
use serde_json::Value;

/// One small run written by the binary: two scenarios (one with producers' paths), three strategies (one that
/// goes over budget), 5 batches.
fn report() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DIR.get_or_init(|| {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("run");
        Command::cargo_bin("budgetlab")
            .unwrap()
            .args(["run", "--scenarios", "surrogate-storm", "pre-persisted"])
            .args(["--strategies", "reference,codex,largest-first"])
            .args(["--batches", "5", "--out"])
            .arg(&out)
            .assert()
            .success();
        (root, out)
    });
    path
}

fn results() -> RunResults {
    RunResults::load(&report().join("results.json")).unwrap()
}

/// `batches.jsonl` as JSON values (the names of the file itself) and as records.
fn records() -> (Vec<Value>, Vec<BatchRecord>) {
    let text = std::fs::read_to_string(report().join("batches.jsonl")).unwrap();
    let values = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let records = parse_records(text.as_bytes(), "batches.jsonl")
        .unwrap()
        .into_iter()
        .map(|(_, r)| r)
        .collect();
    (values, records)
}

/// `snake_case` to `camelCase`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

const CSV_COLUMNS: [&str; 54] = [
    "crate_version",
    "seed",
    "scenario_digest",
    "scenario",
    "strategy",
    "budget_label",
    "budget",
    "batch",
    "input_total",
    "final_total",
    "within_budget",
    "overshoot",
    "violation_boundary",
    "fields",
    "shortened_fields",
    "original_units",
    "kept_units",
    "mean_kept_share",
    "min_kept_share",
    "fairness",
    "needles_planted",
    "needles_survived",
    "needle_upper_bound",
    "writes",
    "bytes_written",
    "duplicate_writes",
    "failed_writes",
    "reused_paths",
    "recoverable_fields",
    "broken_surrogates",
    "reordered",
    "dropped",
    "media_changed",
    "reminders_changed",
    "non_budgeted_changed",
    "used_needles",
    "used_survived",
    "used_upper_bound",
    "used_tokens",
    "used_tokens_survived",
    "used_tokens_upper_bound",
    "over_budget_results",
    "over_budget_needles",
    "over_budget_needles_survived",
    "over_budget_used_needles",
    "over_budget_used_survived",
    "over_budget_used_upper_bound",
    "over_budget_used_tokens",
    "over_budget_used_tokens_survived",
    "over_budget_used_tokens_upper_bound",
    "records_differ",
    "cost_ns",
    "strategy_ns",
    "floor_ns",
];

#[test]
fn batches_csv_has_every_record_with_each_named_column_right() {
    let results = results();
    let (values, _) = records();
    let mut reader = csv::Reader::from_path(report().join("batches.csv")).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header, CSV_COLUMNS);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), values.len());
    assert_eq!(rows.len(), 2 * 3 * 3 * 5);
    let scenario = |name: &str| {
        results
            .inputs
            .scenarios
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .clone()
    };
    for (line, (row, record)) in rows.iter().zip(&values).enumerate() {
        let m = &record["metrics"];
        let info = scenario(record["scenario"].as_str().unwrap());
        for (column, cell) in CSV_COLUMNS.iter().zip(row.iter()) {
            let expected: String = match *column {
                "crate_version" => results.crate_version.clone(),
                "seed" => info.seed.to_string(),
                "scenario_digest" => info.digest.clone(),
                "scenario" | "strategy" => record[*column].as_str().unwrap().to_string(),
                "budget_label" => record["budgetLabel"].as_str().unwrap().to_string(),
                "cost_ns" => record["costNs"].to_string(),
                "strategy_ns" => record["strategyNs"].to_string(),
                "floor_ns" => record["floorNs"].to_string(),
                "needles_planted" | "needles_survived" => {
                    let key = if *column == "needles_planted" {
                        "planted"
                    } else {
                        "survived"
                    };
                    let sum: u64 = m["needles"]
                        .as_object()
                        .unwrap()
                        .values()
                        .map(|c| c[key].as_u64().unwrap())
                        .sum();
                    sum.to_string()
                }
                "violation_boundary" => m["violationBoundary"].as_str().unwrap_or("").into(),
                "mean_kept_share" | "min_kept_share" | "fairness" => {
                    // Empty, as null in the record, for a turn without a field.
                    let Some(x) = m[camel(column)].as_f64() else {
                        assert_eq!(m["fields"], 0, "line {line}: {column} is null");
                        assert_eq!(cell, "", "line {line}: {column}");
                        continue;
                    };
                    let shown: f64 = cell.parse().unwrap();
                    assert!(
                        (shown - x).abs() <= 5e-7,
                        "line {line}: {column} {cell} vs {x}"
                    );
                    continue;
                }
                _ => match &m[camel(column)] {
                    Value::Null => panic!("{column} is not a metric of the record"),
                    v => v.to_string(),
                },
            };
            assert_eq!(cell, expected, "line {line}, column {column}");
        }
    }
    // The run is one where the columns tell things apart: some fields were cut, some turns went over budget.
    let column = |name: &str| CSV_COLUMNS.iter().position(|c| *c == name).unwrap();
    assert!(rows
        .iter()
        .any(|r| r[column("kept_units")] != r[column("original_units")]));
    assert!(rows.iter().any(|r| &r[column("within_budget")] == "false"));
    assert!(rows.iter().any(|r| &r[column("writes")] != "0"));
}

/// A share as `summary.md` prints it.
fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The unit `summary.md` gives a column of times whose largest is `max_ns`: nanoseconds below 10 µs, microseconds
/// below 10 ms, milliseconds beyond.
fn time_unit(max_ns: u64) -> &'static str {
    if max_ns < 10_000 {
        "ns"
    } else if max_ns < 10_000_000 {
        "µs"
    } else {
        "ms"
    }
}

/// Nanoseconds in `unit` as `summary.md` prints them, the unit left to the header.
fn in_unit(ns: u64, unit: &str) -> String {
    match unit {
        "ns" => ns.to_string(),
        "µs" => format!("{:.1}", ns as f64 / 1e3),
        _ => format!("{:.1}", ns as f64 / 1e6),
    }
}

const SUMMARY_COLUMNS: [&str; 14] = [
    "rank",
    "strategy",
    "within budget",
    "max overshoot",
    "kept per field",
    "budget used",
    "needles / possible",
    "writes",
    "duplicate writes",
    "recoverable",
    "integrity issues",
    "median cost",
    "cost / floor",
    "lead over the next",
];

fn cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

#[test]
fn summary_tables_hold_what_the_records_add_up_to() {
    let results = results();
    let (_, records) = records();
    let text = std::fs::read_to_string(report().join("summary.md")).unwrap();
    // Sections: the heading names scenario and budget; the table's rows follow.
    let mut tables: BTreeMap<(String, String), Vec<Vec<String>>> = BTreeMap::new();
    // The unit of each table's median cost, from its header.
    let mut units: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    // The answer table comes first, under its own heading, then the Pareto fronts; the per-budget sections
    // follow them.
    let (answer, rest) = text
        .split_once("\n## Which strategy for each budget\n")
        .map(|(_, rest)| rest.split_once("\n## ").unwrap())
        .expect("summary.md opens with the answer");
    assert_eq!(
        answer
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| scenario |"))
            .count(),
        2 * 3,
        "{answer}"
    );
    let (fronts, sections) = rest
        .strip_prefix("What each strategy keeps for what it spends (Pareto fronts)\n")
        .and_then(|rest| rest.split_once("\n## "))
        .expect("the Pareto fronts follow the answer");
    // One line per scenario and budget, each front starting with its least spending strategy, as results.json
    // names them (and as its rows give them).
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(report().join("results.json")).unwrap())
            .unwrap();
    assert_eq!(
        serde_json::to_value(&results.pareto).unwrap(),
        written["pareto"]
    );
    let lines: Vec<Vec<String>> = fronts
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| scenario |"))
        .map(cells)
        .collect();
    assert_eq!(lines.len(), results.pareto.len());
    assert_eq!(lines.len(), 2 * 3);
    for (line, view) in lines.iter().zip(&results.pareto) {
        assert_eq!(line[0], view.scenario);
        for (cell, front) in [(&line[2], &view.bytes), (&line[3], &view.cost)] {
            match front.first() {
                Some(first) => assert!(cell.starts_with(&format!("{first} ")), "{cell}"),
                None => assert!(cell.starts_with("– ("), "{cell}"),
            }
            // A strategy over budget is on no front.
            let ranking = results
                .ranking
                .iter()
                .find(|r| r.scenario == view.scenario && r.budget == view.budget)
                .unwrap();
            assert!(ranking.broke.iter().all(|b| !front.contains(&b.strategy)));
        }
    }
    for line in format!("## {sections}").lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            let parts: Vec<&str> = heading.split(" · ").collect();
            let label = parts[1].split(' ').next().unwrap();
            current = Some((parts[0].to_string(), label.to_string()));
            assert_eq!(parts[3], "5 batches", "{line}");
        } else if line.starts_with("| rank |") {
            let mut header = cells(line);
            let at = SUMMARY_COLUMNS
                .iter()
                .position(|c| *c == "median cost")
                .unwrap();
            let unit = header[at]
                .strip_prefix("median cost (")
                .and_then(|u| u.strip_suffix(')'))
                .unwrap_or_else(|| panic!("no unit in {:?}", header[at]))
                .to_string();
            header[at] = "median cost".into();
            assert_eq!(header, SUMMARY_COLUMNS);
            units.insert(current.clone().expect("a table under a heading"), unit);
        } else if line.starts_with("| ") {
            let key = current.clone().expect("a table under a heading");
            tables.entry(key).or_default().push(cells(line));
        }
    }
    assert_eq!(tables.len(), 2 * 3);
    let column = |name: &str| SUMMARY_COLUMNS.iter().position(|c| *c == name).unwrap();
    for info in &results.inputs.scenarios {
        for budget in &info.budgets {
            let table = &tables[&(info.name.clone(), budget.label.to_string())];
            // Rows in ranking order: those that kept the budget with their rank, then those over it.
            let ranking = results
                .ranking
                .iter()
                .find(|r| r.scenario == info.name && r.budget == budget.label)
                .expect("a ranking for each scenario and budget");
            let placed: Vec<(String, String)> =
                table.iter().map(|r| (r[0].clone(), r[1].clone())).collect();
            let expected: Vec<(String, String)> = ranking
                .kept
                .iter()
                .map(|k| (k.rank.to_string(), k.strategy.to_string()))
                .chain(
                    ranking
                        .broke
                        .iter()
                        .map(|b| ("over budget".to_string(), b.strategy.to_string())),
                )
                .collect();
            assert_eq!(placed, expected);
            let mut strategies: Vec<&str> = table.iter().map(|r| r[1].as_str()).collect();
            strategies.sort_unstable();
            let mut all: Vec<&str> = results
                .inputs
                .strategies
                .iter()
                .map(|s| s.as_str())
                .collect();
            all.sort_unstable();
            assert_eq!(strategies, all);
            // The nearest-rank median of each row's five costs is the third smallest, as the row's histogram of
            // times keeps it (the lowest value of its bucket, 1/32 of its value wide); the column has the unit
            // its largest median calls for.
            let median = |strategy: &str| {
                let mut costs: Vec<u64> = records
                    .iter()
                    .filter(|r| {
                        r.scenario == info.name
                            && r.budget_label == budget.label
                            && r.strategy == strategy
                    })
                    .map(|r| r.cost_ns)
                    .collect();
                costs.sort_unstable();
                budgetlab::metrics::TimeHistogram::bucket(costs[2])
            };
            let unit = time_unit(table.iter().map(|r| median(&r[1])).max().unwrap());
            assert_eq!(units[&(info.name.clone(), budget.label.to_string())], unit);
            for row in table {
                let mine: Vec<&BatchRecord> = records
                    .iter()
                    .filter(|r| {
                        r.scenario == info.name
                            && r.budget_label == budget.label
                            && r.strategy == row[1]
                    })
                    .collect();
                assert_eq!(mine.len(), 5);
                let n = mine.len() as f64;
                let sum = |f: &dyn Fn(&BatchRecord) -> u64| mine.iter().map(|r| f(r)).sum::<u64>();
                let what = format!("{} {} {}", info.name, budget.label, row[1]);
                let within = sum(&|r| u64::from(r.metrics.within_budget));
                assert_eq!(
                    row[column("within budget")],
                    pct(within as f64 / n),
                    "{what}"
                );
                let max = mine.iter().map(|r| r.metrics.overshoot).max().unwrap();
                assert_eq!(row[column("max overshoot")], max.to_string(), "{what}");
                let fields = sum(&|r| r.metrics.fields);
                let kept: f64 = mine
                    .iter()
                    .filter_map(|r| Some(r.metrics.mean_kept_share? * r.metrics.fields as f64))
                    .sum();
                assert_eq!(
                    row[column("kept per field")],
                    pct(kept / fields as f64),
                    "{what}"
                );
                let used: Vec<f64> = mine.iter().filter_map(|r| r.metrics.budget_used).collect();
                if !used.is_empty() {
                    let mean = used.iter().sum::<f64>() / used.len() as f64;
                    assert_eq!(row[column("budget used")], pct(mean), "{what}");
                }
                let planted = sum(&|r| r.metrics.needles.values().map(|c| c.planted).sum());
                let survived = sum(&|r| r.metrics.needles.values().map(|c| c.survived).sum());
                let bound = sum(&|r| r.metrics.needle_upper_bound);
                assert!(planted > 0, "{what}");
                assert_eq!(
                    row[column("needles / possible")],
                    format!(
                        "{} / {}",
                        pct(survived as f64 / planted as f64),
                        pct(bound as f64 / planted as f64)
                    ),
                    "{what}"
                );
                assert_eq!(
                    row[column("writes")],
                    sum(&|r| r.metrics.writes).to_string(),
                    "{what}"
                );
                assert_eq!(
                    row[column("duplicate writes")],
                    sum(&|r| r.metrics.duplicate_writes).to_string(),
                    "{what}"
                );
                let shortened = sum(&|r| r.metrics.shortened_fields);
                if shortened > 0 {
                    let recoverable = sum(&|r| r.metrics.recoverable_fields);
                    assert_eq!(
                        row[column("recoverable")],
                        pct(recoverable as f64 / shortened as f64),
                        "{what}"
                    );
                }
                let integrity = sum(&|r| {
                    let m = &r.metrics;
                    m.broken_surrogates
                        + m.reordered
                        + m.dropped
                        + m.media_changed
                        + m.reminders_changed
                        + m.non_budgeted_changed
                        + u64::from(m.records_differ)
                });
                assert_eq!(
                    row[column("integrity issues")],
                    integrity.to_string(),
                    "{what}"
                );
                assert_eq!(
                    row[column("median cost")],
                    in_unit(median(&row[1]), unit),
                    "{what}"
                );
                // Cost over the floor: the batches' ratios, sorted, the lowest and highest quarter (one of
                // five) left out, the rest averaged; "–" when no floor was long enough to measure. Each ratio
                // as the row's histogram holds it: in thousandths, rounded, then its bucket's lowest value (so
                // the mean is the one the row computes, not one that rounds the other way at a half).
                let mut ratios: Vec<u64> = mine
                    .iter()
                    .filter(|r| r.floor_ns > 0)
                    .map(|r| {
                        let thousandths =
                            (r.strategy_ns as f64 / r.floor_ns as f64 * 1000.0).round();
                        budgetlab::metrics::TimeHistogram::bucket(thousandths as u64)
                    })
                    .collect();
                ratios.sort_unstable();
                let cut = ratios.len() / 4;
                let middle = &ratios[cut..ratios.len() - cut];
                let expected = if middle.is_empty() {
                    "–".to_string()
                } else {
                    let sum: f64 = middle.iter().map(|&v| v as f64).sum();
                    format!("{:.2}x", sum / middle.len() as f64 / 1000.0)
                };
                assert_eq!(row[column("cost / floor")], expected, "{what}");
            }
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn chart_data_follows_the_records_and_rows() {
    let results = results();
    let (_, records) = records();
    let of = |strategy: &str| -> Vec<&BatchRecord> {
        records.iter().filter(|r| r.strategy == strategy).collect()
    };

    let grid = compliance::compliance_grid(&results);
    assert_eq!(grid.strategies, results.inputs.strategies);
    for (s, strategy) in grid.strategies.iter().enumerate() {
        for (w, scenario) in grid.scenarios.iter().enumerate() {
            let mine: Vec<_> = of(strategy)
                .into_iter()
                .filter(|r| &r.scenario == scenario)
                .collect();
            let within = mine.iter().filter(|r| r.metrics.within_budget).count();
            assert_eq!(
                grid.rates[s][w],
                Some(within as f64 / mine.len() as f64),
                "{strategy} {scenario}"
            );
        }
    }

    let turns = data::TurnTallies::of(&results.inputs, &records);
    let overshoot = overshoot::overshoot(&results, Some(&turns));
    assert!(overshoot.per_turn);
    for row in &overshoot.rows {
        let mine = of(&row.strategy);
        let over: Vec<f64> = mine
            .iter()
            .filter(|r| r.metrics.overshoot > 0)
            .map(|r| r.metrics.overshoot as f64 / r.metrics.budget.unwrap() as f64 * 100.0)
            .collect();
        assert_eq!(row.turns, mine.len() as u64);
        assert_eq!(row.over, over.len() as u64, "{}", row.strategy);
        match &row.spread {
            None => assert!(over.is_empty()),
            Some(spread) => {
                let min = over.iter().copied().fold(f64::INFINITY, f64::min);
                let max = over.iter().copied().fold(0.0, f64::max);
                assert_eq!((spread.min, spread.max), (min, max), "{}", row.strategy);
                // The quartiles come from a histogram of 3 significant digits: at most 0.1% below the exact ones.
                let exact = data::Spread::of(&over).unwrap();
                for (got, want) in [
                    (spread.q1, exact.q1),
                    (spread.median, exact.median),
                    (spread.q3, exact.q3),
                ] {
                    assert!(
                        got <= want + 1e-6 && got >= want * 0.999 - 1e-6,
                        "{got} vs {want}"
                    );
                }
            }
        }
    }
    assert!(overshoot.rows.iter().any(|r| r.over > 0));

    let needles = needles::needle_survival(&results);
    for row in &needles.rows {
        let mine = of(&row.strategy);
        let count = |kind: Option<&str>, survived: bool| -> u64 {
            mine.iter()
                .flat_map(|r| r.metrics.needles.iter())
                .filter(|(k, _)| kind.is_none_or(|kind| serde_json::to_value(k).unwrap() == kind))
                .map(|(_, c)| if survived { c.survived } else { c.planted })
                .sum()
        };
        let planted = count(None, false) as f64;
        assert!(
            close(row.all.unwrap(), count(None, true) as f64 / planted),
            "{}",
            row.strategy
        );
        let bound: u64 = mine.iter().map(|r| r.metrics.needle_upper_bound).sum();
        assert!(
            close(row.upper_bound.unwrap(), bound as f64 / planted),
            "{}",
            row.strategy
        );
        for (kind, share) in needles.kinds.iter().zip(&row.by_kind) {
            let p = count(Some(kind), false);
            let expected = (p > 0).then(|| count(Some(kind), true) as f64 / p as f64);
            assert_eq!(*share, expected, "{} {kind}", row.strategy);
        }
    }

    let io = persistence::persistence_io(&results);
    for row in &io.rows {
        let mine = of(&row.strategy);
        let turns = mine.len() as f64;
        let sum = |f: &dyn Fn(&BatchRecord) -> u64| mine.iter().map(|r| f(r)).sum::<u64>() as f64;
        let dup = sum(&|r| r.metrics.duplicate_writes);
        assert_eq!(row.turns, mine.len() as u64);
        assert!(close(
            row.first_writes,
            (sum(&|r| r.metrics.writes) - dup) / turns
        ));
        assert!(close(row.duplicate_writes, dup / turns));
        assert!(close(
            row.failed_writes,
            sum(&|r| r.metrics.failed_writes) / turns
        ));
        assert!(close(
            row.kib,
            sum(&|r| r.metrics.bytes_written) / turns / 1024.0
        ));
    }
    assert!(io.rows.iter().any(|r| r.first_writes > 0.0));

    // The retention CDF of a strategy: the share of its over-budget turns keeping at most x.
    let cdf = retention::retention_cdf(&results, Some(&turns));
    assert!(cdf.per_turn);
    for series in cdf.panels.iter().flat_map(|p| &p.series) {
        let kept: Vec<f64> = of(&series.name)
            .iter()
            .filter(|r| r.metrics.budget_used.is_some())
            .filter_map(|r| Some(r.metrics.mean_kept_share? * 100.0))
            .collect();
        for &(x, y) in &series.points {
            let at_most = kept.iter().filter(|&&k| k <= x + 1e-9).count();
            assert!(
                close(y, at_most as f64 / kept.len() as f64 * 100.0),
                "{} at {x}",
                series.name
            );
        }
        assert_eq!(series.points.last(), Some(&(100.0, 100.0)));
    }

    // Budget curves: one point per budget of the scenario, the row's value.
    let drawn = curves::budget_curves(&results).unwrap();
    assert!(drawn.left_out.is_empty());
    let (scenario, curves) = (drawn.scenario, drawn.curves);
    let info = results
        .inputs
        .scenarios
        .iter()
        .find(|s| s.name == scenario)
        .unwrap();
    let retention = &curves.panels[0];
    for series in &retention.series {
        let mut expected: Vec<(f64, f64)> = info
            .budgets
            .iter()
            .map(|b| {
                let strategy = StrategyKey::from(series.name.as_str());
                let key = RowKey {
                    scenario: &scenario,
                    budget: b.label,
                    strategy: &strategy,
                };
                let row = results.row(key).unwrap();
                (b.units as f64, row.retention.mean.unwrap() * 100.0)
            })
            .collect();
        expected.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(expected.len(), 3);
        assert_eq!(series.points, expected, "{}", series.name);
    }

    // Cost over the floor: every row's own figure, in its scenario, budget and strategy's cell.
    let grid = cost_floor::cost_floor_grid(&results);
    assert_eq!(grid.rows.len() * grid.strategies.len(), results.rows.len());
    for line in &grid.rows {
        for (strategy, ratio) in grid.strategies.iter().zip(&line.ratios) {
            let key = RowKey {
                scenario: &line.scenario,
                budget: line.budget,
                strategy,
            };
            assert_eq!(*ratio, results.row(key).unwrap().cost.floor_ratio);
            assert!(ratio.is_some());
        }
    }
}
