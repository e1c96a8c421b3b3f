//! The rest of a real turn: file reads (Rust, TypeScript, Python, YAML, Markdown), grep results, directory
//! listings, short successes, empty output and empty error strings, error fields with stack traces, synthetic /
//! skipped / cancelled responses, media parts (inlineData with base64 data, fileData), and the top-level text
//! parts hooks add (hook context).

use serde_json::{Map, Value};

use super::buf::{TextBuf, Written};
use super::cjk;
use super::needles::NeedleKind;
use super::vocab::{self, MODULES, NOUNS, PROJECTS, VERBS};
use super::{Body, Ctx, Draft};
use crate::model::Part;
use crate::rng::Stream;

/// Writes a file read of about `target` units.
pub(crate) fn file_read(c: &mut Ctx, target: usize) -> Draft {
    let zh = c.knobs.cjk_share;
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 256);
    let numbered = rng.below(3) == 0;
    let mut line_no = 1u64;
    // A Chinese-speaking team's files are documentation more often than English ones in this workload: half of
    // the Chinese share reads a Markdown file outright (no draw at all when the share is zero).
    let lang = if cjk::chosen(rng, zh / 2.0) {
        4
    } else {
        rng.below(5)
    };
    let mut lines = TextBuf::with_capacity(512);
    while b.units() + 40 < target {
        lines = TextBuf::with_capacity(lines.as_str().len().max(256));
        match lang {
            0 => rust_block(rng, &mut lines, zh),
            1 => ts_block(rng, &mut lines, zh),
            2 => py_block(rng, &mut lines, zh),
            3 => yaml_block(rng, &mut lines),
            _ => md_block(rng, &mut lines, zh),
        }
        if numbered {
            for line in lines.as_str().split_inclusive('\n') {
                b.num_right(line_no, 6);
                b.ascii("\t");
                b.push(line);
                line_no += 1;
            }
        } else {
            b.append(Written {
                text: lines.as_str().to_string(),
                units: lines.units(),
                needles: Vec::new(),
            });
        }
    }
    Draft::output("read_file", Body::Text(b.finish()))
}

fn cap(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for part in s.split('_') {
        let mut ch = part.chars();
        if let Some(f) = ch.next() {
            out.push(f.to_ascii_uppercase());
            out.push_str(ch.as_str());
        }
    }
    out
}

/// A Rust function with its doc comment, written in Chinese with probability `zh` (the scenario's `cjk_share`).
fn rust_block(rng: &mut Stream, b: &mut TextBuf, zh: f64) {
    let zh = cjk::chosen(rng, zh);
    let noun = rng.pick(NOUNS);
    let ty = cap(rng.pick(NOUNS));
    b.ascii("/// ");
    if zh {
        cjk::comment(b, rng);
    } else {
        b.ascii(&cap(&vocab::third_person(rng.pick(VERBS))));
        b.ascii(" the ");
        b.ascii(noun);
        b.ascii(rng.pick(&[
            " before it is posted.",
            " and returns the updated copy.",
            ", skipping entries that were already applied.",
            " for the current tenant.",
        ]));
    }
    b.ascii("\npub fn ");
    vocab::ident(b, rng);
    b.ascii("(&self, ");
    b.ascii(noun);
    b.ascii(": &");
    b.ascii(&ty);
    b.ascii(") -> Result<");
    b.ascii(&ty);
    b.ascii(", Error> {\n    let ");
    b.ascii(noun);
    b.ascii(" = self.");
    vocab::ident(b, rng);
    b.ascii("(");
    b.ascii(noun);
    b.ascii(")?;\n    if ");
    b.ascii(noun);
    b.ascii(".is_empty() {\n        return Err(Error::");
    b.ascii(&ty);
    b.ascii("Missing);\n    }\n");
    if zh {
        b.ascii("    // ");
        cjk::comment(b, rng);
        b.nl();
    }
    b.ascii("    for item in ");
    b.ascii(noun);
    b.ascii(".iter().filter(|i| i.");
    b.ascii(rng.pick(NOUNS));
    b.ascii(" > 0) {\n        self.");
    b.ascii(rng.pick(NOUNS));
    b.ascii("s.push(item.clone());\n    }\n    Ok(");
    b.ascii(noun);
    b.ascii(")\n}\n\n");
}

