//! Tests of the checks and of the predicates they use.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::super::case::Case;
use super::*;
use crate::budget::{Budget, BudgetContext, PlanReminders, PLAN_MODE_TOOL};
use crate::finalize::{PersistAttempt, StrategyName};
use crate::model::{Entry, Field, Part};
use crate::persist::{FaultyStore, MemoryStore};

/// Text built from a short random unit repeated: ASCII words, line breaks, emoji, CJK, accents. Mostly
/// small, sometimes past every peer's threshold (up to a few hundred thousand units).
fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z ]{1,8}",
        Just("\n".to_string()),
        Just("\n\n".to_string()),
        Just("😀".to_string()),
        Just("中文".to_string()),
        Just("é".to_string()),
        Just("Exit Code: 1\n".to_string()),
    ];
    let unit = prop::collection::vec(piece, 1..5).prop_map(|v| v.concat());
    let reps = prop_oneof![4 => 0usize..40, 3 => 0usize..1_500, 2 => 1_000usize..12_000];
    (unit, reps).prop_map(|(u, k)| u.repeat(k))
}

fn part(tool: String) -> impl Strategy<Value = Part> {
    let reminder = PlanReminders::default().texts()[0].clone();
    prop_oneof![
        text().prop_map(Part::text),
        (
            prop::option::of(text()),
            prop::option::of(text()),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(move |(output, error, named, structured)| {
                let mut response = Map::new();
                if let Some(o) = output {
                    response.insert("output".into(), Value::String(o));
                }
                if structured {
                    response.insert("output".into(), json!({"rows": [1, 2]}));
                }
                if let Some(e) = error {
                    response.insert("error".into(), Value::String(e));
                }
                let mut fr = Map::new();
                if named {
                    fr.insert("name".into(), Value::String(tool.clone()));
                }
                fr.insert("response".into(), Value::Object(response));
                let mut map = Map::new();
                map.insert("functionResponse".into(), Value::Object(fr));
                Part(map)
            }),
        (prop::option::of(text()), any::<bool>()).prop_map(move |(rest, failed)| {
            let output = match rest {
                None => reminder.clone(),
                Some(r) => format!("{reminder}\n\n{r}"),
            };
            let error = failed.then(|| json!("plan mode could not start"));
            Part::function_response("p", PLAN_MODE_TOOL, Some(json!(output)), error)
        }),
        Just(Part(
            json!({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}})
                .as_object()
                .unwrap()
                .clone()
        )),
    ]
}

fn entry() -> impl Strategy<Value = Entry> {
    let call_id = prop_oneof![
        Just("c1".to_string()),
        Just("c2".to_string()),
        Just("dir/c1".to_string()),
        Just("..".to_string()),
        "[a-z]{1,6}",
    ];
    let tool = prop_oneof![
        Just("shell".to_string()),
        Just("run_shell_command".to_string()),
        Just("read_file".to_string()),
        Just("mcp_tool".to_string()),
    ];
    let persisted = prop_oneof![
        3 => Just(None),
        1 => Just(Some(vec![])),
        1 => Just(Some(vec!["/pre/artifact.txt".to_string()])),
    ];
    (call_id, tool, persisted)
        .prop_flat_map(|(call_id, tool, persisted)| {
            (
                Just(call_id),
                Just(tool.clone()),
                Just(persisted),
                prop::collection::vec(part(tool), 0..4),
            )
        })
        .prop_map(|(call_id, tool, persisted, parts)| {
            let mut e = Entry::new(call_id, tool, parts);
            e.persisted_output_files = persisted;
            e
        })
}

