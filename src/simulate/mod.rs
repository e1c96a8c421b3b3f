//! The runtime-boundary simulation: one turn of tool responses carried through the boundaries the design names,
//! with a strategy as the finalizer at every one of them.
//!
//! producers -> core scheduler finalization -> PostToolBatch hook -> finalization again -> the runtime's own
//! aggregation (and its outer finalization) -> chat send guard -> model request, with the transcript record and
//! the tool-result record taken where each mode takes them. Each mode also has its legacy form, as the design's
//! Problem section describes it: headless runs one scheduler per call and concatenates their responses outside
//! them; interactive appends duplicate and synthetic responses after scheduler finalization; ACP, agent and
//! speculative aggregate without finalizing again. Legacy runs have no send guard.

mod hook;
mod mode;

pub use hook::HookConfig;
pub use mode::{Mode, Origin};

use serde::{Deserialize, Serialize};

use crate::budget::BudgetContext;
use crate::finalize::{budgeted_total, Finalizer, PersistAttempt, SendGuard, SlotScope};
use crate::model::{Batch, Entry};
use crate::persist::ArtifactStore;

/// How a turn is simulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct SimConfig {
    /// The runtime mode.
    pub mode: Mode,
    /// Whether the mode runs in its legacy form (before the shared finalizer).
    pub legacy: bool,
    /// Whether the chat send guard runs before the model request (never in legacy form).
    pub send_guard: bool,
    /// What the PostToolBatch hook does.
    pub hook: HookConfig,
    /// Whether every boundary's parts are kept in the record (totals are always kept).
    pub keep_parts: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            mode: Mode::Interactive,
            legacy: false,
            send_guard: true,
            hook: HookConfig::default(),
            keep_parts: false,
        }
    }
}

/// One boundary a turn passed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoundaryRecord {
    /// The boundary's name, e.g. `scheduler-pre-hook`.
    pub name: &'static str,
    /// The model-facing budgeted total of the parts leaving this boundary (a protected plan-mode prefix is not
    /// counted), in UTF-16 units.
    pub total: u64,
    /// The parts leaving this boundary, when the simulation keeps them.
    #[serde(skip)]
    pub parts: Option<Batch>,
}

/// Everything recorded of one simulated turn.
#[derive(Debug, Clone)]
pub struct TurnRecord {
    /// Every boundary in order, ending with `model-request`.
    pub boundaries: Vec<BoundaryRecord>,
    /// What the model receives.
    pub model_request: Batch,
    /// What the resumable transcript records.
    pub transcript: Batch,
    /// What the tool-result record holds.
    pub tool_results: Batch,
    /// What the user sees: the producers' output, untouched by any finalization.
    pub display: Batch,
    /// Every persistence attempt made along the turn, in order.
    pub persisted: Vec<PersistAttempt>,
    /// Whether the model request's budgeted total is within the budget (always true for a disabled budget).
    pub within_budget: bool,
    /// Whether the model request, the transcript and the tool-result record hold the same parts (invariant 6).
    pub records_identical: bool,
}

/// Carries a turn's state from boundary to boundary.
struct Run<'a> {
    finalizer: &'a dyn Finalizer,
    ctx: &'a BudgetContext,
    store: &'a mut dyn ArtifactStore,
    config: &'a SimConfig,
    boundaries: Vec<BoundaryRecord>,
    persisted: Vec<PersistAttempt>,
}

impl Run<'_> {
    fn mark(&mut self, name: &'static str, batch: &[Entry]) {
        self.boundaries.push(BoundaryRecord {
            name,
            total: budgeted_total(batch, &self.ctx.reminders, SlotScope::ALL),
            parts: self.config.keep_parts.then(|| batch.to_vec()),
        });
    }

    fn finalize_with(
        &mut self,
        finalizer: &dyn Finalizer,
        name: &'static str,
        batch: Batch,
    ) -> Batch {
        let outcome = finalizer.finalize(batch, self.ctx, self.store);
        self.persisted.extend(outcome.persisted);
        self.mark(name, &outcome.batch);
        outcome.batch
    }

    fn finalize(&mut self, name: &'static str, batch: Batch) -> Batch {
        let finalizer = self.finalizer;
        self.finalize_with(finalizer, name, batch)
    }

    /// The core scheduler over one batch of executed calls: finalize, hook, finalize again.
    fn scheduler(&mut self, batch: Batch) -> Batch {
        let before = self.finalize("scheduler-pre-hook", batch);
        let mut hooked = self.config.hook.apply(before.clone());
        if !self.config.legacy && self.config.hook.rebuild {
            // The runtime explicitly copies the persistence metadata onto responses the hook rebuilt.
            for (h, b) in hooked.iter_mut().zip(&before) {
                if h.persisted_output_files.is_none() {
                    h.persisted_output_files
                        .clone_from(&b.persisted_output_files);
                }
            }
        }
        self.mark("post-tool-batch-hook", &hooked);
        self.finalize("scheduler-post-hook", hooked)
    }
}

