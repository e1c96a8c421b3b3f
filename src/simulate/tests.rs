//! Tests of the runtime-boundary simulation on constructed turns.

use serde_json::json;

use super::*;
use crate::budget::{Budget, PlanReminders};
use crate::finalize::Reference;
use crate::model::{Field, Part};
use crate::persist::MemoryStore;

fn entry(id: &str, units: usize) -> Entry {
    let out = "x".repeat(units);
    Entry::new(
        id,
        "shell",
        vec![Part::function_response(id, "shell", Some(json!(out)), None)],
    )
}

fn with_status(mut e: Entry, status: &str) -> Entry {
    e.extra.insert("status".into(), json!(status));
    e
}

fn simulate(turn: Batch, budget: i64, config: SimConfig) -> (TurnRecord, MemoryStore) {
    let mut store = MemoryStore::new("/art");
    let ctx = BudgetContext::new(Budget::Units(budget));
    let record = simulate_turn(turn, &Reference::default(), &ctx, &mut store, &config);
    (record, store)
}

fn config(mode: Mode, legacy: bool) -> SimConfig {
    SimConfig {
        mode,
        legacy,
        ..SimConfig::default()
    }
}

fn names(record: &TurnRecord) -> Vec<&'static str> {
    record
        .boundaries
        .iter()
        .map(|b| b.boundary.as_str())
        .collect()
}

fn turn() -> Batch {
    vec![
        entry("a", 5000),
        entry("b", 5000),
        with_status(entry("s", 3000), "synthetic"),
        entry("a", 5000),
        entry("c", 5000),
    ]
}

#[test]
fn reference_keeps_the_budget_in_every_mode() {
    for mode in Mode::ALL {
        let (record, store) = simulate(turn(), 6000, config(mode, false));
        assert!(record.within_budget, "{mode}");
        assert!(record.records_identical, "{mode}");
        assert_eq!(
            record.boundaries.last().unwrap().boundary,
            Boundary::ModelRequest
        );
        assert!(record.boundaries.last().unwrap().total <= 6000, "{mode}");
        // Order is the original ordinal order.
        let ids: Vec<&str> = record
            .model_request
            .iter()
            .map(|e| e.call_id.as_str())
            .collect();
        assert_eq!(ids, ["a", "b", "s", "a", "c"], "{mode}");
        // Every entry was persisted at most once along the whole turn.
        let mut entries: Vec<&str> = store.artifacts().iter().map(|a| a.id.as_str()).collect();
        entries.sort();
        entries.dedup();
        assert_eq!(entries.len(), store.artifacts().len(), "{mode}");
    }
}

#[test]
fn interactive_boundaries_are_the_designed_pipeline() {
    let (record, _) = simulate(turn(), 6000, config(Mode::Interactive, false));
    assert_eq!(
        names(&record),
        [
            "producers",
            "scheduler-pre-hook",
            "post-tool-batch-hook",
            "scheduler-post-hook",
            "interactive-merge",
            "interactive-outer-finalize",
            "send-guard",
            "model-request"
        ]
    );
    assert_eq!(record.boundaries[0].total, 23_000);
    // The scheduler sees only the three executed calls; the merge adds the duplicate and the synthetic one.
    assert_eq!(record.boundaries[1].total, 6000);
    assert_eq!(record.boundaries[4].total, 6000 + 3000 + 5000);
    assert_eq!(record.boundaries[5].total, 6000);
}

#[test]
fn legacy_headless_concatenation_breaks_the_budget() {
    let turn = vec![entry("a", 5000), entry("b", 5000), entry("c", 5000)];
    let (legacy, _) = simulate(turn.clone(), 6000, config(Mode::Headless, true));
    // Each per-call scheduler fits its own response; concatenated, the turn is 15,000 units.
    assert_eq!(legacy.boundaries.last().unwrap().total, 15_000);
    assert!(!legacy.within_budget);
    let (fixed, _) = simulate(turn, 6000, config(Mode::Headless, false));
    assert_eq!(fixed.boundaries.last().unwrap().total, 6000);
    assert!(fixed.within_budget);
}

#[test]
fn legacy_interactive_appends_runtime_responses_unbounded_and_out_of_order() {
    let (record, _) = simulate(turn(), 6000, config(Mode::Interactive, true));
    let ids: Vec<&str> = record
        .model_request
        .iter()
        .map(|e| e.call_id.as_str())
        .collect();
    assert_eq!(ids, ["a", "b", "c", "s", "a"]);
    assert_eq!(record.boundaries.last().unwrap().total, 6000 + 3000 + 5000);
    assert!(!record.within_budget);
    assert!(!names(&record).contains(&"send-guard"));
}

