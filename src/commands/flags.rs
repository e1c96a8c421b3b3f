//! Flags several commands share, one clap struct each, flattened where used: the flag's name, value and parsing
//! are declared once here. Where a command words a shared flag its own way (its default differs, or it says
//! what the flag means there), it sets the help text or the default with `#[command(mut_arg(..))]` and
//! [`help`], so that every `--help` reads as it always has.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Arg, Args};

use budgetlab::atomic::{refuse_inside, Named};
use budgetlab::run::{RecordedBatches, Workloads};

/// Sets a shared flag's help text for one command: `#[command(mut_arg("seed", help("...")))]`.
pub(crate) fn help(text: &'static str) -> impl FnOnce(Arg) -> Arg {
    move |arg| arg.help(text)
}

/// `--scenario`: one scenario, by file or shipped name (`generate`, `simulate`, `sweep`).
#[derive(Debug, Args)]
pub(crate) struct ScenarioFlag {
    /// A scenario file, or the name of a shipped scenario (see `budgetlab scenarios`).
    #[arg(id = "scenario", long = "scenario", value_name = "FILE|NAME")]
    pub(crate) value: String,
}

/// `--seed`: a seed replacing the scenario's (`generate`, `simulate`, `run`, `sweep`); the library applies it,
/// in one place ([`budgetlab::Scenario::with_seed`]).
#[derive(Debug, Args)]
pub(crate) struct SeedFlag {
    /// Override the scenario's seed.
    #[arg(
        id = "seed",
        long = "seed",
        value_name = "S",
        allow_negative_numbers = true
    )]
    pub(crate) value: Option<u64>,
}

/// `--batches`: a number of batches replacing the scenario's (`generate`, `run`, `sweep`).
#[derive(Debug, Args)]
pub(crate) struct BatchesFlag {
    /// Override the scenario's number of batches (1 to 1,000,000).
    #[arg(
        id = "batches",
        long = "batches",
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub(crate) value: Option<u64>,
}

/// `--shard I/N`: one shard of the batches (`run`, `generate`).
#[derive(Debug, Args)]
pub(crate) struct ShardFlag {
    /// Run only shard I of N (batches i with i % N == I); `budgetlab merge` combines the shards.
    #[arg(
        id = "shard",
        long = "shard",
        value_name = "I/N",
        allow_hyphen_values = true
    )]
    pub(crate) value: Option<String>,
}

/// `--out DIR`: a report folder budgetlab writes whole and replaces only when it made it (`run`, `merge`,
/// `sweep`, `conform`).
#[derive(Debug, Args)]
pub(crate) struct ReportFolder {
    /// The report folder.
    #[arg(
        id = "out",
        long = "out",
        default_value = "reports/latest",
        value_name = "DIR"
    )]
    pub(crate) dir: PathBuf,
}

impl ReportFolder {
    /// Refuses, before any work, a folder budgetlab may not replace.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        budgetlab::report::check_folder(&self.dir).context("--out")
    }

    /// Refuses, before any work, a folder that is or holds a path the command reads (or another output).
    pub(crate) fn refuse_holding(&self, inside: &[Named<'_>]) -> anyhow::Result<()> {
        Ok(refuse_inside(Named::new("--out", &self.dir), inside)?)
    }
}

/// The argument `value` of `flag` as a path the command reads, when it names something on disk (a scenario
/// argument that does not is a shipped scenario's name).
pub(crate) fn existing_path<'a>(flag: &'a str, value: &'a str) -> Option<Named<'a>> {
    let path = std::path::Path::new(value);
    path.exists().then(|| Named::new(flag, path))
}

