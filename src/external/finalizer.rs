//! [`ExternalFinalizer`]: a strategy run by a program, usable wherever a built-in strategy is.
//!
//! Children are started on demand and kept: a call takes an idle child from the pool (starting one, with its
//! handshake, when none is idle) and puts it back after its answer, so there are never more children than
//! threads finalizing at once, each started once and kept for the whole run. Each request goes to one child
//! and is answered before the next goes to it.
//!
//! What the child reports persisting becomes the outcome's persistence attempts, each recorded in the harness's
//! backend ([`ArtifactStore::record`]), so writes, bytes, duplicates and recoverability are measured from the
//! report exactly as from a built-in strategy's writes; the child's files themselves are never looked at.
//!
//! A fault (see [`ExternalFault`]) is kept, the child that caused it is killed, and from then on every call
//! returns its batch unchanged without asking any child: the caller checks [`ExternalFinalizer::check`] (or
//! [`ExternalFinalizer::fault`]) when its calls are done, and discards what it computed when there is one.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value;

use crate::budget::BudgetContext;
use crate::error::Error;
use crate::finalize::{Finalizer, Outcome, PersistAttempt};
use crate::model::{Batch, Entry};
use crate::persist::{normalise, ArtifactStore, Content};

use super::child::{ChildProcess, EXIT_GRACE};
use super::fault::{ExternalFault, Problem};
use super::protocol::{
    Answer, Hello, HelloReply, PersistFaults, ReportedWrite, Request, CONTEXT, PERSIST_FAULTS,
    PROTOCOL, VERSION,
};
use super::surrogates::{find_lone_surrogates, replace_lone_surrogates};
use super::{ExternalOptions, ExternalStrategy, LoneSurrogatePolicy};

/// The longest handshake answer read, in bytes.
const HELLO_LIMIT: usize = 1 << 20;

/// An answer may be this many bytes longer than four times its request (the entries, the persisted contents
/// and their escapes); anything longer is refused before it is all read.
const ANSWER_SLACK: usize = 64 << 20;

/// One started child with its protocol state.
struct Worker {
    process: ChildProcess,
    /// The last request id sent.
    last_id: u64,
    /// Whether the child declared [`PERSIST_FAULTS`].
    fault_injection: bool,
    /// Whether the child declared [`CONTEXT`]: only then do its requests carry the turn's context.
    context: bool,
    /// The handshake line, kept for a saved exchange.
    hello: Vec<u8>,
}

/// A strategy run by an external program speaking docs/protocol.md.
pub struct ExternalFinalizer {
    strategy: ExternalStrategy,
    options: ExternalOptions,
    idle: Mutex<Vec<Worker>>,
    started: AtomicUsize,
    faulted: AtomicBool,
    fault: Mutex<Option<ExternalFault>>,
    /// The fault's problem as [`ExternalFinalizer::check`] reported it, once its request was saved.
    reported: Mutex<Option<String>>,
    lone_surrogates: AtomicU64,
}

impl std::fmt::Debug for ExternalFinalizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalFinalizer")
            .field("strategy", &self.strategy)
            .field("options", &self.options)
            .field("started", &self.started)
            .field("faulted", &self.faulted)
            .finish_non_exhaustive()
    }
}

impl ExternalFinalizer {
    /// A finalizer for `strategy`; no child is started until the first call (or [`ExternalFinalizer::start`]).
    pub fn new(strategy: ExternalStrategy, options: ExternalOptions) -> ExternalFinalizer {
        ExternalFinalizer {
            strategy,
            options,
            idle: Mutex::new(Vec::new()),
            started: AtomicUsize::new(0),
            faulted: AtomicBool::new(false),
            fault: Mutex::new(None),
            reported: Mutex::new(None),
            lone_surrogates: AtomicU64::new(0),
        }
    }

    /// Starts one child now (with its handshake) and keeps it idle, so that a command that cannot start fails
    /// before any work, and the first request does not pay for the start.
    pub fn start(&self) -> Result<(), Error> {
        if !self.faulted.load(Ordering::Acquire) {
            match self.checkout() {
                Ok(worker) => self.checkin(worker),
                Err(fault) => self.set_fault(*fault),
            }
        }
        self.check()
    }

