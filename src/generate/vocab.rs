//! Invented vocabulary shared by the output kinds: project, module and identifier names, people, paths,
//! dates and hashes, so that every kind of output talks about the same made-up code bases.

use super::buf::TextBuf;
use crate::rng::Stream;

/// Made-up projects: (repository directory, main crate/package, language-neutral slug).
pub(crate) const PROJECTS: &[(&str, &str)] = &[
    ("tallyhouse", "ledger-core"),
    ("quillmark", "quill-render"),
    ("harborline", "harbor-proto"),
    ("fernwick", "fernwick-sync"),
    ("orbitdesk", "orbit-api"),
    ("lumenpath", "lumen-index"),
];

/// Module / directory names.
pub(crate) const MODULES: &[&str] = &[
    "ledger", "posting", "journal", "billing", "ingest", "router", "cache", "auth", "schema",
    "parser", "report", "queue", "sync", "export", "payments", "search", "config", "metrics",
    "session", "storage", "worker", "notify", "render", "layout", "tokens", "audit", "invoice",
    "currency", "import", "webhooks",
];

/// Nouns used in identifiers.
pub(crate) const NOUNS: &[&str] = &[
    "amount", "entry", "batch", "account", "balance", "cursor", "record", "request", "response",
    "token", "invoice", "ledger", "snapshot", "window", "offset", "payload", "segment", "span",
    "handle", "limit", "currency", "rate", "owner", "tenant", "schedule", "digest", "chunk",
    "frame", "row", "column",
];

/// Verbs used in identifiers and test names.
pub(crate) const VERBS: &[&str] = &[
    "parse",
    "post",
    "apply",
    "load",
    "store",
    "merge",
    "split",
    "resolve",
    "render",
    "encode",
    "decode",
    "flush",
    "retry",
    "validate",
    "reject",
    "compute",
    "collect",
    "normalize",
    "fetch",
    "sync",
    "index",
    "rollback",
    "reconcile",
    "schedule",
    "emit",
    "trim",
    "accept",
    "skip",
    "round",
    "convert",
];

/// Adjectives/qualifiers for test names and titles.
pub(crate) const QUALIFIERS: &[&str] = &[
    "empty",
    "negative",
    "duplicate",
    "stale",
    "missing",
    "overflowing",
    "unicode",
    "nested",
    "partial",
    "concurrent",
    "zero",
    "large",
    "expired",
    "unsorted",
    "mixed_currency",
    "trailing",
    "cancelled",
    "legacy",
];

/// People: (display name, handle).
pub(crate) const PEOPLE: &[(&str, &str)] = &[
    ("Mira Okafor", "mokafor"),
    ("Jonas Lindqvist", "jlindqvist"),
    ("Priya Raghunathan", "priyar"),
    ("Tomás Ferreira", "tferreira"),
    ("Aiko Tanabe", "atanabe"),
    ("Dmitri Volkov", "dvolkov"),
    ("Zainab Haddad", "zhaddad"),
    ("Chen Yutong", "cyutong"),
    ("Élodie Marchand", "emarchand"),
    ("Kwame Asante", "kasante"),
    ("Ingrid Solberg", "isolberg"),
    ("Rafael Quintero", "rquintero"),
];

