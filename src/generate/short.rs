//! Short outputs that say something of their own (`texture.short_units`): a result drawn shorter than the
//! scenario's threshold is written here instead of by its kind, as real short outputs are: a command's values
//! (versions, counts, commits, paths), a one-line error naming its file, a match or two and their count, a few
//! lines of a config file, a few file names, an edit's confirmation naming its lines, a write's or a task list's
//! confirmation, a small JSON object. Each names paths, identifiers and numbers drawn from the stream, so two
//! short results are seldom the same text, where the kinds' long forms cut down to a few units mostly are (a
//! header and nothing else, the same traceback line, an empty body). Each form adds lines of the same until it
//! comes near the size drawn (above the one thing every form says), so sizes follow the drawn ones as the kinds'
//! do. Shell outputs keep the shell framing (the `Command:` header and the exit line, for the texture's exit
//! style to rewrite), and the needles are planted as the kinds plant theirs.

use super::buf::TextBuf;
use super::kinds::shell::{self, Exit};
use super::needles::NeedleKind;
use super::vocab::{self, MODULES, NOUNS, VERBS};
use super::{Body, Ctx, Draft};
use crate::workload::Kind;

/// Whether `kind` has a short form here.
pub(crate) fn has_short_form(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Shell
            | Kind::ShortSuccess
            | Kind::ErrorTrace
            | Kind::Search
            | Kind::FileRead
            | Kind::Listing
            | Kind::Edit
            | Kind::Mcp
    )
}

/// A short output of `kind` (one of [`has_short_form`]) of about `target` units (a little more for the shortest:
/// every form says at least one thing).
pub(crate) fn write(c: &mut Ctx, kind: Kind, target: usize) -> Draft {
    match kind {
        Kind::Shell => shell_value(c, target),
        Kind::ShortSuccess => confirmation(c, target),
        Kind::ErrorTrace => error(c, target),
        Kind::Search => search(c, target),
        Kind::FileRead => config(c, target),
        Kind::Listing => names(c, target),
        Kind::Edit => edited(c, target),
        _ => json(c, target),
    }
}

/// A command and its value: a version, a count, a commit, paths, a setting.
fn shell_value(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 160);
    let form = rng.below(5);
    let module = rng.pick(MODULES);
    let mut path = TextBuf::with_capacity(48);
    vocab::src_path(&mut path, rng, "src/", ".py");
    let command = match form {
        0 => format!("pip list | grep {module}"),
        1 => format!("wc -l {}", path.as_str()),
        2 => "git log --oneline -3".to_string(),
        3 => format!("find . -name '*{module}*'"),
        _ => format!("grep -c {} src/{module}/*.py", rng.pick(NOUNS)),
    };
    shell::header(&mut b, &command, None);
    // The exit line the framing adds: about 13 units.
    let framing = b.units() + 13;
    loop {
        match form {
            0 => {
                b.ascii(module);
                b.ascii("-");
                b.ascii(rng.pick(NOUNS));
                b.ascii("  ");
                vocab::version(&mut b, rng);
            }
            1 => {
                b.num(rng.range(1, 4_000));
                b.ascii(" ");
                b.ascii(path.as_str());
            }
            2 => {
                vocab::hex_id(&mut b, rng, 7);
                b.ascii(" ");
                b.ascii(&vocab::pascal_case(&vocab::third_person(rng.pick(VERBS))));
                b.ascii(" ");
                b.ascii(rng.pick(NOUNS));
                b.ascii(" in ");
                b.ascii(rng.pick(MODULES));
            }
            3 => vocab::src_path(&mut b, rng, "./src/", ".py"),
            _ => {
                vocab::src_path(&mut b, rng, "src/", ".py");
                b.ascii(":");
                b.num(rng.range(0, 300));
            }
        }
        b.nl();
        // Later lines are more of the same; a value alone when that is all the size allows.
        if b.units() + 13 + 24 >= target.max(framing) {
            break;
        }
    }
    shell::exit_info(&mut b, Exit(0, None));
    Draft::output(shell::TOOL, Body::Text(b.finish()))
}

/// A write, a directory made or a task list updated, with the numbers and paths that make each one its own.
fn confirmation(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 96);
    let tool = match rng.below(3) {
        0 => {
            b.ascii("Successfully wrote ");
            b.num_grouped(rng.range(40, 400_000));
            b.ascii(" bytes to ");
            vocab::src_path(&mut b, rng, "src/", ".rs");
            b.ascii(".");
            "write_file"
        }
        1 => {
            b.ascii("Created directory ");
            vocab::src_path(&mut b, rng, "", "");
            b.ascii("/");
            vocab::ident(&mut b, rng);
            b.ascii(".");
            "create_directory"
        }
        _ => {
            b.ascii("Todo list updated: ");
            b.num(rng.below(20));
            b.ascii(" pending, ");
            b.num(rng.below(4));
            b.ascii(" in progress, ");
            b.num(rng.below(40));
            b.ascii(" done; next: ");
            vocab::ident(&mut b, rng);
            b.ascii(".");
            "write_todos"
        }
    };
    // What else it did, when there is room.
    while b.units() + 30 < target {
        b.ascii("\n- ");
        vocab::ident(&mut b, rng);
        b.ascii(": ");
        vocab::src_path(&mut b, rng, "src/", ".rs");
    }
    Draft::output(tool, Body::Text(b.finish()))
}

