//! The runtime-boundary simulation: one turn of tool responses carried through the boundaries the design names,
//! with a strategy as the finalizer at every one of them.
//!
//! producers -> core scheduler finalization -> PostToolBatch hook -> finalization again -> the runtime's own
//! aggregation (and its outer finalization) -> chat send guard -> model request, with the transcript record and
//! the tool-result record taken where each mode takes them. Each mode also has its legacy form, as the design's
//! Problem section describes it: headless runs one scheduler per call and concatenates their responses outside
//! them; interactive appends duplicate and synthetic responses after scheduler finalization; ACP, agent and
//! speculative aggregate without finalizing again. Legacy runs have no send guard.

mod boundary;
mod hook;
mod job;
mod origin;

pub use boundary::Boundary;
pub use job::{BoundaryTotal, SimulateJob, SimulateRequest, TurnSummary};
pub use origin::Origin;

use serde::{Deserialize, Serialize};

use crate::budget::BudgetContext;
use crate::finalize::{budgeted_total, Finalizer, Outcome, PersistAttempt, SendGuard, SlotScope};
use crate::model::{Batch, Entry};
use crate::persist::ArtifactStore;
use crate::workload::{HookConfig, Mode};

/// How a turn is simulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
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
    /// The boundary (serialized as its name, e.g. `scheduler-pre-hook`).
    #[serde(rename = "name")]
    pub boundary: Boundary,
    /// The model-facing budgeted total of the parts leaving this boundary (a protected plan-mode prefix is not
    /// counted), in UTF-16 units.
    pub total: u64,
    /// The parts leaving this boundary, when the simulation keeps them.
    #[serde(skip)]
    pub parts: Option<Batch>,
}

/// One persistence attempt made along a turn, with the turn ordinal of the entry it persisted.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnWrite {
    /// The entry's position in the producers' turn.
    pub ordinal: usize,
    /// The boundary that made the attempt.
    pub boundary: Boundary,
    /// The attempt itself.
    pub attempt: PersistAttempt,
}

/// Everything recorded of one simulated turn.
#[derive(Debug, Clone)]
pub struct TurnRecord {
    /// Every boundary in order, ending with `model-request`.
    pub boundaries: Vec<BoundaryRecord>,
    /// What the model receives.
    pub model_request: Batch,
    /// For each entry of the model request, its position in the producers' turn.
    pub ordinals: Vec<usize>,
    /// What the resumable transcript records.
    pub transcript: Batch,
    /// What the tool-result record holds.
    pub tool_results: Batch,
    /// What the user sees: the producers' output, untouched by any finalization.
    pub display: Batch,
    /// Every persistence attempt made along the turn, in order.
    pub writes: Vec<TurnWrite>,
    /// Whether the model request's budgeted total is within the budget (always true for a disabled budget).
    pub within_budget: bool,
    /// Whether the model request, the transcript and the tool-result record hold the same parts (invariant 6).
    pub records_identical: bool,
}

/// Entries on their way through the boundaries, each with its position in the producers' turn.
#[derive(Debug, Clone, Default)]
struct Stage {
    ordinals: Vec<usize>,
    batch: Batch,
}

impl Stage {
    fn push(&mut self, ordinal: usize, entry: Entry) {
        self.ordinals.push(ordinal);
        self.batch.push(entry);
    }

    fn extend(&mut self, other: Stage) {
        self.ordinals.extend(other.ordinals);
        self.batch.extend(other.batch);
    }

    /// The entries of both stages merged in original ordinal order.
    fn merged_in_order(self, other: Stage) -> Stage {
        let mut pairs: Vec<(usize, Entry)> = self
            .ordinals
            .into_iter()
            .zip(self.batch)
            .chain(other.ordinals.into_iter().zip(other.batch))
            .collect();
        pairs.sort_by_key(|(i, _)| *i);
        let (ordinals, batch) = pairs.into_iter().unzip();
        Stage { ordinals, batch }
    }
}

/// One turn on its way through the boundaries: the strategy and budget it runs with, and what it has recorded so
/// far.
struct Turn<'a, 'o> {
    finalizer: &'a dyn Finalizer,
    ctx: &'a BudgetContext,
    store: &'a mut dyn ArtifactStore,
    config: &'a SimConfig,
    boundaries: Vec<BoundaryRecord>,
    writes: Vec<TurnWrite>,
    observer: Option<&'o mut dyn FnMut(&Finalization<'_>)>,
}

