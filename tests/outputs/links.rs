//! No output is written through a symbolic link (issue 29, point 1): a link at the final component of any
//! output, a file or a report folder, is refused with exit 2 and one line, and what it points to is left as it
//! was; inside a report folder, `report` refuses a link where a page or the charts folder would go. A link to a
//! stream (a FIFO, a device such as `/dev/null`) is still written through: nothing there can be replaced.

use super::*;

const LINKED: &str = "is a symbolic link; budgetlab does not write through links";

/// A folder holding `victim.txt`, `victims/` (with `keep.txt`), `corpus.jsonl` and a small run's `base/`
/// report: what a command could damage, and the inputs the commands below read.
pub(super) fn playground() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("victim.txt"), "keep").unwrap();
    fs::create_dir(d.join("victims")).unwrap();
    fs::write(d.join("victims/keep.txt"), "keep").unwrap();
    let out = budgetlab()
        .args(GENERATE)
        .arg("--out")
        .arg(d.join("corpus.jsonl"))
        .output()
        .unwrap();
    assert_success(&out);
    let out = budgetlab()
        .args(SMALL_RUN)
        .arg("--out")
        .arg(d.join("base"))
        .output()
        .unwrap();
    assert_success(&out);
    dir
}

pub(super) const SMALL_RUN: [&str; 9] = [
    "run",
    "--scenarios",
    "many-small",
    "--strategies",
    "reference",
    "--batches",
    "2",
    "--budgets",
    "5000",
];

/// Every name under `dir`, with each regular file's bytes: what must not change.
pub(super) fn snapshot(dir: &Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut all = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path.clone());
            }
            let bytes = meta.is_file().then(|| fs::read(&path).unwrap());
            all.push((path.strip_prefix(dir).unwrap().to_path_buf(), bytes));
        }
    }
    all.sort();
    all
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_file_a_folder_or_nothing_is_refused_and_nothing_is_written_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("target.jsonl"), "old").unwrap();
    fs::create_dir(d.join("sub")).unwrap();
    std::os::unix::fs::symlink("target.jsonl", d.join("to-file.jsonl")).unwrap();
    std::os::unix::fs::symlink("sub/new.jsonl", d.join("to-nothing.jsonl")).unwrap();
    std::os::unix::fs::symlink("sub", d.join("to-folder")).unwrap();
    let before = snapshot(d);
    for link in ["to-file.jsonl", "to-nothing.jsonl", "to-folder"] {
        let out = generate_to(&d.join(link));
        assert_refused(&out, &format!("{link}: {LINKED}"));
        // As --needles too: neither file is written.
        let out = budgetlab()
            .args(GENERATE)
            .arg("--out")
            .arg(d.join("batches.jsonl"))
            .arg("--needles")
            .arg(d.join(link))
            .output()
            .unwrap();
        assert_refused(&out, LINKED);
        assert_eq!(snapshot(d), before, "{link}");
    }
    assert_eq!(fs::read(d.join("target.jsonl")).unwrap(), b"old");
    assert!(names(&d.join("sub")).is_empty());
}

