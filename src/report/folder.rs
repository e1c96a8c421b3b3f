//! Report folders on disk, replaced only when budgetlab made them. Every folder `run`, `sweep` and `merge` write
//! holds a marker file, [`MARKER`], whose first line is a fixed signature (cargo's `CACHEDIR.TAG` habit). A
//! report goes to a path that holds nothing, an empty folder, or a folder with the marker; anything else is
//! refused, never moved or removed. The report is written complete into a staging folder beside the target
//! (created exclusively, with an unpredictable name, itself marked) and then takes the target's place in one
//! step: on Linux `renameat2(RENAME_EXCHANGE)` swaps the two folders, so the path holds the whole old report or
//! the whole new one at every instant, and the old one, now at the staging name, is removed. Where the system
//! cannot exchange two paths, the old folder is renamed aside first and the new one renamed in: between the two
//! renames the path is absent (the old report is kept aside until the new one is in). A run killed midway
//! leaves its staging folder; the next write into the same parent folder removes every staging folder that
//! carries the marker and whose marker no running budgetlab holds locked. An old report that cannot be removed
//! (a file in it belongs to another user) stays at its staging name, and [`take_warnings`] says so.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use crate::atomic::{exchange, is_unsupported, parent_of, refused_link, without_temp_path};
use crate::error::{Error, Result};
use crate::interrupt::{self, Registered, Registration};

/// The marker file of a budgetlab report folder.
pub const MARKER: &str = ".budgetlab-report";

/// The first line of [`MARKER`]: what makes a folder budgetlab's.
const SIGNATURE: &[u8] = b"Signature: budgetlab report folder\n";

/// The rest of [`MARKER`], for whoever opens it.
const NOTE: &str = "# Written by budgetlab. `budgetlab run`, `sweep`, `merge` and `report` replace a folder only when it\n\
# holds this file (see \"Inputs, outputs and safety\" in budgetlab's user guide,\n\
# book/src/reference/outputs.md); delete it to keep budgetlab from ever replacing the folder.\n";

/// Name prefix of staging folders (kept short so that it fits wherever the report's name does).
const STAGING_PREFIX: &str = ".budgetlab-staging-";

/// What the report writers of this process could not do and the user should know: the old reports left behind.
static WARNINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The warnings gathered since the last call, each one line, for the binary to print.
pub fn take_warnings() -> Vec<String> {
    std::mem::take(&mut *WARNINGS.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Removes the replaced report at `path`; if that fails, it stays there and a warning names it.
fn remove_replaced(path: &Path) {
    if let Err(e) = fs::remove_dir_all(path) {
        WARNINGS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(format!(
            "the replaced report could not be removed ({}) and is left at {}; remove it by hand",
            io_reason(&e),
            path.display()
        ));
    }
}

/// An I/O error's description without the "(os error N)" suffix.
fn io_reason(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// What is at a report folder's path now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Existing {
    /// Nothing.
    Absent,
    /// An empty folder, filled by the report.
    Empty,
    /// A folder carrying the marker: budgetlab's, replaced by the report.
    Report,
}

/// Whether `dir` is a folder budgetlab made: a real folder (not a symlink) holding [`MARKER`], a regular file
/// starting with the signature.
pub fn is_report_folder(dir: &Path) -> bool {
    fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) && has_signature(&dir.join(MARKER))
}

fn has_signature(marker: &Path) -> bool {
    if !fs::symlink_metadata(marker).is_ok_and(|m| m.file_type().is_file()) {
        return false;
    }
    let mut head = [0u8; SIGNATURE.len()];
    File::open(marker)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == SIGNATURE)
}

/// Checks that a report may be written to `dir` (see [`write_folder`]) without writing anything, so that a
/// command can refuse a bad `--out` before it runs.
pub fn check_folder(dir: &Path) -> Result<()> {
    let target = target_of(dir)?;
    existing(dir, &target).map(|_| ())
}

