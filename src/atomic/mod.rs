//! Output files that never destroy anything. A path given for one output is resolved once, before anything is
//! written, into a [`Destination`]: `-` is standard output; a FIFO, character device or socket is written
//! through, never replaced (also when a symlink leads to one, as `/dev/stdout` does); a symlink to anything else
//! is refused, never followed, so that no output lands where a link planted in a folder points; a regular file
//! (or nothing yet) is written to a temporary file created exclusively, with an unpredictable short name, in the
//! same folder, and renamed over it only when complete. The temporary file is removed on every failure path,
//! the commit's included, and on a signal; one a killed budgetlab left is removed by the next write beside it
//! ([`temp`]). [`commit_all`] puts several files in place together: if one fails, those already in
//! place are put back as they were (on Linux, where `renameat2(RENAME_EXCHANGE)` keeps the old file until the
//! end).

use std::fs::{self, File, Permissions};
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};

use tempfile::TempPath;

use crate::error::{Error, Result};
use crate::interrupt::{self, Registered};

mod temp;

pub(crate) use temp::{temp_file_in, TempFile};

mod own_input;

pub use own_input::{refuse_inside, refuse_same_file, Named};

/// The path that means standard output.
pub const STDOUT: &str = "-";

/// Whether `path` is `-`, standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == STDOUT
}

/// Prefix of budgetlab's temporary files: short, so that a temporary name fits wherever the final name does.
const TEMP_PREFIX: &str = ".budgetlab-";

/// Where the bytes of one output go, decided before anything is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// Standard output (the path `-`).
    Stdout,
    /// A regular file, or nothing yet, at this path (never a symlink): replaced whole by a rename.
    Replace(PathBuf),
    /// A FIFO or character device, or a symlink to one: opened and written directly, never replaced.
    Through(PathBuf),
    /// A Unix socket, or a symlink to one: connected to and written directly.
    Socket(PathBuf),
}

impl Destination {
    /// Resolves the output path `path`. Refused: a path that names a folder (an existing one, or one ending in
    /// `/`), a block device, and a symlink that does not lead to a FIFO, character device or socket.
    pub fn resolve(path: &Path) -> Result<Destination> {
        if is_stdout(path) {
            return Ok(Destination::Stdout);
        }
        let folder = || Error::report(path.display().to_string(), "is a folder, not a file");
        if names_a_folder(path) {
            return Err(folder());
        }
        let meta = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Destination::Replace(path.to_path_buf()))
            }
            Err(e) => return Err(Error::io(path, e)),
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            // Only a link to a stream is written through: what it leads to cannot be replaced, only fed.
            return match fs::metadata(path) {
                Ok(target) if is_stream(&target.file_type()) => {
                    Ok(stream(path, &target.file_type()))
                }
                _ => Err(refused_link(path)),
            };
        }
        if kind.is_file() {
            if sticky_and_foreign(path, &meta) {
                return Err(Error::report(
                    path.display().to_string(),
                    "belongs to another user in a folder with the sticky bit, where only its owner can replace it",
                ));
            }
            return Ok(Destination::Replace(path.to_path_buf()));
        }
        if kind.is_dir() {
            return Err(folder());
        }
        if is_stream(&kind) {
            return Ok(stream(path, &kind));
        }
        Err(Error::report(
            path.display().to_string(),
            "is a block device; budgetlab does not write to one",
        ))
    }

    /// Whether two destinations are the same place: both standard output, the same file once `..` and the
    /// folders' symlinks are resolved, or (when both exist) the same file by identity.
    pub fn same_as(&self, other: &Destination) -> bool {
        match (self.path(), other.path()) {
            (None, None) => true,
            (Some(a), Some(b)) => identity(a) == identity(b) || same_inode(a, b),
            _ => false,
        }
    }

    /// The path written, `None` for standard output.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Destination::Stdout => None,
            Destination::Replace(p) | Destination::Through(p) | Destination::Socket(p) => Some(p),
        }
    }

    /// Whether the bytes go out as they are written (standard output, a FIFO, a device, a socket), so that they
    /// cannot be taken back if something fails later.
    pub fn is_stream(&self) -> bool {
        !matches!(self, Destination::Replace(_))
    }
}

