//! `pytest` runs: collection, progress dots by file, failures with their tracebacks and the short summary.

use super::{header, paint, paint_run, Exit};
use crate::generate::buf::TextBuf;
use crate::generate::vocab::{self, MODULES, NOUNS, PROJECTS, VERBS};
use crate::needles::NeedleKind;
use crate::rng::Stream;

pub(super) fn pytest(rng: &mut Stream, b: &mut TextBuf, target: usize, color: bool) -> Exit {
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
