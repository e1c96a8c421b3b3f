//! budgetlab's project tasks (`cargo xtask ...`, an alias in `.cargo/config.toml`). One so far:
//! `cargo xtask mutants`, mutation testing with cargo-mutants over the modules whose tests must be able to fail,
//! each held to a score, with a record of outcomes that outlives the machine that ran them.
//!
//! How a run goes, and why: the tree is snapshotted (what git tracks and does not ignore) into one fixed path, so
//! that editing the checkout during a run of hours changes nothing of it, and cargo-mutants mutates the snapshot
//! in place (the crate's incremental artifacts of the last pass are reused: a fresh copy under a new path rebuilt
//! everything, 10 to 20 minutes). One job (builds share a target directory; parallelism comes from shards on
//! separate machines). Each module gets two passes: its unit tests (`--lib`, one build of the library a mutant),
//! then its integration tests for only the mutants those missed; a mutant is caught when either catches it, as
//! in one `cargo test`. Each module runs its own tests (libtest name filters), less the slow ones in
//! SKIPPED_TESTS: leaving tests out can only lose catches, so a score is a lower bound. cargo-mutants' own
//! settings (the `mutants` profile, cargo-nextest) are in `.cargo/mutants.toml`.

mod record;
mod summary;

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;

use record::{bad, Bad, Kind};

const CARGO_MUTANTS_VERSION: &str = "27.1.0";
const CARGO_NEXTEST_VERSION: &str = "0.9.143";
/// The score every module must reach, in percent: caught / (caught + missed).
const THRESHOLD_PERCENT: usize = 90;

/// Each module: its name, its files (a cargo-mutants --file glob) and its tests (libtest name filters: a test
/// runs when its name contains one; they pick the unit tests of the named library modules and the integration
/// topics of the same name).
const MODULES: [(&str, &str, &str); 8] = [
    ("finalize", "src/finalize/**", "finalize:: conform:: allocations:: behaviours:: strategies:: vectors:: properties:: differential:: external:: cli:: simulation::"),
    ("alloc", "src/alloc.rs", "alloc:: finalize:: conform:: allocations:: behaviours:: strategies:: vectors:: properties:: differential::"),
    ("text", "src/text.rs", "text:: finalize:: conform:: metrics:: allocations:: behaviours:: vectors:: properties:: differential:: tokens:: import::"),
    ("persist", "src/persist/**", "persist:: finalize:: conform:: behaviours:: strategies:: vectors:: properties:: cli:: external::"),
    ("metrics", "src/metrics/**", "metrics:: run:: gate_rules:: exports:: features:: simulation:: cli::"),
    ("gate", "src/gate/**", "gate:: gate_output:: gate_rules:: cli:: outputs::"),
    ("run", "src/run/**", "run:: metrics:: gate:: gate_rules:: exports:: features:: cli:: outputs::"),
    ("report/export", "src/report/export/**", "report::export exports:: gate:: features:: streaming:: token_commands::"),
];

/// Always skipped: the baseline's cost ratios hold in release only (and a mutant only it catches is what issue 16
/// counts as not caught); the others take minutes each.
const SKIPPED_TESTS: [&str; 6] = [
    "gate::a_fresh_quick_run_passes_the_committed_baseline",
    "scenarios::drawn_scenario_files_load_or_are_refused_and_never_panic",
    "simulation::reference_keeps_the_budget_over_10000_turns_of_every_shipped_scenario_in_every_mode",
    "features::the_nightly_script_runs_the_gate_end_to_end",
    "report::charts_render_with_no_system_fonts",
    "external::the_python_and_node_examples_keep_the_budget_and_agree",
];

const USAGE: &str = "\
usage: cargo xtask mutants run [--module NAME]... [--shard K/N] [--re REGEX] [--rerun-missed DIR|RECORD]
                               [--all-tests] [--out DIR] [--record] [-- CARGO-MUTANTS OPTIONS...]
       cargo xtask mutants summary [--module NAME]... [--record] [DIR...]
common: --record-file FILE (default $MUTANTS_RECORD, else target/mutants-record.tsv)
        --allowed FILE (default mutants-allowed.txt)
