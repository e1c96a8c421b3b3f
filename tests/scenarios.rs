//! Scenario files drawn at random, every field of them, hostile values included: loading returns the scenario or
//! an error naming a line and field, never a panic, and a scenario that loads generates, simulates and runs a
//! couple of batches without a panic, each batch within the text bound the scenario was accepted under.

use budgetlab::generate::Shard;
use budgetlab::run::{RunPlan, Workload};
use budgetlab::scenario::ENTRY_OVERHEAD_UNITS;
use budgetlab::simulate::SimulateJob;
use budgetlab::workload::SizeKey;
use budgetlab::{Error, Generator, Scenario, StrategyName};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};

/// How a field's value is written.
#[derive(Clone, Copy)]
enum Value {
    /// An integer, usually in `[low, high]`.
    Int(u64, u64),
    /// An integer, as often in `[low, high]` as in the wider `[high, far]` that reaches the documented bound.
    Wide(u64, u64, u64),
    /// A float, usually in `[low, high]`.
    Float(f64, f64),
    /// A boolean.
    Bool,
    /// One of these TOML literals.
    Pick(&'static [&'static str]),
    /// An array of integers, each usually in `[low, high]`.
    Ints(u64, u64),
}

/// Every field of a scenario file: (table, key, value). The ranges are the usual values (the widths, sizes and
/// hook length reaching up to their bounds, so that files whose batches could pass the batch bound are common);
/// any field may instead get a hostile one.
fn fields() -> Vec<(String, &'static str, Value)> {
    let mut out: Vec<(String, &'static str, Value)> = vec![
        ("".into(), "name", Value::Pick(&["\"t\""])),
        ("".into(), "description", Value::Pick(&["\"d\""])),
        ("".into(), "seed", Value::Int(0, u64::MAX)),
        ("".into(), "batches", Value::Int(1, 50)),
        (
            "".into(),
            "mode",
            Value::Pick(&[
                "\"interactive\"",
                "\"headless\"",
                "\"acp\"",
                "\"agent\"",
                "\"speculative\"",
            ]),
        ),
        ("".into(), "legacy", Value::Bool),
        ("batch_size".into(), "median", Value::Float(0.5, 20.0)),
        ("batch_size".into(), "sigma", Value::Float(0.0, 3.0)),
        ("batch_size".into(), "min", Value::Int(1, 4)),
        ("batch_size".into(), "max", Value::Wide(4, 24, 4_096)),
    ];
    for kind in [
        "shell",
        "mcp",
        "surrogate",
        "plan_mode",
        "file_read",
        "search",
        "listing",
        "short_success",
        "empty",
        "error_trace",
        "cancelled",
        "media",
    ] {
        out.push(("kinds".into(), kind, Value::Float(0.0, 30.0)));
    }
    for key in [
        "shell",
        "mcp",
        "surrogate",
        "plan_mode",
        "file_read",
        "search",
        "listing",
        "short_success",
        "empty",
        "error_trace",
        "cancelled",
        "media",
        "hook_text",
        "giant",
    ] {
        let table = format!("sizes.{key}");
        out.push((table.clone(), "median", Value::Float(1.0, 5_000.0)));
        out.push((table.clone(), "sigma", Value::Float(0.0, 2.0)));
        // Mostly no tail: the body-only models have no tail median to go with a share.
        out.push((
            table.clone(),
            "tail_share",
            Value::Pick(&["0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.05"]),
        ));
        out.push((table.clone(), "tail_median", Value::Float(1.0, 40_000.0)));
        out.push((table.clone(), "tail_sigma", Value::Float(0.0, 1.0)));
        if key == "giant" {
            out.push((table.clone(), "min", Value::Int(0, 120_000)));
            out.push((table, "max", Value::Int(120_000, 300_000)));
        } else {
            out.push((table.clone(), "min", Value::Int(0, 60)));
            out.push((table, "max", Value::Wide(100, 60_000, 16_000_000)));
        }
    }
    for key in [
        "duplicate_rate",
        "awkward_id_rate",
        "hook_text_rate",
        "giant_rate",
        "ansi_rate",
        "pretty_json_rate",
        "object_output_rate",
    ] {
        out.push(("shape".into(), key, Value::Float(0.0, 1.0)));
    }
    out.extend([
        ("producer".into(), "previews", Value::Bool),
        (
            "producer".into(),
            "shell_trigger",
            Value::Int(6_000, 40_000),
        ),
        ("producer".into(), "shell_preview", Value::Int(200, 5_000)),
        ("producer".into(), "mcp_trigger", Value::Int(6_000, 40_000)),
        ("producer".into(), "mcp_preview", Value::Int(200, 5_000)),
        (
            "producer".into(),
            "artifact_dir",
            Value::Pick(&["\"/tmp/out\"", "\"\""]),
        ),
        (
            "persistence".into(),
            "producer_fault_rate",
            Value::Float(0.0, 1.0),
        ),
        (
            "persistence".into(),
            "finalizer_fault_rate",
            Value::Float(0.0, 1.0),
        ),
        ("budgets".into(), "absolute", Value::Ints(1, 300_000)),
        ("budgets".into(), "configured", Value::Int(1, 300_000)),
        ("budgets".into(), "windows", Value::Ints(1, 2_000_000)),
        (
            "hook".into(),
            "append_units",
            Value::Wide(0, 3_000, 1_000_000),
        ),
        ("hook".into(), "rebuild", Value::Bool),
        (
            "strategy".into(),
            "head_share",
            Value::Pick(&["\"1/5\"", "\"0\"", "\"1\"", "\"0.5\"", "\"3/7\""]),
        ),
        (
            "strategy".into(),
            "shell_tools",
            Value::Pick(&["[\"shell\"]", "[]", "[\"bash\", \"sh\"]"]),
        ),
        ("strategy.weights".into(), "output", Value::Int(1, 5)),
        ("strategy.weights".into(), "error", Value::Int(1, 5)),
        ("strategy.weights".into(), "text", Value::Int(1, 5)),
        (
            "strategy.window_relative".into(),
            "configured_chars",
            Value::Int(1, 200_000),
        ),
        (
            "strategy.window_relative".into(),
            "preview_chars",
            Value::Int(1, 5_000),
        ),
        (
            "strategy.gemini_cli".into(),
            "prompt_tokens",
            Value::Int(0, 100_000),
        ),
        (
            "strategy.claude_code".into(),
            "message_cap_chars",
            Value::Int(1, 300_000),
        ),
    ]);
    for (key, low, high) in [
        ("shell_trigger", 30_000, 60_000),
        ("shell_preview", 0, 30_000),
        ("other_trigger", 25_000, 60_000),
        ("other_preview", 0, 25_000),
        ("offload_preview", 0, 30_000),
    ] {
        out.push(("strategy.legacy_layers".into(), key, Value::Int(low, high)));
    }
    out
}

