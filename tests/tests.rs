//! budgetlab's integration tests: one binary, one module per topic.

mod allocations;
mod architecture;
mod behaviours;
mod cli;
mod conform;
mod differential;
mod exports;
mod external;
mod external_commands;
mod features;
mod gate;
mod gate_rules;
mod generate;
mod import;
mod outputs;
mod properties;
mod report;
mod scenarios;
mod simulation;
mod strategies;
mod support;
mod tokens;
mod vectors;
