//! Known behaviours of the production finalizer, each pinned as a test of the reference (and the send guard).

use budgetlab::finalize::{budgeted_total, header, SlotScope};
use budgetlab::{utf16_len, ArtifactStore, Entry, Field, Part, PlanReminders, StrategyName};
use serde_json::json;

use crate::support::{field, output_part, reference, run_with, shell_entry};

fn with_paths(mut e: Entry, paths: &[&str]) -> Entry {
    e.persisted_output_files = Some(paths.iter().map(|p| p.to_string()).collect());
    e
}

#[test]
fn producer_truncated_results_are_cut_to_exactly_the_budget_and_reuse_paths() {
    let marker = "Tool output was too large and has been truncated";
    let batch = vec![
        with_paths(
            shell_entry("one", &format!("{marker}{}", "a".repeat(7000))),
            &["/tmp/one.output"],
        ),
        with_paths(
            shell_entry("two", &format!("{marker}{}", "b".repeat(7000))),
            &["/tmp/two.output"],
        ),
    ];
    let reminders = PlanReminders::default();
    assert_eq!(budgeted_total(&batch, &reminders, SlotScope::ALL), 14_096);
    let (out, store) = reference(batch, 10_000);
    assert_eq!(
        budgeted_total(&out.batch, &reminders, SlotScope::ALL),
        10_000
    );
    assert!(out.persisted.is_empty());
    assert_eq!(store.stats().writes, 0);
    for (i, path) in ["/tmp/one.output", "/tmp/two.output"].iter().enumerate() {
        let text = field(&out, i, 0, Field::Output);
        assert!(
            text.contains(&format!("Persisted tool-output artifact: {path}")),
            "{text}"
        );
        assert_eq!(
            out.batch[i].persisted_output_files,
            Some(vec![path.to_string()])
        );
    }
}

#[test]
fn two_existing_paths_both_appear_and_nothing_is_written() {
    let batch = vec![with_paths(
        shell_entry("multi", &"x".repeat(10_000)),
        &["/tmp/first.output", "/tmp/second.output"],
    )];
    let (out, store) = reference(batch, 500);
    let text = field(&out, 0, 0, Field::Output);
    assert!(text
        .contains("Persisted tool-output artifacts:\n- /tmp/first.output\n- /tmp/second.output"));
    assert_eq!(utf16_len(text), 500);
    assert!(out.persisted.is_empty() && store.artifacts().is_empty());
}

#[test]
fn output_error_text_and_media_share_the_budget_with_one_write() {
    let media = json!({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}});
    let parts = vec![
        Part::function_response(
            "mixed",
            "shell",
            Some(json!("o".repeat(4000))),
            Some(json!("e".repeat(4000))),
        ),
        Part::text("t".repeat(4000)),
        Part(media.as_object().unwrap().clone()),
    ];
    let (out, store) = reference(vec![Entry::new("mixed", "shell", parts)], 3000);
    let total = budgeted_total(&out.batch, &PlanReminders::default(), SlotScope::ALL);
    assert_eq!(total, 3000);
    assert_eq!(
        crate::support::to_json(&out.batch[0].response_parts[2]),
        media
    );
    assert_eq!(store.artifacts().len(), 1);
    assert_eq!(store.artifacts()[0].content.len(), 3 * 4000 + 2 * 2);
    assert_eq!(
        out.batch[0].persisted_output_files,
        Some(vec!["/tmp/mixed.txt".to_string()])
    );
}

fn written_ids(call_ids: &[&str]) -> Vec<String> {
    let batch = call_ids
        .iter()
        .map(|id| shell_entry(id, &"z".repeat(1000)))
        .collect();
    let (out, store) = reference(batch, 100);
    assert_eq!(out.persisted.len(), call_ids.len());
    store.artifacts().iter().map(|a| a.id.clone()).collect()
}

