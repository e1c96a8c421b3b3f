//! budgetlab's integration tests: one binary, one module per topic.

mod allocations;
mod behaviours;
mod cli;
mod conform;
mod differential;
mod exports;
mod external;
mod features;
mod gate;
mod gate_rules;
mod generate;
mod import;
mod needles;
mod outputs;
mod properties;
mod real_shape;
mod report;
mod scenarios;
mod simulation;
mod strategies;
mod support;
mod texture;
mod tokens;
mod vectors;
