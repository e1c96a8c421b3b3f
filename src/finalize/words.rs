//! Words, their counts and their self-information, for the content-aware strategies (`relevance`, `rarity`).
//!
//! A word is a maximal run of ASCII letters, digits and `_` and of non-ASCII bytes (so a CJK phrase is one word),
//! folded to ASCII lower case; runs of one byte count only when they are a digit. No model is used: a word is
//! known by a 16-bit bucket of its FNV-1a hash (two words sharing a bucket are one word to these strategies; the
//! hash is fixed, so this is deterministic), its count is how often the batch's own text holds it, and its
//! self-information is `log2(total / count)` in fixed point (1/256 of a bit, integer arithmetic only, so the
//! same on every machine). A built-in table of the commonest words of code, shells and English prose
//! ([`COMMON`]) carries no information whatever its count, and a number carries at most one bit (line numbers
//! make every line of a listing unique without saying anything).

use std::cell::Cell;
use std::sync::OnceLock;

/// Bits of a word's bucket.
const BUCKET_BITS: u32 = 16;
/// The number of buckets.
pub(crate) const BUCKETS: usize = 1 << BUCKET_BITS;

/// One bit of information in fixed point.
pub(crate) const BIT: u32 = 256;

/// Words that say nothing about where a result matters: keywords of the common languages, shell words and
/// English function words. Compared after folding to lower case.
pub(crate) const COMMON: &[&str] = &[
    // English.
    "the",
    "and",
    "for",
    "are",
    "but",
    "not",
    "you",
    "all",
    "any",
    "can",
    "has",
    "had",
    "was",
    "were",
    "will",
    "with",
    "this",
    "that",
    "from",
    "have",
    "been",
    "into",
    "than",
    "then",
    "them",
    "they",
    "their",
    "there",
    "these",
    "those",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "how",
    "its",
    "our",
    "out",
    "use",
    "used",
    "using",
    "also",
    "only",
    "one",
    "two",
    "more",
    "most",
    "some",
    "such",
    "other",
    "each",
    "about",
    "after",
    "before",
    "over",
    "under",
    "just",
    "like",
    "may",
    "must",
    "should",
    "would",
    "could",
    "does",
    "did",
    "done",
    "let",
    "lets",
    "see",
    "now",
    "here",
    "need",
    "needs",
    "make",
    "sure",
    "file",
    "files",
    "line",
    "lines",
    "is",
    "it",
    "in",
    "of",
    "to",
    "on",
    "at",
    "by",
    "be",
    "as",
    "an",
    "or",
    "if",
    "we",
    "no",
    "so",
    "up",
    "do",
    "my",
    // Keywords of Java, C, C++, C#, Rust, Go, Python, JavaScript and TypeScript.
    "public",
    "private",
    "protected",
    "static",
    "final",
    "void",
    "int",
    "long",
    "short",
    "byte",
    "char",
    "boolean",
    "bool",
    "double",
    "float",
    "class",
    "interface",
    "enum",
    "extends",
    "implements",
    "import",
    "package",
    "return",
    "new",
    "null",
    "true",
    "false",
    "else",
    "while",
    "switch",
    "case",
    "break",
    "continue",
    "default",
    "try",
    "catch",
    "finally",
    "throw",
    "throws",
    "super",
    "instanceof",
    "abstract",
    "synchronized",
    "volatile",
    "transient",
    "native",
    "const",
    "struct",
    "union",
    "typedef",
    "sizeof",
    "unsigned",
    "signed",
    "extern",
    "include",
    "define",
    "ifdef",
    "ifndef",
    "endif",
    "namespace",
    "template",
    "typename",
    "virtual",
    "override",
    "using",
    "auto",
    "fn",
    "pub",
    "mut",
    "impl",
    "trait",
    "self",
    "crate",
    "mod",
    "match",
    "loop",
    "where",
    "type",
    "func",
    "go",
    "defer",
    "chan",
    "map",
    "var",
    "def",
    "elif",
    "pass",
    "lambda",
    "yield",
    "none",
    "not",
    "and",
    "del",
    "global",
    "nonlocal",
    "assert",
    "async",
    "await",
    "function",
    "undefined",
    "typeof",
    "export",
    "string",
    "object",
    "number",
    "any",
    "void",
    "get",
    "set",
    "this",
    "string",
    "list",
    "dict",
    "str",
    "len",
    "range",
    "print",
    "println",
    "system",
    "out",
    "err",
    "args",
    "value",
    "key",
    "java",
    "lang",
    "util",
    "org",
    "com",
    "net",
    "io",
    "test",
    "tests",
    "override",
    "deprecated",
    // Shell words and tool chatter.
    "echo",
    "cd",
    "ls",
    "cat",
    "grep",
    "sed",
    "awk",
    "find",
    "export",
    "sudo",
    "bash",
    "sh",
    "fi",
    "esac",
    "done",
    "usr",
    "bin",
    "lib",
    "src",
    "main",
    "tmp",
    "dev",
    "home",
    "root",
    "info",
    "debug",
    "warn",
    "running",
    "total",
    "more",
    "above",
    "below",
    "lines",
    "matches",
    "found",
    "directory",
    "command",
];

