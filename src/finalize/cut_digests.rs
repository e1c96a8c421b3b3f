//! The sha256 digests of the fields a finalization cuts. Every shortened field's header names the digest of its
//! full text, and on a large batch that hashing is most of a finalizer's work. One text's sha256 is sequential, so
//! the parallelism is across fields: when the cut fields' bytes are large (see [`PARALLEL_DIGEST_BYTES`]), a
//! strategy that knows which fields it will cut hands their texts to [`CutDigests::new`], which hashes them all at
//! once on the threads of the current rayon pool, each field once, before the fits that name them; the fits then
//! take the digests in the order given. Below the threshold nothing is computed ahead and each field is hashed
//! where its fit needs it, as a one-core finalizer would. The digests, and so every output, are the same either
//! way and on any number of threads.
//!
//! The calling thread hashes from the start, and helper tasks on the pool's other threads take fields as they get
//! to run (`digest::sha256_each_on_all_cores`), so a busy pool or a loaded machine costs little more than hashing
//! on one core. Inside a parallel run the hashing is nested in the run's per-batch tasks: the helpers are tasks of
//! the same pool (an idle thread takes them; nothing is oversubscribed), and nothing reaches an output but the
//! digests, each stored at its field's place.

use crate::digest::{sha256_each_on_all_cores, sha256_known, KnownDigests};

/// The bytes of hashing that other cores must be able to take off the calling thread before a finalization's
/// cut fields are hashed on all cores: `total - max(largest, total / threads)`, the cut fields' bytes less the
/// bytes the calling thread still hashes at best (its share, or the largest field, which one core hashes alone).
/// At 2 GB/s of sha256 a core, 256 KiB is about 0.13 ms of hashing moved off the calling thread, well above what
/// handing tasks to a pool costs; the `digest_split` bench measures where parallel hashing starts to pay (see
/// the book's Performance chapter, book/src/contributing/performance.md).
pub const PARALLEL_DIGEST_BYTES: u64 = 256 * 1024;

/// The digests of the fields one finalization cuts: known to the batch's cache, computed ahead on all cores, or
/// on demand, one per field.
#[derive(Debug)]
pub(crate) struct CutDigests<'k> {
    /// For each field in the order the fits take them, its digest when it was known or computed ahead, with the
    /// byte length of its text; empty when there is no cache and the fields are hashed on demand.
    ahead: std::vec::IntoIter<(Option<[u8; 32]>, usize)>,
    /// The batch's known digests, which digests computed here join.
    known: Option<&'k KnownDigests>,
}

impl<'k> CutDigests<'k> {
    /// Digests for the fields whose full `texts` a finalization is about to cut, in the order its fits will ask
    /// for them: those `known` has are taken from it; the others are computed now on every thread of the current
    /// rayon pool when the work other threads can take is at least [`PARALLEL_DIGEST_BYTES`], else left to be
    /// computed on demand.
    pub(crate) fn new<'a>(
        texts: impl Iterator<Item = &'a str> + Clone,
        known: Option<&'k KnownDigests>,
    ) -> Self {
        let Some(known) = known else {
            return CutDigests::without_cache(texts);
        };
        let texts: Vec<&str> = texts.collect();
        let mut digests: Vec<Option<[u8; 32]>> = texts.iter().map(|t| known.get(t)).collect();
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| digests[i].is_none()).collect();
        let lens = missing.iter().map(|&i| texts[i].len());
        if worth_all_cores(lens, rayon::current_num_threads(), threshold()) {
            let hashed: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            #[cfg(test)]
            AHEAD_RUNS.with(|runs| runs.set(runs.get() + 1));
            for (&i, digest) in missing.iter().zip(sha256_each_on_all_cores(&hashed)) {
                known.learn(texts[i], digest);
                digests[i] = Some(digest);
            }
        }
        let ahead: Vec<(Option<[u8; 32]>, usize)> = digests
            .into_iter()
            .zip(texts.iter().map(|t| t.len()))
            .collect();
        CutDigests {
            ahead: ahead.into_iter(),
            known: Some(known),
        }
    }

    /// [`CutDigests::new`] without a cache.
    fn without_cache<'a>(texts: impl Iterator<Item = &'a str> + Clone) -> Self {
        let lens = texts.clone().map(str::len);
        if !worth_all_cores(lens, rayon::current_num_threads(), threshold()) {
            return CutDigests::on_demand();
        }
        let texts: Vec<&str> = texts.collect();
        let digests = sha256_each_on_all_cores(&texts);
        #[cfg(test)]
        AHEAD_RUNS.with(|runs| runs.set(runs.get() + 1));
        let ahead: Vec<(Option<[u8; 32]>, usize)> = digests
            .into_iter()
            .map(Some)
            .zip(texts.iter().map(|t| t.len()))
            .collect();
        CutDigests {
            ahead: ahead.into_iter(),
            known: None,
        }
    }

    /// Digests computed on demand only, without a cache.
    pub(crate) fn on_demand() -> Self {
        CutDigests {
            ahead: Vec::new().into_iter(),
            known: None,
        }
    }

    /// The digest of `text`, the next field cut, when it was known or computed ahead.
    pub(crate) fn ahead(&mut self, text: &str) -> Option<[u8; 32]> {
        let (digest, len) = self.ahead.next()?;
        debug_assert_eq!(len, text.len(), "digests are taken in the order given");
        digest
    }

    /// The digest of `text`, the next field cut: known, computed ahead, or now.
    pub(crate) fn next(&mut self, text: &str) -> [u8; 32] {
        self.ahead(text)
            .unwrap_or_else(|| sha256_known(self.known, text))
    }
}