Exit status: 0 every module whole and at least 90% caught, every survivor allowed; 1 not so; 2 broken tool or input.";

/// The module of a source file, by MODULES' globs.
fn module_of(path: &str) -> Option<&'static str> {
    let within = |glob: &str| {
        glob.strip_suffix("**")
            .map_or(path == glob, |dir| path.starts_with(dir))
    };
    MODULES
        .iter()
        .find(|(_, glob, _)| within(glob))
        .map(|(name, ..)| *name)
}

#[derive(Default)]
struct Options {
    summary: bool,
    modules: Vec<&'static str>,
    shard: Option<String>,
    re: Option<String>,
    rerun: Option<PathBuf>,
    all_tests: bool,
    out: PathBuf,
    record: bool,
    record_file: PathBuf,
    allowed: Option<PathBuf>,
    dirs: Vec<PathBuf>,
    passthrough: Vec<String>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn parse(args: &[String]) -> Result<Options, Bad> {
    let root = root();
    let mut o = Options {
        out: root.join("mutants.out"),
        record_file: std::env::var_os("MUTANTS_RECORD")
            .map_or(root.join("target/mutants-record.tsv"), PathBuf::from),
        ..Options::default()
    };
    let mut args = args.iter();
    match args.next().map(String::as_str) {
        Some("run") => {}
        Some("summary") => o.summary = true,
        _ => return bad(USAGE),
    }
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .cloned()
                .ok_or_else(|| Bad(format!("{arg} takes a value")))
        };
        match arg.as_str() {
            "--module" => {
                let name = value()?;
                let known = MODULES.iter().find(|(m, ..)| *m == name);
                let names: Vec<&str> = MODULES.iter().map(|(m, ..)| *m).collect();
                let Some((m, ..)) = known else {
                    return bad(format!(
                        "unknown module '{name}' (one of: {})",
                        names.join(" ")
                    ));
                };
                o.modules.push(m);
            }
            "--record" => o.record = true,
            "--record-file" => o.record_file = value()?.into(),
            "--allowed" => o.allowed = Some(value()?.into()),
            "--shard" if !o.summary => {
                let shard = value()?;
                let valid = shard
                    .split_once('/')
                    .and_then(|(k, n)| Some((k.parse::<u32>().ok()?, n.parse::<u32>().ok()?)));
                if valid.is_none_or(|(k, n)| k >= n) {
                    return bad(format!("--shard takes K/N with 0 <= K < N, not '{shard}'"));
                }
                o.shard = Some(shard);
            }
            "--re" if !o.summary => o.re = Some(value()?),
            "--rerun-missed" if !o.summary => o.rerun = Some(value()?.into()),
            "--out" if !o.summary => o.out = value()?.into(),
            "--all-tests" if !o.summary => o.all_tests = true,
            "--" if !o.summary => o.passthrough = args.by_ref().cloned().collect(),
            dir if o.summary && !dir.starts_with('-') => o.dirs.push(dir.into()),
            other => return bad(format!("unknown option '{other}'\n{USAGE}")),
        }
    }
    if o.modules.is_empty() {
        o.modules = MODULES.iter().map(|(m, ..)| *m).collect();
    }
    const OURS: [&str; 14] = [
        "-F",
        "--re",
        "-f",
        "--file",
        "-D",
        "--in-diff",
        "--shard",
        "--output",
        "-o",
        "--jobs",
        "-j",
        "--in-place",
        "-d",
        "--dir",
    ];
    if let Some(a) = o
        .passthrough
        .iter()
        .find(|a| OURS.iter().any(|ours| a.starts_with(ours)))
    {
        return bad(format!("give '{a}' as the xtask's own option (--re, --module, --shard, --out), not to cargo-mutants"));
    }
    if o.re.is_some() && o.rerun.is_some() {
        return bad("--re and --rerun-missed do not go together");
    }
    Ok(o)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "-h" || a == "--help")
    {
        println!("{USAGE}");
        return;
    }
    let code = match args.first().map(String::as_str) {
        Some("mutants") => parse(&args[1..]).and_then(|o| {
            if o.summary {
                summary(&o, &root(), &o.dirs, true, o.record)
            } else {
                run(&o)
            }
        }),
        _ => bad(USAGE),
    };
    std::process::exit(code.unwrap_or_else(|Bad(e)| {
        eprintln!("mutants: {e}");
        2
    }))
}

