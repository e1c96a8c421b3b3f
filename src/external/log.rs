//! The stderr log of one child: a thread drains the child's standard error into a file as it comes, so a child
//! that writes a lot there never blocks on a full pipe.
//!
//! The file is made only when the child first writes something (a quiet child leaves no file), in the log folder,
//! as `<stem>.stderr.log`, or `<stem>.<n>.stderr.log` when that name is taken: it is always a new file, created
//! exclusively, never one budgetlab did not make. At most [`LOG_LIMIT`] bytes are kept; the rest is still read,
//! and counted in a last line.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;

/// The most bytes of one child's stderr kept in its log.
pub const LOG_LIMIT: u64 = 16 << 20;

/// Where a child's stderr went.
#[derive(Debug, Clone, Default)]
pub(super) struct LogState {
    /// The log file, once made.
    pub path: Option<PathBuf>,
    /// Why no log file could be made, if it could not.
    pub error: Option<String>,
}

/// The draining thread of one child's stderr.
#[derive(Debug)]
pub(super) struct StderrLog {
    state: Arc<Mutex<LogState>>,
    done: mpsc::Receiver<()>,
}

impl StderrLog {
    /// Starts draining `stderr` into a log named after `stem` in `dir`.
    pub(super) fn start(
        stderr: impl Read + Send + 'static,
        dir: PathBuf,
        stem: String,
    ) -> StderrLog {
        let state = Arc::new(Mutex::new(LogState::default()));
        let (done_tx, done) = mpsc::channel();
        let shared = Arc::clone(&state);
        let spawned = thread::Builder::new()
            .name("budgetlab-external-stderr".into())
            .spawn(move || {
                drain(stderr, &dir, &stem, &shared);
                let _ = done_tx.send(());
            });
        if let Err(e) = spawned {
            // Without a thread the pipe is dropped: the child's writes to stderr then fail instead of blocking.
            lock(&state).error = Some(format!("no thread to drain stderr: {e}"));
        }
        StderrLog { state, done }
    }

    /// Waits at most `limit` for the child's stderr to close and the log to be complete.
    pub(super) fn wait(&self, limit: std::time::Duration) {
        let _ = self.done.recv_timeout(limit);
    }

    /// Where the stderr went so far.
    pub(super) fn state(&self) -> LogState {
        lock(&self.state).clone()
    }
}

fn lock(state: &Mutex<LogState>) -> std::sync::MutexGuard<'_, LogState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

fn drain(mut stderr: impl Read, dir: &Path, stem: &str, state: &Mutex<LogState>) {
    let mut buf = vec![0u8; 64 << 10];
    let mut file: Option<File> = None;
    let mut kept = 0u64;
    let mut dropped = 0u64;
    loop {
        let n = match stderr.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if file.is_none() && lock(state).error.is_none() {
            match create_log(dir, stem) {
                Ok((f, path)) => {
                    file = Some(f);
                    lock(state).path = Some(path);
                }
                Err(e) => lock(state).error = Some(format!("{}: {e}", dir.display())),
            }
        }
        let keep = (n as u64).min(LOG_LIMIT - kept) as usize;
        if let Some(f) = &mut file {
            if f.write_all(&buf[..keep]).is_err() {
                file = None;
            }
        }
        kept += keep as u64;
        dropped += (n - keep) as u64;
    }
    if let (Some(f), true) = (&mut file, dropped > 0) {
        let _ = writeln!(
            f,
            "\n[budgetlab: {dropped} more bytes of stderr were read and not kept]"
        );
    }
}

/// Refuses a log folder (`--external-log`) that exists and is not a folder, or is a link to no folder (to a
/// file, to nothing, to a device): a log could never be made there, and the children's stderr would be lost
/// without a word. A folder, or a link to one, is taken; one that is absent is made when a child first writes.
pub fn check_log_dir(dir: &Path) -> Result<(), crate::Error> {
    if fs::symlink_metadata(dir).is_ok() && !fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Err(crate::Error::invalid(
            "--external-log",
            dir.display().to_string(),
            "is not a folder (nor a link to one), so no log could be made in it",
        ));
    }
    Ok(())
}

/// A new log file in `dir` (made if missing): `<stem>.stderr.log`, or the first free `<stem>.<n>.stderr.log`.
fn create_log(dir: &Path, stem: &str) -> io::Result<(File, PathBuf)> {
    fs::create_dir_all(dir)?;
    for n in 0..10_000u32 {
        let name = if n == 0 {
            format!("{stem}.stderr.log")
        } else {
            format!("{stem}.{n}.stderr.log")
        };
        let path = dir.join(name);
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(f) => return Ok((f, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("10,000 logs named {stem}.*.stderr.log already exist"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_quiet_child_leaves_no_file_and_a_taken_name_is_never_reused() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        let quiet = StderrLog::start(io::empty(), logs.clone(), "s.0".into());
        quiet.wait(Duration::from_secs(10));
        assert!(quiet.state().path.is_none());
        assert!(!logs.exists(), "no folder either");

        fs::create_dir(&logs).unwrap();
        fs::write(logs.join("s.0.stderr.log"), "the user's").unwrap();
        let log = StderrLog::start(&b"oops\n"[..], logs.clone(), "s.0".into());
        log.wait(Duration::from_secs(10));
        let path = log.state().path.unwrap();
        assert_eq!(path, logs.join("s.0.1.stderr.log"));
        assert_eq!(fs::read_to_string(&path).unwrap(), "oops\n");
        assert_eq!(
            fs::read_to_string(logs.join("s.0.stderr.log")).unwrap(),
            "the user's"
        );
    }

    #[test]
    fn keeps_at_most_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let flood = io::repeat(b'x').take(LOG_LIMIT + 1_000);
        let log = StderrLog::start(flood, dir.path().into(), "f".into());
        log.wait(Duration::from_secs(60));
        let text = fs::read(log.state().path.unwrap()).unwrap();
        let note = b"\n[budgetlab: 1000 more bytes of stderr were read and not kept]\n";
        assert_eq!(text.len() as u64, LOG_LIMIT + note.len() as u64);
        assert!(text.ends_with(note));
    }
}
