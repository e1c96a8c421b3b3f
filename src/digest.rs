//! Content digests: the SHA-256 of a text, raw or as lowercase hex. A shortened field's header names its full
//! output's digest, a scenario's hash is the digest of its canonical JSON, a recorded workload's is the digest of
//! its file, and the floor folds the digests of the fields it cuts. One text's SHA-256 is sequential, so many
//! texts can be hashed at once only side by side: [`sha256_each_on_all_cores`] spreads them over the current
//! rayon pool. A leaf: it names no other module.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

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
}
