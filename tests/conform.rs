//! `budgetlab conform` through the real binary: the report folder, JUnit, exit statuses, byte-for-byte
//! determinism, refusals of bad input, and counterexamples that the printed `finalize` command replays.

use std::path::Path;

use assert_cmd::Command;
use budgetlab::finalize::{budgeted_total, SlotScope};
use budgetlab::{parse_batch, PlanReminders};
use serde_json::Value;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_reference_passes_and_writes_its_report_folder_and_junit() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("conform");
    let junit = tmp.path().join("junit.xml");
    let run = budgetlab()
        .args([
            "conform",
            "--strategy",
            "reference",
            "--cases",
            "30",
            "--as",
            "reference",
        ])
        .args(["--out", path(&out), "--junit", path(&junit)])
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8(run.stdout).unwrap();
    assert!(stdout.contains(": all 13 checks hold."), "{stdout}");
    assert!(
        stdout.contains("| `matches-vectors` | 20 | 20 | - |"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("summary.md")).unwrap(),
        stdout
    );
    let report = read_json(&out.join("conform.json"));
    assert_eq!(report["passed"], true);
    assert_eq!(report["strategy"], "reference");
    assert_eq!(report["seed"], 0);
    assert_eq!(report["cases"]["generated"], 30);
    let shipped = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension() == Some("toml".as_ref()))
        .count();
    assert_eq!(report["scenarios"].as_array().unwrap().len(), shipped);
    assert_eq!(report["budgetlabVersion"], env!("CARGO_PKG_VERSION"));
    assert!(out.join(".budgetlab-report").is_file());
    assert!(!out.join("counterexamples").exists());
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("tests=\"13\" failures=\"0\" skipped=\"0\""),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase ").count(), 13);
    // `--json` prints what conform.json holds in place of the table; it leaves stdout to the JUnit XML only when
    // asked to, and refuses both on stdout.
    let json = budgetlab()
        .args([
            "conform",
            "--strategy",
            "reference",
            "--cases",
            "30",
            "--as",
            "reference",
        ])
        .args(["--out", path(&out), "--json"])
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(0));
    assert_eq!(
        json.stdout,
        std::fs::read(out.join("conform.json")).unwrap()
    );
    assert_eq!(read_json(&out.join("conform.json")), report);
    let both = budgetlab()
        .args([
            "conform",
            "--strategy",
            "reference",
            "--json",
            "--junit",
            "-",
        ])
        .args(["--out", path(&tmp.path().join("unused"))])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    assert!(both.stdout.is_empty());
    assert!(!tmp.path().join("unused").exists());
}

#[test]
fn a_failing_strategy_exits_1_with_counterexamples_its_commands_replay() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("codex");
    let run = budgetlab()
        .args([
            "conform",
            "--strategy",
            "codex",
            "--cases",
            "10",
            "--out",
            path(&out),
        ])
        .args(["--junit", "-"])
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // `--junit -` puts the XML alone on stdout.
    let xml = String::from_utf8(run.stdout).unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(xml.contains("tests=\"11\" failures=\"4\""), "{xml}");
    assert!(xml.contains(
        "<failure message=\"budgeted total 2 exceeds the budget 1\" type=\"budget-fits\">"
    ));

    let report = read_json(&out.join("conform.json"));
    assert_eq!(report["passed"], false);
    let check = |name: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .unwrap()
            .clone()
    };
    // budget-fits: the shrunk batch, replayed by its command, is over its budget.
    let fits = check("budget-fits");
    let x = &fits["counterexample"];
    assert_eq!(x["shrunk"]["entries"], 1);
    assert_eq!(x["files"][0], "counterexamples/budget-fits.json");
    let command = x["commands"][0].as_str().unwrap();
    assert_eq!(
        command,
        format!(
            "budgetlab finalize --strategy codex --budget 1 --input {}/counterexamples/budget-fits.json",
            path(&out)
        )
    );
    let replayed = replay(command);
    let entries = serde_json::to_vec(&replayed["entries"]).unwrap();
    let batch = parse_batch(&entries, "replay").unwrap();
    assert_eq!(
        budgeted_total(&batch, &PlanReminders::default(), SlotScope::ALL),
        2
    );

    // idempotent: the second command, on the first one's output, changes it again.
    let again = check("idempotent");
    let commands = again["counterexample"]["commands"].as_array().unwrap();
    assert_eq!(commands.len(), 2);
    let first = replay(commands[0].as_str().unwrap());
    let output = std::fs::read(out.join("counterexamples/idempotent.output.json")).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&output).unwrap(),
        first["entries"]
    );
    let second = replay(commands[1].as_str().unwrap());
    assert_ne!(second["entries"], first["entries"]);
    for check in [
        "order-kept",
        "surrogates-intact",
        "persist-once",
        "deterministic",
    ] {
        assert!(report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["check"] == check && c["counterexample"].is_null()));
    }
}

/// Runs a printed `budgetlab finalize ...` command with the binary under test; returns its JSON output.
fn replay(command: &str) -> Value {
    let args: Vec<&str> = command.split(' ').collect();
    assert_eq!(args[..2], ["budgetlab", "finalize"], "{command}");
    let run = budgetlab().args(&args[1..]).output().unwrap();
    assert!(
        run.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap()
}

#[test]
fn the_same_flags_give_the_same_bytes_on_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |dir: &str, threads: &str| {
        let out = tmp.path().join(dir);
        let run = budgetlab()
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "conform",
                "--strategy",
                "gemini-cli",
                "--cases",
                "25",
                "--seed",
                "9",
            ])
            .args(["--out", path(&out)])
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(1));
        let json = std::fs::read(out.join("conform.json")).unwrap();
        let input = std::fs::read(out.join("counterexamples/idempotent.json")).unwrap();
        (String::from_utf8(run.stdout).unwrap(), json, input)
    };
    let (a, b) = (run("a", "1"), run("b", "2"));
    assert_eq!(
        a.0.replace(path(&tmp.path().join("a")), "DIR"),
        b.0.replace(path(&tmp.path().join("b")), "DIR")
    );
    assert_eq!(
        String::from_utf8(a.1)
            .unwrap()
            .replace(path(&tmp.path().join("a")), "DIR"),
        String::from_utf8(b.1)
            .unwrap()
            .replace(path(&tmp.path().join("b")), "DIR")
    );
    assert_eq!(a.2, b.2);
}

#[test]
fn bad_input_is_refused_with_exit_2_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "keep").unwrap();
    let out = tmp.path().join("out");
    let cases: &[(&[&str], &str)] = &[
        (
            &["--strategy", "fancy"],
            "--strategy: invalid strategy \"fancy\"",
        ),
        (
            &["--strategy", "reference", "--cases", "100001"],
            "invalid --cases \"100001\": must be between 0 and 100000",
        ),
        (&["--strategy", "reference", "--cases", "-1"], "--cases"),
        (
            &["--strategy", "reference", "--as", "codex"],
            "invalid --as \"codex\"",
        ),
        (
            &["--strategy", "reference", "--out", path(&mine)],
            "is not a budgetlab report folder",
        ),
        (
            &["--strategy", "reference", "--junit", path(tmp.path())],
            "--junit",
        ),
        (&["--cases", "5"], "--strategy"),
    ];
    for (args, needle) in cases {
        let mut cmd = budgetlab();
        cmd.arg("conform").args(*args);
        if !args.contains(&"--out") {
            cmd.args(["--out", path(&out)]);
        }
        let run = cmd.output().unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(run.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(run.stdout.is_empty(), "{args:?}");
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
    assert_eq!(std::fs::read_dir(&mine).unwrap().count(), 1);
}