/// A TypeScript function whose warning message is Chinese with probability `zh`.
fn ts_block(rng: &mut Stream, b: &mut TextBuf, zh: f64) {
    let zh = cjk::chosen(rng, zh);
    let ty = cap(rng.pick(NOUNS));
    b.ascii("export async function ");
    b.ascii(rng.pick(VERBS));
    b.ascii(&ty);
    b.ascii("(id: string, opts: ");
    b.ascii(&ty);
    b.ascii("Options = {}): Promise<");
    b.ascii(&ty);
    b.ascii(" | undefined> {\n  const res = await client.get(`/api/");
    b.ascii(rng.pick(MODULES));
    b.ascii("/${id}`, { signal: opts.signal });\n");
    if zh {
        b.ascii("  // ");
        cjk::comment(b, rng);
        b.nl();
    }
    b.ascii("  if (!res.ok) {\n    logger.warn('");
    if zh {
        cjk::sentence(b, rng, 5);
    } else {
        vocab::sentence(b, rng, 5);
    }
    b.ascii("', { id, status: res.status });\n    return undefined;\n  }\n  return parse");
    b.ascii(&ty);
    b.ascii("(await res.json());\n}\n\n");
}

/// A Python method whose docstring is Chinese with probability `zh`.
fn py_block(rng: &mut Stream, b: &mut TextBuf, zh: f64) {
    let zh = cjk::chosen(rng, zh);
    b.ascii("def ");
    vocab::ident(b, rng);
    b.ascii("(self, ");
    let noun = rng.pick(NOUNS);
    b.ascii(noun);
    b.ascii(", *, strict: bool = False):\n    \"\"\"");
    if zh {
        cjk::comment(b, rng);
    } else {
        b.ascii(&cap(&vocab::third_person(rng.pick(VERBS))));
        b.ascii(" the ");
        b.ascii(noun);
        b.ascii(" entries and returns them sorted.");
    }
    b.ascii("\"\"\"\n    if not ");
    b.ascii(noun);
    b.ascii(":\n        raise ValueError(\"");
    b.ascii(noun);
    b.ascii(" is required\")\n");
    if zh {
        b.ascii("    # ");
        cjk::comment(b, rng);
        b.nl();
    }
    b.ascii("    result = [x for x in ");
    b.ascii(noun);
    b.ascii(" if x.");
    b.ascii(rng.pick(NOUNS));
    b.ascii(" is not None]\n    return sorted(result, key=lambda x: x.");
    b.ascii(rng.pick(NOUNS));
    b.ascii(")\n\n");
}

fn yaml_block(rng: &mut Stream, b: &mut TextBuf) {
    b.ascii(rng.pick(MODULES));
    b.ascii(":\n  enabled: ");
    b.ascii(if rng.below(2) == 0 { "true" } else { "false" });
    b.ascii("\n  ");
    b.ascii(rng.pick(NOUNS));
    b.ascii("_limit: ");
    b.num(rng.range(1, 10_000));
    b.ascii("\n  retry:\n    attempts: ");
    b.num(rng.range(1, 9));
    b.ascii("\n    backoff_ms: ");
    b.num(rng.range(50, 5000));
    b.ascii("\n  endpoints:\n    - https://");
    b.ascii(rng.pick(MODULES));
    b.ascii(".internal.example.dev:");
    b.num(rng.range(3000, 9999));
    b.ascii("\n");
}

/// A block of Markdown documentation, in Chinese with probability `zh`.
fn md_block(rng: &mut Stream, b: &mut TextBuf, zh: f64) {
    if cjk::chosen(rng, zh) {
        cjk::md_block(rng, b);
        return;
    }
    b.ascii("## ");
    b.ascii(&cap(rng.pick(MODULES)));
    b.ascii("\n\n");
    vocab::sentence(b, rng, 18);
    b.ascii(". ");
    vocab::sentence(b, rng, 14);
    b.ascii(".\n\n- `");
    vocab::ident(b, rng);
    b.ascii("`: ");
    vocab::sentence(b, rng, 9);
    b.ascii("\n- `");
    vocab::ident(b, rng);
    b.ascii("`: ");
    vocab::sentence(b, rng, 7);
    b.ascii("\n\n");
}

