//! The summary: the record and the outcomes of runs merged, counted against the mutants the tree has now, as a
//! table a module, the missed mutants against the allowed list, and the verdict.
//!
//! The rules: the passes of one run of a module (`unit`, then `integration` for what it missed) count together,
//! as one `cargo test` would: a mutant either catches is caught, else one either timed out on is a timeout. An
//! integration pass counts only for mutants its unit pass listed (cargo-mutants gives every pass a module's
//! "delete field" mutants whatever `--re` says: its issue 632), and a survivor it set out to retest but has no
//! outcome of (a pass cut short) was not tested. Between runs (the record's among them) the run begun last wins.
//! An outcome counts for the mutant of the tree now at the same place in a function with the same code: where
//! both codes are known, a function changed since has its mutants untested again.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::record::{bad, fingerprint, unplaced, Bad, Kind, Mutant, Outcome};
use crate::{module_of, MODULES, THRESHOLD_PERCENT};

/// One pass of one run of a module: `DIR/<module>/<pass>/mutants.out/`.
#[derive(Clone, Debug)]
pub struct Pass {
    /// `unit` or `integration`.
    pub pass: String,
    pub began: String,
    /// What was tested ("commit 1a2b3c4d5e6f"), from `tree.txt` beside it.
    pub tested: String,
    /// The mutants it set out to test (`mutants.json`), when it left the list.
    pub listed: Option<BTreeSet<String>>,
    pub outcomes: Vec<(Mutant, Kind, f64, f64)>,
}

/// The passes of every run under `dirs`, grouped by run (`DIR/<module>`), each group in the order its passes
/// began. cargo-mutants keeps the run before in `mutants.out.old`: that is not this run's.
pub fn read_runs(dirs: &[PathBuf]) -> Result<Vec<Vec<Pass>>, Bad> {
    let mut runs: BTreeMap<PathBuf, Vec<Pass>> = BTreeMap::new();
    for dir in dirs {
        let mut found = Vec::new();
        outcome_files(dir, &mut found);
        if found.is_empty() {
            return bad(format!(
                "{}: no outcomes.json under it (a folder of --out)",
                dir.display()
            ));
        }
        for file in found {
            let out = file.parent().unwrap();
            let pass_dir = out.parent().unwrap_or(out);
            let run = pass_dir.parent().unwrap_or(pass_dir).to_path_buf();
            runs.entry(run)
                .or_default()
                .push(read_pass(&file, pass_dir)?);
        }
    }
    let mut runs: Vec<Vec<Pass>> = runs.into_values().collect();
    for passes in &mut runs {
        passes.sort_by_key(|p| crate::record::began(&p.began).unwrap());
    }
    runs.sort_by_key(|passes| crate::record::began(&passes[0].began).unwrap());
    Ok(runs)
}

fn outcome_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        if path.is_dir() && !path.to_string_lossy().ends_with(".old") {
            outcome_files(&path, found);
        } else if path.file_name().is_some_and(|n| n == "outcomes.json") {
            found.push(path);
        }
    }
}

fn json_of(path: &Path) -> Result<Value, Bad> {
    let text = fs::read(path).map_err(|e| Bad(format!("{}: unreadable ({e})", path.display())))?;
    serde_json::from_slice(&text).map_err(|e| Bad(format!("{}: not JSON ({e})", path.display())))
}

