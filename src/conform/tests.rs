//! Tests of the conformance suite as a whole: every built-in strategy through it, failing exactly the checks its
//! policy gives up (its spec's `gives_up`, which the table of the book's conform chapter shows), and a deliberately wrong finalizer caught by the right checks
//! with small counterexamples.

use super::*;
use crate::budget::BudgetContext;
use crate::finalize::{collect_slots, header, Outcome, PersistAttempt, SlotScope, StrategyName};
use crate::model::Batch;
use crate::persist::{ArtifactStore, Content, PersistenceIds};
use crate::text::utf16_len;

fn conform(
    finalizer: &dyn Finalizer,
    strategy: &str,
    cases: u64,
    as_reference: bool,
) -> ConformReport {
    ConformJob {
        finalizer,
        strategy: strategy.into(),
        finalize_flags: Vec::new(),
        cases,
        seed: Seed(DEFAULT_SEED),
        as_reference,
        folder: "out".into(),
    }
    .run(&|_| {})
}

fn failing(report: &ConformReport) -> Vec<&str> {
    report
        .checks
        .iter()
        .filter(|c| !c.holds())
        .map(|c| c.check.as_str())
        .collect()
}

fn result<'r>(report: &'r ConformReport, check: &str) -> &'r CheckResult {
    report.checks.iter().find(|c| c.check == check).unwrap()
}

#[test]
fn every_builtin_strategy_fails_exactly_what_its_policy_gives_up() {
    let mut names = StrategyName::all();
    names.push("head-tail-1/3".parse().unwrap());
    for name in names {
        // What the strategy's spec says its policy gives up, and nothing else.
        let expected = name.gives_up().unwrap();
        let finalizer = name.build();
        let report = conform(finalizer.as_ref(), &name.to_string(), 30, false);
        assert_eq!(failing(&report), expected, "{name}");
        assert_eq!(report.passed, expected.is_empty(), "{name}");
        // Every check judged something, and every counterexample was shrunk to a single entry.
        for check in &report.checks {
            assert!(check.cases > 0, "{name}: {} judged no case", check.check);
            if let Some(x) = &check.counterexample {
                assert_eq!(x.shrunk.entries, 1, "{name}: {}: {x:?}", check.check);
            }
        }
    }
    // The strategies that promise to cap the batch keep every other invariant; `largest-first` is the one that
    // shortens fields it never persisted (its last no-I/O pass).
    for name in StrategyName::all().iter().filter(|n| n.caps_batch()) {
        let expected = name.gives_up().unwrap();
        if name.as_str() == "largest-first" {
            assert_eq!(expected, ["names-artifact"]);
        } else {
            assert!(expected.is_empty(), "{name}");
        }
    }
}

#[test]
fn as_reference_holds_any_finalizer_to_the_reference_and_the_vectors() {
    let reference = conform(
        &crate::finalize::Reference::default(),
        "reference",
        20,
        true,
    );
    assert_eq!(failing(&reference), Vec::<&str>::new());
    assert_eq!(reference.checks.len(), 13);
    assert_eq!(result(&reference, "matches-vectors").cases, 20);
    assert_eq!(result(&reference, "matches-vectors").passed, 20);

    let other = StrategyName::HeadTail("0.5".parse().unwrap()).build();
    let report = conform(other.as_ref(), "head-tail-0.5", 20, true);
    assert_eq!(failing(&report), ["matches-reference", "matches-vectors"]);
    let x = result(&report, "matches-reference")
        .counterexample
        .as_ref()
        .unwrap();
    assert_eq!(x.shrunk.entries, 1);
    assert!(
        x.commands[1].contains("--strategy reference"),
        "{:?}",
        x.commands
    );
    let v = result(&report, "matches-vectors")
        .counterexample
        .as_ref()
        .unwrap();
    assert!(v.case.starts_with("vector:"), "{}", v.case);
    assert!(v.files.iter().any(|f| f.ends_with(".expected.json")));
    assert!(v.commands[0].contains(
        "--plan-reminder-file out/counterexamples/matches-vectors.plan-reminder-edit.txt"
    ));
}

/// A deliberately wrong finalizer: the reference's water-fill, but to one unit over the budget, and previews cut
/// by UTF-16 units with no care for surrogate pairs (the half pair becomes U+FFFD). It persists each shortened
/// entry once and names its path, so nothing else is wrong with it.
struct Sloppy;

impl Finalizer for Sloppy {
    fn name(&self) -> &str {
        "sloppy"
    }