    /// The strategy this runs.
    pub fn strategy(&self) -> &ExternalStrategy {
        &self.strategy
    }

    /// How it runs its children.
    pub fn options(&self) -> &ExternalOptions {
        &self.options
    }

    /// How many children have been started so far.
    pub fn children_started(&self) -> usize {
        self.started.load(Ordering::Relaxed)
    }

    /// Lone surrogate escapes replaced so far (with [`LoneSurrogatePolicy::Replace`]; always 0 otherwise, where
    /// one is a fault).
    pub fn lone_surrogates(&self) -> u64 {
        self.lone_surrogates.load(Ordering::Relaxed)
    }

    /// Whether a fault happened (cheaper than [`ExternalFinalizer::fault`], which copies it).
    pub fn faulted(&self) -> bool {
        self.faulted.load(Ordering::Acquire)
    }

    /// The fault, if one happened.
    pub fn fault(&self) -> Option<ExternalFault> {
        lock(&self.fault).clone()
    }

    /// `Ok` when no fault happened; otherwise the fault as one line, after saving its request in the options'
    /// folder (a failure to save is said in the same line). The request is saved once, however often this is
    /// called.
    pub fn check(&self) -> Result<(), Error> {
        let Some(fault) = self.fault() else {
            return Ok(());
        };
        let mut reported = lock(&self.reported);
        let problem = reported.get_or_insert_with(|| match fault.save(&self.options.dir) {
            Ok(saved) => fault.describe(saved.as_ref()),
            Err(e) => format!(
                "{}; the request could not be saved: {e}",
                fault.describe(None)
            ),
        });
        Err(Error::External {
            strategy: fault.strategy.clone(),
            at: fault.at(),
            problem: problem.clone(),
        })
    }

    /// Ends every idle child politely (end of input, a grace period, then a kill); dropping does the same.
    pub fn shutdown(self) {}

    fn set_fault(&self, fault: ExternalFault) {
        let mut slot = lock(&self.fault);
        if slot.is_none() {
            *slot = Some(fault);
        }
        self.faulted.store(true, Ordering::Release);
    }

    fn checkin(&self, worker: Worker) {
        lock(&self.idle).push(worker);
    }

    fn checkout(&self) -> Result<Worker, Box<ExternalFault>> {
        if let Some(worker) = lock(&self.idle).pop() {
            return Ok(worker);
        }
        self.start_worker()
    }

    fn fault_at(&self, problem: Problem, handshake: bool) -> ExternalFault {
        ExternalFault {
            strategy: self.strategy.name.clone(),
            request: None,
            handshake,
            problem,
            batch: None,
            exchange: None,
            budget: None,
            log: None,
        }
    }

    fn start_worker(&self) -> Result<Worker, Box<ExternalFault>> {
        let index = self.started.fetch_add(1, Ordering::Relaxed);
        let mut process = ChildProcess::spawn(
            &self.strategy.argv,
            self.options.cwd.as_deref(),
            self.options.dir.clone(),
            format!("{}.{index}", self.strategy.name),
        )
        .map_err(|e| Box::new(self.fault_at(Problem::Channel(e), false)))?;
        let mut hello = serde_json::to_vec(&Hello::current()).expect("the handshake serialises");
        hello.push(b'\n');
        let answer = process.exchange(hello.clone(), HELLO_LIMIT, self.options.timeout);
        let reply = answer.map_err(Problem::Channel).and_then(|line| {
            let reply: HelloReply = serde_json::from_slice(&line)
                .map_err(|e| Problem::Handshake(format!("{e} in {}", excerpt(&line))))?;
            if reply.protocol != PROTOCOL || reply.version != VERSION {
                return Err(Problem::Handshake(format!(
                    "it speaks {} version {}, budgetlab speaks {PROTOCOL} version {VERSION}",
                    reply.protocol, reply.version
                )));
            }
            Ok(reply)
        });
        match reply {
            Ok(reply) => Ok(Worker {
                process,
                last_id: 0,
                fault_injection: reply.capabilities.iter().any(|c| c == PERSIST_FAULTS),
                context: reply.capabilities.iter().any(|c| c == CONTEXT),
                hello,
            }),
            Err(problem) => {
                process.kill();
                let mut fault = self.fault_at(problem, true);
                fault.log = process.log().path;
                Err(Box::new(fault))
            }
        }
    }

