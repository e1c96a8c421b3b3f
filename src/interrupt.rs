//! What an interrupted command must not leave behind. Every external child's process group, temporary output
//! file and report staging folder is registered here while it exists ([`Hold::register`], undone when the
//! returned [`Registered`] is dropped). [`install`] (called once by the binary) starts a thread that waits for
//! SIGINT, SIGTERM or SIGHUP; on the first, it sends SIGTERM to every registered process group, gives their
//! leaders [`GRACE`] to exit, sends SIGKILL to every group still registered, removes every registered file and
//! folder, and exits with 128 plus the signal's number (130, 143, 129).
//!
//! Registering happens under a [`Hold`] ([`hold`]): the signal thread waits for every hold to be released
//! before it starts and lets no new one begin, so that nothing is created (a child, a file) or put in place (a
//! rename) behind its back: whatever exists when it acts is registered, and whatever has gone into place is
//! not. Holds are short (a spawn, a file's creation, a rename) and may nest on one thread. Only what budgetlab
//! made is ever registered, so nothing else is ever removed. A group stays registered until its leader is about
//! to be reaped, so its id is never one the system gave to another process. Process groups are signalled on
//! Linux only (elsewhere a child is ended when its handle is dropped).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard};
use std::time::Duration;

/// How long the leaders of the children's process groups get to exit after SIGTERM before every group gets
/// SIGKILL.
pub const GRACE: Duration = Duration::from_millis(1000);

/// Something an interrupt must end or remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registration {
    /// The process group led by this child of ours (not reaped yet).
    ChildGroup(u32),
    /// A temporary file budgetlab made.
    TempFile(PathBuf),
    /// A staging folder budgetlab made, removed with everything in it.
    StagingFolder(PathBuf),
}

/// What is registered, by the id of its [`Registered`].
#[derive(Default)]
struct Registry {
    next: u64,
    entries: BTreeMap<u64, Registration>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    entries: BTreeMap::new(),
});

/// Read-held by every [`Hold`]; write-held by the signal thread from the moment it acts until the exit.
static HOLDS: RwLock<()> = RwLock::new(());

/// Whether a signal is being handled.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// How many [`Hold`]s this thread has: only the outermost takes [`HOLDS`] (a nested read could wait behind
    /// the signal thread's write forever).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A span in which the signal thread does not act: take it around making something and registering it, and
/// around putting something in place and unregistering it.
#[must_use = "the hold ends when it is dropped"]
pub struct Hold {
    guard: Option<RwLockReadGuard<'static, ()>>,
}

/// Starts a [`Hold`] (waits while the signal thread acts, which ends in the exit).
pub fn hold() -> Hold {
    let outer = DEPTH.with(|d| {
        d.set(d.get() + 1);
        d.get() == 1
    });
    let guard = outer.then(|| {
        HOLDS
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    });
    Hold { guard }
}

impl Hold {
    /// Registers `what` until the returned guard is dropped.
    pub fn register(&self, what: Registration) -> Registered {
        let mut registry = registry();
        registry.next += 1;
        let id = registry.next;
        registry.entries.insert(id, what);
        Registered { id }
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.guard = None;
        DEPTH.with(|d| d.set(d.get() - 1));
    }
}

impl std::fmt::Debug for Hold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hold").finish_non_exhaustive()
    }
}

/// One registration: undone when dropped (after what it names went into place, was removed or was reaped).
#[derive(Debug)]
#[must_use = "the registration ends when it is dropped"]
pub struct Registered {
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        registry().entries.remove(&self.id);
    }
}

/// Whether a signal is being handled: the process is about to exit with its status.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Waits forever when a signal is being handled (the signal thread exits the process), so that a command that
/// failed because its children were ended neither reports that nor exits with its own status.
pub fn settle() {
    while interrupted() {
        std::thread::park();
    }
}

/// Starts the thread that handles SIGINT, SIGTERM and SIGHUP (once, from the binary). Where signals cannot be
/// handled this way, does nothing.
pub fn install() -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
        // The thread's first allocation gives it its own memory from the allocator (a segment of tens of MiB of
        // address space); it is made before `install` returns, so that it cannot come after a command has taken
        // the memory left (under a `ulimit -v`, say) and abort the process where the command would refuse.
        let (ready, started) = std::sync::mpsc::sync_channel::<Box<u64>>(1);
        std::thread::Builder::new()
            .name("budgetlab-signals".into())
            .spawn(move || {
                let mut pending = signals.forever();
                let _ = ready.send(std::hint::black_box(Box::new(0)));
                if let Some(signal) = pending.next() {
                    end(signal);
                }
            })?;
        let _ = started.recv();
    }
    Ok(())
}

/// What the signal thread does on `signal`: ends the children's groups, removes the files and folders, exits.
fn end(signal: i32) -> ! {
    INTERRUPTED.store(true, Ordering::SeqCst);
    // Held until the exit: no hold begins again.
    let _holds = HOLDS
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // Held until the exit: nothing is unregistered (and so no leader reaped) from here on.
    let registry = registry();
    let groups: Vec<u32> = registry
        .entries
        .values()
        .filter_map(|r| match r {
            Registration::ChildGroup(pid) => Some(*pid),
            _ => None,
        })
        .collect();
    if !groups.is_empty() {
        groups::signal(&groups, groups::Ending::Terminate);
        groups::wait_for_leaders(&groups, GRACE);
        groups::signal(&groups, groups::Ending::Kill);
    }
    for what in registry.entries.values() {
        match what {
            Registration::ChildGroup(_) => {}
            Registration::TempFile(path) => {
                let _ = std::fs::remove_file(path);
            }
            Registration::StagingFolder(path) => {
                // A writer may still be adding to it (a child's log): try again while it is not empty.
                for _ in 0..5 {
                    match std::fs::remove_dir_all(path) {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => continue,
                        _ => break,
                    }
                }
            }
        }
    }
    std::process::exit(128 + signal)
}

/// Signals to process groups.
#[cfg(any(target_os = "linux", target_os = "android"))]
mod groups {
    use std::time::{Duration, Instant};

    use rustix::process::{kill_process_group, waitid, Pid, Signal, WaitId, WaitIdOptions};

    /// How a group is ended.
    pub(super) enum Ending {
        Terminate,
        Kill,
    }

    /// Sends SIGTERM or SIGKILL to each group (those already gone are skipped).
    pub(super) fn signal(groups: &[u32], ending: Ending) {
        let signal = match ending {
            Ending::Terminate => Signal::TERM,
            Ending::Kill => Signal::KILL,
        };
        for pid in groups.iter().filter_map(|&p| pid(p)) {
            let _ = kill_process_group(pid, signal);
        }
    }

    /// Waits until every group's leader (a child of ours, not reaped) has exited, at most `grace`.
    pub(super) fn wait_for_leaders(groups: &[u32], grace: Duration) {
        let deadline = Instant::now() + grace;
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG;
        let exited = |p: Pid| matches!(waitid(WaitId::Pid(p), options), Ok(Some(_)) | Err(_));
        while !groups.iter().filter_map(|&p| pid(p)).all(exited) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn pid(raw: u32) -> Option<Pid> {
        i32::try_from(raw).ok().and_then(Pid::from_raw)
    }
}

/// Signals to process groups: not sent on this system.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod groups {
    use std::time::Duration;

    pub(super) enum Ending {
        Terminate,
        Kill,
    }

    pub(super) fn signal(_: &[u32], _: Ending) {}

    pub(super) fn wait_for_leaders(_: &[u32], _: Duration) {}
}