#[cfg(unix)]
#[test]
fn a_replaced_file_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.jsonl");
    fs::write(&target, "old").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
    assert_success(&generate_to(&target));
    assert_eq!(fs::read(&target).unwrap(), generated());
    assert_eq!(
        fs::metadata(&target).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[cfg(unix)]
#[test]
fn no_command_writes_through_a_link_given_as_its_output() {
    let dir = playground();
    let d = dir.path();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/import");
    let base = d.join("base").display().to_string();
    let corpus = d.join("corpus.jsonl").display().to_string();
    // Each command with `LINK` where its output goes; the link points at a file, a folder or nothing.
    let commands: Vec<Vec<String>> = [
        vec![
            "generate",
            "--scenario",
            "many-small",
            "--batches",
            "2",
            "--out",
            "LINK",
        ],
        vec!["import", "--format", "auto", fixtures, "--out", "LINK"],
        vec!["calibrate", &corpus, "--out", "LINK"],
        vec![
            "check",
            "--baseline",
            &base,
            "--current",
            &base,
            "--junit",
            "LINK",
        ],
        vec![
            "conform",
            "--strategy",
            "reference",
            "--cases",
            "2",
            "--out",
            "OUT",
            "--junit",
            "LINK",
        ],
        vec![
            "conform",
            "--strategy",
            "reference",
            "--cases",
            "2",
            "--out",
            "LINK",
        ],
        [&SMALL_RUN[..], &["--out", "LINK"]].concat(),
        vec![
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
            "LINK",
        ],
        vec!["merge", &base, "--out", "LINK"],
        vec!["profile", "many-small", "--batches", "2", "--out", "LINK"],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(str::to_string).collect())
    .collect();
    let mut cases = 0;
    for args in &commands {
        for points_to in ["victim.txt", "victims", "nowhere"] {
            let link = d.join("link");
            std::os::unix::fs::symlink(points_to, &link).unwrap();
            let before = snapshot(d);
            let args: Vec<String> = args
                .iter()
                .map(|a| match a.as_str() {
                    "LINK" => link.display().to_string(),
                    "OUT" => d.join("conform-out").display().to_string(),
                    _ => a.clone(),
                })
                .collect();
            let out = budgetlab().args(&args).output().unwrap();
            let what = format!("{} -> {points_to}", args.join(" "));
            assert_refused(&out, LINKED);
            assert_eq!(snapshot(d), before, "{what}");
            assert_eq!(fs::read_link(&link).unwrap(), PathBuf::from(points_to));
            fs::remove_file(&link).unwrap();
            cases += 1;
        }
    }
    assert_eq!(cases, 30);
}

#[cfg(unix)]
#[test]
fn report_never_replaces_what_a_link_in_the_folder_names() {
    let dir = playground();
    let d = dir.path();
    let report = d.join("base");
    // A link where the page goes, to a file outside: refused before anything is drawn.
    fs::remove_file(report.join("index.html")).unwrap();
    std::os::unix::fs::symlink("../victim.txt", report.join("index.html")).unwrap();
    let before = snapshot(d);
    let out = budgetlab().arg("report").arg(&report).output().unwrap();
    assert_refused(&out, &format!("index.html: {LINKED}"));
    assert_eq!(snapshot(d), before);
    assert_eq!(fs::read(d.join("victim.txt")).unwrap(), b"keep");
    // Even a link to a stream: inside a report folder no link is written through.
    fs::remove_file(report.join("index.html")).unwrap();
    std::os::unix::fs::symlink("/dev/null", report.join("index.html")).unwrap();
    let out = budgetlab().arg("report").arg(&report).output().unwrap();
    assert_refused(&out, &format!("index.html: {LINKED}"));
    assert_eq!(
        fs::read_link(report.join("index.html")).unwrap(),
        PathBuf::from("/dev/null")
    );

    // A link where the charts folder goes, to a folder outside.
    fs::remove_file(report.join("index.html")).unwrap();
    fs::rename(report.join("charts"), d.join("old-charts")).unwrap();
    std::os::unix::fs::symlink("../victims", report.join("charts")).unwrap();
    let before = snapshot(d);
    let out = budgetlab().arg("report").arg(&report).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(snapshot(d), before);
    assert_eq!(names(&d.join("victims")), ["keep.txt"]);
}

#[cfg(unix)]
#[test]
fn a_link_to_a_stream_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("null");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    assert_success(&generate_to(&link));
    assert_eq!(fs::read_link(&link).unwrap(), PathBuf::from("/dev/null"));
    assert_eq!(names(dir.path()), ["null"]);
}

#[cfg(unix)]
#[test]
fn report_refuses_a_link_at_a_chart_of_its_own_charts_folder() {
    let dir = playground();
    let d = dir.path();
    let chart = d.join("base/charts/compliance.svg");
    fs::remove_file(&chart).unwrap();
    std::os::unix::fs::symlink("../../victim.txt", &chart).unwrap();
    let before = snapshot(d);
    let out = budgetlab()
        .arg("report")
        .arg(d.join("base"))
        .output()
        .unwrap();
    assert_refused(&out, &format!("charts/compliance.svg: {LINKED}"));
    assert_eq!(snapshot(d), before);
    assert_eq!(
        fs::read_link(&chart).unwrap(),
        PathBuf::from("../../victim.txt")
    );
    assert_eq!(fs::read(d.join("victim.txt")).unwrap(), b"keep");
}

#[cfg(unix)]
#[test]
fn an_external_log_folder_that_is_a_file_or_a_link_to_no_folder_is_refused() {
    let dir = playground();
    let d = dir.path();
    std::os::unix::fs::symlink("victim.txt", d.join("to-file")).unwrap();
    std::os::unix::fs::symlink("nowhere", d.join("to-nothing")).unwrap();
    std::os::unix::fs::symlink("/dev/null", d.join("to-null")).unwrap();
    let before = snapshot(d);
    for log in ["victim.txt", "to-file", "to-nothing", "to-null"] {
        let out = budgetlab()
            .current_dir(d)
            .args(["simulate", "--scenario", "many-small", "--batches", "1"])
            .args(["--external-log", log])
            .output()
            .unwrap();
        assert_refused(
            &out,
            &format!("budgetlab: invalid --external-log \"{log}\": is not a folder"),
        );
        assert_eq!(snapshot(d), before, "{log}");
    }
}
