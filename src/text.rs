//! UTF-16 measurement and surrogate-safe slicing of UTF-8 text.
//!
//! Budgets are counted in UTF-16 code units, the unit JavaScript's `String.length` reports and the one the
//! production runtime sets its budget in. Rust strings are UTF-8, so this module measures them from the bytes in
//! one pass (every byte that is not a continuation byte counts one unit, and every 4-byte lead one more) and cuts
//! them at unit offsets without ever splitting a surrogate pair: a Rust `str` cannot hold a lone surrogate, so a
//! cut that would fall inside a pair drops the whole character instead.

/// UTF-16 code units of one UTF-8 byte, by the byte's value: continuation bytes count 0, the lead byte of a
/// 4-byte sequence (an astral character, a surrogate pair in UTF-16) counts 2, every other byte 1.
#[inline(always)]
fn units_of_byte(b: u8) -> u8 {
    // `b as i8 >= -64` is false exactly for continuation bytes 0x80..=0xBF.
    u8::from((b as i8) >= -64) + u8::from(b >= 0xF0)
}

/// Needles up to this many bytes are searched with memchr's vectorised `memmem`, whose set-up per call is small
/// for them; longer ones (a whole output looked for in an artifact) with the standard library's two-way search,
/// whose set-up over a long needle is the cheaper of the two.
const SHORT_NEEDLE: usize = 64;

/// Whether `needle` occurs in `haystack`: what `str::contains` answers, faster where the metrics search often (a
/// short needle, or a needle as long as the haystack: see [`find`]).
pub fn contains(haystack: &str, needle: &str) -> bool {
    find(haystack, needle).is_some()
}

/// The byte offset of the first `needle` in `haystack`: what `str::find` answers for a `&str` pattern. A needle
/// longer than the haystack is not searched for, one as long is compared, a short one is found by a vectorised
/// byte search that sets up next to nothing per call (`str::find` prepares a two-way searcher every call, which a
/// metric searching many short texts pays again and again).
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    match needle.len() {
        n if n > haystack.len() => None,
        n if n == haystack.len() => (haystack == needle).then_some(0),
        n if n <= SHORT_NEEDLE => memchr::memmem::find(haystack.as_bytes(), needle.as_bytes()),
        _ => haystack.find(needle),
    }
}

/// How many times `needle` occurs in `haystack` without overlapping: what `str::matches(needle).count()`
/// answers, by the byte search [`find`] uses for a short needle.
pub fn count_matches(haystack: &str, needle: &str) -> usize {
    if needle.is_empty() || needle.len() > SHORT_NEEDLE {
        return haystack.matches(needle).count();
    }
    memchr::memmem::find_iter(haystack.as_bytes(), needle.as_bytes()).count()
}

/// The length of `s` in UTF-16 code units ('a' = 1, 'é' = 1, '中' = 1, '😀' = 2).
///
/// A byte-level count over the UTF-8 bytes at memory speed, never a decode: every byte that is not a
/// continuation byte counts one unit and the lead byte of a 4-byte sequence one more, a block of pure ASCII just
/// its length. On x86-64 CPUs with AVX2 (detected at run time) texts of a few hundred bytes or more are counted
/// 32 bytes per instruction; elsewhere the same code is compiled for the baseline instruction set.
pub fn utf16_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    #[cfg(target_arch = "x86_64")]
    if wide(bytes.len(), || std::arch::is_x86_feature_detected!("avx2")) {
        // SAFETY: `wide` is true only when the CPU supports AVX2.
        return unsafe { count_units_avx2(bytes) };
    }
    count_units(bytes)
}

/// Texts shorter than this are counted without the run-time CPU check.
#[cfg(target_arch = "x86_64")]
const WIDE_MIN: usize = 256;

/// Whether a text of `len` bytes is counted with AVX2: only when it is long enough to repay the CPU check, and
/// only when `avx2` (the check, not made for short texts) says the CPU has it.
#[cfg(target_arch = "x86_64")]
fn wide(len: usize, avx2: impl FnOnce() -> bool) -> bool {
    len >= WIDE_MIN && avx2()
}

