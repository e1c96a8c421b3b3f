//! A finalize job: one batch, one strategy, one backend and a budget, giving the report that
//! `budgetlab finalize` prints. The CLI only converts its flags into a [`FinalizeJob`]. The strategy is a
//! built-in one or an external program ([`JobStrategy`]); an external one's fault is the job's error. With
//! `--tokenizer`, the report also gives the tokens of what the model receives (and whether they fit
//! `--token-budget`).

use std::time::Instant;

use serde::Serialize;

use crate::batch_line::parse_batch_line;
use crate::budget::BudgetContext;
use crate::error::{Error, Result};
use crate::external::{ExternalFinalizer, ExternalOptions, ExternalStrategies, ExternalStrategy};
use crate::finalize::{Finalizer, PersistAttempt, StrategyConfig, StrategyName};
use crate::model::Batch;
use crate::persist::{ArtifactStore, FaultyStore, FsStore, MemoryStore};
use crate::tokens::{RequestTokens, TokenCheck};

/// The most runs `finalize --time N` takes: a million runs of one batch measure any batch well, and keeping
/// their times stays a few megabytes.
pub const MAX_TIMED_RUNS: u32 = 1_000_000;

/// Where a job's artifacts go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// Kept in memory; paths are reported as if under the artifact directory.
    #[default]
    Memory,
    /// Real files under the artifact directory.
    Fs,
}

/// The strategy a finalize job runs.
#[derive(Debug, Clone)]
pub enum JobStrategy {
    /// A built-in strategy, with the job's parameters.
    Builtin(StrategyName),
    /// A program speaking docs/protocol.md, run as [`ExternalFinalizer`] with these options.
    External(ExternalStrategy, ExternalOptions),
}

impl JobStrategy {
    /// The strategy `name` names: one of `externals` when registered there, else a built-in one.
    pub fn resolve(
        name: &str,
        externals: &ExternalStrategies,
        options: &ExternalOptions,
    ) -> Result<JobStrategy> {
        match externals.get(name) {
            Some(external) => Ok(JobStrategy::External(external.clone(), options.clone())),
            None => Ok(JobStrategy::Builtin(name.parse()?)),
        }
    }
}

impl Backend {
    /// A fresh backend of this kind under `dir`.
    pub fn store(self, dir: &str) -> Box<dyn ArtifactStore> {
        match self {
            Backend::Memory => Box::new(MemoryStore::new(dir)),
            Backend::Fs => Box::new(FsStore::new(dir)),
        }
    }
}

/// A validated finalize job.
#[derive(Debug, Clone)]
pub struct FinalizeJob {
    /// The strategy to run.
    pub strategy: JobStrategy,
    /// The built-in strategy's parameters.
    pub config: StrategyConfig,
    /// Budget, context window and lifecycle reminders.
    pub ctx: BudgetContext,
    /// The artifact directory (paths are `dir/<id>.txt`).
    pub artifact_dir: String,
    /// The persistence backend.
    pub backend: Backend,
    /// Persistence ids whose writes fail.
    pub fail_ids: Vec<String>,
    /// The tokenizer and token budget the finalized batch is counted with (`--tokenizer`); `None` counts
    /// nothing.
    pub tokens: Option<TokenCheck>,
}

/// What `budgetlab finalize` prints: the finalized entries and every persistence attempt in call order.
#[derive(Debug, Clone, Serialize)]
pub struct FinalizeReport {
    /// The finalized batch.
    pub entries: Batch,
    /// Every persistence attempt.
    pub persisted: Vec<PersistAttempt>,
    /// The tokens of the finalized batch's budgeted fields, what the model receives (`--tokenizer` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<RequestTokens>,
}

impl FinalizeJob {
    /// A fresh backend as configured.
    pub fn store(&self) -> Box<dyn ArtifactStore> {
        let inner = self.backend.store(&self.artifact_dir);
        if self.fail_ids.is_empty() {
            inner
        } else {
            Box::new(FaultyStore::new(inner, self.fail_ids.iter().cloned()))
        }
    }

    /// Checks the artifact directory and, for the filesystem backend, creates it and resolves it once to its
    /// canonical absolute path, so that the reported paths say where the files really go (through a symlink
    /// given as the directory, say) and every artifact goes there. An empty directory is refused: the paths
    /// would name the file system's root.
    pub fn resolve_artifact_dir(mut self) -> Result<FinalizeJob> {
        if self.artifact_dir.is_empty() {
            return Err(Error::invalid(
                "--artifact-dir",
                "",
                "must name a directory (`.` for the current one)",
            ));
        }
        if self.backend == Backend::Fs {
            let dir = &self.artifact_dir;
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            let resolved = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
            self.artifact_dir = resolved.into_os_string().into_string().map_err(|path| {
                Error::invalid(
                    "--artifact-dir",
                    dir,
                    format!(
                        "resolves to {}, which is not valid UTF-8",
                        path.to_string_lossy()
                    ),
                )
            })?;
        }
        Ok(self)
    }