fn read_pass(file: &Path, pass_dir: &Path) -> Result<Pass, Bad> {
    let run = json_of(file)?;
    let not_outcomes = |why: &str| {
        Bad(format!(
            "{}: not a cargo-mutants outcomes.json ({why})",
            file.display()
        ))
    };
    let list = run["outcomes"]
        .as_array()
        .ok_or_else(|| not_outcomes("no outcomes list"))?;
    let began = run["start_time"]
        .as_str()
        .ok_or_else(|| not_outcomes("no start_time"))?;
    crate::record::began(began).map_err(|Bad(e)| not_outcomes(&e))?;
    let mut outcomes = Vec::new();
    for o in list {
        let Some(m) = o["scenario"].get("Mutant") else {
            continue;
        }; // the baseline
           // cargo-mutants' "Failure" (the tool went wrong) is no verdict: not tested.
        let Some(kind) = o["summary"].as_str().and_then(Kind::parse) else {
            continue;
        };
        let (mut build, mut test) = (0.0, 0.0);
        for phase in o["phase_results"].as_array().into_iter().flatten() {
            let seconds = phase["duration"]
                .as_f64()
                .filter(|s| (0.0..1e7).contains(s));
            let seconds =
                seconds.ok_or_else(|| not_outcomes("a duration that is no number of seconds"))?;
            match phase["phase"].as_str() {
                Some("Build") => build += seconds,
                Some("Test") => test += seconds,
                _ => {}
            }
        }
        outcomes.push((Mutant::from_json(m)?, kind, build, test));
    }
    let listed_path = file.with_file_name("mutants.json");
    let listed = if listed_path.exists() {
        let all = json_of(&listed_path)?;
        let all = all
            .as_array()
            .ok_or_else(|| Bad(format!("{}: not a list", listed_path.display())))?;
        Some(
            all.iter()
                .map(|m| Mutant::from_json(m).map(|m| m.key()))
                .collect::<Result<_, _>>()?,
        )
    } else {
        None
    };
    let tested = fs::read_to_string(pass_dir.join("tree.txt")).unwrap_or_default();
    let tested = tested
        .lines()
        .next()
        .unwrap_or_default()
        .split(", ")
        .next()
        .unwrap_or_default()
        .trim();
    Ok(Pass {
        pass: pass_dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        began: began.to_owned(),
        tested: if tested.is_empty() {
            "unknown".into()
        } else {
            tested.into()
        },
        listed,
        outcomes,
    })
}

/// The record with the runs merged into it (each run's passes together, then the run begun last winning).
/// `code_at(commit, path)` gives a file as a commit has it, for the fingerprint of the code a run tested.
pub fn merge(
    mut outcomes: BTreeMap<String, Outcome>,
    runs: &[Vec<Pass>],
    code_at: &dyn Fn(&str, &str) -> Option<String>,
) -> BTreeMap<String, Outcome> {
    for passes in runs {
        let (began, tested) = (&passes[0].began, &passes[0].tested);
        let commit = tested
            .strip_prefix("commit ")
            .filter(|c| c.bytes().all(|b| b.is_ascii_hexdigit()));
        let unit_listed = passes
            .iter()
            .find(|p| p.pass == "unit")
            .and_then(|p| p.listed.as_ref());
        let mut merged: BTreeMap<String, Outcome> = BTreeMap::new();
        let mut cut_short = BTreeSet::new();
        for pass in passes {
            let retest = unit_listed.filter(|_| pass.pass == "integration");
            let mut seen = BTreeSet::new();
            for (m, kind, build, test) in &pass.outcomes {
                let key = m.key();
                if retest.is_some_and(|listed| !listed.contains(&key)) {
                    continue; // another shard's
                }
                seen.insert(key.clone());
                let print = commit
                    .and_then(|c| code_at(c, &m.file))
                    .map(|text| fingerprint(&text, m.lines));
                let mut new = Outcome {
                    began: began.clone(),
                    name: m.name.clone(),
                    file: m.file.clone(),
                    places: m.places,
                    kind: *kind,
                    build: *build,
                    test: *test,
                    tested: tested.clone(),
                    print,
                };
                if let Some(before) = merged.get(&key) {
                    let (build, test) = (before.build + new.build, before.test + new.test);
                    if before.kind.rank() >= new.kind.rank() {
                        new = before.clone();
                    }
                    (new.build, new.test) = (build, test);
                }
                merged.insert(key, new);
            }
            if let (Some(unit), Some(listed)) = (retest, &pass.listed) {
                cut_short.extend(
                    listed
                        .intersection(unit)
                        .filter(|k| !seen.contains(*k))
                        .cloned(),
                );
            }
        }
        for key in cut_short {
            if merged.get(&key).is_some_and(|o| o.kind != Kind::Caught) {
                merged.remove(&key);
            }
        }
        let when = crate::record::began(began).unwrap();
        for (key, outcome) in merged {
            if outcomes.get(&key).is_none_or(|o| o.when() <= when) {
                outcomes.insert(key, outcome);
            }
        }
    }
    outcomes
}