/// One finalization along a turn, as an observer of [`simulate_turn_observed`] sees it.
#[derive(Debug)]
pub struct Finalization<'a> {
    /// The boundary.
    pub boundary: Boundary,
    /// Whether the finalizer was the send guard rather than the simulated strategy.
    pub send_guard: bool,
    /// The batch the finalizer was given.
    pub input: &'a [Entry],
    /// What it returned.
    pub outcome: &'a Outcome,
}

impl Turn<'_, '_> {
    fn mark(&mut self, boundary: Boundary, batch: &[Entry]) {
        self.boundaries.push(BoundaryRecord {
            boundary,
            total: budgeted_total(batch, &self.ctx.reminders, SlotScope::ALL),
            parts: self.config.keep_parts.then(|| batch.to_vec()),
        });
    }

    fn finalize_with(
        &mut self,
        finalizer: &dyn Finalizer,
        boundary: Boundary,
        stage: Stage,
    ) -> Stage {
        let input = self.observer.is_some().then(|| stage.batch.clone());
        // The finalizer is told where it runs (an external strategy passes it on; built-in ones ignore it).
        let ctx = BudgetContext {
            boundary: boundary.as_str(),
            ..self.ctx.clone()
        };
        let outcome = finalizer.finalize(stage.batch, &ctx, self.store);
        if let (Some(observe), Some(input)) = (self.observer.as_mut(), input) {
            observe(&Finalization {
                boundary,
                send_guard: boundary == Boundary::SendGuard,
                input: &input,
                outcome: &outcome,
            });
        }
        self.writes
            .extend(outcome.persisted.into_iter().map(|attempt| TurnWrite {
                ordinal: stage.ordinals[attempt.entry],
                boundary,
                attempt,
            }));
        self.mark(boundary, &outcome.batch);
        Stage {
            ordinals: stage.ordinals,
            batch: outcome.batch,
        }
    }

    fn finalize(&mut self, boundary: Boundary, stage: Stage) -> Stage {
        let finalizer = self.finalizer;
        self.finalize_with(finalizer, boundary, stage)
    }

    /// The core scheduler over one batch of executed calls: finalize, hook, finalize again.
    fn scheduler(&mut self, stage: Stage) -> Stage {
        let Stage { ordinals, batch } = self.finalize(Boundary::SchedulerPreHook, stage);
        let hooked = if !self.config.legacy && self.config.hook.rebuild {
            // The runtime explicitly copies the persistence metadata onto responses the hook rebuilt.
            let mut hooked = hook::apply(self.config.hook, batch.clone());
            for (h, b) in hooked.iter_mut().zip(&batch) {
                if h.persisted_output_files.is_none() {
                    h.persisted_output_files
                        .clone_from(&b.persisted_output_files);
                }
            }
            hooked
        } else {
            // Nothing is copied back from the batch before the hook: it goes through the hook itself.
            hook::apply(self.config.hook, batch)
        };
        self.mark(Boundary::PostToolBatchHook, &hooked);
        self.finalize(
            Boundary::SchedulerPostHook,
            Stage {
                ordinals,
                batch: hooked,
            },
        )
    }
}

/// Simulates one turn: `responses` holds the producers' responses in original ordinal order.
pub fn simulate_turn(
    responses: Batch,
    finalizer: &dyn Finalizer,
    ctx: &BudgetContext,
    store: &mut dyn ArtifactStore,
    config: &SimConfig,
) -> TurnRecord {
    simulate_turn_observed(responses, finalizer, ctx, store, config, None)
}

