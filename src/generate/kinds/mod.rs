//! One file a kind of tool output ([`Kind`]), named as the kind (`shell` a folder, one file a family of tools),
//! each writing a [`Draft`] of about the size it is asked for. Each file declares its [`Writers`] (`WRITERS`),
//! and [`writers`] is the one place a kind meets them; everything else about a kind is its entry in
//! [`crate::workload::KINDS`].
//!
//! A kind may have a short form (`Writers::short`) for outputs that say something of their own
//! (`texture.short_units`): a result drawn shorter than the scenario's threshold is written by it instead of by
//! the kind's long form, as real short outputs are: a command's values (versions, counts, commits, paths), a
//! one-line error naming its file, a match or two and their count, a few lines of a config file, a few file
//! names, an edit's confirmation naming its lines, a write's or a task list's confirmation, a small JSON object.
//! Each names paths, identifiers and numbers drawn from the stream, so two short results are seldom the same
//! text, where the kinds' long forms cut down to a few units mostly are (a header and nothing else, the same
//! traceback line, an empty body). Each form adds lines of the same until it comes near the size drawn (above
//! the one thing every form says), so sizes follow the drawn ones as the long forms do. Shell outputs keep the
//! shell framing (the `Command:` header and the exit line, for the texture's exit style to rewrite), and the
//! needles are planted as the long forms plant theirs.

mod cancelled;
mod edit;
mod empty;
mod error_trace;
mod file_read;
mod listing;
mod mcp;
mod media;
mod plan_mode;
mod search;
pub(crate) mod shell;
mod short_success;
mod surrogate;

use super::{Ctx, Draft};
use crate::workload::Kind;

/// Writes one output of a kind of about `target` units (a little more for the shortest short forms: every form
/// says at least one thing; media: the media model draws its own size).
pub(crate) type Write = fn(&mut Ctx, usize) -> Draft;

/// How a kind's outputs are written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Writers {
    /// The kind's outputs at the size drawn.
    pub long: Write,
    /// Its short outputs, for a result drawn below the scenario's `short_units`, when it has a short form.
    pub short: Option<Write>,
}

/// The writers of `kind`: exhaustive, so a kind without a generator does not compile.
pub(crate) const fn writers(kind: Kind) -> Writers {
    match kind {
        Kind::Shell => shell::WRITERS,
        Kind::Mcp => mcp::WRITERS,
        Kind::Surrogate => surrogate::WRITERS,
        Kind::PlanMode => plan_mode::WRITERS,
        Kind::FileRead => file_read::WRITERS,
        Kind::Search => search::WRITERS,
        Kind::Listing => listing::WRITERS,
        Kind::ShortSuccess => short_success::WRITERS,
        Kind::Empty => empty::WRITERS,
        Kind::ErrorTrace => error_trace::WRITERS,
        Kind::Cancelled => cancelled::WRITERS,
        Kind::Media => media::WRITERS,
        Kind::Edit => edit::WRITERS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::buf::Written;
    use crate::generate::test_ctx;
    use crate::generate::Body;
    use std::collections::BTreeSet;

    fn text(d: &Draft) -> &Written {
        match &d.output {
            Some(Body::Text(w)) => w,
            _ => d.error.as_ref().unwrap(),
        }
    }

    #[test]
    fn sized_kinds_hit_their_targets() {
        let mut c = test_ctx(21);
        for target in [300usize, 3_000, 30_000] {
            for _ in 0..20 {
                for d in [
                    file_read::write(&mut c, target),
                    search::write(&mut c, target),
                    listing::write(&mut c, target),
                    error_trace::write(&mut c, target),
                ] {
                    let w = text(&d);
                    assert_eq!(w.units, w.text.encode_utf16().count());
                    assert!(
                        w.units + 700 >= target && w.units <= target + 700,
                        "{} {}",
                        d.tool,
                        w.units
                    );
                    for n in &w.needles {
                        let start = crate::text::head(&w.text, n.offset).len();
                        assert!(w.text[start..].starts_with(&n.text));
                    }
                }
            }
        }
    }

    #[test]
    fn every_tool_the_generator_names_is_in_the_tool_table_under_its_kind() {
        use crate::workload::kind_of_tool;
        let mut c = test_ctx(5);
        for kind in Kind::ALL {
            let spec = kind.spec();
            // A kind that lists no tools borrows the tools of other kinds (a file read of an emoji-dense file, an
            // error of a shell command, a cancelled edit), which the table knows.
            let borrows = spec.tools.is_empty() && spec.tool_prefix.is_none();
            let w = writers(kind);
            for write in std::iter::once(w.long).chain(w.short) {
                for _ in 0..40 {
                    let d = write(&mut c, 2_000);
                    let known = kind_of_tool(&d.tool);
                    if borrows {
                        assert!(
                            known.is_some() || d.output.is_none(),
                            "{kind:?}: {}",
                            d.tool
                        );
                    } else {
                        assert_eq!(known, Some(kind), "{}", d.tool);
                    }
                }
            }
        }
    }

    #[test]
    fn each_kind_has_its_own_file_and_nothing_else_is_here() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/generate/kinds");
        let mut found: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name != "mod.rs")
            .map(|name| name.trim_end_matches(".rs").to_string())
            .collect();
        found.sort();
        let mut kinds: Vec<String> = Kind::ALL.iter().map(|k| k.as_str().to_string()).collect();
        kinds.sort();
        assert_eq!(found, kinds);
    }

    #[test]
    fn short_forms_are_short_varied_and_keep_their_needles() {
        let mut c = test_ctx(51);
        for kind in Kind::ALL {
            let Some(write) = writers(kind).short else {
                continue;
            };
            let mut texts = BTreeSet::new();
            for target in [1usize, 40, 120] {
                for _ in 0..50 {
                    let d = write(&mut c, target);
                    let w = match &d.output {
                        Some(Body::Text(w)) => w,
                        _ => d.error.as_ref().unwrap(),
                    };
                    assert!(!w.text.is_empty(), "{kind:?}");
                    assert_eq!(w.units, w.text.encode_utf16().count());
                    // The shell framing around a value is about 50 units; the rest stays near the target.
                    assert!(w.units <= target + 160, "{kind:?} {target}: {}", w.units);
                    for n in &w.needles {
                        let start = crate::text::head(&w.text, n.offset).len();
                        assert!(w.text[start..].starts_with(&n.text), "{n:?}");
                    }
                    texts.insert(w.text.clone());
                }
            }
            // 150 outputs: nearly all different.
            assert!(texts.len() >= 140, "{kind:?}: {} distinct", texts.len());
        }
        let d = shell::WRITERS.short.unwrap()(&mut c, 10);
        let Some(Body::Text(w)) = d.output else {
            panic!()
        };
        assert!(w.text.starts_with("Command: "));
        assert_eq!(w.needles.last().unwrap().text, "Exit Code: 0");
    }
}
