//! `cmake` and `make` builds: configuration, percentage progress lines and the compiler's errors.

use super::{header, Exit};
use crate::generate::buf::TextBuf;
use crate::generate::vocab::{self, MODULES, NOUNS, PROJECTS};
use crate::needles::NeedleKind;
use crate::rng::Stream;

pub(super) fn cmake_make(rng: &mut Stream, b: &mut TextBuf, target: usize) -> Exit {
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
