//! `structure`: the reference allocation and persistence, with previews that read the shape of what a tool
//! printed: numbered listings (a file viewer's `123:` or `123|`, `cat -n`'s `123<tab>`), search hits (`path:12:`,
//! `Line 12:`, `Found 3 matches`) and diffs (`@@` hunks and their changed lines).
//!
//! Each shortened field gets exactly the reference's allocation, header and artifact. Its lines are kept in this
//! order while they fit (`finalize/line_pick.rs`, every omitted run one marker naming its lines):
//! 1. the frame: the first line and the lines that say what the output is (`[File: ...]`, `(12 more lines
//!    above)`, `Found 3 matches`, `diff --git`, `---`/`+++`). A viewer's `(N more lines below)` is not frame: it
//!    follows the listing's last line, so when the listing's end is cut, keeping it costs its units and a second
//!    marker for what the listing's own numbers and the marker already say; it is kept, as any line, by the tail
//!    that reaches it;
//! 2. the window the call asked for: the numbers in the arguments of the call that made the field's entry (`open
//!    f.java 400`, `goto 400`, `edit 120:130`, `sed -n 400,420p`; a `:`, `,` or `-` between two numbers makes a
//!    range) name listing lines, and the numbered lines within `structure.window` of them are kept nearest first;
//! 3. a head and tail reserve (`structure.edge` of what is left, split by `head_share`);
//! 4. the hits: search hits and hunk headers from both ends of the list inward (first, last, second, ...), those
//!    on comments and imports after the rest, then changed diff lines in order, each with up to
//!    `structure.context` lines either side when they fit (else alone);
//! 5. head and tail lines as far as the content goes.
//!
//! The window needs the turn's context ([`TurnContext`](crate::context::TurnContext)). Without it, a file viewer's
//! listing (one with a `[File: ...]` or `(N more lines above)` line) is taken to focus the numbered line a sixth
//! of the way down, where SWE-agent's `open` and `goto` put the line they were given; any other field keeps
//! steps 1 and 3 to 5, so a search result keeps its hits and anything else is cut at its head and tail as
//! `line-aware` would, with markers.

use super::config::{StructureConfig, CONTEXT_LINES, WINDOW_LINES};
use super::head_share::HeadShare;
use super::line_pick::{fit_picked, LineMap, Plan};
use super::param::{Param, Search, Setting, HEAD_SHARE};
use super::slots::{Slot, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::{allocate_and_fit_prepared, slot_lengths};
use super::{Finalizer, Outcome};
use crate::alloc::water_fill;
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "structure",
    description: "reference allocation; previews keep a listing's asked window, search hits and diff hunks, plus head and tail, with omitted line ranges marked",
    family: Family::ContentAware,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[
        HEAD_SHARE,
        Param {
            name: "edge",
            key: "structure.edge",
            description: "the share of each preview reserved for its head and tail after the asked window",
            field: Setting::Share(|c| &mut c.structure.edge),
            search: Search::Shares { steps: 10 },
        },
        Param {
            name: "window",
            key: "structure.window",
            description: "numbered lines kept on each side of the lines the call asked for",
            field: Setting::Units(WINDOW_LINES, |c| &mut c.structure.window),
            search: Search::Log { low: 5, high: 100, points: 6 },
        },
        Param {
            name: "above",
            key: "structure.above",
            description: "the share of the window's lines taken above the asked lines (the rest below them)",
            field: Setting::Share(|c| &mut c.structure.above),
            search: Search::Shares { steps: 10 },
        },
        Param {
            name: "context",
            key: "structure.context",
            description: "lines kept on each side of a search hit or a changed diff line when they fit",
            field: Setting::Units(CONTEXT_LINES, |c| &mut c.structure.context),
            search: Search::Each { low: 0, high: 3 },
        },
    ],
    build: Build::One(|config| {
        Box::new(Structure {
            head_share: config.head_share,
            settings: config.structure,
        })
    }),
};

/// The largest line number a call's arguments may name.
const MAX_ASKED_LINE: u64 = 100_000_000;
/// The most ranges read from one call's arguments.
const MAX_ASKED_RANGES: usize = 16;