fn context() -> impl Strategy<Value = BudgetContext> {
    let budget = prop_oneof![
        1 => Just(Budget::Unlimited),
        1 => Just(Budget::Units(0)),
        2 => (1i64..400).prop_map(Budget::Units),
        4 => (400i64..300_000).prop_map(Budget::Units),
    ];
    let window = prop::option::of(prop_oneof![1_000u64..20_000, 20_000u64..2_000_000]);
    (budget, window).prop_map(|(budget, window)| {
        let mut ctx = BudgetContext::new(budget);
        ctx.context_window_tokens = window;
        ctx
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_strategy_keeps_integrity_and_capped_ones_fit(
        batch in prop::collection::vec(entry(), 0..7),
        ctx in context(),
        failing in any::<bool>(),
    ) {
        let mut names = StrategyName::all();
        names.push("head-tail-1/3".parse().unwrap());
        for name in names {
            let finalizer = name.build();
            let run = || {
                let fail: Vec<String> = if failing { vec!["c1".into()] } else { vec![] };
                let mut store = FaultyStore::new(MemoryStore::new("/tmp"), fail);
                finalizer.finalize(batch.clone(), &ctx, &mut store)
            };
            let outcome = run();
            if let Err(e) = check_integrity(&batch, &outcome, &ctx.reminders) {
                return Err(TestCaseError::fail(format!("{name}: {e}")));
            }
            prop_assert_eq!(&outcome, &run(), "{} is not deterministic", name);
            if let Some(limit) = ctx.budget.limit() {
                if let Some(scope) = name.caps() {
                    if let Err(e) = check_budget(&outcome, &ctx.reminders, scope, limit) {
                        return Err(TestCaseError::fail(format!("{name}: {e}")));
                    }
                }
            } else if name.caps_batch() {
                prop_assert_eq!(&outcome.batch, &batch, "{} changed an unbudgeted batch", name);
            }
        }
    }
}

fn shell(id: &str, output: &str) -> Entry {
    Entry::new(
        id,
        "shell",
        vec![Part::function_response(
            id,
            "shell",
            Some(json!(output)),
            None,
        )],
    )
}

fn set_output(batch: &mut Batch, e: usize, text: &str) {
    *batch[e].response_parts[0].field_mut(Field::Output).unwrap() = text.to_string();
}

fn outcome(batch: Batch) -> Outcome {
    Outcome::unchanged(batch)
}

fn attempt(entry: usize, path: Option<&str>) -> PersistAttempt {
    PersistAttempt {
        call_id: format!("c{entry}"),
        tool_name: "shell".into(),
        content: Content::from("full"),
        path: path.map(String::from),
        entry,
    }
}

#[test]
fn order_kept_catches_reordered_dropped_and_replaced_parts() {
    let input = vec![shell("a", "1"), shell("b", "2")];
    assert_eq!(order_kept(&input, &input), Ok(()));
    let swapped = vec![input[1].clone(), input[0].clone()];
    assert!(order_kept(&input, &swapped)
        .unwrap_err()
        .contains("entry 0"));
    assert_eq!(
        order_kept(&input, &input[..1].to_vec()).unwrap_err(),
        "2 entries became 1"
    );
    let mut no_parts = input.clone();
    no_parts[1].response_parts.clear();
    assert_eq!(
        order_kept(&input, &no_parts).unwrap_err(),
        "entry 1: 1 parts became 0"
    );
    let mut replaced = input.clone();
    replaced[0].response_parts[0] = Part::text("1");
    assert!(order_kept(&input, &replaced)
        .unwrap_err()
        .contains("a functionResponse part became a text part"));
}

#[test]
fn non_text_unchanged_catches_media_keys_and_vanished_fields() {
    let media = Part(
        json!({"inlineData": {"mimeType": "image/png", "data": "AAAA"}})
            .as_object()
            .unwrap()
            .clone(),
    );
    let input = vec![Entry::new("m", "shot", vec![media, Part::text("x")])];
    let mut changed = input.clone();
    changed[0].response_parts[0].0["inlineData"]["data"] = json!("BBBB");
    assert_eq!(
        non_text_unchanged(&input, &changed).unwrap_err(),
        "entry 0 part 0: a media part changed"
    );
    let mut shortened = input.clone();
    *shortened[0].response_parts[1]
        .field_mut(Field::Text)
        .unwrap() = String::new();
    assert_eq!(non_text_unchanged(&input, &shortened), Ok(()));
    let mut keyed = input.clone();
    keyed[0].extra.insert("status".into(), json!("ok"));
    assert_eq!(
        non_text_unchanged(&input, &keyed).unwrap_err(),
        "entry 0: its unknown keys changed"
    );
    let mut gone = input.clone();
    gone[0].response_parts[1].0["text"] = json!(null);
    assert_eq!(
        non_text_unchanged(&input, &gone).unwrap_err(),
        "entry 0 part 1: text appeared or vanished"
    );
}

#[test]
fn surrogates_intact_tells_a_split_pair_from_a_replacement_character_of_the_input() {
    let input = vec![shell("e", "ab😀😀cd")];
    let mut head_cut = input.clone();
    set_output(&mut head_cut, 0, "ab😀\u{FFFD}");
    assert_eq!(
        surrogates_intact(&input, &head_cut).unwrap_err(),
        "entry 0 part 0 output: a cut splits a surrogate pair (U+FFFD at UTF-16 offset 4 of 5 units)"
    );
    let mut safe = input.clone();
    set_output(&mut safe, 0, "ab😀");
    assert_eq!(surrogates_intact(&input, &safe), Ok(()));
    // The input's own replacement character, kept, is no split; one standing where a pair was, is.
    let input = vec![shell("e", "x\u{FFFD}y 😀tail")];
    let mut kept = input.clone();
    set_output(&mut kept, 0, "x\u{FFFD}y");
    assert_eq!(surrogates_intact(&input, &kept), Ok(()));
    let mut tail_cut = input.clone();
    set_output(&mut tail_cut, 0, "\u{FFFD}tail");
    assert!(surrogates_intact(&input, &tail_cut).is_err());
}

#[test]
fn persist_once_catches_double_writes_rewrites_and_stale_metadata() {
    let mut input = vec![shell("a", "1"), shell("b", "2")];
    input[1].persisted_output_files = Some(vec!["/pre/b.txt".into()]);
    let mut out = outcome(input.clone());
    out.batch[0].persisted_output_files = Some(vec!["tool-results/a.txt".into()]);
    out.persisted = vec![attempt(0, Some("tool-results/a.txt"))];
    assert_eq!(persist_once(&input, &out), Ok(()));
    let mut twice = out.clone();
    twice.persisted.push(attempt(0, Some("tool-results/a.txt")));
    assert_eq!(
        persist_once(&input, &twice).unwrap_err(),
        "entry 0: persisted more than once"
    );
    let mut rewrite = out.clone();
    rewrite
        .persisted
        .push(attempt(1, Some("tool-results/b.txt")));
    assert!(persist_once(&input, &rewrite)
        .unwrap_err()
        .starts_with("entry 1: written although it came with persistedOutputFiles"));
    let mut stale = out.clone();
    stale.batch[0].persisted_output_files = None;
    assert!(persist_once(&input, &stale)
        .unwrap_err()
        .contains("but its persistedOutputFiles became None"));
    let mut lost = out.clone();
    lost.batch[1].persisted_output_files = Some(Vec::new());
    assert!(persist_once(&input, &lost)
        .unwrap_err()
        .starts_with("entry 1: its persistedOutputFiles"));
}

#[test]
fn names_artifact_asks_for_the_path_when_there_is_room_and_a_path_unless_the_write_failed() {
    let long = "L".repeat(2_000);
    let input = vec![shell("a", &long)];
    let path = "tool-results/a.txt";
    let reminders = PlanReminders::default();
    let shortened = |text: &str, paths: Option<Vec<String>>, attempts: Vec<PersistAttempt>| {
        let mut out = outcome(input.clone());
        set_output(&mut out.batch, 0, text);
        out.batch[0].persisted_output_files = paths;
        out.persisted = attempts;
        names_artifact(&input, &out, &reminders)
    };
    let with_path = format!("Persisted at {path}\n{}", "L".repeat(300));
    let written = Some(vec![path.to_string()]);
    assert_eq!(
        shortened(&with_path, written.clone(), vec![attempt(0, Some(path))]),
        Ok(())
    );
    let without = "L".repeat(300);
    assert!(
        shortened(&without, written.clone(), vec![attempt(0, Some(path))])
            .unwrap_err()
            .contains("without naming its artifact")
    );
    // Too short to hold the path: a cut header is enough.
    assert_eq!(
        shortened("Tool output", written, vec![attempt(0, Some(path))]),
        Ok(())
    );
    // Shortened and never persisted: the full output is nowhere.
    assert!(shortened(&without, None, vec![])
        .unwrap_err()
        .contains("it was neither persisted nor came with a path"));
    // The write failed: nothing to name.
    assert_eq!(
        shortened(&without, Some(vec![]), vec![attempt(0, None)]),
        Ok(())
    );
}

/// `reference`, except that every other call uses head share 1/2 instead of 1/5.
struct Alternating(std::sync::atomic::AtomicU64);

impl Finalizer for Alternating {
    fn name(&self) -> &str {
        "alternating"
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        let n = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = if n.is_multiple_of(2) {
            "reference"
        } else {
            "head-tail-0.5"
        };
        name.parse::<StrategyName>()
            .unwrap()
            .build()
            .finalize(batch, ctx, store)
    }
}

/// `reference`, but an entry whose write failed gets its original text back: it trusts the file to be there.
struct TrustsWrites;

impl Finalizer for TrustsWrites {
    fn name(&self) -> &str {
        "trusts-writes"
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        let mut out = Reference::default().finalize(batch.clone(), ctx, store);
        for a in &out.persisted {
            if a.path.is_none() {
                out.batch[a.entry] = batch[a.entry].clone();
            }
        }
        out
    }
}

#[test]
fn trials_catch_a_nondeterministic_finalizer_and_one_that_leans_on_its_writes() {
    let case = Case::new(
        "t",
        vec![
            shell("a", &"x".repeat(5_000)),
            shell("b", &"y".repeat(5_000)),
        ],
        Budget::Units(1_000),
    );
    let alternating = Alternating(Default::default());
    let trial = Trial::new(&alternating, &case);
    assert!(Check::Deterministic.evaluate(&trial).failed());
    let reference = Reference::default();
    let trial = Trial::new(&reference, &case);
    assert_eq!(Check::Deterministic.evaluate(&trial), Verdict::Pass);
    assert_eq!(Check::PersistFailureBounded.evaluate(&trial), Verdict::Pass);
    let trial = Trial::new(&TrustsWrites, &case);
    assert_eq!(Check::BudgetFits.evaluate(&trial), Verdict::Pass);
    assert_eq!(
        Check::PersistFailureBounded.evaluate(&trial),
        Verdict::Fail(
            "with every write failing, budgeted total 10000 exceeds the budget 1000".into()
        )
    );
    // A disabled budget gives budget-fits and persist-failure-bounded nothing to judge.
    let disabled = Case::new("d", case.batch.clone(), Budget::Units(0));
    let trial = Trial::new(&reference, &disabled);
    assert_eq!(Check::BudgetFits.evaluate(&trial), Verdict::NotApplicable);
    assert_eq!(
        Check::PersistFailureBounded.evaluate(&trial),
        Verdict::NotApplicable
    );
    assert_eq!(Check::DisabledBudgetNoop.evaluate(&trial), Verdict::Pass);
}
