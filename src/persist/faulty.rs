//! The fault-injecting backend: fails chosen ids, or a deterministic fraction of writes, and passes the rest to
//! the backend it wraps. Which writes fail depends only on the id and the seed, never on call order.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use super::{ArtifactStore, Content, PersistError, PersistStats};

/// Wraps a backend and fails some of its writes.
#[derive(Debug)]
pub struct FaultyStore<S> {
    inner: S,
    fail_ids: BTreeSet<String>,
    /// Failure probability in parts per million.
    fail_ppm: u32,
    seed: u64,
    failures: u64,
}

impl<S: ArtifactStore> FaultyStore<S> {
    /// Fails exactly the writes whose persistence id is in `fail_ids`.
    pub fn new(inner: S, fail_ids: impl IntoIterator<Item = String>) -> Self {
        FaultyStore {
            inner,
            fail_ids: fail_ids.into_iter().collect(),
            fail_ppm: 0,
            seed: 0,
            failures: 0,
        }
    }

    /// Also fails a `rate` (0..=1) share of the other writes, chosen by a hash of `(seed, id)`.
    pub fn with_rate(mut self, rate: f64, seed: u64) -> Self {
        self.fail_ppm = (rate.clamp(0.0, 1.0) * 1_000_000.0).round() as u32;
        self.seed = seed;
        self
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn fails(&self, id: &str) -> bool {
        if self.fail_ids.contains(id) {
            return true;
        }
        if self.fail_ppm == 0 {
            return false;
        }
        let mut h = Sha256::new();
        h.update(self.seed.to_le_bytes());
        h.update(id.as_bytes());
        let d = h.finalize();
        let draw = u32::from_le_bytes([d[0], d[1], d[2], d[3]]) % 1_000_000;
        draw < self.fail_ppm
    }
}

impl<S: ArtifactStore> ArtifactStore for FaultyStore<S> {
    fn write(
        &mut self,
        id: &str,
        tool_name: &str,
        content: &Content,
    ) -> Result<String, PersistError> {
        if self.fails(id) {
            self.failures += 1;
            return Err(PersistError::Injected(id.to_string()));
        }
        self.inner.write(id, tool_name, content)
    }

    fn stats(&self) -> PersistStats {
        let mut s = self.inner.stats();
        s.failures += self.failures;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persist::MemoryStore;

    #[test]
    fn fails_chosen_ids_only() {
        let mut s = FaultyStore::new(MemoryStore::new("d"), ["b".to_string()]);
        assert!(s.write("a", "t", &"x".into()).is_ok());
        assert_eq!(
            s.write("b", "t", &"x".into()),
            Err(PersistError::Injected("b".into()))
        );
        assert_eq!(s.stats().writes, 1);
        assert_eq!(s.stats().failures, 1);
    }

    #[test]
    fn rate_is_deterministic_and_roughly_right() {
        let run = || {
            let mut s = FaultyStore::new(MemoryStore::new("d"), []).with_rate(0.25, 7);
            (0..4000)
                .map(|i| s.write(&format!("id{i}"), "t", &"x".into()).is_err())
                .collect::<Vec<_>>()
        };
        let a = run();
        assert_eq!(a, run());
        let failed = a.iter().filter(|&&f| f).count();
        assert!((800..1200).contains(&failed), "{failed}");
    }
}
