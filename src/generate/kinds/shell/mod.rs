//! Shell command outputs, one file a family of tools: `cargo` (build and test), `node` (npm and pnpm installs),
//! `python` (pytest), `make` (cmake and make), `git` (log and diff) and `small` (the many short commands of a
//! real session); Chinese application logs come from `cjk`. Logs carry progress lines, repeated sections,
//! optional ANSI colours, and end with the exit information (`Exit Code: 101`) and, where the tool prints one, a
//! summary line; the first error line, the summary line and the exit line are planted as needles. This file
//! picks the command and holds what the families share: the command header, colour, the exit line and the
//! package names.

mod cargo;
mod git;
mod make;
mod node;
mod python;
mod small;

use super::Writers;
use crate::generate::buf::TextBuf;
use crate::generate::cjk;
use crate::generate::vocab::{self, MODULES, NOUNS, VERBS};
use crate::generate::{Body, Ctx, Draft};
use crate::needles::NeedleKind;

/// The tool name shell outputs are recorded under.
pub(crate) const TOOL: &str = "run_shell_command";

/// Below this target a command is one of the short ones (status, listings, one-liners).
const SMALL: usize = 900;

/// How this kind's outputs are written: [`write`] and, below the scenario's `short_units`, [`short`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: Some(short),
};

/// Writes one shell output of about `target` UTF-16 units.
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    let color = c.rng.chance(c.knobs.ansi_rate);
    let mut b = TextBuf::with_capacity(target + 512);
    // A Chinese share makes some outputs an application's log with Chinese messages, of any size (no draw at all
    // when the share is zero).
    let exit = if cjk::chosen(&mut c.rng, c.knobs.cjk_share / 2.0) {
        cjk::app_log(&mut c.rng, &mut b, target);
        Exit(0, None)
    } else if target < SMALL {
        small::command(&mut c.rng, &mut b, target)
    } else if cjk::chosen(&mut c.rng, c.knobs.cjk_share) {
        cjk::app_log(&mut c.rng, &mut b, target);
        Exit(0, None)
    } else {
        match c.rng.weighted(&[3.0, 3.0, 1.5, 1.0, 2.0, 1.2, 1.0, 1.0]) {
            0 => cargo::build(&mut c.rng, &mut b, target, color),
            1 => cargo::test(&mut c.rng, &mut b, target, color),
            2 => node::npm_install(&mut c.rng, &mut b, target, color),
            3 => node::pnpm_install(&mut c.rng, &mut b, target),
            4 => python::pytest(&mut c.rng, &mut b, target, color),
            5 => make::cmake_make(&mut c.rng, &mut b, target),
            6 => git::log(&mut c.rng, &mut b, target),
            _ => git::diff(&mut c.rng, &mut b, target, color),
        }
    };
    exit_info(&mut b, exit);
    Draft::output(TOOL, Body::Text(b.finish()))
}

/// A command and its value: a version, a count, a commit, paths, a setting.
fn short(c: &mut Ctx, target: usize) -> Draft {
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
    header(&mut b, &command, None);
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
    exit_info(&mut b, Exit(0, None));
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

/// Writes the generator's own command header: `Command:`, maybe `Directory:`, and `Output:`.
pub(crate) fn header(b: &mut TextBuf, command: &str, dir: Option<&str>) {
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
pub(super) fn paint_run(b: &mut TextBuf, color: bool, style: &str, byte: u8, n: usize) {
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
pub(super) fn paint(b: &mut TextBuf, color: bool, style: &str, text: &str) {
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

pub(super) const DEPENDENCIES: &[&str] = &[
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

const DEP_SUFFIXES: &[&str] = &[
    "", "-core", "-macros", "-impl", "-sys", "-util", "_derive", "-types",
];

/// Writes dependency number `i` of a build as `name vX.Y.Z`: the same `i` always names the same crate and
/// version, and successive numbers name distinct crates.
pub(super) fn dependency(b: &mut TextBuf, i: u64) {
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
