//! Tests of the per-batch metrics on constructed turns.

use serde_json::json;

use super::*;
use crate::budget::{Budget, BudgetContext};
use crate::finalize::{Finalizer, Reference, SendGuard};
use crate::model::Part;
use crate::persist::MemoryStore;
use crate::scenario::BudgetLabel;
use crate::simulate::{simulate_turn, Boundary, SimConfig};
use crate::text::utf16_len;
use crate::workload::Mode;

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
        Some((m.kept_units - 2) as f64 / utf16_len(&out) as f64)
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
    assert_eq!(
        m.violation_boundary,
        Some(Boundary::Aggregation(Mode::Headless))
    );
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

#[test]
fn a_turn_without_a_field_has_no_kept_shares_rather_than_perfect_ones() {
    let m = run(&[], &[], &Reference::default(), 1000, SimConfig::default());
    assert_eq!((m.fields, m.original_units, m.kept_units), (0, 0, 0));
    assert_eq!(
        (m.mean_kept_share, m.min_kept_share, m.fairness),
        (None, None, None)
    );
    let json = serde_json::to_value(&m).unwrap();
    for field in ["meanKeptShare", "minKeptShare", "fairness"] {
        assert!(json[field].is_null(), "{field}");
    }
    // One field: measured, and a field kept whole is a share of 1.
    let m = run(
        &[entry("a", "ok")],
        &[],
        &Reference::default(),
        1000,
        SimConfig::default(),
    );
    assert_eq!(
        (m.mean_kept_share, m.min_kept_share, m.fairness),
        (Some(1.0), Some(1.0), Some(1.0))
    );
}

// Turns built by hand: every expected value below is worked out from the texts, not from a run.

/// The long field of the hand-built turn: 26 units, a JSON key in the middle (offset 10) and the exit line at
/// the end (offset 20).
const LONG: &str = "first\nkkkk\"key\"kkkk\nExit 1";
/// What the model is shown of it: the first line, a marker naming the artifact `/a`, the last line (17 units).
const LONG_SHOWN: &str = "first\n[/a]\nExit 1";

fn hand_turn() -> (Vec<Entry>, Vec<Needle>) {
    let turn = vec![entry("a", LONG), entry("b", "ok")];
    let needles = vec![
        needle(NeedleKind::JsonKey, 0, "\"key\"", LONG),
        needle(NeedleKind::ExitInfo, 0, "Exit 1", LONG),
        needle(NeedleKind::SummaryLine, 1, "ok", "ok"),
    ];
    (turn, needles)
}

fn write(
    ordinal: usize,
    id: &str,
    content: &str,
    path: Option<&str>,
) -> crate::simulate::TurnWrite {
    crate::simulate::TurnWrite {
        ordinal,
        boundary: Boundary::SchedulerPreHook,
        attempt: crate::finalize::PersistAttempt {
            call_id: id.into(),
            tool_name: "shell".into(),
            content: content.into(),
            path: path.map(String::from),
            entry: ordinal,
        },
    }
}

/// A turn record whose model request is `request` (entries in producer order) and whose boundaries have the
/// given totals, the last one being the model request's.
fn hand_record(
    request: Vec<Entry>,
    totals: &[(Boundary, u64)],
    writes: Vec<crate::simulate::TurnWrite>,
) -> TurnRecord {
    TurnRecord {
        boundaries: totals
            .iter()
            .map(|&(boundary, total)| crate::simulate::BoundaryRecord {
                boundary,
                total,
                parts: None,
            })
            .collect(),
        ordinals: (0..request.len()).collect(),
        transcript: request.clone(),
        tool_results: request.clone(),
        display: request.clone(),
        model_request: request,
        writes,
        within_budget: true,
        records_identical: true,
    }
}

