//! `budgetlab completions SHELL`: the shell's completion script for every command and flag, made from the
//! clap definitions (clap_complete), on stdout.

use clap::{Args, CommandFactory, ValueEnum};

use super::output::emit;
use super::{Cli, Status};

/// The shells a completion script can be written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Shell {
    /// Bash (bash-completion).
    Bash,
    /// Zsh (a `_budgetlab` function for `fpath`).
    Zsh,
    /// Fish.
    Fish,
    /// PowerShell.
    Powershell,
}

impl Shell {
    fn generator(self) -> clap_complete::Shell {
        match self {
            Shell::Bash => clap_complete::Shell::Bash,
            Shell::Zsh => clap_complete::Shell::Zsh,
            Shell::Fish => clap_complete::Shell::Fish,
            Shell::Powershell => clap_complete::Shell::PowerShell,
        }
    }
}

/// Flags of `budgetlab completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub(crate) shell: Shell,
}

/// Examples shown after `budgetlab completions --help`.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab completions bash > budgetlab.bash
  budgetlab completions zsh > _budgetlab";

/// The completion script of `shell`.
pub(crate) fn script(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(
        shell.generator(),
        &mut Cli::command(),
        "budgetlab",
        &mut out,
    );
    out
}

/// Prints the script.
pub(crate) fn execute(args: CompletionsArgs) -> anyhow::Result<Status> {
    emit(&script(args.shell))?;
    Ok(Status::Done)
}
