//! `budgetlab run`: every (scenario, budget, strategy) of a plan, batch by batch through the runtime-boundary
//! simulation, measured and aggregated into [`RunResults`].
//!
//! Batches run in parallel (rayon), each generated from its own stream, and every result is put back in batch
//! order before anything is summed, so a run gives the same results on any number of threads and in any
//! sharding. Only the `cost` figures (wall-clock time per simulated turn, and the strategy's time over the
//! floor's, see [`cost`]) differ between runs.

pub mod cost;
mod floor;
mod merge;
mod plan;
mod records;
mod results;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

pub use cost::{Measured, Slowdown};
pub use floor::RunFloor;
pub use merge::{merge, merge_into, parse_records, shard_list, ShardRecords, ShardReport};
pub(crate) use plan::token_counting;
pub use plan::{
    check_threads, PlanRequest, RecordedBatches, TokenRequest, Workloads, DEFAULT_MAX_BATCHES,
    QUICK_BATCHES, THREADS_PER_CORE,
};
pub use records::{for_each_record, sha256_of_file, RecordReader, MAX_RECORD_LINE};
pub(crate) use results::validate::validate_row;
pub use results::{
    BatchFilesSha256, BatchRecord, RunInputs, RunResults, ShardInfo, WorkloadInfo, WorkloadSource,
    BATCHES_CSV, BATCHES_JSONL, SCHEMA_VERSION,
};

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use crate::batch_line::parse_jsonl_lines;
use crate::batch_line::BatchGroup;
use crate::budget::{Budget, BudgetContext};
use crate::context::TurnContext;
use crate::digest::KnownDigests;
use crate::error::Result;
use crate::external::ExternalRegistry;
use crate::finalize::{Finalizer, StrategyConfig, StrategyName};
use crate::generate::{GeneratedBatch, Generator, Shard};
use crate::metrics::{
    measure, Aggregate, CostTally, RowKey, RowSummary, StrategyKey, TokenSettings, TokenTally,
    TurnTokens,
};
use crate::model::{Batch, Field};
use crate::persist::{FaultyStore, InjectedFaults, MemoryStore};
use crate::scenario::{BudgetLabel, Scenario, ScenarioBudget};
use crate::simulate::{simulate_turn_measured, SimConfig};
use crate::tokens::Tokenizer;

/// Where a workload's batches come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Generated from a scenario.
    Generated(Box<Generator>),
    /// Recorded batches (e.g. from a real agent's transcript); their needles are found by the detector
    /// ([`crate::needles`]), since nobody planted any.
    Recorded(Vec<Batch>),
}

/// What a recorded batch's line says besides its entries (the object form of [`crate::BatchLine`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordedTurn {
    /// What the runtime knew of the turn when it finalized it; every finalization of the batch is told it.
    pub context: Option<Arc<TurnContext>>,
    /// The session and task the batch belongs to.
    pub group: Option<BatchGroup>,
}

impl Source {
    /// Which kind of source it is, as `results.json` records it.
    pub fn kind(&self) -> WorkloadSource {
        match self {
            Source::Generated(_) => WorkloadSource::Generated,
            Source::Recorded(_) => WorkloadSource::Recorded,
        }
    }
}

/// One workload of a run: its batches, budgets, simulation and strategy settings.
#[derive(Debug, Clone)]
pub struct Workload {
    /// What it is, as written to the results.
    pub info: WorkloadInfo,
    /// Its batches.
    pub source: Source,
    /// How its turns are simulated.
    pub sim: SimConfig,
    /// Strategy parameters.
    pub strategy_config: StrategyConfig,
    /// Share of finalizer writes that fail.
    pub fault_rate: f64,
    /// For recorded batches with a used-lines file (`budgetlab import`'s `X.used.jsonl`), the lines the agent
    /// used in each batch; measured beside the detector's needles, never pooled with them.
    pub used: Option<crate::needles::UsedNeedles>,
    /// For recorded batches, each batch's context and group, by index (empty for a generated workload, whose
    /// generator makes them).
    pub recorded: Vec<RecordedTurn>,
}