/// The hand-built turn as the model sees it: the long field shortened to [`LONG_SHOWN`] naming `/a`, the short
/// one whole; the long output written twice (once a duplicate) and the short one's write failed.
fn shortened_record(totals: &[(Boundary, u64)]) -> TurnRecord {
    let mut shown = entry("a", LONG_SHOWN);
    shown.persisted_output_files = Some(vec!["/a".into()]);
    hand_record(
        vec![shown, entry("b", "ok")],
        totals,
        vec![
            write(0, "a", LONG, Some("/a")),
            write(0, "a", LONG, Some("/a")),
            write(1, "b", "ok", None),
        ],
    )
}

const FITS: &[(Boundary, u64)] = &[
    (Boundary::Producers, 28),
    (Boundary::SchedulerPreHook, 19),
    (Boundary::ModelRequest, 19),
];

#[test]
fn a_lost_needle_and_kept_ones_with_retention_weighted_per_field() {
    let (turn, needles) = hand_turn();
    let r = PlanReminders::default();
    let m = measure(3, &turn, &needles, &shortened_record(FITS), Some(19), &r);
    assert_eq!(m.batch, 3);
    assert_eq!((m.input_total, m.final_total), (28, 19));
    assert_eq!((m.fields, m.shortened_fields), (2, 1));
    // Kept: the head "first\n" (6) and the tail "\nExit 1" (7) of the long field, and "ok" whole.
    assert_eq!((m.original_units, m.kept_units), (28, 15));
    // Shares per field 13/26 and 2/2: their mean, minimum and Jain's index (1.5^2 / (2 * 1.25)).
    assert_eq!(m.mean_kept_share, Some(0.75));
    assert_eq!(m.min_kept_share, Some(0.5));
    assert_eq!(m.fairness, Some(0.9));
    assert_eq!((m.first_line_kept, m.last_line_kept), ((1, 1), (1, 1)));
    assert_eq!(m.path_visible, (1, 1));
    // The key in the cut middle is lost; the exit line in the tail and the untouched field's line survive.
    let count = |planted, survived| NeedleCount { planted, survived };
    assert_eq!(m.needles[&NeedleKind::JsonKey], count(1, 0));
    assert_eq!(m.needles[&NeedleKind::ExitInfo], count(1, 1));
    assert_eq!(m.needles[&NeedleKind::SummaryLine], count(1, 1));
    assert_eq!(m.needles.len(), 3);
    // All three fit in 19 units: a 16-unit tail from the key on and "ok" (2 units). At 17 units, only the exit
    // line's 6-unit tail and "ok".
    assert_eq!(m.needle_upper_bound, 3);
    assert_eq!(needle_upper_bound(&turn, &needles, &r, Some(18)), 3);
    assert_eq!(needle_upper_bound(&turn, &needles, &r, Some(17)), 2);
    assert_eq!(needle_upper_bound(&turn, &needles, &r, Some(7)), 1);
    // Writes: two of the long output (the second a duplicate), one failed.
    assert_eq!(
        (
            m.writes,
            m.bytes_written,
            m.duplicate_writes,
            m.failed_writes
        ),
        (2, 52, 1, 1)
    );
    assert_eq!((m.reused_paths, m.recoverable_fields), (0, 1));
    assert_eq!(
        (
            m.broken_surrogates,
            m.reordered,
            m.dropped,
            m.media_changed,
            m.reminders_changed,
            m.non_budgeted_changed
        ),
        (0, 0, 0, 0, 0, 0)
    );
    assert!(!m.records_differ);
}

