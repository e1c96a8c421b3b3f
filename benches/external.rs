//! The cost of running a strategy as an external program: budgetlab's own reference behind the protocol
//! (`budgetlab finalize --serve --strategy reference`, one child kept for the whole bench) beside the built-in
//! reference, on the batches of `finalize_mixed` (batches `0..64` of `mixed-realistic` at a budget of 20,000)
//! and on an empty batch (the protocol's round trip alone).
//!
//! Group `external_mixed` has functions `reference` and `serve`, each finalizing all 64 batches per iteration,
//! so `(serve - reference) / 64` is the overhead per turn; group `external_empty` times one empty batch each.
//! The child is the `budgetlab` binary cargo builds beside this bench.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BatchSize, Bencher, BenchmarkGroup, Criterion, Throughput,
};

use budgetlab::finalize::Reference;
use budgetlab::{
    Batch, Budget, BudgetContext, ExternalFinalizer, ExternalOptions, Field, Finalizer, Generator,
    MemoryStore, Outcome, Scenario,
};

/// The artifact directory the in-memory backend reports paths under.
const ARTIFACT_DIR: &str = "tool-results";

/// Batches `0..MIXED_BATCHES` of `mixed-realistic`, as in `finalize_mixed`.
const MIXED_BATCHES: u64 = 64;

/// The budget of `finalize_mixed`.
const MIXED_BUDGET: i64 = 20_000;

/// The budgetlab binary cargo built for this bench.
const BIN: &str = env!("CARGO_BIN_EXE_budgetlab");

fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
}

/// budgetlab's reference behind the protocol, its child started before timing begins.
fn self_serve(logs: &std::path::Path) -> ExternalFinalizer {
    let strategy = format!("serve='{BIN}' finalize --serve --strategy reference")
        .parse()
        .expect("a valid --external");
    let finalizer = ExternalFinalizer::new(strategy, ExternalOptions::new(logs));
    finalizer
        .start()
        .unwrap_or_else(|e| panic!("cannot start {BIN} finalize --serve: {e}"));
    finalizer
}

fn text_bytes(batches: &[Batch]) -> u64 {
    batches
        .iter()
        .flatten()
        .flat_map(|e| &e.response_parts)
        .flat_map(|p| Field::ALL.into_iter().filter_map(move |f| p.field(f)))
        .map(|t| t.len() as u64)
        .sum()
}

/// Finalizes every batch with its own copy and a fresh backend; only the finalization is timed.
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

fn external(c: &mut Criterion) {
    let logs = tempfile::tempdir().expect("a temporary folder");
    let serve = self_serve(logs.path());
    let reference = Reference::default();
    let ctx = BudgetContext::new(Budget::Units(MIXED_BUDGET));

    let scenario = Scenario::shipped("mixed-realistic").expect("the default scenario is shipped");
    let generator = Generator::new(&scenario);
    let batches: Vec<Batch> = (0..MIXED_BATCHES)
        .map(|i| generator.batch(i).batch)
        .collect();
    let mut group = c.benchmark_group("external_mixed");
    configure(&mut group);
    group.throughput(Throughput::Bytes(text_bytes(&batches)));
    group.bench_function("reference", finalizing(&reference, &batches, &ctx));
    group.bench_function("serve", finalizing(&serve, &batches, &ctx));
    group.finish();

    let empty = [Batch::new()];
    let mut group = c.benchmark_group("external_empty");
    configure(&mut group);
    group.bench_function("reference", finalizing(&reference, &empty, &ctx));
    group.bench_function("serve", finalizing(&serve, &empty, &ctx));
    group.finish();

    if let Err(e) = serve.check() {
        panic!("the served reference failed during the bench: {e}");
    }
}

criterion_group!(benches, external);
criterion_main!(benches);
