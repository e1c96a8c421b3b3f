//! The command layer of the binary: one file a subcommand, each holding its flags (clap types) and the steps
//! from them to what the user sees: the flags become the library's request, the request is validated into a
//! job, the job runs, and its output goes to a file, a folder, stdout or stderr. Flags several commands share
//! are one struct each in [`flags`], flattened where used; writing to stdout and files, progress bars and the
//! thread pool are in [`output`]. Nothing here computes a result: the library does, and never sees clap.

use clap::{Parser, Subcommand};

pub(crate) mod calibrate;
pub(crate) mod check;
pub(crate) mod compare;
pub(crate) mod completions;
pub(crate) mod conform;
pub(crate) mod finalize;
pub(crate) mod flags;
pub(crate) mod generate;
pub(crate) mod history;
pub(crate) mod import;
pub(crate) mod man;
pub(crate) mod merge;
pub(crate) mod needles;
pub(crate) mod output;
pub(crate) mod profile;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod scenarios;
pub(crate) mod simulate;
pub(crate) mod strategies;
pub(crate) mod sweep;
pub(crate) mod tokens;
pub(crate) mod tune;

/// budgetlab: benchmark and simulate tool-output budget finalizers.
#[derive(Debug, Parser)]
#[command(
    name = "budgetlab",
    version,
    about,
    propagate_version = true,
    after_help = EXAMPLES
)]
pub(crate) struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Examples shown after `budgetlab --help`: the three first steps.
const EXAMPLES: &str = "Examples:
  budgetlab run --quick                  # every shipped scenario through every strategy, into reports/latest
  budgetlab compare reports/latest --strategies reference,salient   # two strategies side by side
  budgetlab finalize --budget 8000 --input examples/turn.json --pretty   # one batch, finalized";

/// budgetlab's commands. Each has examples after its help (`after_help`), which `tests/examples.rs` runs.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Finalize one batch (a JSON array of entries) and print the result as JSON.
    #[command(after_help = finalize::EXAMPLES)]
    Finalize(finalize::FinalizeArgs),
    /// List the finalizer strategies with a one-line description each.
    #[command(after_help = strategies::EXAMPLES)]
    Strategies(strategies::StrategiesArgs),
    /// Generate a scenario's batches as JSON Lines (one batch per line), with the needles beside them.
    #[command(after_help = generate::EXAMPLES)]
    Generate(generate::GenerateArgs),
    /// List the scenarios with a one-line description each.
    #[command(after_help = scenarios::EXAMPLES)]
    Scenarios(scenarios::ScenariosArgs),
    /// Run scenarios through every strategy and write results, CSV and a summary to a report folder.
    #[command(after_help = run::EXAMPLES)]
    Run(run::RunArgs),
    /// Redraw the charts and index.html of a report folder from its results, without rerunning anything.
    #[command(after_help = report::EXAMPLES)]
    Report(report::ReportArgs),
    /// Run one scenario at many budgets, context windows or head shares and chart the metrics against them.
    #[command(after_help = sweep::EXAMPLES)]
    Sweep(sweep::SweepArgs),
    /// Follow a scenario's turns through the runtime boundaries with one strategy, boundary by boundary.
    #[command(after_help = simulate::EXAMPLES)]
    Simulate(simulate::SimulateArgs),
    /// Combine the report folders of a sharded run into the report of the whole run.
    #[command(after_help = merge::EXAMPLES)]
    Merge(merge::MergeArgs),
    /// Check a run against a stored baseline: exit 1 when the reference breaks its contract or a metric moved.
    #[command(after_help = check::EXAMPLES)]
    Check(check::CheckArgs),
    /// Print the differences of two runs' tracked metrics as a Markdown table.
    #[command(after_help = compare::EXAMPLES)]
    Compare(compare::CompareArgs),
    /// Import agent session logs as batches (JSON Lines, one model turn a line) for `finalize` and `run`.
    #[command(after_help = import::EXAMPLES)]
    Import(import::ImportArgs),
    /// Count the tokens of batches: UTF-16 units, tokens and units per token by tool and by kind of output.
    #[command(after_help = tokens::EXAMPLES)]
    Tokens(tokens::TokensArgs),
    /// Profile tool output (sizes, shape, width, repeats, needles, tools) of batches files or scenarios.
    #[command(after_help = profile::EXAMPLES)]
    Profile(profile::ProfileArgs),
    /// Fit a scenario to a corpus of batches; exit 1 when its generated batches do not match the corpus.
    #[command(after_help = calibrate::EXAMPLES)]
    Calibrate(calibrate::CalibrateArgs),
    /// Check one finalizer against the design's contract; exit 1 with shrunk counterexamples when a check fails.
    #[command(after_help = conform::EXAMPLES)]
    Conform(conform::ConformArgs),
    /// Needles of recorded batches: `agreement` of the detector's needles with the lines agents used.
    #[command(after_help = needles::EXAMPLES)]
    Needles(needles::NeedlesArgs),
    /// Search the tunable strategies' settings for the best per budget, validated on batches the search did not see.
    #[command(after_help = tune::EXAMPLES)]
    Tune(tune::TuneArgs),
    /// The nightly history in a SQLite database: add a run, show the series, check the newest night.
    #[command(after_help = history::EXAMPLES)]
    History(history::HistoryArgs),
    /// Print a shell completion script for every command and flag (bash, zsh, fish, powershell).
    #[command(after_help = completions::EXAMPLES)]
    Completions(completions::CompletionsArgs),
    /// Print budgetlab's man page (roff), every command and flag in it.
    #[command(after_help = man::EXAMPLES)]
    Man(man::ManArgs),
}

