//! Helpers shared by the strategies' unit tests: batch builders and a runner with an in-memory store.

use serde_json::json;

use super::{Finalizer, Outcome};
use crate::budget::{Budget, BudgetContext};
use crate::model::{Entry, Field, Part};
use crate::persist::MemoryStore;

/// The registered strategies the unit tests that list strategies by name were written for, in registry order.
/// A test that lists what each strategy declares or does judges these by name; a strategy registered after it
/// (a copy of one, say) is judged by the properties every strategy is held to, so registering one needs no edit
/// of such a test (issue 49's twin: a registered copy of any strategy passes the suite).
pub(crate) const KNOWN_STRATEGIES: &[&str] = &[
    "reference",
    "send-guard",
    "proportional",
    "uniform",
    "greedy",
    "largest-first",
    "weighted",
    "line-aware",
    "head-tail-<ratio>",
    "legacy-layers",
    "window-relative",
    "codex",
    "gemini-cli",
    "claude-code",
    "openhands",
    "opencode",
    "swe-agent",
    "salient",
    "relevance",
    "rarity",
    "structure",
];

/// An entry whose one function response (named like the tool) carries `output`.
pub(crate) fn output_entry(id: &str, tool: &str, output: &str) -> Entry {
    Entry::new(
        id,
        tool,
        vec![Part::function_response(id, tool, Some(json!(output)), None)],
    )
}

/// An entry whose one function response carries `output` and `error`.
pub(crate) fn output_error_entry(id: &str, tool: &str, output: &str, error: &str) -> Entry {
    Entry::new(
        id,
        tool,
        vec![Part::function_response(
            id,
            tool,
            Some(json!(output)),
            Some(json!(error)),
        )],
    )
}

/// Runs `finalizer` at `budget` (and `window` tokens) with the built-in reminders and a store under `/tmp`.
pub(crate) fn run(
    finalizer: &dyn Finalizer,
    batch: Vec<Entry>,
    budget: i64,
    window: Option<u64>,
) -> (Outcome, MemoryStore) {
    let mut store = MemoryStore::new("/tmp");
    let mut ctx = BudgetContext::new(Budget::Units(budget));
    ctx.context_window_tokens = window;
    let outcome = finalizer.finalize(batch, &ctx, &mut store);
    (outcome, store)
}

/// Runs `finalizer` as [`run`] does, with `turn` as the turn's context.
pub(crate) fn run_in_turn(
    finalizer: &dyn Finalizer,
    batch: Vec<Entry>,
    budget: i64,
    window: Option<u64>,
    turn: Option<std::sync::Arc<crate::context::TurnContext>>,
) -> (Outcome, MemoryStore) {
    let mut store = MemoryStore::new("/tmp");
    let mut ctx = BudgetContext::new(Budget::Units(budget));
    ctx.context_window_tokens = window;
    ctx.turn = turn;
    let outcome = finalizer.finalize(batch, &ctx, &mut store);
    (outcome, store)
}

/// The string at `field` of part `p` of entry `e`.
pub(crate) fn text_of(outcome: &Outcome, e: usize, p: usize, field: Field) -> &str {
    outcome.batch[e].response_parts[p].field(field).unwrap()
}

/// The output of the first part of entry `e`.
pub(crate) fn output_of(outcome: &Outcome, e: usize) -> &str {
    text_of(outcome, e, 0, Field::Output)
}