/// Literals that break some bound or type somewhere.
const HOSTILE: &[&str] = &[
    "0",
    "-1",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "16000001",
    "4097",
    "1000001",
    "1e12",
    "1e308",
    "-1e308",
    "5e-324",
    "nan",
    "inf",
    "-inf",
    "-0.0",
    "1.5",
    "\"x\"",
    "\"\"",
    "\" \"",
    "\"2/1\"",
    "\"1/0\"",
    "[]",
    "true",
];

/// A TOML literal for `value`: usual most of the time, hostile with odds `hostile` in 100.
fn literal(value: Value, hostile: u32) -> BoxedStrategy<String> {
    let usual: BoxedStrategy<String> = match value {
        Value::Int(low, high) => (low..=high).prop_map(|v| v.to_string()).boxed(),
        Value::Wide(low, high, far) => prop_oneof![low..=high, high..=far]
            .prop_map(|v| v.to_string())
            .boxed(),
        Value::Float(low, high) => (low..=high).prop_map(|v| format!("{v:?}")).boxed(),
        Value::Bool => any::<bool>().prop_map(|b| b.to_string()).boxed(),
        Value::Pick(options) => proptest::sample::select(options)
            .prop_map(str::to_string)
            .boxed(),
        Value::Ints(low, high) => proptest::collection::vec(low..=high, 0..4)
            .prop_map(|v| format!("{v:?}"))
            .boxed(),
    };
    let wild = prop_oneof![
        6 => proptest::sample::select(HOSTILE).prop_map(str::to_string),
        2 => any::<u64>().prop_map(|v| v.to_string()),
        2 => any::<f64>()
            .prop_filter("finite", |v| v.is_finite())
            .prop_map(|v| format!("{v:e}")),
        1 => proptest::collection::vec(any::<u64>(), 65..70).prop_map(|v| format!("{v:?}")),
    ];
    let hostile = hostile.max(1);
    prop_oneof![100 - hostile => usual, hostile => wild].boxed()
}

