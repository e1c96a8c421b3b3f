//! `budgetlab run`: every (scenario, budget, strategy) of a plan, batch by batch through the runtime-boundary
//! simulation, measured and aggregated into [`RunResults`].
//!
//! Batches run in parallel (rayon), each generated from its own stream, and every result is put back in batch
//! order before anything is summed, so a run gives the same results on any number of threads and in any
//! sharding. Only the `cost` figures (wall-clock time per simulated turn, and the strategy's time over the
//! floor's, see [`cost`]) differ between runs.

pub mod cost;
#[cfg(test)]
mod external_tests;
mod merge;
mod plan;
mod results;

pub use cost::{Measured, Slowdown};
pub use merge::{merge, parse_records, shard_list, ShardReport};
pub(crate) use plan::token_counting;
pub use plan::{
    check_threads, PlanRequest, RecordedBatches, TokenRequest, Workloads, DEFAULT_MAX_BATCHES,
    QUICK_BATCHES, THREADS_PER_CORE,
};
pub use results::{
    sha256_hex_bytes, BatchFilesSha256, BatchRecord, RunInputs, RunResults, ShardInfo,
    WorkloadInfo, WorkloadSource, BATCHES_CSV, BATCHES_JSONL, SCHEMA_VERSION,
};

use std::collections::BTreeMap;
use std::time::Instant;

use rayon::prelude::*;