/// The structure-reading finalizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Structure {
    /// How the head and tail split what they get.
    pub head_share: HeadShare,
    /// The reserve, the window and the context.
    pub settings: StructureConfig,
}

impl Finalizer for Structure {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        let turn = ctx.turn.as_deref();
        allocate_and_fit_prepared(
            batch,
            ctx,
            store,
            SlotScope::ALL,
            true,
            |slots, limit| water_fill(&slot_lengths(slots), limit),
            |batch, _, _| -> Vec<Vec<(u64, u64)>> {
                batch
                    .iter()
                    .map(|e| {
                        turn.and_then(|t| t.call(&e.call_id))
                            .map_or_else(Vec::new, |c| asked_ranges(&c.arguments))
                    })
                    .collect()
            },
            |asked, slot: &Slot, text, allocation, header| {
                fit_structure(
                    text,
                    allocation,
                    header,
                    self.head_share,
                    &self.settings,
                    &asked[slot.entry],
                )
            },
        )
    }
}

/// The line ranges (inclusive, 1-based) the numbers of a call's `arguments` name: a number alone is a range of
/// one line; two joined by `:`, `,` or `-` are a range. Numbers inside words (`file2.java`, `v1`) are not lines.
pub(crate) fn asked_ranges(arguments: &str) -> Vec<(u64, u64)> {
    let b = arguments.as_bytes();
    let glued = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'/';
    // The numbers standing alone, with where they end.
    let mut numbers: Vec<(usize, usize, u64)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        // `400,420p`: sed's command letter after a number does not glue it.
        let sed_p = b.get(i) == Some(&b'p') && b.get(i + 1).is_none_or(|c| !glued(*c));
        let alone = (start == 0 || !glued(b[start - 1])) && (i == b.len() || !glued(b[i]) || sed_p);
        if alone && i - start <= 9 {
            let v: u64 = arguments[start..i].parse().unwrap_or(0);
            if (1..=MAX_ASKED_LINE).contains(&v) {
                numbers.push((start, i, v));
            }
        }
    }
    let mut out = Vec::new();
    let mut k = 0;
    while k < numbers.len() && out.len() < MAX_ASKED_RANGES {
        let (_, end, v) = numbers[k];
        match numbers.get(k + 1) {
            Some(&(next, _, w)) if next == end + 1 && matches!(b[end], b':' | b',' | b'-') => {
                out.push((v.min(w), v.max(w)));
                k += 2;
            }
            _ => {
                out.push((v, v));
                k += 1;
            }
        }
    }
    out
}

/// The line number a listing line starts with (`123:`, `123|`, `  123\t`), if any.
fn listed_number(line: &str) -> Option<u64> {
    let t = line.trim_start_matches(' ');
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    match t.as_bytes().get(digits) {
        Some(b':' | b'|' | b'\t') => t[..digits].parse().ok(),
        _ => None,
    }
}

/// What follows a listing line's number and its separator (the whole line when it has none).
fn listed_body(line: &str) -> &str {
    let t = line.trim_start_matches(' ');
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    match t.as_bytes().get(digits) {
        Some(b':' | b'|' | b'\t') if digits > 0 => &t[digits + 1..],
        _ => line,
    }
}

/// Whether a listed line is boilerplate an agent rarely reads on: an import or package line of the common
/// languages (`import`, `package`, `from x import`, `#include`, `using x;`, `use x;`).
fn is_boilerplate(body: &str) -> bool {
    let t = body.trim_start();
    t.starts_with("import ")
        || t.starts_with("package ")
        || (t.starts_with("from ") && t.contains(" import "))
        || t.starts_with("#include")
        || ((t.starts_with("using ") || t.starts_with("use ")) && t.trim_end().ends_with(';'))
}