/// Runs `command`, its stdout if it succeeded.
fn output(command: &mut Command) -> Option<String> {
    let out = command.output().ok().filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `git -C ROOT ARGS...`'s stdout, if it succeeded.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    output(Command::new("git").arg("-C").arg(root).args(args))
}

/// cargo-mutants and cargo-nextest at the pinned versions, installed with `cargo install --locked` when missing
/// (`nextest`: the test tool of a run, which a summary does not need).
fn install_tools(nextest: bool) -> Result<(), Bad> {
    let tools = [
        ("mutants", CARGO_MUTANTS_VERSION),
        ("nextest", CARGO_NEXTEST_VERSION),
    ];
    for (tool, version) in &tools[..if nextest { 2 } else { 1 }] {
        let have = output(Command::new(format!("cargo-{tool}")).args([tool, "--version"]))
            .unwrap_or_default();
        if have
            .lines()
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            != Some(version)
        {
            println!("== cargo install --locked cargo-{tool}@{version}");
            let installed = Command::new("cargo")
                .args(["install", "--locked", &format!("cargo-{tool}@{version}")])
                .status();
            if !installed.is_ok_and(|s| s.success()) {
                return bad(format!("cargo install cargo-{tool}@{version} failed"));
            }
        }
    }
    Ok(())
}

/// The allowed list (`--allowed`, else mutants-allowed.txt, none when that is missing).
fn allowed_list(o: &Options) -> Result<BTreeMap<String, String>, Bad> {
    let path = o
        .allowed
        .clone()
        .unwrap_or(root().join("mutants-allowed.txt"));
    match fs::read_to_string(&path) {
        Ok(text) => summary::allowed(&text, &path.display().to_string()),
        Err(_) if o.allowed.is_none() => Ok(BTreeMap::new()),
        Err(e) => bad(format!(
            "{}: not a readable list of allowed mutants ({e})",
            path.display()
        )),
    }
}

/// The summary of the record (when used) and the runs under `dirs`, against the mutants `tree` has now; `record`:
/// merged into the record.
fn summary(
    o: &Options,
    tree: &Path,
    dirs: &[PathBuf],
    judge: bool,
    record: bool,
) -> Result<i32, Bad> {
    let allowed = allowed_list(o)?;
    // A summary of `summary` includes the record; a run's only when it is recorded.
    let use_record = o.summary || record;
    let _held = if record {
        if let Some(folder) = o.record_file.parent().filter(|f| !f.as_os_str().is_empty()) {
            let _ = fs::create_dir_all(folder);
        }
        Some(record::lock(&o.record_file)?)
    } else {
        None
    };
    let recorded = if use_record {
        record::read(&o.record_file)?
    } else {
        BTreeMap::new()
    };
    let runs = summary::read_runs(dirs)?;
    if runs.is_empty() && recorded.is_empty() {
        return bad(format!(
            "nothing to summarize: no folders of outcomes, and nothing recorded in {}",
            o.record_file.display()
        ));
    }
    install_tools(false)?;
    let globs: Vec<String> = MODULES
        .iter()
        .map(|(_, glob, _)| format!("--file={glob}"))
        .collect();
    let mut list = Command::new("cargo");
    list.args(["mutants", "--list", "--json", "--dir"])
        .arg(tree)
        .args(&globs);
    let listed = list
        .output()
        .map_err(|e| Bad(format!("cargo mutants --list: {e}")))?;
    if !listed.status.success() {
        let why: String = String::from_utf8_lossy(&listed.stderr)
            .chars()
            .take(300)
            .collect();
        return bad(format!(
            "cargo mutants --list of {} failed: {}",
            tree.display(),
            why.replace('\n', " ")
        ));
    }
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout)
        .map_err(|e| Bad(format!("cargo mutants --list: {e}")))?;
    let now = listed
        .as_array()
        .into_iter()
        .flatten()
        .map(record::Mutant::from_json)
        .collect::<Result<Vec<_>, _>>()?;
    let code_at = |commit: &str, path: &str| git(&root(), &["show", &format!("{commit}:{path}")]);
    let merged = summary::merge(recorded, &runs, &code_at);
    let code_now = |path: &str| fs::read_to_string(tree.join(path)).ok();
    let report = summary::summarize(merged, &now, &code_now, &allowed, &o.modules, judge);
    // Written (whole or not at all) before anything is shown: a summary never shows what could not be kept.
    if record {
        record::write(&o.record_file, &record::format(&report.outcomes)?)?;
    }
    print!("{}", report.text);
    if record {
        println!(
            "\nRecorded {} outcomes in {}.",
            report.outcomes.len(),
            o.record_file.display()
        );
    }
    for complaint in &report.complaints {
        eprintln!("mutants: {complaint}");
    }
    Ok(report.verdict)
}

