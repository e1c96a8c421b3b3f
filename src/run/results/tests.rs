//! Reading results: what a run writes reads back, and what breaks the schema is refused by field and row.

use super::*;
use crate::digest::sha256_hex;
use crate::run::{PlanRequest, Workloads};
use serde_json::{json, Value};

fn tiny() -> (RunResults, Vec<BatchRecord>) {
    let out = PlanRequest {
        workloads: Workloads::Scenarios(vec!["surrogate-storm".into()]),
        strategies: vec!["reference".into(), "greedy".into()],
        batches: Some(3),
        ..PlanRequest::default()
    }
    .plan()
    .unwrap()
    .run(&|_| {});
    (out.results, out.records)
}

/// The error of parsing `results` after `edit`.
fn refused(results: &RunResults, edit: impl FnOnce(&mut Value)) -> String {
    let mut value = serde_json::to_value(results).unwrap();
    edit(&mut value);
    let bytes = serde_json::to_vec(&value).unwrap();
    RunResults::parse(&bytes, "r.json").unwrap_err().to_string()
}

fn label(results: &RunResults, row: usize) -> String {
    let r = &results.rows[row];
    format!(
        "r.json: row {} (scenario {}, budget {}, strategy {}): ",
        row + 1,
        r.scenario,
        r.budget_label,
        r.strategy
    )
}

#[test]
fn a_run_reads_back_as_written() {
    let (results, _) = tiny();
    let bytes = serde_json::to_vec_pretty(&results).unwrap();
    assert_eq!(RunResults::parse(&bytes, "r.json").unwrap(), results);
}

#[test]
fn the_pareto_fronts_are_the_rows_and_a_file_without_them_reads_the_same() {
    let (results, _) = tiny();
    assert_eq!(
        results.pareto,
        crate::metrics::pareto::fronts(&results.rows)
    );
    assert_eq!(results.pareto.len(), results.ranking.len());
    let mut value = serde_json::to_value(&results).unwrap();
    assert_eq!(value["pareto"][0]["scenario"], "surrogate-storm");
    assert!(value["pareto"][0]["bytes"].is_array() && value["pareto"][0]["cost"].is_array());
    // A file of version 6 written before the fronts: they are made from its rows.
    value.as_object_mut().unwrap().remove("pareto");
    let bytes = serde_json::to_vec(&value).unwrap();
    assert_eq!(RunResults::parse(&bytes, "r.json").unwrap(), results);
    // Whatever a file says of them, its rows decide.
    value["pareto"] = json!([]);
    let bytes = serde_json::to_vec(&value).unwrap();
    assert_eq!(
        RunResults::parse(&bytes, "r.json").unwrap().pareto,
        results.pareto
    );
}