/// Which `numbered` lines are boilerplate: import and package lines ([`is_boilerplate`]), a listing's leading
/// comment block when it starts at line 1 (a licence), and blank lines after boilerplate.
fn boilerplate(map: &LineMap<'_>, numbered: &[(usize, u64)]) -> Vec<bool> {
    let mut out = vec![false; numbered.len()];
    let body = |k: usize| listed_body(map.body(numbered[k].0)).trim();
    let mut k = 0;
    if numbered.first().is_some_and(|&(_, n)| n == 1) {
        let first = body(0);
        if first.starts_with("/*") {
            while k < numbered.len() {
                out[k] = true;
                k += 1;
                if body(k - 1).contains("*/") {
                    break;
                }
            }
        } else if first.starts_with("//")
            || (first.starts_with('#') && !first.starts_with("#include"))
        {
            let prefix = if first.starts_with("//") { "//" } else { "#" };
            while k < numbered.len() && body(k).starts_with(prefix) {
                out[k] = true;
                k += 1;
            }
        }
    }
    let mut after_boilerplate = k > 0;
    for (k, flag) in out.iter_mut().enumerate().skip(k) {
        let b = body(k);
        if b.is_empty() {
            *flag = after_boilerplate;
        } else {
            *flag = is_boilerplate(b);
            after_boilerplate = *flag;
        }
    }
    out
}

/// The first line number of the paragraph that holds line `asked`: the numbered lines above it up to the blank
/// line above them, at most `limit` lines up (`asked` itself when it is not listed).
fn paragraph_top(map: &LineMap<'_>, numbered: &[(usize, u64)], asked: u64, limit: u64) -> u64 {
    let Some(p) = numbered.iter().position(|&(_, n)| n >= asked) else {
        return asked;
    };
    let mut top = asked;
    for &(i, n) in numbered[..p].iter().rev() {
        if n >= top || asked - n > limit || listed_body(map.body(i)).trim().is_empty() {
            break;
        }
        top = n;
    }
    top
}

/// The matched text of a search hit: what follows `Line 12:` or `path:12:` (the whole line otherwise).
fn hit_body(line: &str) -> &str {
    let rest = line.strip_prefix("Line ").unwrap_or(line);
    let Some(colon) = rest.find(':') else {
        return line;
    };
    let after = &rest[colon + 1..];
    let d = after.bytes().take_while(u8::is_ascii_digit).count();
    if d > 0 && after.as_bytes().get(d) == Some(&b':') {
        &after[d + 1..]
    } else if rest.len() != line.len() {
        after
    } else {
        line
    }
}

/// Whether a hit's text is a comment or boilerplate (an import), which agents go on to use less than code.
fn is_quiet(body: &str) -> bool {
    let t = body.trim_start();
    is_boilerplate(t)
        || t.starts_with("//")
        || t.starts_with("/*")
        || t.starts_with("* ")
        || t == "*"
        || t.starts_with("<!--")
        || (t.starts_with("# ") && !t.starts_with("#include"))
}

/// `items` from both ends inward (first, last, second, second to last, ...): when not every hit fits, the list
/// keeps its ends, as a head and tail would, but whole hits only.
fn ends_first(items: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(items.len());
    let (mut a, mut b) = (0, items.len());
    while a < b {
        out.push(items[a]);
        a += 1;
        if a < b {
            b -= 1;
            out.push(items[b]);
        }
    }
    out
}

/// What a line is to `structure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Says what the output is.
    Frame,
    /// A search hit or a hunk header.
    Hit,
    /// A changed line of a diff.
    Changed,
    /// Anything else.
    Plain,
}

/// The role of `line` (without its break).
fn role(line: &str) -> Role {
    let starts = |p: &str| line.starts_with(p);
    if starts("[File:")
        || starts("diff --git")
        || starts("--- ")
        || starts("+++ ")
        || starts("No matches found")
        || starts("End of matches")
        || (starts("(") && line.contains(" more lines above)"))
        || (starts("Found ") && line[6..].starts_with(|c: char| c.is_ascii_digit()))
    {
        return Role::Frame;
    }
    if starts("@@ ") || is_search_hit(line) {
        return Role::Hit;
    }
    if (starts("+") || starts("-")) && !starts("+++") && !starts("---") {
        return Role::Changed;
    }
    Role::Plain
}