#[test]
fn compliance_exactly_at_and_one_unit_over_the_budget() {
    let (turn, needles) = hand_turn();
    let r = PlanReminders::default();
    let at = measure(0, &turn, &needles, &shortened_record(FITS), Some(19), &r);
    assert!(at.within_budget);
    assert_eq!((at.overshoot, at.violation_boundary), (0, None));
    assert_eq!(at.budget_used, Some(1.0));

    let over = measure(0, &turn, &needles, &shortened_record(FITS), Some(18), &r);
    assert!(!over.within_budget);
    assert_eq!(over.overshoot, 1);
    // Every boundary after the producers was over 18: the first of them let the violation through.
    assert_eq!(over.violation_boundary, Some(Boundary::SchedulerPreHook));
    assert_eq!(over.budget_used, Some(19.0 / 18.0));

    // The scheduler fitted the turn; the outer finalization went over again and nothing after it fixed that.
    let late = shortened_record(&[
        (Boundary::Producers, 28),
        (Boundary::SchedulerPreHook, 18),
        (Boundary::OuterFinalize(Mode::Interactive), 19),
        (Boundary::SendGuard, 19),
        (Boundary::ModelRequest, 19),
    ]);
    let m = measure(0, &turn, &needles, &late, Some(18), &r);
    assert_eq!(
        m.violation_boundary,
        Some(Boundary::OuterFinalize(Mode::Interactive))
    );

    // The producers' output already fits: the share of the budget used is not measured.
    let m = measure(0, &turn, &needles, &shortened_record(FITS), Some(28), &r);
    assert_eq!(m.budget_used, None);
    // A disabled budget: nothing is over it.
    let m = measure(0, &turn, &needles, &shortened_record(FITS), None, &r);
    assert!(m.within_budget && m.budget_used.is_none());
    assert_eq!(m.needle_upper_bound, 3);
}

#[test]
fn paths_recoverability_and_reuse_of_a_shortened_field() {
    let (turn, needles) = hand_turn();
    let r = PlanReminders::default();
    // The write failed and the marker names no path: nothing recoverable, no path to see.
    let mut request = vec![entry("a", LONG_SHOWN), entry("b", "ok")];
    let failed = hand_record(request.clone(), FITS, vec![write(0, "a", LONG, None)]);
    let m = measure(0, &turn, &needles, &failed, Some(19), &r);
    assert_eq!((m.writes, m.failed_writes, m.bytes_written), (0, 1, 0));
    assert_eq!((m.recoverable_fields, m.path_visible), (0, (0, 0)));
    // A path the entry carries but the text does not name.
    request[0].persisted_output_files = Some(vec!["/elsewhere".into()]);
    let hidden = hand_record(request, FITS, vec![write(0, "a", LONG, Some("/elsewhere"))]);
    let m = measure(0, &turn, &needles, &hidden, Some(19), &r);
    assert_eq!((m.recoverable_fields, m.path_visible), (1, (0, 1)));
    // An entry that came with a producer's path: reused, recoverable without a write.
    let mut produced = turn.clone();
    produced[0].persisted_output_files = Some(vec!["/a".into()]);
    let m = measure(
        0,
        &produced,
        &needles,
        &shortened_record(FITS),
        Some(19),
        &r,
    );
    assert_eq!((m.reused_paths, m.recoverable_fields), (1, 1));
}

// Test-only finalizers, each breaking one thing the metrics must see.

/// Cuts every output longer than `head + tail + 5` UTF-16 units to its first `head` and last `tail` units the
/// way a UTF-16 runtime slicing naively and converting lossily would: a half pair becomes U+FFFD.
struct LossyUnits {
    head: usize,
    tail: usize,
}

impl Finalizer for LossyUnits {
    fn name(&self) -> &str {
        "lossy-units"
    }

    fn finalize(
        &self,
        mut batch: Vec<Entry>,
        _ctx: &BudgetContext,
        _store: &mut dyn crate::persist::ArtifactStore,
    ) -> crate::finalize::Outcome {
        for e in &mut batch {
            for part in &mut e.response_parts {
                let Some(text) = part.field_mut(Field::Output) else {
                    continue;
                };
                let units: Vec<u16> = text.encode_utf16().collect();
                if units.len() > self.head + self.tail + 5 {
                    *text = format!(
                        "{}\n...\n{}",
                        String::from_utf16_lossy(&units[..self.head]),
                        String::from_utf16_lossy(&units[units.len() - self.tail..])
                    );
                }
            }
        }
        crate::finalize::Outcome::unchanged(batch)
    }
}

