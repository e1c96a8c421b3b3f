//! The one way a report folder is written: [`ReportWriter`], with one entry point per way a report is made (a
//! run streamed into it, shards merged into it, a sweep, a profile, any other command's files) and one to redraw
//! the charts and page of a folder already there. Every folder is made in its staging folder and swapped into
//! place only when complete (`folder`), so an interrupted command never leaves a half-written report that looks
//! complete.
//!
//! A command that runs external strategies (`run`, `sweep`, `conform`) gives the writer its
//! [`ExternalRegistry`]: the children are started and stopped beside the work ([`ExternalRegistry::run_beside`])
//! and their stderr logs written into the staged folder's `external/` as they come. When the command ends well,
//! the whole folder, logs included, takes the target's place in one step, as any report does. When an external
//! strategy faults, the report at the target is left exactly as it was: the fault's request is saved into
//! `external/` beside the logs (`NAME-request-ID.json`, which `budgetlab finalize --input` replays, and
//! `NAME-request-ID.jsonl`, the exchange as sent), the fault's line into `fault.txt`, and the folder goes beside
//! the target as `<target>.failed` (itself a report folder: replaced by the next failed run, refused, before the
//! command runs, when something budgetlab did not make is there). With `--external-log DIR`
//! ([`ExternalLogs::In`]) the logs and the request go to `DIR` instead, and the report folder is written as usual.

use std::path::{Path, PathBuf};

use super::batches::BatchFiles;
use super::folder::{check_aside, check_folder, write_folder, PendingFolder};
use super::{export, pages, Redrawn};
use crate::error::{Error, Result};
use crate::external::{ExternalFault, ExternalLogs, ExternalRegistry, SavedRequest, Stopped};
use crate::finalize::StrategyName;
use crate::history::{HistoryVerdict, Table};
use crate::profile::ProfileReport;
use crate::run::{RunPlan, RunResults, ShardReport};
use crate::sweep::{SweepPlan, SweepResults};

/// The folder of a report that holds the external strategies' logs and a fault's request.
pub const EXTERNAL_DIR: &str = "external";

/// What is appended to a report folder's name for the folder of a run an external strategy failed.
pub const FAILED_SUFFIX: &str = ".failed";

/// The file of a failed run's folder that holds the fault's line.
pub const FAULT_FILE: &str = "fault.txt";

/// Files of a report folder: (name relative to the folder, bytes).
type Files = Vec<(String, Vec<u8>)>;

/// Writes the report folder `dir`: see the module's description.
#[derive(Clone, Copy)]
pub struct ReportWriter<'a> {
    dir: &'a Path,
    externals: Option<Externals<'a>>,
    /// Whether a run's `results.json` is written without its resamples ([`RunResults::drop_resamples`]).
    compact: bool,
}

impl std::fmt::Debug for ReportWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReportWriter")
            .field("dir", &self.dir)
            .field("externals", &self.externals.map(|e| (e.used, e.logs)))
            .finish()
    }
}

/// The external strategies of a command, and where they log.
#[derive(Clone, Copy)]
struct Externals<'a> {
    registry: &'a ExternalRegistry,
    used: &'a [StrategyName],
    logs: ExternalLogs<'a>,
}

impl Externals<'_> {
    /// Whether the logs go into the report folder: some strategy used is external and no `--external-log`.
    fn in_report(&self) -> bool {
        self.logs == ExternalLogs::InReport && self.used.iter().any(StrategyName::is_external)
    }
}

/// A run whose records were streamed into its report folder ([`ReportWriter::run`]).
#[derive(Debug, Clone)]
pub struct StreamedRun {
    /// `results.json`, with the sha256 of the per-batch files written.
    pub results: RunResults,
    /// The tallies of its turns, for the charts.
    pub turns: super::TurnTallies,
}

impl<'a> ReportWriter<'a> {
    /// A writer of the report folder `dir`, for a command that runs no external strategy.
    pub fn new(dir: &'a Path) -> ReportWriter<'a> {
        ReportWriter {
            dir,
            externals: None,
            compact: false,
        }
    }

    /// The writer, writing a run's `results.json` without the rows' bootstrap resamples when `compact`
    /// ([`RunResults::drop_resamples`]).
    pub fn compact(self, compact: bool) -> ReportWriter<'a> {
        ReportWriter { compact, ..self }
    }

