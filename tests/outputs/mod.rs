//! Outputs never destroy anything (issue 10, points 1 to 6), through the real binary: `-` is standard output; a
//! FIFO, device or socket is written through, never replaced, and a symlink to anything else refused; temporary files have
//! unpredictable names that fit and never outlive a failure; `generate` writes its two files or neither; a
//! report folder replaces only a folder budgetlab made, in one step; and `finalize --backend fs` writes only
//! inside the artifact folder it resolved at the start and says so.

use crate::support::names;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

mod artifacts;
mod folders;
mod links;
mod own_input;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
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
        assert_refused(&out, "is a symbolic link");
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
