//! Outputs never destroy anything (issue 10, points 1 to 6), through the real binary: `-` is standard output; a
//! FIFO, device or socket is written through and a symlink followed, never replaced; temporary files have
//! unpredictable names that fit and never outlive a failure; `generate` writes its two files or neither; a
//! report folder replaces only a folder budgetlab made, in one step; and `finalize --backend fs` writes only
//! inside the artifact folder it resolved at the start and says so.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Exit 2, one line on stderr containing `needle`, nothing on stdout, no panic.
fn assert_refused(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "stdout not empty");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
}

fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const GENERATE: [&str; 5] = ["generate", "--scenario", "many-small", "--batches", "2"];

/// What `generate` prints to standard output with no `--out`.
fn generated() -> Vec<u8> {
    let out = budgetlab().args(GENERATE).output().unwrap();
    assert_success(&out);
    assert!(!out.stdout.is_empty());
    out.stdout
}

/// What `generate --needles` writes.
fn generated_needles() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let needles = dir.path().join("n.jsonl");
    let out = budgetlab()
        .args(GENERATE)
        .arg("--needles")
        .arg(&needles)
        .arg("--out")
        .arg(dir.path().join("b.jsonl"))
        .output()
        .unwrap();
    assert_success(&out);
    fs::read(needles).unwrap()
}

fn generate_to(target: &Path) -> Output {
    budgetlab()
        .args(GENERATE)
        .arg("--out")
        .arg(target)
        .output()
        .unwrap()
}

// ---- 1. standard output, special files and symlinks ----

#[test]
fn dash_is_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = budgetlab()
        .current_dir(dir.path())
        .args(GENERATE)
        .args(["--out", "-"])
        .output()
        .unwrap();
    assert_success(&out);
    assert_eq!(out.stdout, generated());
    assert!(names(dir.path()).is_empty(), "a file named - was made");

    // The needles too, when the batches go to a file.
    let out = budgetlab()
        .current_dir(dir.path())
        .args(GENERATE)
        .args(["--out", "b.jsonl", "--needles", "-"])
        .output()
        .unwrap();
    assert_success(&out);
    assert_eq!(out.stdout, generated_needles());
    assert_eq!(fs::read(dir.path().join("b.jsonl")).unwrap(), generated());
    assert_eq!(names(dir.path()), ["b.jsonl"]);
}

#[test]
fn junit_dash_prints_the_xml_alone() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline/results.json");
    let out = budgetlab()
        .current_dir(dir.path())
        .arg("check")
        .arg("--baseline")
        .arg(&baseline)
        .arg("--current")
        .arg(&baseline)
        .args(["--junit", "-"])
        .output()
        .unwrap();
    assert_success(&out);
    let xml = String::from_utf8(out.stdout).unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(xml.trim_end().ends_with("</testsuites>"), "{xml}");
    assert!(names(dir.path()).is_empty(), "a file named - was made");
}

#[cfg(unix)]
#[test]
fn a_fifo_is_written_through() {
    use std::os::unix::fs::FileTypeExt;
    use std::process::{Command as Process, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(Process::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let mut reader = Process::new("cat")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = generate_to(&fifo);
    let still_fifo = fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo();
    if !still_fifo {
        // The reader waits on a FIFO nothing will ever open: end it (our own child) before failing.
        reader.kill().unwrap();
        reader.wait().unwrap();
    }
    assert_success(&out);
    assert!(still_fifo, "the FIFO was replaced");
    let read = reader.wait_with_output().unwrap();
    assert_eq!(read.stdout, generated());
    assert_eq!(names(dir.path()), ["pipe"]);
}

#[cfg(unix)]
#[test]
fn a_socket_is_written_through() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    use std::os::unix::net::UnixListener;
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("sock");
    let listener = UnixListener::bind(&socket).unwrap();
    let reader = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut got = Vec::new();
        stream.read_to_end(&mut got).unwrap();
        got
    });
    let out = generate_to(&socket);
    assert_success(&out);
    // (On failure the reader thread is left waiting; the test process ends anyway.)
    assert!(
        fs::symlink_metadata(&socket)
            .unwrap()
            .file_type()
            .is_socket(),
        "the socket was replaced"
    );
    assert_eq!(reader.join().unwrap(), generated());
    assert_eq!(names(dir.path()), ["sock"]);
}