/// The bucket of the word `w` (already folded to lower case).
fn bucket_of(w: &[u8]) -> u32 {
    let mut h = Hasher::new();
    for &b in w {
        h.push(b);
    }
    h.bucket()
}

/// FNV-1a over a word's folded bytes.
#[derive(Clone, Copy)]
struct Hasher(u64);

impl Hasher {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    fn new() -> Self {
        Hasher(Self::OFFSET)
    }

    #[inline(always)]
    fn push(&mut self, b: u8) {
        self.0 = (self.0 ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(Self::PRIME);
    }

    #[inline(always)]
    fn bucket(self) -> u32 {
        ((self.0 ^ (self.0 >> 32)) as u32) & (BUCKETS as u32 - 1)
    }
}

/// Whether `b` belongs to a word.
#[inline(always)]
fn in_word(b: u8) -> bool {
    CLASS[b as usize] & WORD != 0
}

/// Bit of [`CLASS`]: the byte belongs to a word (an ASCII letter or digit, `_`, or any non-ASCII byte).
const WORD: u8 = 1;
/// Bit of [`CLASS`]: the byte is an ASCII digit.
const DIGIT: u8 = 2;

/// What each byte is to the word scanner, one lookup a byte rather than a chain of comparisons.
const CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80 {
            table[b] |= WORD;
        }
        if byte.is_ascii_digit() {
            table[b] |= DIGIT;
        }
        b += 1;
    }
    table
};

/// Calls `f(bucket, is_number)` for every word of `text`, in order (see the module documentation).
#[inline]
pub(crate) fn for_each_word(text: &[u8], f: impl FnMut(u32, bool)) {
    scan_words(text, f, || {});
}

/// [`for_each_word`], also calling `line_break()` at every `\n` (never inside a word: a line break is not a word
/// byte).
#[inline]
fn scan_words(text: &[u8], mut f: impl FnMut(u32, bool), mut line_break: impl FnMut()) {
    let mut i = 0;
    let n = text.len();
    while i < n {
        let b = text[i];
        if !in_word(b) {
            if b == b'\n' {
                line_break();
            }
            i += 1;
            continue;
        }
        let start = i;
        let mut h = Hasher::new();
        let mut digits = true;
        while i < n {
            let b = text[i];
            let class = CLASS[b as usize];
            if class & WORD == 0 {
                break;
            }
            digits &= class & DIGIT != 0;
            h.push(b);
            i += 1;
        }
        if i - start >= 2 || digits {
            f(h.bucket(), digits);
        }
    }
}

/// The bit of a [`TextWords`] word that says it is a number (the low [`BUCKET_BITS`] bits are its bucket).
pub(crate) const NUMBER: u32 = 1 << BUCKET_BITS;

/// The words of one text, read once and kept in order with where each line's words start, so that counting them
/// for the batch and reading them line by line for a fit hash the text's bytes only once.
///
/// Lines are those of `finalize/line_pick.rs`: a line ends after each `\n`. A word never spans a line break, so
/// the words of line `i` are the words of the `i`-th line's text.
#[derive(Debug, Clone)]
pub(crate) struct TextWords {
    /// Each word: its bucket, with [`NUMBER`] when it is a number.
    words: Vec<u32>,
    /// Where each line's words start in `words`, then `words.len()`: one more entry than `\n`s, plus one.
    starts: Vec<usize>,
    /// The length in bytes of the text read.
    text_len: usize,
}

