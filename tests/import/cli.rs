//! `budgetlab import` end to end: the stderr report, atomic output, exit 2 on malformed files, `--skip-bad`,
//! bad flags, anonymization, resumed sessions and lone surrogates.

use super::*;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

#[test]
fn cli_writes_atomically_and_reports_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("mine.jsonl");
    let out = budgetlab()
        .args(["import", "--verbose", "--format", "auto"])
        .arg(fixture(""))
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("agent-a3f9c1.jsonl: detected claude-code"),
        "{err}"
    );
    assert!(err.contains("budgetlab: read 15 files (2 claude-code, 2 codex, 2 gemini-cli, 3 mini-swe-agent, 3 openhands, 1 qwen-code, 2 swe-agent); wrote 43 batches with "), "{err}");
    assert!(
        err.contains("budgetlab: skipped 1: torn last line (not complete JSON)\n"),
        "{err}"
    );
    assert!(
        err.contains("ignored ")
            && err.contains("metadata.json: not a session log of a known format"),
        "{err}"
    );
    let written = std::fs::read(&out_path).unwrap();
    assert_eq!(lines(&written), import("auto", "").0);
    // The batches and, beside them, the lines the agent used (`mine.used.jsonl`); no temporary file.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["mine.jsonl", "mine.used.jsonl"],
        "no temporary file left"
    );

    // Standard output gets the same bytes; the file is run by `run --batches-file`.
    let stdout = budgetlab()
        .args(["import", "--format", "auto", "--out", "-"])
        .arg(fixture(""))
        .output()
        .unwrap();
    assert_eq!(stdout.stdout, written);
    let report = dir.path().join("report");
    let run = budgetlab()
        .args([
            "run",
            "--strategies",
            "reference",
            "--budgets",
            "2000",
            "--threads",
            "1",
            "--batches-file",
        ])
        .arg(&out_path)
        .arg("--out")
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stderr).contains("43 turns"));
}

#[test]
fn cli_malformed_file_is_exit_2_unless_skip_bad() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let good = std::fs::read(fixture(CLAUDE_MAIN)).unwrap();
    std::fs::write(logs.join("a.jsonl"), &good).unwrap();
    // A line that is not JSON in the middle of a Claude Code file (not its torn tail).
    std::fs::write(
        logs.join("b.jsonl"),
        "{\"type\":\"summary\",\"summary\":\"s\",\"leafUuid\":\"x\"}\n{\"type\":\"user\", oops}\n{\"type\":\"summary\",\"summary\":\"t\",\"leafUuid\":\"y\"}\n",
    )
    .unwrap();
    let out_path = dir.path().join("out.jsonl");
    let out = budgetlab()
        .args(["import", "--format", "claude-code"])
        .arg(&logs)
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("b.jsonl:2: invalid JSON at column"), "{err}");
    assert!(!out_path.exists(), "nothing half-written");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
    let stdout_run = budgetlab()
        .args(["import", "--format", "claude-code"])
        .arg(&logs)
        .output()
        .unwrap();
    assert_eq!(stdout_run.status.code(), Some(2));
    assert!(
        stdout_run.stdout.is_empty(),
        "nothing on standard output either"
    );

    let out = budgetlab()
        .args([
            "import",
            "--verbose",
            "--format",
            "claude-code",
            "--skip-bad",
        ])
        .arg(&logs)
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("skipped malformed file ") && err.contains("b.jsonl:2: invalid JSON"),
        "{err}"
    );
    assert!(
        err.contains("budgetlab: skipped 1 malformed files (--skip-bad)"),
        "{err}"
    );
    assert_eq!(
        lines(&std::fs::read(&out_path).unwrap()),
        claude_main_batches()
    );
}

