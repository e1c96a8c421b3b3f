//! Where the commands' outputs go: stdout (a complete output in one write, or a stream whose failure names
//! `<stdout>`), whole files written atomically (`-` is stdout), and the progress of long commands on stderr (a bar on a
//! terminal, a line every ten seconds in a log).

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use budgetlab::thousands::grouped;

/// A failed write to standard output, naming it.
pub(crate) fn stdout_error(e: io::Error) -> budgetlab::Error {
    budgetlab::Error::io("<stdout>", e)
}

/// A failed JSON write to standard output, naming it.
pub(crate) fn stdout_json_error(e: serde_json::Error) -> budgetlab::Error {
    stdout_error(e.into())
}

/// Refuses a standard output that was closed when budgetlab started (`>&-`), naming `<stdout>`. The standard
/// library reopens a closed descriptor 0, 1 or 2 on `/dev/null` before `main`, so writes to it would succeed and
/// the output be lost with exit status 0; the descriptor's state is therefore taken before that, by
/// [`stdout_at_start`].
pub(crate) fn check_stdout_open() -> anyhow::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let errno = stdout_at_start::ERRNO.load(std::sync::atomic::Ordering::Relaxed);
        if errno != 0 {
            return Err(stdout_error(io::Error::from_raw_os_error(errno)).into());
        }
    }
    Ok(())
}

/// The state of descriptor 1 as the process was started, taken by a constructor the C runtime calls before the
/// standard library's start-up code replaces a closed descriptor with `/dev/null`.
#[cfg(any(target_os = "linux", target_os = "android"))]
mod stdout_at_start {
    use std::os::fd::BorrowedFd;
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The error `fcntl(1, F_GETFD)` gave at start (`EBADF` for a closed stdout), or 0 when it was open.
    pub(super) static ERRNO: AtomicI32 = AtomicI32::new(0);

    /// Asks whether descriptor 1 is open and notes the answer in [`ERRNO`].
    extern "C" fn note() {
        // SAFETY: the borrowed descriptor is only asked for its flags, never read, written or closed, and the
        // borrow ends with this call; asking about a closed descriptor is what this is for (EBADF).
        let fd = unsafe { BorrowedFd::borrow_raw(1) };
        if let Err(e) = rustix::io::fcntl_getfd(fd) {
            ERRNO.store(e.raw_os_error(), Ordering::Relaxed);
        }
    }

    /// Registers [`note`] with the C runtime's constructors, which run before `main`.
    #[used]
    #[link_section = ".init_array"]
    static NOTE: extern "C" fn() = note;
}

/// Writes a complete output to stdout in one go, so an error never leaves half of it behind.
pub(crate) fn emit(bytes: &[u8]) -> anyhow::Result<()> {
    check_stdout_open()?;
    let mut stdout = io::stdout().lock();
    stdout.write_all(bytes).map_err(stdout_error)?;
    stdout.flush().map_err(stdout_error)?;
    Ok(())
}

/// Writes a whole file atomically (`-` is stdout), creating its folder when needed.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if budgetlab::atomic::is_stdout(path) {
        return emit(bytes);
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| budgetlab::Error::io(parent, e))?;
    }
    let mut file = budgetlab::atomic::AtomicFile::create(path)?;
    file.write_all(bytes)
        .map_err(|e| budgetlab::Error::io(path, e))?;
    file.commit()?;
    Ok(())
}

/// Begins the output file `path` before the command's work, so that a path no file can be written at is refused
/// before the work, not after it: a file to replace gets its temporary file beside it now (its folder made when
/// missing), to be written and put in place by [`finish_file`]; standard output and streams (a FIFO, a device)
/// are resolved now and opened only at the end (`None`).
pub(crate) fn begin_file(path: &Path) -> anyhow::Result<Option<budgetlab::atomic::AtomicFile>> {
    let destination = budgetlab::atomic::Destination::resolve(path)?;
    if !matches!(destination, budgetlab::atomic::Destination::Replace(_)) {
        return Ok(None);
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| budgetlab::Error::io(parent, e))?;
    }
    Ok(Some(budgetlab::atomic::AtomicFile::open(
        path,
        destination,
    )?))
}

