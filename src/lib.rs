//! budgetlab: a benchmark and simulation harness for the finalizers that fit a batch of LLM tool responses into
//! an aggregate character budget.
//!
//! # From the top
//! - `model`: a batch is a list of [`Entry`]s, each with Gemini-shaped [`Part`]s and the tri-state
//!   `persistedOutputFiles` metadata; [`parse_batch`] reads one from JSON.
//! - [`text`]: every length and budget is in UTF-16 code units; [`text::utf16_len`] measures, and the cuts never
//!   split a surrogate pair.
//! - [`alloc`]: the integer max-min water-fill that shares the budget between slots.
//! - [`finalize`]: the [`Finalizer`] trait and its strategies, named by [`StrategyName`]; `reference` is the
//!   production finalizer, `send-guard` the no-I/O cap at the chat send boundary; the alternatives an engineer
//!   would weigh, the legacy layers, the window-relative rule and six peer agents' policies sit beside them,
//!   parameterised by a [`StrategyConfig`].
//! - [`persist`]: the backends a finalizer writes complete outputs to.
//! - [`external`]: any program speaking docs/protocol.md as a strategy ([`ExternalFinalizer`]), registered for a
//!   command as a [`StrategyName`] by an [`ExternalRegistry`] (`--external NAME=COMMAND`, one pool of children
//!   per strategy for the whole command), and [`external::serve`], the protocol's child side for the built-in
//!   strategies (`finalize --serve`).
//! - [`FinalizeJob`]: what `budgetlab finalize` runs.
//! - [`workload`]: the vocabulary a workload is described in ([`Kind`]s of output, size models, the runtime
//!   [`workload::Mode`], the hook), below the scenario, the generator and the simulation that share it.
//! - [`scenario`] and [`generate`]: a [`Scenario`] (TOML in `scenarios/`) names a workload; its [`Generator`]
//!   makes batch `i` from its own `rng` stream, with the [`Needle`]s planted in it; [`GenerateJob`] is what
//!   `budgetlab generate` runs.
//! - [`simulate`]: one turn through the runtime boundaries of a [`workload::Mode`] (producers, scheduler before
//!   and after the PostToolBatch hook, the runtime's aggregation and outer finalization, the send guard, the
//!   model request), with a strategy at every boundary, in the new or the legacy form.
//! - [`needles`]: the needle vocabulary ([`Needle`], [`NeedleKind`]) that the generator plants, `import` finds and
//!   the metrics measure, and the needles of any text (exit lines, first errors, summary lines, JSON keys) found
//!   by reading it, so that recorded batches get needle survival like generated ones.
//! - [`metrics`]: what a simulated turn did (compliance, retention, needle survival against its upper bound,
//!   persistence I/O, integrity), as pure functions, and their aggregation into rows.
//! - [`run`] and [`gate`]: `budgetlab run` measures every (scenario, budget, strategy) into
//!   [`run::RunResults`], [`run::merge`] recombines the shards of a run, and [`gate`] checks a run against a
//!   stored baseline (the nightly CI gate) or compares two runs; [`history`] keeps the runs of every night in a
//!   SQLite database and checks the newest against all of them.
//! - [`import`](mod@import): agent session logs (Claude Code, Codex, gemini-cli, qwen-code, SWE-agent,
//!   mini-swe-agent, OpenHands) read into batches, one per model turn, optionally anonymized.
//! - [`digest`]: the SHA-256 that names a full output in a shortened field's header, a scenario's hash and a
//!   recorded workload's; [`xml`] the one XML escaper (the gate's and `conform`'s JUnit reports).
//! - [`profile`](mod@profile): what a workload's tool results look like (sizes, shape, width, repeats, needles,
//!   tools), the same measure for a recorded corpus and a generated scenario.
//! - [`calibrate`](mod@calibrate): a scenario fitted to a recorded corpus (sizes per kind, the kind mix, the
//!   width and the texture), with the check that its profile matches the corpus's.
//! - `floor`: the least work any exact finalizer must do on a batch, what the benches on the fixed
//!   [`BenchShape`]s report the finalizers' cost against.
//! - [`tokens`]: the model's view of a budget: a [`Tokenizer`] (OpenAI's `o200k_base` or `cl100k_base`, or a
//!   tiktoken rank file) counts a text's tokens, and [`tokens::TokenTally`] is what `budgetlab tokens` reports.
//! - [`conform`]: the design's invariants as named [`conform::Check`]s, run on edge cases, the production vectors
//!   and generated batches against any [`Finalizer`], with failing cases shrunk to small counterexamples
//!   (`budgetlab conform`).
//! - [`report`] writes the report folder (results, CSV, summary, the [`report::chart`]s and `index.html`);
//!   [`sweep`] runs one scenario over many budgets, context windows or head shares for the curves that pick a
//!   setting.
//!
//! ```
//! use budgetlab::{parse_batch, Budget, BudgetContext, MemoryStore, StrategyName};
//!
//! let input = format!(
//!     r#"[{{"callId":"c1","toolName":"shell","responseParts":[{{"functionResponse":{{"name":"shell","response":{{"output":"{}"}}}}}}]}}]"#,
//!     "x".repeat(5000)
//! );
//! let batch = parse_batch(input.as_bytes(), "example").unwrap();
//! let mut store = MemoryStore::new("tool-results");
//! let ctx = BudgetContext::new(Budget::Units(300));
//! let outcome = StrategyName::REFERENCE.build().finalize(batch, &ctx, &mut store);
//! assert_eq!(outcome.persisted[0].path.as_deref(), Some("tool-results/c1.txt"));
//! assert!(budgetlab::utf16_len(outcome.batch[0].response_parts[0].field(budgetlab::Field::Output).unwrap()) <= 300);
//! ```

pub mod alloc;
pub mod atomic;
mod batch_line;
mod budget;
pub mod calibrate;
pub mod conform;
pub mod context;
pub mod digest;
mod error;
pub mod external;
pub mod finalize;
mod floor;
pub mod gate;
pub mod generate;
pub mod history;
pub mod import;
pub mod interrupt;
mod job;
mod json_keys;
pub mod metrics;
mod model;
pub mod needles;
pub mod persist;
pub mod profile;
pub mod report;
mod rng;
pub mod run;
pub mod scenario;
pub mod simulate;
pub mod sweep;
pub mod text;
pub mod tokens;
pub mod tune;
pub mod workload;
pub mod xml;

pub use batch_line::{parse_batch_line, BatchGroup, BatchLine, MAX_GROUP_ID_BYTES};
pub use budget::{parse_units, Budget, BudgetContext, PlanReminders};
pub use context::{CallContext, TurnContext};
pub use error::{Error, Result};
pub use external::{
    ExternalFinalizer, ExternalOptions, ExternalRegistry, ExternalStrategies, ExternalStrategy,
};
pub use finalize::{Finalizer, Outcome, PersistAttempt, StrategyConfig, StrategyName};
pub use floor::{floor, floor_known, FloorWork};
pub use generate::{BenchShape, GenerateJob, GeneratedBatch, Generator, Shard};
pub use job::{Backend, FinalizeJob, FinalizeReport, JobStrategy, Timing, MAX_TIMED_RUNS};
pub use model::{parse_batch, Batch, Entry, Field, Part};
pub use needles::{Needle, NeedleKind};
pub use persist::{ArtifactStore, FaultyStore, FsStore, MemoryStore, PersistStats};
pub use rng::Seed;
pub use scenario::Scenario;
pub use text::utf16_len;
pub use tokens::Tokenizer;
pub use workload::Kind;