#[test]
fn cli_refuses_bad_flags_and_undetectable_files() {
    let out = budgetlab()
        .args(["import", "--format", "aider"])
        .arg(fixture(CLAUDE_MAIN))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    // One name a format, each with its own fixtures folder, in the registry's order (claude-code first).
    let listed = err
        .split("expected one of ")
        .nth(1)
        .and_then(|rest| rest.trim_end().strip_suffix(", or auto"))
        .unwrap_or_else(|| panic!("{err}"));
    let mut names: Vec<&str> = listed.split(", ").collect();
    assert_eq!(names[0], "claude-code", "{err}");
    names.sort_unstable();
    let mut folders: Vec<String> = crate::support::names(&fixture(""));
    folders.sort();
    assert_eq!(names, folders, "{err}");
    assert!(
        err.starts_with("budgetlab: invalid --format \"aider\": "),
        "{err}"
    );
    let out = budgetlab()
        .args(["import", "--format", "auto"])
        .arg(fixture("openhands/sessions/7c1e9d2a/metadata.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "metadata.json: not a session log of a known format; give its format with --format"
        ),
        "{err}"
    );
    let out = budgetlab()
        .args(["import", "--format", "codex", "/nonexistent/sessions"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("/nonexistent/sessions"));
}

#[test]
fn cli_anonymize_changes_text_but_not_shape() {
    let run = |seed: &str| {
        let out = budgetlab()
            .args(["import", "--format", "codex", "--anonymize", seed])
            .arg(fixture("codex/sessions/2025/10/02"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        lines(&out.stdout)
    };
    let a = run("9");
    assert_eq!(a, run("9"));
    let first = a[0][0]["responseParts"][0]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap();
    // The structured output is JSON: its keys stay, and so does the error line's keyword.
    let v: Value = serde_json::from_str(first).unwrap();
    assert_eq!(
        v.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["output", "metadata"]
    );
    assert!(
        v["output"].as_str().unwrap().contains(": error: "),
        "{first}"
    );
    assert!(!first.contains("frobnicate"), "{first}");
}

#[test]
fn a_session_copied_by_a_resume_is_not_counted_twice() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(fixture(CLAUDE_MAIN)).unwrap();
    std::fs::write(dir.path().join("a.jsonl"), &good).unwrap();
    std::fs::write(dir.path().join("b-resumed.jsonl"), &good).unwrap();
    let job = ImportJob {
        format: "claude-code".parse().unwrap(),
        paths: vec![dir.path().to_path_buf()],
        anonymize: None,
        skip_bad: false,
        used: Default::default(),
    };
    let mut out = Vec::new();
    let report = job.write(&mut out, "memory", None).unwrap();
    assert_eq!(lines(&out), claude_main_batches());
    assert_eq!(report.files.len(), 2);
    assert_eq!((report.files[1].batches, report.files[1].results), (0, 0));
    assert_eq!(
        report.tally.skipped["result repeated from an earlier file (resumed session)"],
        7
    );
}

#[test]
fn lone_surrogate_escapes_become_replacement_characters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"assistant","uuid":"u1","message":{"id":"msg_1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}"#,
            "\n",
            r#"{"type":"user","uuid":"u2","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"cut \ud83d here \ud83d\ude00"}]}}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = budgetlab()
        .args(["import", "--format", "claude-code"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        lines(&out.stdout),
        vec![json!([ok("t1", "Bash", "cut \u{fffd} here 😀")])]
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("budgetlab: replaced 1 lone surrogate escapes with U+FFFD"),
        "{err}"
    );
}

/// No output over what the import reads (issue 46, point 2): a session log in a walked folder at the place of
/// the used-lines file made from `--out`, or at `--out` itself, is refused in one line and left as it was; an
/// earlier import's own outputs in the folder are not read as logs, and are replaced.
#[test]
fn an_output_over_a_log_found_in_a_walked_folder_is_refused_and_the_log_kept() {
    let log =
        fixture("claude-code/projects/-home-dev-shop/7f1c2a4e-0b7d-4c55-9a10-3e2f6f1d8b01.jsonl");
    let bytes = std::fs::read(&log).unwrap();
    for (log_name, message_flag) in [
        ("x.used.jsonl", "--used-out (made from --out)"),
        ("x.jsonl", "--out"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("d");
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join(log_name), &bytes).unwrap();
        let out = budgetlab()
            .args(["import", "--format", "claude-code"])
            .arg(&d)
            .arg("--out")
            .arg(d.join("x.jsonl"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{log_name}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!("invalid {message_flag} "))
                && err.contains("a session log this import reads, which it would replace"),
            "{err}"
        );
        assert_eq!(
            std::fs::read(d.join(log_name)).unwrap(),
            bytes,
            "{log_name}"
        );
        let names: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        assert_eq!(names.len(), 1, "nothing else written for {log_name}");
    }

    // A named log at the derived path is refused too.
    let dir = tempfile::tempdir().unwrap();
    let named = dir.path().join("x.used.jsonl");
    std::fs::write(&named, &bytes).unwrap();
    let out = budgetlab()
        .args(["import", "--format", "claude-code"])
        .arg(&named)
        .arg("--out")
        .arg(dir.path().join("x.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&named).unwrap(), bytes);

    // An import into the folder it walks, twice: the second reads the log, not the first's outputs.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    std::fs::create_dir(&d).unwrap();
    std::fs::write(d.join("session.jsonl"), &bytes).unwrap();
    let mut written = Vec::new();
    for _ in 0..2 {
        let out = budgetlab()
            .args(["import", "--format", "auto"])
            .arg(&d)
            .arg("--out")
            .arg(d.join("x.jsonl"))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        written.push(std::fs::read(d.join("x.jsonl")).unwrap());
    }
    assert!(!written[0].is_empty());
    assert_eq!(written[0], written[1]);
    assert_eq!(std::fs::read(d.join("session.jsonl")).unwrap(), bytes);
}

/// `--out` through a link to `/dev/null` throws the batches away, and no file of used lines appears beside the
/// link (found by the hostile pass: `lnk.used.jsonl` was made); the link stays a link to `/dev/null`.
#[cfg(unix)]
#[test]
fn batches_sent_to_dev_null_leave_no_used_lines_file_beside_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("lnk");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    let out = budgetlab()
        .args(["import", "--format", "auto"])
        .arg(fixture(""))
        .arg("--out")
        .arg(&link)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["lnk"]);
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        std::path::Path::new("/dev/null")
    );
}
