//! budgetlab's integration tests: one module per topic, in two binaries. This one holds what runs in a minute
//! (the loop: `cargo test --test integration`); `tests/slow.rs` holds the slow and tool-dependent ones. `cargo
//! test` runs both, and CI runs everything.

mod allocations;
mod architecture;
mod behaviours;
mod careful;
mod cli;
mod conform;
mod exports;
mod feedback;
mod gate;
mod gate_output;
mod gate_rules;
mod generate;
mod history;
mod hostile;
mod import;
mod needles;
mod outputs;
mod profile;
mod properties;
mod real_shape;
mod report;
mod scenarios;
mod strategies;
mod streaming;
mod support;
mod texture;
mod token_commands;
mod token_runs;
mod tokens;
mod tune;
mod vectors;
