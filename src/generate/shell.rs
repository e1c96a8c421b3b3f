//! Shell command outputs: cargo build and test, npm and pnpm installs, pytest, cmake/make, git log and diff, and
//! the many short commands of a real session. Logs carry progress lines, repeated sections, optional ANSI
//! colours, and end with the exit information (`Exit Code: 101`) and, where the tool prints one, a summary line;
//! the first error line, the summary line and the exit line are planted as needles.

use super::buf::{Mark, TextBuf};
use super::needles::NeedleKind;
use super::vocab::{self, MODULES, NOUNS, PEOPLE, PROJECTS, VERBS};
use super::{Body, Ctx, Draft};
use crate::rng::Stream;

/// The tool name shell outputs are recorded under.
pub(crate) const TOOL: &str = "run_shell_command";

/// Below this target a command is one of the short ones (status, listings, one-liners).
const SMALL: usize = 900;

/// Writes one shell output of about `target` UTF-16 units.
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    let color = c.rng.chance(c.knobs.ansi_rate);
    let mut b = TextBuf::with_capacity(target + 512);
    // A Chinese share makes some outputs an application's log with Chinese messages, of any size (no draw at all
    // when the share is zero).
    let exit = if super::cjk::chosen(&mut c.rng, c.knobs.cjk_share / 2.0) {
        super::cjk::app_log(&mut c.rng, &mut b, target)
    } else if target < SMALL {
        small(&mut c.rng, &mut b, target)
    } else if super::cjk::chosen(&mut c.rng, c.knobs.cjk_share) {
        super::cjk::app_log(&mut c.rng, &mut b, target)
    } else {
        match c.rng.weighted(&[3.0, 3.0, 1.5, 1.0, 2.0, 1.2, 1.0, 1.0]) {
            0 => cargo_build(&mut c.rng, &mut b, target, color),
            1 => cargo_test(&mut c.rng, &mut b, target, color),
            2 => npm_install(&mut c.rng, &mut b, target, color),
            3 => pnpm_install(&mut c.rng, &mut b, target),
            4 => pytest(&mut c.rng, &mut b, target, color),
            5 => cmake_make(&mut c.rng, &mut b, target),
            6 => git_log(&mut c.rng, &mut b, target),
            _ => git_diff(&mut c.rng, &mut b, target, color),
        }
    };
    exit_info(&mut b, exit);
    Draft::output(TOOL, Body::Text(b.finish()))
}

/// Writes the closing exit line as a needle.
pub(crate) fn exit_info(b: &mut TextBuf, exit: Exit) {
    b.needle_line(NeedleKind::ExitInfo, |b| {
        b.ascii("Exit Code: ");
        b.num(u64::from(exit.0));
        if let Some(signal) = exit.1 {
            b.ascii(" (");
            b.ascii(signal);
            b.ascii(")");
        }
    });
}

/// An exit status and, for a killed process, the signal.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exit(pub u8, pub Option<&'static str>);

fn header(b: &mut TextBuf, command: &str, dir: Option<&str>) {
    b.ascii("Command: ");
    b.ascii(command);
    b.nl();
    if let Some(dir) = dir {
        b.ascii("Directory: ");
        b.ascii(dir);
        b.nl();
    }
    b.ascii("Output:\n");
}

/// Writes `n` copies of `byte` as one ANSI-styled run when `color` is set.
fn paint_run(b: &mut TextBuf, color: bool, style: &str, byte: u8, n: usize) {
    if n == 0 {
        return;
    }
    if color {
        b.ascii("\x1b[");
        b.ascii(style);
        b.ascii("m");
    }
    b.repeat_byte(byte, n);
    if color {
        b.ascii("\x1b[0m");
    }
}

/// Writes `text` in an ANSI style when `color` is set.
#[inline]
fn paint(b: &mut TextBuf, color: bool, style: &str, text: &str) {
    if color {
        b.ascii("\x1b[");
        b.ascii(style);
        b.ascii("m");
        b.ascii(text);
        b.ascii("\x1b[0m");
    } else {
        b.ascii(text);
    }
}