/// Changes nothing: over budget, it leaves the send guard to cut what the model sees, after the transcript and
/// the tool-result record were taken.
struct Passthrough;

impl Finalizer for Passthrough {
    fn name(&self) -> &str {
        "passthrough"
    }

    fn finalize(
        &self,
        batch: Vec<Entry>,
        _ctx: &BudgetContext,
        _store: &mut dyn crate::persist::ArtifactStore,
    ) -> crate::finalize::Outcome {
        crate::finalize::Outcome::unchanged(batch)
    }
}

#[test]
fn a_cut_inside_surrogate_pairs_is_counted_as_broken() {
    // 100 emoji (200 units); a 7-unit head and a 9-unit tail each end inside a pair: 21 units, within budget,
    // so the send guard leaves the broken text alone.
    let turn = vec![entry("e", &"😀".repeat(100))];
    let lossy = LossyUnits { head: 7, tail: 9 };
    let m = run(&turn, &[], &lossy, 21, SimConfig::default());
    assert!(m.within_budget);
    assert_eq!(m.final_total, 21);
    assert_eq!(m.broken_surrogates, 2);
    // Cut at pair boundaries, the same finalizer breaks nothing; nor does the reference.
    let even = LossyUnits { head: 6, tail: 10 };
    assert_eq!(
        run(&turn, &[], &even, 21, SimConfig::default()).broken_surrogates,
        0
    );
    let reference = run(&turn, &[], &Reference::default(), 21, SimConfig::default());
    assert_eq!(reference.broken_surrogates, 0);
}

#[test]
fn a_model_request_that_differs_from_the_transcript_is_counted() {
    let turn = vec![entry("a", &"x".repeat(5000))];
    let m = run(&turn, &[], &Passthrough, 1000, SimConfig::default());
    // The send guard fitted the model request; the records kept the unbounded output.
    assert!(m.within_budget);
    assert!(m.records_differ);
    let m = run(
        &turn,
        &[],
        &Reference::default(),
        1000,
        SimConfig::default(),
    );
    assert!(!m.records_differ);
}

#[test]
fn integrity_counts_each_kind_of_change() {
    let reminder = PlanReminders::default().texts()[0].clone();
    let plan = |output: &str| {
        Entry::new(
            "p",
            "enter_plan_mode",
            vec![Part::function_response(
                "p",
                "enter_plan_mode",
                Some(json!(output)),
                None,
            )],
        )
    };
    let media = |data: &str| {
        Part(
            json!({"inlineData": {"mimeType": "image/png", "data": data}})
                .as_object()
                .unwrap()
                .clone(),
        )
    };
    let with_media = |name: &str, data: &str| {
        Entry::new(
            "b",
            "shell",
            vec![
                Part::function_response("b", name, Some(json!("out")), None),
                media(data),
            ],
        )
    };
    let input = vec![
        plan(&format!("{reminder}\n\nhook text")),
        with_media("shell", "AAAA"),
        entry("c", "third"),
        entry("d", "fourth"),
    ];
    // The model request: the reminder rewritten; entry d moved before b and stripped of its part; b's function
    // renamed and its image changed; c gone.
    let mut emptied = entry("d", "fourth");
    emptied.response_parts.clear();
    let mut record = hand_record(
        vec![
            plan("a reminder no longer"),
            emptied,
            with_media("renamed", "BBBB"),
        ],
        &[(Boundary::Producers, 100), (Boundary::ModelRequest, 50)],
        Vec::new(),
    );
    record.ordinals = vec![0, 3, 1];
    let m = measure(
        0,
        &input,
        &[],
        &record,
        Some(1000),
        &PlanReminders::default(),
    );
    assert_eq!(
        (
            m.reordered,
            m.dropped,
            m.media_changed,
            m.reminders_changed,
            m.non_budgeted_changed
        ),
        (1, 2, 1, 1, 1)
    );
    // The same turn, untouched.
    let same = hand_record(input.clone(), &[(Boundary::ModelRequest, 50)], Vec::new());
    let m = measure(0, &input, &[], &same, Some(1000), &PlanReminders::default());
    assert_eq!(
        (
            m.reordered,
            m.dropped,
            m.media_changed,
            m.reminders_changed,
            m.non_budgeted_changed
        ),
        (0, 0, 0, 0, 0)
    );
}