/// Writes grep/search results of about `target` units, ending with a match count.
pub(crate) fn search(c: &mut Ctx, target: usize) -> Draft {
    let zh = c.knobs.cjk_share;
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 256);
    let needle = format!("{}_{}", rng.pick(VERBS), rng.pick(NOUNS));
    let (mut files, mut matches) = (0u64, 0u64);
    let mut path = TextBuf::with_capacity(64);
    while b.units() + 80 < target {
        path = TextBuf::with_capacity(path.as_str().len().max(32));
        vocab::src_path(&mut path, rng, "src/", ".rs");
        files += 1;
        let mut line = 0;
        for _ in 0..rng.range(1, 6) {
            line += rng.range(1, 400);
            b.ascii(path.as_str());
            b.ascii(":");
            b.num(line);
            b.ascii(":");
            match rng.below(3) {
                0 => {
                    b.ascii("    let total = ");
                    b.ascii(&needle);
                    b.ascii("(&entries, self.");
                    b.ascii(rng.pick(NOUNS));
                    b.ascii(")?;");
                }
                1 => {
                    b.ascii("pub(crate) fn ");
                    b.ascii(&needle);
                    b.ascii("(");
                    b.ascii(rng.pick(NOUNS));
                    b.ascii(": &[Entry]) -> u64 {");
                }
                _ => {
                    b.ascii("        // TODO: ");
                    b.ascii(&needle);
                    b.ascii(" ");
                    if cjk::chosen(rng, zh) {
                        cjk::comment(&mut b, rng);
                    } else {
                        vocab::sentence(&mut b, rng, 6);
                    }
                }
            }
            b.nl();
            matches += 1;
        }
    }
    b.needle_line(NeedleKind::SummaryLine, |b| {
        b.num(matches);
        b.ascii(if matches == 1 {
            " match in "
        } else {
            " matches in "
        });
        b.num(files);
        b.ascii(if files == 1 { " file" } else { " files" });
    });
    Draft::output("search_file_content", Body::Text(b.finish()))
}

/// Writes a directory listing of about `target` units.
pub(crate) fn listing(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let (project, _) = rng.pick(PROJECTS);
    let mut b = TextBuf::with_capacity(target + 128);
    b.ascii("Directory listing for ");
    vocab::project_root(&mut b, project);
    b.ascii("/");
    b.ascii(rng.pick(MODULES));
    b.ascii(":\n");
    while b.units() + 24 < target {
        if rng.below(4) == 0 {
            b.ascii("[DIR] ");
            b.ascii(rng.pick(MODULES));
        } else {
            b.ascii(rng.pick(NOUNS));
            b.ascii("_");
            b.ascii(rng.pick(VERBS));
            b.ascii(rng.pick(&[".rs", ".ts", ".py", ".md", ".json", ".toml", ".snap"]));
        }
        b.nl();
    }
    Draft::output("list_directory", Body::Text(b.finish()))
}

/// Writes a short success message (longer targets list what was done).
pub(crate) fn short_success(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 128);
    let kind = rng.below(5);
    let tool = match kind {
        0 => {
            b.ascii("Successfully wrote ");
            b.num_grouped(rng.range(40, 40_000));
            b.ascii(" bytes to ");
            vocab::src_path(&mut b, rng, "src/", ".rs");
            b.ascii(".");
            "write_file"
        }
        1 => {
            b.ascii("Applied ");
            b.num(rng.range(1, 6));
            b.ascii(" edit(s) to ");
            vocab::src_path(&mut b, rng, "crates/ledger-core/src/", ".rs");
            b.ascii(".");
            "replace"
        }
        2 => {
            b.ascii("Todo list updated: ");
            b.num(rng.below(6));
            b.ascii(" pending, ");
            b.num(rng.below(3));
            b.ascii(" in progress, ");
            b.num(rng.below(12));
            b.ascii(" done.");
            "write_todos"
        }
        3 => {
            b.ascii("Saved to memory: prefers ");
            b.ascii(rng.pick(&["snake_case", "small commits", "British spelling", "tabs"]));
            b.ascii(".");
            "save_memory"
        }
        _ => {
            b.ascii("Created directory ");
            vocab::src_path(&mut b, rng, "", "");
            b.ascii(".");
            "create_directory"
        }
    };
    // Edits list what they changed; the other tools say one line whatever the target.
    while kind <= 1 && b.units() + 30 < target {
        b.ascii("\n- line ");
        b.num(rng.range(1, 900));
        b.ascii(": ");
        vocab::ident(&mut b, rng);
        b.ascii(" updated");
    }
    Draft::output(tool, Body::Text(b.finish()))
}