/// Writes `bytes` to the output `path` begun by [`begin_file`]: into its temporary file, then put in place; or,
/// for standard output or a stream, written now.
pub(crate) fn finish_file(
    begun: Option<budgetlab::atomic::AtomicFile>,
    path: &Path,
    bytes: &[u8],
) -> anyhow::Result<()> {
    match begun {
        Some(mut file) => {
            file.write_all(bytes)
                .map_err(|e| budgetlab::Error::io(path, e))?;
            file.commit()?;
            Ok(())
        }
        None => write_file(path, bytes),
    }
}

/// Whether `--junit` sends the XML to stdout, in place of the Markdown a command prints there.
pub(crate) fn junit_on_stdout(junit: Option<&Path>) -> bool {
    junit.is_some_and(budgetlab::atomic::is_stdout)
}

/// Tells, one line each on stderr, which scenario runs where the arguments name a shipped scenario and a file
/// of the same name that differs from it ([`budgetlab::Scenario::shadow_notes`]).
pub(crate) fn scenario_notes(flag: &str, args: &[String]) {
    for note in budgetlab::Scenario::shadow_notes(flag, args) {
        eprintln!("budgetlab: {note}");
    }
}

/// The environment variable that sets, in milliseconds, how often [`Progress`] prints a line when stderr is not a
/// terminal (default [`PROGRESS_LINE_EVERY`]); for tests, which cannot wait ten seconds.
pub(crate) const PROGRESS_INTERVAL_VAR: &str = "BUDGETLAB_PROGRESS_INTERVAL_MS";

/// How often a long command says how far it is when stderr is not a terminal (a CI log): often enough that a
/// log shows life, seldom enough that it stays readable.
const PROGRESS_LINE_EVERY: Duration = Duration::from_secs(10);

/// How far a long command is: a bar on stderr when it is a terminal; otherwise, so that a CI log shows life, a
/// line `budgetlab: 12,288 of 46,740 turns (26%), 0:00:10 elapsed` at most every ten seconds (none for work that
/// ends sooner).
pub(crate) struct Progress {
    bar: indicatif::ProgressBar,
    lines: Option<Lines>,
}

/// The state of the lines printed without a terminal.
struct Lines {
    len: AtomicU64,
    units: String,
    every: Duration,
    start: Instant,
    done: AtomicU64,
    /// When the last line was printed (or the work began).
    last: Mutex<Instant>,
}

impl Progress {
    /// Counts `n` more units done.
    pub(crate) fn inc(&self, n: u64) {
        self.bar.inc(n);
        let Some(lines) = &self.lines else { return };
        lines.done.fetch_add(n, Ordering::Relaxed);
        let now = Instant::now();
        let mut last = lines.last.lock().unwrap_or_else(|e| e.into_inner());
        if now.duration_since(*last) < lines.every {
            return;
        }
        *last = now;
        // Read under the lock, so that the lines threads print one after another only grow.
        let done = lines.done.load(Ordering::Relaxed);
        let len = lines.len.load(Ordering::Relaxed);
        let percent = (done.min(len) * 100).checked_div(len).unwrap_or(100);
        let secs = now.duration_since(lines.start).as_secs();
        // A progress line that cannot be written is no reason to stop the work.
        let _ = writeln!(
            io::stderr().lock(),
            "budgetlab: {} of {} {} ({percent}%), {}:{:02}:{:02} elapsed",
            grouped(done.min(len)),
            grouped(len),
            lines.units,
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        );
    }

    /// Counts `n` more units to do than planned (work that turned out larger than its estimate).
    pub(crate) fn grow(&self, n: u64) {
        self.bar.inc_length(n);
        if let Some(lines) = &self.lines {
            lines.len.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Removes the bar (the lines stay: they are the log).
    pub(crate) fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// The progress of `len` simulated turns (or other `units`): a bar on stderr when it is a terminal, otherwise a
/// line at most every ten seconds ([`PROGRESS_INTERVAL_VAR`] changes the interval).
pub(crate) fn progress(len: u64, units: &str) -> Progress {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} {units} ({{eta}} left)"
        ))
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let lines = (!io::stderr().is_terminal()).then(|| {
        let every = std::env::var(PROGRESS_INTERVAL_VAR)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(PROGRESS_LINE_EVERY, Duration::from_millis);
        let start = Instant::now();
        Lines {
            len: AtomicU64::new(len),
            units: units.to_string(),
            every,
            start,
            done: AtomicU64::new(0),
            last: Mutex::new(start),
        }
    });
    Progress { bar, lines }
}
