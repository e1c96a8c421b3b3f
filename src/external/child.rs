//! One child process and its JSON Lines channel: started in a process group of its own, fed on stdin by a
//! writer thread, read on stdout one line at a time by a reader thread, its stderr drained into a log; a request
//! is one line out and one line back within a time limit.
//!
//! No process outlives its handle. Dropping a [`ChildProcess`] kills its whole process group (so the
//! grandchildren of a shell-script child die with it) and reaps it, on every path: an error, a fault, a panic
//! unwinding through its owner. [`ChildProcess::finish`] is the polite end: end of file on stdin, a grace period
//! to exit, then the same kill and reap. The group is killed while its leader is still unreaped, so its id can
//! not have been reused by another process.

use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::log::{LogState, StderrLog};
use crate::interrupt::{self, Registered, Registration};

/// How long a child gets to exit after the end of its input before its group is killed.
pub const EXIT_GRACE: Duration = Duration::from_secs(2);

/// How long the harness waits for a child's stderr to close once the child is dead.
const LOG_GRACE: Duration = Duration::from_secs(1);

/// What went wrong on a child's channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChannelError {
    /// The program could not be started.
    Start(String),
    /// No complete line came back within the limit.
    Timeout(Duration),
    /// The child's stdout ended (it exited, or closed it) before a complete line; `exit` describes how it ended.
    Ended {
        /// `exited with status 1`, `was killed by signal 9`, or `closed its standard output` when it was still
        /// running (and was then killed).
        exit: String,
        /// Bytes of an unfinished line it left.
        partial: usize,
    },
    /// The line grew past its limit (bytes).
    TooLong(usize),
    /// Reading or writing the pipes failed otherwise.
    Io(String),
}

impl std::fmt::Display for ChannelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChannelError::Start(e) => write!(f, "could not be started: {e}"),
            ChannelError::Timeout(limit) => {
                write!(f, "gave no answer within {} s", limit.as_secs_f64())
            }
            ChannelError::Ended { exit, partial: 0 } => write!(f, "{exit} without answering"),
            ChannelError::Ended { exit, partial } => {
                write!(
                    f,
                    "{exit} after {partial} bytes of an unfinished answer line"
                )
            }
            ChannelError::TooLong(limit) => {
                write!(f, "wrote an answer line longer than {limit} bytes")
            }
            ChannelError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// What the reader and writer threads report.
enum Event {
    Line(Vec<u8>),
    Eof(usize),
    TooLong(usize),
    ReadFailed(String),
    WriteFailed,
}

/// A running child with its channel.
#[derive(Debug)]
pub(super) struct ChildProcess {
    child: Child,
    /// Lines for the writer thread; dropping it closes the child's stdin once they are written.
    stdin: Option<mpsc::Sender<Vec<u8>>>,
    /// Asks the reader thread for one line of at most this many bytes.
    read: Option<mpsc::Sender<usize>>,
    events: mpsc::Receiver<Event>,
    log: StderrLog,
    reaped: bool,
    /// The child's process group as registered with [`interrupt`], until the child is reaped.
    group: Option<Registered>,
}