#[test]
fn an_entry_repeated_in_place_is_no_reordering() {
    let input = vec![entry("a", "one"), entry("b", "two"), entry("c", "three")];
    let mut record = hand_record(
        vec![
            entry("a", "one"),
            entry("b", "two"),
            entry("b", "two"),
            entry("c", "three"),
        ],
        &[(Boundary::ModelRequest, 14)],
        Vec::new(),
    );
    let reordered = |record: &TurnRecord| {
        let m = measure(
            0,
            &input,
            &[],
            record,
            Some(1000),
            &PlanReminders::default(),
        );
        (m.reordered, m.dropped)
    };
    record.ordinals = vec![0, 1, 1, 2];
    assert_eq!(reordered(&record), (0, 0));
    // Each step back is one reordering.
    record.ordinals = vec![1, 0, 2, 1];
    assert_eq!(reordered(&record), (2, 0));
}

pub(super) mod aggregate;

/// The places of `token` in `output` (entry 0), one used-token needle a place.
fn token_places(token: &str, output: &str) -> Vec<Needle> {
    output
        .match_indices(token)
        .map(|(at, _)| Needle {
            kind: NeedleKind::UsedToken,
            text: token.into(),
            entry: 0,
            part: 0,
            field: Field::Output,
            offset: utf16_len(&output[..at]),
        })
        .collect()
}

/// A used token survives when any kept part of its field still holds it, wherever its first place was: on a
/// long output that the reference cuts to its head and tail, a token at the head and one placed in the middle and
/// again at the tail survive, one only in the middle is lost, and no head-and-tail allocation could have kept it.
#[test]
fn a_used_token_survives_when_any_kept_part_of_its_field_holds_it() {
    let mut out = String::from("opened GammaHead.java\n");
    for i in 0..400 {
        if i == 200 {
            out.push_str("middle: BetaMiddle calls AlphaTwice here\n");
        }
        out.push_str(&format!(
            "progress line {i:05} of the build, compiling module number {i}\n"
        ));
    }
    out.push_str("done: AlphaTwice\nExit Code: 1");
    let turn = vec![entry("a", &out)];
    let mut needles = Vec::new();
    for token in ["GammaHead", "BetaMiddle", "AlphaTwice"] {
        needles.extend(token_places(token, &out));
    }
    assert_eq!(needles.len(), 4);
    let m = run(
        &turn,
        &needles,
        &Reference::default(),
        2000,
        SimConfig::default(),
    );
    assert!(m.within_budget);
    assert_eq!(
        (
            m.used_tokens,
            m.used_tokens_survived,
            m.used_tokens_upper_bound
        ),
        (3, 2, 2)
    );
    // Longer than the budget: the same figures over budget, with the result counted.
    assert_eq!(m.over_budget_results, 1);
    assert_eq!(
        (
            m.over_budget_used_tokens,
            m.over_budget_used_tokens_survived,
            m.over_budget_used_tokens_upper_bound
        ),
        (3, 2, 2)
    );
    // No used lines were given: the token figures are counted apart from them.
    assert_eq!((m.used_needles, m.used_survived), (0, 0));
    // Within the budget: every token kept, and nothing counted over budget.
    let m = run(
        &turn,
        &needles,
        &Reference::default(),
        100_000,
        SimConfig::default(),
    );
    assert_eq!(
        (
            m.used_tokens,
            m.used_tokens_survived,
            m.used_tokens_upper_bound
        ),
        (3, 3, 3)
    );
    assert_eq!((m.over_budget_results, m.over_budget_used_tokens), (0, 0));
}