    /// The writer, for a command running the strategies `used`, some of which may be among `registry`'s, their
    /// logs going where `logs` says.
    pub fn with_externals(
        self,
        registry: &'a ExternalRegistry,
        used: &'a [StrategyName],
        logs: ExternalLogs<'a>,
    ) -> ReportWriter<'a> {
        ReportWriter {
            externals: Some(Externals {
                registry,
                used,
                logs,
            }),
            ..self
        }
    }

    /// Checks, before a command runs, that the folder can be written and, when external strategies log into
    /// it, that a failed run's folder could go beside it (errors to be named `--out` by the caller).
    pub fn check(&self) -> Result<()> {
        check_folder(self.dir)?;
        if self.externals.is_some_and(|e| e.in_report()) {
            check_aside(self.dir, FAILED_SUFFIX).map_err(|e| match e {
                Error::Refused { path, reason } => Error::refused(
                    path,
                    format!(
                        "(where a run whose external strategy fails keeps its logs and request) {reason}"
                    ),
                ),
                other => other,
            })?;
        }
        Ok(())
    }

    /// Runs `plan`, writing its per-batch files (`batches.jsonl`, `batches.csv`) into the staging folder as its
    /// batches complete, then `results.json` and `summary.md`, the charts and `index.html`: the memory the run
    /// takes does not depend on its number of batches. `progress` is as for [`RunPlan::run`].
    pub fn run(&self, plan: &RunPlan, progress: &(dyn Fn(u64) + Sync)) -> Result<StreamedRun> {
        self.write_with(
            |staging| {
                let mut files = BatchFiles::create(staging, &plan.inputs())?;
                let mut results = plan.run_into(progress, &mut files)?;
                if self.compact {
                    results.drop_resamples();
                }
                streamed(staging, results, files)
            },
            |run| pages::run_files(&run.results, Some(&run.turns), None),
        )
    }

    /// Merges `shards` into the report folder of the unsharded run, streaming the shards' records into its
    /// staging folder as [`ReportWriter::run`] streams a run's; the merged results. Nothing is left at the
    /// folder but the complete report, or what was there before when the shards are refused.
    pub fn merge(&self, shards: Vec<ShardReport>) -> Result<RunResults> {
        let run = self.write_with(
            |staging| {
                let (results, files) =
                    crate::run::merge_into(shards, |inputs| BatchFiles::create(staging, inputs))?;
                streamed(staging, results, files)
            },
            |run| pages::run_files(&run.results, Some(&run.turns), None),
        )?;
        Ok(run.results)
    }

    /// Runs the sweep `plan` and writes its folder (`sweep.json`, its charts and `index.html`); its results.
    pub fn sweep(&self, plan: &SweepPlan, progress: &(dyn Fn(u64) + Sync)) -> Result<SweepResults> {
        self.write_with(|_| Ok(plan.run(progress)), pages::sweep_folder_files)
    }

    /// Runs the tune `plan` and writes its folder (`tune.json`, `summary.md` and its charts); its results.
    pub fn tune(
        &self,
        plan: &crate::tune::TunePlan,
        progress: &(dyn Fn(crate::tune::Step) + Sync),
    ) -> Result<crate::tune::TuneResults> {
        self.write_with(|_| plan.run(progress), pages::tune_folder_files)
    }

    /// Writes a profile's folder (`budgetlab profile --out`): `profile.json`, `summary.md` and its charts.
    pub fn profile(&self, report: &ProfileReport) -> Result<()> {
        write_folder(self.dir, &pages::profile_folder_files(report)?)
    }

    /// Redraws the charts and `index.html` of the report folder from its `results.json` (with `batches.jsonl`
    /// when present) or, for a sweep's folder, its `sweep.json`. Only `charts/` and `index.html` are replaced,
    /// and only when budgetlab made them (or they are absent; an empty `charts/` is filled).
    pub fn redraw(&self) -> Result<Redrawn> {
        pages::redraw(self.dir, None)
    }

    /// Redraws the run's report folder as [`ReportWriter::redraw`] does, with the trend charts of `history`
    /// (`charts/trend-*.svg`, `.png`) on its page in a section of their own. A sweep's folder is refused.
    pub fn redraw_with_history(&self, history: &Table) -> Result<Redrawn> {
        if !self.dir.join("results.json").exists() {
            return Err(Error::refused(
                self.dir,
                "has no results.json: trends go on the page of a run's report folder",
            ));
        }
        pages::redraw(self.dir, Some(history))
    }

    /// Writes a nightly history's folder (`budgetlab history report --out`): `history.json`, the trend charts
    /// and `index.html`, replacing only a folder budgetlab made.
    /// The stems of the charts written, in page order.
    pub fn history(&self, table: &Table, verdict: &HistoryVerdict) -> Result<Vec<String>> {
        let files = pages::history_folder_files(table, verdict)?;
        let stems = files
            .iter()
            .filter_map(|(name, _)| name.strip_prefix("charts/")?.strip_suffix(".svg"))
            .map(str::to_string)
            .collect();
        write_folder(self.dir, &files)?;
        Ok(stems)
    }

    /// Runs `work` with the external strategies (if any) started and writes the folder with the files `work`
    /// wrote into the staging folder it is given and the files `files` makes of its result; when anything
    /// fails, the staging folder goes and the folder is left as it was. Every child is stopped (and reaped)
    /// before the folder is written. A fault is the error: one line naming the strategy, the request and the
    /// problem, where the request was saved with the command that replays it, and where the child's stderr is.
    pub fn write_with<T>(
        &self,
        work: impl FnOnce(&Path) -> Result<T>,
        files: impl FnOnce(&T) -> Result<Files>,
    ) -> Result<T> {
        let pending = PendingFolder::begin(self.dir)?;
        let Some(externals) = self.externals else {
            let out = work(pending.path())?;
            pending.commit(&files(&out)?)?;
            return Ok(out);
        };
        if !externals.in_report() {
            let logs = match externals.logs {
                ExternalLogs::In(folder) => folder,
                ExternalLogs::InReport => Path::new(""),
            };
            let out = externals
                .registry
                .run_beside(externals.used, logs, || work(pending.path()))
                .map_err(|stopped| stopped.saved_into(logs))?;
            pending.commit(&files(&out)?)?;
            return Ok(out);
        }
        let staged_logs = pending.path().join(EXTERNAL_DIR);
        let out = externals
            .registry
            .run_beside(externals.used, &staged_logs, || work(pending.path()));
        match out {
            Ok(out) => {
                pending.commit(&files(&out)?)?;
                Ok(out)
            }
            Err(Stopped::Error(e)) => Err(e),
            // A program that never started (or never spoke) without a word on stderr leaves nothing to keep.
            Err(Stopped::Fault(fault)) if fault.request.is_none() && fault.log.is_none() => {
                Err(fault.to_error(None))
            }
            Err(Stopped::Fault(fault)) => Err(set_aside(pending, &staged_logs, &fault)),
        }
    }
}