/// A scenario file: each field present with odds 1 in 3, hostile with the case's odds; `name`, `description`,
/// `seed` and `batches` are written more often than not so that many files load.
fn scenario_file() -> impl Strategy<Value = String> {
    (prop_oneof![Just(0u32), Just(0), Just(1), Just(4), Just(30)]).prop_flat_map(|hostile| {
        let fields = fields();
        let drawn: Vec<BoxedStrategy<Option<String>>> = fields
            .iter()
            .map(|(table, key, value)| {
                let required =
                    table.is_empty() && ["name", "description", "seed", "batches"].contains(key);
                let present = if required { 98 } else { 33 };
                proptest::option::weighted(f64::from(present) / 100.0, literal(*value, hostile))
                    .boxed()
            })
            .collect();
        drawn.prop_map(move |values| {
            let mut root = String::new();
            let mut tables: Vec<(String, String)> = Vec::new();
            for ((table, key, _), value) in fields.iter().zip(values) {
                let Some(value) = value else { continue };
                let line = format!("{key} = {value}\n");
                if table.is_empty() {
                    root.push_str(&line);
                } else {
                    match tables.iter_mut().find(|(t, _)| t == table) {
                        Some((_, body)) => body.push_str(&line),
                        None => tables.push((table.clone(), line)),
                    }
                }
            }
            for (table, body) in tables {
                root.push_str(&format!("[{table}]\n{body}"));
            }
            root
        })
    })
}

/// Whether generating a couple of batches of `s` is cheap enough for a property test: a batch as wide as it may
/// be, of entries at a high quantile (three sigmas) of the sizes it draws, stays under 2^25 units. (What any batch
/// may hold is bounded when the file loads, and the unit tests generate at those bounds.)
fn cheap(s: &Scenario) -> bool {
    let high = |&key: &SizeKey| {
        let m = s.size_model(key);
        let body = m.median * (3.0 * m.sigma).exp();
        let tail = if m.tail_share > 0.0 {
            m.tail_median * (3.0 * m.tail_sigma).exp()
        } else {
            0.0
        };
        (m.max as f64).min(body.max(tail)).max(m.min as f64)
    };
    let entry = s.sizes_in_use().iter().map(high).fold(0.0, f64::max) + s.hook.append_units as f64;
    s.batch_size.max as f64 * entry <= f64::from(1u32 << 25)
}

/// UTF-16 units of a generated batch's text fields plus the JSON of its media parts.
fn batch_units(g: &budgetlab::GeneratedBatch) -> u64 {
    let media: usize = g
        .batch
        .iter()
        .flat_map(|e| &e.response_parts)
        .filter(|p| p.is_media())
        .map(|p| serde_json::to_string(p).unwrap().len())
        .sum();
    (g.result_sizes().iter().sum::<usize>() + media) as u64
}

