//! Report folders (points 2 and 3): replaced only when budgetlab made them, in one step, never leaving the
//! path without a report; staging folders of killed runs removed only when marked and unlocked.

use super::*;

const SMALL_RUN: [&str; 7] = [
    "run",
    "--scenarios",
    "many-small",
    "--strategies",
    "reference",
    "--batches",
    "2",
];

fn run_to(out: &Path) -> Output {
    budgetlab()
        .args(SMALL_RUN)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn sweep_to(out: &Path) -> Output {
    budgetlab()
        .args([
            "sweep",
            "--scenario",
            "many-small",
            "--budgets",
            "1000..2000",
            "--steps",
            "2",
            "--strategies",
            "reference",
            "--batches",
            "2",
            "--out",
        ])
        .arg(out)
        .output()
        .unwrap()
}

/// Two shards of the small run, in `root/s0` and `root/s1`, merged into `out`.
fn merge_to(root: &Path, out: &Path) -> Output {
    for i in 0..2 {
        let shard = root.join(format!("s{i}"));
        if !shard.exists() {
            let done = budgetlab()
                .args(SMALL_RUN)
                .args(["--shard", &format!("{i}/2"), "--out"])
                .arg(&shard)
                .output()
                .unwrap();
            assert_success(&done);
        }
    }
    budgetlab()
        .arg("merge")
        .arg(root.join("s0"))
        .arg(root.join("s1"))
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn report_folders_replace_only_what_budgetlab_made() {
    let root = tempfile::tempdir().unwrap();
    let shards = tempfile::tempdir().unwrap();
    type Writer<'a> = Box<dyn Fn(&Path) -> Output + 'a>;
    let writers: [(&str, Writer); 3] = [
        ("run", Box::new(run_to)),
        ("sweep", Box::new(sweep_to)),
        ("merge", Box::new(|out: &Path| merge_to(shards.path(), out))),
    ];
    for (command, write) in &writers {
        let base = root.path().join(command);
        fs::create_dir(&base).unwrap();

        // An existing file is refused and kept.
        let afile = base.join("afile");
        fs::write(&afile, "mine").unwrap();
        assert_refused(
            &write(&afile),
            &format!(
                "{} exists and is not a budgetlab report folder",
                afile.display()
            ),
        );
        assert_eq!(fs::read_to_string(&afile).unwrap(), "mine");

        // A folder with the user's files is refused and kept.
        let userdir = base.join("userdir");
        fs::create_dir(&userdir).unwrap();
        fs::write(userdir.join("notes.txt"), "mine").unwrap();
        assert_refused(
            &write(&userdir),
            &format!(
                "{} exists and is not a budgetlab report folder",
                userdir.display()
            ),
        );
        assert_eq!(names(&userdir), ["notes.txt"]);
        assert_eq!(names(&base), ["afile", "userdir"], "{command}");

        // An empty folder is filled; the folder budgetlab made is then replaced, whole.
        let empty = base.join("empty");
        fs::create_dir(&empty).unwrap();
        assert_success(&write(&empty));
        assert!(names(&empty).contains(&".budgetlab-report".to_string()));
        assert!(names(&empty).contains(&"index.html".to_string()));
        fs::write(empty.join("stale.txt"), "from before").unwrap();
        assert_success(&write(&empty));
        assert!(!empty.join("stale.txt").exists(), "{command}");
        assert!(names(&empty).contains(&"index.html".to_string()));
        assert_eq!(names(&base), ["afile", "empty", "userdir"], "{command}");
    }
}

#[test]
fn the_current_folder_gets_a_clear_refusal() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("mine.txt"), "keep").unwrap();
    for dot in [".", "./", "..", "sub/.."] {
        let out = budgetlab()
            .current_dir(dir.path())
            .args(SMALL_RUN)
            .args(["--out", dot])
            .output()
            .unwrap();
        assert_refused(&out, "cannot be replaced by a report folder");
    }
    assert_eq!(names(dir.path()), ["mine.txt"]);
}

