//! Byte-pair merging by rank, the way tiktoken encodes one pre-tokenized piece: a piece that is a token is one
//! token; otherwise it starts as single bytes, and the adjacent pair whose concatenation has the lowest rank (the
//! leftmost among equals) is merged until no adjacent pair is a token. Only the number of parts is kept.
//!
//! Short pieces use a plain scan of the pairs; long ones (a run of one repeated character is one piece) a heap
//! with lazily dropped stale pairs, so a piece of a million bytes costs O(n log n) rather than O(n^2). Both give
//! the same merges (a test checks it), because both always merge the lowest-ranked, leftmost pair.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use super::rank_file::RankedToken;

/// Pieces at least this long are merged with the heap.
const HEAP_FROM: usize = 128;

/// Marks a pair that is no token.
const NO_RANK: u32 = u32::MAX;

/// A vocabulary: token bytes to rank.
#[derive(Debug, Clone)]
pub(crate) struct RankTable {
    ranks: HashMap<Box<[u8]>, u32, BuildHasherDefault<WordHasher>>,
}

impl RankTable {
    /// A table of the given tokens (checked when the file was parsed: no duplicates, every single byte present).
    pub(super) fn new(tokens: Vec<RankedToken>) -> RankTable {
        let mut ranks = HashMap::with_capacity_and_hasher(tokens.len(), Default::default());
        for t in tokens {
            ranks.insert(t.bytes.into_boxed_slice(), t.rank);
        }
        RankTable { ranks }
    }

    /// The number of tokens.
    pub(super) fn len(&self) -> usize {
        self.ranks.len()
    }

    #[inline]
    fn rank(&self, bytes: &[u8]) -> u32 {
        self.ranks.get(bytes).copied().unwrap_or(NO_RANK)
    }

    /// The number of tokens `piece` (one pre-tokenized piece) encodes to.
    pub(super) fn count(&self, piece: &[u8]) -> usize {
        if piece.len() <= 1 || self.ranks.contains_key(piece) {
            return piece.len().min(1);
        }
        if piece.len() < HEAP_FROM {
            self.count_by_scan(piece)
        } else {
            self.count_by_heap(piece)
        }
    }

    /// The parts' boundaries after merging, by scanning every pair at every step.
    pub(crate) fn count_by_scan(&self, piece: &[u8]) -> usize {
        // Part i spans bounds[i]..bounds[i + 1]; pair[i] is the rank of parts i and i + 1 joined.
        let mut bounds: Vec<usize> = (0..=piece.len()).collect();
        let mut pair: Vec<u32> = (0..piece.len() - 1)
            .map(|i| self.rank(&piece[i..i + 2]))
            .collect();
        loop {
            let mut best = NO_RANK;
            let mut at = 0;
            for (i, &r) in pair.iter().enumerate() {
                if r < best {
                    best = r;
                    at = i;
                }
            }
            if best == NO_RANK {
                break;
            }
            bounds.remove(at + 1);
            pair.remove(at);
            if at < pair.len() {
                pair[at] = self.rank(&piece[bounds[at]..bounds[at + 2]]);
            }
            if at > 0 {
                pair[at - 1] = self.rank(&piece[bounds[at - 1]..bounds[at + 1]]);
            }
        }
        bounds.len() - 1
    }

    /// The same merges with a heap of candidate pairs, each keyed by (rank, start) and checked when popped.
    pub(crate) fn count_by_heap(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        // Parts are named by their first byte; next[i] is where the part after part i starts (n at the end).
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut alive = vec![true; n];
        let mut heap: BinaryHeap<Reverse<(u32, usize, usize)>> = BinaryHeap::with_capacity(n);
        for i in 0..n - 1 {
            let r = self.rank(&piece[i..i + 2]);
            if r != NO_RANK {
                heap.push(Reverse((r, i, i + 2)));
            }
        }
        let mut parts = n;
        while let Some(Reverse((_, start, end))) = heap.pop() {
            // A candidate is stale when its left part was merged away or either part has grown since.
            let right = next[start];
            if !alive[start] || right >= n || next[right] != end {
                continue;
            }
            alive[right] = false;
            next[start] = end;
            if end < n {
                prev[end] = start;
                let after = next[end];
                let r = self.rank(&piece[start..after]);
                if r != NO_RANK {
                    heap.push(Reverse((r, start, after)));
                }
            }
            if start > 0 {
                let before = prev[start];
                let r = self.rank(&piece[before..end]);
                if r != NO_RANK {
                    heap.push(Reverse((r, before, end)));
                }
            }
            parts -= 1;
        }
        parts
    }
}

/// A fast, non-cryptographic hasher for token bytes, eight bytes a step (the vocabulary is the user's own file,
/// so resistance to chosen collisions is not needed).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct WordHasher {
    hash: u64,
}

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every single byte, then the given merges in rank order.
    fn table(merges: &[&[u8]]) -> RankTable {
        let mut tokens: Vec<RankedToken> = (0..=255u8)
            .map(|b| RankedToken {
                bytes: vec![b],
                rank: u32::from(b),
            })
            .collect();
        for (i, m) in merges.iter().enumerate() {
            tokens.push(RankedToken {
                bytes: m.to_vec(),
                rank: 256 + i as u32,
            });
        }
        RankTable::new(tokens)
    }

    #[test]
    fn merges_the_lowest_ranked_pair_first() {
        // "ab" outranks "bc": "abc" -> "ab" + "c" = 2, though "bc" and "abc" exist.
        let t = table(&[b"ab", b"bc", b"bcd"]);
        assert_eq!(t.count(b"abc"), 2);
        assert_eq!(t.count(b"abcd"), 3, "ab, c, d: bc never forms");
        assert_eq!(t.count(b"xbcd"), 2, "x, bcd");
        assert_eq!(t.count(b"bcd"), 1, "a token is one token");
        assert_eq!(t.count(b""), 0);
        assert_eq!(t.count(b"z"), 1);
    }

    #[test]
    fn ties_go_to_the_leftmost_pair() {
        // "aa" merges from the left: "aaa" -> "aa" + "a"; with "aaa" ranked after "aa" it then joins.
        let t = table(&[b"aa"]);
        assert_eq!(t.count(b"aaa"), 2);
        assert_eq!(t.count(b"aaaa"), 2);
        assert_eq!(t.count(b"aaaaa"), 3);
        let t = table(&[b"aa", b"aaa"]);
        assert_eq!(t.count(b"aaa"), 1);
        // aaaaa: aa.a.a.a -> aa.aa.a (the pair a+a outranks aa+a) -> aa.aaa: 2.
        assert_eq!(t.count_by_scan(b"aaaaa"), 2);
        assert_eq!(t.count_by_heap(b"aaaaa"), 2);
    }

    #[test]
    fn the_heap_handles_long_runs() {
        let t = table(&[b"aa", b"aaaa", b"aaaaaaaa"]);
        let run = vec![b'a'; 1_000_000];
        // Pairs of a's, then fours, then eights: 125,000 tokens.
        assert_eq!(t.count(&run), 125_000);
        assert_eq!(t.count(&run[..13]), t.count_by_scan(&run[..13]));
    }

    proptest! {
        #[test]
        fn scan_and_heap_agree(piece in proptest::collection::vec(prop::sample::select(b"abcd".to_vec()), 2..200)) {
            let t = table(&[b"ab", b"cd", b"abcd", b"ba", b"aa", b"dd", b"ddd", b"cab", b"bab", b"abab"]);
            prop_assert_eq!(t.count_by_scan(&piece), t.count_by_heap(&piece));
        }
    }
}
