//! Faults of an external strategy: what went wrong, at which request, and the request kept so that it can be
//! saved and replayed.
//!
//! A fault is the child's and ends the run. It is reported as one line naming the strategy, the request and the
//! problem, with where the request was saved and where the child's stderr went. The request is saved as two
//! files in the folder the caller chooses: `<name>-request-<id>.json`, the batch alone (what `budgetlab finalize
//! --input` reads, so the same batch can be run through any strategy), and `<name>-request-<id>.jsonl`, the
//! handshake and the request exactly as they were sent (piped into the child's command, it replays the exchange).
//! Both are new files, created exclusively; a taken name gets a `.<n>` suffix.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::budget::Budget;
use crate::error::Error;

use super::child::ChannelError;

/// What went wrong with a child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The channel failed: the child could not start, exited, took too long or wrote too long a line.
    Channel(ChannelError),
    /// The handshake answer is not the protocol's (not JSON, another protocol or version).
    Handshake(String),
    /// A line that is not a JSON response of the documented shape.
    Malformed(String),
    /// Lone UTF-16 surrogate escapes in the answer (refused rather than replaced).
    LoneSurrogates {
        /// How many the line holds.
        count: u64,
        /// The byte offset of the first one.
        first: usize,
    },
    /// The answer carried another request's id.
    WrongId {
        /// The id sent.
        expected: u64,
        /// The id answered (`None`: none).
        got: Option<u64>,
    },
    /// The child answered with an error.
    ChildError(String),
    /// The answer breaks the request: a different number of entries, a persisted record that names no entry.
    Inconsistent(String),
    /// The harness injects persistence failures and the child did not declare that it honours them.
    NoFaultInjection,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Channel(e) => write!(f, "the child {e}"),
            Problem::Handshake(m) => write!(f, "bad handshake answer: {m}"),
            Problem::Malformed(m) => write!(f, "malformed answer: {m}"),
            Problem::LoneSurrogates { count, first } => write!(
                f,
                "malformed answer: {count} lone UTF-16 surrogate escape{} (\\udXXX without its other half; the \
                 first at byte {}): a surrogate pair was split, and JSON text must be well-formed Unicode",
                if *count == 1 { "" } else { "s" },
                first + 1
            ),
            Problem::WrongId { expected, got } => match got {
                Some(got) => write!(f, "answered request {got} instead of {expected}"),
                None => write!(f, "answered without the request's id {expected}"),
            },
            Problem::ChildError(m) => write!(f, "the child reported an error: {m}"),
            Problem::Inconsistent(m) => write!(f, "inconsistent answer: {m}"),
            Problem::NoFaultInjection => f.write_str(
                "persistence failures are injected here and the child does not declare the \
                 `persist-faults` capability (docs/protocol.md)",
            ),
        }
    }
}

/// A fault, with the request that caused it.
#[derive(Debug, Clone)]
pub struct ExternalFault {
    /// The strategy's registered name.
    pub strategy: String,
    /// The request's id; `None` when the child failed before any request (to start, or at the handshake).
    pub request: Option<u64>,
    /// Whether the fault came at the handshake (otherwise at the start, or at `request`).
    pub handshake: bool,
    /// What went wrong.
    pub problem: Problem,
    /// The batch of the request, as a JSON array.
    pub batch: Option<Vec<u8>>,
    /// The handshake and request lines as sent.
    pub exchange: Option<Vec<u8>>,
    /// The request's budget and context window, for the replay command.
    pub budget: Option<(Budget, Option<u64>)>,
    /// The child's stderr log, if it wrote one.
    pub log: Option<PathBuf>,
}

/// Where a fault's request was saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedRequest {
    /// The batch, for `budgetlab finalize --input`.
    pub batch: PathBuf,
    /// The handshake and request lines, for the child's own command.
    pub exchange: PathBuf,
}

impl ExternalFault {
    /// Where the fault came: `start`, `handshake` or `request N`.
    pub fn at(&self) -> String {
        match (self.request, self.handshake) {
            (Some(id), _) => format!("request {id}"),
            (None, true) => "handshake".into(),
            (None, false) => "start".into(),
        }
    }

