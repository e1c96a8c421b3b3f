//! Writes a built-in encoding's vocabulary as a tiktoken rank file (`base64 token`, space, rank, one a line),
//! byte for byte the file OpenAI publishes, so that the reference tokenizer (`tests/oracle/tiktoken_counts.py`)
//! and `budgetlab tokens --tokenizer FILE` can load the very vocabulary budgetlab embeds.
//!
//! ```sh
//! cargo run --release --example write_rank_file -- o200k_base o200k_base.tiktoken
//! sha256sum o200k_base.tiktoken   # 446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d, OpenAI's
//! ```

use std::io::Write;
use std::process::ExitCode;

use budgetlab::tokens::{write_rank_file, Encoding};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!("usage: write_rank_file <o200k_base|cl100k_base> <out.tiktoken>");
        return ExitCode::from(2);
    };
    let encoding: Encoding = match name.parse() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("write_rank_file: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = Vec::new();
    write_rank_file(encoding, &mut out).expect("writing to memory");
    match std::fs::File::create(path).and_then(|mut f| f.write_all(&out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("write_rank_file: {path}: {e}");
            ExitCode::from(2)
        }
    }
}
