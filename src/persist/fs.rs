//! The filesystem backend: real files under one artifact directory.
//!
//! Each artifact is written to a fresh temporary file (created exclusively with an unpredictable short name,
//! mode 0600, so an existing file or symlink is never followed, and the name fits wherever `<id>.txt` does) and
//! renamed over `<dir>/<id>.txt`; a rename replaces a symlink rather than writing through it, and a failed write
//! removes its temporary file (one of budgetlab's temporary files: removed on SIGINT, SIGTERM or SIGHUP, and by
//! the next write into the folder if a killed run left it). Ids are checked again here, so no call id can reach outside the directory.

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::atomic::{temp_file_in, without_temp_path, TempFile};

use super::{artifact_path, ArtifactStore, Content, PersistError, PersistStats};

/// Writes artifacts as files under a directory.
#[derive(Debug)]
pub struct FsStore {
    dir: String,
    stats: PersistStats,
}

impl FsStore {
    /// A store writing under `dir` (created on first write if missing), taken as it is: resolve it first
    /// (`FinalizeJob::resolve_artifact_dir` does) for the paths to say where the files really go.
    pub fn new(dir: impl Into<String>) -> Self {
        FsStore {
            dir: dir.into(),
            stats: PersistStats::default(),
        }
    }

    fn write_atomically(&mut self, id: &str, content: &str) -> Result<String, std::io::Error> {
        fs::create_dir_all(&self.dir)?;
        let target = artifact_path(&self.dir, id);
        // On any error the temporary file is dropped, which removes it; the message names the artifact.
        let TempFile {
            file: mut temp,
            registered,
        } = temp_file_in(Path::new(&self.dir), 0o600)?;
        temp.write_all(content.as_bytes())?;
        temp.as_file().sync_data()?;
        temp.persist(&target)
            .map_err(|e| without_temp_path(e.error))?;
        drop(registered);
        Ok(target)
    }
}

impl ArtifactStore for FsStore {
    fn write(
        &mut self,
        id: &str,
        _tool_name: &str,
        content: &Content,
    ) -> Result<String, PersistError> {
        if !super::is_valid_id(id) {
            self.stats.failures += 1;
            return Err(PersistError::InvalidId(id.to_string()));
        }
        match self.write_atomically(id, content) {
            Ok(path) => {
                self.stats.record_write(content.len());
                Ok(path)
            }
            Err(e) => {
                self.stats.failures += 1;
                Err(PersistError::Io {
                    path: artifact_path(&self.dir, id),
                    message: e.to_string(),
                })
            }
        }
    }

    fn stats(&self) -> PersistStats {
        self.stats
    }

    fn artifact_dir(&self) -> &str {
        &self.dir
    }

    /// Counts the attempt; the file, if any, is the writer's own and is never touched.
    fn record(&mut self, id: &str, _tool_name: &str, content: &Content, path: Option<&str>) {
        self.stats.record_reported(id, content, path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_private_files_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("artifacts");
        let mut store = FsStore::new(d.to_str().unwrap());
        let path = store.write("c1", "shell", &"full output".into()).unwrap();
        assert_eq!(path, format!("{}/c1.txt", d.display()));
        assert_eq!(fs::read_to_string(&path).unwrap(), "full output");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        let leftovers: Vec<_> = fs::read_dir(&d).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
        assert_eq!(store.stats().writes, 1);
    }

    #[cfg(unix)]
    #[test]
    fn never_writes_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, "keep").unwrap();
        let d = dir.path().join("artifacts");
        fs::create_dir(&d).unwrap();
        std::os::unix::fs::symlink(&outside, d.join("evil.txt")).unwrap();
        let mut store = FsStore::new(d.to_str().unwrap());
        store.write("evil", "shell", &"replaced".into()).unwrap();
        assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");
        assert!(!fs::symlink_metadata(d.join("evil.txt"))
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn long_ids_persist_while_their_file_name_fits() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = FsStore::new(dir.path().to_str().unwrap());
        let fits = "a".repeat(251); // 255 bytes with ".txt"
        store.write(&fits, "shell", &"x".into()).unwrap();
        let too_long = "b".repeat(252);
        assert!(store.write(&too_long, "shell", &"x".into()).is_err());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, [format!("{fits}.txt")], "no temporary file left");
        assert_eq!(store.stats().writes, 1);
        assert_eq!(store.stats().failures, 1);
    }

    #[test]
    fn refuses_ids_that_leave_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = FsStore::new(dir.path().to_str().unwrap());
        for bad in ["..", "../x", "a/b", ""] {
            assert!(matches!(
                store.write(bad, "t", &"x".into()),
                Err(PersistError::InvalidId(_))
            ));
        }
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        assert_eq!(store.stats().failures, 4);
    }

    #[test]
    fn reported_attempts_are_counted_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("artifacts");
        let mut store = FsStore::new(d.to_str().unwrap());
        assert_eq!(store.artifact_dir(), d.to_str().unwrap());
        store.record("c1", "t", &"hello".into(), Some("elsewhere/c1.txt"));
        store.record("c2", "t", &"x".into(), None);
        store.record("..", "t", &"x".into(), None);
        assert_eq!(
            store.stats(),
            PersistStats {
                writes: 1,
                bytes: 5,
                failures: 1
            }
        );
        assert!(!d.exists());
    }
}