#[test]
fn a_hook_rebuild_keeps_metadata_in_the_new_runtime_only() {
    let hook = HookConfig {
        append_units: 500,
        rebuild: true,
    };
    let turn = vec![entry("a", 5000), entry("b", 5000)];
    let run = |legacy: bool| {
        let cfg = SimConfig {
            hook,
            ..config(Mode::Interactive, legacy)
        };
        let (record, _) = simulate(turn.clone(), 4000, cfg);
        record
            .writes
            .iter()
            .map(|w| (w.ordinal, w.boundary.as_str()))
            .collect::<Vec<_>>()
    };
    // New runtime: metadata copied back, so each output is persisted exactly once.
    assert_eq!(
        run(false),
        [(0, "scheduler-pre-hook"), (1, "scheduler-pre-hook")]
    );
    // Legacy: the rebuilt responses lost their paths and are written again after the hook.
    assert_eq!(
        run(true),
        [
            (0, "scheduler-pre-hook"),
            (1, "scheduler-pre-hook"),
            (0, "scheduler-post-hook"),
            (1, "scheduler-post-hook")
        ]
    );
}

#[test]
fn plan_reminder_stays_outside_the_budget_at_every_boundary() {
    let reminder = PlanReminders::default().texts()[0].clone();
    let plan = Entry::new(
        "p",
        "enter_plan_mode",
        vec![Part::function_response(
            "p",
            "enter_plan_mode",
            Some(json!(reminder)),
            None,
        )],
    );
    let (record, _) = simulate(vec![plan, entry("a", 5000)], 100, config(Mode::Acp, false));
    assert!(record.within_budget);
    assert_eq!(
        record.model_request[0].response_parts[0].field(Field::Output),
        Some(reminder.as_str())
    );
    assert_eq!(record.boundaries[0].total, 5000);
}

#[test]
fn display_is_the_producers_output() {
    let (record, _) = simulate(turn(), 1000, config(Mode::Agent, false));
    assert_eq!(record.display, turn());
    assert_ne!(record.model_request, turn());
}

#[test]
fn legacy_layers_in_the_legacy_runtime_leave_marked_shell_results_over_budget() {
    use crate::finalize::LegacyLayers;
    // Three shell outputs of 40,000 units: each producer keeps a marked 30,000-unit preview, and the legacy
    // scheduler takes the markers as proof that nothing is left to do.
    let turn: Batch = ["a", "b", "c"].iter().map(|id| entry(id, 40_000)).collect();
    let ctx = BudgetContext::new(Budget::Units(50_000));
    for mode in [Mode::Interactive, Mode::Headless] {
        let mut store = MemoryStore::new("/art");
        let record = simulate_turn(
            turn.clone(),
            &LegacyLayers::default(),
            &ctx,
            &mut store,
            &config(mode, true),
        );
        assert!(!record.within_budget, "{mode}");
        assert_eq!(record.boundaries.last().unwrap().total, 90_000, "{mode}");
        assert_eq!(store.artifacts().len(), 3, "{mode}");
        // The same producers under the new runtime: the outer finalization and the send guard bound the turn.
        let mut store = MemoryStore::new("/art");
        let record = simulate_turn(
            turn.clone(),
            &LegacyLayers::default(),
            &ctx,
            &mut store,
            &config(mode, false),
        );
        assert!(record.boundaries.last().unwrap().total <= 50_000, "{mode}");
    }
}

/// A test-only strategy that changes nothing, so that only the send guard bounds the model request.
struct Passthrough;

impl Finalizer for Passthrough {
    fn name(&self) -> &str {
        "passthrough"
    }

    fn finalize(
        &self,
        batch: Batch,
        _ctx: &BudgetContext,
        _store: &mut dyn ArtifactStore,
    ) -> Outcome {
        Outcome::unchanged(batch)
    }
}

#[test]
fn a_model_request_cut_after_the_records_were_taken_differs_from_them() {
    let turn = vec![entry("a", 5000), entry("b", 100)];
    let ctx = BudgetContext::new(Budget::Units(1000));
    let run = |send_guard: bool| {
        let config = SimConfig {
            send_guard,
            ..SimConfig::default()
        };
        simulate_turn(
            turn.clone(),
            &Passthrough,
            &ctx,
            &mut MemoryStore::new("/art"),
            &config,
        )
    };
    let guarded = run(true);
    // The send guard fitted what the model sees; the transcript and the tool-result record hold the 5,000 units.
    assert!(guarded.within_budget);
    assert_eq!(guarded.boundaries.last().unwrap().total, 1000);
    assert_eq!(guarded.transcript, turn);
    assert_eq!(guarded.tool_results, turn);
    assert_ne!(guarded.model_request, guarded.transcript);
    assert!(!guarded.records_identical);
    // Without the guard all three hold the same over-budget parts.
    let unguarded = run(false);
    assert!(!unguarded.within_budget);
    assert_eq!(unguarded.model_request, turn);
    assert!(unguarded.records_identical);
}