#[cfg(unix)]
#[test]
fn a_symlink_is_followed_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.jsonl");
    fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink("target.jsonl", &link).unwrap();
    assert_success(&generate_to(&link));
    assert_eq!(fs::read_link(&link).unwrap(), PathBuf::from("target.jsonl"));
    assert_eq!(fs::read(&target).unwrap(), generated());
    assert_eq!(names(dir.path()), ["link.jsonl", "target.jsonl"]);

    // A link to a file not there yet: the file is made where the link points, in another folder.
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    let dangling = dir.path().join("dangling.jsonl");
    std::os::unix::fs::symlink("sub/new.jsonl", &dangling).unwrap();
    assert_success(&generate_to(&dangling));
    assert!(fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(sub.join("new.jsonl")).unwrap(), generated());
    assert_eq!(names(&sub), ["new.jsonl"]);

    // A file's permissions survive its replacement.
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
    assert_success(&generate_to(&link));
    assert_eq!(
        fs::metadata(&target).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_to_dev_null_is_written_through() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("null");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    assert_success(&generate_to(&link));
    assert_eq!(fs::read_link(&link).unwrap(), PathBuf::from("/dev/null"));
    assert!(fs::symlink_metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    assert_eq!(names(dir.path()), ["null"]);
}

// ---- 4. temporary files ----

#[test]
fn a_file_name_that_fits_persists() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{}.jsonl", "b".repeat(249)); // 255 bytes, the limit
    let out = generate_to(&dir.path().join(&name));
    assert_success(&out);
    assert_eq!(fs::read(dir.path().join(&name)).unwrap(), generated());
    assert_eq!(names(dir.path()), [name]);
}

#[test]
fn an_output_naming_a_folder_is_refused_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("o");
    fs::create_dir(&o).unwrap();
    let out = budgetlab()
        .args(GENERATE)
        .arg("--out")
        .arg(format!("{}/newfile/", o.display()))
        .output()
        .unwrap();
    assert_refused(&out, "newfile");
    assert!(names(&o).is_empty(), "left behind: {:?}", names(&o));

    // --junit pointing at an existing folder.
    let baseline = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline/results.json");
    let junit = dir.path().join("junit");
    fs::create_dir(&junit).unwrap();
    fs::write(junit.join("mine.txt"), "keep").unwrap();
    let out = budgetlab()
        .arg("check")
        .arg("--baseline")
        .arg(&baseline)
        .arg("--current")
        .arg(&baseline)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    assert_refused(&out, "junit");
    assert_eq!(names(dir.path()), ["junit", "o"]);
    assert_eq!(names(&junit), ["mine.txt"]);
}

#[cfg(unix)]
#[test]
fn a_symlink_planted_at_the_old_temporary_name_is_never_followed() {
    use budgetlab::atomic::AtomicFile;
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    fs::write(&victim, "keep").unwrap();
    let dest = dir.path().join("sym.jsonl");
    // The name the old scheme used, predictable from the process id.
    let planted = dir
        .path()
        .join(format!(".sym.jsonl.{}.tmp", std::process::id()));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let mut file = AtomicFile::create(&dest).unwrap();
    file.write_all(b"new").unwrap();
    file.commit().unwrap();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    assert_eq!(fs::read_to_string(&dest).unwrap(), "new");
    assert!(fs::symlink_metadata(&planted)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        names(dir.path()).len(),
        3,
        "victim, the planted link and the output"
    );
}

// ---- 5. generate: both files or neither ----

#[test]
fn generate_writes_both_files_or_neither() {
    let dir = tempfile::tempdir().unwrap();
    let batches = dir.path().join("b.jsonl");
    fs::write(&batches, "mine").unwrap();
    let folder = dir.path().join("folder");
    fs::create_dir(&folder).unwrap();
    // The needles cannot be written: the batches stay as they were.
    let out = budgetlab()
        .args(GENERATE)
        .arg("--out")
        .arg(&batches)
        .arg("--needles")
        .arg(&folder)
        .output()
        .unwrap();
    assert_refused(&out, "folder");
    assert!(
        fs::read(&batches).unwrap() == b"mine",
        "the batches were replaced"
    );
    // The batches cannot be written: no needles file appears.
    let needles = dir.path().join("n.jsonl");
    let out = budgetlab()
        .args(GENERATE)
        .arg("--out")
        .arg(&folder)
        .arg("--needles")
        .arg(&needles)
        .output()
        .unwrap();
    assert_refused(&out, "folder");
    assert!(!needles.exists());
    assert_eq!(names(dir.path()), ["b.jsonl", "folder"]);
    assert!(names(&folder).is_empty());
}

#[test]
fn with_batches_on_stdout_the_needles_come_first() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder");
    fs::create_dir(&folder).unwrap();
    // Needles that cannot be written: nothing is printed.
    let out = budgetlab()
        .args(GENERATE)
        .arg("--needles")
        .arg(&folder)
        .output()
        .unwrap();
    assert_refused(&out, "folder");
    // Needles that can: the same batches and needles as with --out.
    let needles = dir.path().join("n.jsonl");
    let out = budgetlab()
        .args(GENERATE)
        .arg("--needles")
        .arg(&needles)
        .output()
        .unwrap();
    assert_success(&out);
    assert_eq!(out.stdout, generated());
    assert_eq!(fs::read(&needles).unwrap(), generated_needles());
}

