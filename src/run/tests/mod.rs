//! Unit tests of the plan's own arithmetic and of what a scenario hands its workload.

use super::*;

mod external;
use crate::run::{PlanRequest, Workloads};
use crate::workload::HookConfig;

/// Two scenarios with different budget counts, three strategies, and a shard that takes an uneven share.
#[test]
fn turns_count_every_batch_budget_and_strategy_of_the_shard() {
    for shard in [None, Some("1/3".to_string())] {
        let plan = PlanRequest {
            workloads: Workloads::Scenarios(vec!["pre-persisted".into(), "plan-mode".into()]),
            strategies: vec!["reference".into(), "codex".into(), "greedy".into()],
            batches: Some(5),
            shard: shard.clone(),
            ..PlanRequest::default()
        }
        .plan()
        .unwrap();
        let by_hand: u64 = plan
            .workloads
            .iter()
            .map(|w| {
                plan.shard.batches(w.info.batches).count() as u64 * w.info.budgets.len() as u64
            })
            .sum::<u64>()
            * 3;
        let budgets: Vec<usize> = plan
            .workloads
            .iter()
            .map(|w| w.info.budgets.len())
            .collect();
        let batches = if shard.is_some() { 2 } else { 5 };
        assert_eq!(
            plan.turns(),
            (budgets[0] + budgets[1]) as u64 * batches * 3,
            "{shard:?}"
        );
        assert_eq!(plan.turns(), by_hand);
        // One record a turn.
        assert_eq!(
            plan.run(&|_| {}).records.len() as u64,
            plan.turns(),
            "{shard:?}"
        );
    }
}

#[test]
fn a_scenario_hands_its_mode_legacy_form_and_hook_to_the_simulation() {
    let mut scenario = Scenario::resolve("large-window").unwrap();
    scenario.legacy = true;
    scenario.hook = HookConfig {
        append_units: 17,
        rebuild: true,
    };
    let w = Workload::from_scenario(&scenario, Some(4));
    assert_eq!(w.sim.mode, crate::workload::Mode::Acp);
    assert_ne!(SimConfig::default().mode, crate::workload::Mode::Acp);
    assert!(w.sim.legacy);
    assert_eq!(w.sim.hook, scenario.hook);
    assert_eq!(
        (w.info.mode, w.info.legacy, w.info.batches),
        (scenario.mode, true, 4)
    );
}

#[test]
fn the_batch_window_is_sixteen_batches_a_thread_within_32_and_512() {
    let in_pool = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(batch_window)
    };
    assert_eq!(in_pool(1), 32);
    assert_eq!(in_pool(3), 48);
    assert_eq!(in_pool(8), 128);
    assert_eq!(in_pool(40), 512);
}

#[test]
fn a_row_counts_tokens_against_its_own_window_and_only_window_relative_measures_the_leak() {
    let settings = TokenSettings {
        tokenizer: "o200k_base".into(),
        token_budget: Some(crate::metrics::TokenBudget::WindowPercent(50)),
    };
    let window = ScenarioBudget::window(60_000, 16_000);
    let absolute = ScenarioBudget::absolute(20_000);
    let relative = StrategyKey::from(WINDOW_RELATIVE);
    let reference = StrategyKey::from("reference");
    assert_eq!(
        token_tally(&settings, &window, &relative),
        TokenTally::new(Some(8_000), Some(16_000))
    );
    assert_eq!(
        token_tally(&settings, &window, &reference),
        TokenTally::new(Some(8_000), None)
    );
    // A share of a window the budget does not have: no token budget.
    assert_eq!(
        token_tally(&settings, &absolute, &relative),
        TokenTally::new(None, None)
    );
    let fixed = TokenSettings {
        token_budget: Some(crate::metrics::TokenBudget::Tokens(900)),
        ..settings
    };
    assert_eq!(
        token_tally(&fixed, &absolute, &reference),
        TokenTally::new(Some(900), None)
    );
    assert_ne!(
        TokenTally::new(Some(8_000), Some(16_000)),
        TokenTally::default()
    );
}

#[test]
fn threads_are_asked_for_between_1_and_four_a_core() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let limit = THREADS_PER_CORE * cores;
    assert_eq!(THREADS_PER_CORE, 4);
    for threads in [1, 2, limit - 1, limit] {
        assert_eq!(check_threads(threads).unwrap(), threads);
    }
    assert_eq!(
        check_threads(0).unwrap_err().to_string(),
        "invalid --threads \"0\": must be at least 1 (leave --threads out to use every core)"
    );
    assert_eq!(
        check_threads(limit + 1).unwrap_err().to_string(),
        format!(
            "invalid --threads \"{}\": must be at most {limit} (4 x the {cores} available cores)",
            limit + 1
        )
    );
}