/// The path a report for `dir` is written to: `dir` itself. Refused: standard output, a path whose last
/// component is not a name (`.`, `..`, the root), which no folder can replace, and a symbolic link, which
/// budgetlab does not write through.
fn target_of(dir: &Path) -> Result<PathBuf> {
    if crate::atomic::is_stdout(dir) {
        return Err(Error::refused(
            dir,
            "cannot be a report folder: a report is a folder of files, not one stream",
        ));
    }
    let cannot = || {
        Error::refused(
            dir,
            format!(
                "cannot be replaced by a report folder: name a new or empty folder, such as {}",
                Path::new(dir).join("report").display()
            ),
        )
    };
    let named = |p: &Path| {
        matches!(p.components().next_back(), Some(Component::Normal(_)))
            && !p.as_os_str().to_string_lossy().ends_with("/.")
    };
    if !named(dir) {
        return Err(cannot());
    }
    if fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(refused_link(dir));
    }
    Ok(dir.to_path_buf())
}

/// What is at `target` (resolved from `dir`), or the refusal.
pub(crate) fn existing(dir: &Path, target: &Path) -> Result<Existing> {
    let not_ours = || {
        Error::refused(
            dir,
            format!(
                "exists and is not a budgetlab report folder (it has no {MARKER} marker; budgetlab replaces \
                 only what it made): move it away or choose another"
            ),
        )
    };
    match fs::symlink_metadata(target) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Existing::Absent),
        Err(e) => Err(Error::io(dir, e)),
        Ok(meta) if !meta.is_dir() => Err(not_ours()),
        Ok(_) if is_report_folder(target) => Ok(Existing::Report),
        Ok(_) => {
            let mut entries = fs::read_dir(target).map_err(|e| Error::io(dir, e))?;
            if entries.next().is_none() {
                Ok(Existing::Empty)
            } else {
                Err(not_ours())
            }
        }
    }
}

/// Writes `files` (name, bytes; a name may hold `/` for a subfolder) and the marker as the complete content of
/// the report folder `dir`, replacing it in one step (see the module's description). `dir` must hold nothing,
/// an empty folder or a budgetlab report folder; a symlink at `dir` is refused.
pub fn write_folder<N: AsRef<str>>(dir: &Path, files: &[(N, Vec<u8>)]) -> Result<()> {
    let target = target_of(dir)?;
    let parent = parent_of(&target);
    fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    let before = existing(dir, &target)?;
    write_staged(dir, &target, before, true, files)
}

/// Writes `files` as the complete content of the folder `target` (named `dir` in messages), which is found as
/// `before` says, with the marker when `marked`.
pub(crate) fn write_staged<N: AsRef<str>>(
    dir: &Path,
    target: &Path,
    before: Existing,
    marked: bool,
    files: &[(N, Vec<u8>)],
) -> Result<()> {
    let parent = parent_of(target);
    remove_stale_staging(parent);
    let mut staging = Staging::create(parent)?;
    if marked {
        staging.mark()?;
    }
    staging.fill(marked, files)?;
    staging.place(dir, target, before)
}

/// A report folder being made while a command runs: its staging folder, beside the target and marked (its
/// marker locked) from the start, can hold files as they come (an external strategy's stderr logs) before the
/// report is complete. [`PendingFolder::commit`] puts it in place of the target under the rules of
/// [`write_folder`]; [`PendingFolder::set_aside`] puts it beside the target instead, leaving the report there
/// untouched; dropped, it is removed.
pub struct PendingFolder {
    dir: PathBuf,
    target: PathBuf,
    staging: Staging,
    /// The folders [`PendingFolder::begin`] made to hold the staging folder, deepest first: removed again, when
    /// empty, if the folder is dropped without being put anywhere.
    made: Vec<PathBuf>,
}

impl std::fmt::Debug for PendingFolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingFolder")
            .field("dir", &self.dir)
            .field("staging", &self.staging.path)
            .finish()
    }
}