/// Weekday abbreviations, Monday first.
pub(crate) const WEEKDAYS: &[&str] = &["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// Month abbreviations.
pub(crate) const MONTHS: &[&str] = &[
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Writes `verb_noun` (or `verb_qualifier_noun`).
pub(crate) fn ident(b: &mut TextBuf, rng: &mut Stream) {
    let r = rng.next_u32();
    b.ascii(VERBS[(r as usize) % VERBS.len()]);
    b.ascii("_");
    if r & 0x8000_0000 != 0 {
        b.ascii(QUALIFIERS[((r >> 8) as usize) % QUALIFIERS.len()]);
        b.ascii("_");
    }
    b.ascii(NOUNS[((r >> 16) as usize) % NOUNS.len()]);
}

/// Writes a test path like `posting::tests::rejects_negative_amount`.
pub(crate) fn test_path(b: &mut TextBuf, rng: &mut Stream) {
    let r = rng.next_u32();
    b.ascii(MODULES[(r as usize) % MODULES.len()]);
    b.ascii("::tests::");
    b.ascii(VERBS[((r >> 8) as usize) % VERBS.len()]);
    b.ascii("_");
    b.ascii(QUALIFIERS[((r >> 16) as usize) % QUALIFIERS.len()]);
    b.ascii("_");
    b.ascii(NOUNS[((r >> 24) as usize) % NOUNS.len()]);
}

/// Writes a source path like `src/posting/journal.rs` with the given extension.
pub(crate) fn src_path(b: &mut TextBuf, rng: &mut Stream, prefix: &str, ext: &str) {
    let r = rng.next_u32();
    b.ascii(prefix);
    b.ascii(MODULES[(r as usize) % MODULES.len()]);
    b.ascii("/");
    b.ascii(MODULES[((r >> 12) as usize) % MODULES.len()]);
    if r & 0x10 != 0 {
        b.ascii("_");
        b.ascii(NOUNS[((r >> 20) as usize) % NOUNS.len()]);
    }
    b.ascii(ext);
}

/// Writes `n` lower-case hex digits drawn from the stream.
pub(crate) fn hex_id(b: &mut TextBuf, rng: &mut Stream, n: usize) {
    let mut left = n;
    while left > 0 {
        let take = left.min(16);
        b.hex(rng.next_u64(), take);
        left -= take;
    }
}

/// Writes an ISO-8601 UTC timestamp in 2024–2026.
pub(crate) fn iso_time(b: &mut TextBuf, rng: &mut Stream) {
    let r = rng.next_u64();
    b.num(2024 + r % 3);
    b.ascii("-");
    b.num_pad(1 + (r >> 4) % 12, 2);
    b.ascii("-");
    b.num_pad(1 + (r >> 8) % 28, 2);
    b.ascii("T");
    b.num_pad((r >> 16) % 24, 2);
    b.ascii(":");
    b.num_pad((r >> 24) % 60, 2);
    b.ascii(":");
    b.num_pad((r >> 32) % 60, 2);
    b.ascii("Z");
}

/// Writes a git-style date: `Tue Mar 4 14:22:10 2025 +0100`.
pub(crate) fn git_date(b: &mut TextBuf, rng: &mut Stream) {
    let r = rng.next_u64();
    b.ascii(WEEKDAYS[(r % 7) as usize]);
    b.ascii(" ");
    b.ascii(MONTHS[((r >> 4) % 12) as usize]);
    b.ascii(" ");
    b.num(1 + (r >> 8) % 28);
    b.ascii(" ");
    b.num_pad((r >> 16) % 24, 2);
    b.ascii(":");
    b.num_pad((r >> 24) % 60, 2);
    b.ascii(":");
    b.num_pad((r >> 32) % 60, 2);
    b.ascii(" ");
    b.num(2024 + (r >> 40) % 3);
    b.ascii(if (r >> 44) & 1 == 0 {
        " +0100"
    } else {
        " -0500"
    });
}

/// Writes a semantic version `major.minor.patch`.
pub(crate) fn version(b: &mut TextBuf, rng: &mut Stream) {
    let r = rng.next_u32();
    b.num(u64::from(r % 4));
    b.ascii(".");
    b.num(u64::from((r >> 4) % 40));
    b.ascii(".");
    b.num(u64::from((r >> 12) % 25));
}

/// A home directory and project checkout path prefix, e.g. `/home/dev/work/tallyhouse`.
pub(crate) fn project_root(b: &mut TextBuf, project: &str) {
    b.ascii("/home/dev/work/");
    b.ascii(project);
}

/// A `snake_case` name in PascalCase (`ledger_entry` -> `LedgerEntry`), for type names made from the nouns.
pub(crate) fn pascal_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for part in s.split('_') {
        let mut chars = part.chars();
        if let Some(f) = chars.next() {
            out.push(f.to_ascii_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

/// The third-person singular of a verb of [`VERBS`] (`apply` -> `applies`, `fetch` -> `fetches`).
pub(crate) fn third_person(verb: &str) -> String {
    if verb.ends_with("sh") || verb.ends_with("ch") || verb.ends_with('x') || verb.ends_with('s') {
        format!("{verb}es")
    } else if let Some(stem) = verb
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
    {
        format!("{stem}ies")
    } else {
        format!("{verb}s")
    }
}

const SUBJECTS: &[&str] = &[
    "the ledger export",
    "the retry loop",
    "posting a batch",
    "the cursor",
    "the webhook handler",
    "the nightly import",
    "the summary page",
    "currency rounding",
    "the cache layer",
    "loading tenant settings",
    "the invoice renderer",
    "the migration",
    "the rate limiter",
    "the audit log",
    "the search index",
];
const PREDICATES: &[&str] = &[
    "fails when",
    "skips rows when",
    "times out when",
    "double-counts entries when",
    "breaks the layout when",
    "returns stale data when",
    "ignores the configured limit when",
    "panics when",
    "is slow when",
    "logs a misleading error when",
    "drops the last page when",
];
const CONDITIONS: &[&str] = &[
    "a batch mixes currencies",
    "two postings share a timestamp",
    "the owner is null",
    "the connection drops mid-request",
    "a tenant has more than ten thousand invoices",
    "the locale is not English",
    "a retry races the original request",
    "the file name contains spaces",
    "the clock moves backwards during a deploy",
    "the upstream returns an empty body",
    "the feature flag is toggled mid-session",
    "the queue is drained concurrently",
];

/// Writes an invented sentence of about `words` words (clauses like "the cursor skips rows when the owner is
/// null"), with no punctuation that would need JSON escaping and no final period.
pub(crate) fn sentence(b: &mut TextBuf, rng: &mut Stream, words: usize) {
    let clauses = 1 + words / 12;
    for i in 0..clauses {
        if i > 0 {
            b.ascii(if i % 2 == 1 { ", and " } else { "; also " });
        }
        let r = rng.next_u32() as usize;
        b.ascii(SUBJECTS[r % SUBJECTS.len()]);
        b.ascii(" ");
        b.ascii(PREDICATES[(r >> 8) % PREDICATES.len()]);
        b.ascii(" ");
        b.ascii(CONDITIONS[(r >> 16) % CONDITIONS.len()]);
    }
}
