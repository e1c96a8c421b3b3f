//! Tests of the per-batch metrics on constructed turns.

use serde_json::json;

use super::*;
use crate::budget::{Budget, BudgetContext};
use crate::finalize::{Finalizer, Reference, SendGuard};
use crate::model::Part;
use crate::persist::MemoryStore;
use crate::simulate::{simulate_turn, Mode, SimConfig};
use crate::text::utf16_len;

fn log(lines: usize, last: &str) -> String {
    let mut s = String::from("{\"total\": 3, \"items\": []}\n");
    for i in 0..lines {
        s.push_str(&format!(
            "progress line {i:05} of the build, compiling module number {i}\n"
        ));
    }
    s.push_str(last);
    s
}

fn entry(id: &str, output: &str) -> Entry {
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

fn needle(kind: NeedleKind, entry: usize, text: &str, output: &str) -> Needle {
    let offset = utf16_len(&output[..output.find(text).unwrap()]);
    Needle {
        kind,
        text: text.into(),
        entry,
        part: 0,
        field: Field::Output,
        offset,
    }
}

fn run(
    turn: &[Entry],
    needles: &[Needle],
    finalizer: &dyn Finalizer,
    budget: u64,
    cfg: SimConfig,
) -> BatchMetrics {
    let mut store = MemoryStore::new("/art");
    let ctx = BudgetContext::new(Budget::Units(budget as i64));
    let record = simulate_turn(turn.to_vec(), finalizer, &ctx, &mut store, &cfg);
    measure(0, turn, needles, &record, Some(budget), &ctx.reminders)
}

#[test]
fn reference_keeps_the_tail_needles_and_names_its_artifacts() {
    let out = log(
        400,
        "test result: FAILED. 3 passed; 1 failed\nExit Code: 101",
    );
    let turn = vec![entry("a", &out), entry("b", "ok")];
    let needles = vec![
        needle(NeedleKind::ExitInfo, 0, "Exit Code: 101", &out),
        needle(
            NeedleKind::SummaryLine,
            0,
            "test result: FAILED. 3 passed; 1 failed",
            &out,
        ),
        needle(NeedleKind::JsonKey, 0, "\"total\"", &out),
    ];
    let m = run(
        &turn,
        &needles,
        &Reference::default(),
        2000,
        SimConfig::default(),
    );
    assert!(m.within_budget);
    assert_eq!(m.final_total, 2000);
    assert_eq!((m.fields, m.shortened_fields), (2, 1));
    assert_eq!(m.needles[&NeedleKind::ExitInfo].survived, 1);
    assert_eq!(m.needles[&NeedleKind::SummaryLine].survived, 1);
    // The head of a 2,000-unit fit (a fifth of its preview) still holds the first line with the JSON key.
    assert_eq!(m.needles[&NeedleKind::JsonKey].survived, 1);
    assert_eq!(m.needle_upper_bound, 3);
    assert_eq!((m.writes, m.duplicate_writes, m.failed_writes), (1, 0, 0));
    assert_eq!(m.bytes_written, out.len() as u64);
    assert_eq!(m.path_visible, (1, 1));
    assert_eq!(m.recoverable_fields, 1);
    assert_eq!(m.last_line_kept, (1, 1));
    // The short field kept everything; the long one kept what its allocation allowed, less the header.
    assert_eq!(m.original_units, utf16_len(&out) as u64 + 2);
    assert!(
        m.kept_units > 1500 && m.kept_units < 2000,
        "{}",
        m.kept_units
    );
    assert_eq!(
        m.min_kept_share,
        (m.kept_units - 2) as f64 / utf16_len(&out) as f64
    );
    assert_eq!(m.budget_used, Some(1.0));
    assert_eq!(
        m.reordered + m.dropped + m.media_changed + m.non_budgeted_changed + m.broken_surrogates,
        0
    );
    assert!(!m.records_differ);
}

#[test]
fn legacy_headless_violations_are_attributed_to_the_concatenation() {
    let turn: Vec<Entry> = ["a", "b", "c"]
        .iter()
        .map(|id| entry(id, &"x".repeat(5000)))
        .collect();
    let cfg = SimConfig {
        mode: Mode::Headless,
        legacy: true,
        ..SimConfig::default()
    };
    let m = run(&turn, &[], &Reference::default(), 6000, cfg);
    assert!(!m.within_budget);
    assert_eq!(m.overshoot, 9000);
    assert_eq!(m.violation_boundary.as_deref(), Some("headless-turn"));
    assert_eq!(m.budget_used, Some(2.5));
}

#[test]
fn the_send_guard_alone_loses_the_full_text() {
    let turn = vec![entry("a", &"y".repeat(5000))];
    let cfg = SimConfig {
        send_guard: false,
        ..SimConfig::default()
    };
    let m = run(&turn, &[], &SendGuard::default(), 1000, cfg);
    assert!(m.within_budget);
    assert_eq!(
        (m.shortened_fields, m.writes, m.recoverable_fields),
        (1, 0, 0)
    );
    assert_eq!(m.path_visible, (0, 0));
}

#[test]
fn reordered_entries_are_counted() {
    let mut synthetic = entry("s", "synthetic response");
    synthetic.extra.insert("status".into(), json!("synthetic"));
    let turn = vec![synthetic, entry("a", "one"), entry("b", "two")];
    let cfg = SimConfig {
        legacy: true,
        ..SimConfig::default()
    };
    let m = run(&turn, &[], &Reference::default(), 1000, cfg);
    assert_eq!(m.reordered, 1);
    assert_eq!(m.dropped, 0);
}
