//! budgetlab's integration tests: one binary, one module per topic.

mod behaviours;
mod cli;
mod generate;
mod properties;
mod report;
mod strategies;
mod support;
mod vectors;