/// A run streamed into the staging folder `staging` through `files`: the per-batch files finished, their sha256
/// recorded in `results`, `results.json` and `summary.md` written beside them.
fn streamed(staging: &Path, mut results: RunResults, files: BatchFiles) -> Result<StreamedRun> {
    let (sha, turns) = files.finish()?;
    results.sha256 = Some(sha);
    for e in export::all() {
        let path = staging.join(e.file_name());
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let mut out = std::io::BufWriter::new(file);
        e.write(&results, &mut out)?;
        std::io::Write::flush(&mut out).map_err(|e| Error::io(&path, e))?;
    }
    Ok(StreamedRun { results, turns })
}

/// Saves the fault's request into the staged folder's logs and puts the folder beside the report; the fault's
/// line, naming where everything went.
fn set_aside(pending: PendingFolder, staged_logs: &Path, fault: &ExternalFault) -> Error {
    let saved = match fault.save(staged_logs) {
        Ok(saved) => saved,
        Err(e) => return kept_nothing(fault, &e),
    };
    // The line names the paths the folder will have once set aside.
    let staging = pending.path().to_path_buf();
    let aside = pending.aside_path(FAILED_SUFFIX);
    let moved = |p: &Path| -> PathBuf {
        p.strip_prefix(&staging)
            .map_or_else(|_| p.to_path_buf(), |rel| aside.join(rel))
    };
    let saved = saved.map(|s| SavedRequest {
        batch: moved(&s.batch),
        exchange: moved(&s.exchange),
    });
    let mut moved_fault = fault.clone();
    moved_fault.log = fault.log.as_deref().map(moved);
    let error = moved_fault.to_error(saved.as_ref());
    let text = format!(
        "budgetlab: {error}\n\nThe report folder this run was to replace was left as it was. This folder holds \
         the external strategies' stderr logs and the request that failed, in {EXTERNAL_DIR}/.\n"
    );
    match pending.set_aside(FAILED_SUFFIX, &[(FAULT_FILE, text.into_bytes())]) {
        Ok(_) => error,
        Err(e) => kept_nothing(fault, &e),
    }
}

/// The fault's line when its request and logs could not be kept.
fn kept_nothing(fault: &ExternalFault, e: &Error) -> Error {
    let mut bare = fault.clone();
    bare.log = None;
    Error::External {
        strategy: fault.strategy.clone(),
        at: fault.at(),
        problem: format!(
            "{}; its request and logs could not be kept: {e}",
            bare.describe(None)
        ),
    }
}