impl Workload {
    /// A workload generating `batches` batches (or the scenario's own number) of `scenario`.
    pub fn from_scenario(scenario: &Scenario, batches: Option<u64>) -> Workload {
        let batches = batches.unwrap_or(scenario.batches);
        Workload {
            info: WorkloadInfo {
                name: scenario.name.clone(),
                digest: scenario.digest(),
                source: WorkloadSource::Generated,
                seed: scenario.seed.0,
                batches,
                mode: scenario.mode,
                legacy: scenario.legacy,
                budgets: scenario.budgets(),
            },
            source: Source::Generated(Box::new(Generator::new(scenario))),
            sim: SimConfig {
                mode: scenario.mode,
                legacy: scenario.legacy,
                hook: scenario.hook,
                ..SimConfig::default()
            },
            strategy_config: scenario.strategy.clone(),
            fault_rate: scenario.persistence.finalizer_fault_rate,
            used: None,
            recorded: Vec::new(),
        }
    }

    /// A workload of recorded batches, one JSON array per line of `jsonl`, run at `budgets`.
    pub fn from_recorded(
        name: &str,
        jsonl: &[u8],
        budgets: &[u64],
        sim: SimConfig,
    ) -> Result<Workload> {
        let (lines, text) = parse_jsonl_lines(jsonl, name)?;
        let (batches, recorded): (Vec<Batch>, Vec<RecordedTurn>) = lines
            .into_iter()
            .map(|l| {
                let turn = RecordedTurn {
                    context: l.context,
                    group: l.group,
                };
                (l.entries, turn)
            })
            .unzip();
        Ok(Workload {
            info: WorkloadInfo {
                name: name.into(),
                digest: crate::digest::sha256_hex(text),
                source: WorkloadSource::Recorded,
                seed: 0,
                batches: batches.len() as u64,
                mode: sim.mode,
                legacy: sim.legacy,
                budgets: budgets
                    .iter()
                    .map(|&units| ScenarioBudget::absolute(units))
                    .collect(),
            },
            source: Source::Recorded(batches),
            sim,
            strategy_config: StrategyConfig::default(),
            fault_rate: 0.0,
            used: None,
            recorded,
        })
    }

    /// Batch `index` with its needles (planted, or found by the detector and the used-lines file).
    pub(crate) fn batch(&self, index: u64) -> GeneratedBatch {
        match &self.source {
            Source::Generated(g) => g.batch(index),
            Source::Recorded(batches) => {
                let batch = batches[index as usize].clone();
                let mut needles = crate::needles::detect_batch(&batch);
                if let Some(Some(used)) = self.used.as_ref().and_then(|u| u.get(index as usize)) {
                    needles.extend(used.iter().cloned());
                }
                let turn = self
                    .recorded
                    .get(index as usize)
                    .cloned()
                    .unwrap_or_default();
                GeneratedBatch {
                    index,
                    needles,
                    batch,
                    context: turn.context,
                    group: turn.group,
                }
            }
        }
    }

    /// The group of batch `index`: the group its line names (recorded batches), or its scenario block
    /// ([`Generator::group`]) for a generated workload. `None` for a recorded batch whose line names none.
    /// Cheap: nothing is generated.
    pub fn group(&self, index: u64) -> Option<BatchGroup> {
        match &self.source {
            Source::Generated(g) => Some(g.group(index)),
            Source::Recorded(_) => self
                .recorded
                .get(index as usize)
                .and_then(|t| t.group.clone()),
        }
    }
}

/// A validated run: workloads, strategies and the shard to run.
#[derive(Debug, Clone)]
pub struct RunPlan {
    /// The workloads, in order.
    pub workloads: Vec<Workload>,
    /// The strategies, in order.
    pub strategies: Vec<StrategyName>,
    /// The part of the batches to run.
    pub shard: Shard,
    /// Test-only: strategies made to repeat their work (empty in every real run).
    pub slowdown: Slowdown,
    /// The external strategies registered for the run, which `strategies` may name.
    pub externals: ExternalRegistry,
    /// The tokenizer every turn's model request is counted with, and the token budget (`--tokenizer`); `None`
    /// counts nothing.
    pub tokens: Option<TokenCounting>,
}

/// Token counting in a run: the tokenizer, shared by the worker threads, and what `results.json` records of it.
#[derive(Debug, Clone)]
pub struct TokenCounting {
    /// The tokenizer.
    pub tokenizer: Tokenizer,
    /// Its name and the token budget.
    pub settings: TokenSettings,
}

/// A finished run: the results and every per-batch record they were aggregated from.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// `results.json`.
    pub results: RunResults,
    /// One record per (scenario, budget, strategy, batch), in that order.
    pub records: Vec<BatchRecord>,
}