#[test]
fn the_same_file_for_batches_and_needles_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.jsonl");
    fs::write(&x, "mine").unwrap();
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    let aliases: Vec<(PathBuf, PathBuf)> = vec![
        (x.clone(), x.clone()),
        (x.clone(), sub.join("../x.jsonl")),
        (dir.path().join("new.jsonl"), dir.path().join("new.jsonl")),
    ];
    for (a, b) in aliases {
        let out = budgetlab()
            .args(GENERATE)
            .arg("--out")
            .arg(&a)
            .arg("--needles")
            .arg(&b)
            .output()
            .unwrap();
        assert_refused(&out, "same file");
    }
    #[cfg(unix)]
    {
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&x, &link).unwrap();
        let out = budgetlab()
            .args(GENERATE)
            .arg("--out")
            .arg(&x)
            .arg("--needles")
            .arg(&link)
            .output()
            .unwrap();
        assert_refused(&out, "same file");
        fs::remove_file(&link).unwrap();
    }
    let out = budgetlab()
        .args(GENERATE)
        .args(["--out", "-", "--needles", "-"])
        .output()
        .unwrap();
    assert_refused(&out, "same file");
    assert_eq!(fs::read_to_string(&x).unwrap(), "mine");
    assert_eq!(names(dir.path()), ["sub", "x.jsonl"]);
}

// ---- 2 and 3. report folders ----

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

// ---- 6. the artifact folder of finalize ----

/// A batch of one 40-unit shell output under `call_id`.
fn batch(call_id: &str) -> String {
    format!(
        r#"[{{"callId":"{call_id}","toolName":"shell","responseParts":[{{"functionResponse":{{"id":"{call_id}","name":"shell","response":{{"output":"0123456789012345678901234567890123456789"}}}}}}]}}]"#
    )
}

fn finalize_fs(artifact_dir: &str, input: &str) -> Output {
    budgetlab()
        .args([
            "finalize",
            "--budget",
            "10",
            "--backend",
            "fs",
            "--artifact-dir",
            artifact_dir,
        ])
        .write_stdin(input)
        .output()
        .unwrap()
}

#[test]
fn an_empty_artifact_dir_is_refused() {
    // A unique id, so that the check below cannot see someone else's file.
    let id = format!("budgetlab-test-{}-{:x}", std::process::id(), rand_suffix());
    let at_root = PathBuf::from(format!("/{id}.txt"));
    let out = finalize_fs("", &batch(&id));
    let wrote_at_root = at_root.exists();
    if wrote_at_root {
        // The old behaviour: budgetlab made this file; take it away again before failing.
        fs::remove_file(&at_root).unwrap();
    }
    assert!(!wrote_at_root, "an artifact was written at the root");
    assert_refused(&out, "--artifact-dir");
    let out = budgetlab()
        .args(["finalize", "--budget", "10", "--artifact-dir", ""])
        .write_stdin(batch("c1"))
        .output()
        .unwrap();
    assert_refused(&out, "--artifact-dir");
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

#[cfg(unix)]
#[test]
fn artifacts_go_where_the_report_says() {
    let root = tempfile::tempdir().unwrap();
    let real = root.path().join("real");
    fs::create_dir(&real).unwrap();
    let link = root.path().join("link");
    std::os::unix::fs::symlink("real", &link).unwrap();
    let out = finalize_fs(link.to_str().unwrap(), &batch("c1"));
    assert_success(&out);
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = format!("{}/c1.txt", real.canonicalize().unwrap().display());
    assert_eq!(got["persisted"][0]["path"], Value::String(path.clone()));
    assert_eq!(
        got["entries"][0]["persistedOutputFiles"][0],
        Value::String(path.clone())
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "0123456789012345678901234567890123456789"
    );
    assert_eq!(names(&real), ["c1.txt"]);
    assert_eq!(names(root.path()), ["link", "real"]);

    // A relative folder is reported as the absolute one it resolved to.
    let out = budgetlab()
        .current_dir(root.path())
        .args([
            "finalize",
            "--budget",
            "10",
            "--backend",
            "fs",
            "--artifact-dir",
            "rel",
        ])
        .write_stdin(batch("c2"))
        .output()
        .unwrap();
    assert_success(&out);
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = format!(
        "{}/c2.txt",
        root.path().canonicalize().unwrap().join("rel").display()
    );
    assert_eq!(got["persisted"][0]["path"], Value::String(path.clone()));
    assert!(Path::new(&path).is_file());
}

#[test]
fn artifact_ids_whose_file_name_fits_persist() {
    let root = tempfile::tempdir().unwrap();
    let art = root.path().join("art");
    for len in [239, 245, 251] {
        let id = "i".repeat(len);
        let out = finalize_fs(art.to_str().unwrap(), &batch(&id));
        assert_success(&out);
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        let path = format!("{}/{id}.txt", art.canonicalize().unwrap().display());
        assert_eq!(
            got["persisted"][0]["path"],
            Value::String(path.clone()),
            "{len}"
        );
        assert!(Path::new(&path).is_file());
    }
    assert_eq!(names(&art).len(), 3, "no temporary file left");
}
