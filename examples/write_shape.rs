//! Writes one of the fixed bench batch shapes as a batch JSON file, for timing or measuring `budgetlab finalize`
//! on it outside criterion (peak memory with `/usr/bin/time -v`, `--time N`).
//!
//! ```sh
//! cargo run --release --example write_shape -- c shape-c.json        # shape (c) at scale 1
//! cargo run --release --example write_shape -- a shape-a2.json 2     # shape (a) with every field doubled
//! ```
//! It prints the shape's budget, to pass to `budgetlab finalize --budget`.

use std::process::ExitCode;

use budgetlab::BenchShape;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!("usage: write_shape <a|b|c> <out.json> [scale]");
        return ExitCode::from(2);
    };
    let Some(shape) = BenchShape::named(name) else {
        eprintln!("write_shape: unknown shape {name:?} (a, b or c)");
        return ExitCode::from(2);
    };
    let scale = match args.get(2).map(|s| s.parse::<usize>()) {
        None => 1,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("write_shape: the scale must be a positive integer");
            return ExitCode::from(2);
        }
    };
    let batch = shape.batch(scale);
    let json = serde_json::to_vec(&batch).expect("a batch always serialises");
    if let Err(e) = std::fs::write(path, json) {
        eprintln!("write_shape: {path}: {e}");
        return ExitCode::from(2);
    }
    println!("{}", shape.budget);
    ExitCode::SUCCESS
}