/// Whether `line` is a search hit: `Line 12:` (a file search), `path:12:` or `path:12-` (grep), or a `path (3
/// matches)` summary of a directory search.
fn is_search_hit(line: &str) -> bool {
    if let Some(rest) = line.strip_prefix("Line ") {
        let d = rest.bytes().take_while(u8::is_ascii_digit).count();
        return d > 0 && rest.as_bytes().get(d) == Some(&b':');
    }
    if line.ends_with(" matches)") || line.ends_with(" match)") {
        return true;
    }
    // `path:12:`: a path without spaces, a colon, digits and a colon (or `-`, grep's context lines count too).
    // The path is read up to its colon and given up at the first space: most lines have one long before any colon.
    let mut colon = None;
    for (k, c) in line.char_indices() {
        if c == ':' {
            colon = Some(k);
            break;
        }
        if c.is_whitespace() {
            return false;
        }
    }
    let Some(colon) = colon.filter(|&k| k > 0) else {
        return false;
    };
    let rest = &line.as_bytes()[colon + 1..];
    let d = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    d > 0 && matches!(rest.get(d), Some(b':'))
}

/// The structure fit of `text` to at most `allocation` UTF-16 units behind `header`, for a call that asked for
/// the line ranges `asked` (see the module documentation).
pub(crate) fn fit_structure(
    text: &str,
    allocation: u64,
    header: &str,
    head_share: HeadShare,
    settings: &StructureConfig,
    asked: &[(u64, u64)],
) -> String {
    let plan = Plan {
        edge: settings.edge,
        head_share,
        context: settings.context.min(CONTEXT_LINES.high) as usize,
    };
    let window = settings.window.min(WINDOW_LINES.high);
    fit_picked(text, allocation, header, head_share, |map, sel| {
        let (first, hits) = shape(map, asked, window, settings.above);
        plan.fill(map, sel, &first, hits);
    })
}