/// `name` as a regular expression matching itself.
fn escape(name: &str) -> String {
    name.chars().fold(String::new(), |mut s, c| {
        if "\\.+*?()|[]{}^$".contains(c) {
            s.push('\\');
        }
        s.push(c);
        s
    })
}

/// One regular expression a module, of the mutants `outcomes` has as `kinds`: by their exact names, or (not
/// `exact`) whatever their line now (a rerun on a later commit: a function with the same change twice then
/// matches both, the price of finding them after lines moved).
fn regexes(
    outcomes: &BTreeMap<String, record::Outcome>,
    kinds: &[Kind],
    exact: bool,
) -> BTreeMap<&'static str, String> {
    let mut names: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for o in outcomes.values().filter(|o| kinds.contains(&o.kind)) {
        let Some(module) = module_of(&o.file) else {
            continue;
        };
        let pattern = match (exact, record::unplaced(&o.name).split_once(": ")) {
            (false, Some((file, change))) => {
                format!("{}:\\d+:\\d+: {}", escape(file), escape(change))
            }
            _ => escape(&o.name),
        };
        names.entry(module).or_default().push(pattern);
    }
    names
        .into_iter()
        .map(|(m, n)| (m, format!("^({})$", n.join("|"))))
        .collect()
}

/// A snapshot of the checkout, removed when dropped.
struct Snapshot(PathBuf);

impl Drop for Snapshot {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The checkout's files (what git tracks and what it does not ignore) copied to `tree`, new (the sources must
/// look newer than the artifacts, which the last pass may have built from a mutated file).
fn snapshot(root: &Path, tree: &Path) -> Result<Snapshot, Bad> {
    const MARK: &str = ".budgetlab-mutants-tree";
    if tree.exists() && !tree.join(MARK).exists() {
        return bad(format!(
            "{} exists and is not a snapshot this task made: move it away",
            tree.display()
        ));
    }
    let failed = |e: std::io::Error| {
        Bad(format!(
            "{}: cannot snapshot the tree ({e})",
            tree.display()
        ))
    };
    let _ = fs::remove_dir_all(tree);
    fs::create_dir_all(tree)
        .and_then(|()| File::create(tree.join(MARK)))
        .map_err(failed)?;
    let snapshot = Snapshot(tree.to_path_buf());
    let files = git(
        root,
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
    );
    for file in files
        .unwrap_or_default()
        .split('\0')
        .filter(|f| !f.is_empty())
    {
        let (from, to) = (root.join(file), tree.join(file));
        let Ok(meta) = fs::symlink_metadata(&from) else {
            continue;
        }; // deleted, not yet staged
        fs::create_dir_all(to.parent().unwrap()).map_err(failed)?;
        if meta.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&from).map_err(failed)?, &to)
                .map_err(failed)?;
        } else if meta.is_file() {
            fs::copy(&from, &to).map_err(failed)?;
        }
    }
    Ok(snapshot)
}