/// Whether `path` can only name a folder: it ends in a separator, or its last component is `.`, `..` or the
/// root.
fn names_a_folder(path: &Path) -> bool {
    let text = path.as_os_str().to_string_lossy();
    text.ends_with('/')
        || text.ends_with(std::path::MAIN_SEPARATOR)
        || !matches!(path.components().next_back(), Some(Component::Normal(_)))
        || text.ends_with("/.")
}

/// Whether the file at `path` (of metadata `meta`) sits in a folder with the sticky bit and neither it nor the
/// folder is this process's user's, nor is the user root: the system then refuses to rename anything over it, so
/// the output is refused before any work rather than at the end.
fn sticky_and_foreign(path: &Path, meta: &fs::Metadata) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::unix::fs::MetadataExt;
        let me = rustix::process::geteuid().as_raw();
        let Ok(folder) = fs::metadata(parent_of(path)) else {
            return false;
        };
        me != 0 && folder.mode() & 0o1000 != 0 && meta.uid() != me && folder.uid() != me
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (path, meta);
        false
    }
}

/// The refusal of an output path that is a symbolic link: budgetlab writes no output through one.
pub(crate) fn refused_link(path: &Path) -> Error {
    Error::report(
        path.display().to_string(),
        "is a symbolic link; budgetlab does not write through links (name what it points to instead)",
    )
}

/// Whether an output of this kind is written through rather than replaced: a FIFO, a character device or a
/// socket (everything else but a file, a folder, a link and a block device).
fn is_stream(kind: &fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        kind.is_fifo() || kind.is_char_device() || kind.is_socket()
    }
    #[cfg(not(unix))]
    {
        let _ = kind;
        false
    }
}

/// The destination of a stream of this kind at `path`.
fn stream(path: &Path, kind: &fs::FileType) -> Destination {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_socket() {
            return Destination::Socket(path.to_path_buf());
        }
    }
    let _ = kind;
    Destination::Through(path.to_path_buf())
}

/// The folder holding `path` (`.` for a bare name).
pub(crate) fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// `path` with its folder resolved (`..`, symlinks), as far as that folder exists.
fn identity(path: &Path) -> PathBuf {
    match (fs::canonicalize(parent_of(path)), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

#[cfg(unix)]
fn same_inode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_inode(_: &Path, _: &Path) -> bool {
    false
}

/// Where an [`AtomicFile`]'s bytes are going.
enum Sink {
    Stdout(io::StdoutLock<'static>),
    Temp(TempFile),
    Through(File),
    #[cfg(unix)]
    Socket(std::os::unix::net::UnixStream),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::Temp(w) => w.file.write(buf),
            Sink::Through(w) => w.write(buf),
            #[cfg(unix)]
            Sink::Socket(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::Temp(w) => w.file.flush(),
            Sink::Through(w) => w.flush(),
            #[cfg(unix)]
            Sink::Socket(w) => w.flush(),
        }
    }
}

/// One output being written: to a temporary file renamed into place by [`AtomicFile::commit`] when the
/// destination is a file, straight through otherwise (standard output, a FIFO, a device, a socket). Dropped
/// without a commit, it removes its temporary file.
pub struct AtomicFile {
    /// The path as given, for messages (`<stdout>` for standard output).
    given: PathBuf,
    destination: Destination,
    /// The permissions of the file being replaced, kept by its replacement.
    permissions: Option<Permissions>,
    out: BufWriter<Sink>,
}

impl std::fmt::Debug for AtomicFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicFile")
            .field("given", &self.given)
            .field("destination", &self.destination)
            .finish_non_exhaustive()
    }
}

impl AtomicFile {
    /// Starts writing the output `path` (see [`Destination::resolve`]).
    pub fn create(path: &Path) -> Result<AtomicFile> {
        AtomicFile::open(path, Destination::resolve(path)?)
    }

