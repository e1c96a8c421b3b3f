//! Aggregation of known per-batch records into a row: every figure of the row worked out by hand.

use super::*;

/// A batch of `fields` fields, all kept, within budget, nothing planted, written or broken.
pub(in crate::metrics) fn quiet(batch: usize, fields: u64) -> BatchMetrics {
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
        mean_kept_share: (fields > 0).then_some(1.0),
        min_kept_share: (fields > 0).then_some(1.0),
        fairness: (fields > 0).then_some(1.0),
        budget_used: None,
        first_line_kept: (0, 0),
        last_line_kept: (0, 0),
        path_visible: (0, 0),
        needles: BTreeMap::new(),
        needle_upper_bound: 0,
        records_differ: false,
        tokens: None,
        // Every row figure 0.
        ..BatchMetrics::default()
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
    (b0.mean_kept_share, b0.min_kept_share, b0.fairness) = (Some(0.75), Some(0.5), Some(0.9));
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
    (b1.mean_kept_share, b1.min_kept_share) = (Some(0.5), Some(0.5));
    (b1.first_line_kept, b1.last_line_kept) = ((0, 1), (1, 1));
    planted(&mut b1, NeedleKind::ExitInfo, 2, 1);
    b1.needle_upper_bound = 2;
    b1.reordered = 1;
    b1.records_differ = true;

    // No fields at all: nothing to weigh in the mean per field.
    let mut b2 = over(quiet(2, 0), 5, Boundary::Aggregation(Mode::Headless));
    b2.budget_used = Some(1.25);
    b2.media_changed = 1;

    let mut b3 = over(quiet(3, 1), 100, Boundary::Aggregation(Mode::Headless));
    b3.shortened_fields = 1;
    (b3.original_units, b3.kept_units) = (30, 0);
    (b3.mean_kept_share, b3.min_kept_share) = (Some(0.0), Some(0.0));
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
    assert_eq!(r.mean, Some(0.5));
    // Per unit: (15 + 5 + 0) of (28 + 10 + 30).
    assert_eq!(r.unit_share, 20.0 / 68.0);
    assert_eq!(r.min_share, Some(0.0));
    // Fairness over the batches with a field: the fieldless one is not counted as perfectly fair, so
    // (0.9 + 1 + 1) / 3, not (0.9 + 1 + 1 + 1) / 4.
    assert!(close(r.fairness.unwrap(), 2.9 / 3.0), "{:?}", r.fairness);
    // Only the three over-budget-input batches measured the budget used: (1 + 1.25 + 0.5) / 3.
    let used = r.budget_used.unwrap();
    assert!(close(used, 2.75 / 3.0), "{used}");
    assert_eq!(r.first_line, Some(1.0 / 3.0));
    assert_eq!(r.last_line, Some(2.0 / 3.0));
    assert_eq!(r.path_visibility, Some(1.0));

    let n = &a.needles;
    // 3 of 6 planted survived; the bound allows 5 of 6, so survival is 3/5 of the possible.
    assert_eq!(n.survival, Some(0.5));
    assert_eq!(n.upper_bound, Some(5.0 / 6.0));
    assert_eq!(n.of_possible, Some(0.6));
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
    // Floors 20, 10, 10 and one too short to measure: ratios 2, 1, 3 (the unmeasured batch has none), kept in
    // thousandths as their buckets' lowest values (1/32 of the value wide): 1,984, 992, 2,944; the middle half of
    // three sorted ratios (none cut) averages them. Floor times 0, 10, 10, 20: the median is the 2nd.
    assert_eq!(
        (a.cost.strategy_median_ns, a.cost.floor_median_ns),
        (20, 10)
    );
    assert_eq!(a.cost.floor_ratio, Some(5920.0 / 3.0 / 1000.0));
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
        let mut times = [CostTally::default(), CostTally::default()];
        // Batches in reverse order, split between two parts: the batches of `split` to part 1.
        for (i, (m, cost)) in batches.iter().zip(&c).enumerate().rev() {
            parts[usize::from(split.contains(&i))].add(m);
            times[usize::from(split.contains(&i))].add(*cost);
        }
        let mut merged = parts[1].clone();
        merged.merge(&parts[0]);
        let mut cost = times[1].clone();
        cost.merge(&times[0]);
        let row = Aggregate::from_summary(key, Mode::Interactive, false, 100, merged, cost, None);
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

#[test]
fn time_histograms_are_exact_below_64_and_within_a_thirty_second_above() {
    assert_eq!(TimeHistogram::bucket(63), 63);
    assert_eq!(TimeHistogram::bucket(65), 64);
    assert_eq!(TimeHistogram::bucket(127), 126);
    assert_eq!(TimeHistogram::bucket(3_000), 2_944);
    for v in [64u64, 99, 3_001, 65_537, 1 << 40, u64::MAX] {
        let b = TimeHistogram::bucket(v);
        assert!(b <= v && (v - b) as f64 <= v as f64 / 32.0, "{v} -> {b}");
        assert!(v - b >= (v - LogHistogram::bucket(v)), "{v}");
        assert_eq!(TimeHistogram::bucket(b), b);
    }
    // Twenty powers of two of nanoseconds (1 µs to 1 s, one value every 0.1%) fill at most 32 buckets each.
    let mut h = TimeHistogram::default();
    let mut v = 1_000f64;
    while v < 1e9 {
        h.add(v as u64);
        v *= 1.001;
    }
    let pairs: Vec<(u64, u64)> = h.buckets().collect();
    assert!(pairs.len() <= 20 * 32 + 1, "{}", pairs.len());
    // The buckets are the histogram: their counts add up to its values, and they build it back.
    assert_eq!(pairs.iter().map(|&(_, n)| n).sum::<u64>(), h.count());
    assert_eq!(TimeHistogram::from_buckets(&pairs).unwrap(), h);
    // A 3-significant-digit bucket start need not be a time bucket's start: a file with one is refused.
    assert!(TimeHistogram::from_buckets(&[(2_049, 1)]).is_err());
    assert!(TimeHistogram::from_buckets(&[(2_048, 1)]).is_ok());
}

#[test]
fn a_row_without_fields_or_needles_has_null_retention_and_survival() {
    // Two turns with no field and nothing planted: no retention, fairness or survival to measure.
    let a = aggregate(&[quiet(0, 0), quiet(1, 0)], &costs(&[5, 6], &[1, 1]));
    let r = &a.retention;
    assert_eq!((r.mean, r.min_share, r.fairness), (None, None, None));
    let n = &a.needles;
    assert_eq!(
        (n.survival, n.upper_bound, n.of_possible),
        (None, None, None)
    );
    let json = serde_json::to_value(&a).unwrap();
    for field in ["mean", "minShare", "fairness"] {
        assert!(json["retention"][field].is_null(), "{field}");
    }
    for field in ["survival", "upperBound", "ofPossible"] {
        assert!(json["needles"][field].is_null(), "{field}");
    }
    // A turn without a field does not count as perfectly fair: fairness is the mean over turns with a field.
    let mut unfair = quiet(2, 2);
    (
        unfair.mean_kept_share,
        unfair.min_kept_share,
        unfair.fairness,
    ) = (Some(0.5), Some(0.25), Some(0.5));
    let a = aggregate(&[quiet(0, 0), unfair], &costs(&[5, 6], &[1, 1]));
    assert_eq!(a.retention.fairness, Some(0.5));
    assert_eq!(a.retention.min_share, Some(0.25));
    assert_eq!(a.retention.mean, Some(0.5));
    // Needles planted but none could have survived: survival and its bound are 0, of the possible is null.
    let mut hopeless = quiet(0, 1);
    planted(&mut hopeless, NeedleKind::ExitInfo, 2, 0);
    let a = aggregate(&[hopeless], &costs(&[5], &[1]));
    let n = &a.needles;
    assert_eq!(
        (n.survival, n.upper_bound, n.of_possible),
        (Some(0.0), Some(0.0), None)
    );
}

#[test]
fn the_integrity_total_adds_every_count() {
    // Powers of two: a count left out or taken away shows in the sum.
    let i = IntegritySummary {
        broken_surrogates: 1,
        reordered: 2,
        dropped: 4,
        media_changed: 8,
        reminders_changed: 16,
        non_budgeted_changed: 32,
        records_differ: 64,
    };
    assert_eq!(i.total(), 127);
}

#[test]
fn each_metric_reads_its_own_figure_of_the_row() {
    let a = aggregate(&four_batches(), &costs(&[40, 10, 30, 20], &[20, 10, 10, 0]));
    let values: Vec<Option<f64>> = crate::metrics::Metric::all()
        .iter()
        .map(|m| m.value(&a))
        .collect();
    // Compliance 2 of 4, retention and survival a half (worked out above), 3 writes, the floor ratio, the
    // median turn of 20 ns.
    assert_eq!(
        values,
        [
            Some(0.5),
            Some(0.5),
            Some(0.5),
            Some(3.0),
            Some(5920.0 / 3.0 / 1000.0),
            Some(20.0)
        ]
    );
    // A row with nothing to measure retention or survival by has no value for them.
    let quiet = aggregate(&[quiet(0, 0)], &costs(&[10], &[0]));
    assert_eq!(crate::metrics::Metric::Retention.value(&quiet), None);
    assert_eq!(crate::metrics::Metric::Needles.value(&quiet), None);
}