impl RunPlan {
    /// The number of simulated turns the run makes (for progress reporting).
    pub fn turns(&self) -> u64 {
        self.workloads
            .iter()
            .map(|w| {
                self.shard.batches(w.info.batches).count() as u64 * w.info.budgets.len() as u64
            })
            .sum::<u64>()
            * self.strategies.len() as u64
    }

    /// Runs the plan holding every record in memory; `progress` is called with the number of turns finished since
    /// its last call. For runs of any size, [`RunPlan::run_into`] streams the records instead.
    ///
    /// An external strategy that faults makes the rest of the run pointless: the batches not started yet are
    /// skipped, and the caller, which must check [`ExternalRegistry::finish`] before using the output, reports
    /// the fault instead.
    pub fn run(&self, progress: &(dyn Fn(u64) + Sync)) -> RunOutput {
        let mut collected = Collected::default();
        let results = self
            .run_into(progress, &mut collected)
            .expect("collecting records in memory cannot fail");
        RunOutput {
            results,
            records: collected.records,
        }
    }

    /// Runs the plan for its results alone, holding no record (see [`RunPlan::run`] for `progress`).
    pub fn run_results(&self, progress: &(dyn Fn(u64) + Sync)) -> RunResults {
        self.run_into(progress, &mut Discard)
            .expect("discarding records cannot fail")
    }

    /// Runs the plan, handing every record to `sink` as its window of batches completes (see [`RecordSink`] for
    /// the order) and summing it into its row; returns the results (without the files' sha256, which the sink
    /// knows). Memory depends on the window, never on the number of batches. A sink's error stops the run.
    pub fn run_into(
        &self,
        progress: &(dyn Fn(u64) + Sync),
        sink: &mut (dyn RecordSink + Send),
    ) -> Result<RunResults> {
        let inputs = self.inputs();
        let mut rows = RowSummaries::new(&inputs);
        let window = batch_window();
        for workload in &self.workloads {
            let finalizers: Vec<Strategy> = self
                .strategies
                .iter()
                .map(|s| Strategy {
                    key: StrategyKey::of(s),
                    finalizer: s.build_with(&workload.strategy_config),
                    repeat: self.slowdown.factor(s),
                    fixed_clock: self.slowdown.fixed_clock(),
                    // A program's every call is a request: it is timed once, not sampled (see `Measured`).
                    samples: if s.is_external() { 1 } else { cost::SAMPLES },
                })
                .collect();
            let groups = workload.info.budgets.len() * finalizers.len();
            sink.begin_workload(groups)?;
            let mut indices = self.shard.batches(workload.info.batches).peekable();
            // Window k+1 is evaluated while window k's records go to the rows and the sink: rayon runs both, so a
            // worker that would wait for the sink (or for a window's last, largest batch) takes batches instead.
            let mut done: Option<Vec<Vec<BatchRecord>>> = None;
            loop {
                let chunk: Vec<u64> = indices.by_ref().take(window).collect();
                if chunk.is_empty() && done.is_none() {
                    break;
                }
                let evaluate_chunk = || -> Vec<Vec<BatchRecord>> {
                    chunk
                        .par_iter()
                        .map(|&i| {
                            if self.externals.faulted() {
                                return Vec::new();
                            }
                            let out = evaluate(workload, &finalizers, i, self.tokens.as_ref());
                            progress(out.len() as u64);
                            out
                        })
                        .collect()
                };
                let (next, handed) = match done.take() {
                    Some(per_batch) => rayon::join(evaluate_chunk, || {
                        hand_on(per_batch, groups, &mut rows, &mut *sink)
                    }),
                    None => (evaluate_chunk(), Ok(())),
                };
                handed?;
                done = (!chunk.is_empty()).then_some(next);
            }
            sink.end_workload()?;
        }
        Ok(rows.finish(inputs))
    }

    /// What `results.json` records of the plan's inputs.
    pub fn inputs(&self) -> RunInputs {
        RunInputs {
            scenarios: self.workloads.iter().map(|w| w.info.clone()).collect(),
            strategies: self.strategies.iter().map(StrategyKey::of).collect(),
            shard: (self.shard != Shard::WHOLE).then_some(ShardInfo {
                index: self.shard.index,
                count: self.shard.count,
            }),
            tokens: self.tokens.as_ref().map(|t| t.settings.clone()),
        }
    }
}

