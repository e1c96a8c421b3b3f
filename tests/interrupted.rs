//! An interrupted command leaves nothing behind (issue 29, points 2 and 3), through the real binary: SIGINT,
//! SIGTERM or SIGHUP to `run`, `finalize`, `sweep`, `simulate` or `conform` ends every external child's process
//! group (grandchildren included, and a child that ignores SIGTERM), removes the report's staging folder and
//! exits 130, 143 or 129; `generate --out` interrupted removes its temporary file; and the temporary file of a
//! killed `generate` (SIGKILL, which nothing can handle) is removed by the next file written in that folder,
//! while a running budgetlab's temporary file and every file budgetlab did not make are kept.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_budgetlab");

/// How long anything awaited may take on a busy machine.
const PATIENCE: Duration = Duration::from_secs(30);

/// budgetlab with `args`, started in `dir`, its output discarded.
fn start(dir: &Path, args: &[&str]) -> Child {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until `ready` holds, failing after [`PATIENCE`] (or as soon as `child` exits).
fn wait_for(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("budgetlab exited ({status}) before {what}");
        }
        assert!(Instant::now() < deadline, "no {what} within {PATIENCE:?}");
        sleep(Duration::from_millis(20));
    }
}

/// Sends `signal` to `child` and waits for it to exit.
fn interrupt(child: &mut Child, signal: i32) -> ExitStatus {
    let pid = i32::try_from(child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("budgetlab did not exit within {PATIENCE:?} of signal {signal}");
        }
        sleep(Duration::from_millis(20));
    }
}

/// The exit status of an interrupted command: the code 128 plus the signal's number.
fn assert_exited_for(status: ExitStatus, signal: i32) {
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        (status.code(), status.signal()),
        (Some(128 + signal), None),
        "{status}"
    );
}

/// The process ids a test child appended to `file` in `dir`.
fn pids(dir: &Path, file: &str) -> Vec<i32> {
    fs::read_to_string(dir.join(file))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

/// Whether process `pid` runs (exists and is neither a zombie nor dead).
fn running(pid: i32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        !state.starts_with(['Z', 'X'])
    })
}

/// Every process the test children noted ends (polled: the last SIGKILL lands as budgetlab exits).
fn assert_nothing_runs(dir: &Path) {
    let all: Vec<i32> = pids(dir, "pids")
        .into_iter()
        .chain(pids(dir, "grandchildren"))
        .collect();
    assert!(!all.is_empty());
    for pid in all {
        let deadline = Instant::now() + PATIENCE;
        while running(pid) && Instant::now() < deadline {
            sleep(Duration::from_millis(20));
        }
        if running(pid) {
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("process {pid} outlived budgetlab");
        }
    }
}

/// The names under `dir`, at any depth, that start with `.budgetlab-` but are no report marker.
fn leftovers(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".budgetlab-") && name != ".budgetlab-report" {
            found.push(entry.path().display().to_string());
        }
        if entry.file_type().unwrap().is_dir() {
            found.extend(leftovers(&entry.path()));
        }
    }
    found
}

/// A finalizer, as `sh slow.sh`, that notes its pid, answers the handshake, then on its first request starts a
/// grandchild that notes its own pid and sleeps, and waits for it: it never answers. With `deaf`, it ignores
/// SIGTERM.
fn write_slow_child(dir: &Path, deaf: bool) {
    let trap = if deaf { "trap '' TERM" } else { "" };
    let script = format!(
        r#"{trap}
echo $$ >> pids
read -r hello
echo '{{"protocol":"budgetlab-finalizer","version":1,"name":"slow"}}'
read -r req
sh -c 'echo $$ >> grandchildren; exec sleep 600' &
wait
"#
    );
    fs::write(dir.join("slow.sh"), script).unwrap();
}

/// Three small recorded batches, one a line, and the first alone as one batch file.
fn write_batches(dir: &Path) {
    let mut lines = String::new();
    for i in 0..3 {
        lines.push_str(&format!(
            r#"[{{"callId":"c{i}","toolName":"shell","responseParts":[{{"functionResponse":{{"name":"shell","response":{{"output":"{}"}}}}}}]}}]"#,
            "x".repeat(300 + i)
        ));
        lines.push('\n');
    }
    fs::write(dir.join("one.json"), lines.lines().next().unwrap()).unwrap();
    fs::write(dir.join("small.jsonl"), lines).unwrap();
}

/// Runs `args` (which use the strategy `slow`) in a fresh folder until the slow child's grandchild runs, sends
/// `signal`, and checks the exit status, that no process is left and that no staging folder or temporary file
/// is. Returns the folder for further checks.
fn interrupt_with_a_slow_child(args: &[&str], signal: i32, deaf: bool) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_slow_child(dir, deaf);
    write_batches(dir);
    let mut all = args.to_vec();
    all.extend(["--external", "slow=sh slow.sh", "--external-timeout", "600"]);
    let mut child = start(dir, &all);
    wait_for(&mut child, "a grandchild of the slow child", || {
        !pids(dir, "grandchildren").is_empty()
    });
    let status = interrupt(&mut child, signal);
    assert_exited_for(status, signal);
    assert_nothing_runs(dir);
    assert_eq!(leftovers(dir), Vec::<String>::new());
    tmp
}