/// A field being shortened: its full text, and the text's digest when it was known or computed ahead.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CutField<'a> {
    /// The full text of the field.
    pub text: &'a str,
    /// The sha256 of `text`, when known or computed ahead.
    digest: Option<[u8; 32]>,
    /// The batch's known digests, which a digest computed on demand joins.
    known: Option<&'a KnownDigests>,
}

impl<'a> CutField<'a> {
    /// The next field cut, `text`, with its digest from `digests` when they knew or computed it ahead.
    pub(crate) fn next<'k: 'a>(text: &'a str, digests: &mut CutDigests<'k>) -> Self {
        CutField {
            text,
            digest: digests.ahead(text),
            known: digests.known,
        }
    }

    /// The sha256 of the full text: known, computed ahead, or now.
    pub(crate) fn sha256(&self) -> [u8; 32] {
        self.digest
            .unwrap_or_else(|| sha256_known(self.known, self.text))
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
    use crate::budget::{Budget, BudgetContext, PlanReminders};
    use crate::digest::sha256;
    use crate::finalize::{collect_slots, Outcome, SlotScope, StrategyName};
    use crate::model::{Batch, Entry, Field, Part};
    use crate::persist::{MemoryStore, StoredArtifact};
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn the_threshold_in_force_is_256_kib_and_decides_at_its_byte() {
        // The threshold the book's Performance chapter states: 256 KiB, the one in force outside a test's override.
        assert_eq!(PARALLEL_DIGEST_BYTES, 256 * 1024);
        assert_eq!(threshold(), PARALLEL_DIGEST_BYTES);
        let at = usize::try_from(PARALLEL_DIGEST_BYTES).unwrap();
        // Two fields on two threads move the smaller one off the calling thread: exactly the threshold is enough,
        // a byte less is not.
        assert!(worth_all_cores([at, at].into_iter(), 2, threshold()));
        assert!(!worth_all_cores([at, at - 1].into_iter(), 2, threshold()));
    }

    #[test]
    fn the_calling_threads_least_share_decides() {
        let kib = 1024;
        // Two equal fields on two threads: half the bytes move.
        assert!(worth_all_cores(
            [256 * kib, 256 * kib].into_iter(),
            2,
            256 * kib as u64
        ));
        assert!(!worth_all_cores(
            [256 * kib, 255 * kib].into_iter(),
            2,
            256 * kib as u64
        ));
        // One giant field among small ones: only the small ones can move.
        assert!(!worth_all_cores(
            [4096 * kib, 100 * kib, 100 * kib].into_iter(),
            2,
            256 * kib as u64
        ));
        assert!(worth_all_cores(
            [4096 * kib, 200 * kib, 56 * kib].into_iter(),
            2,
            256 * kib as u64
        ));
        // Three threads take two thirds of equal fields.
        assert!(worth_all_cores(
            [128 * kib; 3].into_iter(),
            3,
            256 * kib as u64
        ));
        assert!(!worth_all_cores(
            [128 * kib; 3].into_iter(),
            2,
            256 * kib as u64
        ));
        // One thread, or one field, never.
        assert!(!worth_all_cores([1 << 30, 1 << 30].into_iter(), 1, 0));
        assert!(!worth_all_cores([1 << 30].into_iter(), 2, 0));
        assert!(!worth_all_cores(std::iter::empty(), 2, 0));
        assert!(worth_all_cores([0, 0].into_iter(), 2, 0));
    }

    #[test]
    fn digests_ahead_and_on_demand_are_the_same() {
        let texts = ["abc", "", "é😀", "abc"];
        let two = pool(2);
        let expected: Vec<[u8; 32]> = texts.iter().map(|t| sha256(t.as_bytes())).collect();
        for (bytes, runs) in [(0, 1), (u64::MAX, 0)] {
            let ((got, ahead), counted) = two.install(|| {
                with_threshold(bytes, || {
                    let mut digests = CutDigests::new(texts.iter().copied(), None);
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
        let (_, runs) =
            pool(1).install(|| with_threshold(0, || CutDigests::new(texts.iter().copied(), None)));
        assert_eq!(runs, 0);
    }

    /// Every strategy's outcome and artifacts on `batch`, finalized in `pool` with the digest threshold at
    /// `threshold`, and how many times each hashed ahead.
    fn every_strategy(
        pool: &rayon::ThreadPool,
        threshold: u64,
        batch: &Batch,
        ctx: &BudgetContext,
    ) -> (Vec<(Outcome, Vec<StoredArtifact>)>, Vec<u64>) {
        pool.install(|| {
            StrategyName::all()
                .iter()
                .map(|strategy| {
                    with_threshold(threshold, || {
                        let mut store = MemoryStore::new("/art");
                        let outcome = strategy.build().finalize(batch.clone(), ctx, &mut store);
                        (outcome, store.artifacts().to_vec())
                    })
                })
                .unzip()
        })
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// How many fields the reference cuts in `batch` at `budget`.
    fn reference_cuts(batch: &Batch, budget: u64) -> usize {
        let slots = collect_slots(batch, &PlanReminders::default(), SlotScope::ALL);
        let lengths: Vec<u64> = slots.iter().map(|s| s.len).collect();
        if lengths.iter().sum::<u64>() <= budget {
            return 0;
        }
        let allocation = crate::alloc::water_fill(&lengths, budget);
        lengths
            .iter()
            .zip(&allocation)
            .filter(|(l, a)| l > a)
            .count()
    }

    const PIECES: &[&str] = &["a", "line\n", "é", "中", "😀", "👩‍👩‍👧", " ", "{\"k\":1}"];

    /// Text of up to a few thousand units, surrogate pairs included.
    fn text() -> impl proptest::strategy::Strategy<Value = String> {
        (
            proptest::collection::vec(0..PIECES.len(), 0..12),
            1usize..400,
        )
            .prop_map(|(idx, rep)| idx.iter().map(|&i| PIECES[i].repeat(rep)).collect())
    }

    fn entry() -> impl proptest::strategy::Strategy<Value = Entry> {
        let part = prop_oneof![
            3 => (text(), proptest::option::of(text())).prop_map(|(o, e)| {
                Part::function_response("id", "shell", Some(json!(o)), e.map(|e| json!(e)))
            }),
            1 => text().prop_map(Part::text),
            1 => text().prop_map(|hook| {
                let reminder = PlanReminders::default().texts()[0].clone();
                let output = format!("{reminder}\n\n{hook}");
                Part::function_response("p", "enter_plan_mode", Some(json!(output)), None)
            }),
        ];
        let paths = prop_oneof![
            3 => Just(None),
            1 => Just(Some(vec!["/prior/a.output".to_string()])),
            1 => Just(Some(vec!["/prior/a".to_string(), "/prior/b".to_string()])),
        ];
        let ids = prop_oneof![Just("c1"), Just("c1"), Just("c2"), Just("bash")];
        (ids, proptest::collection::vec(part, 1..3), paths).prop_map(|(id, parts, paths)| {
            let mut e = Entry::new(id, "shell", parts);
            e.persisted_output_files = paths;
            e
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Digests ahead on two threads, digests on demand, and one thread give every strategy the same outcome
        /// and the same artifacts, and the reference hashes ahead exactly when it cuts two fields or more.
        #[test]
        fn ahead_on_demand_and_one_thread_give_the_same_outcomes(
            batch in proptest::collection::vec(entry(), 0..10),
            budget in 1u64..20_000,
            window in proptest::option::of(1_000u64..40_000),
        ) {
            let (one, two) = (pool(1), pool(2));
            let mut ctx = BudgetContext::new(Budget::Units(budget as i64));
            ctx.context_window_tokens = window;
            let (on_demand, on_demand_runs) = every_strategy(&two, u64::MAX, &batch, &ctx);
            let (ahead, ahead_runs) = every_strategy(&two, 0, &batch, &ctx);
            let (one_thread, one_thread_runs) = every_strategy(&one, 0, &batch, &ctx);
            let runs = |r: Vec<u64>| r.iter().sum::<u64>();
            let (ahead_runs, reference_ahead) = (runs(ahead_runs.clone()), ahead_runs[0]);
            prop_assert_eq!((runs(on_demand_runs), runs(one_thread_runs)), (0, 0));
            prop_assert_eq!(&ahead, &on_demand);
            prop_assert_eq!(&one_thread, &on_demand);
            prop_assert_eq!(StrategyName::all()[0].clone(), StrategyName::REFERENCE);
            prop_assert_eq!(reference_ahead, u64::from(reference_cuts(&batch, budget) >= 2));
            prop_assert!(ahead_runs >= reference_ahead);
        }
    }

    #[test]
    fn a_large_batch_hashes_ahead_on_two_threads_and_gives_what_one_thread_gives() {
        // Like bench shape a: 100 distinct logs of 50,000 bytes at a budget of 200,000 cut every field, 5 MB.
        let batch: Batch = (0..100)
            .map(|i| {
                let log: String = (0..3_000)
                    .map(|line| format!("entry {i} line {line}: ok\n"))
                    .collect::<String>()[..50_000]
                    .to_string();
                crate::finalize::testing::output_entry(&format!("c{i}"), "shell", &log)
            })
            .collect();
        let ctx = BudgetContext::new(Budget::Units(200_000));
        // At the default threshold.
        let (two, two_runs) = every_strategy(&pool(2), PARALLEL_DIGEST_BYTES, &batch, &ctx);
        let (one, one_runs) = every_strategy(&pool(1), PARALLEL_DIGEST_BYTES, &batch, &ctx);
        assert_eq!(two, one);
        // Every strategy that names digests cuts two fields or more here, and hashes them ahead once: the
        // reference, the send guard, the five other allocations on the water-fill engine (greedy's last fields get
        // too little room to show their header), head-tail in three shares, and largest-first. Window-relative
        // keeps fields of 50,000 units without a window.
        // Strategies registered after this test was written are held to the rule every one is: at most one run.
        let known = |n: &String| {
            let name = n.rsplit_once(':').map_or(n.as_str(), |(name, _)| name);
            crate::finalize::KNOWN_STRATEGIES.contains(&name) || name.starts_with("head-tail-")
        };
        assert!(two_runs.iter().all(|&r| r <= 1));
        let ahead: Vec<String> = StrategyName::all()
            .iter()
            .zip(&two_runs)
            .map(|(name, &runs)| format!("{name}:{runs}"))
            .filter(|n| !n.ends_with(":0"))
            .filter(known)
            .collect();
        let expected = [
            "reference",
            "send-guard",
            "proportional",
            "uniform",
            "greedy",
            "largest-first",
            "weighted",
            "line-aware",
            "head-tail-0",
            "head-tail-0.5",
            "head-tail-1",
            "salient",
            "relevance",
            "rarity",
            "structure",
        ];
        assert_eq!(ahead, expected.map(|n| format!("{n}:1")));
        assert!(one_runs.iter().all(|&r| r == 0));
        // The reference names each field's own digest.
        let reference = &two[0].0;
        for (before, after) in batch.iter().zip(&reference.batch) {
            let full = before.response_parts[0].field(Field::Output).unwrap();
            let header = after.response_parts[0].field(Field::Output).unwrap();
            assert!(header.contains(&crate::digest::sha256_hex(full)));
        }
    }
}
