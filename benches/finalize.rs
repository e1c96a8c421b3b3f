//! Finalizer cost: every strategy, and the cost floor, on the fixed bench shapes and on a fixed set of
//! mixed-realistic batches, with throughput in bytes of text.
//!
//! Groups `finalize_a`, `finalize_b`, `finalize_c` (see [`BenchShape`]) and `finalize_mixed` each hold one
//! function per strategy name plus `floor`, so criterion writes
//! `target/criterion/finalize_a/reference/new/estimates.json` and
//! `target/criterion/finalize_a/floor/new/estimates.json`; `scripts/bench-ratios.sh` turns them into ratios to
//! the floor. Groups `linearity_a`, `linearity_b` and `linearity_c` run the reference and the floor at scale 1
//! and 2 (every field doubled, the budget kept) to check that the cost is linear in the input. Group
//! `duplicate_ids` runs the reference on 20,000 entries of 200-unit outputs at a budget of 1,000, once with
//! every call id `d` and once with distinct ids: every entry is persisted, so the same-id batch needs 20,000
//! suffixed persistence ids, and its cost should stay within 2x of the distinct one.
//!
//! Every finalization gets its own copy of the batch and a fresh in-memory backend from `iter_batched`, so
//! neither the copy nor dropping the outcome is timed.
//!
//! The finalize groups run on rayon's global pool (one thread per core), so a finalization that cuts many bytes
//! hashes them on all cores while `floor` stays on one: `reference / floor` on shape c is the ratio to the
//! one-core floor. Group `threads_c` runs the reference on shape c in a pool of one thread and in a pool of one
//! per core, beside the floor. Group `digest_split` hashes 8 equal fields of 64 KiB to 4 MiB in total one after
//! the other (`one-core`) and on all cores (`all-cores`): where the second starts to win is where
//! `PARALLEL_DIGEST_BYTES` sits.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BatchSize, Bencher, BenchmarkGroup, BenchmarkId, Criterion,
    Throughput,
};

use budgetlab::digest::{sha256_each, sha256_each_on_all_cores};
use budgetlab::{
    floor, Batch, BenchShape, Budget, BudgetContext, CallContext, Entry, Field, Finalizer,
    Generator, MemoryStore, Outcome, Part, Scenario, StrategyName, TurnContext,
};

/// The artifact directory the in-memory backend reports paths under.
const ARTIFACT_DIR: &str = "tool-results";

/// Batches of the default scenario in `finalize_mixed`: batches `0..MIXED_BATCHES` of `mixed-realistic`.
const MIXED_BATCHES: u64 = 64;

/// The budget of `finalize_mixed`: the tightest absolute budget `mixed-realistic` runs at.
const MIXED_BUDGET: u64 = 20_000;

/// UTF-8 bytes of the text fields of `batches`.
fn text_bytes(batches: &[Batch]) -> u64 {
    batches
        .iter()
        .flatten()
        .flat_map(|e| &e.response_parts)
        .flat_map(|p| Field::ALL.into_iter().filter_map(move |f| p.field(f)))
        .map(|t| t.len() as u64)
        .sum()
}

/// Short measurement windows: a full run of every group stays within minutes on two cores.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
}

