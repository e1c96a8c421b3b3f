//! budgetlab's integration tests: one binary, one module per topic.

mod behaviours;
mod cli;
mod properties;
mod support;
mod vectors;
