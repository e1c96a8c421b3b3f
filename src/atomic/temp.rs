//! budgetlab's temporary files, and how a later command knows the ones a killed budgetlab left. A temporary
//! file is named `.budgetlab-` + ten random letters and digits + six more derived from them (a check no other
//! program's names carry by chance) + `.tmp`: 31 bytes, so it fits wherever the final name does. It is created
//! exclusively, locked (`flock`) at once and held locked until it goes into place or is removed, and registered
//! with [`interrupt`](crate::interrupt) so that a signal removes it. The first temporary file a process makes
//! in a folder first removes the stale ones there: a file whose name carries the check, that is a regular file
//! and whose lock can be taken without waiting (so no running budgetlab holds it). A file of any other name,
//! or one a live budgetlab holds, is left alone; where the file system has no locks, nothing is removed.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tempfile::{NamedTempFile, TempPath};

use crate::interrupt::{self, Registered, Registration};

use super::TEMP_PREFIX;

/// The suffix of a temporary file's name.
const TEMP_SUFFIX: &str = ".tmp";

/// Random characters in a name.
const RANDOM_LEN: usize = 10;

/// Characters of the check that follows them.
const CHECK_LEN: usize = 6;

/// What names are made of.
const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// How many names are tried before giving up.
const ATTEMPTS: usize = 64;

/// A temporary file being written: locked, registered, removed when dropped.
#[derive(Debug)]
pub(crate) struct TempFile {
    pub(crate) file: NamedTempFile,
    /// The registration with [`interrupt`]; drop it once the file went into place or was removed.
    pub(crate) registered: Registered,
}

/// Makes a temporary file in `dir` with the permissions `mode` (less the umask), after removing the stale
/// ones there (once per folder and process).
pub(crate) fn temp_file_in(dir: &Path, mode: u32) -> io::Result<TempFile> {
    remove_stale_once(dir);
    let hold = interrupt::hold();
    for _ in 0..ATTEMPTS {
        let path = dir.join(format!("{TEMP_PREFIX}{}{TEMP_SUFFIX}", new_stem()));
        let mut options = OpenOptions::new();
        options.read(true).write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(mode);
        }
        #[cfg(not(unix))]
        let _ = mode;
        let file = match options.open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let registered = hold.register(Registration::TempFile(path.clone()));
        match file.try_lock() {
            Ok(()) => {}
            // Another budgetlab took it for a stale file in the instant before the lock: it removes it.
            Err(fs::TryLockError::WouldBlock) => continue,
            // No locks here: the file is ours all the same, and no budgetlab removes an unlocked one here.
            Err(fs::TryLockError::Error(_)) => {}
        }
        if !is_at(&file, &path) {
            // Removed as stale before it was locked: try another name.
            continue;
        }
        // Made only now: a `TempPath` removes its path when dropped, and until here the path might not be ours.
        let temp = match TempPath::try_from_path(&path) {
            Ok(temp) => temp,
            Err(e) => {
                let _ = fs::remove_file(&path);
                return Err(e);
            }
        };
        return Ok(TempFile {
            file: NamedTempFile::from_parts(file, temp),
            registered,
        });
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free temporary name",
    ))
}

/// Ten random characters and their check.
fn new_stem() -> String {
    // Seeded by the system's randomness once per thread and stepped at every call: unpredictable names.
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    let mut bits = hasher.finish();
    let mut stem = String::with_capacity(RANDOM_LEN + CHECK_LEN);
    for _ in 0..RANDOM_LEN {
        stem.push(char::from(ALPHABET[(bits % 62) as usize]));
        bits /= 62;
    }
    let check = check_of(&stem);
    stem.push_str(&check);
    stem
}

/// The check of a name's random characters: the first characters of their SHA-256, in the alphabet.
fn check_of(random: &str) -> String {
    let digest = crate::digest::sha256(format!("budgetlab temporary file {random}").as_bytes());
    digest[..CHECK_LEN]
        .iter()
        .map(|&b| char::from(ALPHABET[usize::from(b) % 62]))
        .collect()
}

/// Whether `name` is one [`temp_file_in`] makes.
pub(crate) fn is_temp_name(name: &str) -> bool {
    let Some(stem) = name
        .strip_prefix(TEMP_PREFIX)
        .and_then(|n| n.strip_suffix(TEMP_SUFFIX))
    else {
        return false;
    };
    stem.len() == RANDOM_LEN + CHECK_LEN
        && stem.bytes().all(|b| b.is_ascii_alphanumeric())
        && check_of(&stem[..RANDOM_LEN]) == stem[RANDOM_LEN..]
}

/// Whether `path` names the file `file` is open on.
fn is_at(file: &File, path: &Path) -> bool {
    match (file.metadata(), fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => same_file(&a, &b),
        _ => false,
    }
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, b: &fs::Metadata) -> bool {
    b.is_file()
}

/// [`remove_stale`] of `dir`, unless this process did it already.
fn remove_stale_once(dir: &Path) {
    static DONE: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
    let key = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let first = DONE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .insert(key);
    if first {
        remove_stale(dir);
    }
}

/// Removes the temporary files in `dir` that a budgetlab left when it was killed (see the module's
/// description).
pub(crate) fn remove_stale(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let ours = entry.file_name().to_str().is_some_and(is_temp_name);
        if !ours || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let mut options = OpenOptions::new();
        options.read(true);
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // Never through a link, and never waiting on a FIFO swapped in since it was listed.
            let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
            options.custom_flags(flags.bits() as i32);
        }
        let Ok(file) = options.open(&path) else {
            continue;
        };
        // Locked until it is removed: a budgetlab making a file of this name in the meantime sees the lock.
        if file.try_lock().is_ok()
            && file.metadata().is_ok_and(|m| m.is_file())
            && is_at(&file, &path)
        {
            let _ = fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_their_check_and_others_do_not() {
        for _ in 0..100 {
            let name = format!("{TEMP_PREFIX}{}{TEMP_SUFFIX}", new_stem());
            assert_eq!(name.len(), 31, "{name}");
            assert!(is_temp_name(&name), "{name}");
        }
        for name in [
            ".budgetlab-abcdefghij.tmp",
            ".budgetlab-foo.tmp",
            ".budgetlab-abcdefghij000000.tmp",
            ".budgetlab-staging-abcdefghij",
            "notes.txt",
        ] {
            assert!(!is_temp_name(name), "{name}");
        }
    }

    #[test]
    fn stale_files_go_and_held_or_foreign_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let live = temp_file_in(dir.path(), 0o600).unwrap();
        let stale_name = format!("{TEMP_PREFIX}{}{TEMP_SUFFIX}", new_stem());
        fs::write(dir.path().join(&stale_name), "left by a killed run").unwrap();
        fs::write(dir.path().join(".budgetlab-abcdefghij.tmp"), "mine").unwrap();
        remove_stale(dir.path());
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let live_name = live.file.path().file_name().unwrap().to_string_lossy();
        let mut expected = vec![
            ".budgetlab-abcdefghij.tmp".to_string(),
            live_name.into_owned(),
        ];
        expected.sort();
        assert_eq!(names, expected);
    }
}
