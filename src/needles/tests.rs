//! The detector's rules, line by line: each style it must find and the look-alikes it must leave.

use super::*;

fn kinds(text: &str) -> Vec<(NeedleKind, String)> {
    detect(text)
        .into_iter()
        .map(|n| (n.kind, slice_units(text, n.offset, n.len).to_string()))
        .collect()
}

use NeedleKind::{ExitInfo, FirstError, JsonKey, SummaryLine};

/// Exit lines of every harness style.
const EXIT_LINES: &[&str] = &[
    "Exit Code: 0",
    "Exit Code: 137 (SIGKILL)",
    "Exit code: 1",
    "Exit code 2",
    "<returncode>0</returncode>",
    "<returncode>-1</returncode>",
    "[Command finished with exit code 1]",
    "[The command completed with exit code 0.]",
    "Process exited with code 3",
    "exit status 2",
];

/// Summary lines of test runners, searches and builds.
const SUMMARY_LINES: &[&str] = &[
        "test result: FAILED. 40 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s",
        "=================== 1 failed, 41 passed in 2.10s ===================",
        "==== 41 passed in 2.10s ====",
        " 3 files changed, 10 insertions(+), 2 deletions(-)",
        " 1 file changed, 1 insertion(+)",
        "added 120 packages, and audited 121 packages in 3s",
        "Tests:       1 failed, 5 passed, 6 total",
        "Found 3 matches for \"foo\" in /repo:",
        "Found 12 files",
        "No matches found for \"foo\" in /repo",
        "12 matches in 4 files",
        "1 match in 1 file",
        "  1234 total",
        "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1.20s",
        "[100%] Built target ledger",
        "[ 50%] Built target parser",
        "gmake: *** [Makefile:136: all] Error 2",
        "make[1]: *** [CMakeFiles/Makefile2:98: all] Error 2",
        "error: could not compile `ledger` (lib) due to 2 previous errors",
        "Done in 12.3s",
        "BUILD SUCCESSFUL in 3s",
        "— 1,234 messages, 5,678 reactions —",
        "Ran 12 tests in 0.031s",
        "FAILED (failures=1)",
        "Tests run: 5, Failures: 1, Errors: 0, Skipped: 0",
        "ok  \tgithub.com/acme/ledger/parse\t0.012s",
        "FAIL\tgithub.com/acme/ledger\t0.305s",
        "ok  \tgithub.com/acme/ledger/money\t(cached)",
        "Found 2 errors in 1 file.",
        "End of matches for \"parse\" in /repo/src/a.py",
        "Success: no issues found in 10 source files",
        "✖ 3 problems (2 errors, 1 warning)",
];

/// Error lines of compilers, runtimes, test runners and shells.
const ERROR_LINES: &[&str] = &[
    "error: linker `cc` not found",
    "Error: ENOENT: no such file or directory, open 'a'",
    "ERROR:  canceling statement due to statement timeout",
    "src/a.c:3:5: error: implicit declaration of function 'f'",
    "KeyError: 'EUR'",
    "E       ValueError: amount must be positive, got -5",
    "java.lang.IllegalStateException: closed",
    "AssertionError",
    "thread 'main' panicked at src/main.rs:2:5:",
    "npm ERR! code ERESOLVE",
    "npm error code ERESOLVE",
    "fatal: not a git repository (or any of the parent directories): .git",
    "2025-03-04 12:00:01.123 ERROR [billing] 付款失败",
    "ls: cannot access 'x': No such file or directory",
    "bash: foo: command not found",
    "FAIL src/a.test.ts",
    "--- FAIL: TestParse (0.00s)",
    "FAILED tests/test_a.py::test_b - assert 1 == 2",
    "src/a.ts(3,5): error TS2345: Argument of type 'string' is not assignable",
    "error TS2307: Cannot find module 'x'",
    "sh: 1: pytest: not found",
    "Unhandled exception. System.InvalidOperationException: closed",
    "[Error occurred in processing last action]",
    "/usr/bin/ld: a.o: in function `main': undefined reference to `f'",
];

#[test]
fn exit_lines_in_every_harness_style() {
    for &line in EXIT_LINES {
        assert_eq!(kinds(&format!("x\n{line}\ny")), [(ExitInfo, line.into())]);
    }
    for not in [
        "Exit code: none",
        "the exit code was 1 yesterday",
        "Exit codes: 1, 2",
        "<returncode>x</returncode>",
    ] {
        assert_eq!(kinds(not), [], "{not}");
    }
}

#[test]
fn summaries_wherever_they_sit() {
    for &line in SUMMARY_LINES {
        assert_eq!(kinds(line), [(SummaryLine, line.into())], "{line}");
    }
    for not in [
        "drwxr-xr-x  3 dev dev  1234 Mar  5 12:00 src",
        "src/lib.rs:12:    let total = sum(&entries, self.rate)?;",
        "We have 3 cats and 2 dogs.",
        "Found a bug",
        "ok  let me look at the parser",
        "ok\tthe package\tlater",
        "Tests run: many",
    ] {
        assert_eq!(kinds(not), [], "{not}");
    }
}