/// Simulates one turn: `turn` holds the producers' responses in original ordinal order.
pub fn simulate_turn(
    turn: Batch,
    finalizer: &dyn Finalizer,
    ctx: &BudgetContext,
    store: &mut dyn ArtifactStore,
    config: &SimConfig,
) -> TurnRecord {
    let origins = Origin::of_turn(&turn);
    let display = turn.clone();
    let mut run = Run {
        finalizer,
        ctx,
        store,
        config,
        boundaries: Vec::new(),
        persisted: Vec::new(),
    };
    run.mark("producers", &turn);
    let (executed, others): (Vec<_>, Vec<_>) = turn
        .into_iter()
        .zip(&origins)
        .enumerate()
        .partition(|(_, (_, o))| **o == Origin::Executed);
    let executed: Vec<(usize, Entry)> = executed.into_iter().map(|(i, (e, _))| (i, e)).collect();
    let others: Vec<(usize, Entry)> = others.into_iter().map(|(i, (e, _))| (i, e)).collect();

    let headless = config.mode == Mode::Headless;
    // Executed calls go through the scheduler: one per call in headless mode, one for the batch otherwise.
    let scheduled: Vec<(usize, Entry)> = if headless {
        let mut out = Vec::with_capacity(executed.len());
        for (i, e) in executed {
            out.extend(run.scheduler(vec![e]).into_iter().map(|e| (i, e)));
        }
        out
    } else {
        let (idx, entries): (Vec<usize>, Batch) = executed.into_iter().unzip();
        idx.into_iter().zip(run.scheduler(entries)).collect()
    };

    let (transcript, tool_results, request) = if config.legacy {
        // Legacy: the runtime aggregates outside the schedulers and never finalizes again.
        let merged: Batch = match config.mode {
            // Interactive appended duplicate and synthetic responses after scheduler finalization.
            Mode::Interactive => scheduled
                .into_iter()
                .chain(others)
                .map(|(_, e)| e)
                .collect(),
            _ => in_ordinal_order(scheduled, others),
        };
        run.mark(aggregation_name(config.mode), &merged);
        (merged.clone(), merged.clone(), merged)
    } else {
        let merged = in_ordinal_order(scheduled, others);
        run.mark(aggregation_name(config.mode), &merged);
        let finalized = run.finalize(outer_name(config.mode), merged);
        let request = if config.send_guard {
            run.finalize_with(&SendGuard::default(), "send-guard", finalized.clone())
        } else {
            finalized.clone()
        };
        (finalized.clone(), finalized, request)
    };
    run.mark("model-request", &request);
    let within_budget = match ctx.budget.limit() {
        Some(limit) => run.boundaries.last().map_or(0, |b| b.total) <= limit,
        None => true,
    };
    let records_identical = request == transcript && request == tool_results;
    TurnRecord {
        boundaries: run.boundaries,
        model_request: request,
        transcript,
        tool_results,
        display,
        persisted: run.persisted,
        within_budget,
        records_identical,
    }
}

fn in_ordinal_order(a: Vec<(usize, Entry)>, b: Vec<(usize, Entry)>) -> Batch {
    let mut all: Vec<(usize, Entry)> = a.into_iter().chain(b).collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, e)| e).collect()
}

fn aggregation_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Interactive => "interactive-merge",
        Mode::Headless => "headless-turn",
        Mode::Acp => "acp-turn",
        Mode::Agent => "agent-aggregate",
        Mode::Speculative => "speculative-aggregate",
    }
}

fn outer_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Interactive => "interactive-outer-finalize",
        Mode::Headless => "headless-finalize",
        Mode::Acp => "acp-finalize",
        Mode::Agent => "agent-finalize",
        Mode::Speculative => "speculative-finalize",
    }
}

#[cfg(test)]
mod tests;