/// The command line's definition: [`Cli`]'s, with every flag that takes a value taking a word that looks like a
/// negative number (`history check --alpha -1`) as that value, so that the flag's own parser judges it and names
/// the flag, where clap would read the word as an unknown short flag. Flags whose values may start with any `-`
/// (`--shard`, `--external`) say so themselves (`allow_hyphen_values`).
pub(crate) fn cli() -> clap::Command {
    fn values_of_their_own(command: clap::Command) -> clap::Command {
        command
            .mut_args(|arg| {
                if arg.get_action().takes_values() && !arg.is_allow_hyphen_values_set() {
                    arg.allow_negative_numbers(true)
                } else {
                    arg
                }
            })
            .mut_subcommands(values_of_their_own)
    }
    values_of_their_own(<Cli as clap::CommandFactory>::command())
}

/// How a command that did not fail ended; `main` turns it into the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Done (exit status 0).
    Done,
    /// Done, and a check it ran failed: the gate, a conformance check (exit status 1).
    ChecksFailed,
}

impl Status {
    /// [`Status::Done`] when `passed`, else [`Status::ChecksFailed`].
    pub(crate) fn of_checks(passed: bool) -> Status {
        if passed {
            Status::Done
        } else {
            Status::ChecksFailed
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_flags_are_consistent() {
        // Fails on a clash of flag names, a `requires` or `conflicts_with` naming no flag, and a help text or
        // default set (`mut_arg`) on a flag the command does not have.
        Cli::command().debug_assert();
    }

    #[test]
    fn shared_flags_keep_each_commands_words_and_defaults() {
        let cli = Cli::command();
        let flag = |command: &str, id: &str| {
            let command = cli.find_subcommand(command).unwrap();
            let arg = command.get_arguments().find(|a| a.get_id() == id).unwrap();
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            let default = arg
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect::<Vec<_>>();
            (help, default)
        };
        assert_eq!(flag("run", "out").1, ["reports/latest"]);
        assert_eq!(flag("merge", "out").1, ["reports/latest"]);
        assert_eq!(
            flag("sweep", "out"),
            ("The output folder".into(), vec!["reports/sweep".into()])
        );
        assert_eq!(flag("conform", "out").1, ["reports/conform"]);
        assert_eq!(flag("generate", "seed").0, "Override the scenario's seed");
        assert_eq!(flag("simulate", "seed").0, "Override the scenario's seed");
        assert_eq!(
            flag("run", "seed").0,
            "Seed for every scenario, overriding theirs"
        );
        assert_eq!(flag("sweep", "seed").0, "Seed overriding the scenario's");
        assert_eq!(flag("run", "threads"), flag("sweep", "threads"));
        assert_eq!(
            flag("simulate", "scenario").0,
            "A scenario file, or the name of a shipped scenario"
        );
    }

    /// Every command (nested ones too) by its words (`history add`), with its long flags, `--help` included
    /// (hidden flags, which no page or script shows, left out).
    fn commands_and_flags() -> Vec<(String, Vec<String>)> {
        fn walk(command: &clap::Command, path: &str, out: &mut Vec<(String, Vec<String>)>) {
            let flags = command
                .get_arguments()
                .filter(|a| !a.is_hide_set())
                .filter_map(|a| a.get_long().map(str::to_string))
                .collect();
            out.push((path.to_string(), flags));
            for sub in command.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), out);
            }
        }
        let mut cli = Cli::command().disable_help_subcommand(true);
        cli.build();
        let mut out = Vec::new();
        walk(&cli, "budgetlab", &mut out);
        out
    }

    /// Whether `word` is in `text` as a word of its own (not inside a longer name or flag).
    fn has_word(text: &str, word: &str) -> bool {
        let edge =
            |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'));
        text.match_indices(word).any(|(i, _)| {
            edge(text[..i].chars().next_back()) && edge(text[i + word.len()..].chars().next())
        })
    }

    /// The command names and flags missing from `text`; fish spells a flag `-l NAME`, the others `--NAME`.
    fn missing(text: &str, fish: bool) -> Vec<String> {
        let mut missing = Vec::new();
        for (path, flags) in commands_and_flags() {
            let name = path.rsplit(' ').next().unwrap();
            if !has_word(text, name) {
                missing.push(path.clone());
            }
            for flag in flags {
                let spelled = if fish {
                    format!("-l {flag}")
                } else {
                    format!("--{flag}")
                };
                if !has_word(text, &spelled) {
                    missing.push(format!("{path} {spelled}"));
                }
            }
        }
        missing
    }

    #[test]
    fn every_command_and_flag_is_in_each_completion_script_and_the_man_page() {
        let all = commands_and_flags();
        assert!(all.len() >= 26, "{all:?}");
        assert!(all
            .iter()
            .any(|(p, f)| p == "budgetlab history add" && f.contains(&"commit".to_string())));
        for shell in [
            completions::Shell::Bash,
            completions::Shell::Zsh,
            completions::Shell::Fish,
            completions::Shell::Powershell,
        ] {
            let text = String::from_utf8(completions::script(shell)).unwrap();
            let fish = shell == completions::Shell::Fish;
            assert_eq!(missing(&text, fish), Vec::<String>::new(), "{shell:?}");
            // The check can fail: a flag no command has is reported.
            assert!(!has_word(
                &text,
                if fish {
                    "-l no-such-flag"
                } else {
                    "--no-such-flag"
                }
            ));
        }
        let page = String::from_utf8(man::page().unwrap()).unwrap();
        assert!(page.contains(".TH budgetlab 1"), "{}", &page[..200]);
        // roff escapes the hyphens of flags and sets them in bold.
        let plain = ["\\fB", "\\fI", "\\fR", "\\fP"]
            .iter()
            .fold(page.replace("\\-", "-"), |text, font| {
                text.replace(font, "")
            });
        assert_eq!(missing(&plain, false), Vec::<String>::new());
        // Each command has its section, and its flags are in it.
        for (path, flags) in &all[1..] {
            let heading = format!(".SH \"{}\"", path.to_uppercase());
            let start = plain
                .find(&heading)
                .unwrap_or_else(|| panic!("{heading} missing from the man page"));
            let section = &plain[start + heading.len()..];
            let section = &section[..section.find(".SH ").unwrap_or(section.len())];
            for flag in flags {
                assert!(
                    has_word(section, &format!("--{flag}")),
                    "{path} --{flag} not in its section"
                );
            }
        }
    }

    #[test]
    fn the_word_check_wants_a_whole_word() {
        assert!(has_word("opts=\"--batches --seed\"", "--batches"));
        assert!(!has_word("--batches-file", "--batches"));
        assert!(!has_word("rerun", "run"));
        assert!(has_word("opts=\"-h run sweep\"", "run"));
    }

    #[test]
    fn a_negative_number_is_judged_by_its_own_flag_for_every_value_flag() {
        // Every flag of every command (nested ones too) that takes a value, given `-1`: clap must hand `-1` to the
        // flag (whose parser then takes or refuses it, naming the flag), never report it as an unknown argument.
        fn walk(command: &clap::Command, words: &[String], out: &mut Vec<Vec<String>>) {
            for arg in command.get_arguments() {
                if let (Some(long), true) = (arg.get_long(), arg.get_action().takes_values()) {
                    let mut call = words.to_vec();
                    call.extend([format!("--{long}"), "-1".to_string()]);
                    out.push(call);
                }
            }
            for sub in command.get_subcommands() {
                let mut next = words.to_vec();
                next.push(sub.get_name().to_string());
                walk(sub, &next, out);
            }
        }
        let mut built = cli();
        built.build();
        let mut calls = Vec::new();
        walk(&built, &["budgetlab".to_string()], &mut calls);
        assert!(calls.len() >= 100, "{}", calls.len());
        assert!(calls.contains(
            &["budgetlab", "history", "check", "--alpha", "-1"]
                .map(String::from)
                .to_vec()
        ));
        let read_as_flags: Vec<String> = calls
            .iter()
            .filter(|call| {
                cli().try_get_matches_from(call.iter()).is_err_and(|e| {
                    e.kind() == clap::error::ErrorKind::UnknownArgument
                        && e.to_string().contains("'-1'")
                })
            })
            .map(|call| call.join(" "))
            .collect();
        assert_eq!(read_as_flags, Vec::<String>::new());
        // The check can fail: clap's own definition reads `-1` as a flag.
        assert!(Cli::command()
            .try_get_matches_from(["budgetlab", "history", "check", "--alpha", "-1"])
            .is_err_and(|e| e.kind() == clap::error::ErrorKind::UnknownArgument));
    }

    #[test]
    fn a_checks_outcome_is_its_status() {
        assert_eq!(Status::of_checks(true), Status::Done);
        assert_eq!(Status::of_checks(false), Status::ChecksFailed);
    }
}