impl PendingFolder {
    /// Checks `dir` as [`write_folder`] does (refused: anything but nothing, an empty folder or a budgetlab
    /// report folder) and makes the marked staging folder beside it.
    pub fn begin(dir: &Path) -> Result<PendingFolder> {
        let target = target_of(dir)?;
        let parent = parent_of(&target).to_path_buf();
        let made: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|p| !p.as_os_str().is_empty() && fs::symlink_metadata(p).is_err())
            .map(Path::to_path_buf)
            .collect();
        fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        let mut pending = PendingFolder {
            dir: dir.to_path_buf(),
            staging: Staging::create(&parent)?,
            target,
            made,
        };
        existing(dir, &pending.target)?;
        remove_stale_staging(&parent);
        pending.staging.mark()?;
        Ok(pending)
    }

    /// Where the folder is being made: files written under it become part of the report.
    pub fn path(&self) -> &Path {
        &self.staging.path
    }

    /// Where [`PendingFolder::set_aside`] with `suffix` puts the folder.
    pub fn aside_path(&self, suffix: &str) -> PathBuf {
        sibling(&self.target, suffix)
    }

    /// Adds `files` and puts the folder in place of the target, in one step (every folder in it marked).
    pub fn commit<N: AsRef<str>>(mut self, files: &[(N, Vec<u8>)]) -> Result<()> {
        self.staging.fill(true, files)?;
        let before = existing(&self.dir, &self.target)?;
        let staging = self.take_staging();
        staging.place(&self.dir, &self.target, before)
    }

    /// The staging folder, to be put somewhere: the folders made for it stay.
    fn take_staging(&mut self) -> Staging {
        self.made.clear();
        let placeholder = Staging {
            path: PathBuf::new(),
            lock: None,
            armed: false,
            registered: None,
        };
        std::mem::replace(&mut self.staging, placeholder)
    }

    /// Adds `files` and puts the folder beside the target instead, at the target's name followed by `suffix`
    /// (under the same rules: that path must hold nothing, an empty folder or a budgetlab report folder, which
    /// is replaced). Returns where it went.
    pub fn set_aside<N: AsRef<str>>(
        mut self,
        suffix: &str,
        files: &[(N, Vec<u8>)],
    ) -> Result<PathBuf> {
        let aside = sibling(&self.target, suffix);
        self.staging.fill(true, files)?;
        let before = existing(&aside, &aside)?;
        let staging = self.take_staging();
        staging.place(&aside, &aside, before)?;
        Ok(aside)
    }
}

impl Drop for PendingFolder {
    /// The staging folder goes (removed with everything in it), then the folders made for it, while empty.
    fn drop(&mut self) {
        let staging = self.take_staging_keeping_made();
        drop(staging);
        for folder in &self.made {
            if fs::remove_dir(folder).is_err() {
                break;
            }
        }
    }
}

impl PendingFolder {
    fn take_staging_keeping_made(&mut self) -> Staging {
        let made = std::mem::take(&mut self.made);
        let staging = self.take_staging();
        self.made = made;
        staging
    }
}

/// Where [`PendingFolder::set_aside`] with `suffix` would put the folder for `dir`, checked as [`check_folder`]
/// checks `dir`, so that a command can refuse it before it runs.
pub fn check_aside(dir: &Path, suffix: &str) -> Result<PathBuf> {
    let aside = sibling(&target_of(dir)?, suffix);
    existing(&aside, &aside)?;
    Ok(aside)
}

/// `target` with `suffix` appended to its name.
fn sibling(target: &Path, suffix: &str) -> PathBuf {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    target.with_file_name(name)
}

/// Marks every folder under `root` (not `root` itself) that has no marker yet.
fn mark_folders(root: &Path) -> Result<()> {
    let entries = fs::read_dir(root).map_err(|e| Error::io(root, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(root, e))?;
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            let folder = entry.path();
            if !folder.join(MARKER).exists() {
                sign(&folder.join(MARKER))?;
            }
            mark_folders(&folder)?;
        }
    }
    Ok(())
}

/// Writes a marker file at `path`.
fn sign(path: &Path) -> Result<()> {
    let mut text = SIGNATURE.to_vec();
    text.extend_from_slice(NOTE.as_bytes());
    fs::write(path, text).map_err(|e| Error::io(path, e))
}

/// A staging folder: removed when dropped unless it went into place. While it is being filled, its marker is
/// held locked, so that no other budgetlab takes it for the leftover of a killed run.
struct Staging {
    path: PathBuf,
    /// The marker, locked.
    lock: Option<File>,
    /// Whether `path` still holds something to remove.
    armed: bool,
    /// The folder as registered with [`interrupt`] while it is armed.
    registered: Option<Registered>,
}

impl Staging {
    fn create(parent: &Path) -> Result<Staging> {
        // Made and registered under one hold, so that an interrupt removes it whenever it comes.
        let hold = interrupt::hold();
        let dir = tempfile::Builder::new()
            .prefix(STAGING_PREFIX)
            .rand_bytes(10)
            .tempdir_in(parent)
            .map_err(|e| Error::io(parent, without_temp_path(e)))?;
        let path = dir.keep();
        let registered = hold.register(Registration::StagingFolder(path.clone()));
        Ok(Staging {
            path,
            lock: None,
            armed: true,
            registered: Some(registered),
        })
    }

