//! Cargo logs: `cargo build` (compiling lines, progress, warnings and errors with their source snippets) and
//! `cargo test` (test results, failures with their panics, the `test result:` summary).

use super::{dependency, header, paint, Exit, DEPENDENCIES};
use crate::generate::buf::{Mark, TextBuf};
use crate::generate::vocab::{self, MODULES, NOUNS, PROJECTS, VERBS};
use crate::needles::NeedleKind;
use crate::rng::Stream;

fn compiling_line(b: &mut TextBuf, color: bool, i: u64) {
    paint(b, color, "1;32", "   Compiling");
    b.ascii(" ");
    dependency(b, i);
    b.nl();
}

fn progress_line(rng: &mut Stream, b: &mut TextBuf, color: bool, done: u64, total: u64) {
    paint(b, color, "1;36", "    Building");
    b.ascii(" [");
    let filled = (done * 25 / total.max(1)) as usize;
    b.repeat_byte(b'=', filled);
    b.ascii(">");
    b.repeat_byte(b' ', 25 - filled.min(25));
    b.ascii("] ");
    b.num(done);
    b.ascii("/");
    b.num(total);
    b.ascii(": ");
    for i in 0..3 {
        if i > 0 {
            b.ascii(", ");
        }
        b.ascii(rng.pick(DEPENDENCIES));
    }
    // A terminal progress bar: the next line overwrites it.
    b.ascii("\r");
}

/// A rustc location: `  --> <crate>/src/<file>.rs:LINE:COL` and the empty gutter line under it, indented to the
/// width of `line` as rustc does.
fn location(b: &mut TextBuf, rng: &mut Stream, krate_dir: &str, line: u64, col: u64) {
    let width = crate::generate::buf::decimal_len(line);
    b.repeat_byte(b' ', width);
    b.ascii("--> ");
    b.ascii(krate_dir);
    vocab::src_path(b, rng, "/src/", ".rs");
    b.ascii(":");
    b.num(line);
    b.ascii(":");
    b.num(col);
    b.nl();
    b.repeat_byte(b' ', width + 1);
    b.ascii("|\n");
}

fn rust_warning(rng: &mut Stream, b: &mut TextBuf, color: bool, krate_dir: &str) {
    let line = rng.range(12, 900);
    let col = rng.range(5, 40);
    let width = crate::generate::buf::decimal_len(line);
    let gutter = |b: &mut TextBuf| b.repeat_byte(b' ', width + 1);
    match rng.below(3) {
        0 => {
            let mark = b.mark();
            paint(b, color, "1;33", "warning");
            b.ascii(": unused variable: `");
            vocab::ident(b, rng);
            let name = tail_ident(b, mark);
            b.ascii("`\n");
            location(b, rng, krate_dir, line, col);
            b.num(line);
            b.ascii(" |         let ");
            b.ascii(&name);
            b.ascii(" = self.");
            vocab::ident(b, rng);
            b.ascii("()?;\n");
            gutter(b);
            b.ascii("|             ");
            b.repeat_byte(b'^', name.len());
            b.ascii(" help: if this is intentional, prefix it with an underscore: `_");
            b.ascii(&name);
            b.ascii("`\n");
            gutter(b);
            b.ascii("|\n");
            gutter(b);
            b.ascii("= note: `#[warn(unused_variables)]` on by default\n\n");
        }
        1 => {
            paint(b, color, "1;33", "warning");
            b.ascii(": unused import: `crate::");
            b.ascii(rng.pick(MODULES));
            b.ascii("::");
            let noun = rng.pick(NOUNS);
            b.ascii(&vocab::pascal_case(noun));
            b.ascii("`\n");
            location(b, rng, krate_dir, line, 5);
            b.num(line);
            b.ascii(" | use crate::");
            b.ascii(rng.pick(MODULES));
            b.ascii("::");
            b.ascii(&vocab::pascal_case(noun));
            b.ascii(";\n");
            gutter(b);
            b.ascii("|     ");
            b.repeat_byte(b'^', 14 + noun.len());
            b.ascii("\n\n");
        }
        _ => {
            paint(b, color, "1;33", "warning");
            b.ascii(": field `");
            b.ascii(rng.pick(NOUNS));
            b.ascii("_count` is never read\n");
            location(b, rng, krate_dir, line, 5);
            b.num(line.saturating_sub(3));
            b.ascii(" | pub struct ");
            b.ascii(&vocab::pascal_case(rng.pick(NOUNS)));
            b.ascii("Stats {\n");
            gutter(b);
            b.ascii("|            ---------- field in this struct\n");
            gutter(b);
            b.ascii("= note: `#[warn(dead_code)]` on by default\n\n");
        }
    }
}