/// Hands a window's records (by batch, then group) to the rows and the sink, regrouped to the sink's order: by
/// group, each in batch order.
fn hand_on(
    per_batch: Vec<Vec<BatchRecord>>,
    groups: usize,
    rows: &mut RowSummaries,
    sink: &mut (dyn RecordSink + Send),
) -> Result<()> {
    let mut grouped: Vec<Vec<BatchRecord>> = (0..groups)
        .map(|_| Vec::with_capacity(per_batch.len()))
        .collect();
    for batch_records in per_batch {
        for (g, r) in batch_records.into_iter().enumerate() {
            grouped[g].push(r);
        }
    }
    for (g, records) in grouped.iter().enumerate() {
        for r in records {
            rows.add(r);
        }
        sink.records(g, records)?;
    }
    Ok(())
}

/// How many batch indices a run evaluates at once before handing their records on: enough to keep every worker
/// thread busy, few enough that the records held stay small (a few megabytes) whatever the run's size. The
/// results do not depend on it.
fn batch_window() -> usize {
    (16 * rayon::current_num_threads()).clamp(32, 512)
}

/// Where a run's records go, as they come. Within a workload the records of each group (a budget and a strategy,
/// numbered `budget * strategies + strategy`) come in batch order, in calls that interleave the groups; the run's
/// order, which a sink writing files must restore, is workload, then group, then batch.
pub trait RecordSink {
    /// A workload of `groups` groups begins.
    fn begin_workload(&mut self, groups: usize) -> Result<()>;

    /// The next records of group `group` of the current workload, in batch order.
    fn records(&mut self, group: usize, records: &[BatchRecord]) -> Result<()>;

    /// The current workload has no more records.
    fn end_workload(&mut self) -> Result<()>;
}

/// A sink keeping no record.
struct Discard;

impl RecordSink for Discard {
    fn begin_workload(&mut self, _groups: usize) -> Result<()> {
        Ok(())
    }

    fn records(&mut self, _group: usize, _records: &[BatchRecord]) -> Result<()> {
        Ok(())
    }