    /// Writes the marker: created, then locked, then signed, so that another run never sees it signed and
    /// unlocked while this one is alive.
    fn mark(&mut self) -> Result<()> {
        let path = self.path.join(MARKER);
        let mut file = File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        // Where locks are not supported the folder stays unlocked: it is still ours until it is renamed.
        let _ = file.try_lock();
        file.write_all(SIGNATURE)
            .and_then(|()| file.write_all(NOTE.as_bytes()))
            .map_err(|e| Error::io(&path, e))?;
        self.lock = Some(file);
        Ok(())
    }

    /// Writes `files` into the folder; with `marked`, every folder in it ends up marked, the ones made before
    /// (an external strategy's logs) included.
    fn fill<N: AsRef<str>>(&mut self, marked: bool, files: &[(N, Vec<u8>)]) -> Result<()> {
        for (name, bytes) in files {
            let path = self.path.join(name.as_ref());
            if let Some(folder) = path.parent().filter(|p| *p != self.path) {
                if !folder.exists() {
                    fs::create_dir_all(folder).map_err(|e| Error::io(folder, e))?;
                }
            }
            fs::write(&path, bytes).map_err(|e| Error::io(&path, e))?;
        }
        if marked {
            // Every folder budgetlab writes is marked, so that `budgetlab report` knows its charts.
            mark_folders(&self.path)?;
        }
        Ok(())
    }

    /// Puts the folder at `target` (named `dir` in messages), found as `before` says.
    fn place(mut self, dir: &Path, target: &Path, before: Existing) -> Result<()> {
        // No interrupt acts between a rename and what it changes about what is to be removed.
        let _hold = interrupt::hold();
        match before {
            // A rename replaces nothing, or an empty folder, in one step.
            Existing::Absent | Existing::Empty => {
                fs::rename(&self.path, target).map_err(|e| Error::io(dir, e))?;
                self.placed();
                Ok(())
            }
            Existing::Report => self.swap_in(dir, target),
        }
    }

    /// The staging folder is now the report (or holds what is not ours): nothing to remove.
    fn placed(&mut self) {
        self.armed = false;
        self.registered = None;
    }

    /// Replaces the budgetlab report folder `target` with this one.
    fn swap_in(mut self, dir: &Path, target: &Path) -> Result<()> {
        match exchange(&self.path, target) {
            Ok(()) => {
                // The old report is at the staging path now and goes when `self` is dropped; if what came back
                // is not a budgetlab folder (it changed since it was checked), it goes back instead.
                if !is_report_folder(&self.path) {
                    if exchange(&self.path, target).is_err() {
                        self.placed();
                    }
                    return Err(Error::refused(
                        dir,
                        "changed while the report was written and is no longer a budgetlab report folder",
                    ));
                }
                // The old report is at the staging path now.
                self.armed = false;
                remove_replaced(&self.path);
                Ok(())
            }
            Err(e) if is_unsupported(&e) => self.swap_by_renames(dir, target),
            Err(e) => Err(Error::io(dir, e)),
        }
    }