/// The identifier written at the end of the buffer since `mark` (after the last backtick).
fn tail_ident(b: &TextBuf, mark: Mark) -> String {
    let s = b.since(mark);
    s.rsplit('`').next().unwrap_or("").to_string()
}

fn rust_error(rng: &mut Stream, b: &mut TextBuf, color: bool, krate_dir: &str, first: bool) {
    let line = rng.range(40, 1200);
    let width = crate::generate::buf::decimal_len(line);
    let gutter = |b: &mut TextBuf| b.repeat_byte(b' ', width + 1);
    let code = rng.below(3);
    let mark = b.mark();
    match code {
        0 => {
            paint(b, color, "1;31", "error[E0308]");
            b.ascii(": mismatched types");
        }
        1 => {
            paint(b, color, "1;31", "error[E0599]");
            b.ascii(": no method named `");
        }
        _ => {
            paint(b, color, "1;31", "error[E0425]");
            b.ascii(": cannot find value `");
        }
    }
    let name = format!("{}_{}", rng.pick(VERBS), rng.pick(NOUNS));
    if code != 0 {
        b.ascii(&name);
        b.ascii(if code == 1 {
            "` found for reference `&Journal` in the current scope"
        } else {
            "` in this scope"
        });
    }
    if first {
        b.plant(NeedleKind::FirstError, mark);
    }
    b.nl();
    location(b, rng, krate_dir, line, 27);
    b.num(line);
    match code {
        0 => {
            b.ascii(" |         let amount: i64 = entry.amount_cents();\n");
            gutter(b);
            b.ascii(
                "|                     ---   ^^^^^^^^^^^^^^^^^^^^ expected `i64`, found `u64`\n",
            );
            gutter(b);
            b.ascii("|                     |\n");
            gutter(b);
            b.ascii("|                     expected due to this\n");
            gutter(b);
            b.ascii("|\n");
            paint(b, color, "1;36", "help");
            b.ascii(": you can convert a `u64` to an `i64` and panic if the converted value doesn't fit\n");
            gutter(b);
            b.ascii("|\n");
            b.num(line);
            b.ascii(" |         let amount: i64 = entry.amount_cents().try_into().unwrap();\n");
            gutter(b);
            b.ascii("|                                               ++++++++++++++++++++\n\n");
        }
        1 => {
            b.ascii(" |         let total = journal.");
            b.ascii(&name);
            b.ascii("(&batch)?;\n");
            gutter(b);
            b.ascii("|                             ");
            b.repeat_byte(b'^', name.len());
            b.ascii(" method not found in `&Journal`\n");
            gutter(b);
            b.ascii("|\n");
            gutter(b);
            b.ascii("= help: items from traits can only be used if the trait is in scope\n\n");
        }
        _ => {
            b.ascii(" |     if ");
            b.ascii(&name);
            b.ascii(" > limit {\n");
            gutter(b);
            b.ascii("|        ");
            b.repeat_byte(b'^', name.len());
            b.ascii(" not found in this scope\n\n");
        }
    }
}