fn run(o: &Options) -> Result<i32, Bad> {
    let root = root();
    // The inputs of the summary checked before a run of hours, not after it.
    allowed_list(o)?;
    if o.record {
        record::read(&o.record_file)?;
    }
    let mut rerun = BTreeMap::new();
    if let Some(from) = &o.rerun {
        let outcomes = if from.is_file() {
            record::read(from)?
        } else {
            summary::merge(
                BTreeMap::new(),
                &summary::read_runs(std::slice::from_ref(from))?,
                &|_, _| None,
            )
        };
        rerun = regexes(&outcomes, &[Kind::Missed, Kind::Timeout], false);
        if rerun.is_empty() {
            println!(
                "mutants: {} records no missed mutant and no timeout: nothing to rerun",
                from.display()
            );
            return Ok(0);
        }
        if fs::canonicalize(from).ok() == fs::canonicalize(&o.out).ok() {
            return bad(format!(
                "--rerun-missed reads {}: give the rerun another --out",
                from.display()
            ));
        }
    }
    let Some(head) = git(&root, &["rev-parse", "--short=12", "HEAD"]) else {
        return bad(format!(
            "{} is not a git checkout: a run snapshots what git tracks",
            root.display()
        ));
    };
    let changed = !git(&root, &["status", "--porcelain"])
        .unwrap_or_default()
        .is_empty();
    let described = format!(
        "commit {}{}",
        head.trim(),
        if changed {
            " with uncommitted changes"
        } else {
            ""
        }
    );
    install_tools(true)?;
    let target =
        std::env::var_os("MUTANTS_TARGET_DIR").map_or(root.join("target/mutants"), PathBuf::from);
    fs::create_dir_all(&target).map_err(|e| Bad(format!("{}: {e}", target.display())))?;
    // One run at a time a target directory (the lock is not inherited by cargo and what it starts).
    let lock = File::create(target.join("tree.lock"))
        .map_err(|e| Bad(format!("{}: {e}", target.display())))?;
    if lock.try_lock().is_err() {
        return bad(format!(
            "another run uses {} (give this one another MUTANTS_TARGET_DIR)",
            target.display()
        ));
    }
    let tree = snapshot(&root, &target.join("tree"))?;
    let narrowed = o.passthrough.iter().any(|a| {
        ["-E", "--exclude-re", "-e", "--exclude"]
            .iter()
            .any(|n| a.starts_with(n))
    });
    let mut status = 0;
    let mut dirs = Vec::new();
    for (module, glob, tests) in MODULES.iter().filter(|(m, ..)| o.modules.contains(m)) {
        let mut first: Vec<String> = Vec::new();
        if o.rerun.is_some() {
            let Some(re) = rerun.get(module) else {
                continue;
            };
            first.extend(["--re".into(), re.clone()]);
        }
        first.extend(o.re.iter().flat_map(|re| ["--re".to_owned(), re.clone()]));
        first.extend(
            o.shard
                .iter()
                .flat_map(|s| ["--shard".to_owned(), s.clone()]),
        );
        let dir = o.out.join(module.replace('/', "-"));
        for pass in ["unit", "integration"] {
            for old in ["mutants.out", "mutants.out.old"] {
                let d = dir.join(pass).join(old);
                if d.join("lock.json").exists() || d.join("outcomes.json").exists() {
                    let _ = fs::remove_dir_all(d);
                }
            }
        }
        dirs.push(dir.clone());
        let filters: Vec<&str> = if o.all_tests {
            Vec::new()
        } else {
            tests.split_whitespace().collect()
        };
        let pass = |pass: &str, narrowing: &[String]| -> Result<(), String> {
            let out = dir.join(pass);
            fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            fs::write(out.join("tree.txt"), format!("{described}, {pass} tests\n"))
                .map_err(|e| e.to_string())?;
            let targets = if pass == "unit" {
                "--cargo-arg=--lib"
            } else {
                "--cargo-arg=--test=integration"
            };
            let mut cargo = Command::new("cargo");
            cargo
                .args(["mutants", "--in-place", "--dir"])
                .arg(&tree.0)
                .args(["--file", glob, targets]);
            cargo
                .args(["--cargo-test-arg=--max-fail=1:immediate", "--output"])
                .arg(&out);
            cargo
                .args(narrowing)
                .args(&o.passthrough)
                .args(["--", "--"])
                .args(&filters);
            cargo.args(SKIPPED_TESTS.iter().flat_map(|t| ["--skip", t]));
            println!("== {module}, {pass} tests: {cargo:?}");
            // cargo-mutants: 0 all caught, 2 missed mutants, 3 timeouts; anything else is a broken run.
            match cargo.current_dir(&root).status().map(|s| s.code()) {
                Ok(Some(0 | 2 | 3)) => Ok(()),
                Ok(Some(4)) => Err(format!(
                    "{module}: the unmutated tree fails its {pass} tests ({})",
                    out.display()
                )),
                other => Err(format!("{module}: cargo-mutants failed ({other:?})")),
            }
        };
        // The integration tests only for what the unit tests missed, by their exact names.
        let survivors = pass("unit", &first).and_then(|()| {
            let runs = summary::read_runs(&[dir.join("unit")]).map_err(|Bad(e)| e)?;
            let outcomes = summary::merge(BTreeMap::new(), &runs, &|_, _| None);
            Ok(regexes(&outcomes, &[Kind::Missed], true))
        });
        let broken = survivors.and_then(|survivors| match survivors.get(module) {
            Some(re) => pass("integration", &["--re".into(), re.clone()]),
            None => Ok(()),
        });
        if let Err(e) = broken {
            eprintln!("mutants: {e}");
            status = 2;
        }
    }
    if dirs.is_empty() {
        println!("mutants: nothing was run");
        return Ok(status);
    }
    println!("== summary");
    let judge = o.shard.is_none() && o.re.is_none() && o.rerun.is_none() && !narrowed;
    // A broken run (cargo-mutants failed, the unmutated tree failed its tests) is summarized but not recorded.
    if o.record && status != 0 {
        eprintln!("mutants: the run is broken (above): its outcomes are not recorded");
    }
    let verdict = summary(o, &tree.0, &dirs, judge, o.record && status == 0)?;
    Ok(if status != 0 { status } else { verdict })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_found_by_their_globs() {
        assert_eq!(module_of("src/alloc.rs"), Some("alloc"));
        assert_eq!(
            module_of("src/report/export/json.rs"),
            Some("report/export")
        );
        assert_eq!(module_of("src/report/chart/mod.rs"), None);
        assert_eq!(module_of("src/alloc.rs.orig"), None);
    }

    #[test]
    fn a_rerun_matches_missed_mutants_whatever_their_line() {
        let text = "# cargo xtask mutants --record: name, start line in function, start column, end line in \
                    function, end column, outcome, build s, test s, run began, tested, function's fingerprint\n\
                    src/gate/x.rs:3:5: replace a.b() with (1)\t2\t5\t2\t9\tMissedMutant\t1.0\t1.0\t\
                    2026-12-01T10:00:00Z\tcommit 0123456789ab\t-\n\
                    src/gate/x.rs:9:5: replace > with >=\t2\t5\t2\t9\tCaughtMutant\t1.0\t1.0\t\
                    2026-12-01T10:00:00Z\tcommit 0123456789ab\t-\n";
        let outcomes = record::parse(text).unwrap();
        let loose = regexes(&outcomes, &[Kind::Missed, Kind::Timeout], false);
        assert_eq!(
            loose["gate"],
            r"^(src/gate/x\.rs:\d+:\d+: replace a\.b\(\) with \(1\))$"
        );
        let exact = regexes(&outcomes, &[Kind::Missed], true);
        assert_eq!(
            exact["gate"],
            r"^(src/gate/x\.rs:3:5: replace a\.b\(\) with \(1\))$"
        );
        assert!(regexes(&outcomes, &[Kind::Timeout], false).is_empty());
    }

    #[test]
    fn options_are_checked_before_anything_runs() {
        let args = |a: &[&str]| parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            args(&["run", "--shard", "4/4"]).err(),
            Some(Bad("--shard takes K/N with 0 <= K < N, not '4/4'".into()))
        );
        assert!(args(&["run", "--module", "nope"])
            .err()
            .unwrap()
            .0
            .starts_with("unknown module 'nope'"));
        assert!(args(&["run", "--", "--file=x"]).is_err());
        assert!(args(&["run", "--re", "x", "--rerun-missed", "y"]).is_err());
        assert!(args(&["summary", "--shard", "0/2"]).is_err());
        let o = args(&["summary", "--module", "gate", "a", "b"]).unwrap();
        assert_eq!((o.modules, o.dirs.len()), (vec!["gate"], 2));
    }
}
