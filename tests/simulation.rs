//! The runtime-boundary simulation with the reference as the finalizer: the budget holds over 10,000 generated
//! turns of every shipped scenario in every mode, and the design's invariants hold at every boundary of random
//! turns.

use budgetlab::conform::{check_budget, check_integrity};
use budgetlab::finalize::{Reference, SlotScope};
use budgetlab::simulate::{simulate_turn, simulate_turn_observed, Finalization, SimConfig};
use budgetlab::workload::{HookConfig, Mode};
use budgetlab::{
    Budget, BudgetContext, Entry, Generator, MemoryStore, Part, PlanReminders, Scenario,
};
use proptest::prelude::*;
use rayon::prelude::*;
use serde_json::json;

const TURNS_PER_SCENARIO: u64 = 10_000;

#[test]
fn reference_keeps_the_budget_over_10000_turns_of_every_shipped_scenario_in_every_mode() {
    for scenario in Scenario::all_shipped() {
        let generator = Generator::new(&scenario);
        let budgets = scenario.budgets();
        let violations: Vec<String> = (0..TURNS_PER_SCENARIO)
            .into_par_iter()
            .filter_map(|i| {
                let mode = Mode::ALL[(i % 5) as usize];
                let budget = &budgets[(i / 5) as usize % budgets.len()];
                let mut ctx = BudgetContext::new(Budget::Units(budget.units as i64));
                ctx.context_window_tokens = budget.window_tokens;
                let config = SimConfig {
                    mode,
                    hook: scenario.hook,
                    ..SimConfig::default()
                };
                let mut store = MemoryStore::new("tool-results");
                let turn = generator.batch(i).batch;
                let record = simulate_turn(turn, &Reference::default(), &ctx, &mut store, &config);
                let total = record.boundaries.last().unwrap().total;
                let over =
                    !record.within_budget || total > budget.units || !record.records_identical;
                over.then(|| {
                    format!(
                        "{} batch {i} {mode} at {}: {total}",
                        scenario.name, budget.units
                    )
                })
            })
            .collect();
        assert!(violations.is_empty(), "{violations:?}");
    }
}

fn part() -> impl Strategy<Value = Part> {
    let text = prop_oneof![
        Just("a".to_string()),
        "[a-z \\n]{0,40}".prop_map(|s| s.repeat(20)),
        Just("😀中é\n".repeat(300)),
        Just("Tool output truncated.\nFull output sha256: 00\n\n".repeat(40)),
    ];
    prop_oneof![
        3 => (text.clone(), proptest::option::of(text.clone()))
            .prop_map(|(o, e)| Part::function_response("id", "shell", Some(json!(o)), e.map(|e| json!(e)))),
        1 => text.prop_map(Part::text),
        1 => Just(Part(json!({"inlineData": {"mimeType": "image/png", "data": "AAAA"}}).as_object().unwrap().clone())),
        1 => Just({
            let r = PlanReminders::default().texts()[0].clone();
            Part::function_response("p", "enter_plan_mode", Some(json!(format!("{r}\n\n{}", "ctx ".repeat(200)))), None)
        }),
    ]
}

fn entry() -> impl Strategy<Value = Entry> {
    let id = prop_oneof![Just("c1"), Just("c2"), Just("c3"), Just("d/c1"), Just("..")];
    let status = prop_oneof![
        4 => Just(None),
        1 => Just(Some("cancelled")),
        1 => Just(Some("synthetic")),
        1 => Just(Some("skipped")),
    ];
    let paths = prop_oneof![3 => Just(None), 1 => Just(Some(vec![])), 1 => Just(Some(vec!["/p/x.output".to_string()]))];
    (id, proptest::collection::vec(part(), 0..3), status, paths).prop_map(
        |(id, parts, status, paths)| {
            let mut e = Entry::new(id, "shell", parts);
            e.persisted_output_files = paths;
            if let Some(s) = status {
                e.extra.insert("status".into(), json!(s));
            }
            e
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_at_every_boundary(
        turn in proptest::collection::vec(entry(), 0..7),
        budget in 50u64..6000,
        mode in 0usize..5,
        append in prop_oneof![Just(0usize), Just(300usize)],
        rebuild in any::<bool>(),
    ) {
        let reminders = PlanReminders::default();
        let ctx = BudgetContext::new(Budget::Units(budget as i64));
        let config = SimConfig {
            mode: Mode::ALL[mode],
            hook: HookConfig { append_units: append, rebuild },
            ..SimConfig::default()
        };
        let mut store = MemoryStore::new("/art");
        let mut failures: Vec<String> = Vec::new();
        let mut observe = |f: &Finalization<'_>| {
            let input: Vec<Entry> = f.input.to_vec();
            if let Err(e) = check_integrity(&input, f.outcome, &reminders) {
                failures.push(format!("{}: {e}", f.boundary));
            }
            let scope = if f.send_guard { SlotScope::TOOL_FIELDS } else { SlotScope::ALL };
            if let Err(e) = check_budget(f.outcome, &reminders, scope, budget) {
                failures.push(format!("{}: {e}", f.boundary));
            }
        };
        let record = simulate_turn_observed(turn.clone(), &Reference::default(), &ctx, &mut store, &config, Some(&mut observe));
        prop_assert!(failures.is_empty(), "{:?}", failures);
        // 1: the last boundary before the request is a finalization.
        let names: Vec<&str> = record.boundaries.iter().map(|b| b.boundary.as_str()).collect();
        prop_assert_eq!(names[names.len() - 2], "send-guard");
        // 2: the request fits the budget.
        prop_assert!(record.within_budget);
        // 3: every entry is written at most once along the whole turn, and never when it came with paths.
        let mut written: Vec<usize> = record.writes.iter().map(|w| w.ordinal).collect();
        for &o in &written {
            prop_assert!(turn[o].persisted_output_files.is_none());
        }
        written.sort_unstable();
        let n = written.len();
        written.dedup();
        prop_assert_eq!(written.len(), n);
        // 5: order and non-text parts are preserved.
        prop_assert_eq!(&record.ordinals, &(0..turn.len()).collect::<Vec<_>>());
        // 6: the request, the transcript and the tool-result record hold the same parts.
        prop_assert!(record.records_identical);
        // 7: the display is the producers' output, whatever the model got.
        prop_assert_eq!(&record.display, &turn);
    }
}