/// A routine finalizing every batch of `batches` with its own copy and a fresh backend; only the finalization
/// is timed.
fn finalizing<'a>(
    finalizer: &'a dyn Finalizer,
    batches: &'a [Batch],
    ctx: &'a BudgetContext,
) -> impl FnMut(&mut Bencher<'_, WallTime>) + 'a {
    move |b| {
        b.iter_batched(
            || {
                batches
                    .iter()
                    .map(|batch| (batch.clone(), MemoryStore::new(ARTIFACT_DIR)))
                    .collect::<Vec<_>>()
            },
            |inputs| {
                inputs
                    .into_iter()
                    .map(|(batch, mut store)| {
                        let outcome: Outcome = finalizer.finalize(batch, ctx, &mut store);
                        (outcome, store)
                    })
                    .collect::<Vec<_>>()
            },
            BatchSize::PerIteration,
        )
    }
}

/// A routine running the floor on every batch of `batches` (it only reads them, so nothing is copied).
fn flooring(batches: &[Batch], budget: u64) -> impl FnMut(&mut Bencher<'_, WallTime>) + '_ {
    move |b| {
        b.iter(|| {
            batches
                .iter()
                .map(|batch| floor(batch, budget))
                .collect::<Vec<_>>()
        })
    }
}

/// One group: every strategy and the floor on `batches` at `budget`.
fn strategies_and_floor(c: &mut Criterion, name: &str, batches: &[Batch], budget: u64) {
    let ctx = BudgetContext::new(Budget::Units(budget as i64));
    let mut group = c.benchmark_group(name);
    configure(&mut group);
    group.throughput(Throughput::Bytes(text_bytes(batches)));
    for strategy in StrategyName::all() {
        let finalizer = strategy.build();
        group.bench_function(
            strategy.as_str(),
            finalizing(finalizer.as_ref(), batches, &ctx),
        );
    }
    group.bench_function("floor", flooring(batches, budget));
    group.finish();
}

fn finalize_shapes(c: &mut Criterion) {
    for shape in BenchShape::ALL {
        let batch = shape.batch(1);
        let name = format!("finalize_{}", shape.name);
        strategies_and_floor(c, &name, std::slice::from_ref(&batch), shape.budget);
    }
}

fn finalize_mixed(c: &mut Criterion) {
    let scenario = Scenario::shipped("mixed-realistic").expect("the default scenario is shipped");
    let generator = Generator::new(&scenario);
    let batches: Vec<Batch> = (0..MIXED_BATCHES)
        .map(|i| generator.batch(i).batch)
        .collect();
    strategies_and_floor(c, "finalize_mixed", &batches, MIXED_BUDGET);
}

fn linearity(c: &mut Criterion) {
    let reference = StrategyName::REFERENCE.build();
    for shape in BenchShape::ALL {
        let ctx = BudgetContext::new(Budget::Units(shape.budget as i64));
        let mut group = c.benchmark_group(format!("linearity_{}", shape.name));
        configure(&mut group);
        for scale in [1usize, 2] {
            let batches = [shape.batch(scale)];
            group.throughput(Throughput::Bytes(text_bytes(&batches)));
            group.bench_function(
                BenchmarkId::new("reference", scale),
                finalizing(reference.as_ref(), &batches, &ctx),
            );
            group.bench_function(
                BenchmarkId::new("floor", scale),
                flooring(&batches, shape.budget),
            );
        }
        group.finish();
    }
}

/// Entries and output length of the `duplicate_ids` batches, and their budget.
const DUPLICATE_ENTRIES: usize = 20_000;
const DUPLICATE_OUTPUT_UNITS: usize = 200;
const DUPLICATE_BUDGET: u64 = 1_000;

/// `DUPLICATE_ENTRIES` shell entries of `DUPLICATE_OUTPUT_UNITS` ASCII units, each with the call id `id(i)`.
fn entries_with_ids(id: impl Fn(usize) -> String) -> Batch {
    let output: String = "0123456789abcdef\n"
        .chars()
        .cycle()
        .take(DUPLICATE_OUTPUT_UNITS)
        .collect();
    (0..DUPLICATE_ENTRIES)
        .map(|i| {
            let call_id = id(i);
            let part = Part::function_response(
                &call_id,
                "shell",
                Some(serde_json::Value::String(output.clone())),
                None,
            );
            Entry::new(call_id, "shell", vec![part])
        })
        .collect()
}

fn duplicate_ids(c: &mut Criterion) {
    let ctx = BudgetContext::new(Budget::Units(DUPLICATE_BUDGET as i64));
    let reference = StrategyName::REFERENCE.build();
    let mut group = c.benchmark_group("duplicate_ids");
    configure(&mut group);
    for (name, batch) in [
        ("same-id", entries_with_ids(|_| "d".to_string())),
        ("distinct-ids", entries_with_ids(|i| format!("call-{i}"))),
    ] {
        let batches = [batch];
        group.throughput(Throughput::Bytes(text_bytes(&batches)));
        group.bench_function(name, finalizing(reference.as_ref(), &batches, &ctx));
    }
    group.finish();
}

/// Total bytes of the `digest_split` inputs, each split into `DIGEST_FIELDS` equal fields.
const DIGEST_TOTALS: [usize; 6] = [64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 4 << 20];
const DIGEST_FIELDS: usize = 8;

fn digest_split(c: &mut Criterion) {
    let mut group = c.benchmark_group("digest_split");
    configure(&mut group);
    for total in DIGEST_TOTALS {
        let fields: Vec<String> = (0..DIGEST_FIELDS)
            .map(|i| {
                let line = format!("line {i} of a log\n");
                line.repeat(total / DIGEST_FIELDS / line.len() + 1)[..total / DIGEST_FIELDS]
                    .to_string()
            })
            .collect();
        let texts: Vec<&str> = fields.iter().map(String::as_str).collect();
        let kib = format!("{}KiB", total >> 10);
        group.throughput(Throughput::Bytes(total as u64));
        group.bench_function(BenchmarkId::new("one-core", &kib), |b| {
            b.iter(|| sha256_each(&texts))
        });
        group.bench_function(BenchmarkId::new("all-cores", &kib), |b| {
            b.iter(|| sha256_each_on_all_cores(&texts))
        });
    }
    group.finish();
}

/// The strategies of `content_aware`: the reference first, then the content-aware ones.
const CONTENT_AWARE: [&str; 4] = ["reference", "relevance", "rarity", "structure"];

/// A turn context for `batch`: a task, an assistant's text and one call per entry asking for line 400.
fn turn_of(batch: &Batch) -> TurnContext {
    TurnContext {
        task: Some(
            "The build fails with an error in the test runner; fix the failing test.".into(),
        ),
        calls: batch
            .iter()
            .map(|e| CallContext {
                call_id: e.call_id.clone(),
                name: e.tool_name.clone(),
                arguments: "open src/main/java/Runner.java 400".into(),
            })
            .collect(),
        assistant: Some("Let me look at the error and the test summary.".into()),
    }
}

fn content_aware(c: &mut Criterion) {
    let mut group = c.benchmark_group("content_aware");
    configure(&mut group);
    for shape in BenchShape::ALL {
        let batches = [shape.batch(1)];
        let mut ctx = BudgetContext::new(Budget::Units(shape.budget as i64));
        ctx.turn = Some(std::sync::Arc::new(turn_of(&batches[0])));
        group.throughput(Throughput::Bytes(text_bytes(&batches)));
        for name in CONTENT_AWARE {
            let finalizer = name
                .parse::<StrategyName>()
                .expect("a registered strategy")
                .build();
            group.bench_function(
                BenchmarkId::new(name, shape.name),
                finalizing(finalizer.as_ref(), &batches, &ctx),
            );
        }
    }
    group.finish();
}

fn threads_c(c: &mut Criterion) {
    let shape = BenchShape::C;
    let batches = [shape.batch(1)];
    let ctx = BudgetContext::new(Budget::Units(shape.budget as i64));
    let reference = StrategyName::REFERENCE.build();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut group = c.benchmark_group("threads_c");
    configure(&mut group);
    group.throughput(Throughput::Bytes(text_bytes(&batches)));
    for threads in [1, cores.max(2)] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let mut routine = finalizing(reference.as_ref(), &batches, &ctx);
        group.bench_function(BenchmarkId::new("reference", threads), |b| {
            pool.install(|| routine(b))
        });
    }
    group.bench_function("floor", flooring(&batches, shape.budget));
    group.finish();
}

criterion_group!(
    benches,
    finalize_shapes,
    content_aware,
    threads_c,
    digest_split,
    finalize_mixed,
    linearity,
    duplicate_ids
);
criterion_main!(benches);