    /// Starts writing to `destination`, resolved from the path `given`.
    pub fn open(given: &Path, destination: Destination) -> Result<AtomicFile> {
        let mut permissions = None;
        let sink = match &destination {
            Destination::Stdout => Sink::Stdout(io::stdout().lock()),
            Destination::Replace(dest) => {
                permissions = fs::metadata(dest).ok().map(|m| m.permissions());
                // What `File::create` would give a new file: 0666 less the umask.
                let tmp = temp_file_in(parent_of(dest), 0o666).map_err(|e| Error::io(given, e))?;
                Sink::Temp(tmp)
            }
            Destination::Through(dest) => Sink::Through(
                fs::OpenOptions::new()
                    .write(true)
                    .open(dest)
                    .map_err(|e| Error::io(given, e))?,
            ),
            #[cfg(unix)]
            Destination::Socket(dest) => Sink::Socket(
                std::os::unix::net::UnixStream::connect(dest).map_err(|e| Error::io(given, e))?,
            ),
            #[cfg(not(unix))]
            Destination::Socket(_) => unreachable!("sockets are found on unix only"),
        };
        let given = if destination == Destination::Stdout {
            PathBuf::from("<stdout>")
        } else {
            given.to_path_buf()
        };
        Ok(AtomicFile {
            given,
            destination,
            permissions,
            out: BufWriter::with_capacity(1 << 20, sink),
        })
    }

    /// Flushes and, for a file, syncs it and renames it into place.
    pub fn commit(self) -> Result<()> {
        commit_all(vec![self])
    }

    /// The path as given (`<stdout>` for standard output), for messages.
    pub fn dest(&self) -> &Path {
        &self.given
    }

    /// Where the bytes go.
    pub fn destination(&self) -> &Destination {
        &self.destination
    }