const RUN: [&str; 10] = [
    "run",
    "--batches-file",
    "small.jsonl",
    "--budgets",
    "100",
    "--strategies",
    "slow",
    "--threads",
    "1",
    "--out",
];

#[test]
fn run_interrupted_by_each_signal_ends_its_children_and_removes_its_staging_folder() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let mut args = RUN.to_vec();
        args.push("report");
        let dir = interrupt_with_a_slow_child(&args, signal, false);
        // No report appeared; the folder holds what the test put there and what the children noted.
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "grandchildren",
                "one.json",
                "pids",
                "slow.sh",
                "small.jsonl"
            ],
            "signal {signal}"
        );
    }
}

#[test]
fn a_child_that_ignores_sigterm_is_killed_after_the_grace() {
    let mut args = RUN.to_vec();
    args.push("report");
    interrupt_with_a_slow_child(&args, libc::SIGTERM, true);
}

#[test]
fn finalize_sweep_simulate_and_conform_interrupted_end_their_children() {
    interrupt_with_a_slow_child(
        &[
            "finalize",
            "--input",
            "one.json",
            "--budget",
            "100",
            "--strategy",
            "slow",
        ],
        libc::SIGINT,
        false,
    );
    interrupt_with_a_slow_child(
        &[
            "sweep",
            "--scenario",
            "mixed-realistic",
            "--budgets",
            "2000..50000",
            "--steps",
            "3",
            "--batches",
            "2",
            "--strategies",
            "slow",
            "--threads",
            "1",
            "--out",
            "sweep",
        ],
        libc::SIGTERM,
        false,
    );
    interrupt_with_a_slow_child(
        &[
            "simulate",
            "--scenario",
            "shell-heavy",
            "--mode",
            "headless",
            "--batches",
            "2",
            "--strategy",
            "slow",
        ],
        libc::SIGHUP,
        false,
    );
    interrupt_with_a_slow_child(
        &[
            "conform",
            "--strategy",
            "slow",
            "--cases",
            "5",
            "--out",
            "conform",
        ],
        libc::SIGTERM,
        false,
    );
}

/// `generate --out big.jsonl` of a million batches, started in `dir`, once its temporary file exists.
fn start_big_generate(dir: &Path) -> Child {
    let before = temporary_files(dir).len();
    let mut child = start(
        dir,
        &[
            "generate",
            "--scenario",
            "mixed-realistic",
            "--batches",
            "1000000",
            "--out",
            "big.jsonl",
        ],
    );
    wait_for(&mut child, "generate's temporary file", || {
        temporary_files(dir).len() > before
    });
    child
}

/// The names in `dir` that start with `.budgetlab-` and end with `.tmp`.
fn temporary_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".budgetlab-") && n.ends_with(".tmp"))
        .collect();
    names.sort();
    names
}

#[test]
fn generate_interrupted_removes_its_temporary_file() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let mut child = start_big_generate(dir);
        let status = interrupt(&mut child, signal);
        assert_exited_for(status, signal);
        let names: Vec<_> = fs::read_dir(dir).unwrap().collect();
        assert!(names.is_empty(), "signal {signal}: {names:?}");
    }
}

#[test]
fn a_killed_generates_temporary_file_goes_with_the_next_write_beside_it_and_nothing_else_does() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // SIGKILL cannot be handled: the temporary file stays.
    let mut killed = start_big_generate(dir);
    let stale = temporary_files(dir);
    let status = interrupt(&mut killed, libc::SIGKILL);
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    assert_eq!(temporary_files(dir), stale);
    // Files budgetlab did not make, one of them of the shape of its names.
    fs::write(dir.join(".budgetlab-foo.tmp"), "mine").unwrap();
    fs::write(dir.join(".budgetlab-abcdefghij.tmp"), "mine").unwrap();
    fs::write(dir.join("notes.txt"), "mine").unwrap();
    let mine = [".budgetlab-abcdefghij.tmp", ".budgetlab-foo.tmp"];
    let small_generate = || {
        let out = Command::new(BIN)
            .current_dir(dir)
            .args([
                "generate",
                "--scenario",
                "many-small",
                "--batches",
                "2",
                "--out",
                "small.jsonl",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    small_generate();
    assert_eq!(
        temporary_files(dir),
        mine,
        "the killed one's {stale:?} goes"
    );
    assert_eq!(fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine");
    assert!(dir.join("small.jsonl").is_file());

    // A running budgetlab's temporary file is kept.
    let mut live = start_big_generate(dir);
    let with_live = temporary_files(dir);
    assert_eq!(with_live.len(), 3, "{with_live:?}");
    small_generate();
    assert_eq!(temporary_files(dir), with_live);
    let status = interrupt(&mut live, libc::SIGTERM);
    assert_exited_for(status, libc::SIGTERM);
    assert_eq!(temporary_files(dir), mine);
    assert_eq!(fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine");
}