    /// Finalizes an already parsed batch; an external strategy's fault is the error (its request saved).
    pub fn run(&self, batch: Batch) -> Result<FinalizeReport> {
        match &self.strategy {
            JobStrategy::Builtin(name) => {
                Ok(self.run_with(name.build_with(&self.config).as_ref(), batch))
            }
            JobStrategy::External(strategy, options) => {
                let finalizer = ExternalFinalizer::new(strategy.clone(), options.clone());
                let report = self.run_with(&finalizer, batch);
                finalizer.check()?;
                Ok(report)
            }
        }
    }

    /// Finalizes `batch` with `finalizer` and this job's context and backend.
    pub fn run_with(&self, finalizer: &dyn Finalizer, batch: Batch) -> FinalizeReport {
        let mut store = self.store();
        let outcome = finalizer.finalize(batch, &self.ctx, store.as_mut());
        let tokens = self
            .tokens
            .as_ref()
            .map(|t| t.count(&outcome.batch, &self.ctx.reminders));
        FinalizeReport {
            entries: outcome.batch,
            persisted: outcome.persisted,
            tokens,
        }
    }

    /// Finalizes `batch` `runs` times in-process, each time on a fresh copy and with a fresh backend, and
    /// reports the wall-clock time of the finalization alone (copying and backend set-up are not timed; an
    /// external strategy's child is started before the first run). `runs` is 1 to [`MAX_TIMED_RUNS`].
    pub fn time(&self, batch: &Batch, runs: usize) -> Result<Timing> {
        if !(1..=MAX_TIMED_RUNS as usize).contains(&runs) {
            return Err(Error::invalid(
                "--time",
                runs.to_string(),
                format!("must be between 1 and {MAX_TIMED_RUNS}"),
            ));
        }
        match &self.strategy {
            JobStrategy::Builtin(name) => {
                Ok(self.time_with(name.build_with(&self.config).as_ref(), batch, runs))
            }
            JobStrategy::External(strategy, options) => {
                let finalizer = ExternalFinalizer::new(strategy.clone(), options.clone());
                finalizer.start()?;
                let timing = self.time_with(&finalizer, batch, runs);
                finalizer.check()?;
                Ok(timing)
            }
        }
    }

    /// [`FinalizeJob::time`] with `finalizer`.
    pub fn time_with(&self, finalizer: &dyn Finalizer, batch: &Batch, runs: usize) -> Timing {
        let mut samples: Vec<u128> = Vec::with_capacity(runs);
        for _ in 0..runs {
            let copy = batch.clone();
            let mut store = self.store();
            let start = Instant::now();
            let outcome = finalizer.finalize(copy, &self.ctx, store.as_mut());
            samples.push(start.elapsed().as_nanos());
            drop(std::hint::black_box(outcome));
        }
        Timing::from_samples(samples)
    }

    /// Parses `input` (named `source_name` in errors; either form of a batch line, its context told to the
    /// strategy) and finalizes it.
    pub fn run_bytes(&self, input: &[u8], source_name: &str) -> Result<FinalizeReport> {
        let line = parse_batch_line(input, source_name)?;
        match line.context {
            None => self.run(line.entries),
            Some(turn) => {
                let mut job = self.clone();
                job.ctx.turn = Some(turn);
                job.run(line.entries)
            }
        }
    }
}

/// Wall-clock times of repeated runs, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Timing {
    /// Number of runs.
    pub runs: usize,
    /// Median (the lower middle for an even count).
    pub median_ns: u128,
    /// Fastest run.
    pub min_ns: u128,
    /// Slowest run.
    pub max_ns: u128,
}

impl Timing {
    /// Summarises samples (nanoseconds); all zero for no samples.
    pub fn from_samples(mut samples: Vec<u128>) -> Timing {
        samples.sort_unstable();
        let pick = |i: usize| samples.get(i).copied().unwrap_or(0);
        Timing {
            runs: samples.len(),
            median_ns: pick(samples.len().saturating_sub(1) / 2),
            min_ns: pick(0),
            max_ns: samples.last().copied().unwrap_or(0),
        }
    }
}

impl std::fmt::Display for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "median {} ns over {} runs (min {} ns, max {} ns)",
            self.median_ns, self.runs, self.min_ns, self.max_ns
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_summary_is_order_free() {
        let t = Timing::from_samples(vec![50, 10, 40, 20]);
        assert_eq!((t.runs, t.median_ns, t.min_ns, t.max_ns), (4, 20, 10, 50));
        assert_eq!(Timing::from_samples(vec![]).runs, 0);
    }
}
