//! UTF-16 measurement against the fastest possible byte pass over the same text: `memchr` looking for a byte
//! that never occurs (a pure scan, SIMD with run-time CPU detection). `utf16_len` is a byte-level count, not a
//! decode, and must run at that speed where memory is the limit.
//!
//! The byte searches the metrics run on every field of every turn are held to the same pass: `contains` (a needle
//! that never occurs, so every byte is searched) and `count_matches` of U+FFFD (the replacement characters the
//! surrogate check counts).
//!
//! Group `text_scan`, with ids `<function>/<input>`: ASCII logs (shape c's outputs) and mixed ASCII, CJK and
//! emoji (shape b's outputs), each in L1 (64 KiB), in L2 (1 MiB) and from memory (128 MiB, four times this
//! machine's L3), the longer inputs made by repeating the shape's text.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use budgetlab::text::{contains, count_matches, head_bytes};
use budgetlab::{utf16_len, BenchShape, Field};

/// Input sizes: in L1, in L2, from memory.
const SIZES: [(&str, usize); 3] = [
    ("64KiB", 64 << 10),
    ("1MiB", 1 << 20),
    ("128MiB", 128 << 20),
];

/// The output texts of `shape` at scale 1, repeated until they are at least `bytes` long, then cut to at most
/// `bytes` on a character boundary.
fn shape_text(shape: BenchShape, bytes: usize) -> String {
    let once: String = shape
        .batch(1)
        .iter()
        .flat_map(|e| &e.response_parts)
        .filter_map(|p| p.field(Field::Output))
        .collect();
    let text = once.repeat(bytes.div_ceil(once.len()));
    head_bytes(&text, bytes).to_string()
}

fn text_scan(c: &mut Criterion) {
    let largest = SIZES[SIZES.len() - 1].1;
    let ascii = shape_text(BenchShape::C, largest);
    let mixed = shape_text(BenchShape::B, largest);
    let mut inputs = Vec::new();
    for (kind, text) in [("ascii", &ascii), ("mixed", &mixed)] {
        for (size, bytes) in SIZES {
            inputs.push((format!("{kind}-{size}"), head_bytes(text, bytes)));
        }
    }
    let mut group = c.benchmark_group("text_scan");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (name, text) in &inputs {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("utf16_len", name), *text, |b, t| {
            b.iter(|| utf16_len(t))
        });
        group.bench_with_input(BenchmarkId::new("contains", name), *text, |b, t| {
            // A needle of ordinary log words that no input holds: the whole text is searched.
            b.iter(|| contains(t, "needle-never-planted: exit 42"))
        });
        group.bench_with_input(BenchmarkId::new("count_fffd", name), *text, |b, t| {
            b.iter(|| count_matches(t, "\u{FFFD}"))
        });
        group.bench_with_input(BenchmarkId::new("memchr", name), *text, |b, t| {
            // No text field holds a NUL byte, so this scans every byte.
            b.iter(|| memchr::memchr(0, t.as_bytes()))
        });
    }
    group.finish();
}

criterion_group!(benches, text_scan);
criterion_main!(benches);
