//! The in-memory backend: the default, and what tests and simulations use. It records every write.

use super::{artifact_path, ArtifactStore, Content, PersistError, PersistStats};

/// One artifact the in-memory backend holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredArtifact {
    /// The persistence id it was written under.
    pub id: String,
    /// The tool whose output it is.
    pub tool_name: String,
    /// The complete text.
    pub content: Content,
    /// The path reported to the model.
    pub path: String,
}

/// Keeps artifacts in memory, reporting paths as if they lived under `dir`.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    dir: String,
    artifacts: Vec<StoredArtifact>,
    stats: PersistStats,
}

impl MemoryStore {
    /// An empty store whose paths are `dir/<id>.txt`.
    pub fn new(dir: impl Into<String>) -> Self {
        MemoryStore {
            dir: dir.into(),
            ..Default::default()
        }
    }

    /// Every artifact written so far, in write order.
    pub fn artifacts(&self) -> &[StoredArtifact] {
        &self.artifacts
    }
}

impl ArtifactStore for MemoryStore {
    fn write(
        &mut self,
        id: &str,
        tool_name: &str,
        content: &Content,
    ) -> Result<String, PersistError> {
        if !super::is_valid_id(id) {
            self.stats.failures += 1;
            return Err(PersistError::InvalidId(id.to_string()));
        }
        let path = artifact_path(&self.dir, id);
        self.stats.record_write(content.len());
        self.artifacts.push(StoredArtifact {
            id: id.to_string(),
            tool_name: tool_name.to_string(),
            content: content.clone(),
            path: path.clone(),
        });
        Ok(path)
    }

    fn stats(&self) -> PersistStats {
        self.stats
    }

    fn artifact_dir(&self) -> &str {
        &self.dir
    }

    fn record(&mut self, id: &str, tool_name: &str, content: &Content, path: Option<&str>) {
        self.stats.record_reported(id, content, path);
        if let Some(path) = path {
            self.artifacts.push(StoredArtifact {
                id: id.to_string(),
                tool_name: tool_name.to_string(),
                content: content.clone(),
                path: path.to_string(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_every_write() {
        let mut store = MemoryStore::new("/tmp");
        assert_eq!(
            store.write("a", "shell", &"héllo".into()).unwrap(),
            "/tmp/a.txt"
        );
        assert!(store.write("..", "shell", &"x".into()).is_err());
        assert_eq!(store.artifacts().len(), 1);
        assert_eq!(&*store.artifacts()[0].content, "héllo");
        assert_eq!(
            store.stats(),
            PersistStats {
                writes: 1,
                bytes: 6,
                failures: 1
            }
        );
    }

    #[test]
    fn records_reported_attempts_as_writes_would_count_them() {
        let mut store = MemoryStore::new("/tmp");
        assert_eq!(store.artifact_dir(), "/tmp");
        store.record("a", "shell", &"héllo".into(), Some("/elsewhere/a.txt"));
        store.record("b", "shell", &"x".into(), None);
        store.record("c/", "shell", &"x".into(), None);
        assert_eq!(store.artifacts().len(), 1);
        assert_eq!(store.artifacts()[0].path, "/elsewhere/a.txt");
        assert_eq!(&*store.artifacts()[0].content, "héllo");
        assert_eq!(
            store.stats(),
            PersistStats {
                writes: 1,
                bytes: 6,
                failures: 1
            },
            "a refused id is no failed write, as for a built-in strategy"
        );
    }
}