/// An empty output, an empty error, or both.
pub(crate) fn empty(c: &mut Ctx) -> Draft {
    let tool = c.rng.pick(&[
        "run_shell_command",
        "read_file",
        "mcp__tracker__add_comment",
        "write_todos",
    ]);
    let empty = || Written::plain(String::new());
    match c.rng.below(3) {
        0 => Draft::output(tool, Body::Text(empty())),
        1 => Draft::error(tool, empty()),
        _ => {
            let mut d = Draft::output(tool, Body::Text(empty()));
            d.error = Some(empty());
            d
        }
    }
}

/// An error field with a stack trace of about `target` units; its first line is planted.
pub(crate) fn error_trace(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 256);
    let (tool, style) = rng.pick(&[
        ("read_file", 0),
        ("web_fetch", 0),
        ("run_python", 1),
        ("mcp__warehouse__run_query", 2),
    ]);
    match style {
        0 => {
            b.needle_line(NeedleKind::FirstError, |b| {
                b.ascii("Error: ENOENT: no such file or directory, open '");
                vocab::src_path(b, rng, "/home/dev/work/tallyhouse/src/", ".rs");
                b.ascii("'");
            });
            while b.units() + 60 < target {
                b.ascii("\n    at ");
                b.ascii(&cap(rng.pick(NOUNS)));
                b.ascii("Service.");
                b.ascii(rng.pick(VERBS));
                b.ascii(" (file:///opt/agent/dist/");
                b.ascii(rng.pick(MODULES));
                b.ascii(".js:");
                b.num(rng.range(10, 4000));
                b.ascii(":");
                b.num(rng.range(3, 80));
                b.ascii(")");
            }
        }
        1 => {
            b.ascii("Traceback (most recent call last):");
            while b.units() + 120 < target {
                b.ascii("\n  File \"/srv/jobs/");
                b.ascii(rng.pick(MODULES));
                b.ascii(".py\", line ");
                b.num(rng.range(5, 800));
                b.ascii(", in ");
                vocab::ident(&mut b, rng);
                b.ascii("\n    ");
                vocab::ident(&mut b, rng);
                b.ascii("(payload)");
            }
            b.nl();
            b.needle_line(NeedleKind::FirstError, |b| {
                b.ascii("TimeoutError: query exceeded 30s");
            });
        }
        _ => {
            b.needle_line(NeedleKind::FirstError, |b| {
                b.ascii("ERROR:  canceling statement due to statement timeout");
            });
            b.ascii("\nCONTEXT:  SQL statement in function ");
            vocab::ident(&mut b, rng);
            while b.units() + 60 < target {
                b.ascii("\nPL/pgSQL function ");
                vocab::ident(&mut b, rng);
                b.ascii("(bigint) line ");
                b.num(rng.range(2, 300));
                b.ascii(" at PERFORM");
            }
        }
    }
    Draft::error(tool, b.finish())
}

/// A synthetic, skipped or cancelled response: a short error text.
pub(crate) fn cancelled(c: &mut Ctx) -> Draft {
    let tool = c.rng.pick(&[
        "run_shell_command",
        "replace",
        "web_fetch",
        "mcp__tracker__list_issues",
    ]);
    let (text, status) = c.rng.pick(&[
        ("Tool call cancelled by the user.", "cancelled"),
        (
            "Skipped: an earlier call in this turn failed, so this one was not run.",
            "skipped",
        ),
        (
            "Not executed: the turn was interrupted before this call started.",
            "cancelled",
        ),
        (
            "Blocked by hook 'no-network': outbound requests are disabled for this workspace.",
            "synthetic",
        ),
        (
            "Cancelled: the user rejected the proposed change.",
            "cancelled",
        ),
        ("", "cancelled"),
    ]);
    let mut draft = Draft::error(tool, Written::plain(text.to_string()));
    draft.status = Some(status);
    draft
}

