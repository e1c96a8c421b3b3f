//! The fault-injecting backend: fails chosen ids, or a deterministic fraction of writes, and passes the rest to
//! the backend it wraps. Which writes fail depends only on the id and the seed, never on call order, so the rule
//! ([`InjectedFaults`]) can be handed to a writer outside the process (an external strategy) and give the same
//! failures there.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use super::{ArtifactStore, Content, PersistError, PersistStats};

/// The failure rule of a [`FaultyStore`]: a write to `id` fails when `id` is one of `ids`, or when the first four
/// bytes of sha256(`seed` as 8 little-endian bytes, then `id` as UTF-8), read as a little-endian u32, modulo
/// 1,000,000 are below `rate_ppm`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InjectedFaults {
    /// Ids that always fail, sorted.
    pub ids: Vec<String>,
    /// The share of other writes that fail, in parts per million (0 to 1,000,000).
    pub rate_ppm: u32,
    /// The seed of the hash that picks them.
    pub seed: u64,
}

impl InjectedFaults {
    /// The seed of the injected failures of batch `index` in a run (or simulation) seeded `run_seed`: the run's
    /// seed XOR the index times 0x9E3779B97F4A7C15 (wrapping), so that each batch draws its own failures and the
    /// same batch draws the same ones in any shard.
    pub fn batch_seed(run_seed: u64, index: u64) -> u64 {
        run_seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// Whether a write to `id` fails under this rule.
    pub fn fails(&self, id: &str) -> bool {
        if self.ids.binary_search_by(|i| i.as_str().cmp(id)).is_ok() {
            return true;
        }
        if self.rate_ppm == 0 {
            return false;
        }
        let mut h = Sha256::new();
        h.update(self.seed.to_le_bytes());
        h.update(id.as_bytes());
        let d = h.finalize();
        let draw = u32::from_le_bytes([d[0], d[1], d[2], d[3]]) % 1_000_000;
        draw < self.rate_ppm
    }
}

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

    /// Fails the writes `faults` names: the same rule, as an external writer is given it.
    pub fn from_faults(inner: S, faults: &InjectedFaults) -> Self {
        FaultyStore {
            inner,
            fail_ids: faults.ids.iter().cloned().collect(),
            fail_ppm: faults.rate_ppm.min(1_000_000),
            seed: faults.seed,
            failures: 0,
        }
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The failure rule of this backend.
    pub fn faults(&self) -> InjectedFaults {
        InjectedFaults {
            ids: self.fail_ids.iter().cloned().collect(),
            rate_ppm: self.fail_ppm,
            seed: self.seed,
        }
    }

    fn fails(&self, id: &str) -> bool {
        if self.fail_ids.contains(id) {
            return true;
        }
        if self.fail_ppm == 0 {
            return false;
        }
        InjectedFaults {
            ids: Vec::new(),
            rate_ppm: self.fail_ppm,
            seed: self.seed,
        }
        .fails(id)
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

    fn artifact_dir(&self) -> &str {
        self.inner.artifact_dir()
    }

    /// Passes the attempt to the wrapped backend: a failure the writer reports counts once, there.
    fn record(&mut self, id: &str, tool_name: &str, content: &Content, path: Option<&str>) {
        self.inner.record(id, tool_name, content, path)
    }

    fn injected_faults(&self) -> Option<InjectedFaults> {
        let faults = self.faults();
        (!faults.ids.is_empty() || faults.rate_ppm > 0).then_some(faults)
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

    #[test]
    fn the_rule_handed_out_fails_the_same_writes() {
        let store = FaultyStore::new(MemoryStore::new("d"), ["z".to_string(), "b".to_string()])
            .with_rate(0.25, 7);
        let faults = store.injected_faults().unwrap();
        assert_eq!(faults.ids, ["b", "z"]);
        assert_eq!((faults.rate_ppm, faults.seed), (250_000, 7));
        let mut copy = FaultyStore::from_faults(MemoryStore::new("d"), &faults);
        assert_eq!(copy.faults(), faults);
        for i in 0..2_000 {
            let id = format!("id{i}");
            assert_eq!(faults.fails(&id), store.fails(&id), "{id}");
            assert_eq!(
                copy.write(&id, "t", &"x".into()).is_err(),
                faults.fails(&id)
            );
        }
        assert!(faults.fails("b") && faults.fails("z"));
        // A known draw, so an implementation in another language can check itself against it.
        let pinned = InjectedFaults {
            ids: vec![],
            rate_ppm: 500_000,
            seed: 42,
        };
        let picked: Vec<bool> = ["c1", "c2", "c3", "c4"]
            .iter()
            .map(|id| pinned.fails(id))
            .collect();
        assert_eq!(picked, PINNED_DRAWS);
        assert_eq!(
            FaultyStore::new(MemoryStore::new("d"), []).injected_faults(),
            None
        );
        // A rate alone is a rule to hand out.
        let rate_only = FaultyStore::new(MemoryStore::new("d"), []).with_rate(0.25, 7);
        assert_eq!(
            rate_only
                .injected_faults()
                .map(|f| (f.ids.len(), f.rate_ppm)),
            Some((0, 250_000))
        );
    }

    #[test]
    fn a_write_fails_when_its_draw_is_below_the_rate_and_not_at_it() {
        // The draw of the documented rule, computed here from its description.
        let draw = |seed: u64, id: &str| {
            let mut h = Sha256::new();
            h.update(seed.to_le_bytes());
            h.update(id.as_bytes());
            u32::from_le_bytes(h.finalize()[..4].try_into().unwrap()) % 1_000_000
        };
        for id in ["c1", "c2", "a-much-longer-id"] {
            let d = draw(9, id);
            let at = |rate_ppm| InjectedFaults {
                ids: vec![],
                rate_ppm,
                seed: 9,
            };
            assert!(!at(d).fails(id), "{id}: draw {d}");
            assert!(at(d + 1).fails(id), "{id}: draw {d}");
            assert!(at(1_000_000).fails(id));
            assert!(!at(0).fails(id));
        }
    }

    #[test]
    fn each_batch_of_a_run_gets_its_own_seed() {
        const STEP: u64 = 0x9E37_79B9_7F4A_7C15;
        assert_eq!(InjectedFaults::batch_seed(42, 0), 42);
        assert_eq!(InjectedFaults::batch_seed(0, 1), STEP);
        assert_eq!(InjectedFaults::batch_seed(u64::MAX, 1), !STEP);
        assert_eq!(
            InjectedFaults::batch_seed(u64::MAX, 2),
            !STEP.wrapping_mul(2)
        );
        let seeds: BTreeSet<u64> = (0..10_000)
            .map(|i| InjectedFaults::batch_seed(7, i))
            .collect();
        assert_eq!(seeds.len(), 10_000);
    }

    /// Which of `c1`..`c4` fail at 500,000 ppm with seed 42 (docs/protocol.md quotes them).
    const PINNED_DRAWS: [bool; 4] = [false, false, false, true];
}