/// [`simulate_turn`], calling `observer` after every finalization with what went in and what came out (each
/// finalization's input is copied for it, so this is for tests and diagnostics, not for timed runs).
pub fn simulate_turn_observed(
    responses: Batch,
    finalizer: &dyn Finalizer,
    ctx: &BudgetContext,
    store: &mut dyn ArtifactStore,
    config: &SimConfig,
    observer: Option<&mut dyn FnMut(&Finalization<'_>)>,
) -> TurnRecord {
    simulate(
        responses,
        finalizer,
        ctx,
        store,
        config,
        observer,
        Copies::Kept,
    )
}

/// [`simulate_turn`] for a caller that only measures the turn (a run, `tune`): the record's `display`,
/// `transcript` and `tool_results` are left empty instead of being copies of the producers' batch and of the
/// finalized one (three copies of every turn's text that nothing measured reads); `records_identical` is the same.
pub(crate) fn simulate_turn_measured(
    responses: Batch,
    finalizer: &dyn Finalizer,
    ctx: &BudgetContext,
    store: &mut dyn ArtifactStore,
    config: &SimConfig,
) -> TurnRecord {
    simulate(responses, finalizer, ctx, store, config, None, Copies::Left)
}

/// Whether a turn's record keeps the copies people read (`display`, `transcript`, `tool_results`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Copies {
    Kept,
    Left,
}

fn simulate(
    responses: Batch,
    finalizer: &dyn Finalizer,
    ctx: &BudgetContext,
    store: &mut dyn ArtifactStore,
    config: &SimConfig,
    observer: Option<&mut dyn FnMut(&Finalization<'_>)>,
    copies: Copies,
) -> TurnRecord {
    let origins = Origin::of_turn(&responses);
    let display = match copies {
        Copies::Kept => responses.clone(),
        Copies::Left => Batch::new(),
    };
    let mut turn = Turn {
        finalizer,
        ctx,
        store,
        config,
        boundaries: Vec::new(),
        writes: Vec::new(),
        observer,
    };
    turn.mark(Boundary::Producers, &responses);
    let (mut executed, mut others) = (Stage::default(), Stage::default());
    for (i, (entry, origin)) in responses.into_iter().zip(&origins).enumerate() {
        match origin {
            Origin::Executed => executed.push(i, entry),
            _ => others.push(i, entry),
        }
    }

    // Executed calls go through the scheduler: one per call in headless mode, one for the batch otherwise.
    let scheduled = if config.mode == Mode::Headless {
        let mut out = Stage::default();
        for (i, e) in executed.ordinals.into_iter().zip(executed.batch) {
            out.extend(turn.scheduler(Stage {
                ordinals: vec![i],
                batch: vec![e],
            }));
        }
        out
    } else {
        turn.scheduler(executed)
    };

    let (records, request) = if config.legacy {
        // Legacy: the runtime aggregates outside the schedulers and never finalizes again.
        let merged = match config.mode {
            // Interactive appended duplicate and synthetic responses after scheduler finalization.
            Mode::Interactive => {
                let mut m = scheduled;
                m.extend(others);
                m
            }
            _ => scheduled.merged_in_order(others),
        };
        turn.mark(Boundary::Aggregation(config.mode), &merged.batch);
        // The records are the request itself: identical without a copy to compare.
        let records = match copies {
            Copies::Kept => Some(merged.batch.clone()),
            Copies::Left => None,
        };
        (records, merged)
    } else {
        let merged = scheduled.merged_in_order(others);
        turn.mark(Boundary::Aggregation(config.mode), &merged.batch);
        let finalized = turn.finalize(Boundary::OuterFinalize(config.mode), merged);
        // Only the send guard can make the request differ from the records: without it they are one batch.
        let records =
            (copies == Copies::Kept || config.send_guard).then(|| finalized.batch.clone());
        let request = if config.send_guard {
            turn.finalize_with(&SendGuard::default(), Boundary::SendGuard, finalized)
        } else {
            finalized
        };
        (records, request)
    };
    turn.mark(Boundary::ModelRequest, &request.batch);
    let within_budget = match ctx.budget.limit() {
        Some(limit) => turn.boundaries.last().map_or(0, |b| b.total) <= limit,
        None => true,
    };
    // The transcript and the tool-result record are both taken from the same finalized parts.
    let records_identical = records.as_ref().is_none_or(|r| request.batch == *r);
    let records = match copies {
        Copies::Kept => records.unwrap_or_default(),
        Copies::Left => Batch::new(),
    };
    TurnRecord {
        boundaries: turn.boundaries,
        model_request: request.batch,
        ordinals: request.ordinals,
        transcript: match copies {
            Copies::Kept => records.clone(),
            Copies::Left => Batch::new(),
        },
        tool_results: records,
        display,
        writes: turn.writes,
        within_budget,
        records_identical,
    }
}

#[cfg(test)]
mod tests;