impl TextWords {
    /// The words of `text`.
    pub(crate) fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut words = Vec::with_capacity(bytes.len() / 8 + 1);
        let mut starts = Vec::with_capacity(bytes.len() / 64 + 2);
        starts.push(0);
        // Both closures need the number of words so far: it goes through a cell, not through `words`.
        let count = Cell::new(0usize);
        scan_words(
            bytes,
            |b, number| {
                words.push(if number { b | NUMBER } else { b });
                count.set(count.get() + 1);
            },
            || starts.push(count.get()),
        );
        starts.push(words.len());
        TextWords {
            words,
            starts,
            text_len: bytes.len(),
        }
    }

    /// Whether these are the words of a text of `len` bytes (a cheap guard that a fit reads the text they were
    /// read from).
    pub(crate) fn is_of_len(&self, len: usize) -> bool {
        self.text_len == len
    }

    /// Every word of the text, in order.
    pub(crate) fn all(&self) -> &[u32] {
        &self.words
    }

    /// The words of line `i` (0-based; a line past the last break holds none).
    #[inline]
    pub(crate) fn line(&self, i: usize) -> &[u32] {
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.words[a..b],
            _ => &[],
        }
    }
}

/// A set of buckets.
#[derive(Debug, Clone)]
pub(crate) struct BucketSet(Vec<u64>);

impl BucketSet {
    /// The empty set.
    pub(crate) fn new() -> Self {
        BucketSet(vec![0; BUCKETS / 64])
    }

    /// Adds `b`; whether it was new.
    pub(crate) fn insert(&mut self, b: u32) -> bool {
        let (w, bit) = ((b / 64) as usize, 1u64 << (b % 64));
        let new = self.0[w] & bit == 0;
        self.0[w] |= bit;
        new
    }

    /// Whether `b` is in the set.
    pub(crate) fn contains(&self, b: u32) -> bool {
        self.0[(b / 64) as usize] & (1u64 << (b % 64)) != 0
    }
}

/// The buckets of [`COMMON`].
pub(crate) fn common() -> &'static BucketSet {
    static SET: OnceLock<BucketSet> = OnceLock::new();
    SET.get_or_init(|| {
        let mut set = BucketSet::new();
        for w in COMMON {
            set.insert(bucket_of(w.as_bytes()));
        }
        set
    })
}

/// `log2(x)` in fixed point ([`BIT`] a bit), the fraction read linearly from the mantissa; 0 for `x <= 1`.
pub(crate) fn log2_fixed(x: u64) -> u32 {
    if x <= 1 {
        return 0;
    }
    let e = 63 - x.leading_zeros();
    let frac = if e >= 8 {
        (x >> (e - 8)) & 0xff
    } else {
        (x << (8 - e)) & 0xff
    };
    e * BIT + frac as u32
}

/// How often each word occurs in a batch's text, and the self-information that gives it.
#[derive(Debug, Clone)]
pub(crate) struct Counts {
    counts: Vec<u32>,
    total: u64,
}

impl Counts {
    /// No words yet.
    pub(crate) fn new() -> Self {
        Counts {
            counts: vec![0; BUCKETS],
            total: 0,
        }
    }

    /// Counts the words of `text`.
    #[cfg(test)]
    pub(crate) fn add(&mut self, text: &str) {
        let (counts, mut total) = (&mut self.counts, 0u64);
        for_each_word(text.as_bytes(), |b, _| {
            counts[b as usize] = counts[b as usize].saturating_add(1);
            total += 1;
        });
        self.total += total;
    }

    /// Counts the words `words` holds (as [`Counts::add`] counts their text).
    pub(crate) fn add_words(&mut self, words: &TextWords) {
        for &w in words.all() {
            let c = &mut self.counts[(w & (NUMBER - 1)) as usize];
            *c = c.saturating_add(1);
        }
        self.total += words.all().len() as u64;
    }

    /// The self-information of one occurrence of the word in bucket `b` (a number's at most one bit, a common
    /// word's none), in fixed point. The definition [`Infos::info`] is held to.
    #[cfg(test)]
    pub(crate) fn info(&self, b: u32, number: bool) -> u32 {
        if common().contains(b) {
            return 0;
        }
        let count = u64::from(self.counts[b as usize].max(1));
        let info = log2_fixed(self.total.max(count)) - log2_fixed(count);
        if number {
            info.min(BIT)
        } else {
            info
        }
    }

    /// [`Counts::info`] for many words: the common words and the logarithm of the total looked up once.
    pub(crate) fn infos(&self) -> Infos<'_> {
        Infos {
            common: common(),
            counts: &self.counts,
            total: self.total,
            log_total: log2_fixed(self.total),
        }
    }
}

/// The self-information of words under one [`Counts`] (see [`Counts::infos`]).
pub(crate) struct Infos<'a> {
    common: &'static BucketSet,
    counts: &'a [u32],
    total: u64,
    log_total: u32,
}