#[test]
fn impossible_values_are_refused_naming_the_field_and_the_row() {
    let (results, _) = tiny();
    let row1 = label(&results, 1);
    let violations = results.rows[1].compliance.violations;
    let batches = results.rows[1].batches;
    for (edit, expected) in [
        (
            Box::new(|v: &mut Value| v["rows"][1]["retention"]["mean"] = json!(-0.25))
                as Box<dyn FnOnce(&mut Value)>,
            format!("{row1}retention.mean is -0.25, outside 0..1"),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["compliance"]["rate"] = json!(2.0)),
            format!("{row1}compliance.rate is 2, outside 0..1"),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["compliance"]["rate"] = json!(0.5)),
            format!(
                "{row1}compliance.rate is 0.5, but {violations} violations in {batches} batches give {}",
                (batches - violations) as f64 / batches as f64
            ),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["retention"]["fairness"] = json!(1.5)),
            format!("{row1}retention.fairness is 1.5, outside 0..1"),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["persistence"]["recoverable"] = json!(-1)),
            format!("{row1}persistence.recoverable is -1, outside 0..1"),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["needles"]["survival"] = json!(0.0)),
            format!("{row1}needles.survival is 0, but needles.byKind's"),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["needles"]["ofPossible"] = json!(0.125)),
            format!("{row1}needles.ofPossible is 0.125, but needles.survival"),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["batches"] = json!(4)),
            format!("{row1}batches is 4, but the run made 3 batches of scenario surrogate-storm"),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["cost"]["floorRatio"] = json!(-2.0)),
            format!("{row1}cost.floorRatio is -2; it is a finite number of at least 0"),
        ),
        (
            Box::new(|v: &mut Value| {
                v["rows"][1]["persistence"]["duplicateWrites"] = json!(1_000_000)
            }),
            format!("{row1}persistence.duplicateWrites is 1000000, more than persistence.writes"),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["persistence"]["writes"] = json!(-3)),
            format!(
                "r.json: row 2 (scenario {}, budget {}, strategy {}): persistence.writes: invalid value: \
                 integer `-3`, expected u64",
                results.rows[1].scenario, results.rows[1].budget_label, results.rows[1].strategy
            ),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["retention"]["mean"] = Value::Null),
            format!("{row1}retention.mean is null, but the row's turns had"),
        ),
        (
            Box::new(|v: &mut Value| {
                let row = v["rows"][1].clone();
                v["rows"].as_array_mut().unwrap().push(row);
            }),
            "r.json: row 7 (scenario surrogate-storm, budget abs-1000, strategy greedy): the row is there \
             twice (also row 2)"
                .to_string(),
        ),
        (
            Box::new(|v: &mut Value| v["rows"][1]["strategy"] = json!("codex")),
            "r.json: row 2 (scenario surrogate-storm, budget abs-1000, strategy codex): strategy: not one of \
             inputs.strategies"
                .to_string(),
        ),
        (
            Box::new(|v: &mut Value| v["inputs"]["shard"] = json!({"index": 2, "count": 2})),
            "r.json: inputs.shard: shard 2/2 does not exist".to_string(),
        ),
        (
            Box::new(|v: &mut Value| v["inputs"]["strategies"] = json!(["reference", "reference", "greedy"])),
            "r.json: inputs.strategies: reference is listed twice".to_string(),
        ),
        (
            Box::new(|v: &mut Value| *v = json!([1, 2])),
            "r.json: not a budgetlab results.json (not a JSON object)".to_string(),
        ),
    ] {
        let err = refused(&results, edit);
        assert!(err.contains(&expected), "{err}\nlacks\n{expected}");
    }
    assert_eq!(results.rows[1].budget_label, "abs-1000");
}

#[test]
fn a_shards_rows_count_the_shards_batches() {
    let out = PlanRequest {
        workloads: Workloads::Scenarios(vec!["surrogate-storm".into()]),
        strategies: vec!["reference".into()],
        batches: Some(5),
        shard: Some("1/2".into()),
        ..PlanRequest::default()
    }
    .plan()
    .unwrap()
    .run(&|_| {});
    assert!(out.results.rows.iter().all(|r| r.batches == 2));
    let bytes = serde_json::to_vec(&out.results).unwrap();
    assert!(RunResults::parse(&bytes, "r.json").is_ok());
    let err = refused(&out.results, |v| v["inputs"]["shard"] = Value::Null);
    assert!(
        err.contains("batches is 2, but the run made 5 batches of scenario surrogate-storm"),
        "{err}"
    );
}