    /// Flushes the output; for a file, syncs it and returns its temporary path, ready to go into place.
    fn finish(self) -> Result<Option<Staged>> {
        let given = self.given;
        let sink = self
            .out
            .into_inner()
            .map_err(|e| Error::io(&given, e.into_error()))?;
        match sink {
            Sink::Temp(TempFile {
                file: tmp,
                registered,
            }) => {
                if let Some(permissions) = self.permissions {
                    tmp.as_file()
                        .set_permissions(permissions)
                        .map_err(|e| Error::io(&given, e))?;
                }
                tmp.as_file().sync_all().map_err(|e| Error::io(&given, e))?;
                let Destination::Replace(dest) = self.destination else {
                    unreachable!("a temporary file is made only to replace a file")
                };
                let (lock, temp) = tmp.into_parts();
                Ok(Some(Staged {
                    given,
                    dest,
                    temp,
                    _lock: lock,
                    registered: Some(registered),
                }))
            }
            Sink::Stdout(mut w) => w.flush().map(|()| None).map_err(|e| Error::io(&given, e)),
            Sink::Through(mut w) => w.flush().map(|()| None).map_err(|e| Error::io(&given, e)),
            #[cfg(unix)]
            Sink::Socket(mut w) => w.flush().map(|()| None).map_err(|e| Error::io(&given, e)),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A complete temporary file, waiting to go into place. Its temporary path is removed when it is dropped.
struct Staged {
    given: PathBuf,
    dest: PathBuf,
    temp: TempPath,
    /// The temporary file, open and locked until it is in place, so that no budgetlab takes it for stale.
    _lock: File,
    /// The temporary path as registered with [`interrupt`], until nothing of ours is left there.
    registered: Option<Registered>,
}

/// How a staged file went into place, and so how to take it back.
enum Placed {
    /// Exchanged with the file that was there, which now sits at the temporary path.
    Exchanged(Staged),
    /// Renamed to a path where nothing was.
    Created(PathBuf),
    /// Renamed over the file that was there (no exchange on this system): cannot be taken back.
    Replaced,
}

/// Commits `files` together, in order: every one is flushed (and synced) first, then each goes into place; if
/// one fails, those already in place are put back as they were (where the system can exchange two paths in
/// one step; elsewhere a replaced file cannot be restored). Outputs written through (standard output, FIFOs,
/// devices, sockets) are only flushed: what they received cannot be taken back.
pub fn commit_all(files: Vec<AtomicFile>) -> Result<()> {
    let mut staged = Vec::with_capacity(files.len());
    for file in files {
        if let Some(s) = file.finish()? {
            staged.push(s);
        }
    }
    let last = staged.len().saturating_sub(1);
    // No interrupt acts while the files go into place (or back): they all arrive, or none does.
    let _hold = interrupt::hold();
    let mut placed: Vec<Placed> = Vec::with_capacity(staged.len());
    for (i, file) in staged.into_iter().enumerate() {
        // The last file needs no way back: a plain rename is enough.
        let result = if i == last {
            place_by_rename(file)
        } else {
            place(file)
        };
        match result {
            Ok(p) => placed.push(p),
            Err(e) => {
                for p in placed.into_iter().rev() {
                    take_back(p);
                }
                return Err(e);
            }
        }
    }
    // Every file is in place: the old ones, kept at the temporary paths, are dropped (and removed) here.
    Ok(())
}

/// Puts `file` in place, keeping what was there so that it can be put back.
fn place(file: Staged) -> Result<Placed> {
    match exchange(&file.temp, &file.dest) {
        Ok(()) => {
            // What came back must be the regular file the destination held; anything else goes back.
            let old_is_file = fs::symlink_metadata(&file.temp)
                .map(|m| m.file_type().is_file())
                .unwrap_or(false);
            if !old_is_file {
                let given = file.given.display().to_string();
                if exchange(&file.temp, &file.dest).is_err() {
                    // What the temporary path holds now is not ours: leave it be.
                    let Staged {
                        temp, registered, ..
                    } = file;
                    let _ = temp.keep();
                    drop(registered);
                }
                return Err(Error::report(given, "changed while it was being written"));
            }
            Ok(Placed::Exchanged(file))
        }
        // Nothing to exchange with: the destination is new.
        Err(e) if e.kind() == io::ErrorKind::NotFound && file.temp.exists() => {
            place_by_rename(file)
        }
        Err(e) if is_unsupported(&e) => place_by_rename(file),
        Err(e) => Err(Error::io(&file.given, e)),
    }
}

/// Puts `file` in place with a plain rename.
fn place_by_rename(file: Staged) -> Result<Placed> {
    let existed = fs::symlink_metadata(&file.dest).is_ok();
    fs::rename(&file.temp, &file.dest).map_err(|e| Error::io(&file.given, e))?;
    // The temporary path is free now: nothing to remove there.
    let Staged {
        temp,
        registered,
        dest,
        ..
    } = file;
    let _ = temp.keep();
    drop(registered);
    Ok(if existed {
        Placed::Replaced
    } else {
        Placed::Created(dest)
    })
}

/// Undoes [`place`]: best effort, the error that caused it is what gets reported.
fn take_back(placed: Placed) {
    match placed {
        Placed::Exchanged(file) => {
            // The new file returns to the temporary path and is removed with it.
            let _ = exchange(&file.temp, &file.dest);
        }
        Placed::Created(dest) => {
            let _ = fs::remove_file(dest);
        }
        Placed::Replaced => {}
    }
}

/// `e` without the temporary path `tempfile` adds to its message: the error names the output instead.
pub(crate) fn without_temp_path(e: io::Error) -> io::Error {
    let text = e.to_string();
    match text.find(" at path \"") {
        Some(end) => io::Error::new(e.kind(), &text[..end]),
        None => e,
    }
}

/// Swaps the two paths in one step (Linux `renameat2(RENAME_EXCHANGE)`); both must exist.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
}

/// Swaps the two paths in one step: not available on this system.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Whether `e` says the system or file system cannot exchange two paths.
pub(crate) fn is_unsupported(e: &io::Error) -> bool {
    // EINVAL (the flag is unknown to the file system), ENOSYS (to the kernel), EOPNOTSUPP/ENOTSUP.
    e.kind() == io::ErrorKind::Unsupported || matches!(e.raw_os_error(), Some(22 | 38 | 95))
}

#[cfg(test)]
mod tests;