impl Infos<'_> {
    /// What [`Counts::info`] answers.
    #[inline]
    pub(crate) fn info(&self, b: u32, number: bool) -> u32 {
        if self.common.contains(b) {
            return 0;
        }
        let count = u64::from(self.counts[b as usize].max(1));
        // `total.max(count)` is the total but for a word the batch never counted in an empty batch.
        let log_total = if self.total >= count {
            self.log_total
        } else {
            log2_fixed(count)
        };
        let info = log_total - log2_fixed(count);
        if number {
            info.min(BIT)
        } else {
            info
        }
    }
}

/// The self-information of every bucket under one [`Counts`], looked up once a batch so that reading a word's is
/// one load: [`Infos::info`] for words that are not numbers, stored below 2^16 (64 bits at most).
#[derive(Debug, Clone)]
pub(crate) struct InfoTable(Vec<u16>);

impl InfoTable {
    /// The table of `counts`.
    pub(crate) fn new(counts: &Counts) -> Self {
        let infos = counts.infos();
        InfoTable(
            (0..BUCKETS as u32)
                .map(|b| infos.info(b, false) as u16)
                .collect(),
        )
    }

    /// What [`Infos::info`] answers for the [`TextWords`] word `w` (a bucket, with [`NUMBER`] for a number).
    #[inline]
    pub(crate) fn info(&self, w: u32) -> u32 {
        let info = u32::from(self.0[(w & (NUMBER - 1)) as usize]);
        if w & NUMBER != 0 {
            info.min(BIT)
        } else {
            info
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<(u32, bool)> {
        let mut out = Vec::new();
        for_each_word(text.as_bytes(), |b, n| out.push((b, n)));
        out
    }

    #[test]
    fn words_are_folded_runs_and_single_letters_are_not_words() {
        let w = words("Foo foo_1 a 7 中文 x=12");
        assert_eq!(w.len(), 5);
        assert_eq!(w[0], w[0]);
        assert_eq!(w[0].0, bucket_of(b"foo"));
        assert_eq!(w[1], (bucket_of(b"foo_1"), false));
        assert_eq!(w[2], (bucket_of(b"7"), true));
        assert_eq!(w[3].0, bucket_of("中文".as_bytes()));
        assert_eq!(w[4], (bucket_of(b"12"), true));
    }

    #[test]
    fn fixed_point_logarithms_are_exact_at_powers_of_two() {
        assert_eq!(log2_fixed(1), 0);
        assert_eq!(log2_fixed(2), 256);
        assert_eq!(log2_fixed(1024), 2560);
        assert_eq!(log2_fixed(3), 256 + 128);
        assert!(log2_fixed(1000) < log2_fixed(1001) || log2_fixed(1000) == log2_fixed(1001));
    }

    #[test]
    fn infos_answer_what_info_answers() {
        let mut c = Counts::new();
        let empty = Counts::new();
        c.add(&"alpha ".repeat(63));
        c.add("zeta_handler public 4711 beta beta 12");
        for counts in [&c, &empty] {
            let infos = counts.infos();
            for word in [
                "alpha",
                "zeta_handler",
                "public",
                "4711",
                "beta",
                "12",
                "never_seen",
            ] {
                let b = bucket_of(word.as_bytes());
                let table = InfoTable::new(counts);
                for number in [false, true] {
                    assert_eq!(infos.info(b, number), counts.info(b, number), "{word}");
                    let w = if number { b | NUMBER } else { b };
                    assert_eq!(table.info(w), counts.info(b, number), "{word}");
                }
            }
        }
    }

    #[test]
    fn the_byte_table_is_the_word_rule() {
        for b in 0..=255u8 {
            let rule = b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
            assert_eq!(in_word(b), rule, "{b}");
            assert_eq!(CLASS[b as usize] & DIGIT != 0, b.is_ascii_digit(), "{b}");
        }
    }

    #[test]
    fn rare_words_carry_more_than_frequent_ones_and_common_ones_nothing() {
        let mut c = Counts::new();
        c.add(&"alpha ".repeat(63));
        c.add("zeta_handler public 4711");
        // 66 words: alpha 63 times, the others once.
        let alpha = c.info(bucket_of(b"alpha"), false);
        let zeta = c.info(bucket_of(b"zeta_handler"), false);
        assert_eq!(zeta, log2_fixed(66));
        assert!(alpha < BIT / 4, "{alpha}");
        assert_eq!(c.info(bucket_of(b"public"), false), 0);
        assert_eq!(c.info(bucket_of(b"4711"), true), BIT);
    }
}