/// What a command runs on (`run`, `tune`): scenarios (files, folders or shipped names), or recorded batches with
/// the budgets to run them at.
#[derive(Debug, Args)]
pub(crate) struct WorkloadFlags {
    /// Scenario files, directories of them, or shipped scenario names (default: every shipped scenario).
    #[arg(long, num_args = 1.., value_name = "DIR|FILE|NAME")]
    pub(crate) scenarios: Vec<String>,
    /// Recorded batches (JSON Lines, one batch a line, the format of `finalize`, e.g. from `import`) instead of
    /// scenarios.
    #[arg(long, value_name = "FILE.jsonl", conflicts_with = "scenarios")]
    pub(crate) batches_file: Option<PathBuf>,
    /// Budgets to run at, comma-separated UTF-16 units (20000 or 20k, 1.5M), replacing the scenarios' own
    /// (default: each scenario's; 20000,50000,200000 for --batches-file).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "N,...",
        allow_negative_numbers = true,
        value_parser = budgetlab::parse_units
    )]
    pub(crate) budgets: Vec<u64>,
}

impl WorkloadFlags {
    /// The workloads the flags name; recorded batches run in `mode` (the scenario's default when `None`), in its
    /// legacy form when `legacy`.
    pub(crate) fn workloads(&self, mode: Option<String>, legacy: bool) -> Workloads {
        match &self.batches_file {
            Some(file) => Workloads::Recorded(RecordedBatches {
                file: file.clone(),
                budgets: self.budgets.clone(),
                mode,
                legacy,
            }),
            None if self.budgets.is_empty() => Workloads::Scenarios(self.scenarios.clone()),
            None => Workloads::ScenariosAtBudgets {
                scenarios: self.scenarios.clone(),
                budgets: self.budgets.clone(),
            },
        }
    }

    /// The paths on disk the command reads (an output folder may not be or hold one of them).
    pub(crate) fn inputs(&self) -> Vec<Named<'_>> {
        let mut inputs: Vec<Named> = self
            .scenarios
            .iter()
            .filter_map(|s| existing_path("--scenarios", s))
            .collect();
        inputs.extend(
            self.batches_file
                .as_deref()
                .map(|f| Named::new("--batches-file", f)),
        );
        inputs
    }

    /// Says on stderr where a scenario argument is read as a path and a shipped name alike (nothing for recorded
    /// batches).
    pub(crate) fn notes(&self) {
        if self.batches_file.is_none() {
            super::output::scenario_notes("--scenarios", &self.scenarios);
        }
    }
}

/// `--threads N`: the size of the worker pool (`run`, `sweep`).
#[derive(Debug, Args)]
pub(crate) struct ThreadsFlag {
    /// Worker threads, 1 to 4 x the available cores (default: all cores). Results do not depend on it.
    #[arg(
        id = "threads",
        long = "threads",
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub(crate) value: Option<usize>,
}

impl ThreadsFlag {
    /// Sizes the worker pool when asked to (checked against its cap); results never depend on it.
    pub(crate) fn apply(&self) -> anyhow::Result<()> {
        if let Some(threads) = self.value {
            rayon::ThreadPoolBuilder::new()
                .num_threads(budgetlab::run::check_threads(threads)?)
                .build_global()
                .context("--threads")?;
        }
        Ok(())
    }
}

/// The flags of the commands that run strategies over a scenario's batches into a report folder (`run`,
/// `sweep`), in the order their help lists them.
#[derive(Debug, Args)]
pub(crate) struct RunFlags {
    /// Comma-separated strategy names, built-in or registered with --external (default: every strategy); a
    /// configured name keeps its commas (`weighted(error=5,text=3)`).
    #[arg(long, value_name = "A,B,...")]
    pub(crate) strategies: Vec<String>,
    /// External strategies.
    #[command(flatten)]
    pub(crate) externals: ExternalArgs,
    /// Batches per scenario.
    #[command(flatten)]
    pub(crate) batches: BatchesFlag,
    /// The seed.
    #[command(flatten)]
    pub(crate) seed: SeedFlag,
    /// The report folder.
    #[command(flatten)]
    pub(crate) out: ReportFolder,
}

impl RunFlags {
    /// The strategy names `--strategies` gives (each flag split at the commas outside parentheses).
    pub(crate) fn strategy_names(&self) -> Vec<String> {
        self.strategies
            .iter()
            .flat_map(|list| budgetlab::finalize::split_strategy_list(list))
            .map(str::to_string)
            .collect()
    }
}

