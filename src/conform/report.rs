//! The result of a conformance run: per check, how many cases it judged, how many passed, and the first
//! counterexample shrunk, with the batch file and the `budgetlab finalize` commands that replay it. Pure data;
//! `export` turns it into bytes.

use serde::Serialize;

use super::case::{Case, DEFAULT_ARTIFACT_DIR};
use super::cases::CaseCounts;
use super::shrink::CaseSize;
use super::vectors::REMINDER_FILES;
use crate::budget::PlanReminders;
use crate::rng::Seed;

/// The version of the `conform.json` schema.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything a conformance run found.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConformReport {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The budgetlab version that ran the checks.
    pub budgetlab_version: String,
    /// The strategy checked, as `--strategy` named it.
    pub strategy: String,
    /// Whether it was also held to the reference (`--as reference`).
    pub as_reference: bool,
    /// The seed of the generated cases.
    pub seed: Seed,
    /// How many cases of each origin.
    pub cases: CaseCounts,
    /// The scenarios the generated cases come from, with their digests under the run's seed.
    pub scenarios: Vec<ScenarioDigest>,
    /// Cases not run because they inject failed writes and the finalizer cannot simulate them (it lacks the
    /// `persist-faults` capability); absent when every case ran.
    #[serde(skip_serializing_if = "is_zero")]
    pub cases_not_run: u64,
    /// Whether every check that ran holds.
    pub passed: bool,
    /// One result per check, in report order.
    pub checks: Vec<CheckResult>,
}

/// A scenario and its digest.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioDigest {
    /// The scenario's name.
    pub name: String,
    /// SHA-256 of its canonical form, with the run's seed.
    pub digest: String,
}

/// One check over every case.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckResult {
    /// The check's name.
    pub check: String,
    /// What it holds the finalizer to.
    pub description: String,
    /// Cases the check applied to.
    pub cases: u64,
    /// Of those, the cases that passed.
    pub passed: u64,
    /// The first failing case, shrunk (`None` when every case passed).
    pub counterexample: Option<Counterexample>,
    /// Why the check was not run (absent when it ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl CheckResult {
    /// Whether the check holds on every case it applied to (a check not run holds: nothing was found).
    pub fn holds(&self) -> bool {
        self.counterexample.is_none()
    }
}

/// A failing case, shrunk, and how to replay it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counterexample {
    /// The case it was shrunk from.
    pub case: String,
    /// What the check found on the original case.
    pub original_message: String,
    /// What the check finds on the shrunk case.
    pub message: String,
    /// The size of the original case.
    pub original: CaseSize,
    /// The size of the shrunk case.
    pub shrunk: CaseSize,
    /// How many times the check was evaluated while shrinking.
    pub evaluations: usize,
    /// The files written for it, relative to the report folder.
    pub files: Vec<String>,
    /// The commands that replay it (each prints the output to look at).
    pub commands: Vec<String>,
    /// The files' content, written into the report folder.
    #[serde(skip)]
    pub contents: Vec<(String, Vec<u8>)>,
}

/// How replay commands name the strategy and the report folder.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The strategy, as `--strategy` takes it.
    pub strategy: String,
    /// Flags every replay command carries before the others (e.g. one registering an external strategy).
    pub finalize_flags: Vec<String>,
    /// The report folder, as the user named it, for the files' paths in the commands.
    pub folder: String,
}

impl Replay {
    /// The path of `file` (relative to the report folder) as a command names it.
    fn path(&self, file: &str) -> String {
        if self.folder.is_empty() {
            return file.to_string();
        }
        format!("{}/{file}", self.folder.trim_end_matches('/'))
    }

    /// The `budgetlab finalize` command for `case` read from `input` (a file in the report folder), with
    /// `strategy` and the case's flags, and `fail_ids` failing besides the case's own.
    pub fn command(
        &self,
        strategy: &str,
        case: &Case,
        input: &str,
        fail_ids: &[String],
        reminder_files: &[String],
    ) -> String {
        let mut args: Vec<String> = vec!["budgetlab".into(), "finalize".into()];
        args.extend(self.finalize_flags.iter().cloned());
        args.extend(["--strategy".into(), strategy.to_string()]);
        args.extend(["--budget".into(), case.budget.to_string()]);
        if case.artifact_dir != DEFAULT_ARTIFACT_DIR {
            args.extend(["--artifact-dir".into(), case.artifact_dir.clone()]);
        }
        if let Some(window) = case.context_window_tokens {
            args.extend(["--context-window".into(), window.to_string()]);
        }
        let mut failing: Vec<&String> = case.fail_ids.iter().chain(fail_ids).collect();
        failing.sort();
        failing.dedup();
        for id in failing {
            args.extend(["--fail-persist".into(), id.clone()]);
        }
        for file in reminder_files {
            args.extend(["--plan-reminder-file".into(), self.path(file)]);
        }
        args.extend(["--input".into(), self.path(input)]);
        args.iter()
            .map(|a| shell_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The reminder files a case's commands need (none for the built-in reminders), as (file, text).
    pub fn reminder_files(&self, check: &str, case: &Case) -> Vec<(String, String)> {
        if case.reminders == PlanReminders::default() {
            return Vec::new();
        }
        case.reminders
            .texts()
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let name = REMINDER_FILES.iter().find(|(_, t)| t == text).map_or_else(
                    || format!("plan-reminder-{}.txt", i + 1),
                    |(n, _)| n.to_string(),
                );
                (format!("counterexamples/{check}.{name}"), text.clone())
            })
            .collect()
    }
}

/// `arg` as a POSIX shell reads it back: bare when it holds only safe characters, else in single quotes.
pub fn shell_quote(arg: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c);
    if !arg.is_empty() && arg.chars().all(safe) {
        return arg.to_string();
    }
    format!("'{}'", arg.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;

    #[test]
    fn quotes_only_what_a_shell_would_split_or_expand() {
        assert_eq!(shell_quote("head-tail-1/3"), "head-tail-1/3");
        assert_eq!(shell_quote("-1"), "-1");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("with space"), "'with space'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
    }

    #[test]
    fn commands_carry_every_flag_the_case_needs() {
        let replay = Replay {
            strategy: "reference".into(),
            finalize_flags: vec![],
            folder: "out dir".into(),
        };
        let mut case = Case::new("x", Vec::new(), Budget::Units(-5));
        assert_eq!(
            replay.command("reference", &case, "counterexamples/a.json", &[], &[]),
            "budgetlab finalize --strategy reference --budget -5 --input 'out dir/counterexamples/a.json'"
        );
        case.artifact_dir = "/tmp".into();
        case.context_window_tokens = Some(16_000);
        case.fail_ids = vec!["b".into()];
        case.budget = Budget::Unlimited;
        assert_eq!(
            replay.command("codex", &case, "c.json", &["a".into(), "b".into()], &["r.txt".into()]),
            "budgetlab finalize --strategy codex --budget inf --artifact-dir /tmp --context-window 16000 \
             --fail-persist a --fail-persist b --plan-reminder-file 'out dir/r.txt' --input 'out dir/c.json'"
        );
    }
}