#[test]
fn recorded_batches_run_in_their_mode_and_legacy_form_at_budgets_within_bounds() {
    use crate::scenario::MAX_BUDGET_UNITS;
    use testing::{recorded_request, shell_entry};
    let dir = tempfile::tempdir().unwrap();
    let batches = [vec![shell_entry("a", "ok")], vec![shell_entry("b", "ok")]];
    let request = |budgets: Vec<u64>, mode: Option<&str>, legacy: bool| {
        recorded_request(dir.path(), &batches, budgets, mode, legacy)
    };
    let units = |plan: &RunPlan| -> Vec<u64> {
        plan.workloads[0]
            .info
            .budgets
            .iter()
            .map(|b| b.units)
            .collect()
    };

    let plan = request(vec![1, MAX_BUDGET_UNITS], Some("headless"), true)
        .plan()
        .unwrap();
    let w = &plan.workloads[0];
    assert_eq!(
        (w.sim.mode, w.sim.legacy),
        (crate::workload::Mode::Headless, true)
    );
    assert_eq!(w.info.batches, 2);
    assert_eq!(units(&plan), [1, MAX_BUDGET_UNITS]);
    // Left out: interactive, not legacy, the default budgets.
    let plan = request(Vec::new(), None, false).plan().unwrap();
    let w = &plan.workloads[0];
    assert_eq!(
        (w.sim.mode, w.sim.legacy),
        (crate::workload::Mode::Interactive, false)
    );
    assert_eq!(units(&plan), plan::DEFAULT_RECORDED_BUDGETS);
    for bad in [0, MAX_BUDGET_UNITS + 1] {
        let err = request(vec![1, bad], None, false).plan().unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "invalid --budgets \"{bad}\": budgets must be between 1 and {MAX_BUDGET_UNITS}"
            )
        );
    }
}

/// A finalizer that changes nothing and records the turn context of every call.
struct SeesContext(std::sync::Mutex<Vec<Option<Arc<TurnContext>>>>);

impl Finalizer for SeesContext {
    fn name(&self) -> &str {
        "sees-context"
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        _store: &mut dyn crate::persist::ArtifactStore,
    ) -> crate::finalize::Outcome {
        self.0.lock().unwrap().push(ctx.turn.clone());
        crate::finalize::Outcome::unchanged(batch)
    }
}

/// A recorded line's context reaches every finalization of its batch (a line without one: none), and its group
/// is the workload's group of that batch; a generated batch's context and group come from its generator.
#[test]
fn the_context_of_a_batch_reaches_its_finalizer_and_its_group_the_workload() {
    let entry = r#"{"callId":"c1","toolName":"shell","responseParts":[{"text":"x"}]}"#;
    let jsonl = format!(
        "[{entry}]\n{{\"entries\":[{entry}],\"context\":{{\"task\":\"fix it\",\"calls\":[{{\"callId\":\"c1\",\"name\":\"shell\",\"arguments\":\"ls\"}}]}},\"group\":{{\"session\":\"s1\",\"task\":\"i7\"}}}}\n"
    );
    let workload =
        Workload::from_recorded("rec", jsonl.as_bytes(), &[100], SimConfig::default()).unwrap();
    assert_eq!(workload.group(0), None);
    assert_eq!(
        workload.group(1),
        Some(BatchGroup {
            session: "s1".into(),
            task: Some("i7".into())
        })
    );
    let budget = &workload.info.budgets[0];
    let seen = SeesContext(Default::default());
    for index in 0..2 {
        measure_turn_with(
            &workload,
            &workload.batch(index),
            budget,
            &seen,
            None,
            |_, _| (),
        );
    }
    let seen = seen.0.into_inner().unwrap();
    assert!(seen.len() >= 2, "{seen:?}");
    let (first, second): (Vec<_>, Vec<_>) = seen.iter().partition(|t| t.is_none());
    assert!(!first.is_empty() && !second.is_empty());
    for t in second {
        assert_eq!(t.as_ref().unwrap().task.as_deref(), Some("fix it"));
    }
    let scenario = Scenario::shipped("shell-heavy").unwrap();
    let generated = Workload::from_scenario(&scenario, Some(2));
    let g = generated.batch(1);
    assert_eq!(generated.group(1), g.group);
    assert_eq!(g.group.as_ref().unwrap().session, "shell-heavy/session-0");
    let seen = SeesContext(Default::default());
    measure_turn_with(
        &generated,
        &g,
        &generated.info.budgets[0],
        &seen,
        None,
        |_, _| (),
    );
    let seen = seen.0.into_inner().unwrap();
    assert!(!seen.is_empty());
    assert!(seen.iter().all(|t| t == &g.context && t.is_some()));
}