/// A one-line error naming its file or argument, and a line or two of context when there is room.
fn error(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 160);
    let (tool, form) = rng.pick(&[
        ("read_file", 0),
        ("run_python", 1),
        ("run_shell_command", 2),
        ("replace", 3),
    ]);
    b.needle_line(NeedleKind::FirstError, |b| match form {
        0 => {
            b.ascii("FileNotFoundError: [Errno 2] No such file or directory: '");
            vocab::src_path(b, rng, "src/", ".py");
            b.ascii("'");
        }
        1 => {
            b.ascii("ValueError: invalid literal for int() with base 10: '");
            vocab::ident(b, rng);
            b.num(rng.range(0, 100_000));
            b.ascii("'");
        }
        2 => {
            b.ascii("error: unexpected argument '--");
            vocab::ident(b, rng);
            b.ascii("=");
            b.num(rng.range(0, 100_000));
            b.ascii("' found");
        }
        _ => {
            b.ascii("Error: no match for the text to replace in ");
            vocab::src_path(b, rng, "src/", ".rs");
            b.ascii(" (line ");
            b.num(rng.range(1, 900));
            b.ascii(")");
        }
    });
    while b.units() + 40 < target {
        b.ascii("\n  at ");
        vocab::src_path(&mut b, rng, "src/", ".py");
        b.ascii(":");
        b.num(rng.range(1, 900));
    }
    Draft::error(tool, b.finish())
}

/// One or a few matches of an identifier and their count.
fn search(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 160);
    let needle = format!("{}_{}", rng.pick(VERBS), rng.pick(NOUNS));
    let mut matches = 0u64;
    loop {
        vocab::src_path(&mut b, rng, "src/", ".py");
        b.ascii(":");
        b.num(rng.range(1, 900));
        b.ascii(":    ");
        b.ascii(&needle);
        b.ascii("()\n");
        matches += 1;
        if b.units() + 70 >= target {
            break;
        }
    }
    b.needle_line(NeedleKind::SummaryLine, |b| {
        b.num(matches);
        b.ascii(if matches == 1 {
            " match in "
        } else {
            " matches in "
        });
        b.num(matches);
        b.ascii(if matches == 1 { " file" } else { " files" });
    });
    Draft::output("search_file_content", Body::Text(b.finish()))
}

/// A few settings of a config file.
fn config(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 96);
    loop {
        b.ascii(rng.pick(NOUNS));
        b.ascii("_");
        b.ascii(rng.pick(MODULES));
        b.ascii(" = ");
        match rng.below(3) {
            0 => b.num(rng.range(0, 100_000)),
            1 => {
                b.ascii("\"");
                b.ascii(rng.pick(VERBS));
                b.ascii("\"");
            }
            _ => {
                b.ascii("\"");
                vocab::src_path(&mut b, rng, "", ".json");
                b.ascii("\"");
            }
        }
        b.nl();
        if b.units() + 20 >= target {
            break;
        }
    }
    Draft::output("read_file", Body::Text(b.finish()))
}

/// A few file names.
fn names(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 64);
    loop {
        b.ascii(rng.pick(NOUNS));
        b.ascii("_");
        b.ascii(rng.pick(VERBS));
        b.ascii(rng.pick(&[".py", ".rs", ".ts", ".md", ".json", ".toml"]));
        b.nl();
        if b.units() + 16 >= target {
            break;
        }
    }
    Draft::output("list_directory", Body::Text(b.finish()))
}

/// An edit's confirmation naming the lines it replaced, and what changed when there is room.
fn edited(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 96);
    b.ascii("Edited ");
    vocab::src_path(&mut b, rng, "src/", ".py");
    let from = rng.range(1, 900);
    b.ascii(": lines ");
    b.num(from);
    b.ascii("-");
    b.num(from + rng.range(0, 12));
    b.ascii(" replaced.");
    while b.units() + 30 < target {
        b.ascii("\n- line ");
        b.num(rng.range(1, 900));
        b.ascii(": ");
        vocab::ident(&mut b, rng);
        b.ascii(" updated");
    }
    Draft::output(super::kinds::EDIT_TOOL, Body::Text(b.finish()))
}

/// A small JSON object, its keys planted.
fn json(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 96);
    b.ascii("{");
    let keys = ["id", "state", "updated_at", "title", "owner", "count"];
    for (i, key) in keys.iter().enumerate() {
        if i > 0 {
            b.ascii(", ");
        }
        b.needle_line(NeedleKind::JsonKey, |b| {
            b.ascii("\"");
            b.ascii(key);
            b.ascii("\"");
        });
        b.ascii(": ");
        match i {
            0 | 5 => b.num(rng.range(1, 100_000)),
            2 => {
                b.ascii("\"");
                vocab::iso_time(&mut b, rng);
                b.ascii("\"");
            }
            _ => {
                b.ascii("\"");
                b.ascii(rng.pick(NOUNS));
                b.ascii("_");
                b.ascii(rng.pick(VERBS));
                b.ascii("\"");
            }
        }
        if i >= 1 && b.units() + 24 >= target {
            break;
        }
    }
    b.ascii("}");
    Draft::output("mcp__tracker__get_issue", Body::Text(b.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_ctx;
    use std::collections::BTreeSet;

    #[test]
    fn short_forms_are_short_varied_and_keep_their_needles() {
        let mut c = test_ctx(51);
        for kind in Kind::ALL.into_iter().filter(|k| has_short_form(*k)) {
            let mut texts = BTreeSet::new();
            for target in [1usize, 40, 120] {
                for _ in 0..50 {
                    let d = write(&mut c, kind, target);
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
        let d = write(&mut c, Kind::Shell, 10);
        let Some(Body::Text(w)) = d.output else {
            panic!()
        };
        assert!(w.text.starts_with("Command: "));
        assert_eq!(w.needles.last().unwrap().text, "Exit Code: 0");
    }
}
