//! Bounded memory (issue 15), measured: the peak resident set of `budgetlab run` stays flat when the number of
//! batches grows fourfold, and so does that of `budgetlab merge` when the shards grow fourfold.
//!
//! A test binary of its own, so that nothing else runs in this process: a child's peak resident set as `wait4`
//! reports it is the larger of the child's own and this process's high-water mark when it spawned the child (Linux
//! keeps a process's peak across `exec`), so this process must stay small: it holds no records and reads no report.

use std::process::Command as Process;

/// Runs the binary with `args` and returns its own peak resident set in KiB, from `wait4` on its pid (not
/// `RUSAGE_CHILDREN`, which mixes every child this process ever waited for).
fn peak_kib(args: &[&str]) -> i64 {
    let child = Process::new(env!("CARGO_BIN_EXE_budgetlab"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and wait4 writes only into the two locals it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{args:?}: {status}"
    );
    // `child` was reaped by wait4: dropping it neither waits nor kills.
    drop(child);
    usage.ru_maxrss
}

/// The least of three peaks: when the allocator returns freed memory to the system, and which worker thread
/// frees what, moves a peak by a few megabytes from one run of the same command to the next (38 to 50 MB for the
/// same 60-batch run); growth with the records is in every run, so the least of three keeps it and drops the noise.
fn least_of_three(peak: impl Fn() -> i64) -> i64 {
    (0..3).map(|_| peak()).min().unwrap()
}

/// The peak of `budgetlab run` over `batches` batches of `mixed-realistic` on two threads, with `extra` arguments,
/// into `out`.
fn run_peak(batches: &str, extra: &[&str], out: &std::path::Path) -> i64 {
    let mut args = vec![
        "run",
        "--scenarios",
        "mixed-realistic",
        "--batches",
        batches,
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    peak_kib(&args)
}

#[test]
fn run_memory_is_flat_in_the_number_of_batches() {
    let tmp = tempfile::tempdir().unwrap();
    // The fixed part (the scenario, the charts, the page, the allocator's own) is about 45 MB; what the records
    // would add is 60 vs 240 batches' worth.
    let peak = |batches: &str| {
        let out = tmp.path().join(batches);
        least_of_three(|| run_peak(batches, &[], &out))
    };
    let (small, large) = (peak("60"), peak("240"));
    assert!(
        (large as f64) < 1.3 * small as f64,
        "peak RSS {large} KiB at 240 batches vs {small} KiB at 60"
    );
}

#[test]
fn merge_memory_is_flat_in_the_size_of_the_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let peak = |batches: &str| {
        let shard = |i: u64| tmp.path().join(format!("{batches}-{i}"));
        for i in 0..2 {
            run_peak(batches, &["--shard", &format!("{i}/2")], &shard(i));
        }
        let merged = tmp.path().join(format!("{batches}-merged"));
        least_of_three(|| {
            peak_kib(&[
                "merge",
                "--out",
                merged.to_str().unwrap(),
                shard(0).to_str().unwrap(),
                shard(1).to_str().unwrap(),
            ])
        })
    };
    let (small, large) = (peak("60"), peak("240"));
    assert!(
        (large as f64) < 1.3 * small as f64,
        "peak RSS of merge {large} KiB for shards of 240 batches vs {small} KiB for 60"
    );
}