    /// Reads an answer line to request `id` of `batch`.
    fn read_answer(
        &self,
        mut line: Vec<u8>,
        id: u64,
        batch: &[Entry],
    ) -> Result<(Batch, Vec<PersistAttempt>), Problem> {
        let value: Value = match serde_json::from_slice(&line) {
            Ok(value) => value,
            Err(e) => match (find_lone_surrogates(&line), self.options.lone_surrogates) {
                (None, _) => return Err(Problem::Malformed(json_error(&e, &line))),
                (Some(lone), LoneSurrogatePolicy::Reject) => {
                    return Err(Problem::LoneSurrogates {
                        count: lone.count,
                        first: lone.first,
                    })
                }
                (Some(_), LoneSurrogatePolicy::Replace) => {
                    let replaced = replace_lone_surrogates(&mut line);
                    let value = serde_json::from_slice(&line)
                        .map_err(|e| Problem::Malformed(json_error(&e, &line)))?;
                    self.lone_surrogates.fetch_add(replaced, Ordering::Relaxed);
                    value
                }
            },
        };
        let response = match Answer::from_value(value).map_err(Problem::Malformed)? {
            Answer::Error(_, message) => return Err(Problem::ChildError(message)),
            Answer::Response(got, _) if got != id => {
                return Err(Problem::WrongId {
                    expected: id,
                    got: Some(got),
                })
            }
            Answer::Response(_, response) => response,
        };
        if response.entries.len() != batch.len() {
            return Err(Problem::Inconsistent(format!(
                "{} entries answered for a batch of {}",
                response.entries.len(),
                batch.len()
            )));
        }
        let entries = attribute(batch, &response.persisted).map_err(Problem::Inconsistent)?;
        let persisted = response
            .persisted
            .into_iter()
            .zip(entries)
            .map(|(w, entry)| PersistAttempt {
                call_id: w.call_id,
                tool_name: w.tool_name,
                content: Content::from(w.content),
                path: w.path,
                entry,
            })
            .collect();
        Ok((response.entries, persisted))
    }
}

impl Finalizer for ExternalFinalizer {
    fn name(&self) -> &str {
        &self.strategy.name
    }

    /// Whether the child declared `persist-faults`, from its handshake (a child is started for it if none is
    /// idle). A child that cannot be started answers `true`: its fault is then reported by the first request.
    fn simulates_persist_faults(&self) -> bool {
        if self.faulted.load(Ordering::Acquire) {
            return true;
        }
        match self.checkout() {
            Ok(worker) => {
                let declared = worker.fault_injection;
                self.checkin(worker);
                declared
            }
            Err(fault) => {
                self.set_fault(*fault);
                true
            }
        }
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        if self.faulted.load(Ordering::Acquire) {
            return Outcome::unchanged(batch);
        }
        let mut worker = match self.checkout() {
            Ok(worker) => worker,
            Err(fault) => {
                self.set_fault(*fault);
                return Outcome::unchanged(batch);
            }
        };
        worker.last_id += 1;
        let id = worker.last_id;
        let faults = store
            .injected_faults()
            .map(|f| PersistFaults::from_faults(&f));
        let artifact_dir = store.artifact_dir().to_string();
        let mut request = Request::new(id, &batch, ctx, &artifact_dir, faults.as_ref());
        if worker.context {
            request = request.with_context(ctx);
        }
        let result = if faults.is_some() && !worker.fault_injection {
            Err(Problem::NoFaultInjection)
        } else {
            let line = request.to_line();
            let limit = ANSWER_SLACK.saturating_add(line.len().saturating_mul(4));
            worker
                .process
                .exchange(line, limit, self.options.timeout)
                .map_err(Problem::Channel)
                .and_then(|answer| self.read_answer(answer, id, &batch))
        };
        match result {
            Ok((entries, persisted)) => {
                for w in &persisted {
                    store.record(&w.call_id, &w.tool_name, &w.content, w.path.as_deref());
                }
                self.checkin(worker);
                Outcome {
                    batch: entries,
                    persisted,
                }
            }
            Err(problem) => {
                worker.process.kill();
                let mut exchange = worker.hello.clone();
                exchange.extend_from_slice(&request.to_line());
                let fault = ExternalFault {
                    strategy: self.strategy.name.clone(),
                    request: Some(id),
                    handshake: false,
                    problem,
                    // With the context the child was sent, so that `finalize --input` replays the same request.
                    batch: Some(
                        serde_json::to_vec(&crate::batch_line::BatchLine {
                            entries: batch.clone(),
                            context: request.context.map(|c| std::sync::Arc::new(c.clone())),
                            group: None,
                        })
                        .expect("a batch serialises"),
                    ),
                    exchange: Some(exchange),
                    budget: Some((ctx.budget, ctx.context_window_tokens)),
                    log: worker.process.log().path,
                };
                self.set_fault(fault);
                Outcome::unchanged(batch)
            }
        }
    }
}