    fn finalize(
        &self,
        mut batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        let Some(limit) = ctx.budget.limit() else {
            return Outcome::unchanged(batch);
        };
        let slots = collect_slots(&batch, &ctx.reminders, SlotScope::ALL);
        let lengths: Vec<u64> = slots.iter().map(|s| s.len).collect();
        if lengths.iter().sum::<u64>() <= limit {
            return Outcome::unchanged(batch);
        }
        let allocation = crate::alloc::water_fill(&lengths, limit + 1);
        let mut ids = PersistenceIds::new(batch.iter().map(|e| e.call_id.as_str()));
        let mut persisted: Vec<PersistAttempt> = Vec::new();
        for (slot, &a) in slots.iter().zip(&allocation) {
            if slot.len <= a {
                continue;
            }
            let e = slot.entry;
            let text = slot.text(&batch).to_string();
            if batch[e].persisted_output_files.is_none() {
                let content = Content::from(text.as_str());
                let (call_id, path) = match ids.assign(&batch[e].call_id) {
                    None => (batch[e].call_id.clone(), None),
                    Some(id) => {
                        let path = store.write(&id, &batch[e].tool_name, &content).ok();
                        (id, path)
                    }
                };
                persisted.push(PersistAttempt {
                    call_id,
                    tool_name: batch[e].tool_name.clone(),
                    content,
                    path: path.clone(),
                    entry: e,
                });
                batch[e].persisted_output_files = Some(path.into_iter().collect());
            }
            let units: Vec<u16> = text.encode_utf16().collect();
            let cut = |n: usize| String::from_utf16_lossy(&units[..n.min(units.len())]);
            let header = header(&text, batch[e].artifact_paths());
            let h = utf16_len(&header);
            let a = a as usize;
            let fitted = if a >= h + 3 {
                format!("{header}\n\n{}", cut(a - h - 2))
            } else {
                cut(a)
            };
            slot.replace(&mut batch, &fitted);
        }
        Outcome { batch, persisted }
    }
}

#[test]
fn a_wrong_finalizer_is_caught_by_the_right_checks_with_minimal_counterexamples() {
    let report = conform(&Sloppy, "sloppy", 30, false);
    // Over by one unit (stable: a second pass allots every field its length again), and pairs split at its cuts;
    // nothing else.
    assert_eq!(failing(&report), ["budget-fits", "surrogates-intact"]);
    let over = result(&report, "budget-fits")
        .counterexample
        .as_ref()
        .unwrap();
    assert_eq!(
        over.shrunk,
        CaseSize {
            entries: 1,
            parts: 1,
            text_units: 2,
            budget: "1".into()
        },
        "{over:?}"
    );
    assert_eq!(over.message, "budgeted total 2 exceeds the budget 1");
    let split = result(&report, "surrogates-intact")
        .counterexample
        .as_ref()
        .unwrap();
    assert_eq!(split.shrunk.entries, 1);
    assert_eq!(split.shrunk.parts, 1);
    assert!(split.shrunk.text_units <= 4, "{split:?}");
    assert!(
        split.message.contains("a cut splits a surrogate pair"),
        "{}",
        split.message
    );
    let file = &split.contents[0];
    assert_eq!(file.0, "counterexamples/surrogates-intact.json");
    let batch = crate::parse_batch(&file.1, "counterexample").unwrap();
    let text = batch[0].response_parts[0]
        .field(crate::Field::Output)
        .unwrap();
    assert!(text.chars().any(|c| c.len_utf16() == 2), "{text:?}");
    assert_eq!(
        split.commands,
        [format!(
            "budgetlab finalize --strategy sloppy --budget {} --input out/counterexamples/surrogates-intact.json",
            split.shrunk.budget
        )]
    );
}

#[test]
fn the_report_is_the_same_whatever_the_thread_count() {
    let finalizer = "codex".parse::<StrategyName>().unwrap().build();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| conform(finalizer.as_ref(), "codex", 25, false))
    };
    let (one, two) = (run(1), run(3));
    assert_eq!(json(&one), json(&two));
    assert_eq!(markdown(&one), markdown(&two));
    assert_eq!(junit(&one), junit(&two));
    assert_eq!(folder_files(&one), folder_files(&two));
}

/// `reference`, but the plan-mode reminders count against the budget: it cuts the other fields by the
/// reminders' length (without touching the reminders themselves).
struct CountsReminders;

impl Finalizer for CountsReminders {
    fn name(&self) -> &str {
        "counts-reminders"
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        let reminders: u64 = batch
            .iter()
            .flat_map(|e| e.response_parts.iter().map(move |p| (e, p)))
            .filter(|(e, p)| p.function_name(&e.tool_name) == Some(crate::budget::PLAN_MODE_TOOL))
            .filter_map(|(_, p)| p.field(crate::Field::Output))
            .map(|o| utf16_len(&o[..ctx.reminders.protected_prefix(o)]) as u64)
            .sum();
        let mut ctx = ctx.clone();
        if let Some(limit) = ctx.budget.limit() {
            ctx.budget = crate::Budget::Units(limit.saturating_sub(reminders).max(1) as i64);
        }
        crate::finalize::Reference::default().finalize(batch, &ctx, store)
    }
}

#[test]
fn a_finalizer_that_counts_the_reminder_fails_only_the_plan_reminder_check() {
    let report = conform(&CountsReminders, "counts-reminders", 30, false);
    assert_eq!(failing(&report), ["plan-reminder"]);
    let x = result(&report, "plan-reminder")
        .counterexample
        .as_ref()
        .unwrap();
    assert_eq!((x.shrunk.entries, x.shrunk.parts), (1, 1), "{x:?}");
    assert!(
        x.message.starts_with("the reminder counts"),
        "{}",
        x.message
    );
    assert_eq!(
        x.files.len(),
        2,
        "the batch and the batch without its reminder: {:?}",
        x.files
    );
    assert!(x.commands[1].ends_with("counterexamples/plan-reminder.without-reminders.json"));
}
