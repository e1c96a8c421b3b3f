//! Token counting throughput: MB/s of text on one core, for each way budgetlab could count tokens, on the text
//! fields of the generator's scenarios. This is the bench the tokenizer crate was chosen by (the book's
//! Performance chapter, "Token counting"): `bpe-openai` (what `Tokenizer::builtin` uses), `tiktoken-rs` (a port of OpenAI's tiktoken core), and
//! budgetlab's own rank-file path (`--tokenizer FILE`: its pre-tokenizer and merge) loaded with the same
//! vocabulary. Every field is counted on its own, as `budgetlab tokens` does; the groups are `tokens_<scenario>`
//! and the functions `<implementation>/<encoding>`, so criterion's throughput is the MB/s per core.
//!
//! The one-time cost of each (unpacking the vocabulary, or reading and hashing the rank file) is printed before
//! the groups run.

use std::collections::BTreeMap;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use budgetlab::tokens::{write_rank_file, Encoding};
use budgetlab::{Field, Generator, Scenario, Tokenizer};

/// Scenarios whose text is measured, each up to about this many bytes of text fields.
const SCENARIOS: &[&str] = &[
    "mixed-realistic",
    "shell-heavy",
    "mcp-heavy",
    "surrogate-storm",
    "cjk-heavy",
];
const TEXT_BYTES: usize = 1 << 20;

/// The text fields of a scenario's first batches, about [`TEXT_BYTES`] of them.
fn texts(name: &str) -> Vec<String> {
    let g = Generator::new(&Scenario::shipped(name).expect("a shipped scenario"));
    let mut out = Vec::new();
    let mut bytes = 0;
    let mut i = 0;
    while bytes < TEXT_BYTES {
        for entry in g.batch(i).batch {
            for part in &entry.response_parts {
                for f in Field::ALL {
                    if let Some(t) = part.field(f) {
                        bytes += t.len();
                        out.push(t.to_string());
                    }
                }
            }
        }
        i += 1;
    }
    out
}

/// One way of counting the tokens of a text.
type Counter = Box<dyn Fn(&str) -> usize>;

fn timed<T>(what: &str, make: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let value = make();
    eprintln!("tokens bench: {what} ready in {:.0?}", start.elapsed());
    value
}

fn counters() -> Vec<(&'static str, Encoding, Counter)> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut out: Vec<(&'static str, Encoding, Counter)> = Vec::new();
    for e in Encoding::ALL {
        let builtin = timed(&format!("bpe-openai {}", e.as_str()), || {
            let t = Tokenizer::builtin(e);
            t.count("warm up");
            t
        });
        out.push(("bpe-openai", e, Box::new(move |s| builtin.count(s))));
        let tiktoken = timed(&format!("tiktoken-rs {}", e.as_str()), || match e {
            Encoding::O200kBase => tiktoken_rs::o200k_base(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
        })
        .expect("tiktoken-rs builds its encodings");
        out.push((
            "tiktoken-rs",
            e,
            Box::new(move |s| tiktoken.encode_ordinary(s).len()),
        ));
        let path = dir.path().join(format!("{}.tiktoken", e.as_str()));
        let mut file = Vec::new();
        write_rank_file(e, &mut file).expect("writing to memory");
        std::fs::write(&path, file).expect("a temporary file");
        let own = timed(&format!("rank-file {}", e.as_str()), || {
            Tokenizer::from_rank_file(&path, e.pattern()).expect("a valid rank file")
        });
        out.push(("rank-file", e, Box::new(move |s| own.count(s))));
    }
    out
}

fn tokens(c: &mut Criterion) {
    let counters = counters();
    for name in SCENARIOS {
        let texts = texts(name);
        let bytes: usize = texts.iter().map(String::len).sum();
        let mut group = c.benchmark_group(format!("tokens_{name}"));
        group.throughput(Throughput::Bytes(bytes as u64));
        group.sample_size(10);
        // All three count the same tokens, or the comparison would mean nothing.
        let mut by_encoding: BTreeMap<Encoding, usize> = BTreeMap::new();
        for (id, e, count) in &counters {
            let n: usize = texts.iter().map(|t| count(t)).sum();
            let first = *by_encoding.entry(*e).or_insert(n);
            assert_eq!(
                n,
                first,
                "{name}: {id} counts {n} {} tokens, another implementation {first}",
                e.as_str()
            );
        }
        for (id, e, count) in &counters {
            group.bench_function(BenchmarkId::new(*id, e.as_str()), |b| {
                b.iter(|| texts.iter().map(|t| count(t)).sum::<usize>())
            });
        }
        group.finish();
    }
}

criterion_group!(benches, tokens);
criterion_main!(benches);
