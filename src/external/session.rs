//! A command's external strategies from start to finish: where their stderr logs go ([`ExternalLogs`]), the
//! children started before the command's work (so that a program that cannot start stops the command before
//! anything runs), stopped and reaped after it, and the fault, if one happened, as the outcome
//! ([`ExternalRegistry::run_beside`]). What becomes of the logs of a fault is the caller's: saved where they are
//! ([`Stopped::saved_into`]) or, for a report folder, set aside with it.

use std::path::Path;

use super::{save_and_describe, ExternalFault, ExternalRegistry};
use crate::error::{Error, Result};
use crate::finalize::StrategyName;

/// How a command's external strategies log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExternalLogs<'a> {
    /// Into the report folder's `external/` (a failed run's into `<target>.failed/external/`).
    InReport,
    /// Into this folder (`--external-log`), as `budgetlab finalize` does.
    In(&'a Path),
}

/// How work done beside external children ended when it did not end well.
#[derive(Debug)]
pub enum Stopped {
    /// The work failed, or a child could not start; no child faulted.
    Error(Error),
    /// An external strategy faulted (whatever the work returned).
    Fault(Box<ExternalFault>),
}

impl ExternalRegistry {
    /// Runs `work` with the external strategies of this registry among `used` started, their stderr logs going
    /// into the folder `logs` (when any of `used` is external). Every child is stopped and reaped before this
    /// returns; a fault of one outweighs what `work` returned.
    pub fn run_beside<T>(
        &self,
        used: &[StrategyName],
        logs: &Path,
        work: impl FnOnce() -> Result<T>,
    ) -> std::result::Result<T, Stopped> {
        if used.iter().any(StrategyName::is_external) {
            self.set_dir(logs);
        }
        let out = self.start(used).and_then(|()| work());
        match self.finish() {
            Some(fault) => Err(Stopped::Fault(Box::new(fault))),
            None => out.map_err(Stopped::Error),
        }
    }
}

impl Stopped {
    /// The error, the logs staying in `logs`: a fault's request is saved beside them, and its line names where
    /// the request and the child's stderr are.
    pub fn saved_into(self, logs: &Path) -> Error {
        match self {
            Stopped::Error(e) => e,
            Stopped::Fault(fault) => save_and_describe(&fault, logs),
        }
    }
}