const DEPENDENCIES: &[&str] = &[
    "proc-macro2",
    "unicode-ident",
    "quote",
    "syn",
    "libc",
    "cfg-if",
    "memchr",
    "serde",
    "serde_derive",
    "serde_json",
    "itoa",
    "ryu",
    "once_cell",
    "log",
    "bytes",
    "pin-project-lite",
    "futures-core",
    "futures-util",
    "tokio",
    "mio",
    "socket2",
    "smallvec",
    "parking_lot",
    "hashbrown",
    "indexmap",
    "aho-corasick",
    "regex-syntax",
    "regex",
    "tracing-core",
    "tracing",
    "http",
    "httparse",
    "hyper",
    "base64",
    "percent-encoding",
    "url",
    "thiserror",
    "anyhow",
    "either",
    "num-traits",
    "time",
    "uuid",
    "crossbeam-utils",
    "rayon-core",
    "rustls",
    "ring",
    "clap_lex",
    "clap_builder",
    "clap",
    "tinyvec",
    "zerocopy",
    "getrandom",
];

fn small(rng: &mut Stream, b: &mut TextBuf, target: usize) -> Exit {
    let (project, _) = rng.pick(PROJECTS);
    match rng.below(6) {
        0 => {
            header(b, "git status --short", None);
            while b.units() + 40 < target {
                let r = rng.next_u32();
                b.ascii([" M ", "M  ", "?? ", " D ", "A  "][(r % 5) as usize]);
                vocab::src_path(b, rng, "src/", ".rs");
                b.nl();
            }
            Exit(0, None)
        }
        1 => {
            header(b, "ls -la", Some("crates"));
            b.ascii("total ");
            b.num(rng.range(8, 96));
            b.nl();
            while b.units() + 70 < target {
                let r = rng.next_u64();
                b.ascii(if r & 1 == 0 {
                    "drwxr-xr-x  "
                } else {
                    "-rw-r--r--  "
                });
                b.num(1 + (r >> 1) % 9);
                b.ascii(" dev dev ");
                b.num_right((r >> 8) % 40_000, 6);
                b.ascii(" ");
                b.ascii(vocab::MONTHS[((r >> 24) % 12) as usize]);
                b.ascii(" ");
                b.num_right(1 + (r >> 28) % 28, 2);
                b.ascii(" ");
                b.num_pad((r >> 33) % 24, 2);
                b.ascii(":");
                b.num_pad((r >> 38) % 60, 2);
                b.ascii(" ");
                b.ascii(MODULES[((r >> 44) % MODULES.len() as u64) as usize]);
                if r & 1 == 1 {
                    b.ascii(".rs");
                }
                b.nl();
            }
            Exit(0, None)
        }
        2 => {
            header(b, "cargo fmt --all -- --check", None);
            let mut wrote = false;
            while b.units() + 160 < target {
                b.ascii("Diff in ");
                vocab::project_root(b, project);
                b.ascii("/");
                vocab::src_path(b, rng, "src/", ".rs");
                b.ascii(":");
                b.num(rng.range(3, 400));
                b.ascii(":\n-    let ");
                vocab::ident(b, rng);
                b.ascii(" = self.inner.lock().unwrap().len();\n+    let len =\n+        self.inner.lock().unwrap().len();\n");
                wrote = true;
            }
            Exit(u8::from(wrote), None)
        }
        3 => {
            header(b, "python3 scripts/check_rates.py --date 2025-03-04", None);
            b.ascii("Traceback (most recent call last):\n");
            while b.units() + 200 < target {
                b.ascii("  File \"");
                vocab::project_root(b, project);
                b.ascii("/scripts/");
                b.ascii(rng.pick(MODULES));
                b.ascii(".py\", line ");
                b.num(rng.range(4, 300));
                b.ascii(", in ");
                vocab::ident(b, rng);
                b.ascii("\n    return ");
                vocab::ident(b, rng);
                b.ascii("(rows, strict=True)\n");
            }
            b.needle_line(NeedleKind::FirstError, |b| {
                b.ascii("KeyError: 'EUR'");
            });
            b.nl();
            Exit(1, None)
        }
        4 => {
            let cmd = [
                "mkdir -p build/out",
                "cp .env.example .env",
                "touch notes/todo.md",
            ];
            header(b, rng.pick(&cmd), None);
            b.ascii("(no output)\n");
            Exit(0, None)
        }
        _ => {
            header(b, "wc -l src/**/*.rs", Some(project));
            let mut total = 0;
            while b.units() + 60 < target {
                let n = rng.range(12, 1400);
                total += n;
                b.num_right(n, 6);
                b.ascii(" ");
                vocab::src_path(b, rng, "src/", ".rs");
                b.nl();
            }
            b.needle_line(NeedleKind::SummaryLine, |b| {
                b.num_right(total, 6);
                b.ascii(" total");
            });
            b.nl();
            Exit(0, None)
        }
    }
}

