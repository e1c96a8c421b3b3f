//! The sha256 digests of the fields a finalization cuts. Every shortened field's header names the digest of its
//! full text, and on a large batch that hashing is most of a finalizer's work. One text's sha256 is sequential, so
//! the parallelism is across fields: when the cut fields' bytes are large (see [`PARALLEL_DIGEST_BYTES`]), a
//! strategy that knows which fields it will cut hands their texts to [`CutDigests::new`], which hashes them all at
//! once on the threads of the current rayon pool, each field once, before the fits that name them; the fits then
//! take the digests in the order given. Below the threshold nothing is computed ahead and each field is hashed
//! where its fit needs it, as a one-core finalizer would. The digests, and so every output, are the same either
//! way and on any number of threads.
//!
//! Inside a parallel run the hashing is nested in the run's per-batch tasks: rayon runs it on the same pool's
//! threads (a thread waiting for its fields helps with other tasks meanwhile), so nothing is oversubscribed and
//! nothing reaches an output but the digests, collected in field order.

use crate::digest::{sha256, sha256_each_on_all_cores};

/// The bytes of hashing that other cores must be able to take off the calling thread before a finalization's
/// cut fields are hashed on all cores: `total - max(largest, total / threads)`, the cut fields' bytes less the
/// bytes the calling thread still hashes at best (its share, or the largest field, which one core hashes alone).
/// At 2 GB/s of sha256 a core, 256 KiB is about 0.13 ms of hashing moved off the calling thread, well above what
/// handing tasks to a pool costs; the `digest_split` bench measures where parallel hashing starts to pay (see
/// README, Performance).
pub const PARALLEL_DIGEST_BYTES: u64 = 256 * 1024;

/// The digests of the fields one finalization cuts: computed ahead on all cores, or on demand, one per field.
#[derive(Debug)]
pub(crate) struct CutDigests {
    /// Digests computed ahead with the byte length of the text each is of, in the order the fits take them;
    /// empty when the fields are hashed on demand.
    ahead: std::vec::IntoIter<([u8; 32], usize)>,
}

impl CutDigests {
    /// Digests for the fields whose full `texts` a finalization is about to cut, in the order its fits will ask
    /// for them: computed now on every thread of the current rayon pool when the work other threads can take is
    /// at least [`PARALLEL_DIGEST_BYTES`], else left to be computed on demand.
    pub(crate) fn new<'a>(texts: impl Iterator<Item = &'a str> + Clone) -> Self {
        let lens = texts.clone().map(str::len);
        if !worth_all_cores(lens, rayon::current_num_threads(), threshold()) {
            return CutDigests::on_demand();
        }
        let texts: Vec<&str> = texts.collect();
        let digests = sha256_each_on_all_cores(&texts);
        #[cfg(test)]
        AHEAD_RUNS.with(|runs| runs.set(runs.get() + 1));
        let ahead: Vec<([u8; 32], usize)> = digests
            .into_iter()
            .zip(texts.iter().map(|t| t.len()))
            .collect();
        CutDigests {
            ahead: ahead.into_iter(),
        }
    }

    /// Digests computed on demand only.
    pub(crate) fn on_demand() -> Self {
        CutDigests {
            ahead: Vec::new().into_iter(),
        }
    }

    /// The digest of `text`, the next field cut, when it was computed ahead.
    pub(crate) fn ahead(&mut self, text: &str) -> Option<[u8; 32]> {
        let (digest, len) = self.ahead.next()?;
        debug_assert_eq!(len, text.len(), "digests are taken in the order given");
        Some(digest)
    }

    /// The digest of `text`, the next field cut: computed ahead, or now.
    pub(crate) fn next(&mut self, text: &str) -> [u8; 32] {
        self.ahead(text)
            .unwrap_or_else(|| sha256(text.as_bytes()))
    }
}

/// A field being shortened: its full text, and the text's digest when it was computed ahead.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CutField<'a> {
    /// The full text of the field.
    pub text: &'a str,
    /// The sha256 of `text`, when computed ahead.
    digest: Option<[u8; 32]>,
}

impl<'a> CutField<'a> {
    /// The next field cut, `text`, with its digest from `digests` when they computed it ahead.
    pub(crate) fn next(text: &'a str, digests: &mut CutDigests) -> Self {
        CutField {
            text,
            digest: digests.ahead(text),
        }
    }

    /// The sha256 of the full text: computed ahead, or now.
    pub(crate) fn sha256(&self) -> [u8; 32] {
        self.digest
            .unwrap_or_else(|| sha256(self.text.as_bytes()))
    }
}