#[test]
fn impossible_records_are_refused_naming_the_line_and_the_field() {
    let (_, records) = tiny();
    let line = |edit: &dyn Fn(&mut Value)| {
        let mut v = serde_json::to_value(&records[4]).unwrap();
        edit(&mut v);
        let text = serde_json::to_string(&v).unwrap();
        BatchRecord::parse_line(&text, "b.jsonl", 5)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(line(&|_| {}), Ok(()));
    let within = records[4].metrics.within_budget;
    for (edit, expected) in [
        (
            Box::new(move |v: &mut Value| v["metrics"]["withinBudget"] = json!(!within))
                as Box<dyn Fn(&mut Value)>,
            "b.jsonl:5: metrics.withinBudget is",
        ),
        (
            Box::new(|v: &mut Value| v["metrics"]["keptUnits"] = json!(u64::MAX)),
            "b.jsonl:5: metrics.keptUnits is 18446744073709551615, more than originalUnits",
        ),
        (
            Box::new(|v: &mut Value| v["metrics"]["meanKeptShare"] = json!(-0.5)),
            "b.jsonl:5: metrics.meanKeptShare is -0.5, outside 0..1",
        ),
        (
            Box::new(|v: &mut Value| v["metrics"]["fairness"] = Value::Null),
            "b.jsonl:5: metrics.fairness is null, but the turn has",
        ),
        (
            Box::new(|v: &mut Value| {
                v["metrics"]["fields"] = json!(0);
                v["metrics"]["shortenedFields"] = json!(0);
            }),
            "b.jsonl:5: metrics.meanKeptShare is",
        ),
        (
            Box::new(|v: &mut Value| v["metrics"]["writes"] = json!(-1)),
            "b.jsonl:5: metrics.writes: invalid value: integer `-1`, expected u64 (column",
        ),
    ] {
        let err = line(&*edit).unwrap_err();
        assert!(err.starts_with(expected), "{err}\nlacks\n{expected}");
    }
}

#[test]
fn the_batches_file_must_be_the_one_written() {
    let (mut results, _) = tiny();
    let jsonl = b"{\"a\":1}\n";
    let err = results
        .verify_batches(jsonl, "shard-0")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("shard-0: results.json records no sha256 of batches.jsonl"),
        "{err}"
    );
    results.sha256 = Some(BatchFilesSha256 {
        batches_jsonl: sha256_hex(jsonl),
        batches_csv: sha256_hex(b""),
    });
    assert!(results.verify_batches(jsonl, "shard-0").is_ok());
    let err = results
        .verify_batches(b"{\"a\":2}\n", "shard-0")
        .unwrap_err()
        .to_string();
    // Both digests by their first 12 hex digits.
    assert_eq!(
        err,
        format!(
            "shard-0: batches.jsonl is not the file this run wrote (sha256 {}, but results.json records {}): \
             it was edited or replaced; rerun it",
            &sha256_hex(b"{\"a\":2}\n")[..12],
            &sha256_hex(jsonl)[..12]
        )
    );
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn another_schema_version_is_refused_naming_both() {
    let (results, _) = tiny();
    for other in [0, u64::from(SCHEMA_VERSION) + 1] {
        let err = refused(&results, |v| v["schemaVersion"] = json!(other));
        assert_eq!(
            err,
            format!("r.json: results schema version {other}; this budgetlab reads version {SCHEMA_VERSION}")
        );
    }
}

#[test]
fn a_row_is_found_by_its_key_and_only_by_it() {
    let (results, _) = tiny();
    assert!(results.rows.len() > 1);
    for row in &results.rows {
        assert!(
            std::ptr::eq(results.row(row.key()).unwrap(), row),
            "{}",
            row.key()
        );
    }
    let other = StrategyKey::from("codex");
    let absent = RowKey {
        strategy: &other,
        ..results.rows[0].key()
    };
    assert!(results.row(absent).is_none());
}

#[test]
fn workload_sources_are_named_as_results_json_names_them() {
    for (source, name) in [
        (WorkloadSource::Generated, "generated"),
        (WorkloadSource::Recorded, "recorded"),
    ] {
        assert_eq!(source.as_str(), name);
        assert_eq!(source.to_string(), name);
        assert_eq!(serde_json::to_value(source).unwrap(), json!(name));
    }
}

#[test]
fn a_scenario_digest_and_a_rows_legacy_form_are_each_checked() {
    let (results, _) = tiny();
    // Hex but short; long enough but not hex.
    for digest in ["abc123".to_string(), "z".repeat(64)] {
        let err = refused(&results, |v| {
            v["inputs"]["scenarios"][0]["digest"] = json!(digest)
        });
        assert!(
            err.ends_with(&format!(
                "digest: {digest:?} is not a sha256 (64 hex digits)"
            )),
            "{err}"
        );
    }
    // The mode kept, the legacy form flipped.
    let row = &results.rows[1];
    let err = refused(&results, |v| v["rows"][1]["legacy"] = json!(!row.legacy));
    let legacy = |on: bool| if on { " (legacy)" } else { "" };
    assert_eq!(
        err,
        format!(
            "{}mode {}{} differs from the scenario's {}{}",
            label(&results, 1),
            row.mode,
            legacy(!row.legacy),
            row.mode,
            legacy(row.legacy)
        )
    );
}

#[test]
fn a_run_counting_tokens_reads_back_with_the_leak_measured_for_window_relative_only() {
    let out = PlanRequest {
        workloads: Workloads::Scenarios(vec!["small-window".into()]),
        strategies: vec!["reference".into(), crate::run::WINDOW_RELATIVE.into()],
        batches: Some(2),
        tokens: Some(crate::run::TokenRequest {
            tokenizer: "o200k_base".into(),
            pattern: None,
            budget: Some("50%".into()),
        }),
        ..PlanRequest::default()
    }
    .plan()
    .unwrap()
    .run(&|_| {});
    let leaks: Vec<(String, bool)> = out
        .results
        .rows
        .iter()
        .map(|r| {
            let tokens = r.tokens.as_ref().expect("every row counts tokens");
            (r.strategy.to_string(), tokens.window_leak.is_some())
        })
        .collect();
    assert!(
        leaks.contains(&(crate::run::WINDOW_RELATIVE.to_string(), true)),
        "{leaks:?}"
    );
    assert!(
        leaks.contains(&("reference".to_string(), false)),
        "{leaks:?}"
    );
    assert!(leaks
        .iter()
        .all(|(s, leak)| *leak == (s == crate::run::WINDOW_RELATIVE)));
    let bytes = serde_json::to_vec(&out.results).unwrap();
    assert_eq!(RunResults::parse(&bytes, "r.json").unwrap(), out.results);
}

/// The results of running recorded `batches` at a budget of 1,000 units with `strategies`, in interactive mode's
/// legacy form (no outer finalization nor send guard, so a strategy's overshoot reaches the model).
fn recorded_run(batches: &[crate::model::Batch], strategies: &[&str]) -> RunResults {
    recorded_output(batches, strategies).results
}

/// [`recorded_run`]'s results and records.
fn recorded_output(batches: &[crate::model::Batch], strategies: &[&str]) -> crate::run::RunOutput {
    let dir = tempfile::tempdir().unwrap();
    PlanRequest {
        strategies: strategies.iter().map(|s| s.to_string()).collect(),
        ..crate::run::testing::recorded_request(dir.path(), batches, vec![1_000], None, true)
    }
    .plan()
    .unwrap()
    .run(&|_| {})
}

#[test]
fn rows_with_violations_and_rows_without_text_fields_read_back() {
    use crate::model::Entry;
    let shell = |id: &str, units: usize| crate::run::testing::shell_entry(id, &"x".repeat(units));
    // window-relative keeps the forty 100-unit outputs of the first batch whole (each far under its threshold),
    // and so breaks the budget: 1 violation in 2 batches.
    let many: Vec<Entry> = (0..40).map(|i| shell(&format!("c{i}"), 100)).collect();
    let batches = vec![many, vec![shell("d", 10)]];
    let results = recorded_run(&batches, &["reference", crate::run::WINDOW_RELATIVE]);
    let by_strategy = |s: &str| {
        results
            .rows
            .iter()
            .find(|r| r.strategy.as_str() == s)
            .unwrap()
    };
    let relative = &by_strategy(crate::run::WINDOW_RELATIVE).compliance;
    assert_eq!((relative.violations, relative.rate), (1, 0.5));
    assert_eq!(by_strategy("reference").compliance.violations, 0);
    let bytes = serde_json::to_vec(&results).unwrap();
    assert_eq!(RunResults::parse(&bytes, "r.json").unwrap(), results);

    // Entries with no response part: rows of no text field, whose retention figures are absent.
    let empty = vec![vec![Entry::new("e", "shell", Vec::new())]];
    let results = recorded_run(&empty, &["reference"]);
    let row = &results.rows[0];
    assert_eq!(row.summary.fields, 0);
    assert_eq!(
        (
            row.retention.mean,
            row.retention.min_share,
            row.retention.fairness
        ),
        (None, None, None)
    );
    let bytes = serde_json::to_vec(&results).unwrap();
    assert_eq!(RunResults::parse(&bytes, "r.json").unwrap(), results);
}

/// Whether `results` after `edit` reads back; the error when it does not.
fn accepted(
    results: &RunResults,
    edit: impl FnOnce(&mut Value),
) -> std::result::Result<(), String> {
    let mut value = serde_json::to_value(results).unwrap();
    edit(&mut value);
    let bytes = serde_json::to_vec(&value).unwrap();
    RunResults::parse(&bytes, "r.json")
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn the_least_share_may_equal_the_mean_but_not_exceed_it() {
    let (results, _) = tiny();
    let row1 = label(&results, 1);
    let mean = results.rows[1].retention.mean.unwrap();
    assert!(mean < 0.99, "{mean}");
    assert_eq!(
        accepted(&results, |v| v["rows"][1]["retention"]["minShare"] =
            json!(mean)),
        Ok(())
    );
    // Within the slack for rounding, and just past it.
    let at_slack = mean + super::validate::SLACK;
    assert_eq!(
        accepted(&results, |v| v["rows"][1]["retention"]["minShare"] =
            json!(at_slack)),
        Ok(())
    );
    let over = mean + 0.01;
    assert_eq!(
        refused(&results, |v| v["rows"][1]["retention"]["minShare"] =
            json!(over)),
        format!("{row1}retention.minShare is {over}, more than retention.mean ({mean})")
    );
}

#[test]
fn needle_figures_are_null_exactly_when_none_was_planted_and_of_possible_is_their_ratio() {
    let (results, _) = tiny();
    let row1 = label(&results, 1);
    let n = &results.rows[1].needles;
    let planted: u64 = n.by_kind.values().map(|k| k.planted).sum();
    let survival = n.survival.unwrap();
    assert!(planted > 0 && survival > 0.0, "{n:?}");
    let null_message = |row: &str, planted: u64| {
        format!(
            "{row}needles.survival and needles.upperBound are null exactly when no needle was planted \
             (needles.byKind plants {planted})"
        )
    };
    // Planted, but null.
    let err = refused(&results, |v| {
        v["rows"][1]["needles"]["survival"] = Value::Null;
        v["rows"][1]["needles"]["upperBound"] = Value::Null;
        v["rows"][1]["needles"]["ofPossible"] = Value::Null;
    });
    assert_eq!(err, null_message(&row1, planted));
    // An upper bound under 1: ofPossible is survival over it.
    let of = (survival / 0.5).min(1.0);
    let at_half = |of: f64| {
        move |v: &mut Value| {
            v["rows"][1]["needles"]["upperBound"] = json!(0.5);
            v["rows"][1]["needles"]["ofPossible"] = json!(of);
        }
    };
    assert_eq!(accepted(&results, at_half(of)), Ok(()));
    assert!(accepted(&results, at_half(survival * 0.5)).is_err());
    // No needle could survive (an upper bound of 0): ofPossible is null, and only null.
    let none_possible = |of: Value| {
        move |v: &mut Value| {
            let kinds: Vec<String> = v["rows"][1]["needles"]["byKind"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            for kind in kinds {
                v["rows"][1]["needles"]["byKind"][&kind]["survived"] = json!(0);
                v["rows"][1]["needles"]["byKind"][&kind]["rate"] = json!(0.0);
            }
            v["rows"][1]["needles"]["survival"] = json!(0.0);
            v["rows"][1]["needles"]["upperBound"] = json!(0.0);
            v["rows"][1]["needles"]["ofPossible"] = of;
        }
    };
    assert_eq!(accepted(&results, none_possible(Value::Null)), Ok(()));
    assert_eq!(
        refused(&results, none_possible(json!(0.5))),
        format!("{row1}needles.ofPossible is 0.5, but needles.survival 0 over needles.upperBound 0 gives null")
    );

    // A row where none was planted (recorded batches have no needles): null is right, figures are not.
    let shell = crate::model::Entry::new("e", "shell", Vec::new());
    let recorded = recorded_run(&[vec![shell]], &["reference"]);
    assert_eq!(recorded.rows[0].needles.survival, None);
    let row = label(&recorded, 0);
    assert_eq!(accepted(&recorded, |_| {}), Ok(()));
    let err = refused(&recorded, |v| {
        v["rows"][0]["needles"]["survival"] = json!(0.5);
        v["rows"][0]["needles"]["upperBound"] = json!(0.5);
        v["rows"][0]["needles"]["ofPossible"] = json!(1.0);
    });
    assert_eq!(err, null_message(&row, 0));
}

#[test]
fn a_summary_must_count_the_rows_batches() {
    let (results, _) = tiny();
    let batches = results.rows[1].batches;
    assert_eq!(
        refused(&results, |v| v["rows"][1]["summary"]["batches"] =
            json!(batches + 1)),
        format!(
            "{}summary.batches is {}, but the row has {batches} batches",
            label(&results, 1),
            batches + 1
        )
    );
}

#[test]
fn records_are_judged_at_the_slack_by_needle_kind_and_with_no_field() {
    let (_, records) = tiny();
    let line = |v: &Value| {
        BatchRecord::parse_line(&serde_json::to_string(v).unwrap(), "b.jsonl", 5)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let r = records
        .iter()
        .find(|r| {
            r.metrics.mean_kept_share.is_some_and(|m| m < 0.99) && !r.metrics.needles.is_empty()
        })
        .expect("a record that cuts and plants needles");
    let value = serde_json::to_value(r).unwrap();
    // The least kept share may pass the mean by the slack for rounding, not by more.
    let mean = r.metrics.mean_kept_share.unwrap();
    let with_min = |min: f64| {
        let mut v = value.clone();
        v["metrics"]["minKeptShare"] = json!(min);
        line(&v)
    };
    assert_eq!(with_min(mean + super::validate::SLACK), Ok(()));
    let over = mean + 0.01;
    assert_eq!(
        with_min(over),
        Err(format!(
            "b.jsonl:5: metrics.minKeptShare is {over}, more than meanKeptShare ({mean})"
        ))
    );
    // A kind's survivors outnumbering its planted needles, named by the kind's name in the file.
    let mut v = value.clone();
    let kind = v["metrics"]["needles"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let planted = v["metrics"]["needles"][&kind]["planted"].as_u64().unwrap();
    v["metrics"]["needles"][&kind]["survived"] = json!(planted + 1);
    assert!(!kind.is_empty());
    assert_eq!(
        line(&v),
        Err(format!(
            "b.jsonl:5: metrics.needles.{kind}.survived is {}, more than planted ({planted})",
            planted + 1
        ))
    );
    // A turn of no text field: its shares are null, and that is right.
    let empty = vec![vec![crate::model::Entry::new("e", "shell", Vec::new())]];
    let out = recorded_output(&empty, &["reference"]);
    let record = &out.records[0];
    assert_eq!(
        (record.metrics.fields, record.metrics.mean_kept_share),
        (0, None)
    );
    assert_eq!(line(&serde_json::to_value(record).unwrap()), Ok(()));
}