const DEP_SUFFIXES: &[&str] = &[
    "", "-core", "-macros", "-impl", "-sys", "-util", "_derive", "-types",
];

/// Writes dependency number `i` of a build as `name vX.Y.Z`: the same `i` always names the same crate and
/// version, and successive numbers name distinct crates.
fn dependency(b: &mut TextBuf, i: u64) {
    let n = DEPENDENCIES.len() as u64;
    let wrapped = i % (n * DEP_SUFFIXES.len() as u64);
    b.ascii(DEPENDENCIES[(wrapped % n) as usize]);
    b.ascii(DEP_SUFFIXES[(wrapped / n) as usize]);
    let h = wrapped.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
    b.ascii(" v");
    b.num(h % 3);
    b.ascii(".");
    b.num((h >> 4) % 40);
    b.ascii(".");
    b.num((h >> 12) % 25);
}

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
    let width = super::buf::decimal_len(line);
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
    let width = super::buf::decimal_len(line);
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
            b.ascii(&capitalize(noun));
            b.ascii("`\n");
            location(b, rng, krate_dir, line, 5);
            b.num(line);
            b.ascii(" | use crate::");
            b.ascii(rng.pick(MODULES));
            b.ascii("::");
            b.ascii(&capitalize(noun));
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
            b.ascii(&capitalize(rng.pick(NOUNS)));
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

