//! Content digests: the SHA-256 of a text, raw or as lowercase hex. A shortened field's header names its full
//! output's digest, a scenario's hash is the digest of its canonical JSON, a recorded workload's is the digest of
//! its file, and the floor folds the digests of the fields it cuts. One text's SHA-256 is sequential, so many
//! texts can be hashed at once only side by side: [`sha256_each_on_all_cores`] spreads them over the current
//! rayon pool. A digest depends on the text alone, so a run keeps the digests of one batch's long texts in a
//! [`KnownDigests`] that every strategy and budget of the batch consults: each distinct text is hashed once.
//! A leaf: it names no other module.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The SHA-256 of each of `texts`, in order, one after the other on the calling thread.
pub fn sha256_each(texts: &[&str]) -> Vec<[u8; 32]> {
    texts.iter().map(|t| sha256(t.as_bytes())).collect()
}

/// The SHA-256 of each of `texts`, in order, computed side by side on the calling thread and the other threads of
/// the current rayon pool (the pool the caller runs in, else the global one): the same digests as [`sha256_each`],
/// whatever the thread count. A text is never split, so one text takes what it takes on one core.
///
/// The calling thread starts hashing at once and never waits for a helper to start: it and up to `threads - 1`
/// helper tasks take the texts one at a time, longest first, until none is left, so a helper that the pool starts
/// late (its threads busy, or the machine loaded) simply finds less to do, and the caller waits at most for the
/// texts helpers are already hashing.
pub fn sha256_each_on_all_cores(texts: &[&str]) -> Vec<[u8; 32]> {
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
    let taken = AtomicUsize::new(0);
    let digests: Vec<OnceLock<[u8; 32]>> = texts.iter().map(|_| OnceLock::new()).collect();
    let hash_until_none_left = || {
        while let Some(&i) = order.get(taken.fetch_add(1, Ordering::Relaxed)) {
            let _ = digests[i].set(sha256(texts[i].as_bytes()));
        }
    };
    rayon::in_place_scope(|scope| {
        for _ in 1..rayon::current_num_threads().min(texts.len()) {
            scope.spawn(|_| hash_until_none_left());
        }
        hash_until_none_left();
    });
    digests
        .into_iter()
        .map(|d| d.into_inner().expect("every text is taken once and hashed"))
        .collect()
}

/// Texts shorter than this many bytes are hashed where they are needed and never kept by [`KnownDigests`]: their
/// SHA-256 costs about what looking them up would.
pub const KNOWN_DIGEST_MIN_BYTES: usize = 1024;

/// The SHA-256 of the long texts one batch's turns have hashed so far, shared by every strategy and budget that
/// runs the batch, so that a text they all name in their headers is hashed once per batch, not once per turn.
///
/// A text is known by its content: a lookup compares the whole text with the one kept (at memory speed, several
/// times faster than hashing it), so an answer is always the SHA-256 of exactly the text asked about, and every
/// output is the same with or without the cache. It keeps a copy of each text it learns, at most `capacity`
/// bytes in all (texts past that are hashed and not kept), so its memory is bounded by the batch's own size and
/// freed with the batch. Safe to share between threads.
#[derive(Default)]
pub struct KnownDigests {
    inner: Mutex<Known>,
}

impl std::fmt::Debug for KnownDigests {
    /// Counts, not the texts kept (they can be megabytes).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known = self.lock();
        f.debug_struct("KnownDigests")
            .field("texts", &known.texts.len())
            .field("bytes", &known.bytes)
            .field("capacity", &known.capacity)
            .finish()
    }
}

/// What a [`KnownDigests`] holds: each text kept with its digest, indexed by byte length.
#[derive(Debug, Default)]
struct Known {
    /// The texts kept, with their digests, in the order they were learned.
    texts: Vec<(Box<str>, [u8; 32])>,
    /// Byte length -> the indices into `texts` of that length.
    by_len: HashMap<usize, Vec<usize>>,
    /// Bytes kept so far.
    bytes: usize,
    /// The most bytes kept.
    capacity: usize,
    /// Lookups answered from the texts kept, and texts hashed for want of one (long texts only).
    hits: u64,
    misses: u64,
}

impl Known {
    fn find(&self, text: &str) -> Option<[u8; 32]> {
        let candidates = self.by_len.get(&text.len())?;
        candidates
            .iter()
            .map(|&i| &self.texts[i])
            .find(|(kept, _)| kept.as_bytes() == text.as_bytes())
            .map(|(_, digest)| *digest)
    }

    fn learn(&mut self, text: &str, digest: [u8; 32]) {
        if self.bytes + text.len() > self.capacity || self.find(text).is_some() {
            return;
        }
        self.bytes += text.len();
        self.by_len
            .entry(text.len())
            .or_default()
            .push(self.texts.len());
        self.texts.push((text.into(), digest));
    }
}

