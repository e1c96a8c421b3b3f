//! Generator throughput: bytes of generated text (text parts, string outputs and errors) per second, one
//! benchmark per shipped scenario. The target is at least 100 MB/s on one core for `mixed-realistic`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use budgetlab::{Generator, Scenario};

/// Batches generated per iteration.
const BATCHES: u64 = 16;

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    for scenario in Scenario::all_shipped() {
        let generator = Generator::new(&scenario);
        let bytes: u64 = (0..BATCHES)
            .map(|i| generator.batch(i).text_bytes() as u64)
            .sum();
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(BenchmarkId::new(scenario.name.clone(), BATCHES), |b| {
            b.iter(|| {
                (0..BATCHES)
                    .map(|i| std::hint::black_box(generator.batch(i)).batch.len())
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, generate);
criterion_main!(benches);