/// [`count_units`] compiled with AVX2 enabled.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn count_units_avx2(bytes: &[u8]) -> usize {
    count_units(bytes)
}

/// Bytes counted side by side: two 32-byte vectors, or four 16-byte ones.
const LANES: usize = 64;

/// Bytes counted as one block: one OR tells whether it is pure ASCII (then it counts its length), else its rows
/// are counted lane by lane into 8-bit counters (at most 2 a byte, 16 a lane) that are summed once.
const BLOCK: usize = 8 * LANES;

/// UTF-16 code units of UTF-8 `bytes`, written so that the compiler vectorises it.
///
/// Every byte that is not a continuation byte counts one unit and a 4-byte lead one more ([`units_of_byte`]).
/// Whole blocks of [`BLOCK`] bytes go through [`count_block`]; the rest is counted byte by byte.
#[inline(always)]
fn count_units(bytes: &[u8]) -> usize {
    let mut blocks = bytes.chunks_exact(BLOCK);
    let mut total = 0usize;
    for block in &mut blocks {
        total += count_block(block.try_into().expect("chunks_exact gives whole blocks"));
    }
    for &b in blocks.remainder() {
        total += usize::from(units_of_byte(b));
    }
    total
}

/// UTF-16 units of one block.
#[inline(always)]
fn count_block(block: &[u8; BLOCK]) -> usize {
    if block.iter().fold(0u8, |acc, &b| acc | b) < 0x80 {
        return BLOCK;
    }
    let mut lanes = [0u8; LANES];
    for row in block.chunks_exact(LANES) {
        for (lane, &b) in lanes.iter_mut().zip(row) {
            *lane += units_of_byte(b);
        }
    }
    lanes.iter().map(|&n| usize::from(n)).sum()
}

/// The longest prefix of `s` that is at most `units` UTF-16 code units long.
///
/// A cut that would end between the two halves of a surrogate pair ends one unit earlier, before the pair.
pub fn head(s: &str, units: usize) -> &str {
    if units >= s.len() {
        // A string never has more UTF-16 units than UTF-8 bytes.
        return s;
    }
    let bytes = s.as_bytes();
    if bytes[..units].is_ascii() {
        return &s[..units];
    }
    let mut used = 0usize;
    for (offset, ch) in s.char_indices() {
        let w = ch.len_utf16();
        if used + w > units {
            return &s[..offset];
        }
        used += w;
    }
    s
}

/// The longest suffix of `s` that is at most `units` UTF-16 code units long.
///
/// A cut that would start between the two halves of a surrogate pair starts one unit later, after the pair.
pub fn tail(s: &str, units: usize) -> &str {
    if units >= s.len() {
        return s;
    }
    let bytes = s.as_bytes();
    let start = s.len() - units;
    if bytes[start..].is_ascii() {
        return &s[start..];
    }
    let mut used = 0usize;
    for (offset, ch) in s.char_indices().rev() {
        let w = ch.len_utf16();
        if used + w > units {
            return &s[offset + ch.len_utf8()..];
        }
        used += w;
    }
    s
}

