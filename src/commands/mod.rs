//! The command layer of the binary: one file a subcommand, each holding its flags (clap types) and the steps
//! from them to what the user sees: the flags become the library's request, the request is validated into a
//! job, the job runs, and its output goes to a file, a folder, stdout or stderr. Flags several commands share
//! are one struct each in [`flags`], flattened where used; writing to stdout and files, progress bars and the
//! thread pool are in [`output`]. Nothing here computes a result: the library does, and never sees clap.

use clap::{Parser, Subcommand};

pub(crate) mod calibrate;
pub(crate) mod check;
pub(crate) mod compare;
pub(crate) mod conform;
pub(crate) mod finalize;
pub(crate) mod flags;
pub(crate) mod generate;
pub(crate) mod history;
pub(crate) mod import;
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
#[command(name = "budgetlab", version, about, propagate_version = true)]
pub(crate) struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// budgetlab's commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Finalize one batch (a JSON array of entries) and print the result as JSON.
    Finalize(finalize::FinalizeArgs),
    /// List the finalizer strategies with a one-line description each.
    Strategies(strategies::StrategiesArgs),
    /// Generate a scenario's batches as JSON Lines (one batch per line), with the needles beside them.
    Generate(generate::GenerateArgs),
    /// List the scenarios with a one-line description each.
    Scenarios(scenarios::ScenariosArgs),
    /// Run scenarios through every strategy and write results, CSV and a summary to a report folder.
    Run(run::RunArgs),
    /// Redraw the charts and index.html of a report folder from its results, without rerunning anything.
    Report(report::ReportArgs),
    /// Run one scenario at many budgets, context windows or head shares and chart the metrics against them.
    Sweep(sweep::SweepArgs),
    /// Follow a scenario's turns through the runtime boundaries with one strategy, boundary by boundary.
    Simulate(simulate::SimulateArgs),
    /// Combine the report folders of a sharded run into the report of the whole run.
    Merge(merge::MergeArgs),
    /// Check a run against a stored baseline: exit 1 when the reference breaks its contract or a metric moved.
    Check(check::CheckArgs),
    /// Print the differences of two runs' tracked metrics as a Markdown table.
    Compare(compare::CompareArgs),
    /// Import agent session logs as batches (JSON Lines, one model turn a line) for `finalize` and `run`.
    Import(import::ImportArgs),
    /// Count the tokens of batches: UTF-16 units, tokens and units per token by tool and by kind of output.
    Tokens(tokens::TokensArgs),
    /// Profile tool output (sizes, shape, width, repeats, needles, tools) of batches files or scenarios.
    Profile(profile::ProfileArgs),
    /// Fit a scenario to a corpus of batches; exit 1 when its generated batches do not match the corpus.
    Calibrate(calibrate::CalibrateArgs),
    /// Check one finalizer against the design's contract; exit 1 with shrunk counterexamples when a check fails.
    Conform(conform::ConformArgs),
    /// Needles of recorded batches: `agreement` of the detector's needles with the lines agents used.
    Needles(needles::NeedlesArgs),
    /// Search the tunable strategies' settings for the best per budget, validated on batches the search did not see.
    Tune(tune::TuneArgs),
    /// The nightly history in a SQLite database: add a run, show the series, check the newest night.
    History(history::HistoryArgs),
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

    #[test]
    fn a_checks_outcome_is_its_status() {
        assert_eq!(Status::of_checks(true), Status::Done);
        assert_eq!(Status::of_checks(false), Status::ChecksFailed);
    }
}
