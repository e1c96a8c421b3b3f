//! Persistence backends: where a finalizer writes the full text of an output it shortens.
//!
//! A backend takes a persistence id (already normalised: no '/', no NUL, never `.` or `..`), the tool name and
//! the content, writes it once, and returns the path the model is told about. Three backends: [`MemoryStore`]
//! (the default; records every write), [`FsStore`] (real files, atomic, 0600, confined to one directory) and
//! [`FaultyStore`] (fails chosen ids or a fraction of writes, wrapping another backend). Every backend counts its
//! writes, bytes and failures in [`PersistStats`].
//!
//! An external strategy (a child process, see `external`) writes its artifacts itself and reports them; the
//! harness records each reported attempt in the backend with [`ArtifactStore::record`], so the backend's counts
//! and the in-memory backend's artifacts are the same as a built-in strategy's writes would have made them, and
//! tells the child the backend's directory ([`ArtifactStore::artifact_dir`]) and injected faults
//! ([`ArtifactStore::injected_faults`]).

mod content;
mod faulty;
mod fs;
mod ids;
mod memory;

pub use content::Content;
pub use faulty::{FaultyStore, InjectedFaults};
pub use fs::FsStore;
pub use ids::{normalise, PersistenceIds};
pub use memory::{MemoryStore, StoredArtifact};

use serde::Serialize;

/// Why a write did not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PersistError {
    /// The fault-injecting backend failed this write on purpose.
    #[error("injected failure for artifact {0:?}")]
    Injected(String),
    /// The id would leave the artifact directory or name nothing.
    #[error("refused artifact id {0:?}")]
    InvalidId(String),
    /// The filesystem refused the write.
    #[error("writing {path}: {message}")]
    Io {
        /// The path being written.
        path: String,
        /// The operating system's message.
        message: String,
    },
}

/// What a backend has done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistStats {
    /// Successful writes.
    pub writes: u64,
    /// Bytes (UTF-8) of the successful writes.
    pub bytes: u64,
    /// Writes that failed.
    pub failures: u64,
}

impl PersistStats {
    /// Counts one successful write of `bytes` bytes.
    pub fn record_write(&mut self, bytes: usize) {
        self.writes += 1;
        self.bytes += bytes as u64;
    }
}

/// A place to persist complete tool output. Implementations must be deterministic given the same calls.
pub trait ArtifactStore {
    /// Writes `content` as the artifact `id` of a call to `tool_name`; returns the path of the written artifact.
    ///
    /// The content is shared, not copied: a backend that keeps it (the in-memory one) holds another reference.
    fn write(
        &mut self,
        id: &str,
        tool_name: &str,
        content: &Content,
    ) -> Result<String, PersistError>;

    /// Counts of writes, bytes and failures so far.
    fn stats(&self) -> PersistStats;

    /// The directory artifact paths are under (`dir/<id>.txt`), as the backend was given it.
    fn artifact_dir(&self) -> &str;

    /// Records an attempt someone else made (an external strategy's reported write), counting it as
    /// [`ArtifactStore::write`] would have: a `path` is a successful write of `content` (the in-memory backend
    /// keeps it, under the reported path); no path with a valid `id` is a failed write; no path with an invalid
    /// id is a write refused before any backend was asked, which no backend counts. Nothing is written.
    fn record(&mut self, id: &str, tool_name: &str, content: &Content, path: Option<&str>);

    /// The failures this backend injects, for a writer that cannot go through it (an external strategy is told
    /// them); `None` when it injects none.
    fn injected_faults(&self) -> Option<InjectedFaults> {
        None
    }
}

/// The path an artifact `id` gets under `dir`: `dir + "/" + id + ".txt"` (a trailing '/' of `dir` is not doubled).
pub fn artifact_path(dir: &str, id: &str) -> String {
    let dir = if dir.len() > 1 {
        dir.trim_end_matches('/')
    } else {
        dir
    };
    if dir.ends_with('/') {
        format!("{dir}{id}.txt")
    } else {
        format!("{dir}/{id}.txt")
    }
}

/// Whether `id` is safe to use as a file name inside the artifact directory.
pub fn is_valid_id(id: &str) -> bool {
    !(id.is_empty() || id == "." || id == ".." || id.contains('/') || id.contains('\0'))
}

impl<T: ArtifactStore + ?Sized> ArtifactStore for Box<T> {
    fn write(
        &mut self,
        id: &str,
        tool_name: &str,
        content: &Content,
    ) -> Result<String, PersistError> {
        (**self).write(id, tool_name, content)
    }

    fn stats(&self) -> PersistStats {
        (**self).stats()
    }

    fn artifact_dir(&self) -> &str {
        (**self).artifact_dir()
    }

    fn record(&mut self, id: &str, tool_name: &str, content: &Content, path: Option<&str>) {
        (**self).record(id, tool_name, content, path)
    }

    fn injected_faults(&self) -> Option<InjectedFaults> {
        (**self).injected_faults()
    }
}

impl PersistStats {
    /// Counts a reported attempt as [`ArtifactStore::record`] describes.
    pub fn record_reported(&mut self, id: &str, content: &Content, path: Option<&str>) {
        match path {
            Some(_) => self.record_write(content.len()),
            None if is_valid_id(id) => self.failures += 1,
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_without_doubling_slashes() {
        assert_eq!(artifact_path("tool-results", "c1"), "tool-results/c1.txt");
        assert_eq!(artifact_path("/tmp/", "c1"), "/tmp/c1.txt");
        assert_eq!(artifact_path("/", "c1"), "/c1.txt");
        // Every trailing '/' goes, however many.
        assert_eq!(artifact_path("out//", "c1"), "out/c1.txt");
        assert_eq!(artifact_path("//", "c1"), "/c1.txt");
        assert_eq!(artifact_path("a", "c1"), "a/c1.txt");
    }

    #[test]
    fn a_boxed_store_forwards_every_call() {
        let mut boxed: Box<dyn ArtifactStore> = Box::new(FaultyStore::new(
            MemoryStore::new("out"),
            ["bad".to_string()],
        ));
        assert_eq!(boxed.artifact_dir(), "out");
        assert_eq!(
            boxed.write("c1", "shell", &Content::from("abc")),
            Ok("out/c1.txt".to_string())
        );
        assert_eq!(
            boxed.write("bad", "shell", &Content::from("x")),
            Err(PersistError::Injected("bad".into()))
        );
        boxed.record("c2", "shell", &Content::from("hello"), Some("x/c2.txt"));
        assert_eq!(
            boxed.stats(),
            PersistStats {
                writes: 2,
                bytes: 8,
                failures: 1
            }
        );
        assert_eq!(
            boxed.injected_faults().map(|f| f.ids),
            Some(vec!["bad".into()])
        );
    }

    #[test]
    fn ids_that_leave_the_directory_are_invalid() {
        for bad in ["", ".", "..", "a/b", "a\0b"] {
            assert!(!is_valid_id(bad), "{bad:?}");
        }
        for good in ["c1", "...", ".hidden", "a\\b", "😀"] {
            assert!(is_valid_id(good), "{good:?}");
        }
    }
}