#[test]
fn duplicate_call_ids_get_distinct_suffixes() {
    assert_eq!(
        written_ids(&["duplicate", "duplicate"]),
        ["duplicate-1", "duplicate-2"]
    );
    assert_eq!(
        written_ids(&["call", "call", "call-1"]),
        ["call-2", "call-3", "call-1"]
    );
    assert_eq!(written_ids(&["dir/call", "call"]), ["call-1", "call-2"]);
}

#[test]
fn emoji_fit_stays_within_budget_without_broken_pairs() {
    let emoji = "😀".repeat(1000);
    let (out, _) = reference(vec![shell_entry("unicode", &emoji)], 201);
    let text = field(&out, 0, 0, Field::Output);
    // The preview's head (7 units) and tail (31 units) would each end inside a pair: each gives back a unit.
    assert_eq!(utf16_len(text), 199);
    let preview = text.split_once("\n\n").unwrap().1;
    let (h, t) = preview.split_once("\n...\n").unwrap();
    assert!(emoji.starts_with(h) && emoji.ends_with(t));
    assert_eq!((h.chars().count(), t.chars().count()), (3, 15));
}

fn plan_entry(output: &str) -> Entry {
    Entry::new(
        "enter-plan",
        "enter_plan_mode",
        vec![output_part("enter-plan", "enter_plan_mode", output)],
    )
}

#[test]
fn plan_mode_reminder_is_never_budgeted() {
    let reminders = PlanReminders::default();
    let reminder = reminders.texts()[0].clone();
    let (out, store) = reference(vec![plan_entry(&reminder)], 1);
    assert_eq!(field(&out, 0, 0, Field::Output), reminder);
    assert!(store.artifacts().is_empty());

    let hook = "hook-context ".repeat(1000);
    let (out, store) = reference(vec![plan_entry(&format!("{reminder}\n\n{hook}"))], 100);
    let text = field(&out, 0, 0, Field::Output);
    assert!(text.starts_with(&format!("{reminder}\n\n")));
    // The reminder and its blank line are outside the budget; the hook text after them is cut to it exactly.
    assert_eq!(utf16_len(text), 2 + utf16_len(&reminder) + 100);
    assert_eq!(store.artifacts().len(), 1);
    assert_eq!(&*store.artifacts()[0].content, hook.as_str());

    let arbitrary = "not a reminder ".repeat(1000);
    let (out, store) = reference(vec![plan_entry(&arbitrary)], 100);
    assert_eq!(utf16_len(field(&out, 0, 0, Field::Output)), 100);
    assert_eq!(store.artifacts().len(), 1);
    assert_eq!(&*store.artifacts()[0].content, arbitrary.as_str());
}

#[test]
fn plan_mode_exemption_follows_the_function_name() {
    let reminder = PlanReminders::default().texts()[1].clone();
    let mut part = output_part("p", "x", &reminder);
    // No `name` key: fall back to the entry's tool name.
    part.0["functionResponse"]
        .as_object_mut()
        .unwrap()
        .shift_remove("name");
    let (out, _) = reference(
        vec![Entry::new("p", "enter_plan_mode", vec![part.clone()])],
        10,
    );
    assert_eq!(field(&out, 0, 0, Field::Output), reminder);
    // An empty-string name does not fall back, so the output is budgeted.
    part.0["functionResponse"]["name"] = json!("");
    let (out, _) = reference(vec![Entry::new("p", "enter_plan_mode", vec![part])], 10);
    assert_eq!(utf16_len(field(&out, 0, 0, Field::Output)), 10);
    // The error field of enter_plan_mode is always budgeted.
    let err = Part::function_response("p", "enter_plan_mode", None, Some(json!("x".repeat(1000))));
    let (out, _) = reference(vec![Entry::new("p", "enter_plan_mode", vec![err])], 100);
    assert_eq!(utf16_len(field(&out, 0, 0, Field::Error)), 100);
}

#[test]
fn disabled_or_sufficient_budgets_change_nothing() {
    let batch = vec![shell_entry("a", &"x".repeat(5000))];
    for budget in [0, -1, 5000, 1_000_000] {
        let (out, store) = reference(batch.clone(), budget);
        assert_eq!(out.batch, batch, "budget {budget}");
        assert!(out.persisted.is_empty() && store.artifacts().is_empty());
    }
}