fn capitalize(s: &str) -> String {
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

fn rust_error(rng: &mut Stream, b: &mut TextBuf, color: bool, krate_dir: &str, first: bool) {
    let line = rng.range(40, 1200);
    let width = super::buf::decimal_len(line);
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

fn cargo_build(rng: &mut Stream, b: &mut TextBuf, target: usize, color: bool) -> Exit {
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

fn cargo_test(rng: &mut Stream, b: &mut TextBuf, target: usize, color: bool) -> Exit {
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

const NPM_PACKAGES: &[&str] = &[
    "glob-lite",
    "rimraf-compat",
    "fs-extra-legacy",
    "string-width-cjs",
    "uuid-v3",
    "querystring-es",
    "request-promise-lite",
    "core-shim",
    "left-trim",
    "babel-preset-old",
    "har-checker",
    "sane-watch",
    "domexception-shim",
    "abab-lite",
    "stable-sort",
    "urix-compat",
    "source-map-resolve-lite",
];

const NPM_REASONS: &[&str] = &[
    "Versions prior to v9 are no longer maintained; please upgrade",
    "This package is no longer supported. Use the platform's native implementation instead",
    "Please use a maintained fork; this release line receives no security fixes",
    "Use the built-in structuredClone() instead",
    "This module has been merged into its parent package",
];

fn npm_install(rng: &mut Stream, b: &mut TextBuf, target: usize, color: bool) -> Exit {
    let (project, _) = rng.pick(PROJECTS);
    header(b, "npm install --loglevel=http", Some("web"));
    let fail = rng.chance(0.3);
    let reserve = if fail { 1100 } else { 420 };
    while b.units() + reserve < target {
        if rng.below(5) == 0 {
            paint(b, color, "33", "npm warn");
            b.ascii(" deprecated ");
            b.ascii(rng.pick(NPM_PACKAGES));
            b.ascii("@");
            vocab::version(b, rng);
            b.ascii(": ");
            b.ascii(rng.pick(NPM_REASONS));
            b.nl();
        } else {
            b.ascii("npm http fetch GET 200 /");
            if rng.below(3) == 0 {
                b.ascii("@");
                b.ascii(project);
                b.ascii("%2f");
            }
            b.ascii(rng.pick(NPM_PACKAGES));
            b.ascii("/-/pkg-");
            vocab::version(b, rng);
            b.ascii(".tgz ");
            b.num(rng.range(3, 900));
            b.ascii(if rng.below(2) == 0 {
                "ms (cache hit)\n"
            } else {
                "ms (cache miss)\n"
            });
        }
    }
    if fail {
        b.needle_line(NeedleKind::FirstError, |b| {
            paint(b, color, "31", "npm error");
            b.ascii(" code ERESOLVE");
        });
        b.nl();
        b.ascii("npm error ERESOLVE unable to resolve dependency tree\nnpm error\nnpm error While resolving: ");
        b.ascii(project);
        b.ascii("-web@0.9.0\nnpm error Found: react@18.3.1\nnpm error node_modules/react\n");
        b.ascii("npm error   react@\"^18.3.1\" from the root project\nnpm error\n");
        b.ascii("npm error Could not resolve dependency:\nnpm error peer react@\"^17.0.2\" from @");
        b.ascii(project);
        b.ascii("/editor-kit@2.4.1\nnpm error node_modules/@");
        b.ascii(project);
        b.ascii("/editor-kit\nnpm error   @");
        b.ascii(project);
        b.ascii("/editor-kit@\"^2.4.0\" from the root project\nnpm error\n");
        b.ascii("npm error Fix the upstream dependency conflict, or retry with --force or --legacy-peer-deps\n");
        b.needle_line(NeedleKind::SummaryLine, |b| {
            b.ascii("npm error A complete log of this run can be found in: /home/dev/.npm/_logs/");
            vocab::iso_time(b, rng);
            b.ascii("-debug-0.log");
        });
        b.nl();
        Exit(1, None)
    } else {
        b.nl();
        let added = rng.range(120, 2400);
        b.needle_line(NeedleKind::SummaryLine, |b| {
            b.ascii("added ");
            b.num(added);
            b.ascii(" packages, and audited ");
            b.num(added + 1);
            b.ascii(" packages in ");
            b.num(rng.range(3, 120));
            b.ascii("s");
        });
        b.ascii("\n\n");
        b.num(added / 6);
        b.ascii(" packages are looking for funding\n  run `npm fund` for details\n\n");
        let v = rng.below(9);
        if v == 0 {
            b.ascii("found 0 vulnerabilities\n");
        } else {
            b.num(v);
            b.ascii(" vulnerabilities (");
            b.num(v / 2);
            b.ascii(" moderate, ");
            b.num(v - v / 2);
            b.ascii(" high)\n\nTo address all issues, run:\n  npm audit fix\n\nRun `npm audit` for details.\n");
        }
        Exit(0, None)
    }
}

fn pnpm_install(rng: &mut Stream, b: &mut TextBuf, target: usize) -> Exit {
    header(b, "pnpm install --frozen-lockfile", None);
    b.ascii(
        "Scope: all 7 workspace projects\nLockfile is up to date, resolution step is skipped\n",
    );
    let total = rng.range(300, 2000);
    let reserve = 500;
    let (mut resolved, mut reused, mut downloaded) = (0u64, 0u64, 0u64);
    while b.units() + reserve < target {
        if rng.below(12) == 0 {
            b.ascii(" WARN  deprecated ");
            b.ascii(rng.pick(NPM_PACKAGES));
            b.ascii("@");
            vocab::version(b, rng);
            b.ascii(": ");
            b.ascii(rng.pick(NPM_REASONS));
            b.nl();
        }
        resolved = (resolved + rng.range(1, 40)).min(total);
        reused = (reused + rng.range(0, 30)).min(resolved);
        downloaded = resolved - reused;
        b.ascii("Progress: resolved ");
        b.num(resolved);
        b.ascii(", reused ");
        b.num(reused);
        b.ascii(", downloaded ");
        b.num(downloaded);
        b.ascii(", added ");
        b.num(resolved / 2);
        b.nl();
    }
    b.ascii("Packages: +");
    b.num(resolved.max(1));
    b.nl();
    b.repeat_byte(b'+', 60);
    b.ascii("\nProgress: resolved ");
    b.num(resolved);
    b.ascii(", reused ");
    b.num(reused);
    b.ascii(", downloaded ");
    b.num(downloaded);
    b.ascii(", added ");
    b.num(resolved);
    b.ascii(", done\n\ndependencies:\n+ react 18.3.1\n+ zod 3.23.8\n\ndevDependencies:\n+ typescript 5.5.4\n+ vitest 2.0.5\n\n");
    b.needle_line(NeedleKind::SummaryLine, |b| {
        b.ascii("Done in ");
        b.fixed(rng.range(5, 900), 1);
        b.ascii("s");
    });
    b.nl();
    Exit(0, None)
}

fn pytest(rng: &mut Stream, b: &mut TextBuf, target: usize, color: bool) -> Exit {
    let (project, _) = rng.pick(PROJECTS);
    header(b, "python -m pytest -q tests", None);
    let fail = rng.chance(0.5);
    let reserve = if fail { 1400 } else { 250 };
    // Plan the progress lines first (file and number of tests, each line padded to 80 columns plus its colour
    // codes) so that "collected N items" and the percentages agree and the log reaches its size.
    let room = target.saturating_sub(reserve + 480);
    let mut plan: Vec<(&str, &str, u64)> = Vec::new();
    let mut planned = 0;
    while planned < room || plan.is_empty() {
        let (module, noun, n) = (rng.pick(MODULES), rng.pick(NOUNS), rng.range(3, 48));
        let path_len = 16 + module.len() + noun.len();
        planned += (path_len + n as usize).max(72) + 8 + if color { 9 } else { 0 };
        plan.push((module, noun, n));
    }
    let total: u64 = plan.iter().map(|p| p.2).sum();
    let fail_line = if fail {
        rng.index(plan.len())
    } else {
        usize::MAX
    };
    b.ascii("============================= test session starts ==============================\n");
    b.ascii("platform linux -- Python 3.12.4, pytest-8.3.2, pluggy-1.5.0\nrootdir: ");
    vocab::project_root(b, project);
    b.ascii("\nconfigfile: pyproject.toml\nplugins: cov-5.0.0, xdist-3.6.1\ncollected ");
    b.num(total);
    b.ascii(" items\n\n");
    let mut done = 0u64;
    let mut failed_file = String::new();
    for (i, &(module, noun, n)) in plan.iter().enumerate() {
        let start = b.mark();
        b.ascii("tests/test_");
        b.ascii(module);
        b.ascii("_");
        b.ascii(noun);
        b.ascii(".py ");
        let path_len = b.since(start).len();
        if i == fail_line {
            failed_file = b.since(start).trim_end().to_string();
        }
        // One colour span per run of passes, as pytest colours them.
        let fail_at = if i == fail_line { n / 2 } else { n };
        paint_run(b, color, "32", b'.', fail_at as usize);
        if fail_at < n {
            paint(b, color, "31", "F");
            paint_run(b, color, "32", b'.', (n - fail_at - 1) as usize);
        }
        done += n;
        b.repeat_byte(b' ', 73usize.saturating_sub(path_len + n as usize).max(1));
        b.ascii("[");
        b.num_right(done * 100 / total.max(1), 3);
        b.ascii("%]\n");
    }
    let secs = rng.range(50, 90_000);
    if fail {
        b.nl();
        b.ascii(
            "=================================== FAILURES ===================================\n",
        );
        let test = format!("test_{}_{}", rng.pick(VERBS), rng.pick(NOUNS));
        b.ascii("____________________________ ");
        b.ascii(&test);
        b.ascii(" ____________________________\n\n    def ");
        b.ascii(&test);
        b.ascii(
            "():\n        journal = Journal(currency=\"EUR\")\n        batch = load_fixture(\"",
        );
        b.ascii(rng.pick(NOUNS));
        b.ascii("_batch.json\")\n>       journal.post_all(batch)\n\n");
        b.ascii(&failed_file);
        b.ascii(":");
        b.num(rng.range(10, 400));
        b.ascii(
            ": \n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n\n",
        );
        b.ascii("self = <");
        b.ascii(project);
        b.ascii(".ledger.Journal object at 0x7f");
        vocab::hex_id(b, rng, 10);
        b.ascii(">\nentry = Entry(amount=-5, currency='EUR')\n\n    def post(self, entry):\n        if entry.amount <= 0:\n>           raise ValueError(f\"amount must be positive, got {entry.amount}\")\n");
        b.needle_line(NeedleKind::FirstError, |b| {
            paint(
                b,
                color,
                "1;31",
                "E       ValueError: amount must be positive, got -5",
            );
        });
        b.ascii("\n\nsrc/");
        b.ascii(project);
        b.ascii("/ledger.py:");
        b.num(rng.range(10, 400));
        b.ascii(": ValueError\n=========================== short test summary info ============================\nFAILED ");
        b.ascii(failed_file.split(' ').next().unwrap_or(""));
        b.ascii("::");
        b.ascii(&test);
        b.ascii(" - ValueError: amount must be positive, got -5\n");
        b.needle_line(NeedleKind::SummaryLine, |b| {
            b.ascii("=================== 1 failed, ");
            b.num(total - 1);
            b.ascii(" passed in ");
            b.fixed(secs, 2);
            b.ascii("s ===================");
        });
        b.nl();
        Exit(1, None)
    } else {
        b.needle_line(NeedleKind::SummaryLine, |b| {
            b.ascii("==================== ");
            b.num(total);
            b.ascii(" passed, ");
            b.num(rng.below(6));
            b.ascii(" skipped in ");
            b.fixed(secs, 2);
            b.ascii("s ====================");
        });
        b.nl();
        Exit(0, None)
    }
}

fn cmake_make(rng: &mut Stream, b: &mut TextBuf, target: usize) -> Exit {
    let (project, _) = rng.pick(PROJECTS);
    header(b, "cmake -S . -B build && cmake --build build -j2", None);
    b.ascii("-- The C compiler identification is GNU 13.2.0\n-- Detecting C compiler ABI info\n-- Detecting C compiler ABI info - done\n-- Check for working C compiler: /usr/bin/cc - skipped\n-- Found ZLIB: /usr/lib/x86_64-linux-gnu/libz.so (found version \"1.3\")\n-- Configuring done (0.4s)\n-- Generating done (0.1s)\n-- Build files have been written to: ");
    vocab::project_root(b, project);
    b.ascii("/build\n");
    let fail = rng.chance(0.4);
    let reserve = if fail { 900 } else { 120 };
    let mut objects = 0u64;
    let est_total = ((target / 75).max(10)) as u64;
    while b.units() + reserve < target {
        objects += 1;
        b.ascii("[");
        b.num_right((objects * 100 / est_total).min(99), 3);
        b.ascii("%] Building C object src/CMakeFiles/");
        b.ascii(project);
        b.ascii(".dir/");
        b.ascii(rng.pick(MODULES));
        b.ascii("/");
        b.ascii(rng.pick(NOUNS));
        b.ascii(".c.o\n");
        if rng.below(9) == 0 {
            vocab::project_root(b, project);
            b.ascii("/src/");
            b.ascii(rng.pick(MODULES));
            b.ascii(".c:");
            b.num(rng.range(10, 2000));
            b.ascii(":");
            b.num(rng.range(3, 40));
            b.ascii(": warning: unused variable '");
            b.ascii(rng.pick(NOUNS));
            b.ascii("' [-Wunused-variable]\n");
        }
    }
    if fail {
        let module = rng.pick(MODULES);
        let line = rng.range(10, 2000);
        let mark = b.mark();
        vocab::project_root(b, project);
        b.ascii("/src/");
        b.ascii(module);
        b.ascii(".c:");
        b.num(line);
        b.ascii(":5: error: implicit declaration of function 'parse_amount' [-Wimplicit-function-declaration]");
        b.plant(NeedleKind::FirstError, mark);
        b.ascii("\n ");
        b.num(line);
        b.ascii(" |     parse_amount(buf, &amount);\n      |     ^~~~~~~~~~~~\n");
        b.ascii("make[2]: *** [src/CMakeFiles/");
        b.ascii(project);
        b.ascii(".dir/build.make:132: src/CMakeFiles/");
        b.ascii(project);
        b.ascii(".dir/");
        b.ascii(module);
        b.ascii(".c.o] Error 1\nmake[1]: *** [CMakeFiles/Makefile2:98: src/CMakeFiles/");
        b.ascii(project);
        b.ascii(".dir/all] Error 2\n");
        b.needle_line(NeedleKind::SummaryLine, |b| {
            b.ascii("gmake: *** [Makefile:136: all] Error 2");
        });
        b.nl();
        Exit(2, None)
    } else {
        b.ascii("[100%] Linking C executable ");
        b.ascii(project);
        b.nl();
        b.needle_line(NeedleKind::SummaryLine, |b| {
            b.ascii("[100%] Built target ");
            b.ascii(project);
        });
        b.nl();
        Exit(0, None)
    }
}

const COMMIT_SUBJECTS: &[&str] = &[
    "reject postings with mismatched currencies",
    "keep rounding stable when splitting invoices",
    "retry webhook delivery with jittered backoff",
    "move cursor pagination into the query builder",
    "fix off-by-one in monthly report window",
    "bump lockfile after dependency review",
    "cache tenant settings for the request lifetime",
    "document the export file layout",
    "drop the legacy v1 import path",
    "speed up balance recomputation for large ledgers",
];

fn git_log(rng: &mut Stream, b: &mut TextBuf, target: usize) -> Exit {
    header(b, "git log -n 200", None);
    while b.units() + 40 < target {
        let (name, handle) = rng.pick(PEOPLE);
        b.ascii("commit ");
        vocab::hex_id(b, rng, 40);
        b.ascii("\nAuthor: ");
        b.push(name);
        b.ascii(" <");
        b.ascii(handle);
        b.ascii("@users.example.dev>\nDate:   ");
        vocab::git_date(b, rng);
        b.ascii("\n\n    ");
        b.ascii(rng.pick(MODULES));
        b.ascii(": ");
        b.ascii(rng.pick(COMMIT_SUBJECTS));
        b.ascii("\n\n");
        if rng.below(3) == 0 {
            b.ascii("    ");
            vocab::sentence(b, rng, 14);
            b.ascii("\n    ");
            vocab::sentence(b, rng, 11);
            b.ascii(".\n\n");
        }
    }
    Exit(0, None)
}

fn git_diff(rng: &mut Stream, b: &mut TextBuf, target: usize, color: bool) -> Exit {
    header(b, "git diff HEAD~3", None);
    let (mut files, mut ins, mut del) = (0u64, 0u64, 0u64);
    let mut path = TextBuf::with_capacity(48);
    while b.units() + 400 < target {
        path = TextBuf::with_capacity(path.as_str().len());
        vocab::src_path(&mut path, rng, "src/", ".rs");
        let path = path.as_str();
        files += 1;
        paint(b, color, "1", "diff --git a/");
        b.ascii(path);
        b.ascii(" b/");
        b.ascii(path);
        b.ascii("\nindex ");
        vocab::hex_id(b, rng, 7);
        b.ascii("..");
        vocab::hex_id(b, rng, 7);
        b.ascii(" 100644\n--- a/");
        b.ascii(path);
        b.ascii("\n+++ b/");
        b.ascii(path);
        b.nl();
        for hunk in 0..rng.range(1, 4) {
            if hunk > 0 && b.units() + 700 > target {
                break;
            }
            let at = rng.range(1, 800);
            paint(b, color, "36", "@@ -");
            b.num(at);
            b.ascii(",7 +");
            b.num(at);
            b.ascii(",8 @@ impl ");
            b.ascii(&capitalize(rng.pick(NOUNS)));
            b.ascii(" {\n         let ");
            vocab::ident(b, rng);
            b.ascii(" = self.");
            vocab::ident(b, rng);
            b.ascii("();\n");
            for _ in 0..rng.range(1, 5) {
                if color {
                    b.ascii("\x1b[31m");
                }
                b.ascii("-        if ");
                vocab::ident(b, rng);
                b.ascii(" > self.limit {");
                if color {
                    b.ascii("\x1b[0m");
                }
                b.nl();
                del += 1;
            }
            for _ in 0..rng.range(1, 6) {
                if color {
                    b.ascii("\x1b[32m");
                }
                b.ascii("+        if ");
                vocab::ident(b, rng);
                b.ascii(".saturating_sub(self.");
                b.ascii(rng.pick(NOUNS));
                b.ascii(") > self.limit {");
                if color {
                    b.ascii("\x1b[0m");
                }
                b.nl();
                ins += 1;
            }
            b.ascii("             return Err(Error::");
            b.ascii(&capitalize(rng.pick(NOUNS)));
            b.ascii("Limit);\n         }\n");
        }
    }
    b.needle_line(NeedleKind::SummaryLine, |b| {
        b.ascii(" ");
        b.num(files);
        b.ascii(if files == 1 {
            " file changed, "
        } else {
            " files changed, "
        });
        b.num(ins);
        b.ascii(" insertions(+), ");
        b.num(del);
        b.ascii(" deletions(-)");
    });
    b.nl();
    Exit(0, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_ctx;

    #[test]
    fn every_flavour_ends_with_exit_info_and_hits_its_size() {
        let mut c = test_ctx(11);
        for target in [200usize, 600, 2_000, 12_000, 60_000] {
            for _ in 0..40 {
                let d = write(&mut c, target);
                let Body::Text(w) = d.output.unwrap() else {
                    panic!("shell output is text")
                };
                let last = w.text.trim_end().rsplit('\n').next().unwrap();
                assert!(last.starts_with("Exit Code: "), "{last:?}");
                let exit = w.needles.last().unwrap();
                assert_eq!(exit.kind, NeedleKind::ExitInfo);
                assert_eq!(exit.text, last);
                if target >= SMALL {
                    assert!(
                        w.units + 1800 >= target && w.units <= target + 1800,
                        "target {target} got {}: {}",
                        w.units,
                        w.text.lines().next().unwrap()
                    );
                }
                for n in &w.needles {
                    let start = crate::text::head(&w.text, n.offset).len();
                    assert!(w.text[start..].starts_with(&n.text), "{n:?}");
                }
            }
        }
    }
}