impl KnownDigests {
    /// An empty cache that keeps at most `capacity` bytes of text.
    pub fn with_capacity(capacity: usize) -> Self {
        KnownDigests {
            inner: Mutex::new(Known {
                capacity,
                ..Known::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Known> {
        // A panic while holding the lock leaves nothing half-done that a later lookup could see.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The SHA-256 of `text` when it is known (a long text hashed before), counting the lookup; `None` for a
    /// short text or one not seen yet.
    pub fn get(&self, text: &str) -> Option<[u8; 32]> {
        if text.len() < KNOWN_DIGEST_MIN_BYTES {
            return None;
        }
        let mut known = self.lock();
        let found = known.find(text);
        match found {
            Some(_) => known.hits += 1,
            None => known.misses += 1,
        }
        found
    }

    /// Keeps `digest` as the SHA-256 of `text` (which the caller just hashed), room permitting; short texts are
    /// not kept.
    pub fn learn(&self, text: &str, digest: [u8; 32]) {
        if text.len() >= KNOWN_DIGEST_MIN_BYTES {
            self.lock().learn(text, digest);
        }
    }

    /// The SHA-256 of `text`: known, or computed now and kept.
    pub fn sha256(&self, text: &str) -> [u8; 32] {
        if let Some(digest) = self.get(text) {
            return digest;
        }
        let digest = sha256(text.as_bytes());
        self.learn(text, digest);
        digest
    }

    /// Lookups of long texts answered from what was kept, and those that were not.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        let known = self.lock();
        (known.hits, known.misses)
    }
}

/// The SHA-256 of `text`, from `known` when given (see [`KnownDigests::sha256`]).
pub fn sha256_known(known: Option<&KnownDigests>, text: &str) -> [u8; 32] {
    match known {
        Some(known) => known.sha256(text),
        None => sha256(text.as_bytes()),
    }
}

/// Lowercase hex SHA-256 of `data` (a text's UTF-8 bytes, or any bytes).
pub fn sha256_hex(data: impl AsRef<[u8]>) -> String {
    hex(&sha256(data.as_ref()))
}

/// `digest` as 64 lowercase hex digits.
pub(crate) fn hex(digest: &[u8; 32]) -> String {
    let mut out = String::with_capacity(64);
    push_hex(&mut out, digest);
    out
}

/// Appends `digest` to `out` as 64 lowercase hex digits.
pub fn push_hex(out: &mut String, digest: &[u8; 32]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &b in digest {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        // A two-byte character and one outside the BMP: hashed as their UTF-8 bytes, not as UTF-16.
        assert_eq!(
            sha256_hex("é😀"),
            "1184d1f608158eea09d297565575892231550c403aaa913008d867a97cfd5c76"
        );
        assert_eq!(sha256_hex(b"abc"), sha256_hex("abc"));
        assert_eq!(sha256(b"abc")[..4], [0xba, 0x78, 0x16, 0xbf]);
        let mut out = String::from("x");
        push_hex(&mut out, &sha256(b"abc"));
        assert_eq!(out, format!("x{}", sha256_hex("abc")));
    }

    #[test]
    fn all_cores_give_the_same_digests_in_the_same_order_on_any_pool() {
        let owned: Vec<String> = (0..37).map(|i| "ab😀\n".repeat(i * 101)).collect();
        let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
        let one_by_one = sha256_each(&texts);
        assert_eq!(one_by_one.len(), 37);
        assert_eq!(one_by_one[0], sha256(b""));
        assert_eq!(one_by_one[5], sha256(owned[5].as_bytes()));
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            assert_eq!(
                pool.install(|| sha256_each_on_all_cores(&texts)),
                one_by_one,
                "{threads} threads"
            );
        }
        assert!(sha256_each_on_all_cores(&[]).is_empty());
    }

    #[test]
    fn known_digests_answer_each_long_text_by_its_content() {
        let long = "ab😀\n".repeat(500);
        let other = format!("{}x", &long[..long.len() - 1]);
        let short = "short";
        let known = KnownDigests::with_capacity(1 << 20);
        assert_eq!(known.get(&long), None);
        assert_eq!(known.sha256(&long), sha256(long.as_bytes()));
        // Another allocation of the same text is found; a text of the same length that differs is not.
        assert_eq!(known.get(&long.clone()), Some(sha256(long.as_bytes())));
        assert_eq!(other.len(), long.len());
        assert_eq!(known.get(&other), None);
        assert_eq!(known.sha256(&other), sha256(other.as_bytes()));
        assert_eq!(known.get(&other), Some(sha256(other.as_bytes())));
        // Short texts are hashed, never kept or counted.
        assert_eq!(known.sha256(short), sha256(short.as_bytes()));
        assert_eq!(known.get(short), None);
        assert_eq!(known.hits_and_misses(), (2, 4));
        assert_eq!(sha256_known(Some(&known), &long), sha256(long.as_bytes()));
        assert_eq!(sha256_known(None, &long), sha256(long.as_bytes()));
    }

    #[test]
    fn known_digests_keep_no_more_than_their_capacity() {
        let a = "a".repeat(2000);
        let b = "b".repeat(2000);
        let known = KnownDigests::with_capacity(3000);
        assert_eq!(known.sha256(&a), sha256(a.as_bytes()));
        assert_eq!(known.sha256(&b), sha256(b.as_bytes()));
        // The first fitted; the second did not and is hashed again, with the same answer.
        assert_eq!(known.get(&a), Some(sha256(a.as_bytes())));
        assert_eq!(known.get(&b), None);
        assert_eq!(known.sha256(&b), sha256(b.as_bytes()));
    }
}