    fn end_workload(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A sink holding every record in memory, in run order.
#[derive(Debug, Default)]
struct Collected {
    records: Vec<BatchRecord>,
    groups: Vec<Vec<BatchRecord>>,
}

impl RecordSink for Collected {
    fn begin_workload(&mut self, groups: usize) -> Result<()> {
        self.groups = (0..groups).map(|_| Vec::new()).collect();
        Ok(())
    }

    fn records(&mut self, group: usize, records: &[BatchRecord]) -> Result<()> {
        self.groups[group].extend_from_slice(records);
        Ok(())
    }

    fn end_workload(&mut self) -> Result<()> {
        self.records
            .extend(std::mem::take(&mut self.groups).into_iter().flatten());
        Ok(())
    }
}

/// A strategy of a run, built for a workload.
struct Strategy {
    key: StrategyKey,
    finalizer: Box<dyn Finalizer>,
    /// How many times it does its work: 1 but under the test-only [`Slowdown`].
    repeat: u32,
    /// Whether its times are [`cost::fixed_nanos`] (the test-only [`cost::FIXED_CLOCK`]).
    fixed_clock: bool,
    /// How many times each of its finalizations is timed (see [`Measured`]).
    samples: u32,
}

/// One batch of a workload through every (budget, strategy), in that order; with `tokens`, each model request is
/// counted too (in the worker thread, after the turn's cost was measured).
fn evaluate(
    workload: &Workload,
    finalizers: &[Strategy],
    index: u64,
    tokens: Option<&TokenCounting>,
) -> Vec<BatchRecord> {
    let generated = workload.batch(index);
    let mut out = Vec::with_capacity(workload.info.budgets.len() * finalizers.len());
    // What does not depend on the strategy is done once for the batch: each long text's digest.
    let known = Some(known_digests(&generated.batch));
    for budget in &workload.info.budgets {
        let mut ctx = budget_context(budget);
        ctx.turn.clone_from(&generated.context);
        ctx.known_digests.clone_from(&known);
        for strategy in finalizers {
            let mut store = turn_store(workload, index);
            let turn = generated.batch.clone();
            let measured = Measured::new(strategy.finalizer.as_ref(), strategy.repeat)
                .with_samples(strategy.samples)
                .with_fixed_clock(strategy.fixed_clock);
            let start = Instant::now();
            let record = simulate_turn_measured(turn, &measured, &ctx, &mut store, &workload.sim);
            let elapsed = match strategy.fixed_clock {
                true => measured.totals().0,
                false => u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX),
            };
            let (strategy_ns, floor_ns) = measured.totals();
            let cost_ns = elapsed.saturating_sub(measured.overhead_ns());
            let mut metrics = measure(
                index as usize,
                &generated.batch,
                &generated.needles,
                &record,
                Some(budget.units),
                &ctx.reminders,
            );
            metrics.tokens = tokens
                .map(|t| TurnTokens::count(&record.model_request, &ctx.reminders, &t.tokenizer));
            out.push(BatchRecord {
                scenario: workload.info.name.clone(),
                strategy: strategy.key.clone(),
                budget_label: budget.label,
                cost_ns,
                strategy_ns,
                floor_ns,
                metrics,
            });
        }
    }
    out
}

/// An empty cache of the digests of `batch`'s long texts, for every turn of the batch to share: it keeps at most
/// twice the batch's text (its fields, and what boundaries make of them) and a mebibyte, so a run's memory stays
/// bounded by its largest batches.
pub(crate) fn known_digests(batch: &Batch) -> Arc<KnownDigests> {
    let text: usize = batch
        .iter()
        .flat_map(|e| &e.response_parts)
        .flat_map(|p| Field::ALL.into_iter().filter_map(|f| p.field(f)))
        .map(str::len)
        .sum();
    Arc::new(KnownDigests::with_capacity(
        text.saturating_mul(2).saturating_add(1 << 20),
    ))
}

/// The budget context of a turn at `budget`.
pub(crate) fn budget_context(budget: &ScenarioBudget) -> BudgetContext {
    let mut ctx = BudgetContext::new(Budget::Units(budget.units as i64));
    ctx.context_window_tokens = budget.window_tokens;
    ctx
}

/// The artifact store of a turn of batch `index` of `workload`: in memory, failing writes at the workload's
/// fault rate from the batch's own stream.
pub(crate) fn turn_store(workload: &Workload, index: u64) -> FaultyStore<MemoryStore> {
    let memory = MemoryStore::new("tool-results");
    let fault_seed = InjectedFaults::batch_seed(workload.info.seed, index);
    FaultyStore::new(memory, []).with_rate(workload.fault_rate, fault_seed)
}

/// One turn of `generated` at `budget` under `finalizer`, simulated and measured as a run does, and what `also` makes of the turn's record and the budget's reminders (for callers that
/// measure more of a turn than its metrics, such as `tune`).
///
/// `known` is the batch's cache of digests ([`known_digests`]), shared by every turn of the batch the caller runs.
/// The record is a measured one (`simulate_turn_measured`): its `display`, `transcript` and `tool_results` are
/// empty.
pub(crate) fn measure_turn_with<T>(
    workload: &Workload,
    generated: &GeneratedBatch,
    budget: &ScenarioBudget,
    finalizer: &dyn Finalizer,
    known: Option<&Arc<KnownDigests>>,
    also: impl FnOnce(&crate::simulate::TurnRecord, &crate::budget::PlanReminders) -> T,
) -> (crate::metrics::BatchMetrics, T) {
    let mut ctx = budget_context(budget);
    ctx.turn.clone_from(&generated.context);
    ctx.known_digests = known.cloned();
    let mut store = turn_store(workload, generated.index);
    let record = simulate_turn_measured(
        generated.batch.clone(),
        finalizer,
        &ctx,
        &mut store,
        &workload.sim,
    );
    let metrics = measure(
        generated.index as usize,
        &generated.batch,
        &generated.needles,
        &record,
        Some(budget.units),
        &ctx.reminders,
    );
    let more = also(&record, &ctx.reminders);
    (metrics, more)
}

/// The strategy whose window leak a run with `--tokenizer` measures.
const WINDOW_RELATIVE: &str = "window-relative";

/// The empty token tally of the row at `budget` of `strategy` in a run counting tokens with `settings`: its token
/// budget, and for `window-relative` at a window budget, the window whose leak it measures.
fn token_tally(
    settings: &TokenSettings,
    budget: &ScenarioBudget,
    strategy: &StrategyKey,
) -> TokenTally {
    let token_budget = settings
        .token_budget
        .and_then(|b| b.tokens(budget.window_tokens));
    let leak_window = (strategy.as_str() == WINDOW_RELATIVE)
        .then_some(budget.window_tokens)
        .flatten();
    TokenTally::new(token_budget, leak_window)
}

/// Aggregates per-batch records (from one run or from merged shards) into results, in the order of `inputs`.
/// Each record is added to the [`RowSummary`] of its row, so the order of `records` does not matter.
pub fn aggregate(inputs: RunInputs, records: &[BatchRecord]) -> RunResults {
    let mut rows = RowSummaries::new(&inputs);
    for r in records {
        rows.add(r);
    }
    rows.finish(inputs)
}

/// The summaries of a run's rows, filled record by record (or summary by summary, when shards are merged).
#[derive(Debug, Clone, Default)]
pub struct RowSummaries {
    rows: BTreeMap<RowAt, RowTally>,
    /// Row keys of `inputs` by name, for finding a record's row, with the row's empty tally.
    index: BTreeMap<(String, BudgetLabel, StrategyKey), (RowAt, RowTally)>,
}

/// Where a row is in a run's inputs: scenario, budget and strategy, by position.
type RowAt = (usize, usize, usize);

/// Everything a row is computed from: its summary, the tally of its times and (with `--tokenizer`) of its tokens.
#[derive(Debug, Clone, Default)]
struct RowTally {
    summary: RowSummary,
    cost: CostTally,
    tokens: Option<TokenTally>,
}

impl RowSummaries {
    /// No rows yet, of a run of `inputs`.
    pub fn new(inputs: &RunInputs) -> RowSummaries {
        let mut index = BTreeMap::new();
        for (w, info) in inputs.scenarios.iter().enumerate() {
            for (b, budget) in info.budgets.iter().enumerate() {
                for (s, strategy) in inputs.strategies.iter().enumerate() {
                    let tokens = inputs
                        .tokens
                        .as_ref()
                        .map(|settings| token_tally(settings, budget, strategy));
                    let empty = RowTally {
                        tokens,
                        ..RowTally::default()
                    };
                    index.insert(
                        (info.name.clone(), budget.label, strategy.clone()),
                        ((w, b, s), empty),
                    );
                }
            }
        }
        RowSummaries {
            rows: BTreeMap::new(),
            index,
        }
    }

