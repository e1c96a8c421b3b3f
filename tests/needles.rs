//! The needle detector on generated batches: on every shipped scenario it finds every needle the generator
//! planted (a detected needle of the same kind, in the same field, at the same offset, whose text starts with
//! the planted text: a detected needle is always a whole line, and `cjk-heavy` plants its log errors without
//! the `trace_id=...` that ends their line), and
//! what it finds beyond those is counted and printed (`cargo test --release --test integration needles --
//! --nocapture`).

use std::collections::BTreeMap;

use budgetlab::needles::detect_batch;
use budgetlab::{Generator, Needle, NeedleKind, Scenario};

/// Batches of each scenario the detector reads.
const BATCHES: u64 = 80;

/// Planted needles the detector missed, and the detected ones beyond the planted, by kind.
fn missed_and_beyond(
    planted: &[Needle],
    detected: &[Needle],
) -> (Vec<Needle>, BTreeMap<NeedleKind, usize>) {
    let same = |p: &Needle, d: &Needle| {
        (d.entry, d.part, d.field, d.kind, d.offset) == (p.entry, p.part, p.field, p.kind, p.offset)
            && d.text.starts_with(p.text.as_str())
    };
    let missed = planted
        .iter()
        .filter(|p| !detected.iter().any(|d| same(p, d)))
        .cloned()
        .collect();
    let mut beyond = BTreeMap::new();
    for d in detected
        .iter()
        .filter(|d| !planted.iter().any(|p| same(p, d)))
    {
        *beyond.entry(d.kind).or_default() += 1;
    }
    (missed, beyond)
}

#[test]
fn the_detector_finds_every_planted_needle_in_every_shipped_scenario() {
    let (mut all_planted, mut all_beyond) = (0usize, 0usize);
    let shipped = Scenario::all_shipped();
    for s in &shipped {
        let g = Generator::new(s);
        let mut planted = 0;
        let mut beyond: BTreeMap<NeedleKind, usize> = BTreeMap::new();
        for i in 0..BATCHES {
            let b = g.batch(i);
            let detected = detect_batch(&b.batch);
            let (missed, extra) = missed_and_beyond(&b.needles, &detected);
            assert!(
                missed.is_empty(),
                "{} batch {i}: missed {:?}",
                s.name,
                missed.iter().take(3).collect::<Vec<_>>()
            );
            planted += b.needles.len();
            for (k, n) in extra {
                *beyond.entry(k).or_default() += n;
            }
        }
        let extra: usize = beyond.values().sum();
        eprintln!(
            "{}: {planted} planted, all found; {extra} beyond {beyond:?}",
            s.name
        );
        all_planted += planted;
        all_beyond += extra;
    }
    eprintln!(
        "every shipped scenario, {BATCHES} batches each: {all_planted} planted, all found; {all_beyond} beyond"
    );
    assert!(shipped.len() >= 12, "{}", shipped.len());
    assert!(all_planted > 5_000, "{all_planted}");
}

#[test]
fn a_needle_the_detector_misses_is_reported() {
    // The comparison itself can fail: a planted needle one unit off, or of another kind, is missed.
    let s = Scenario::shipped("shell-heavy").unwrap();
    let b = Generator::new(&s).batch(0);
    let detected = detect_batch(&b.batch);
    let mut moved = b.needles.clone();
    moved[0].offset += 1;
    assert_eq!(missed_and_beyond(&moved, &detected).0, [moved[0].clone()]);
    let mut other = b.needles.clone();
    other[0].kind = match other[0].kind {
        NeedleKind::ExitInfo => NeedleKind::SummaryLine,
        _ => NeedleKind::ExitInfo,
    };
    assert_eq!(missed_and_beyond(&other, &detected).0, [other[0].clone()]);
    let (missed, beyond) = missed_and_beyond(&b.needles, &detected);
    assert!(missed.is_empty());
    assert_eq!(
        beyond.values().sum::<usize>(),
        detected.len() - b.needles.len()
    );
}
