//! The harness end to end: the default `budgetlab run --quick` (every shipped scenario through every strategy
//! at 12 batches each), in-process, from planning to the finished results and every report file's bytes (charts
//! and page included), without the final write to disk. The target is well under 60 s on 2 cores.
//!
//! Group `run_floor` runs one plan (`mixed-realistic`, [`FLOOR_BATCHES`] batches, every strategy) as `run` (the
//! simulation and the records, no report) and as `floor` ([`budgetlab::run::RunPlan::run_floor`], the least work
//! any run of the plan must do: each field measured at every boundary it passes and each text the allocation cuts
//! hashed once a batch), each in a pool of one thread and of one per core, so that `scripts/bench-ratios.py`
//! prints run / floor, and each per turn (the group's throughput is the plan's turns).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use budgetlab::run::{PlanRequest, Workloads};
use criterion::BenchmarkId;

/// Batches of `mixed-realistic` in group `run_floor`.
const FLOOR_BATCHES: u64 = 24;

fn run_quick(c: &mut Criterion) {
    let mut group = c.benchmark_group("run");
    group.sample_size(10);
    let request = PlanRequest {
        quick: true,
        ..PlanRequest::default()
    };
    group.bench_function("quick", |b| {
        b.iter(|| {
            let plan = request.plan().expect("the shipped scenarios plan");
            let output = plan.run(&|_| {});
            std::hint::black_box(budgetlab::report::render_files(&output).expect("report renders"))
        })
    });
    group.finish();
}

fn run_floor(c: &mut Criterion) {
    let mut group = c.benchmark_group("run_floor");
    group.sample_size(10);
    let plan = PlanRequest {
        workloads: Workloads::Scenarios(vec!["mixed-realistic".into()]),
        batches: Some(FLOOR_BATCHES),
        ..PlanRequest::default()
    }
    .plan()
    .expect("the default scenario plans");
    group.throughput(Throughput::Elements(plan.run_floor().turns));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for threads in [1, cores.max(2)] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        group.bench_function(BenchmarkId::new("run", threads), |b| {
            b.iter(|| pool.install(|| std::hint::black_box(plan.run(&|_| {}))))
        });
        group.bench_function(BenchmarkId::new("floor", threads), |b| {
            b.iter(|| pool.install(|| std::hint::black_box(plan.run_floor())))
        });
    }
    group.finish();
}

criterion_group!(benches, run_quick, run_floor);
criterion_main!(benches);