#[test]
fn staging_folders_of_killed_runs_are_removed_only_when_marked_and_unlocked() {
    let dir = tempfile::tempdir().unwrap();
    let marker = "Signature: budgetlab report folder\n";
    let stale = dir.path().join(".budgetlab-staging-killed");
    fs::create_dir(&stale).unwrap();
    fs::write(stale.join(".budgetlab-report"), marker).unwrap();
    fs::write(stale.join("results.json"), "{}").unwrap();
    let unmarked = dir.path().join(".budgetlab-staging-mine");
    fs::create_dir(&unmarked).unwrap();
    fs::write(unmarked.join("notes.txt"), "keep").unwrap();
    // A staging folder whose run is still going holds a lock on its marker.
    let live = dir.path().join(".budgetlab-staging-live");
    fs::create_dir(&live).unwrap();
    fs::write(live.join(".budgetlab-report"), marker).unwrap();
    let lock = fs::File::open(live.join(".budgetlab-report")).unwrap();
    lock.lock().unwrap();

    assert_success(&run_to(&dir.path().join("report")));
    assert_eq!(
        names(dir.path()),
        [
            ".budgetlab-staging-live",
            ".budgetlab-staging-mine",
            "report"
        ]
    );
    assert_eq!(names(&unmarked), ["notes.txt"]);
    drop(lock);
}

#[test]
fn replacing_a_report_never_leaves_the_path_without_one() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("latest");
    let files = |i: usize| vec![("results.json".to_string(), format!("{i}").into_bytes())];
    budgetlab::report::write_folder(&dir, &files(0)).unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let missing = Arc::new(AtomicUsize::new(0));
    let watcher = {
        let (done, missing, path) = (done.clone(), missing.clone(), dir.join("results.json"));
        std::thread::spawn(move || {
            let mut looks = 0u64;
            while !done.load(Ordering::Relaxed) {
                if fs::symlink_metadata(&path).is_err() {
                    missing.fetch_add(1, Ordering::Relaxed);
                }
                looks += 1;
            }
            looks
        })
    };
    for i in 1..=400 {
        budgetlab::report::write_folder(&dir, &files(i)).unwrap();
    }
    done.store(true, Ordering::Relaxed);
    let looks = watcher.join().unwrap();
    assert!(looks > 0);
    assert_eq!(fs::read_to_string(dir.join("results.json")).unwrap(), "400");
    #[cfg(any(target_os = "linux", target_os = "android"))]
    assert_eq!(
        missing.load(Ordering::Relaxed),
        0,
        "the report was missing in {} of {looks} looks",
        missing.load(Ordering::Relaxed)
    );
    assert_eq!(names(root.path()), ["latest"]);
}