/// A media response: a short output plus an inlineData part with `bytes` of base64, or a fileData part.
pub(crate) fn media(c: &mut Ctx, bytes: usize) -> Draft {
    let rng = &mut c.rng;
    let name = format!("{}_{}", rng.pick(NOUNS), rng.below(100));
    let mut map = Map::new();
    let output = if rng.below(4) == 0 {
        let mut fd = Map::new();
        fd.insert("mimeType".into(), Value::String("application/pdf".into()));
        fd.insert(
            "fileUri".into(),
            Value::String(format!("file:///home/dev/work/tallyhouse/docs/{name}.pdf")),
        );
        map.insert("fileData".into(), Value::Object(fd));
        format!("Attached docs/{name}.pdf (application/pdf).")
    } else {
        let png = rng.below(2) == 0;
        let mut id = Map::new();
        id.insert(
            "mimeType".into(),
            Value::String(if png { "image/png" } else { "image/jpeg" }.into()),
        );
        id.insert("data".into(), Value::String(base64(rng, bytes, png)));
        map.insert("inlineData".into(), Value::Object(id));
        format!(
            "Read image file: assets/{name}.{} ({} bytes).",
            if png { "png" } else { "jpg" },
            bytes / 4 * 3
        )
    };
    let mut d = Draft::output("read_file", Body::Text(Written::plain(output)));
    d.media.push(Part(map));
    d
}

/// `len` (rounded down to a multiple of 4) characters of base64 of random bytes, starting like a PNG or JPEG.
fn base64(rng: &mut Stream, len: usize, png: bool) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let groups = (len / 4).max(1);
    let mut raw = vec![0u8; groups * 3];
    rng.fill_bytes(&mut raw);
    let magic: &[u8] = if png {
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"
    } else {
        b"\xff\xd8\xff\xe0\0\x10JFIF\0"
    };
    let n = magic.len().min(raw.len());
    raw[..n].copy_from_slice(&magic[..n]);
    let mut out = Vec::with_capacity(groups * 4);
    for chunk in raw.chunks_exact(3) {
        let v = (u32::from(chunk[0]) << 16) | (u32::from(chunk[1]) << 8) | u32::from(chunk[2]);
        for shift in [18, 12, 6, 0] {
            out.push(ALPHABET[((v >> shift) & 63) as usize]);
        }
    }
    String::from_utf8(out).expect("base64 is ascii")
}

/// A top-level hook-context text part of about `target` units.
pub(crate) fn hook_text(rng: &mut Stream, target: usize) -> Written {
    let mut b = TextBuf::with_capacity(target + 128);
    let hook = rng.pick(&[
        "lint-on-save",
        "test-impact",
        "policy-reminder",
        "format-check",
    ]);
    b.ascii("<hook-context hook=\"");
    b.ascii(hook);
    b.ascii("\" event=\"PostToolUse\">\n");
    while b.units() + 40 < target {
        match rng.below(3) {
            0 => {
                b.ascii("eslint: ");
                b.num(rng.below(4));
                b.ascii(" problems (0 errors) in web/src/");
                b.ascii(&cap(rng.pick(NOUNS)));
                b.ascii("View.tsx\n");
            }
            1 => {
                b.ascii("Affected tests: ");
                vocab::test_path(&mut b, rng);
                b.nl();
            }
            _ => {
                b.ascii("Reminder: ");
                vocab::sentence(&mut b, rng, 9);
                b.ascii(".\n");
            }
        }
    }
    b.ascii("</hook-context>");
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_ctx;

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
                    file_read(&mut c, target),
                    search(&mut c, target),
                    listing(&mut c, target),
                    error_trace(&mut c, target),
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
    fn media_parts_carry_valid_base64() {
        let mut c = test_ctx(22);
        for _ in 0..20 {
            let d = media(&mut c, 1_000);
            assert_eq!(d.media.len(), 1);
            let part = &d.media[0];
            assert!(part.is_media());
            if let Some(data) = part
                .0
                .get("inlineData")
                .and_then(|v| v.get("data"))
                .and_then(|v| v.as_str())
            {
                assert_eq!(data.len(), 1_000);
                assert!(
                    data.starts_with("iVBORw0KGgo") || data.starts_with("/9j/4"),
                    "{}",
                    &data[..12]
                );
            }
        }
    }

    #[test]
    fn empty_kind_has_empty_strings() {
        let mut c = test_ctx(23);
        for _ in 0..20 {
            let d = empty(&mut c);
            let texts: Vec<&str> = d
                .error
                .iter()
                .map(|w| w.text.as_str())
                .chain(match &d.output {
                    Some(Body::Text(w)) => Some(w.text.as_str()),
                    _ => None,
                })
                .collect();
            assert!(!texts.is_empty() && texts.iter().all(|t| t.is_empty()));
        }
    }
}
