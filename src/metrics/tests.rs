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
    assert_eq!(m.mean_kept_share, 0.75);
    assert_eq!(m.min_kept_share, 0.5);
    assert_eq!(m.fairness, 0.9);
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

// Aggregation of known records into a row.

/// A batch of `fields` fields, all kept, within budget, nothing planted, written or broken.
fn quiet(batch: usize, fields: u64) -> BatchMetrics {
    BatchMetrics {
        batch,
        budget: Some(100),
        input_total: 50,
        final_total: 50,
        within_budget: true,
        overshoot: 0,
        violation_boundary: None,
        fields,
        shortened_fields: 0,
        original_units: 0,
        kept_units: 0,
        mean_kept_share: 1.0,
        min_kept_share: 1.0,
        fairness: 1.0,
        budget_used: None,
        first_line_kept: (0, 0),
        last_line_kept: (0, 0),
        path_visible: (0, 0),
        needles: BTreeMap::new(),
        needle_upper_bound: 0,
        writes: 0,
        bytes_written: 0,
        duplicate_writes: 0,
        failed_writes: 0,
        reused_paths: 0,
        recoverable_fields: 0,
        broken_surrogates: 0,
        reordered: 0,
        dropped: 0,
        media_changed: 0,
        reminders_changed: 0,
        non_budgeted_changed: 0,
        records_differ: false,
    }
}

fn over(mut m: BatchMetrics, overshoot: u64, boundary: Boundary) -> BatchMetrics {
    m.within_budget = false;
    m.overshoot = overshoot;
    m.final_total = 100 + overshoot;
    m.violation_boundary = Some(boundary);
    m
}

/// The row of `metrics` and `costs` for strategy `t` of scenario `s` at 100 units.
fn aggregate(metrics: &[BatchMetrics], costs: &[TurnCost]) -> Aggregate {
    let strategy = StrategyKey::from("t");
    let key = RowKey {
        scenario: "s",
        budget: BudgetLabel::Absolute(100),
        strategy: &strategy,
    };
    Aggregate::from_batches(key, Mode::Interactive, false, 100, metrics, costs)
}

fn planted(m: &mut BatchMetrics, kind: NeedleKind, planted: u64, survived: u64) {
    m.needles.insert(kind, NeedleCount { planted, survived });
}

/// Four batches whose every figure is chosen so that each aggregate has one right value.
fn four_batches() -> Vec<BatchMetrics> {
    let mut b0 = quiet(0, 2);
    b0.shortened_fields = 1;
    (b0.original_units, b0.kept_units) = (28, 15);
    (b0.mean_kept_share, b0.min_kept_share, b0.fairness) = (0.75, 0.5, 0.9);
    b0.budget_used = Some(1.0);
    (b0.first_line_kept, b0.last_line_kept, b0.path_visible) = ((1, 1), (1, 1), (1, 1));
    planted(&mut b0, NeedleKind::JsonKey, 1, 0);
    planted(&mut b0, NeedleKind::ExitInfo, 1, 1);
    planted(&mut b0, NeedleKind::SummaryLine, 1, 1);
    b0.needle_upper_bound = 2;
    (
        b0.writes,
        b0.bytes_written,
        b0.duplicate_writes,
        b0.failed_writes,
    ) = (2, 52, 1, 1);
    b0.recoverable_fields = 1;

    let mut b1 = quiet(1, 1);
    b1.shortened_fields = 1;
    (b1.original_units, b1.kept_units) = (10, 5);
    (b1.mean_kept_share, b1.min_kept_share) = (0.5, 0.5);
    (b1.first_line_kept, b1.last_line_kept) = ((0, 1), (1, 1));
    planted(&mut b1, NeedleKind::ExitInfo, 2, 1);
    b1.needle_upper_bound = 2;
    b1.reordered = 1;
    b1.records_differ = true;

    // No fields at all: its share of 1 must not weigh in the mean per field.
    let mut b2 = over(quiet(2, 0), 5, Boundary::Aggregation(Mode::Headless));
    b2.budget_used = Some(1.25);
    b2.media_changed = 1;

    let mut b3 = over(quiet(3, 1), 100, Boundary::Aggregation(Mode::Headless));
    b3.shortened_fields = 1;
    (b3.original_units, b3.kept_units) = (30, 0);
    (b3.mean_kept_share, b3.min_kept_share) = (0.0, 0.0);
    b3.budget_used = Some(0.5);
    (b3.first_line_kept, b3.last_line_kept, b3.path_visible) = ((0, 1), (0, 1), (1, 1));
    planted(&mut b3, NeedleKind::FirstError, 1, 0);
    b3.needle_upper_bound = 1;
    (b3.writes, b3.bytes_written, b3.failed_writes) = (1, 7, 2);
    (b3.reused_paths, b3.recoverable_fields) = (1, 1);
    (b3.broken_surrogates, b3.dropped, b3.non_budgeted_changed) = (2, 3, 1);
    b3.records_differ = true;
    vec![b0, b1, b2, b3]
}

