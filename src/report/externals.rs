//! The report folder of a command that runs external strategies (`run`, `sweep`, `conform`): where the programs'
//! stderr logs and a fault's request go, without ever giving up the safety of a report folder.
//!
//! The folder is made in its staging folder from the start ([`PendingFolder`]), and the children's logs are
//! written into its `external/` folder as they come. When the command ends well, the report is added and the
//! whole folder, logs included, takes the target's place in one step, as any report does. When an external
//! strategy faults, the report at the target is left exactly as it was: the fault's request is saved into
//! `external/` beside the logs (`NAME-request-ID.json`, which `budgetlab finalize --input` replays, and
//! `NAME-request-ID.jsonl`, the exchange as sent), the fault's line into `fault.txt`, and the folder goes beside
//! the target as `<target>.failed` (itself a report folder: replaced by the next failed run, refused, before the
//! command runs, when something budgetlab did not make is there). With `--external-log DIR` the logs and the
//! request go to `DIR` instead, and the report folder is written as usual.

use std::path::{Path, PathBuf};

use super::folder::{check_aside, PendingFolder};
use crate::error::{Error, Result};
use crate::external::{save_and_describe, ExternalFault, ExternalRegistry, SavedRequest};
use crate::finalize::StrategyName;

/// The folder of a report that holds the external strategies' logs and a fault's request.
pub const EXTERNAL_DIR: &str = "external";

/// What is appended to a report folder's name for the folder of a run an external strategy failed.
pub const FAILED_SUFFIX: &str = ".failed";

/// The file of a failed run's folder that holds the fault's line.
pub const FAULT_FILE: &str = "fault.txt";

/// How a command's external strategies log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExternalLogs<'a> {
    /// Into the report folder's `external/` (a failed run's into `<target>.failed/external/`).
    InReport,
    /// Into this folder (`--external-log`), as `budgetlab finalize` does.
    In(&'a Path),
}

/// Checks, before a command runs, that its report folder `dir` can be written and, when it runs external
/// strategies logging into the report, that a failed run's folder could go beside it (errors to be named
/// `--out` by the caller).
pub fn check_folders(dir: &Path, used: &[StrategyName], logs: ExternalLogs<'_>) -> Result<()> {
    super::check_folder(dir)?;
    if logs == ExternalLogs::InReport && used.iter().any(StrategyName::is_external) {
        check_aside(dir, FAILED_SUFFIX).map_err(|e| match e {
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

/// Runs `work` with the external strategies of `externals` among `used` and writes the report folder `dir`
/// with the files `work` wrote into the staging folder it is given and the files `files` makes of its result
/// (see the module's description); when anything fails, the staging folder goes and `dir` is left as it was. The strategies used are started
/// before `work`, so that a program that cannot start stops the command before anything runs; every child is
/// stopped (and reaped) before the folder is written. A fault is the error: one line naming the strategy, the
/// request and the problem, where the request was saved with the command that replays it, and where the
/// child's stderr is.
pub fn write_with_externals<T>(
    dir: &Path,
    externals: &ExternalRegistry,
    used: &[StrategyName],
    logs: ExternalLogs<'_>,
    work: impl FnOnce(&Path) -> Result<T>,
    files: impl FnOnce(&T) -> Result<Vec<(String, Vec<u8>)>>,
) -> Result<T> {
    let uses_external = used.iter().any(StrategyName::is_external);
    let logs_dir = match logs {
        ExternalLogs::In(folder) => Some(folder),
        ExternalLogs::InReport if !uses_external => Some(Path::new("")),
        ExternalLogs::InReport => None,
    };
    let pending = PendingFolder::begin(dir)?;
    if let Some(folder) = logs_dir {
        if uses_external {
            externals.set_dir(folder);
        }
        let out = externals.start(used).and_then(|()| work(pending.path()));
        if let Some(fault) = externals.finish() {
            return Err(save_and_describe(&fault, folder));
        }
        let out = out?;
        pending.commit(&files(&out)?)?;
        return Ok(out);
    }
    let staged_logs = pending.path().join(EXTERNAL_DIR);
    externals.set_dir(&staged_logs);
    let out = externals.start(used).and_then(|()| work(pending.path()));
    match externals.finish() {
        None => {
            let out = out?;
            pending.commit(&files(&out)?)?;
            Ok(out)
        }
        // A program that never started (or never spoke) without a word on stderr leaves nothing to keep.
        Some(fault) if fault.request.is_none() && fault.log.is_none() => Err(fault.to_error(None)),
        Some(fault) => Err(set_aside(pending, &staged_logs, &fault)),
    }
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