pub(super) fn build(rng: &mut Stream, b: &mut TextBuf, target: usize, color: bool) -> Exit {
    let (project, krate) = rng.pick(PROJECTS);
    let release = rng.chance(0.3);
    header(
        b,
        if release {
            "cargo build --release --workspace"
        } else {
            "cargo build --workspace"
        },
        None,
    );
    let fail = rng.chance(0.5);
    let krate_dir = format!("crates/{krate}");
    let reserve = if fail { 1500 } else { 300 };
    let room = target.saturating_sub(reserve + b.units());
    // About a third of the room goes to compiling dependencies (with progress lines), the rest to warnings.
    let deps_until = b.units() + room * (20 + rng.index(30)) / 100;
    let total = rng.range(180, 640);
    let first = rng.below(DEPENDENCIES.len() as u64);
    let mut done = 0;
    while b.units() < deps_until {
        compiling_line(b, color, first + done);
        done += 1;
        if done % 7 == 0 {
            progress_line(rng, b, color, done.min(total), total);
        }
    }
    paint(b, color, "1;32", "   Compiling");
    b.ascii(" ");
    b.ascii(krate);
    b.ascii(" v0.4.2 (");
    vocab::project_root(b, project);
    b.ascii("/");
    b.ascii(&krate_dir);
    b.ascii(")\n");
    let mut warnings = 0;
    while b.units() + reserve < target {
        let mark = b.mark();
        rust_warning(rng, b, color, &krate_dir);
        warnings += 1;
        // Generic code warns once per instantiation: a repeated section.
        if rng.chance(0.15) && b.units() + 4 * (b.units() - mark.units()) + reserve < target {
            let times = 1 + rng.index(3);
            b.repeat_since(mark, times);
            warnings += times;
        }
    }
    if fail {
        let errors = 1 + rng.below(2);
        for i in 0..errors {
            rust_error(rng, b, color, &krate_dir, i == 0);
        }
        b.ascii("Some errors have detailed explanations: E0308, E0425, E0599.\n");
        b.ascii("For more information about an error, try `rustc --explain E0308`.\n");
        if warnings > 0 {
            paint(b, color, "1;33", "warning");
            b.ascii(": `");
            b.ascii(krate);
            b.ascii("` (lib) generated ");
            b.num(warnings as u64);
            b.ascii(" warnings\n");
        }
        let mark = b.mark();
        paint(b, color, "1;31", "error");
        b.ascii(": could not compile `");
        b.ascii(krate);
        b.ascii("` (lib) due to ");
        b.num(errors);
        b.ascii(if errors == 1 {
            " previous error"
        } else {
            " previous errors"
        });
        if warnings > 0 {
            b.ascii("; ");
            b.num(warnings as u64);
            b.ascii(" warnings emitted");
        }
        b.plant(NeedleKind::SummaryLine, mark);
        b.nl();
        Exit(101, None)
    } else {
        if warnings > 0 {
            paint(b, color, "1;33", "warning");
            b.ascii(": `");
            b.ascii(krate);
            b.ascii("` (lib) generated ");
            b.num(warnings as u64);
            b.ascii(" warnings (run `cargo fix --lib -p ");
            b.ascii(krate);
            b.ascii("` to apply suggestions)\n");
        }
        let mark = b.mark();
        paint(b, color, "1;32", "    Finished");
        b.ascii(if release {
            " `release` profile [optimized] target(s) in "
        } else {
            " `dev` profile [unoptimized + debuginfo] target(s) in "
        });
        duration(rng, b);
        b.plant(NeedleKind::SummaryLine, mark);
        b.nl();
        Exit(0, None)
    }
}

fn duration(rng: &mut Stream, b: &mut TextBuf) {
    let secs = rng.range(2, 400);
    if secs >= 60 {
        b.num(secs / 60);
        b.ascii("m ");
        b.num(secs % 60);
        b.ascii("s");
    } else {
        b.fixed(secs * 100 + rng.below(100), 2);
        b.ascii("s");
    }
}