/// Loads `source`; on success generates, simulates and runs two batches. Returns whether it loaded and whether the
/// batches were exercised.
fn exercise(source: &str) -> Result<(bool, bool), TestCaseError> {
    let lines = source.lines().count().max(1);
    let scenario = match Scenario::parse(source, "drawn.toml") {
        Ok(s) => s,
        Err(Error::Scenario {
            path,
            line,
            field,
            message,
        }) => {
            prop_assert_eq!(path, "drawn.toml");
            prop_assert!(
                (1..=lines).contains(&line),
                "line {} of {}: {}",
                line,
                lines,
                message
            );
            prop_assert!(!message.is_empty());
            prop_assert!(!field.contains('\n'), "{}", field);
            return Ok((false, false));
        }
        Err(other) => {
            return Err(TestCaseError::fail(format!(
                "not a scenario error: {other}"
            )))
        }
    };
    prop_assert!(scenario.max_batch_units() <= budgetlab::scenario::MAX_BATCH_UNITS);
    if !cheap(&scenario) {
        return Ok((true, false));
    }
    let generator = Generator::new(&scenario);
    for i in 0..2 {
        let g = generator.batch(i);
        prop_assert!(!g.batch.is_empty());
        prop_assert!(g.batch.len() as u64 <= scenario.batch_size.max);
        prop_assert!(batch_units(&g) <= scenario.max_batch_units());
    }
    let turns: Vec<_> = SimulateJob::new(scenario.clone(), StrategyName::REFERENCE, 2)
        .turns()
        .collect();
    prop_assert_eq!(turns.len(), 2);
    let mut workload = Workload::from_scenario(&scenario, Some(2));
    workload.info.budgets.truncate(2);
    let plan = RunPlan {
        workloads: vec![workload],
        strategies: StrategyName::all(),
        shard: Shard::WHOLE,
        slowdown: Default::default(),
        externals: Default::default(),
    };
    let expected = plan.turns();
    let output = plan.run(&|_| {});
    prop_assert_eq!(output.records.len() as u64, expected);
    Ok((true, true))
}

#[test]
fn drawn_scenario_files_load_or_are_refused_and_never_panic() {
    let mut runner = TestRunner::new(Config {
        cases: 512,
        // Integration tests have no lib.rs beside them for proptest to find: name the file of failing cases.
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/scenarios.txt",
        ))),
        ..Config::default()
    });
    let counts = std::sync::Mutex::new((0u32, 0u32, 0u32));
    runner
        .run(&scenario_file(), |source| {
            let (loaded, exercised) = exercise(&source)?;
            let mut c = counts.lock().unwrap();
            c.0 += u32::from(!loaded);
            c.1 += u32::from(loaded);
            c.2 += u32::from(exercised);
            Ok(())
        })
        .unwrap();
    let (refused, loaded, exercised) = *counts.lock().unwrap();
    eprintln!("{refused} refused, {loaded} loaded, {exercised} generated, simulated and run");
    // Both outcomes are common, and most scenarios that load are generated and simulated.
    assert!(refused >= 100, "{refused} refused, {loaded} loaded");
    assert!(loaded >= 60, "{refused} refused, {loaded} loaded");
    assert!(exercised >= loaded / 2, "{exercised} of {loaded} exercised");
}

#[test]
fn a_generated_batch_stays_within_max_batch_units() {
    // Every kind, hook text on every entry and every size pinned at its max: the batches come close to the
    // computed bound and never pass it.
    let mut src = String::from(
        "name = \"t\"\ndescription = \"d\"\nseed = 7\nbatches = 3\n\
         [batch_size]\nmedian = 6\nsigma = 0\nmin = 6\nmax = 6\n\
         [shape]\nhook_text_rate = 1.0\ngiant_rate = 0.5\nduplicate_rate = 0.2\n[hook]\nappend_units = 10\n",
    );
    for key in SizeKey::ALL {
        let size = if key == SizeKey::Giant {
            60_000
        } else {
            20_000
        };
        src.push_str(&format!(
            "[sizes.{key}]\nmedian = {size}\nsigma = 0\nmin = {size}\nmax = {size}\n"
        ));
    }
    let s = Scenario::parse(&src, "t.toml").unwrap();
    let bound = s.max_batch_units();
    assert_eq!(
        bound,
        6 * (60_000 + 20_000 + 20_000 + 10 + ENTRY_OVERHEAD_UNITS)
    );
    let generator = Generator::new(&s);
    let mut largest = 0;
    for i in 0..40 {
        // The appended hook context is not in the generated batch: 10 units for each of the 6 entries.
        let units = batch_units(&generator.batch(i)) + 6 * 10;
        assert!(units <= bound, "batch {i}: {units} > {bound}");
        largest = largest.max(units);
    }
    assert!(largest > bound * 2 / 5, "{largest} of {bound}");
}