/// The allowed list: `MUTANT # REASON` a line, MUTANT as cargo-mutants names it without its line and column (or
/// with them, where one function has the same change twice).
pub fn allowed(text: &str, path: &str) -> Result<BTreeMap<String, String>, Bad> {
    let mut allowed = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        match line.split_once(" # ") {
            Some((mutant, reason)) if !mutant.trim().is_empty() && !reason.trim().is_empty() => {
                allowed.insert(mutant.trim().to_owned(), reason.trim().to_owned());
            }
            _ => {
                return bad(format!(
                    "{path}:{}: expected 'MUTANT # REASON', got {line:?}",
                    n + 1
                ))
            }
        }
    }
    Ok(allowed)
}

/// What the summary shows and decides.
pub struct Report {
    /// The outcomes still counted, of the modules' files: what `--record` writes.
    pub outcomes: BTreeMap<String, Outcome>,
    /// The table and the lists (stdout).
    pub text: String,
    /// Why the verdict is 1 (stderr).
    pub complaints: Vec<String>,
    pub verdict: i32,
}

/// The summary of `outcomes` (merged) against the tree's mutants now (`tree`, with `code_now(path)` the tree's
/// files), for the `shown` modules. `judge`: whether the threshold and wholeness are judged (not for a shard or
/// a narrowed run).
pub fn summarize(
    mut outcomes: BTreeMap<String, Outcome>,
    tree: &[Mutant],
    code_now: &dyn Fn(&str) -> Option<String>,
    allowed: &BTreeMap<String, String>,
    shown: &[&str],
    judge: bool,
) -> Report {
    let mut now = BTreeMap::new();
    for m in tree {
        let print = code_now(&m.file).map(|text| fingerprint(&text, m.lines));
        now.insert(m.key(), (m, print));
    }
    let mut gone: BTreeMap<&str, usize> = BTreeMap::new();
    outcomes.retain(|key, o| {
        let keep = match now.get(key) {
            None => false,
            Some((_, print)) => o.print.is_none() || print.is_none() || o.print == *print,
        };
        if let Some(module) = module_of(&o.file).filter(|m| !keep && shown.contains(m)) {
            *gone.entry(module).or_default() += 1;
        }
        keep && module_of(&o.file).is_some()
    });
    let mut text = String::from(
        "| module | mutants tested | caught | missed | unviable | timeout | score | build + test per viable mutant |\n\
         |---|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let (mut complaints, mut low, mut partly) = (Vec::new(), Vec::new(), Vec::new());
    let allowance = |name: &str| {
        allowed
            .get(name)
            .or_else(|| allowed.get(&unplaced(name)))
            .cloned()
    };
    let mut missed = Vec::new();
    let mut tested_at: BTreeMap<&str, usize> = BTreeMap::new();
    for (module, ..) in MODULES.iter().filter(|(m, ..)| shown.contains(m)) {
        let mine: Vec<(&Outcome, String)> = {
            let mut v: Vec<_> = (outcomes.iter())
                .filter(|(_, o)| module_of(&o.file) == Some(module))
                .map(|(k, o)| {
                    (
                        o,
                        now.get(k).map_or(o.name.clone(), |(m, _)| m.name.clone()),
                    )
                })
                .collect();
            v.sort_by(|a, b| a.1.cmp(&b.1));
            v
        };
        let untested = (now.iter())
            .filter(|(k, (m, _))| module_of(&m.file) == Some(module) && !outcomes.contains_key(*k))
            .count();
        let count = |kind| mine.iter().filter(|(o, _)| o.kind == kind).count();
        let (caught, missed_n, unviable, timeout) = (
            count(Kind::Caught),
            count(Kind::Missed),
            count(Kind::Unviable),
            count(Kind::Timeout),
        );
        let total = mine.len();
        if total == 0 && untested == 0 {
            continue;
        }
        let mut listed = 0;
        for (o, name) in &mine {
            *tested_at.entry(&o.tested).or_default() += 1;
            if o.kind == Kind::Missed {
                listed += usize::from(allowance(name).is_some());
                missed.push(name.clone());
            }
        }
        let tested_cell = if untested > 0 {
            partly.push(format!(
                "{module} ({total} of {} mutants tested)",
                total + untested
            ));
            format!("{total} of {} (partly run)", total + untested)
        } else {
            total.to_string()
        };
        let viable: Vec<&&Outcome> = mine
            .iter()
            .map(|(o, _)| o)
            .filter(|o| matches!(o.kind, Kind::Caught | Kind::Missed))
            .collect();
        // In tenths of a percent, rounded down, so that a score under the threshold never shows as at it.
        let (score, per) = if viable.is_empty() {
            ("-".to_owned(), "-".to_owned())
        } else {
            let tenths = caught * 1000 / viable.len();
            let n = viable.len() as f64;
            let build: f64 = viable.iter().map(|o| o.build).sum();
            let test: f64 = viable.iter().map(|o| o.test).sum();
            if untested == 0 && caught * 100 < THRESHOLD_PERCENT * viable.len() {
                low.push(format!("{module} {}.{}%", tenths / 10, tenths % 10));
            }
            (
                format!("{}.{}%", tenths / 10, tenths % 10),
                format!("{:.0} s + {:.0} s", build / n, test / n),
            )
        };
        let allowed_cell = if listed > 0 {
            format!(" ({listed} allowed)")
        } else {
            String::new()
        };
        text += &format!(
            "| {module} | {tested_cell} | {caught} | {missed_n}{allowed_cell} | {unviable} | {timeout} | {score} \
             | {per} |\n"
        );
    }
    if !gone.is_empty() {
        let gone: Vec<String> = gone.iter().map(|(m, n)| format!("{n} of {m}")).collect();
        text += &format!(
            "\nNot counted, as the tree no longer has them (their code changed since): {}.\n",
            gone.join(", ")
        );
    }
    if !tested_at.is_empty() {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let at: Vec<String> = tested_at
            .iter()
            .map(|(t, n)| format!("{t} ({n} mutant{})", plural(*n)))
            .collect();
        text += &format!("\nTested: {}.\n", at.join("; "));
    }
    missed.sort();
    if !missed.is_empty() {
        text += "\nMissed mutants:\n";
    }
    let mut unlisted = 0;
    for name in &missed {
        match allowance(name) {
            Some(reason) => text += &format!("- {name} (allowed: {reason})\n"),
            None => {
                unlisted += 1;
                text += &format!("- {name} (NOT in the allowed list)\n");
            }
        }
    }
    if unlisted > 0 {
        complaints.push(format!(
            "{unlisted} missed mutant(s) neither caught by a test nor in the allowed list"
        ));
    }
    if judge && !partly.is_empty() {
        complaints.push(format!(
            "not judged, not a whole run: {}",
            partly.join(", ")
        ));
    }
    if judge && !low.is_empty() {
        complaints.push(format!(
            "under {THRESHOLD_PERCENT}% caught: {}",
            low.join(", ")
        ));
    } else if !judge {
        text += &format!(
            "\n(A shard or a narrowed run: the {THRESHOLD_PERCENT}% threshold is judged on the whole run; merge the \
             shards' outcomes with `cargo xtask mutants summary DIR...`.)\n"
        );
    }
    let verdict = i32::from(!complaints.is_empty());
    Report {
        outcomes,
        text,
        complaints,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A mutant of `function` (starting at line `first`, five lines long) at `line` of `src/persist/fs.rs`.
    fn mutant(first: i64, line: i64, change: &str) -> Mutant {
        Mutant::from_json(&json!({
            "name": format!("src/persist/fs.rs:{line}:9: {change}"), "file": "src/persist/fs.rs",
            "function": {"span": {"start": {"line": first, "column": 5}, "end": {"line": first + 4, "column": 6}}},
            "span": {"start": {"line": line, "column": 9}, "end": {"line": line, "column": 13}}}))
        .unwrap()
    }

    const TRUE: &str = "replace FsStore::is_open -> bool with true";
    const FALSE: &str = "replace FsStore::is_open -> bool with false";

    fn pass(which: &str, began: &str, outcomes: &[(Mutant, Kind)]) -> Pass {
        Pass {
            pass: which.into(),
            began: began.into(),
            tested: "commit 0123456789ab".into(),
            listed: Some(outcomes.iter().map(|(m, _)| m.key()).collect()),
            outcomes: outcomes
                .iter()
                .map(|(m, k)| (m.clone(), *k, 2.0, 4.0))
                .collect(),
        }
    }

    fn no_code(_: &str, _: &str) -> Option<String> {
        None
    }

    /// The summary of `runs` over an empty record, the tree's mutants being `tree`, nothing allowed.
    fn summary(runs: &[Vec<Pass>], tree: &[Mutant]) -> Report {
        let merged = merge(BTreeMap::new(), runs, &no_code);
        summarize(
            merged,
            tree,
            &|_| None,
            &BTreeMap::new(),
            &["persist"],
            true,
        )
    }

    fn row(report: &Report) -> &str {
        report
            .text
            .lines()
            .find(|l| l.starts_with("| persist |"))
            .unwrap()
    }

    #[test]
    fn a_rerun_after_lines_moved_counts_once_and_the_later_run_wins() {
        let run = vec![pass(
            "unit",
            "2026-12-01T22:48:00Z",
            &[
                (mutant(80, 82, TRUE), Kind::Missed),
                (mutant(80, 82, FALSE), Kind::Caught),
            ],
        )];
        let rerun = |began| vec![pass("unit", began, &[(mutant(83, 85, TRUE), Kind::Caught)])];
        let tree = [mutant(83, 85, TRUE), mutant(83, 85, FALSE)];
        let report = summary(&[run.clone(), rerun("2026-12-02T00:09:00Z")], &tree);
        assert_eq!(
            row(&report),
            "| persist | 2 | 2 | 0 | 0 | 0 | 100.0% | 2 s + 4 s |"
        );
        assert_eq!(report.verdict, 0, "{:?}", report.complaints);
        // The rerun began before the run: the run's outcome stands, named by its line in the tree now.
        let report = summary(&[run.clone(), rerun("2026-12-01T20:00:00Z")], &tree);
        assert_eq!(
            row(&report),
            "| persist | 2 | 1 | 1 | 0 | 0 | 50.0% | 2 s + 4 s |"
        );
        assert!(report
            .text
            .contains("- src/persist/fs.rs:85:9: replace FsStore::is_open -> bool with true (NOT"));
        assert_eq!(report.verdict, 1);
        // A mutant of the tree no run tested: partly run, not judged whole.
        let more = [
            mutant(83, 85, TRUE),
            mutant(83, 85, FALSE),
            mutant(83, 86, TRUE),
        ];
        let report = summary(&[run.clone(), rerun("2026-12-02T00:09:00Z")], &more);
        assert_eq!(
            row(&report),
            "| persist | 2 of 3 (partly run) | 2 | 0 | 0 | 0 | 100.0% | 2 s + 4 s |"
        );
        assert_eq!(
            report.complaints,
            ["not judged, not a whole run: persist (2 of 3 mutants tested)"]
        );
        // The tree no longer has the survivor: its outcome is not counted.
        let report = summary(std::slice::from_ref(&run), &[mutant(83, 85, FALSE)]);
        assert_eq!(
            row(&report),
            "| persist | 1 | 1 | 0 | 0 | 0 | 100.0% | 2 s + 4 s |"
        );
        assert!(report.text.contains(
            "Not counted, as the tree no longer has them (their code changed since): 1 of persist."
        ));
    }

    #[test]
    fn the_record_keeps_outcomes_and_a_run_begun_before_it_does_not_undo_them() {
        let run = |began, kind| vec![pass("unit", began, &[(mutant(80, 82, TRUE), kind)])];
        let record = merge(
            BTreeMap::new(),
            &[run("2026-12-01T10:00:00Z", Kind::Caught)],
            &no_code,
        );
        let text = crate::record::format(&record).unwrap();
        let record = crate::record::parse(&text).unwrap();
        let tree = [mutant(83, 85, TRUE)];
        let table = |runs: &[Vec<Pass>]| {
            let merged = merge(record.clone(), runs, &no_code);
            row(&summarize(
                merged,
                &tree,
                &|_| None,
                &BTreeMap::new(),
                &["persist"],
                true,
            ))
            .to_owned()
        };
        // The record alone gives the table, with no folder of outcomes left.
        assert_eq!(
            table(&[]),
            "| persist | 1 | 1 | 0 | 0 | 0 | 100.0% | 2 s + 4 s |"
        );
        assert_eq!(
            table(&[run("2026-12-01T09:00:00Z", Kind::Missed)]),
            table(&[])
        );
        assert!(table(&[run("2026-12-01T11:00:00Z", Kind::Missed)]).contains("| 0 | 1 |"));
        // Another module's summary shows none of persist's outcomes.
        let merged = merge(record.clone(), &[], &no_code);
        let other = summarize(merged, &tree, &|_| None, &BTreeMap::new(), &["gate"], true);
        assert!(!other.text.contains("persist"), "{}", other.text);
        assert_eq!(other.outcomes.len(), 1);
    }

    #[test]
    fn either_pass_of_a_run_catches_and_its_integration_pass_counts_for_its_own_mutants_only() {
        let (a, b, c, d) = (
            mutant(10, 11, TRUE),
            mutant(10, 12, TRUE),
            mutant(10, 13, TRUE),
            mutant(10, 14, TRUE),
        );
        let (e, f) = (mutant(10, 15, TRUE), mutant(10, 16, TRUE));
        let unit = pass(
            "unit",
            "2026-12-01T10:00:00Z",
            &[
                (a.clone(), Kind::Caught),
                (b.clone(), Kind::Missed),
                (c.clone(), Kind::Missed),
                (e.clone(), Kind::Timeout),
                (f.clone(), Kind::Missed),
            ],
        );
        // The integration pass misses a (the unit pass's catch stands), catches b, is cut short before c, and
        // gets d, another shard's mutant (cargo-mutants' issue 632), which does not count here. It times out on f,
        // which the unit pass missed: a timeout.
        let mut integration = pass(
            "integration",
            "2026-12-01T10:30:00Z",
            &[
                (a.clone(), Kind::Missed),
                (b.clone(), Kind::Caught),
                (d.clone(), Kind::Missed),
                (f.clone(), Kind::Timeout),
            ],
        );
        integration.listed.as_mut().unwrap().insert(c.key());
        let tree = [a, b, c, d, e, f];
        let report = summary(&[vec![unit, integration]], &tree);
        assert_eq!(
            row(&report),
            "| persist | 4 of 6 (partly run) | 2 | 0 | 0 | 2 | 100.0% | 4 s + 8 s |"
        );
        assert!(!report.text.contains("Missed mutants"), "{}", report.text);
    }

    #[test]
    fn scores_round_down_and_allowed_survivors_are_known_by_their_name_now() {
        let caught: Vec<(Mutant, Kind)> = (0..1799)
            .map(|i| (mutant(100, 101 + i, FALSE), Kind::Caught))
            .collect();
        let mut all = caught;
        all.extend((0..200).map(|i| (mutant(100_000, 100_001 + i, TRUE), Kind::Missed)));
        let tree: Vec<Mutant> = all.iter().map(|(m, _)| m.clone()).collect();
        let merged = merge(
            BTreeMap::new(),
            &[vec![pass("unit", "2026-12-01T10:00:00Z", &all)]],
            &no_code,
        );
        // 1,799 of 1,999: 89.995%, which rounded to the nearest tenth would show as 90.0%.
        let allow = allowed(
            "src/persist/fs.rs: replace FsStore::is_open -> bool with true # equivalent\n",
            "a",
        )
        .unwrap();
        let report = summarize(merged, &tree, &|_| None, &allow, &["persist"], true);
        assert!(row(&report).contains("| 89.9% |"), "{}", row(&report));
        assert!(
            row(&report).contains("| 200 (200 allowed) |"),
            "{}",
            row(&report)
        );
        assert_eq!(report.complaints, ["under 90% caught: persist 89.9%"]);
        assert!(allowed("no reason\n", "allowed.txt")
            .unwrap_err()
            .0
            .starts_with("allowed.txt:1: expected"));
    }

    #[test]
    fn an_outcome_of_a_function_whose_code_changed_since_is_not_counted() {
        let tested = "fn a() {\n    x\n}\n\n\nfn f() -> bool {\n    open\n}\n";
        let now_same = format!("// added\n{tested}");
        let m_then = mutant(6, 7, TRUE);
        let m_now = mutant(7, 8, TRUE);
        let run = || {
            vec![pass(
                "unit",
                "2026-12-01T10:00:00Z",
                &[(m_then.clone(), Kind::Caught)],
            )]
        };
        let at = |c: &str, p: &str| {
            (c == "0123456789ab" && p == "src/persist/fs.rs").then(|| tested.to_owned())
        };
        let merged = merge(BTreeMap::new(), &[run()], &at);
        let print = merged.values().next().unwrap().print.clone();
        assert_eq!(print, Some(fingerprint(tested, (6, 10))));
        let with = |text: String| {
            let report = summarize(
                merged.clone(),
                std::slice::from_ref(&m_now),
                &|_| Some(text.clone()),
                &BTreeMap::new(),
                &["persist"],
                true,
            );
            (report.outcomes.len(), report.verdict)
        };
        // Moved by a line added above it: counted.
        assert_eq!(with(now_same.clone()), (1, 0));
        // Its code changed: untested again.
        assert_eq!(with(now_same.replace("open", "shut")), (0, 1));
        // A commit git does not know: its code unknown, so counted.
        let merged = merge(BTreeMap::new(), &[run()], &no_code);
        assert_eq!(merged.values().next().unwrap().print, None);
    }

    #[test]
    fn runs_are_read_from_their_folders_and_a_folder_without_outcomes_is_refused() {
        let dir = std::env::temp_dir().join(format!("xtask-summary-{}", std::process::id()));
        let out = dir.join("persist/unit/mutants.out");
        fs::create_dir_all(&out).unwrap();
        let m = json!({"name": "src/persist/fs.rs:82:9: replace f with true", "file": "src/persist/fs.rs",
            "span": {"start": {"line": 82, "column": 9}, "end": {"line": 82, "column": 13}}});
        let outcomes = json!({"start_time": "2026-12-01T10:00:00Z", "outcomes": [
            {"scenario": "Baseline", "summary": "Success"},
            {"scenario": {"Mutant": m}, "summary": "MissedMutant", "phase_results": [{"phase": "Build", "duration": 1.5}]},
            {"scenario": {"Mutant": m}, "summary": "Failure"}]});
        fs::write(out.join("outcomes.json"), outcomes.to_string()).unwrap();
        fs::write(dir.join("persist/unit/tree.txt"), "commit 0123456789ab\n").unwrap();
        // An older run's folder, kept by cargo-mutants: not this run's.
        fs::create_dir_all(dir.join("persist/unit/mutants.out.old")).unwrap();
        fs::write(
            dir.join("persist/unit/mutants.out.old/outcomes.json"),
            "not json",
        )
        .unwrap();
        let runs = read_runs(std::slice::from_ref(&dir)).unwrap();
        assert_eq!(runs.len(), 1);
        let p = &runs[0][0];
        assert_eq!(
            (
                p.pass.as_str(),
                p.tested.as_str(),
                p.outcomes.len(),
                p.listed.is_none()
            ),
            ("unit", "commit 0123456789ab", 1, true)
        );
        assert_eq!((p.outcomes[0].1, p.outcomes[0].2), (Kind::Missed, 1.5));
        let empty = dir.join("empty");
        fs::create_dir_all(&empty).unwrap();
        assert!(read_runs(&[empty])
            .unwrap_err()
            .0
            .ends_with("no outcomes.json under it (a folder of --out)"));
        fs::write(
            out.join("outcomes.json"),
            r#"{"start_time": "noon", "outcomes": []}"#,
        )
        .unwrap();
        assert!(read_runs(std::slice::from_ref(&dir))
            .unwrap_err()
            .0
            .contains("is not a time"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