/// Flags registering external strategies (docs/protocol.md), for every command that runs strategies.
#[derive(Debug, Args)]
pub(crate) struct ExternalArgs {
    /// Register strategy NAME (not a built-in name), run by COMMAND (split as a shell would; no shell runs it)
    /// speaking docs/protocol.md (repeatable).
    #[arg(
        long = "external",
        value_name = "NAME=COMMAND",
        allow_hyphen_values = true
    )]
    pub(crate) external: Vec<String>,
    /// Seconds one request to an external strategy may take, 0.001 to 86400.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "10",
        allow_hyphen_values = true
    )]
    pub(crate) external_timeout: String,
    /// Folder for the external strategies' stderr logs and the request of a fault.
    #[arg(long, value_name = "DIR")]
    pub(crate) external_log: Option<PathBuf>,
    /// A lone UTF-16 surrogate escape in an answer: `reject` (a fault) or `replace` (by U+FFFD, to look at the
    /// output; conform's replay commands carry it).
    #[arg(long, value_name = "MODE", default_value = "reject", value_parser = ["reject", "replace"])]
    pub(crate) external_lone_surrogates: String,
}

impl ExternalArgs {
    /// The external strategies and their options, logs defaulting to `default_dir`.
    pub(crate) fn resolve(
        &self,
        default_dir: &str,
    ) -> anyhow::Result<(budgetlab::ExternalStrategies, budgetlab::ExternalOptions)> {
        let strategies = budgetlab::ExternalStrategies::from_specs(&self.external)?;
        if let Some(dir) = &self.external_log {
            budgetlab::external::check_log_dir(dir)?;
        }
        let mut options = budgetlab::ExternalOptions::new(
            self.external_log.as_deref().unwrap_or(default_dir.as_ref()),
        );
        options.timeout = budgetlab::external::parse_timeout(&self.external_timeout)?;
        if self.external_lone_surrogates == "replace" {
            options.lone_surrogates = budgetlab::external::LoneSurrogatePolicy::Replace;
        }
        Ok((strategies, options))
    }

    /// The external strategies as strategy names, logs defaulting to `default_dir`.
    pub(crate) fn registry(
        &self,
        default_dir: &str,
    ) -> anyhow::Result<budgetlab::ExternalRegistry> {
        let (strategies, options) = self.resolve(default_dir)?;
        Ok(budgetlab::ExternalRegistry::new(&strategies, &options))
    }

    /// Where the external strategies of a command writing a report folder log: `--external-log`, or the report.
    pub(crate) fn report_logs(&self) -> budgetlab::external::ExternalLogs<'_> {
        self.external_log.as_deref().map_or(
            budgetlab::external::ExternalLogs::InReport,
            budgetlab::external::ExternalLogs::In,
        )
    }
}

/// `--tokenizer`, `--tokenizer-pattern` and `--token-budget` (`run`, `sweep`, `simulate`, `finalize`): count the
/// model request's tokens beside its UTF-16 units. Without `--tokenizer` nothing is counted.
#[derive(Debug, Args)]
pub(crate) struct TokenFlags {
    /// Count every model request's tokens: o200k_base, cl100k_base, or a tiktoken rank file (base64 token,
    /// space, rank, one a line).
    #[arg(long, value_name = "NAME|FILE")]
    pub tokenizer: Option<String>,
    /// The pre-tokenization of a rank file: o200k (the default) or cl100k.
    #[arg(long, value_name = "o200k|cl100k", requires = "tokenizer")]
    pub tokenizer_pattern: Option<String>,
    /// A token budget to check compliance with: N tokens, or P% of the context window of a window budget.
    #[arg(
        long,
        value_name = "N|P%",
        requires = "tokenizer",
        allow_hyphen_values = true
    )]
    pub token_budget: Option<String>,
}

impl TokenFlags {
    /// What the flags ask the library for; `None` without `--tokenizer`.
    pub(crate) fn request(&self) -> Option<budgetlab::tokens::TokenRequest> {
        self.tokenizer
            .as_ref()
            .map(|tokenizer| budgetlab::tokens::TokenRequest {
                tokenizer: tokenizer.clone(),
                pattern: self.tokenizer_pattern.clone(),
                budget: self.token_budget.clone(),
            })
    }
}