/// Turn costs whose strategy time is the turn time and whose floor took `floors`.
fn costs(turns: &[u64], floors: &[u64]) -> Vec<TurnCost> {
    turns
        .iter()
        .zip(floors)
        .map(|(&turn_ns, &floor_ns)| TurnCost {
            turn_ns,
            strategy_ns: turn_ns,
            floor_ns,
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn a_row_aggregates_rates_means_and_percentiles_of_known_records() {
    let a = aggregate(&four_batches(), &costs(&[40, 10, 30, 20], &[20, 10, 10, 0]));
    assert_eq!(a.batches, 4);
    let c = &a.compliance;
    // Two of four batches over budget.
    assert_eq!((c.rate, c.violations), (0.5, 2));
    // Overshoots 0, 0, 5, 100: the nearest rank of 99% of 4 is the 4th.
    assert_eq!((c.max_overshoot, c.p99_overshoot), (100, 100));
    assert_eq!(
        c.violation_boundaries,
        BTreeMap::from([("headless-turn".to_string(), 2)])
    );

    let r = &a.retention;
    // Per field: 2 x 0.75 + 1 x 0.5 + 0 fields + 1 x 0.0 over 4 fields (not the batches' mean, 0.5625).
    assert_eq!(r.mean, 0.5);
    // Per unit: (15 + 5 + 0) of (28 + 10 + 30).
    assert_eq!(r.unit_share, 20.0 / 68.0);
    assert_eq!(r.min_share, 0.0);
    assert!(close(r.fairness, 3.9 / 4.0), "{}", r.fairness);
    // Only the three over-budget-input batches measured the budget used: (1 + 1.25 + 0.5) / 3.
    let used = r.budget_used.unwrap();
    assert!(close(used, 2.75 / 3.0), "{used}");
    assert_eq!(r.first_line, Some(1.0 / 3.0));
    assert_eq!(r.last_line, Some(2.0 / 3.0));
    assert_eq!(r.path_visibility, Some(1.0));

    let n = &a.needles;
    // 3 of 6 planted survived; the bound allows 5 of 6, so survival is 3/5 of the possible.
    assert_eq!(n.survival, 0.5);
    assert_eq!(n.upper_bound, 5.0 / 6.0);
    assert_eq!(n.of_possible, 0.6);
    let kinds: Vec<(&str, u64, u64, f64)> = n
        .by_kind
        .iter()
        .map(|(k, s)| (k.as_str(), s.planted, s.survived, s.rate))
        .collect();
    assert_eq!(
        kinds,
        [
            ("exit-info", 3, 2, 2.0 / 3.0),
            ("first-error", 1, 0, 0.0),
            ("json-key", 1, 0, 0.0),
            ("summary-line", 1, 1, 1.0),
        ]
    );

    let p = &a.persistence;
    assert_eq!(
        (
            p.writes,
            p.bytes,
            p.duplicate_writes,
            p.failed_writes,
            p.reused_paths
        ),
        (3, 59, 1, 3, 1)
    );
    // 2 recoverable of 3 shortened fields.
    assert_eq!(p.recoverable, Some(2.0 / 3.0));

    let i = &a.integrity;
    assert_eq!(
        (
            i.broken_surrogates,
            i.reordered,
            i.dropped,
            i.media_changed,
            i.reminders_changed,
            i.non_budgeted_changed,
            i.records_differ
        ),
        (2, 1, 3, 1, 0, 1, 2)
    );
    assert_eq!(i.total(), 10);
    // Costs 10, 20, 30, 40: the nearest-rank median is the 2nd, the 99th percentile the 4th.
    assert_eq!((a.cost.median_ns, a.cost.p99_ns), (20, 40));
    // Floors 20, 10, 10 and one too short to measure: ratios 2, 1, 3 (the unmeasured batch has none); the middle
    // half of three sorted ratios (none cut) averages 2. Floor times 0, 10, 10, 20: the median is the 2nd.
    assert_eq!(
        (a.cost.strategy_median_ns, a.cost.floor_median_ns),
        (20, 10)
    );
    assert_eq!(a.cost.floor_ratio, Some(2.0));
    assert_eq!(
        (a.scenario.as_str(), a.strategy.as_str(), a.budget_label),
        ("s", "t", BudgetLabel::Absolute(100))
    );
}

#[test]
fn compliance_rates_of_one_violation_in_n() {
    for n in [1usize, 2, 12, 60, 1000] {
        let mut batches: Vec<BatchMetrics> = (0..n).map(|i| quiet(i, 1)).collect();
        batches[n / 2] = over(quiet(n / 2, 1), 1, Boundary::SendGuard);
        let a = aggregate(&batches, &costs(&vec![1; n], &vec![1; n]));
        assert_eq!(a.compliance.violations, 1, "{n}");
        assert_eq!(a.compliance.rate, (n - 1) as f64 / n as f64, "{n}");
        assert_eq!(a.compliance.max_overshoot, 1);
        // The 99th percentile is the single overshoot only when a hundredth of the batches is at most one.
        assert_eq!(a.compliance.p99_overshoot, u64::from(n <= 100), "{n}");
    }
    let all = aggregate(&[quiet(0, 1), quiet(1, 1)], &costs(&[1, 1], &[1, 1]));
    assert_eq!((all.compliance.rate, all.compliance.violations), (1.0, 0));
}

#[test]
fn percentiles_are_nearest_rank_over_any_order() {
    let v: Vec<u64> = (1..=200).rev().collect();
    assert_eq!(percentile(&v, 99.0), 198);
    assert_eq!(percentile(&v, 50.0), 100);
    assert_eq!(percentile(&v, 0.0), 1);
    assert_eq!(percentile(&[5, 1, 3], 50.0), 3);
    assert_eq!(percentile(&[5, 1, 3, 4], 50.0), 3);
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
fn a_row_where_nothing_was_cut_has_null_not_perfect_figures() {
    // Two batches within budget, nothing shortened, no input over budget: nothing to measure these by.
    let batches = [quiet(0, 2), quiet(1, 3)];
    let a = aggregate(&batches, &costs(&[5, 6], &[1, 1]));
    assert_eq!(a.retention.budget_used, None);
    assert_eq!(a.retention.first_line, None);
    assert_eq!(a.retention.last_line, None);
    assert_eq!(a.retention.path_visibility, None);
    assert_eq!(a.persistence.recoverable, None);
    let json = serde_json::to_value(&a).unwrap();
    for field in ["budgetUsed", "firstLine", "lastLine", "pathVisibility"] {
        assert!(json["retention"][field].is_null(), "{field}");
    }
    assert!(json["persistence"]["recoverable"].is_null());
    // One shortened field without an artifact: first line and recoverable are measured, path visibility is not.
    let mut cut = quiet(2, 1);
    cut.shortened_fields = 1;
    cut.first_line_kept = (0, 1);
    let a = aggregate(&[cut], &costs(&[5], &[1]));
    assert_eq!(a.retention.first_line, Some(0.0));
    assert_eq!(a.persistence.recoverable, Some(0.0));
    assert_eq!(a.retention.path_visibility, None);
}

#[test]
fn summaries_merged_in_any_split_and_order_give_the_same_row() {
    let batches = four_batches();
    let c = costs(&[40, 10, 30, 20], &[20, 10, 10, 0]);
    let whole = aggregate(&batches, &c);
    let strategy = StrategyKey::from("t");
    let key = RowKey {
        scenario: "s",
        budget: BudgetLabel::Absolute(100),
        strategy: &strategy,
    };
    for split in [[0usize, 2], [1, 3], [3, 0]] {
        let mut parts = [RowSummary::default(), RowSummary::default()];
        // Batches in reverse order, split between two parts: every third batch index to part 1.
        for (i, (m, cost)) in batches.iter().zip(&c).enumerate().rev() {
            parts[usize::from(split.contains(&i))].add(m, *cost);
        }
        let mut merged = parts[1].clone();
        merged.merge(&parts[0]);
        let row = Aggregate::from_summary(key, Mode::Interactive, false, 100, merged);
        assert_eq!(row, whole, "{split:?}");
    }
}

#[test]
fn histogram_percentiles_are_exact_below_2048_and_within_a_thousandth_above() {
    let mut h = LogHistogram::default();
    for v in 1..=100u64 {
        h.add(v);
    }
    assert_eq!((h.percentile(50.0), h.percentile(99.0)), (50, 99));
    assert_eq!(LogHistogram::bucket(2047), 2047);
    assert_eq!(LogHistogram::bucket(2049), 2048);
    assert_eq!(LogHistogram::bucket(900_000), 899_584);
    for v in [2048u64, 3001, 65_537, 1 << 40, u64::MAX] {
        let b = LogHistogram::bucket(v);
        assert!(b <= v && (v - b) as f64 <= v as f64 / 1024.0, "{v} -> {b}");
        assert_eq!(LogHistogram::bucket(b), b);
    }
    // Interquartile mean of 1, 1, 1, 2, 3, 3, 3, 100: the middle half is 1, 2, 3, 3.
    let mut h = LogHistogram::default();
    for v in [1, 1, 1, 2, 3, 3, 3, 100] {
        h.add(v);
    }
    assert_eq!(h.interquartile_mean(), Some(2.25));
    assert_eq!(LogHistogram::default().interquartile_mean(), None);
    // Read back: only bucket starts, ascending, with counts.
    assert!(LogHistogram::from_buckets(&[(2049, 1)]).is_err());
    assert!(LogHistogram::from_buckets(&[(5, 1), (3, 1)]).is_err());
    assert!(LogHistogram::from_buckets(&[(5, 0)]).is_err());
    let json = serde_json::to_string(&h).unwrap();
    assert_eq!(json, "[[1,3],[2,1],[3,3],[100,1]]");
    assert_eq!(serde_json::from_str::<LogHistogram>(&json).unwrap(), h);
}