/// A run killed by strace at its first and at its second rename leaves the path holding a complete report (the
/// old one or the new one), and the next run removes what the killed one left. Skipped, saying so, where strace
/// is missing or cannot trace (under `CI=true` that fails instead: `.ci/run` installs strace).
#[cfg(target_os = "linux")]
#[test]
fn a_run_killed_at_the_swap_leaves_a_whole_report() {
    use std::process::Command as Process;
    let strace_works = Process::new("strace")
        .args(["-f", "-o", "/dev/null", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !strace_works {
        crate::support::tool_missing("strace is not installed or cannot trace here");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_budgetlab");
    let root = tempfile::tempdir().unwrap();
    let report = root.path().join("report");
    assert_success(&run_to(&report));
    let complete = |dir: &Path| {
        let results: Value =
            serde_json::from_slice(&fs::read(dir.join("results.json")).unwrap()).unwrap();
        assert_eq!(results["rows"].as_array().unwrap().len(), 3);
        assert!(dir.join("index.html").is_file() && dir.join("batches.jsonl").is_file());
    };
    for when in [1, 2] {
        let killed = Process::new("strace")
            .args([
                "-f",
                "-o",
                "/dev/null",
                "-e",
                "trace=rename,renameat,renameat2",
            ])
            .args([
                "-e",
                &format!("inject=rename,renameat,renameat2:signal=KILL:when={when}"),
            ])
            .arg(bin)
            .args(SMALL_RUN)
            .arg("--out")
            .arg(&report)
            .output()
            .unwrap();
        // Killed at the rename, or finished where the run makes no such rename; the first one is always made.
        if when == 1 {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(killed.status.signal(), Some(9), "not killed at the swap");
        }
        assert!(
            report.is_dir(),
            "killed at rename {when}: the report is gone"
        );
        complete(&report);
    }
    assert_success(&run_to(&report));
    complete(&report);
    assert_eq!(
        names(root.path()),
        ["report"],
        "leftovers of the killed runs"
    );
}

#[test]
fn report_redraws_only_inside_a_budgetlab_folder() {
    let root = tempfile::tempdir().unwrap();
    let report = root.path().join("report");
    assert_success(&run_to(&report));
    // A folder the user assembled from a report's results, with charts of their own.
    let mine = root.path().join("mine");
    fs::create_dir_all(mine.join("charts")).unwrap();
    fs::copy(report.join("results.json"), mine.join("results.json")).unwrap();
    fs::write(mine.join("charts/drawn-by-hand.svg"), "<svg/>").unwrap();
    let out = budgetlab().arg("report").arg(&mine).output().unwrap();
    assert_refused(&out, "is not a budgetlab report folder");
    assert_eq!(names(&mine.join("charts")), ["drawn-by-hand.svg"]);
    assert_eq!(names(&mine), ["charts", "results.json"]);
    // Without charts of its own, the folder gets them.
    fs::remove_dir_all(mine.join("charts")).unwrap();
    assert_success(&budgetlab().arg("report").arg(&mine).output().unwrap());
    assert_eq!(names(&mine), ["charts", "index.html", "results.json"]);
    // ... and redraws them later: they carry budgetlab's marker now.
    assert_success(&budgetlab().arg("report").arg(&mine).output().unwrap());
    assert!(names(&mine.join("charts")).contains(&".budgetlab-report".to_string()));
    assert_eq!(names(&mine), ["charts", "index.html", "results.json"]);
    // A page of the user's own is not replaced.
    let theirs = root.path().join("theirs");
    fs::create_dir(&theirs).unwrap();
    fs::copy(report.join("results.json"), theirs.join("results.json")).unwrap();
    fs::write(theirs.join("index.html"), "mine").unwrap();
    let out = budgetlab().arg("report").arg(&theirs).output().unwrap();
    assert_refused(&out, "is not in a budgetlab report folder");
    assert_eq!(
        fs::read_to_string(theirs.join("index.html")).unwrap(),
        "mine"
    );
    assert_eq!(names(&theirs), ["index.html", "results.json"]);
    // The report folder budgetlab made is redrawn in place.
    fs::write(report.join("charts/stale.svg"), "<svg/>").unwrap();
    assert_success(&budgetlab().arg("report").arg(&report).output().unwrap());
    assert!(!report.join("charts/stale.svg").exists());
    assert!(!names(&report)
        .iter()
        .any(|n| n.starts_with(".budgetlab-staging")));
}

/// Point 9 of issue 29: an old report that cannot be removed (a file in it belongs to another user) is replaced,
/// left at its staging name, and one warning line names it. As root, budgetlab runs as `nobody` over a report
/// root made; otherwise a folder of the old report is made read-only.
#[cfg(unix)]
#[test]
fn an_old_report_that_cannot_be_removed_is_named_in_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::set_permissions(d, fs::Permissions::from_mode(0o777)).unwrap();
    let out = d.join("report");
    assert_success(&run_to(&out));
    let locked = out.join("kept");
    fs::create_dir(&locked).unwrap();
    fs::write(locked.join("theirs.txt"), "theirs").unwrap();
    let bin_dir = tempfile::tempdir().unwrap();
    let mut again = if effective_uid() == 0 {
        as_nobody(&bin_dir)
    } else {
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
        budgetlab()
    };
    let result = again
        .args(SMALL_RUN)
        .args(["--seed", "7", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&result);
    let err = String::from_utf8_lossy(&result.stderr);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
    let staged: Vec<String> = names(d)
        .into_iter()
        .filter(|n| n.starts_with(".budgetlab-staging-"))
        .collect();
    assert_eq!(staged.len(), 1, "{staged:?}");
    let left = d.join(&staged[0]);
    // So that the temporary folder can be removed.
    fs::set_permissions(left.join("kept"), fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        warnings,
        [format!(
            "budgetlab: warning: the replaced report could not be removed (Permission denied) and is left at {}; \
             remove it by hand",
            left.display()
        )]
    );
    // The new report is in place; the old one's file is where the warning says.
    assert!(fs::read_to_string(out.join("results.json"))
        .unwrap()
        .contains("\"seed\": 7,"));
    assert_eq!(fs::read(left.join("kept/theirs.txt")).unwrap(), b"theirs");
}

/// A command running budgetlab as `nobody` (for a test run as root): a copy of the binary in `bin_dir`, which
/// anyone can reach, since the build's own folder may not be (a checkout under /root).
#[cfg(unix)]
fn as_nobody(bin_dir: &tempfile::TempDir) -> Command {
    use std::os::unix::fs::PermissionsExt;
    let bin = bin_dir.path().join("budgetlab");
    fs::copy(env!("CARGO_BIN_EXE_budgetlab"), &bin).unwrap();
    fs::set_permissions(bin_dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(bin);
    cmd
}

/// The effective user id of this test process, read from /proc (no libc call needed).
fn effective_uid() -> u32 {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .and_then(|id| id.parse().ok())
        .unwrap_or(u32::MAX)
}

/// `conform --junit` into a folder it cannot write in is refused before the report is written, not after it.
#[cfg(unix)]
#[test]
fn a_junit_file_that_cannot_be_written_is_refused_before_the_report() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::set_permissions(d, fs::Permissions::from_mode(0o777)).unwrap();
    let locked = d.join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    let bin_dir = tempfile::tempdir().unwrap();
    let mut conform = if effective_uid() == 0 {
        as_nobody(&bin_dir)
    } else {
        budgetlab()
    };
    let out = conform
        .current_dir(d)
        .args(["conform", "--strategy", "reference", "--cases", "2"])
        .args(["--out", "report", "--junit", "locked/junit.xml"])
        .output()
        .unwrap();
    assert_refused(&out, "--junit");
    assert_eq!(names(d), ["locked"]);
    assert!(names(&locked).is_empty());
}

/// A file of another user in a sticky folder cannot be replaced: refused before any work, not after it. Only
/// root can make such a file for a test, so elsewhere the case is skipped.
#[cfg(unix)]
#[test]
fn a_foreign_file_in_a_sticky_folder_is_refused_up_front() {
    use std::os::unix::fs::PermissionsExt;
    if effective_uid() != 0 {
        eprintln!("skipped: not root, so no file of another user to put in a sticky folder");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::set_permissions(d, fs::Permissions::from_mode(0o1777)).unwrap();
    fs::write(d.join("theirs.jsonl"), "theirs").unwrap();
    let bin_dir = tempfile::tempdir().unwrap();
    let out = as_nobody(&bin_dir)
        .current_dir(d)
        .args(["generate", "--scenario", "many-small", "--batches", "2"])
        .args(["--out", "theirs.jsonl"])
        .output()
        .unwrap();
    assert_refused(
        &out,
        "theirs.jsonl: belongs to another user in a folder with the sticky bit, where only its owner can replace it",
    );
    assert_eq!(names(d), ["theirs.jsonl"]);
    assert_eq!(fs::read(d.join("theirs.jsonl")).unwrap(), b"theirs");
}
