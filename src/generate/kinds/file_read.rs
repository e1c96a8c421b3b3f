//! File reads: source code (Rust, TypeScript, Python), YAML configuration and Markdown documentation, sometimes
//! with line numbers; comments, docstrings and documentation are written in Chinese at the scenario's
//! `cjk_share`. At the scenario's `file_view_share` a read is a windowed file view instead, as agents that page
//! through files get: a `[File: PATH (N lines total)]` header, maybe `(N more lines above)`, numbered lines and
//! a closing `(N more lines below)` marker ([`window`], which the edit kind's views share).

use super::Writers;
use crate::generate::buf::{TextBuf, Written};
use crate::generate::cjk;
use crate::generate::vocab::{self, MODULES, NOUNS, VERBS};
use crate::generate::{Body, Ctx, Draft};
use crate::rng::Stream;

/// The file extension of each language [`block`] writes, by its number.
const EXTENSIONS: [&str; 5] = [".rs", ".ts", ".py", ".yaml", ".md"];

/// How this kind's outputs are written: [`write`] and, below the scenario's `short_units`, [`short`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: Some(short),
};

/// Writes a file read of about `target` units.
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    // No draw at all when the share is zero, so scenarios without views read files as they always did.
    if c.knobs.file_view_share > 0.0 && c.rng.chance(c.knobs.file_view_share) {
        return Draft::output("read_file", Body::Text(window(c, target, "")));
    }
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
        block(rng, &mut lines, lang, zh);
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

/// A few settings of a config file.
fn short(c: &mut Ctx, target: usize) -> Draft {
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

/// One block of a file in language `lang` (0 Rust, 1 TypeScript, 2 Python, 3 YAML, 4 Markdown).
pub(super) fn block(rng: &mut Stream, b: &mut TextBuf, lang: u64, zh: f64) {
    match lang {
        0 => rust_block(rng, b, zh),
        1 => ts_block(rng, b, zh),
        2 => py_block(rng, b, zh),
        3 => yaml_block(rng, b),
        _ => md_block(rng, b, zh),
    }
}

/// A windowed view of about `target` units of a file: the `[File: ...]` header, `(N more lines above)` when the
/// window does not start at line 1, the window's lines numbered `N:`, the `(N more lines below)` marker, and
/// `closing` (an edit's notice) after it on its own line when not empty.
pub(super) fn window(c: &mut Ctx, target: usize, closing: &str) -> Written {
    let zh = c.knobs.cjk_share;
    let rng = &mut c.rng;
    let lang = rng.below(5);
    let above = if rng.chance(0.5) {
        0
    } else {
        rng.range(1, 900)
    };
    let below = rng.range(1, 1_200);
    let mut path = TextBuf::with_capacity(64);
    path.ascii("/repo/");
    vocab::src_path(&mut path, rng, "src/", EXTENSIONS[lang as usize]);
    // What is around the lines: the header (about 30 units past the path), the markers and the closing.
    let frame = path.units() + 80 + closing.len();
    let mut lines = TextBuf::with_capacity(target + 256);
    let mut block_buf = TextBuf::with_capacity(512);
    let mut line_no = above + 1;
    while lines.units() == 0 || frame + lines.units() + 40 < target {
        block_buf = TextBuf::with_capacity(block_buf.as_str().len().max(256));
        block(rng, &mut block_buf, lang, zh);
        for line in block_buf.as_str().split_inclusive('\n') {
            lines.num(line_no);
            lines.ascii(":");
            lines.push(line);
            line_no += 1;
        }
    }
    let shown = line_no - 1 - above;
    let mut b = TextBuf::with_capacity(lines.as_str().len() + frame + 64);
    b.ascii("[File: ");
    b.push(path.as_str());
    b.ascii(" (");
    b.num(above + shown + below);
    b.ascii(" lines total)]\n");
    if above > 0 {
        b.ascii("(");
        b.num(above);
        b.ascii(" more lines above)\n");
    }
    b.append(lines.finish());
    b.ascii("(");
    b.num(below);
    b.ascii(" more lines below)");
    if !closing.is_empty() {
        b.nl();
        b.push(closing);
    }
    b.finish()
}

/// A Rust function with its doc comment, written in Chinese with probability `zh` (the scenario's `cjk_share`).
fn rust_block(rng: &mut Stream, b: &mut TextBuf, zh: f64) {
    let zh = cjk::chosen(rng, zh);
    let noun = rng.pick(NOUNS);
    let ty = vocab::pascal_case(rng.pick(NOUNS));
    b.ascii("/// ");
    if zh {
        cjk::comment(b, rng);
    } else {
        b.ascii(&vocab::pascal_case(&vocab::third_person(rng.pick(VERBS))));
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
    let ty = vocab::pascal_case(rng.pick(NOUNS));
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
        b.ascii(&vocab::pascal_case(&vocab::third_person(rng.pick(VERBS))));
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
    b.ascii(&vocab::pascal_case(rng.pick(MODULES)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_ctx;

    #[test]
    fn a_window_is_numbered_and_ends_with_its_marker() {
        let mut c = test_ctx(31);
        for target in [400usize, 3_904, 40_000] {
            for _ in 0..20 {
                let w = window(&mut c, target, "");
                assert_eq!(w.units, w.text.encode_utf16().count());
                assert!(w.needles.is_empty());
                let lines: Vec<&str> = w.text.lines().collect();
                let total: u64 = lines[0]
                    .strip_prefix("[File: /repo/src/")
                    .and_then(|l| l.rsplit_once(" ("))
                    .and_then(|(_, n)| n.strip_suffix(" lines total)]"))
                    .unwrap()
                    .parse()
                    .unwrap();
                let last = lines.last().unwrap();
                let below: u64 = last
                    .strip_prefix('(')
                    .and_then(|l| l.strip_suffix(" more lines below)"))
                    .unwrap()
                    .parse()
                    .unwrap();
                let (above, first) = match lines[1].strip_suffix(" more lines above)") {
                    Some(n) => (n[1..].parse::<u64>().unwrap(), 2),
                    None => (0, 1),
                };
                let numbered = &lines[first..lines.len() - 1];
                for (i, line) in numbered.iter().enumerate() {
                    let n = format!("{}:", above + 1 + i as u64);
                    assert!(line.starts_with(&n), "{line:?} is not line {n}");
                }
                assert_eq!(above + numbered.len() as u64 + below, total);
                assert!(
                    w.units + 700 >= target && w.units <= target + 700,
                    "target {target}: {}",
                    w.units
                );
            }
        }
        let w = window(&mut c, 2_000, "File updated.");
        assert!(w.text.ends_with(" more lines below)\nFile updated."));
    }
}
