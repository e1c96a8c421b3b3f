//! `budgetlab man`: one man page (roff, section 1) for budgetlab and every command, made from the clap
//! definitions (clap_mangen), on stdout: the top-level page, then a section a command (nested commands too) with
//! its description, synopsis, options and examples.

use std::io::Write;

use clap::{Args, CommandFactory};

use super::output::emit;
use super::{Cli, Status};

/// Flags of `budgetlab man`.
#[derive(Debug, Args)]
pub(crate) struct ManArgs {}

/// Examples shown after `budgetlab man --help`.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab man > budgetlab.1";

/// The man page.
pub(crate) fn page() -> std::io::Result<Vec<u8>> {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let mut out = Vec::new();
    clap_mangen::Man::new(cli.clone()).render(&mut out)?;
    for command in cli.get_subcommands() {
        section(command, &mut out)?;
    }
    Ok(out)
}

/// A command's section, then its own commands'. The page's sections are the top-level page's; a command's
/// parts are subsections under its name.
fn section(command: &clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    let name = command
        .get_bin_name()
        .unwrap_or_else(|| command.get_name())
        .to_uppercase();
    writeln!(out, ".SH \"{}\"", name.replace('"', ""))?;
    let man = clap_mangen::Man::new(command.clone());
    let mut parts = Vec::new();
    man.render_description_section(&mut parts)?;
    man.render_synopsis_section(&mut parts)?;
    if command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut parts)?;
    }
    if command.get_after_help().is_some() {
        man.render_extra_section(&mut parts)?;
    }
    let parts = String::from_utf8_lossy(&parts)
        .lines()
        .map(|line| match line.strip_prefix(".SH ") {
            Some("DESCRIPTION") => String::new(),
            Some("EXTRA") => ".SS EXAMPLES".to_string(),
            Some(heading) => format!(".SS {heading}"),
            None => line.to_string(),
        })
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    writeln!(out, "{parts}")?;
    for sub in command.get_subcommands() {
        section(sub, out)?;
    }
    Ok(())
}

/// Prints the page.
pub(crate) fn execute(_args: ManArgs) -> anyhow::Result<Status> {
    emit(&page()?)?;
    Ok(Status::Done)
}