/// The lines kept first (the frame, then the asked window nearest first) and the hits, in order.
fn shape(
    map: &LineMap<'_>,
    asked: &[(u64, u64)],
    window: u64,
    above: HeadShare,
) -> (Vec<usize>, Vec<usize>) {
    let mut frame = vec![0];
    let mut numbered: Vec<(usize, u64)> = Vec::new();
    let mut hits = Vec::new();
    let mut changed = Vec::new();
    let mut viewer = false;
    for i in 0..map.len() {
        let line = map.body(i);
        match role(line) {
            Role::Frame => {
                viewer |= line.starts_with("[File:") || line.contains(" more lines above)");
                if i > 0 {
                    frame.push(i);
                }
            }
            Role::Hit => hits.push(i),
            Role::Changed => changed.push(i),
            Role::Plain => {}
        }
        if let Some(n) = listed_number(line) {
            numbered.push((i, n));
        }
    }
    let boiler = boilerplate(map, &numbered);
    // Without a call to say where, a file viewer's window is read from its first line that is not boilerplate
    // (a licence, imports): `open` without a line starts at the top of the file, `scroll_down` at the next window.
    let focus;
    let asked = match (asked, numbered.iter().zip(&boiler).find(|(_, b)| !**b)) {
        ([], Some((&(_, n), _))) if viewer => {
            focus = [(n, n)];
            &focus[..]
        }
        _ => asked,
    };
    // Nearest first, but read downward: a line `d` above the asked lines ranks with one `d * below / above`
    // below them, so about `above` of the window lies above; the lines of the asked line's paragraph (up to the
    // blank line above it: the start of its method or block; at most `above` of the window) rank by plain
    // distance. Boilerplate ranks last.
    let (up, down) = (above.num, above.den - above.num);
    let tops: Vec<u64> = asked
        .iter()
        .map(|&(a, _)| paragraph_top(map, &numbered, a, above.head_units(window)))
        .collect();
    let mut near: Vec<(bool, u128, usize)> = Vec::new();
    for (k, &(i, n)) in numbered.iter().enumerate() {
        let rank = asked
            .iter()
            .zip(&tops)
            .map(|(&(a, b), &top)| {
                let d = a.saturating_sub(n).max(n.saturating_sub(b));
                let weighted = if n >= a || n >= top {
                    u128::from(d)
                } else if up == 0 {
                    u128::from(u64::MAX) + u128::from(d)
                } else {
                    u128::from(d) * u128::from(down) / u128::from(up)
                };
                (d, weighted)
            })
            .min_by_key(|&(_, r)| r);
        if let Some((d, weighted)) = rank {
            if d <= window {
                near.push((boiler[k], weighted, i));
            }
        }
    }
    near.sort_unstable();
    frame.extend(near.into_iter().map(|(_, _, i)| i));
    // Hits on code first, then hits on comments and imports, each list from both ends inward.
    let (quiet, code): (Vec<usize>, Vec<usize>) =
        hits.iter().partition(|&&i| is_quiet(hit_body(map.body(i))));
    let mut ordered = ends_first(&code);
    ordered.extend(ends_first(&quiet));
    ordered.extend(changed);
    (frame, ordered)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::budget::Budget;
    use crate::context::{CallContext, TurnContext};
    use crate::finalize::fit::header;
    use crate::finalize::line_pick::marker_bound;
    use crate::finalize::testing::output_entry;
    use crate::model::Field;
    use crate::persist::MemoryStore;
    use crate::text::utf16_len;

    #[test]
    fn asked_ranges_are_read_from_the_arguments() {
        assert_eq!(asked_ranges("src/Foo.java 400"), [(400, 400)]);
        assert_eq!(asked_ranges("goto 1474"), [(1474, 1474)]);
        assert_eq!(asked_ranges("edit 130:120\nfoo"), [(120, 130)]);
        assert_eq!(asked_ranges("sed -n 400,420p file2.py"), [(400, 420)]);
        assert_eq!(asked_ranges("cat v1 file2.java x_3"), []);
        assert_eq!(asked_ranges("0 99999999999"), []);
    }

    #[test]
    fn lines_are_read_for_their_role() {
        assert_eq!(listed_number("400:    int x;"), Some(400));
        assert_eq!(listed_number("  12|foo"), Some(12));
        assert_eq!(listed_number("    7\tfoo"), Some(7));
        assert_eq!(listed_number("x 7: foo"), None);
        assert_eq!(role("[File: /a/B.java (900 lines total)]"), Role::Frame);
        assert_eq!(role("(380 more lines above)"), Role::Frame);
        assert_eq!(role("(420 more lines below)"), Role::Plain);
        assert_eq!(role("Found 3 matches for \"foo\" in /a:"), Role::Frame);
        assert_eq!(role("src/a/B.java:41:    foo();"), Role::Hit);
        assert_eq!(role("Line 41:    foo();"), Role::Hit);
        assert_eq!(role("/repo/src/B.java (2 matches)"), Role::Hit);
        assert_eq!(role("@@ -1,4 +1,5 @@"), Role::Hit);
        assert_eq!(role("+    added();"), Role::Changed);
        assert_eq!(role("Total: 3 tests"), Role::Plain);
        assert_eq!(role("12:30 build started"), Role::Plain);
    }

    fn finalize_with(text: &str, budget: i64, arguments: Option<&str>) -> String {
        let mut ctx = BudgetContext::new(Budget::Units(budget));
        ctx.turn = arguments.map(|a| {
            Arc::new(TurnContext {
                calls: vec![CallContext {
                    call_id: "c1".into(),
                    name: "open".into(),
                    arguments: a.into(),
                }],
                ..TurnContext::default()
            })
        });
        let mut store = MemoryStore::new("/tmp");
        let out =
            Structure::default().finalize(vec![output_entry("c1", "open", text)], &ctx, &mut store);
        let got = out.batch[0].response_parts[0].field(Field::Output).unwrap();
        assert!(utf16_len(got) as i64 <= budget);
        got.to_string()
    }

    #[test]
    fn a_numbered_listing_keeps_the_window_the_call_asked_for() {
        let mut text =
            String::from("[File: /r/A.java (900 lines total)]\n(379 more lines above)\n");
        for n in 380..=479 {
            text.push_str(&format!("{n}:        statement_{n}();\n"));
        }
        text.push_str("(421 more lines below)\n");
        let settings = StructureConfig {
            edge: HeadShare::new(0, 1).unwrap(),
            window: 2,
            above: HeadShare::new(1, 10).unwrap(),
            context: 0,
        };
        // Exactly: frame (36 + 23 + 23 units, one marker bound of 39), then lines 400, 399, 401, 398, 402 (29
        // units each, and a second marker), nothing more.
        let h = "H";
        let out = fit_structure(
            &text,
            1 + 2 + 318,
            h,
            HeadShare::DEFAULT,
            &settings,
            &[(400, 400)],
        );
        assert_eq!(
            out,
            "H\n\n[File: /r/A.java (900 lines total)]\n(379 more lines above)\n[... lines 3-20 of 103 omitted ...]\n398:        statement_398();\n399:        statement_399();\n400:        statement_400();\n401:        statement_401();\n402:        statement_402();\n[... lines 26-102 of 103 omitted ...]\n(421 more lines below)\n"
        );
        // Through the finalizer, with the call's arguments from the turn's context.
        let got = finalize_with(&text, 900, Some("src/A.java 400"));
        let hdr = header(&text, &["/tmp/c1.txt".into()]);
        assert!(got.starts_with(&format!("{hdr}\n\n[File: ")), "{got}");
        assert!(got.contains("400:        statement_400();\n"), "{got}");
        // Without the context, the viewer is read from its first listed line down.
        let plain = finalize_with(&text, 900, None);
        assert!(
            plain.contains("\n(379 more lines above)\n380:        statement_380();\n381:"),
            "{plain}"
        );
        assert!(
            !plain.contains("\n440:        statement_440();\n"),
            "{plain}"
        );
    }

    /// A viewer window of lines `from..=to`, each `N:    stmt_N();`, with a blank line at each of `blank`.
    fn viewer(from: u64, to: u64, blank: &[u64]) -> String {
        let mut text = format!(
            "[File: /r/A.java (900 lines total)]\n({} more lines above)\n",
            from - 1
        );
        for n in from..=to {
            if blank.contains(&n) {
                text.push_str(&format!("{n}:\n"));
            } else {
                text.push_str(&format!("{n}:    stmt_{n}();\n"));
            }
        }
        text.push_str(&format!("({} more lines below)\n", 900 - to));
        text
    }

    /// The listed line numbers `out` kept.
    fn kept_numbers(out: &str) -> Vec<u64> {
        out.lines().filter_map(listed_number).collect()
    }

    #[test]
    fn a_window_is_read_downward_from_the_asked_line_with_its_paragraph_above() {
        let text = viewer(385, 484, &[394, 420]);
        let settings = StructureConfig {
            edge: HeadShare::new(0, 1).unwrap(),
            above: HeadShare::new(1, 5).unwrap(),
            ..StructureConfig::default()
        };
        // The frame (36 + 23 units), two markers (39 each) and 20 lines of 20 units.
        let fit = |lines: u64, settings: &StructureConfig, asked: &[(u64, u64)]| {
            let out = fit_structure(
                &text,
                3 + 59 + 78 + lines * 20,
                "H",
                HeadShare::DEFAULT,
                settings,
                asked,
            );
            kept_numbers(&out)
        };
        // The paragraph above 400 (395 to 399, after the blank line 394) ranks by plain distance; 395 (5 up)
        // ties 405 (5 down); past the paragraph a line up ranks as four down (1/5 above), so the blank 394 (6 up)
        // would rank with 424 and is not reached.
        assert_eq!(
            fit(20, &settings, &[(400, 400)]),
            (395..=414).collect::<Vec<_>>()
        );
        // With room for 40 lines, 1/5 above reaches past the paragraph; no share above keeps nothing above.
        assert!(fit(40, &settings, &[(400, 400)])[0] < 395);
        let below = StructureConfig {
            above: HeadShare::new(0, 1).unwrap(),
            ..settings
        };
        let kept = fit(40, &below, &[(400, 400)]);
        assert_eq!(kept[0], 400);
        assert!(kept.windows(2).all(|w| w[1] == w[0] + 1), "{kept:?}");
        // A range asked (an edit) counts from both its ends.
        assert_eq!(fit(5, &settings, &[(401, 403)]), [400, 401, 402, 403, 404]);
    }

    #[test]
    fn a_viewer_count_below_is_kept_only_with_the_end_of_its_listing() {
        // `goto 400` on a view of lines 385 to 484 (each line 20 units): the frame is `[File: ...]` (36 units) and
        // `(384 more lines above)` (23); the count below (23) is not frame. With room for the frame, two markers
        // (39 each) and 21 lines, the window keeps 21 lines and the cut runs to the end in one marker; kept as frame,
        // the count below would have cost its own units and a second marker after the listing (20 lines).
        let text = viewer(385, 484, &[]);
        let settings = StructureConfig {
            edge: HeadShare::new(0, 1).unwrap(),
            ..StructureConfig::default()
        };
        let fit = |content: u64| {
            fit_structure(
                &text,
                3 + content,
                "H",
                HeadShare::DEFAULT,
                &settings,
                &[(400, 400)],
            )
        };
        let out = fit(59 + 2 * 39 + 21 * 20);
        assert_eq!(kept_numbers(&out), (390..=410).collect::<Vec<_>>(), "{out}");
        assert!(!out.contains("more lines below"), "{out}");
        assert!(
            out.ends_with("[... lines 29-103 of 103 omitted ...]"),
            "{out}"
        );
        // When the listing's last line is kept, its count comes with it: it ends the gap after the listing, so it
        // costs 23 units less a marker, and fits in what 95 lines and two markers leave.
        let out = fit(59 + 2 * 39 + 95 * 20);
        assert_eq!(kept_numbers(&out), (390..=484).collect::<Vec<_>>(), "{out}");
        assert!(
            out.ends_with("\n484:    stmt_484();\n(416 more lines below)\n"),
            "{out}"
        );
    }

    #[test]
    fn a_file_top_skips_its_licence_and_imports() {
        let mut text = String::from("[File: /r/A.java (300 lines total)]\n");
        let head = [
            "/*",
            " * Licensed to you.",
            " * Under terms.",
            " */",
            "package r.a;",
            "",
            "import java.util.List;",
            "import java.util.Map;",
            "",
            "import static org.junit.Assert.assertNull;",
            "",
            "public class A {",
        ];
        for (k, l) in head.iter().enumerate() {
            text.push_str(&format!("{}:{l}\n", k + 1));
        }
        for n in 13..=100 {
            text.push_str(&format!("{n}:    int field{n};\n"));
        }
        text.push_str("(200 more lines below)\n");
        let out = fit_structure(
            &text,
            600,
            "H",
            HeadShare::DEFAULT,
            &StructureConfig::default(),
            &[],
        );
        let kept = kept_numbers(&out);
        assert_eq!(kept.first(), Some(&12), "{out}");
        assert!(kept.windows(2).all(|w| w[1] == w[0] + 1), "{out}");
        assert!(
            out.contains("]\n[... lines 2-12 of 102 omitted ...]\n12:public class A {\n"),
            "{out}"
        );
        // The boilerplate, line by line.
        let map = LineMap::new(&text);
        let numbered: Vec<(usize, u64)> = (0..map.len())
            .filter_map(|i| listed_number(map.body(i)).map(|n| (i, n)))
            .collect();
        let flags = boilerplate(&map, &numbered);
        assert_eq!(
            &flags[..12],
            &[true, true, true, true, true, true, true, true, true, true, true, false]
        );
        assert!(flags[12..].iter().all(|f| !f));
        assert!(is_boilerplate("from os import path"));
        assert!(is_boilerplate("#include <stdio.h>"));
        assert!(is_boilerplate("use std::fmt;"));
        assert!(!is_boilerplate("user = load()"));
    }

    #[test]
    fn hits_are_taken_from_both_ends_code_before_comments() {
        assert_eq!(ends_first(&[1, 2, 3, 4, 5]), [1, 5, 2, 4, 3]);
        assert_eq!(ends_first(&[]), Vec::<usize>::new());
        assert_eq!(hit_body("Line 41:    foo();"), "    foo();");
        assert_eq!(hit_body("src/a.rs:12:  // note"), "  // note");
        assert!(is_quiet(hit_body("Line 9:   * @throws X when")));
        assert!(is_quiet(hit_body("Line 3:import a.B;")));
        assert!(!is_quiet(hit_body("Line 70:    int x = 1; // set")));
        // Twelve hits, four on comments, room for four: the first and last code hits, then the next from each end.
        let mut text = String::from("Found 12 matches for \"x\" in /r/A.java:\n");
        for n in 1..=12 {
            if n % 3 == 0 {
                text.push_str(&format!("Line {:03}:  // x {n}\n", n * 10));
            } else {
                text.push_str(&format!("Line {:03}:  x({n});\n", n * 10));
            }
        }
        text.push_str("End of matches for \"x\" in /r/A.java\n");
        let settings = StructureConfig {
            edge: HeadShare::new(0, 1).unwrap(),
            context: 0,
            ..StructureConfig::default()
        };
        // Room for the frame, two markers and four hits (and no fifth with its marker): the code hits from both
        // ends, none from the middle.
        let map = LineMap::new(&text);
        let frame = map.units(0) + map.units(13);
        let out = fit_structure(
            &text,
            3 + frame + 2 * marker_bound(14) + 4 * map.units(1) + 10,
            "H",
            HeadShare::DEFAULT,
            &settings,
            &[],
        );
        for kept in ["x(1);", "x(2);", "x(10);", "x(11);"] {
            assert!(out.contains(kept), "{kept}: {out}");
        }
        for cut in ["x(4);", "x(5);", "x(7);", "x(8);"] {
            assert!(!out.contains(cut), "{cut}: {out}");
        }
    }

    #[test]
    fn a_search_output_keeps_its_hits() {
        let mut text = String::from("Found 3 matches for \"frob\" in /r:\n");
        for i in 0..60 {
            match i {
                10 => text.push_str("/r/src/A.java:120:    frob(a);\n"),
                30 => text.push_str("/r/src/B.java:77:    frob(b);\n"),
                50 => text.push_str("/r/src/C.java:9:    frob(c);\n"),
                _ => text.push_str("/r/build/generated/noise.txt is not searched\n"),
            }
        }
        text.push_str("End of matches for \"frob\" in /r\n");
        let settings = StructureConfig {
            edge: HeadShare::new(0, 1).unwrap(),
            window: 0,
            above: HeadShare::new(1, 10).unwrap(),
            context: 0,
        };
        // Frame 35 + 33 and one marker bound (36), then each hit and a marker: 302 units.
        let out = fit_structure(&text, 3 + 302, "H", HeadShare::DEFAULT, &settings, &[]);
        assert_eq!(
            out,
            "H\n\nFound 3 matches for \"frob\" in /r:\n[... lines 2-11 of 62 omitted ...]\n/r/src/A.java:120:    frob(a);\n[... lines 13-31 of 62 omitted ...]\n/r/src/B.java:77:    frob(b);\n[... lines 33-51 of 62 omitted ...]\n/r/src/C.java:9:    frob(c);\n[... lines 53-61 of 62 omitted ...]\nEnd of matches for \"frob\" in /r\n"
        );
    }

    #[test]
    fn a_cut_never_splits_a_surrogate_pair() {
        // Lines of emoji: cuts fall at line breaks, and the one-line fallback cuts by units, never inside a pair.
        let text = "😀😀😀\n".repeat(40);
        for a in [0u64, 1, 9, 130, 200, 260] {
            let out = fit_structure(
                &text,
                a,
                "H",
                HeadShare::DEFAULT,
                &StructureConfig::default(),
                &[],
            );
            assert!(utf16_len(&out) as u64 <= a);
            assert_eq!(
                out.matches('😀').count() * 2,
                out.encode_utf16()
                    .filter(|u| (0xD800..0xE000).contains(u))
                    .count()
            );
        }
        let one = "😀".repeat(100);
        let out = fit_structure(
            &one,
            30,
            "H",
            HeadShare::DEFAULT,
            &StructureConfig::default(),
            &[],
        );
        assert!(utf16_len(&out) <= 30);
        assert!(out.ends_with('😀'));
    }
}
