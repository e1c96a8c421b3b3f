//! One file a kind of tool output ([`Kind`]), each writing a [`Draft`] of about the size it is asked for:
//! `shell` (a folder, one file a family of tools), `mcp`, `surrogate`, `plan_mode`, `file_read`, `search`,
//! `listing`, `short_success`, `empty`, `error_trace`, `cancelled`, `media` and `edit`. [`write`] picks the kind's writer.

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

pub(crate) use edit::TOOL as EDIT_TOOL;

use super::{Ctx, Draft};
use crate::workload::{Kind, SizeModel};

/// Writes one output of `kind` of about `target` units (media: a `media` model's draw of base64 bytes).
pub(crate) fn write(c: &mut Ctx, kind: Kind, target: usize, media: &SizeModel) -> Draft {
    match kind {
        Kind::Shell => shell::write(c, target),
        Kind::Mcp => mcp::write(c, target),
        Kind::Surrogate => surrogate::write(c, target),
        Kind::PlanMode => plan_mode::write(c, target),
        Kind::FileRead => file_read::write(c, target),
        Kind::Search => search::write(c, target),
        Kind::Listing => listing::write(c, target),
        Kind::ShortSuccess => short_success::write(c, target),
        Kind::Empty => empty::write(c),
        Kind::ErrorTrace => error_trace::write(c, target),
        Kind::Cancelled => cancelled::write(c),
        Kind::Media => {
            let bytes = media.sample(&mut c.rng);
            media::write(c, bytes)
        }
        Kind::Edit => edit::write(c, target),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::buf::Written;
    use crate::generate::test_ctx;
    use crate::generate::Body;

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
        let media = SizeModel::body(2_000.0, 0.5);
        for kind in Kind::ALL {
            for _ in 0..40 {
                let d = write(&mut c, kind, 2_000, &media);
                let known = kind_of_tool(&d.tool);
                match kind {
                    // These borrow the tools of other kinds (a file read of an emoji-dense file, an error of a
                    // shell command, a cancelled edit), which the table knows.
                    Kind::Surrogate
                    | Kind::Media
                    | Kind::Empty
                    | Kind::ErrorTrace
                    | Kind::Cancelled => {
                        assert!(
                            known.is_some() || d.output.is_none(),
                            "{kind:?}: {}",
                            d.tool
                        )
                    }
                    _ => assert_eq!(known, Some(kind), "{}", d.tool),
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
}
