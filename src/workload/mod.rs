//! The workload vocabulary: the words a scenario describes a workload in and the generator and the simulation
//! act on. The [`Kind`]s of tool output, each described once in [`KINDS`] (its name, weight, size model and
//! tools), the [`SizeKey`]s and [`SizeModel`]s (with a scenario's [`SizeOverride`]s) that say how long each text
//! is, the runtime [`Mode`] a turn runs in and the [`HookConfig`] of the simulated PostToolBatch hook.
//!
//! This is a leaf of the crate's layers: it names nothing above it (no scenario, generator or simulation), so
//! `scenario`, `generate` and `simulate` can all depend on it without depending on each other in a cycle.

mod hook;
mod kind;
mod mode;
mod size;

pub use hook::HookConfig;
pub use kind::{kind_of_tool, Kind, KindSpec, SizeKey, KINDS, MCP_PREFIX};
pub use mode::Mode;
pub use size::{SizeModel, SizeOverride, DEFAULT_MAX, MAX_QUANTILES, MAX_SIZE};