impl Drop for ExternalFinalizer {
    fn drop(&mut self) {
        let mut workers = std::mem::take(&mut *lock(&self.idle));
        // Every child gets its end of input first, so they exit side by side within one grace period.
        for w in &mut workers {
            w.process.close_input();
        }
        let deadline = Instant::now() + EXIT_GRACE;
        for w in workers {
            w.process.finish(deadline);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A JSON error of an answer line, with where it is and the text around it.
fn json_error(e: &serde_json::Error, line: &[u8]) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    format!(
        "invalid JSON at byte {}: {message} in {}",
        e.column(),
        excerpt(line)
    )
}

/// The start of a line, for a message: at most 60 characters, quoted.
fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let mut short: String = text.chars().take(60).collect();
    if short.len() < text.len() {
        short.push_str("...");
    }
    format!("{short:?}")
}

/// The entry each reported write belongs to: the index the child gave, or else the entry whose call id is the
/// record's `callId` (as given, then as a persistence id, then without a `-<k>` suffix), the first such entry
/// not yet named by an earlier record when several match.
fn attribute(batch: &[Entry], reported: &[ReportedWrite]) -> Result<Vec<usize>, String> {
    let mut named = vec![false; batch.len()];
    let mut out = Vec::with_capacity(reported.len());
    for (i, w) in reported.iter().enumerate() {
        let entry = match w.entry {
            Some(e) => usize::try_from(e)
                .ok()
                .filter(|&e| e < batch.len())
                .ok_or_else(|| {
                    format!(
                        "persisted[{i}] names entry {e} of a batch of {}",
                        batch.len()
                    )
                })?,
            None => {
                let candidates = candidates(batch, &w.call_id);
                let pick = candidates
                    .iter()
                    .copied()
                    .find(|&e| !named[e])
                    .or(candidates.first().copied());
                pick.ok_or_else(|| {
                    format!(
                        "persisted[{i}]: callId {:?} is no entry's (give its \"entry\" index)",
                        w.call_id
                    )
                })?
            }
        };
        named[entry] = true;
        out.push(entry);
    }
    Ok(out)
}

fn candidates(batch: &[Entry], call_id: &str) -> Vec<usize> {
    let matching = |f: &dyn Fn(&Entry) -> bool| -> Vec<usize> {
        batch
            .iter()
            .enumerate()
            .filter(|(_, e)| f(e))
            .map(|(i, _)| i)
            .collect()
    };
    let exact = matching(&|e| e.call_id == call_id);
    if !exact.is_empty() {
        return exact;
    }
    let normalised = matching(&|e| normalise(&e.call_id) == call_id);
    if !normalised.is_empty() {
        return normalised;
    }
    match call_id.rsplit_once('-') {
        Some((base, k))
            if !k.is_empty() && !k.starts_with('0') && k.bytes().all(|b| b.is_ascii_digit()) =>
        {
            matching(&|e| normalise(&e.call_id) == base)
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