#[test]
fn only_the_first_error_line_counts() {
    let log = "Compiling a\n\x1b[1;31merror[E0308]\x1b[0m: mismatched types\n  --> src/a.rs:1:2\nerror: aborting\n";
    assert_eq!(
        kinds(log),
        [(
            FirstError,
            "\x1b[1;31merror[E0308]\x1b[0m: mismatched types".into()
        )]
    );
    for &line in ERROR_LINES {
        assert_eq!(kinds(line), [(FirstError, line.into())], "{line}");
    }
    for not in [
        "    raise ValueError(\"x\")",
        "Error handling is done by the caller.",
        "error_rate: 0.1",
        "Traceback (most recent call last):",
        "    at Foo.bar (a.js:1:2)",
        "test a::b ... FAILED",
        "pub enum Error {",
        "Error: (none)",
        "Error::Io(e) => return Err(e),",
        "error::Error",
        "FAILED",
    ] {
        assert_eq!(kinds(not), [], "{not}");
    }
}

#[test]
fn crlf_and_offsets_in_utf16_units() {
    let text = "😀 start\r\nFound 2 matches\r\nExit Code: 1";
    let found = detect(text);
    assert_eq!(
        found,
        [
            DetectedNeedle {
                kind: SummaryLine,
                offset: 10,
                len: 15
            },
            DetectedNeedle {
                kind: ExitInfo,
                offset: 27,
                len: 12
            }
        ]
    );
}

#[test]
fn json_results_give_their_top_level_keys_only() {
    let pretty =
        "{\n  \"total_count\": 2,\n  \"items\": [{\"error\": \"x\"}],\n  \"é\": {\"a\": 1}\n}";
    assert_eq!(
        kinds(pretty),
        [
            (JsonKey, "\"total_count\"".into()),
            (JsonKey, "\"items\"".into()),
            (JsonKey, "\"é\"".into())
        ]
    );
    let cut = "{\"a\":1,\"b\":\"x\\\"y\",\"c\n\n[Output truncated]";
    assert_eq!(
        kinds(cut),
        [(JsonKey, "\"a\"".into()), (JsonKey, "\"b\"".into())]
    );
    assert_eq!(kinds("{}\nError: x"), [(FirstError, "Error: x".into())]);
}

#[test]
fn a_json_map_gives_its_first_keys_only() {
    let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
    let text = format!("{{{}}}", keys.join(", "));
    let found = kinds(&text);
    assert_eq!(found.len(), MAX_JSON_KEYS);
    assert_eq!(found[0], (JsonKey, "\"k0\"".into()));
    assert_eq!(found[31], (JsonKey, "\"k31\"".into()));
}

#[test]
fn an_error_field_without_an_error_line_starts_with_one() {
    let text = "\n  Cannot enter plan mode: a plan is awaiting approval.\nmore";
    let found = detect_field(Field::Error, text);
    assert_eq!(found.len(), 1);
    assert_eq!(
        slice_units(text, found[0].offset, found[0].len),
        "  Cannot enter plan mode: a plan is awaiting approval."
    );
    assert_eq!(detect_field(Field::Output, text), []);
    // The exception line, not the first line: 35 units of "Traceback ...:\n" and 14 of "  File \"a.py\"\n".
    let traced = "Traceback (most recent call last):\n  File \"a.py\"\nTimeoutError: slow";
    assert_eq!(
        detect_field(Field::Error, traced)
            .iter()
            .map(|n| n.offset)
            .collect::<Vec<_>>(),
        [49]
    );
}

#[test]
fn an_overlong_first_line_of_an_error_field_is_no_needle() {
    let text = format!("{}\nmore", "x".repeat(MAX_NEEDLE_LINE_BYTES + 1));
    assert_eq!(detect_field(Field::Error, &text), []);
}

#[test]
fn exit_styles_look_through_ansi_and_blanks() {
    assert_eq!(
        exit_style("  \x1b[1mExit Code: 2\x1b[0m\r").as_deref(),
        Some("Exit Code: N")
    );
    assert_eq!(exit_style("Exit Code: x"), None);
}

#[test]
fn anonymized_needles_stay_needles_of_their_kind() {
    // `import --anonymize` keeps the detector's vocabulary, so an anonymized corpus has the same needles.
    let mut failures = Vec::new();
    for seed in [1, 7, 2026] {
        let mut anonymizer = crate::import::Anonymizer::new(crate::rng::Seed(seed));
        for (lines, kind) in [
            (EXIT_LINES, ExitInfo),
            (SUMMARY_LINES, SummaryLine),
            (ERROR_LINES, FirstError),
        ] {
            for line in lines {
                let anonymized = anonymizer.plain(line);
                if kinds(&anonymized) != [(kind, anonymized.clone())] {
                    failures.push(format!("seed {seed}: {line:?} became {anonymized:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