#[test]
fn slot_rules_for_empty_and_non_string_fields() {
    let parts = vec![
        Part::text(""),
        Part::function_response("a", "t", Some(json!("")), Some(json!(""))),
        Part::function_response("a", "t", Some(json!({"rows": ["x", "y"]})), Some(json!(17))),
        Part::function_response("a", "t", Some(json!("y".repeat(300))), None),
    ];
    let batch = vec![Entry::new("a", "t", parts)];
    let reminders = PlanReminders::default();
    // Slots: the empty text, the empty error and the 300-unit output; the empty output and non-strings are none.
    let slots = budgetlab::finalize::collect_slots(&batch, &reminders, SlotScope::ALL);
    assert_eq!(
        slots.iter().map(|s| s.len).collect::<Vec<_>>(),
        vec![0, 0, 300]
    );
    let (out, _) = reference(batch.clone(), 150);
    assert_eq!(
        out.batch[0].response_parts[..3],
        batch[0].response_parts[..3]
    );
    assert_eq!(utf16_len(field(&out, 0, 3, Field::Output)), 150);
}

#[test]
fn failed_and_refused_writes_never_stop_truncation() {
    let batch = vec![
        shell_entry(".", &"x".repeat(2000)),
        shell_entry("ok", &"y".repeat(2000)),
    ];
    let (out, store) = reference(batch, 400);
    assert_eq!(out.persisted[0].call_id, ".");
    assert_eq!(out.persisted[0].path, None);
    assert_eq!(out.batch[0].persisted_output_files, Some(vec![]));
    assert_eq!(out.persisted[1].path.as_deref(), Some("/tmp/ok.txt"));
    assert_eq!(store.artifacts().len(), 1);
    let first = field(&out, 0, 0, Field::Output);
    // Half the budget each; the failed write leaves no path to name.
    assert_eq!(utf16_len(first), 200);
    assert_eq!(utf16_len(field(&out, 1, 0, Field::Output)), 200);
    assert!(!first.contains("Persisted"));
}

#[test]
fn fits_at_every_boundary_end_to_end() {
    let text = "0123456789abcdefghijklmnopqrstuvwxyz".repeat(20);
    let h = header(&text, &[]);
    let hl = utf16_len(&h) as i64;
    let fitted = |a: i64| {
        let entry = with_paths(shell_entry("b", &text), &[]);
        let (out, _) = reference(vec![entry], a);
        field(&out, 0, 0, Field::Output).to_string()
    };
    assert_eq!(fitted(1), "T");
    assert_eq!(fitted(hl - 1), h[..h.len() - 1]);
    assert_eq!(fitted(hl), h);
    assert_eq!(fitted(hl + 1), h);
    assert_eq!(fitted(hl + 2), h);
    assert_eq!(fitted(hl + 7), format!("{h}\n\n01234"));
    assert_eq!(fitted(hl + 8), format!("{h}\n\n\n...\nz"));
    assert_eq!(
        fitted(hl + 30),
        format!("{h}\n\n0123\n...\nhijklmnopqrstuvwxyz")
    );
}

#[test]
fn send_guard_leaves_text_parts_and_writes_nothing() {
    let parts = vec![
        Part::text("t".repeat(5000)),
        output_part("g", "shell", &"o".repeat(5000)),
    ];
    let batch = vec![Entry::new("g", "shell", parts)];
    let (out, store) = run_with(
        StrategyName::SEND_GUARD,
        batch,
        1000,
        PlanReminders::default(),
    );
    assert_eq!(field(&out, 0, 0, Field::Text).len(), 5000);
    assert_eq!(utf16_len(field(&out, 0, 1, Field::Output)), 1000);
    assert!(out.persisted.is_empty() && store.artifacts().is_empty());
    assert_eq!(out.batch[0].persisted_output_files, None);
}
