//! budgetlab's slow and tool-dependent integration tests, in a binary of their own so that the loop's
//! `cargo test --test integration` stays short; `cargo test` (and CI) runs them too. Here: the tests that fit
//! scenarios to corpora (calibrate), follow long simulations, run other programs (python3, node, strace, the
//! scripts and the example external finalizers) or send signals.

// Each binary uses its own part of the shared helpers.
#[allow(dead_code)]
mod support;

mod calibrate;
mod differential;
mod examples;
mod external;
mod external_commands;
mod features;
mod interrupted;
mod scale_run;
mod simulation;
mod speed_script;