    /// Saves the request in `dir` (made if missing); `None` when the fault came before any request.
    pub fn save(&self, dir: &Path) -> Result<Option<SavedRequest>, Error> {
        let (Some(id), Some(batch), Some(exchange)) = (self.request, &self.batch, &self.exchange)
        else {
            return Ok(None);
        };
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let stem = format!("{}-request-{id}", self.strategy);
        for n in 0..10_000u32 {
            let base = if n == 0 {
                stem.clone()
            } else {
                format!("{stem}.{n}")
            };
            let batch_path = dir.join(format!("{base}.json"));
            let exchange_path = dir.join(format!("{base}.jsonl"));
            match create_new(&batch_path, batch) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(batch_path, e)),
            }
            match create_new(&exchange_path, exchange) {
                Ok(()) => {}
                Err(e) => {
                    // The pair goes together: the batch file just made is removed (budgetlab made it).
                    let _ = fs::remove_file(&batch_path);
                    if e.kind() == io::ErrorKind::AlreadyExists {
                        continue;
                    }
                    return Err(Error::io(exchange_path, e));
                }
            }
            return Ok(Some(SavedRequest {
                batch: batch_path,
                exchange: exchange_path,
            }));
        }
        Err(Error::refused(
            dir.join(format!("{stem}.json")),
            "and 10,000 numbered copies exist already",
        ))
    }

    /// The fault as the library's error: one line with the problem, the saved request and the replay command,
    /// and the stderr log.
    pub fn to_error(&self, saved: Option<&SavedRequest>) -> Error {
        Error::External {
            strategy: self.strategy.clone(),
            at: self.at(),
            problem: self.describe(saved),
        }
    }

    /// The problem, where the request was saved with the command that replays it, and the stderr log.
    pub fn describe(&self, saved: Option<&SavedRequest>) -> String {
        let mut problem = self.problem.to_string();
        if let Some(saved) = saved {
            problem.push_str(&format!(
                "; the request is saved in {} (replay: budgetlab finalize --input {}",
                saved.exchange.display(),
                saved.batch.display()
            ));
            if let Some((budget, window)) = self.budget {
                problem.push_str(&format!(" --budget {budget}"));
                if let Some(window) = window {
                    problem.push_str(&format!(" --context-window {window}"));
                }
            }
            problem.push(')');
        }
        if let Some(log) = &self.log {
            problem.push_str(&format!("; its stderr is in {}", log.display()));
        }
        problem
    }
}

fn create_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_data());
    if written.is_err() {
        let _ = fs::remove_file(path);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault() -> ExternalFault {
        ExternalFault {
            strategy: "mine".into(),
            request: Some(3),
            handshake: false,
            problem: Problem::WrongId {
                expected: 3,
                got: Some(2),
            },
            batch: Some(b"[]".to_vec()),
            exchange: Some(
                b"{\"protocol\":\"budgetlab-finalizer\",\"version\":1}\n{\"id\":3}\n".to_vec(),
            ),
            budget: Some((Budget::Units(500), Some(8_000))),
            log: Some(PathBuf::from("logs/mine.0.stderr.log")),
        }
    }

    #[test]
    fn saves_new_files_and_says_how_to_replay() {
        let dir = tempfile::tempdir().unwrap();
        let f = fault();
        let first = f.save(dir.path()).unwrap().unwrap();
        assert_eq!(first.batch, dir.path().join("mine-request-3.json"));
        assert_eq!(fs::read(&first.batch).unwrap(), b"[]");
        assert_eq!(
            fs::read(&first.exchange).unwrap(),
            f.exchange.clone().unwrap()
        );
        // A second fault of the same id never replaces the first files.
        let second = f.save(dir.path()).unwrap().unwrap();
        assert_eq!(second.batch, dir.path().join("mine-request-3.1.json"));
        assert_eq!(second.exchange, dir.path().join("mine-request-3.1.jsonl"));
        let line = f.to_error(Some(&first)).to_string();
        assert_eq!(
            line,
            format!(
                "external strategy mine: request 3: answered request 2 instead of 3; the request is saved in \
                 {} (replay: budgetlab finalize --input {} --budget 500 --context-window 8000); its stderr is \
                 in logs/mine.0.stderr.log",
                first.exchange.display(),
                first.batch.display()
            )
        );
        assert!(!line.contains('\n'));
    }

    #[test]
    fn a_fault_before_any_request_saves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = fault();
        f.request = None;
        f.handshake = true;
        assert_eq!(f.save(dir.path()).unwrap(), None);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        assert!(f
            .to_error(None)
            .to_string()
            .starts_with("external strategy mine: handshake: "));
        f.handshake = false;
        assert_eq!(f.at(), "start");
    }
}