pub(super) fn test(rng: &mut Stream, b: &mut TextBuf, target: usize, color: bool) -> Exit {
    let (_, krate) = rng.pick(PROJECTS);
    header(b, "cargo test --workspace", None);
    let first = rng.below(DEPENDENCIES.len() as u64);
    for i in 0..rng.range(2, 6) {
        compiling_line(b, color, first + i);
    }
    paint(b, color, "1;32", "    Finished");
    b.ascii(" `test` profile [unoptimized + debuginfo] target(s) in ");
    duration(rng, b);
    b.nl();
    paint(b, color, "1;32", "     Running");
    b.ascii(" unittests src/lib.rs (target/debug/deps/");
    b.ascii(&krate.replace('-', "_"));
    b.ascii("-");
    vocab::hex_id(b, rng, 16);
    b.ascii(")\n\n");
    let fail = rng.chance(0.45);
    let failures = if fail { 1 + rng.below(3) as usize } else { 0 };
    let reserve = 420 + failures * 520;
    let mut lines = TextBuf::with_capacity(target);
    let mut failed_names: Vec<String> = Vec::new();
    let mut count = 0u64;
    let mut ignored = 0u64;
    let fail_every = ((target / 60).max(4) as u64 / (failures as u64 + 1)).max(2);
    while b.units() + lines.units() + reserve < target || count == 0 {
        let mark = lines.mark();
        lines.ascii("test ");
        vocab::test_path(&mut lines, rng);
        let name = lines.since(mark)[5..].to_string();
        lines.ascii(" ... ");
        count += 1;
        if failed_names.len() < failures && count.is_multiple_of(fail_every) {
            paint(&mut lines, color, "31", "FAILED");
            failed_names.push(name);
        } else if rng.below(40) == 0 {
            paint(&mut lines, color, "33", "ignored");
            ignored += 1;
        } else {
            paint(&mut lines, color, "32", "ok");
        }
        lines.nl();
    }
    b.ascii("running ");
    b.num(count);
    b.ascii(" tests\n");
    b.append(lines.finish());
    b.nl();
    if !failed_names.is_empty() {
        b.ascii("failures:\n\n");
        for (i, name) in failed_names.iter().enumerate() {
            b.ascii("---- ");
            b.ascii(name);
            b.ascii(" stdout ----\n\n");
            let mark = b.mark();
            b.ascii("thread '");
            b.ascii(name);
            b.ascii("' panicked at crates/");
            b.ascii(krate);
            vocab::src_path(b, rng, "/src/", ".rs");
            b.ascii(":");
            b.num(rng.range(20, 900));
            b.ascii(":9:");
            if i == 0 {
                b.plant(NeedleKind::FirstError, mark);
            }
            b.ascii("\nassertion `left == right` failed: ");
            vocab::sentence(b, rng, 5);
            b.ascii("\n  left: ");
            b.num(rng.below(5000));
            b.ascii("\n right: ");
            b.num(rng.below(5000));
            b.ascii("\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n");
        }
        b.ascii("\nfailures:\n");
        for name in &failed_names {
            b.ascii("    ");
            b.ascii(name);
            b.nl();
        }
        b.nl();
    }
    let failed = failed_names.len() as u64;
    let mark = b.mark();
    b.ascii("test result: ");
    if failed > 0 {
        paint(b, color, "31", "FAILED");
    } else {
        paint(b, color, "32", "ok");
    }
    b.ascii(". ");
    b.num(count - failed - ignored);
    b.ascii(" passed; ");
    b.num(failed);
    b.ascii(" failed; ");
    b.num(ignored);
    b.ascii(" ignored; 0 measured; 0 filtered out; finished in ");
    b.fixed(rng.range(1, 4000), 2);
    b.ascii("s");
    b.plant(NeedleKind::SummaryLine, mark);
    b.ascii("\n\n");
    if failed > 0 {
        paint(b, color, "1;31", "error");
        b.ascii(": test failed, to rerun pass `-p ");
        b.ascii(krate);
        b.ascii(" --lib`\n");
        Exit(101, None)
    } else {
        Exit(0, None)
    }
}
