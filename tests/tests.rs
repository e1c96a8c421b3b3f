//! budgetlab's integration tests: one binary, one module per topic.

mod allocations;
mod behaviours;
mod cli;
mod differential;
mod gate;
mod generate;
mod properties;
mod report;
mod simulation;
mod strategies;
mod support;
mod tokens;
mod vectors;