use crate::budget::{Budget, BudgetContext};
use crate::error::Result;
use crate::external::ExternalRegistry;
use crate::finalize::{Finalizer, StrategyConfig, StrategyName};
use crate::generate::{GeneratedBatch, Generator, Shard};
use crate::metrics::{
    measure, Aggregate, RowKey, StrategyKey, TokenSettings, TokenSummary, TurnCost, TurnTokens,
};
use crate::model::{parse_jsonl_batches, Batch};
use crate::persist::{FaultyStore, MemoryStore};
use crate::scenario::{Scenario, ScenarioBudget};
use crate::simulate::{simulate_turn, SimConfig};
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
        }
    }

    /// A workload of recorded batches, one JSON array per line of `jsonl`, run at `budgets`.
    pub fn from_recorded(
        name: &str,
        jsonl: &[u8],
        budgets: &[u64],
        sim: SimConfig,
    ) -> Result<Workload> {
        let (batches, text) = parse_jsonl_batches(jsonl, name)?;
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
        })
    }

    fn batch(&self, index: u64) -> GeneratedBatch {
        match &self.source {
            Source::Generated(g) => g.batch(index),
            Source::Recorded(batches) => {
                let batch = batches[index as usize].clone();
                GeneratedBatch {
                    index,
                    needles: crate::needles::detect_batch(&batch),
                    batch,
                }
            }
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

    /// Runs the plan; `progress` is called with the number of turns finished since its last call.
    ///
    /// An external strategy that faults makes the rest of the run pointless: the batches not started yet are
    /// skipped, and the caller, which must check [`ExternalRegistry::finish`] before using the output, reports
    /// the fault instead.
    pub fn run(&self, progress: &(dyn Fn(u64) + Sync)) -> RunOutput {
        let mut records = Vec::new();
        for workload in &self.workloads {
            let finalizers: Vec<Strategy> = self
                .strategies
                .iter()
                .map(|s| Strategy {
                    key: StrategyKey::of(s),
                    finalizer: s.build_with(&workload.strategy_config),
                    repeat: self.slowdown.factor(s),
                    // A program's every call is a request: it is timed once, not sampled (see `Measured`).
                    samples: if s.is_external() { 1 } else { cost::SAMPLES },
                })
                .collect();
            let indices: Vec<u64> = self.shard.batches(workload.info.batches).collect();
            let per_batch: Vec<Vec<BatchRecord>> = indices
                .par_iter()
                .map(|&i| {
                    if self.externals.faulted() {
                        return Vec::new();
                    }
                    let out = evaluate(workload, &finalizers, i, self.tokens.as_ref());
                    progress(out.len() as u64);
                    out
                })
                .collect();
            // Reorder from (batch, budget, strategy) to (budget, strategy, batch).
            let mut grouped: BTreeMap<(usize, usize), Vec<BatchRecord>> = BTreeMap::new();
            for batch_records in per_batch {
                for (k, r) in batch_records.into_iter().enumerate() {
                    let key = (k / finalizers.len(), k % finalizers.len());
                    grouped.entry(key).or_default().push(r);
                }
            }
            records.extend(grouped.into_values().flatten());
        }
        let results = self.aggregate(&records);
        RunOutput { results, records }
    }

    fn inputs(&self) -> RunInputs {
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

    fn aggregate(&self, records: &[BatchRecord]) -> RunResults {
        aggregate(self.inputs(), records)
    }
}

/// A strategy of a run, built for a workload.
struct Strategy {
    key: StrategyKey,
    finalizer: Box<dyn Finalizer>,
    /// How many times it does its work: 1 but under the test-only [`Slowdown`].
    repeat: u32,
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
    for budget in &workload.info.budgets {
        let mut ctx = BudgetContext::new(Budget::Units(budget.units as i64));
        ctx.context_window_tokens = budget.window_tokens;
        for strategy in finalizers {
            let memory = MemoryStore::new("tool-results");
            let fault_seed = workload.info.seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut store = FaultyStore::new(memory, []).with_rate(workload.fault_rate, fault_seed);
            let turn = generated.batch.clone();
            let measured = Measured::new(strategy.finalizer.as_ref(), strategy.repeat)
                .with_samples(strategy.samples);
            let start = Instant::now();
            let record = simulate_turn(turn, &measured, &ctx, &mut store, &workload.sim);
            let elapsed = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
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

/// The strategy whose window leak a run with `--tokenizer` measures.
const WINDOW_RELATIVE: &str = "window-relative";

/// Aggregates per-batch records (from one run or from merged shards) into results, in the order of `inputs`.
pub fn aggregate(inputs: RunInputs, records: &[BatchRecord]) -> RunResults {
    let mut groups: BTreeMap<(usize, usize, usize), Vec<&BatchRecord>> = BTreeMap::new();
    for r in records {
        let Some(w) = inputs.scenarios.iter().position(|s| s.name == r.scenario) else {
            continue;
        };
        let Some(b) = inputs.scenarios[w]
            .budgets
            .iter()
            .position(|b| b.label == r.budget_label)
        else {
            continue;
        };
        let Some(s) = inputs.strategies.iter().position(|s| *s == r.strategy) else {
            continue;
        };
        groups.entry((w, b, s)).or_default().push(r);
    }
    let rows = groups
        .into_iter()
        .map(|((w, b, s), mut group)| {
            group.sort_by_key(|r| r.metrics.batch);
            let info = &inputs.scenarios[w];
            let budget = &info.budgets[b];
            let metrics: Vec<_> = group.iter().map(|r| r.metrics.clone()).collect();
            let costs: Vec<TurnCost> = group.iter().map(|r| r.cost()).collect();
            let key = RowKey {
                scenario: &info.name,
                budget: budget.label,
                strategy: &inputs.strategies[s],
            };
            let mut row = Aggregate::from_batches(
                key,
                info.mode,
                info.legacy,
                budget.units,
                &metrics,
                &costs,
            );
            row.tokens = inputs.tokens.as_ref().map(|settings| {
                let turns: Vec<&TurnTokens> =
                    metrics.iter().filter_map(|m| m.tokens.as_ref()).collect();
                let token_budget = settings
                    .token_budget
                    .and_then(|b| b.tokens(budget.window_tokens));
                let leak_window = (inputs.strategies[s].as_str() == WINDOW_RELATIVE)
                    .then_some(budget.window_tokens)
                    .flatten();
                TokenSummary::from_turns(&turns, token_budget, leak_window)
            });
            row
        })
        .collect();
    RunResults {
        schema_version: SCHEMA_VERSION,
        crate_version: env!("CARGO_PKG_VERSION").into(),
        seed: inputs.scenarios.first().map_or(0, |s| s.seed),
        inputs,
        sha256: None,
        rows,
    }
}
