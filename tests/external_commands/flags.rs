//! The --external flags of every command, checked before anything runs.

use super::*;

#[test]
fn external_flags_of_the_commands_are_checked_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let refused = |args: &[&str], needle: &str| {
        let line = one_line_failure(&budgetlab(dir, args));
        assert!(line.contains(needle), "{args:?}: {line}");
    };
    refused(
        &["run", "--quick", "--external", "reference=cat"],
        "NAME \"reference\" is a built-in strategy's name",
    );
    refused(
        &[
            "run",
            "--quick",
            "--strategies",
            "nope",
            "--external",
            "mine=cat",
        ],
        "invalid strategy \"nope\": known strategies: reference, ",
    );
    refused(
        &[
            "sweep",
            "--scenario",
            "mixed-realistic",
            "--budgets",
            "10..20",
            "--strategies",
            "mine",
        ],
        "invalid strategy \"mine\"",
    );
    refused(
        &[
            "simulate",
            "--scenario",
            "mixed-realistic",
            "--strategy",
            "mine",
            "--external",
            "mine=x | y",
        ],
        "unquoted `|`",
    );
    refused(
        &[
            "conform",
            "--strategy",
            "gone",
            "--external",
            "gone=/nonexistent/fin",
            "--cases",
            "0",
        ],
        "external strategy gone: start: the child could not be started: /nonexistent/fin",
    );
    refused(
        &[
            "run",
            "--quick",
            "--strategies",
            "gone",
            "--external",
            "gone=/nonexistent/fin",
        ],
        "external strategy gone: start: the child could not be started",
    );
    let line = one_line_failure(&budgetlab(
        dir,
        &[
            "run",
            "--quick",
            "--strategies",
            "nope",
            "--external",
            "mine=cat",
        ],
    ));
    assert!(
        line.ends_with("head-tail-<ratio>; registered with --external: mine"),
        "{line}"
    );
    // A program that cannot start left nothing behind: no report, no failed run's folder.
    assert!(names(dir).is_empty(), "{:?}", names(dir));
}