    fn slot(&mut self, key: RowKey<'_>) -> Option<&mut RowTally> {
        let (at, empty) =
            self.index
                .get(&(key.scenario.to_string(), key.budget, key.strategy.clone()))?;
        Some(self.rows.entry(*at).or_insert_with(|| empty.clone()))
    }

    /// Adds one record to its row; a record of no row of the inputs is left out.
    pub fn add(&mut self, r: &BatchRecord) {
        if let Some(row) = self.slot(r.key()) {
            row.summary.add(&r.metrics);
            row.cost.add(r.cost());
            if let (Some(tally), Some(turn)) = (&mut row.tokens, &r.metrics.tokens) {
                tally.add(turn);
            }
        }
    }

    /// Adds the summaries of a row (of a shard) to the same row here.
    pub fn merge(&mut self, row: &Aggregate) {
        if let Some(mine) = self.slot(row.key()) {
            mine.summary.merge(&row.summary);
            mine.cost.merge(&row.cost.summary);
            if let (Some(tally), Some(theirs)) = (&mut mine.tokens, &row.tokens) {
                tally.merge(&theirs.summary);
            }
        }
    }

    /// The results of `inputs` with one row per summary, in run order.
    pub fn finish(self, inputs: RunInputs) -> RunResults {
        let rows = self
            .rows
            .into_iter()
            .map(|((w, b, s), tally)| {
                let info = &inputs.scenarios[w];
                let budget = &info.budgets[b];
                let key = RowKey {
                    scenario: &info.name,
                    budget: budget.label,
                    strategy: &inputs.strategies[s],
                };
                Aggregate::from_summary(
                    key,
                    info.mode,
                    info.legacy,
                    budget.units,
                    tally.summary,
                    tally.cost,
                    tally.tokens,
                )
            })
            .collect::<Vec<_>>();
        RunResults {
            schema_version: SCHEMA_VERSION,
            crate_version: env!("CARGO_PKG_VERSION").into(),
            seed: inputs.scenarios.first().map_or(0, |s| s.seed),
            inputs,
            sha256: None,
            ranking: crate::metrics::ranking::rank(&rows),
            pareto: crate::metrics::pareto::fronts(&rows),
            used_ranking: crate::metrics::used_ranking::rank_used(&rows),
            rows,
        }
    }
}
