//! The filesystem backend: real files under one artifact directory.
//!
//! Each artifact is written to a fresh temporary file (created exclusively, mode 0600, so an existing file or
//! symlink of that name is never followed) and renamed over `<dir>/<id>.txt`; a rename replaces a symlink rather
//! than writing through it. Ids are checked again here, so no call id can reach outside the directory.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::PathBuf;

use super::{artifact_path, ArtifactStore, Content, PersistError, PersistStats};

/// Writes artifacts as files under a directory.
#[derive(Debug)]
pub struct FsStore {
    dir: String,
    stats: PersistStats,
    sequence: u64,
}

impl FsStore {
    /// A store writing under `dir` (created on first write if missing).
    pub fn new(dir: impl Into<String>) -> Self {
        FsStore {
            dir: dir.into(),
            stats: PersistStats::default(),
            sequence: 0,
        }
    }

    fn write_atomically(&mut self, id: &str, content: &str) -> Result<String, std::io::Error> {
        fs::create_dir_all(&self.dir)?;
        let target = artifact_path(&self.dir, id);
        self.sequence += 1;
        let temp = PathBuf::from(artifact_path(
            &self.dir,
            &format!(".{id}.{}.{}.tmp", std::process::id(), self.sequence),
        ));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let result = (|| {
            let mut file = options.open(&temp)?;
            file.write_all(content.as_bytes())?;
            file.sync_data()?;
            fs::rename(&temp, &target)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&temp);
        }
        result.map(|()| target)
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
}
