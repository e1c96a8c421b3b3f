//! Prints how `budgetlab history check` finds cost regressions: simulated histories of 60 nights of a row's cost
//! over the floor, log-normal noise of the spreads measured on this machine (the median, 90th percentile and
//! largest of 820 rows' spread over ten `budgetlab run --quick`), regressions of 1.2x, 1.5x and 2x injected on
//! night 31; the detection delay and the false alarms per 100 nights (the README's table).
//!
//! ```sh
//! cargo run --release --example history_detection             # the README's table
//! cargo run --release --example history_detection -- 0.05     # another spread
//! ```

use std::process::ExitCode;

use budgetlab::history::measure::{markdown, measure, Simulation};
use budgetlab::history::RankTest;
use budgetlab::Seed;

/// The log-space spreads of a row's cost over the floor measured on this machine: median, 90th percentile and
/// largest of 820 rows, ten `budgetlab run --quick` each.
const MEASURED: [f64; 3] = [0.018, 0.045, 0.18];

fn main() -> ExitCode {
    let mut sigmas = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.parse::<f64>() {
            Ok(s) if s > 0.0 && s < 5.0 => sigmas.push(s),
            _ => {
                eprintln!("history_detection: a spread is a number between 0 and 5, not {arg:?}");
                return ExitCode::from(2);
            }
        }
    }
    if sigmas.is_empty() {
        sigmas = MEASURED.to_vec();
    }
    let test = RankTest::default_test();
    for sigma in sigmas {
        let sim = Simulation {
            nights: 60,
            change_at: 30,
            histories: 500,
            sigma,
            seed: Seed(1),
        };
        println!(
            "{}",
            markdown(&test, &measure(&test, &sim, &[1.2, 1.5, 2.0]))
        );
    }
    ExitCode::SUCCESS
}
