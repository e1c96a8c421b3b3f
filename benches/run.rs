//! The harness end to end: the default `budgetlab run --quick` (every shipped scenario through every strategy
//! at 12 batches each), in-process, from planning to the finished results and every report file's bytes (charts
//! and page included), without the final write to disk. The target is well under 60 s on 2 cores.

use criterion::{criterion_group, criterion_main, Criterion};

use budgetlab::run::PlanRequest;

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

criterion_group!(benches, run_quick);
criterion_main!(benches);