/// The longest prefix of `s` that is at most `bytes` UTF-8 bytes long, ending on a character boundary.
pub fn head_bytes(s: &str, bytes: usize) -> &str {
    if bytes >= s.len() {
        return s;
    }
    let mut end = bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The longest suffix of `s` that is at most `bytes` UTF-8 bytes long, starting on a character boundary.
pub fn tail_bytes(s: &str, bytes: usize) -> &str {
    if bytes >= s.len() {
        return s;
    }
    let mut start = s.len() - bytes;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// The first `chars` characters (Unicode scalar values, what Python's `len` counts) of `s`, or all of it.
pub fn head_chars(s: &str, chars: usize) -> &str {
    match s.char_indices().nth(chars) {
        Some((offset, _)) => &s[..offset],
        None => s,
    }
}

/// The last `chars` characters (Unicode scalar values) of `s`, or all of it.
pub fn tail_chars(s: &str, chars: usize) -> &str {
    if chars == 0 {
        return "";
    }
    match s.char_indices().rev().nth(chars - 1) {
        Some((offset, _)) => &s[offset..],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_searches_answer_what_the_standard_library_does() {
        let hay = "ab\u{FFFD}\u{FFFD}é😀aaa\u{FFFD}x\nline\n";
        let needles = [
            "",
            "a",
            "aa",
            "aaa",
            "aaaa",
            "\u{FFFD}",
            "\u{FFFD}\u{FFFD}",
            "é😀",
            "😀a",
            "line\n",
            "x\nl",
            "zz",
            "\u{80}",
        ];
        for n in needles {
            assert_eq!(contains(hay, n), hay.contains(n), "{n:?}");
            assert_eq!(find(hay, n), hay.find(n), "{n:?}");
            assert_eq!(count_matches(hay, n), hay.matches(n).count(), "{n:?}");
        }
        assert_eq!(count_matches(hay, "\u{FFFD}"), 3);
        assert_eq!(count_matches(hay, "aa"), 1);
        assert_eq!(find(hay, "a"), Some(0));
        assert!(!contains("", "a") && contains("", ""));
        // Needles past the short limit, as long as the haystack and longer.
        let long = "ab😀\n".repeat(40);
        let hay = format!("x{long}y{long}");
        for n in [
            &long[..],
            &hay[..],
            &hay[1..],
            &format!("{long}z")[..],
            &format!("{hay}!")[..],
        ] {
            assert_eq!(find(&hay, n), hay.find(n), "{n:?}");
            assert_eq!(count_matches(&hay, n), hay.matches(n).count(), "{n:?}");
        }
        assert_eq!(find(&hay, &long), Some(1));
        assert_eq!(count_matches(&hay, &long), 2);
    }

    fn reference_len(s: &str) -> usize {
        s.encode_utf16().count()
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_is_used_only_for_long_texts_on_a_cpu_that_has_it() {
        let unasked = || -> bool { panic!("a short text must not pay for the CPU check") };
        assert!(!wide(WIDE_MIN - 1, unasked));
        assert!(!wide(0, unasked));
        assert!(wide(WIDE_MIN, || true));
        assert!(wide(1 << 20, || true));
        // A CPU without AVX2 never gets the AVX2 build, however long the text.
        assert!(!wide(WIDE_MIN, || false));
        assert!(!wide(1 << 20, || false));
    }

    #[test]
    fn counts_code_units_not_chars_or_bytes() {
        assert_eq!(utf16_len(""), 0);
        assert_eq!(utf16_len("a"), 1);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("中"), 1);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(utf16_len("a😀é中"), 5);
    }

    #[test]
    fn block_path_agrees_with_encode_utf16() {
        let unit = "ab😀é中\n𝔘𠀀";
        for n in [0, 1, 7, 8, 9, 30, 64, 65, 200] {
            let s = unit.repeat(n);
            assert_eq!(utf16_len(&s), reference_len(&s), "repeat {n}");
        }
        let many_astral = "😀".repeat(100); // 400 bytes of 4-byte sequences: block sums stay below 256
        assert_eq!(utf16_len(&many_astral), 200);
    }

    #[test]
    fn long_texts_agree_with_encode_utf16_on_every_path() {
        // Lengths around the block size, pure ASCII, mixed, and ASCII blocks between mixed ones.
        let mixed = "ab😀é中\n𝔘𠀀 plain ascii words ".repeat(2_000);
        let ascii = "cargo test --release\n".repeat(2_000);
        let ends = [
            255,
            256,
            511,
            512,
            513,
            1023,
            1024,
            1025,
            3 * BLOCK + 77,
            40 * BLOCK + 3,
        ];
        for text in [&mixed, &ascii, &format!("{ascii}😀{ascii}é{mixed}")] {
            for end in ends {
                let s = head_bytes(text, end);
                assert_eq!(utf16_len(s), reference_len(s), "{end}");
                assert_eq!(count_units(s.as_bytes()), reference_len(s), "{end}");
            }
            assert_eq!(utf16_len(text), reference_len(text));
        }
        let astral = "😀".repeat(5_000); // the lanes of lead bytes reach their most, 2 a row
        assert_eq!(utf16_len(&astral), 10_000);
        assert_eq!(count_units(astral.as_bytes()), 10_000);
    }

    proptest::proptest! {
        #[test]
        fn any_text_measures_as_encode_utf16_counts(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["a", "log line\n", "é", "中文", "😀", "𠀀", "\u{7f}", "\u{80}"]),
                0..1_500,
            )
        ) {
            let s = pieces.concat();
            proptest::prop_assert_eq!(utf16_len(&s), reference_len(&s));
            proptest::prop_assert_eq!(count_units(s.as_bytes()), reference_len(&s));
        }
    }

    #[test]
    fn head_never_splits_a_pair() {
        let s = "ab😀cd";
        assert_eq!(head(s, 0), "");
        assert_eq!(head(s, 2), "ab");
        assert_eq!(head(s, 3), "ab"); // would end on the high surrogate
        assert_eq!(head(s, 4), "ab😀");
        assert_eq!(head(s, 6), "ab😀cd");
        assert_eq!(head(s, 99), s);
    }

    #[test]
    fn tail_never_splits_a_pair() {
        let s = "ab😀cd";
        assert_eq!(tail(s, 0), "");
        assert_eq!(tail(s, 2), "cd");
        assert_eq!(tail(s, 3), "cd"); // would start on the low surrogate
        assert_eq!(tail(s, 4), "😀cd");
        assert_eq!(tail(s, 6), s);
        assert_eq!(tail(s, 99), s);
    }

    #[test]
    fn ascii_fast_paths_match_slow_paths() {
        let s = "0123456789é";
        assert_eq!(head(s, 5), "01234");
        assert_eq!(tail(s, 3), "89é");
        assert_eq!(tail("é0123", 3), "123");
    }

    #[test]
    fn byte_cuts_end_on_char_boundaries() {
        let s = "aé😀b"; // bytes: a=1, é=2, 😀=4, b=1
        assert_eq!(head_bytes(s, 0), "");
        assert_eq!(head_bytes(s, 2), "a");
        assert_eq!(head_bytes(s, 3), "aé");
        assert_eq!(head_bytes(s, 6), "aé");
        assert_eq!(head_bytes(s, 7), "aé😀");
        assert_eq!(head_bytes(s, 99), s);
        assert_eq!(tail_bytes(s, 1), "b");
        assert_eq!(tail_bytes(s, 4), "b");
        assert_eq!(tail_bytes(s, 5), "😀b");
        assert_eq!(tail_bytes(s, 6), "😀b");
        assert_eq!(tail_bytes(s, 7), "é😀b");
        assert_eq!(tail_bytes(s, 8), s);
    }

    #[test]
    fn char_cuts_count_scalar_values() {
        let s = "aé😀中b";
        assert_eq!(head_chars(s, 0), "");
        assert_eq!(head_chars(s, 3), "aé😀");
        assert_eq!(head_chars(s, 9), s);
        assert_eq!(tail_chars(s, 0), "");
        assert_eq!(tail_chars(s, 2), "中b");
        assert_eq!(tail_chars(s, 3), "😀中b");
        assert_eq!(tail_chars(s, 5), s);
        assert_eq!(tail_chars(s, 9), s);
    }

    #[test]
    fn a_block_of_continuation_bytes_and_nuls_is_not_taken_for_ascii() {
        // U+0080 is C2 80: its lead byte ends the first block and its continuation byte opens the second, whose
        // other bytes are NUL, so the second block's bytes OR to exactly 0x80, the least that is not ASCII.
        let s = format!("{}\u{80}{}", "a".repeat(BLOCK - 1), "\0".repeat(BLOCK - 1));
        assert_eq!(s.len(), 2 * BLOCK);
        assert_eq!(
            s.as_bytes()[BLOCK..].iter().fold(0, |acc, &b| acc | b),
            0x80
        );
        assert_eq!(count_units(s.as_bytes()), 2 * BLOCK - 1);
        assert_eq!(utf16_len(&s), 2 * BLOCK - 1);
        assert_eq!(utf16_len(&s), reference_len(&s));
    }
}