impl ChildProcess {
    /// Starts `argv` (in `cwd` when given) in a process group of its own, its stderr logged in `log_dir` as
    /// `<log_stem>.stderr.log`.
    pub(super) fn spawn(
        argv: &[String],
        cwd: Option<&Path>,
        log_dir: PathBuf,
        log_stem: String,
    ) -> Result<ChildProcess, ChannelError> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| ChannelError::Start("the command is empty".into()))?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cwd) = cwd {
            command.current_dir(cwd);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        // Started and registered under one hold, so that an interrupt ends it whenever it comes.
        let hold = interrupt::hold();
        let mut child = command
            .spawn()
            .map_err(|e| ChannelError::Start(format!("{program}: {e}")))?;
        let group = hold.register(Registration::ChildGroup(child.id()));
        drop(hold);
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let log = StderrLog::start(stderr, log_dir, log_stem);
        let (events_tx, events) = mpsc::channel();
        let (lines_tx, lines_rx) = mpsc::channel::<Vec<u8>>();
        let (read_tx, read_rx) = mpsc::channel::<usize>();
        let process = ChildProcess {
            child,
            stdin: Some(lines_tx),
            read: Some(read_tx),
            events,
            log,
            reaped: false,
            group: Some(group),
        };
        let writer_events = events_tx.clone();
        let writer = thread::Builder::new()
            .name("budgetlab-external-stdin".into())
            .spawn(move || {
                let mut stdin = stdin;
                for line in lines_rx {
                    if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
                        let _ = writer_events.send(Event::WriteFailed);
                        return;
                    }
                }
            });
        let reader = thread::Builder::new()
            .name("budgetlab-external-stdout".into())
            .spawn(move || read_lines(stdout, read_rx, events_tx));
        if let Err(e) = writer.and(reader) {
            // `process` drops here, killing and reaping the child.
            return Err(ChannelError::Start(format!("no thread for its pipes: {e}")));
        }
        Ok(process)
    }

    /// The child's process id.
    #[cfg(test)]
    pub(super) fn id(&self) -> u32 {
        self.child.id()
    }

    /// Sends `line` (which ends with a newline) and waits at most `timeout` for one line back of at most `limit`
    /// bytes (without its newline).
    pub(super) fn exchange(
        &mut self,
        line: Vec<u8>,
        limit: usize,
        timeout: Duration,
    ) -> Result<Vec<u8>, ChannelError> {
        let deadline = Instant::now() + timeout;
        let sent = self.stdin.as_ref().is_some_and(|s| s.send(line).is_ok())
            && self.read.as_ref().is_some_and(|r| r.send(limit).is_ok());
        if !sent {
            return Err(self.ended(0, deadline));
        }
        match self.events.recv_timeout(timeout) {
            Ok(Event::Line(line)) => Ok(line),
            Ok(Event::Eof(partial)) => Err(self.ended(partial, deadline)),
            Ok(Event::WriteFailed) | Err(RecvTimeoutError::Disconnected) => {
                Err(self.ended(0, deadline))
            }
            Ok(Event::TooLong(limit)) => Err(ChannelError::TooLong(limit)),
            Ok(Event::ReadFailed(e)) => Err(ChannelError::Io(format!("reading its output: {e}"))),
            Err(RecvTimeoutError::Timeout) => Err(ChannelError::Timeout(timeout)),
        }
    }

    /// How the child ended, once its stdout closed or its stdin broke: waits until `deadline` (at most a second)
    /// for it to exit, then kills its group, reaps it and says how it ended.
    fn ended(&mut self, partial: usize, deadline: Instant) -> ChannelError {
        let wait_until = deadline.min(Instant::now() + Duration::from_secs(1));
        let exited = self.wait_exit(wait_until);
        let status = self.kill_and_reap();
        let exit = match (exited, status) {
            (true, Some(status)) => describe(status),
            (true, None) => "exited".to_string(),
            (false, _) => "closed its standard output".to_string(),
        };
        ChannelError::Ended { exit, partial }
    }

    /// Whether the child exited by `deadline`, checked without reaping it.
    fn wait_exit(&mut self, deadline: Instant) -> bool {
        let mut pause = Duration::from_millis(1);
        loop {
            if self.has_exited() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn has_exited(&mut self) -> bool {
        use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
        if self.reaped {
            return true;
        }
        let pid = Pid::from_child(&self.child);
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG;
        // Interrupted or failed: treat as still running; the caller's deadline bounds the wait.
        matches!(waitid(WaitId::Pid(pid), options), Ok(Some(_)))
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn has_exited(&mut self) -> bool {
        // Elsewhere the leader is reaped to learn it exited; only it is then killed below, never its group.
        self.reaped || matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Kills the child's process group and reaps the child; its exit status, unless it was reaped before.
    fn kill_and_reap(&mut self) -> Option<ExitStatus> {
        if self.reaped {
            return None;
        }
        self.kill_group();
        // Unregistered before the reap: once reaped, the group's id may be given to another process.
        self.group = None;
        let status = self.child.wait().ok();
        self.reaped = true;
        // The stdout and stderr pipes close once every process of the group is dead.
        self.read = None;
        self.log.wait(LOG_GRACE);
        status
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn kill_group(&mut self) {
        use rustix::process::{kill_process_group, Pid, Signal};
        // The leader is not reaped yet, so the group id is still its own. ESRCH (all gone) is fine.
        let _ = kill_process_group(Pid::from_child(&self.child), Signal::KILL);
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn kill_group(&mut self) {
        let _ = self.child.kill();
    }

    /// Ends the child politely: end of file on its stdin, [`EXIT_GRACE`] (or until `deadline`) to exit, then its
    /// group is killed and it is reaped. Call [`ChildProcess::close_input`] on several children first to let them
    /// exit in parallel.
    pub(super) fn finish(mut self, deadline: Instant) {
        self.close_input();
        self.wait_exit(deadline);
        self.kill_and_reap();
    }

    /// Kills the child's process group now and reaps the child (after a fault).
    pub(super) fn kill(&mut self) {
        self.stdin = None;
        self.kill_and_reap();
    }

    /// Closes the child's stdin once the lines already sent are written.
    pub(super) fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Where the child's stderr went.
    pub(super) fn log(&self) -> LogState {
        self.log.state()
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        self.stdin = None;
        self.kill_and_reap();
    }
}

/// How an exit status reads in a message.
fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "exited".to_string(),
    }
}

/// The reader thread: one line per request from `asks`, each of at most the asked bytes.
fn read_lines(stdout: ChildStdout, asks: mpsc::Receiver<usize>, events: mpsc::Sender<Event>) {
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    for limit in asks {
        let event = match read_line(&mut reader, limit) {
            Ok(Line::Complete(line)) => Event::Line(line),
            Ok(Line::Eof(partial)) => Event::Eof(partial),
            Ok(Line::TooLong) => Event::TooLong(limit),
            Err(e) => Event::ReadFailed(e.to_string()),
        };
        let last = !matches!(event, Event::Line(_));
        if events.send(event).is_err() || last {
            return;
        }
    }
}

enum Line {
    Complete(Vec<u8>),
    Eof(usize),
    TooLong,
}

/// One line of at most `limit` bytes (without its newline).
fn read_line(reader: &mut impl BufRead, limit: usize) -> io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(Line::Eof(line.len()));
        }
        let (chunk, found) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if line.len() + chunk.len() > limit {
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(chunk);
        let used = found.unwrap_or(chunk.len());
        reader.consume(used);
        if found.is_some() {
            return Ok(Line::Complete(line));
        }
    }
}

/// Every line of `input` (for tests of the reader).
#[cfg(test)]
fn lines_of(input: &[u8], limit: usize) -> Vec<String> {
    let mut reader = BufReader::with_capacity(4, input);
    let mut out = Vec::new();
    loop {
        match read_line(&mut reader, limit).unwrap() {
            Line::Complete(l) => out.push(String::from_utf8(l).unwrap()),
            Line::Eof(n) => {
                out.push(format!("eof {n}"));
                return out;
            }
            Line::TooLong => {
                out.push("too long".into());
                return out;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cut_at_newlines_and_bounded() {
        assert_eq!(
            lines_of(b"ab\ncdefgh\n\nxy", 100),
            ["ab", "cdefgh", "", "eof 2"]
        );
        assert_eq!(lines_of(b"abcd\nabcde\n", 4), ["abcd", "too long"]);
        assert_eq!(lines_of(b"", 4), ["eof 0"]);
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn an_echoing_child_answers_and_ends_on_end_of_input() {
        let dir = tempfile::tempdir().unwrap();
        let mut child =
            ChildProcess::spawn(&sh("cat"), None, dir.path().into(), "cat".into()).unwrap();
        let pid = child.id();
        let line = child
            .exchange(b"hello\n".to_vec(), 100, Duration::from_secs(30))
            .unwrap();
        assert_eq!(line, b"hello");
        child.finish(Instant::now() + EXIT_GRACE);
        assert!(!testing::child_of_us(pid), "reaped");
    }

    #[test]
    fn a_child_that_exits_is_described_by_its_status() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = ChildProcess::spawn(
            &sh("read x; printf 'half'; echo boom >&2; exit 3"),
            None,
            dir.path().into(),
            "x".into(),
        )
        .unwrap();
        let err = child
            .exchange(b"go\n".to_vec(), 100, Duration::from_secs(30))
            .unwrap_err();
        assert_eq!(
            err,
            ChannelError::Ended {
                exit: "exited with status 3".into(),
                partial: 4
            }
        );
        assert_eq!(
            err.to_string(),
            "exited with status 3 after 4 bytes of an unfinished answer line"
        );
        let log = child.log().path.unwrap();
        assert_eq!(std::fs::read_to_string(log).unwrap(), "boom\n");
    }

    #[test]
    fn a_program_that_does_not_exist_cannot_start() {
        let dir = tempfile::tempdir().unwrap();
        let err = ChildProcess::spawn(
            &["/nonexistent/finalizer".to_string()],
            None,
            dir.path().into(),
            "x".into(),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("could not be started: /nonexistent/finalizer: No such file"),
            "{err}"
        );
    }
}

/// Process checks for the tests: what is left of a child or a grandchild.
#[cfg(test)]
pub(crate) mod testing {
    /// The state letter and the parent of process `pid`, if it exists.
    fn stat(pid: u32) -> Option<(char, u32)> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The state and the parent follow the parenthesised command name.
        let mut rest = stat.rsplit(')').next()?.split_whitespace();
        let state = rest.next()?.chars().next()?;
        let parent = rest.next()?.parse().ok()?;
        Some((state, parent))
    }

    /// Whether `pid` runs (exists and is not a zombie).
    pub(crate) fn alive(pid: u32) -> bool {
        stat(pid).is_some_and(|(state, _)| !matches!(state, 'Z' | 'X'))
    }

    /// Whether `pid` is a child of this process, running or a zombie not yet reaped.
    pub(crate) fn child_of_us(pid: u32) -> bool {
        stat(pid).is_some_and(|(_, parent)| parent == std::process::id())
    }

    /// Asserts that every child of `children` is reaped and every one of `grandchildren` dead. A grandchild is
    /// not ours to reap: the group's SIGKILL is delivered by the kernel on its own time, which on a loaded machine
    /// can be a moment after the leader is reaped, so it gets up to 5 s to be gone.
    pub(crate) fn assert_nothing_left(children: &[u32], grandchildren: &[u32]) {
        assert!(!children.is_empty(), "the test started no child");
        for &pid in children {
            assert!(
                !child_of_us(pid),
                "child {pid} is still ours (running or a zombie)"
            );
        }
        for &pid in grandchildren {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while alive(pid) && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            assert!(
                !alive(pid),
                "grandchild {pid} still runs 5 s after its group was killed"
            );
        }
    }
}
