//! `scripts/scale-run.sh` on a tiny workload: it runs the shards and merges them into what an unsharded run
//! gives (cost aside), prints every step's wall time and peak memory and the merged files' sizes, and refuses an
//! output folder it did not make.

use crate::support::{records_without_cost, results_without_cost};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FLAGS: [&str; 4] = [
    "--scenario",
    "mixed-realistic",
    "--strategies",
    "reference,codex",
];

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("budgetlab")
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/scale-run.sh")
}

fn scale_run(out: &Path, extra: &[&str], rss: Option<&str>) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(script())
        .args(FLAGS)
        .args(["--shards", "2", "--out"])
        .arg(out)
        .arg("--bin")
        .arg(bin())
        .args(extra);
    match rss {
        Some(mode) => cmd.env("SCALE_RUN_RSS", mode),
        None => cmd.env_remove("SCALE_RUN_RSS"),
    };
    cmd.output().unwrap()
}

/// The `key=value` fields of the printed line starting with `head`.
fn fields<'a>(stdout: &'a str, head: &str) -> Vec<(&'a str, &'a str)> {
    let line = stdout
        .lines()
        .find(|l| l.split(' ').next() == Some(head))
        .unwrap_or_else(|| panic!("no line {head:?} in {stdout}"));
    line.split(' ')
        .skip(1)
        .map(|kv| {
            kv.split_once('=')
                .unwrap_or_else(|| panic!("{kv:?} in {line:?}"))
        })
        .collect()
}

fn value<'a>(fields: &[(&str, &'a str)], key: &str) -> &'a str {
    fields
        .iter()
        .find(|(k, _)| *k == key)
        .unwrap_or_else(|| panic!("no {key} in {fields:?}"))
        .1
}

/// Checks the printed report of a run of 4 batches (48 turns) with peak memory read by `rss`.
fn check_report(stdout: &str, out: &Path, rss: &str) {
    let heads: Vec<&str> = stdout
        .lines()
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        heads,
        [
            "step=shard-0/2",
            "step=shard-1/2",
            "step=merge",
            "total",
            "output=batches.jsonl",
            "output=batches.csv",
            "output=results.json"
        ],
        "{stdout}"
    );
    let mut walls = 0.0;
    for step in ["step=shard-0/2", "step=shard-1/2", "step=merge"] {
        let f = fields(stdout, step);
        assert_eq!(
            f.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            ["wall_s", "peak_rss_kib"]
        );
        let wall: f64 = value(&f, "wall_s").parse().unwrap();
        let peak: u64 = value(&f, "peak_rss_kib").parse().unwrap();
        // A real process: some time, and at least a megabyte resident, well under a gigabyte at this size.
        assert!(
            wall > 0.0 && (1_024..1_048_576).contains(&peak),
            "{step}: {f:?}"
        );
        walls += wall;
    }
    let total = fields(stdout, "total");
    assert_eq!(value(&total, "batches"), "4");
    assert_eq!(value(&total, "turns"), "48");
    assert_eq!(value(&total, "shards"), "2");
    assert_eq!(value(&total, "rss"), rss);
    let wall: f64 = value(&total, "wall_s").parse().unwrap();
    assert!(
        wall + 0.01 >= walls,
        "the total {wall} covers the steps {walls}"
    );
    let peaks: Vec<u64> = ["step=shard-0/2", "step=shard-1/2", "step=merge"]
        .iter()
        .map(|s| value(&fields(stdout, s), "peak_rss_kib").parse().unwrap())
        .collect();
    assert_eq!(
        value(&total, "peak_rss_kib").parse::<u64>().unwrap(),
        *peaks.iter().max().unwrap(),
        "one step at a time: the total's peak is the largest step's"
    );
    for file in ["batches.jsonl", "batches.csv", "results.json"] {
        let line = fields(stdout, &format!("output={file}"));
        let bytes = fs::metadata(out.join("merged").join(file)).unwrap().len();
        assert_eq!(line, [("bytes", bytes.to_string().as_str())], "{file}");
    }
}

#[test]
fn scale_run_merges_shards_into_the_unsharded_run_and_reports_each_step() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    let status = Command::new(bin())
        .args([
            "run",
            "--scenarios",
            "mixed-realistic",
            "--strategies",
            "reference,codex",
        ])
        .args(["--batches", "4", "--out"])
        .arg(&whole)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );

    let out = tmp.path().join("scale");
    for (extra, rss) in [
        (&["--batches", "4"][..], None),
        // 40 turns over the 12 of one batch (6 budgets x 2 strategies): 4 batches; and into the script's own
        // folder again, with the memory read from /proc.
        (&["--turns", "40"][..], Some("proc")),
    ] {
        let run = scale_run(&out, extra, rss);
        let stdout = String::from_utf8(run.stdout).unwrap();
        assert!(
            run.status.success(),
            "{extra:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let label = if rss == Some("proc") {
            "proc-vmhwm"
        } else if Path::new("/usr/bin/time").exists() {
            "time"
        } else {
            "proc-vmhwm"
        };
        check_report(&stdout, &out, label);
        let merged = out.join("merged");
        assert!(
            results_without_cost(&merged) == results_without_cost(&whole),
            "{extra:?}: merged results.json differs from the unsharded run's beyond the cost"
        );
        assert!(
            records_without_cost(&merged) == records_without_cost(&whole),
            "{extra:?}: merged batches.jsonl differs from the unsharded run's beyond the cost"
        );
    }
}

#[test]
fn scale_run_refuses_a_folder_it_did_not_make_and_bad_arguments() {
    let tmp = tempfile::tempdir().unwrap();
    let theirs = tmp.path().join("theirs");
    fs::create_dir(&theirs).unwrap();
    fs::write(theirs.join("notes.txt"), "mine").unwrap();
    let file = tmp.path().join("a-file");
    fs::write(&file, "mine").unwrap();
    for (out, extra, needle) in [
        (
            &theirs,
            &["--batches", "2"][..],
            "was not made by scale-run.sh",
        ),
        (
            &file,
            &["--batches", "2"][..],
            "was not made by scale-run.sh",
        ),
        (
            &tmp.path().join("new"),
            &["--batches", "0"][..],
            "--batches '0'",
        ),
        (
            &tmp.path().join("new"),
            &["--batches", "2", "--turns", "9"][..],
            "not both",
        ),
        (
            &tmp.path().join("new"),
            &[][..],
            "--batches or --turns is required",
        ),
    ] {
        let run = scale_run(out, extra, None);
        let err = String::from_utf8(run.stderr).unwrap();
        assert_eq!(run.status.code(), Some(2), "{extra:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("scale-run: ") && err.contains(needle),
            "{err}"
        );
        assert!(run.stdout.is_empty());
    }
    assert_eq!(
        fs::read_to_string(theirs.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(fs::read_dir(&theirs).unwrap().count(), 1, "nothing added");
    assert_eq!(fs::read_to_string(&file).unwrap(), "mine");
    assert!(
        !tmp.path().join("new").exists(),
        "bad arguments make nothing"
    );
}
