//! The `budgetlab` binary: parses the arguments, hands the command to its file in [`commands`], and maps the
//! outcome to an exit status: 0 when done, 1 when a check the command ran failed, 2 on bad input (one line on
//! stderr). A closed stdout pipe is not an error.

mod commands;

use std::io;
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::FromArgMatches;

use commands::{Cli, Command, Status};

/// mimalloc instead of the system allocator: a run allocates and frees every turn's copies of its batch on
/// every worker, and glibc's malloc spent a fifth of a two-thread run's time doing so.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // A bare `budgetlab`: the usage and the commands, on stderr, as for any call that asks for nothing.
            eprint!("{}", e.render());
            return ExitCode::from(2);
        }
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!(
                "budgetlab: {} (see --help)",
                one_line(&e.render().to_string())
            );
            return ExitCode::from(2);
        }
    };
    if let Err(e) = budgetlab::interrupt::install() {
        eprintln!("budgetlab: cannot handle signals: {e}");
        return ExitCode::from(2);
    }
    let outcome = dispatch(cli.command);
    // An interrupted command ends with the signal's status, from the thread that handles it.
    budgetlab::interrupt::settle();
    for warning in budgetlab::report::take_warnings() {
        eprintln!("budgetlab: warning: {warning}");
    }
    match outcome {
        Ok(Status::Done) => ExitCode::SUCCESS,
        Ok(Status::ChecksFailed) => ExitCode::from(1),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("budgetlab: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

/// Parses the arguments. clap takes a word starting with one `-` after a flag whose value is optional
/// (`--head-shares -1..1`) for unknown short flags; such a word is given to the flag as its value
/// (`--head-shares=-1..1`) and the arguments parsed again, so that the flag's own parser judges it and names the
/// flag, as for every flag whose value is required.
fn parse() -> Result<Cli, clap::Error> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let first = parse_from(&args);
    let Err(e) = &first else { return first };
    let Some(ContextValue::String(word)) = e.get(ContextKind::InvalidArg) else {
        return first;
    };
    if e.kind() != ErrorKind::UnknownArgument || !word.starts_with('-') || word.starts_with("--") {
        return first;
    }
    // clap names the first letter of a word it took for short flags: `-1` of `-1..1`.
    let subcommand = args.get(1).and_then(|a| a.to_str()).unwrap_or_default();
    let flag = (2..args.len()).find(|&i| {
        args[i]
            .to_str()
            .is_some_and(|a| a.starts_with(word.as_str()))
            && args[i - 1]
                .to_str()
                .is_some_and(|flag| takes_an_optional_value(subcommand, flag))
    });
    let Some(i) = flag else { return first };
    let mut again = args.clone();
    let value = again.remove(i);
    again[i - 1] = format!(
        "{}={}",
        again[i - 1].to_string_lossy(),
        value.to_string_lossy()
    )
    .into();
    parse_from(&again)
}

/// Parses `args` with [`commands::cli`]'s definition.
fn parse_from(args: &[std::ffi::OsString]) -> Result<Cli, clap::Error> {
    let mut cli = commands::cli();
    let mut matches = cli.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut cli))
}

/// Whether `flag` (`--name`) of `subcommand` takes a value that may be left out.
fn takes_an_optional_value(subcommand: &str, flag: &str) -> bool {
    let Some(long) = flag.strip_prefix("--") else {
        return false;
    };
    let mut cli = commands::cli();
    cli.build();
    cli.find_subcommand(subcommand).is_some_and(|command| {
        command.get_arguments().any(|arg| {
            arg.get_long() == Some(long) && arg.get_num_args().is_some_and(|n| n.min_values() == 0)
        })
    })
}

/// Runs `command`.
fn dispatch(command: Command) -> anyhow::Result<Status> {
    use commands::*;
    match command {
        Command::Finalize(args) => finalize::execute(args),
        Command::Strategies(args) => strategies::execute(args),
        Command::Generate(args) => generate::execute(args),
        Command::Scenarios(args) => scenarios::execute(args),
        Command::Run(args) => run::execute(args),
        Command::Report(args) => report::execute(args),
        Command::Sweep(args) => sweep::execute(args),
        Command::Simulate(args) => simulate::execute(args),
        Command::Merge(args) => merge::execute(args),
        Command::Check(args) => check::execute(args),
        Command::Compare(args) => compare::execute(args),
        Command::Import(args) => import::execute(args),
        Command::Tokens(args) => tokens::execute(args),
        Command::Profile(args) => profile::execute(args),
        Command::Calibrate(args) => calibrate::execute(args),
        Command::Conform(args) => conform::execute(args),
        Command::Needles(args) => needles::execute(args),
        Command::Tune(args) => tune::execute(args),
        Command::History(args) => history::execute(args),
        Command::Completions(args) => completions::execute(args),
        Command::Man(args) => man::execute(args),
    }
}

/// The error and its causes on one line, like `{:#}`, without repeating a cause that the message before it
/// already ends with (the library's I/O errors name their path and then their cause).
fn message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// clap's multi-line usage error as one line: the message lines before the usage block, joined.
fn one_line(rendered: &str) -> String {
    let message: Vec<&str> = rendered
        .lines()
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    message.join(" ").trim_start_matches("error: ").to_string()
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let kind = match c.downcast_ref::<io::Error>() {
            Some(io) => Some(io.kind()),
            None => c
                .downcast_ref::<serde_json::Error>()
                .and_then(|j| j.io_error_kind()),
        };
        kind == Some(io::ErrorKind::BrokenPipe)
    })
}