/// Whether fields of byte lengths `lens`, hashed on `threads` threads, move at least `threshold` bytes of hashing
/// off the calling thread.
fn worth_all_cores(lens: impl Iterator<Item = usize>, threads: usize, threshold: u64) -> bool {
    if threads < 2 {
        return false;
    }
    let (mut fields, mut total, mut largest) = (0u64, 0u64, 0u64);
    for len in lens {
        fields += 1;
        total += len as u64;
        largest = largest.max(len as u64);
    }
    let calling_thread = largest.max(total.div_ceil(threads as u64));
    fields >= 2 && total - calling_thread >= threshold
}

#[cfg(test)]
thread_local! {
    /// A threshold in place of [`PARALLEL_DIGEST_BYTES`] on this thread (see [`with_threshold`]).
    static THRESHOLD: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
    /// How many times this thread computed a finalization's digests ahead on all cores.
    static AHEAD_RUNS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The threshold in force on this thread.
fn threshold() -> u64 {
    #[cfg(test)]
    if let Some(t) = THRESHOLD.with(std::cell::Cell::get) {
        return t;
    }
    PARALLEL_DIGEST_BYTES
}

/// Runs `f` with `bytes` as the threshold on the calling thread (0: all cores whenever two fields are cut and the
/// pool has two threads; `u64::MAX`: never), and returns its result with how many times it hashed ahead.
#[cfg(test)]
pub(crate) fn with_threshold<R>(bytes: u64, f: impl FnOnce() -> R) -> (R, u64) {
    struct Restore(Option<u64>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THRESHOLD.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(THRESHOLD.with(|t| t.replace(Some(bytes))));
    let before = AHEAD_RUNS.with(std::cell::Cell::get);
    let out = f();
    (out, AHEAD_RUNS.with(std::cell::Cell::get) - before)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calling_threads_least_share_decides() {
        let kib = 1024;
        // Two equal fields on two threads: half the bytes move.
        assert!(worth_all_cores([256 * kib, 256 * kib].into_iter(), 2, 256 * kib as u64));
        assert!(!worth_all_cores([256 * kib, 255 * kib].into_iter(), 2, 256 * kib as u64));
        // One giant field among small ones: only the small ones can move.
        assert!(!worth_all_cores([4096 * kib, 100 * kib, 100 * kib].into_iter(), 2, 256 * kib as u64));
        assert!(worth_all_cores([4096 * kib, 200 * kib, 56 * kib].into_iter(), 2, 256 * kib as u64));
        // Three threads take two thirds of equal fields.
        assert!(worth_all_cores([128 * kib; 3].into_iter(), 3, 256 * kib as u64));
        assert!(!worth_all_cores([128 * kib; 3].into_iter(), 2, 256 * kib as u64));
        // One thread, or one field, never.
        assert!(!worth_all_cores([1 << 30, 1 << 30].into_iter(), 1, 0));
        assert!(!worth_all_cores([1 << 30].into_iter(), 2, 0));
        assert!(!worth_all_cores(std::iter::empty(), 2, 0));
        assert!(worth_all_cores([0, 0].into_iter(), 2, 0));
    }

    #[test]
    fn digests_ahead_and_on_demand_are_the_same() {
        let texts = ["abc", "", "é😀", "abc"];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let expected: Vec<[u8; 32]> = texts.iter().map(|t| sha256(t.as_bytes())).collect();
        for (bytes, runs) in [(0, 1), (u64::MAX, 0)] {
            let ((got, ahead), counted) = pool.install(|| {
                with_threshold(bytes, || {
                    let mut digests = CutDigests::new(texts.iter().copied());
                    let first = CutField::next(texts[0], &mut digests);
                    let mut got = vec![first.sha256()];
                    got.extend(texts[1..].iter().map(|t| digests.next(t)));
                    (got, first.digest.is_some())
                })
            });
            assert_eq!(got, expected, "threshold {bytes}");
            assert_eq!((ahead, counted), (runs == 1, runs), "threshold {bytes}");
        }
        // The override holds only inside, and one thread never hashes ahead.
        let (inside, _) = with_threshold(7, threshold);
        assert_eq!((inside, threshold()), (7, PARALLEL_DIGEST_BYTES));
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (_, runs) = one.install(|| with_threshold(0, || CutDigests::new(texts.iter().copied())));
        assert_eq!(runs, 0);
    }
}
