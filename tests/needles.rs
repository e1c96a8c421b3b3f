//! The needle detector on generated batches: on every shipped scenario it finds every needle the generator
//! planted (a detected needle of the same kind, in the same field, starting where the planted one starts and
//! holding its text), and what it finds beyond those is counted.

use budgetlab::metrics::detect_batch;
use budgetlab::{Generator, Needle, Scenario};

/// Planted needles the detector missed, and the detected ones beyond the planted.
fn missed_and_beyond(planted: &[Needle], detected: &[Needle]) -> (Vec<Needle>, usize) {
    let found = |p: &Needle| {
        detected.iter().any(|d| {
            (d.entry, d.part, d.field, d.kind, d.offset) == (p.entry, p.part, p.field, p.kind, p.offset)
                && d.text.starts_with(p.text.as_str())
        })
    };
    let missed: Vec<Needle> = planted.iter().filter(|p| !found(p)).cloned().collect();
    let matched = planted.len() - missed.len();
    (missed, detected.len().saturating_sub(matched))
}

#[test]
fn the_detector_finds_every_planted_needle_in_every_shipped_scenario() {
    let mut total = (0usize, 0usize);
    for s in Scenario::all_shipped() {
        let g = Generator::new(&s);
        let (mut planted, mut beyond) = (0, 0);
        for i in 0..80 {
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
            beyond += extra;
        }
        eprintln!("{}: {planted} planted, all found; {beyond} beyond", s.name);
        total.0 += planted;
        total.1 += beyond;
    }
    assert!(total.0 > 1_000, "{total:?}");
}

#[test]
fn zz_debug_beyond() {
    use std::collections::BTreeMap;
    for name in ["surrogate-storm", "mixed-realistic", "many-small", "shell-heavy"] {
        let s = Scenario::shipped(name).unwrap();
        let g = Generator::new(&s);
        let mut samples: BTreeMap<String, usize> = BTreeMap::new();
        for i in 0..80 {
            let b = g.batch(i);
            let detected = detect_batch(&b.batch);
            for d in &detected {
                let planted = b.needles.iter().any(|p| (p.entry, p.part, p.field, p.offset) == (d.entry, d.part, d.field, d.offset));
                if !planted {
                    let t: String = d.text.chars().take(70).collect();
                    *samples.entry(format!("{:?} {}", d.kind, t)).or_default() += 1;
                }
            }
        }
        let mut v: Vec<_> = samples.into_iter().collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.1));
        eprintln!("== {name}");
        for (k, n) in v.iter().take(25) { eprintln!("{n:6} {k}"); }
    }
}