    /// [`Staging::swap_in`] where the system cannot exchange two paths: the old report is renamed aside (to a
    /// fresh staging name), the new one renamed in, and the old one removed; if the second rename fails, the
    /// old report is renamed back.
    fn swap_by_renames(mut self, dir: &Path, target: &Path) -> Result<()> {
        let mut aside = Staging::create(parent_of(target))?;
        // A folder can be renamed over an empty one.
        fs::rename(target, &aside.path).map_err(|e| Error::io(dir, e))?;
        if let Err(e) = fs::rename(&self.path, target) {
            if fs::rename(&aside.path, target).is_err() {
                aside.placed(); // the old report stays aside, not removed
            }
            return Err(Error::io(dir, e));
        }
        self.placed();
        aside.armed = false;
        remove_replaced(&aside.path);
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if self.armed {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// Removes the staging folders in `parent` left by killed runs: those whose marker carries the signature and is
/// not locked by a running budgetlab. Anything else with a staging-like name is left alone.
fn remove_stale_staging(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .starts_with(STAGING_PREFIX)
        {
            continue;
        }
        let path = entry.path();
        if !is_report_folder(&path) {
            continue;
        }
        let Ok(marker) = File::open(path.join(MARKER)) else {
            continue;
        };
        if marker.try_lock().is_ok() {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_a_folder_whole() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("latest");
        write_folder(
            &dir,
            &[("a.txt", b"one".to_vec()), ("b.txt", b"two".to_vec())],
        )
        .unwrap();
        write_folder(&dir, &[("a.txt", b"three".to_vec())]).unwrap();
        assert_eq!(fs::read_to_string(dir.join("a.txt")).unwrap(), "three");
        assert!(!dir.join("b.txt").exists());
        assert_eq!(names(root.path()), ["latest"]);
        assert_eq!(names(&dir), [MARKER, "a.txt"]);
        assert!(is_report_folder(&dir));
    }

    #[test]
    fn the_fallback_without_exchange_replaces_too() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("latest");
        write_folder(&dir, &[("a.txt", b"one".to_vec())]).unwrap();
        let mut staging = Staging::create(root.path()).unwrap();
        staging.mark().unwrap();
        fs::write(staging.path.join("a.txt"), "two").unwrap();
        staging.swap_by_renames(&dir, &dir).unwrap();
        assert_eq!(fs::read_to_string(dir.join("a.txt")).unwrap(), "two");
        assert_eq!(names(root.path()), ["latest"]);
    }

    #[test]
    fn a_pending_folder_is_filled_while_a_command_runs_then_put_in_place_or_aside() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("reports/latest");
        // Dropped unplaced, it leaves nothing, not even the folders it made to hold it.
        let pending = PendingFolder::begin(&dir).unwrap();
        assert!(is_report_folder(pending.path()));
        drop(pending);
        assert!(names(root.path()).is_empty());

        let pending = PendingFolder::begin(&dir).unwrap();
        fs::create_dir(pending.path().join("external")).unwrap();
        fs::write(pending.path().join("external/t.0.stderr.log"), "log").unwrap();
        pending.commit(&[("a.txt", b"one".to_vec())]).unwrap();
        assert_eq!(names(&dir), [MARKER, "a.txt", "external"]);
        assert!(
            is_report_folder(&dir.join("external")),
            "folders made before are marked too"
        );
        assert_eq!(names(&root.path().join("reports")), ["latest"]);

        // Set aside: the report stays as it was; the aside folder is replaced only when budgetlab's.
        for round in ["first", "second"] {
            let pending = PendingFolder::begin(&dir).unwrap();
            assert_eq!(
                pending.aside_path(".failed"),
                root.path().join("reports/latest.failed")
            );
            let aside = pending
                .set_aside(".failed", &[("fault.txt", round.as_bytes().to_vec())])
                .unwrap();
            assert_eq!(fs::read_to_string(aside.join("fault.txt")).unwrap(), round);
        }
        assert_eq!(fs::read_to_string(dir.join("a.txt")).unwrap(), "one");
        assert_eq!(
            names(&root.path().join("reports")),
            ["latest", "latest.failed"]
        );
        fs::remove_file(root.path().join("reports/latest.failed").join(MARKER)).unwrap();
        assert!(check_aside(&dir, ".failed").is_err());
        let pending = PendingFolder::begin(&dir).unwrap();
        assert!(pending
            .set_aside(".failed", &[("fault.txt", vec![])])
            .is_err());
        assert_eq!(
            names(&root.path().join("reports")),
            ["latest", "latest.failed"]
        );
        assert_eq!(
            names(&root.path().join("reports/latest.failed")),
            ["fault.txt"]
        );
    }

    #[test]
    fn refuses_what_it_did_not_make() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("file");
        fs::write(&file, "mine").unwrap();
        let full = root.path().join("full");
        fs::create_dir(&full).unwrap();
        fs::write(full.join("mine.txt"), "mine").unwrap();
        // A marker that is a symlink, or without the signature, does not count.
        let fake = root.path().join("fake");
        fs::create_dir(&fake).unwrap();
        fs::write(fake.join(MARKER), "something else").unwrap();
        for dir in [&file, &full, &fake] {
            let err = write_folder(dir, &[("a.txt", b"x".to_vec())]).unwrap_err();
            assert!(
                err.to_string()
                    .contains("exists and is not a budgetlab report folder"),
                "{err}"
            );
        }
        assert_eq!(fs::read_to_string(&file).unwrap(), "mine");
        assert_eq!(names(&full), ["mine.txt"]);
        assert_eq!(names(root.path()), ["fake", "file", "full"]);
    }
}
