//! External strategies: any program that speaks the protocol of docs/protocol.md is a finalizer.
//!
//! `--external NAME=COMMAND` registers an [`ExternalStrategy`]: NAME (never a built-in strategy's name) run by
//! COMMAND, split as a shell would split it ([`split_command`]) and started without a shell. An
//! [`ExternalFinalizer`] implements [`Finalizer`](crate::Finalizer) by sending each batch to a child running the
//! command, one JSON line out and one back ([`protocol`]); children are started on demand, one per thread
//! finalizing at once, kept for the whole run, and always killed and reaped at the end, their process groups
//! with them. What a child reports persisting is what the harness measures. A child that fails (exits, writes a
//! malformed line, answers the wrong id, takes longer than the [`ExternalOptions::timeout`]) is a fault: the run
//! ends with one line naming the strategy, the request and the problem ([`ExternalFault`]), and the request is
//! saved to be replayed. An [`ExternalRegistry`] makes the strategies registered for one command strategy names
//! ([`StrategyName::External`]) that every command takes, each building handles on one pool of children for
//! the whole command. [`serve`] is the other side, for budgetlab's own strategies (`finalize --serve`).

mod child;
mod fault;
mod finalizer;
mod log;
pub mod protocol;
mod registry;
mod serve;
mod session;
mod split;
mod surrogates;

#[cfg(test)]
pub(crate) use child::testing;
pub use child::EXIT_GRACE;
pub use fault::{ExternalFault, Problem, SavedRequest};
pub use finalizer::ExternalFinalizer;
pub use log::{check_log_dir, LOG_LIMIT};
pub use registry::{save_and_describe, ExternalRegistry};
pub use serve::{serve, Served};
pub use session::{ExternalLogs, Stopped};
pub use split::split_command;
pub use surrogates::{find_lone_surrogates, replace_lone_surrogates, LoneSurrogates};

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use crate::error::Error;
use crate::finalize::StrategyName;

/// How long a request may take when no `--external-timeout` is given.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest `--external-timeout`: a day.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(86_400);

/// The longest strategy name an external strategy may have.
pub const MAX_NAME_LEN: usize = 64;

/// A strategy run by a program: `--external NAME=COMMAND`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalStrategy {
    /// The name it is registered under.
    pub name: String,
    /// The command as given.
    pub command: String,
    /// The program and its arguments.
    pub argv: Vec<String>,
}

impl FromStr for ExternalStrategy {
    type Err = Error;

    /// Parses `NAME=COMMAND`: NAME is 1 to 64 ASCII letters, digits, `.`, `_` or `-`, starting with a letter or
    /// a digit, and not a built-in strategy's name; COMMAND is split by [`split_command`].
    fn from_str(spec: &str) -> Result<Self, Error> {
        let bad = |reason: String| Error::invalid("--external", spec, reason);
        let Some((name, command)) = spec.split_once('=') else {
            return Err(bad("expected NAME=COMMAND".into()));
        };
        check_name(name).map_err(bad)?;
        let argv = split_command(command).map_err(|e| bad(format!("COMMAND: {e}")))?;
        Ok(ExternalStrategy {
            name: name.to_string(),
            command: command.to_string(),
            argv,
        })
    }
}

fn check_name(name: &str) -> Result<(), String> {
    let well_formed = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if !well_formed {
        return Err(format!(
            "NAME must be 1 to {MAX_NAME_LEN} ASCII letters, digits, '.', '_' or '-', starting with a letter or \
             a digit"
        ));
    }
    if name.parse::<StrategyName>().is_ok() || name.starts_with("head-tail-") {
        return Err(format!(
            "NAME {name:?} is a built-in strategy's name (see `budgetlab strategies`); choose another"
        ));
    }
    Ok(())
}

/// What to do with a lone UTF-16 surrogate escape (`\udXXX` without its other half) in a child's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoneSurrogatePolicy {
    /// A fault: the answer is malformed (what `finalize` and `run` do).
    #[default]
    Reject,
    /// Replaced by U+FFFD and counted ([`ExternalFinalizer::lone_surrogates`]), so that the integrity checks see
    /// the broken pair.
    Replace,
}

/// How external strategies are run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalOptions {
    /// How long one request (or the handshake) may take, from sending it to its whole answer line.
    pub timeout: Duration,
    /// The folder for each child's stderr log (`<name>.<n>.stderr.log`, made only when the child writes to
    /// stderr) and for the request of a fault (`<name>-request-<id>.json` and `.jsonl`).
    pub dir: PathBuf,
    /// The children's working folder (the caller's when `None`).
    pub cwd: Option<PathBuf>,
    /// Lone surrogate escapes in answers.
    pub lone_surrogates: LoneSurrogatePolicy,
}

impl ExternalOptions {
    /// The default options with logs and failed requests in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> ExternalOptions {
        ExternalOptions {
            timeout: DEFAULT_TIMEOUT,
            dir: dir.into(),
            cwd: None,
            lone_surrogates: LoneSurrogatePolicy::Reject,
        }
    }
}

/// Parses `--external-timeout`: seconds, a decimal with at most 9 fractional digits, from 0.001 to 86,400.
pub fn parse_timeout(s: &str) -> Result<Duration, Error> {
    let bad = || {
        Error::invalid(
            "--external-timeout",
            s,
            "expected seconds from 0.001 to 86400, such as 10 or 0.5",
        )
    };
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str, max: usize| t.len() <= max && t.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !digits(int, 6) || !digits(frac, 9) || s.ends_with('.') {
        return Err(bad());
    }
    let secs: u64 = int.parse().map_err(|_| bad())?;
    let nanos: u32 = format!("{frac:0<9}").parse().map_err(|_| bad())?;
    let timeout = Duration::new(secs, nanos);
    if timeout < Duration::from_millis(1) || timeout > MAX_TIMEOUT {
        return Err(bad());
    }
    Ok(timeout)
}

/// The external strategies registered for one command, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExternalStrategies(Vec<ExternalStrategy>);

impl ExternalStrategies {
    /// Parses every `NAME=COMMAND`; a name registered twice is refused.
    pub fn from_specs<S: AsRef<str>>(specs: &[S]) -> Result<ExternalStrategies, Error> {
        let mut list: Vec<ExternalStrategy> = Vec::with_capacity(specs.len());
        for spec in specs {
            let strategy: ExternalStrategy = spec.as_ref().parse()?;
            if list.iter().any(|s| s.name == strategy.name) {
                return Err(Error::invalid(
                    "--external",
                    spec.as_ref(),
                    format!("NAME {:?} is registered twice", strategy.name),
                ));
            }
            list.push(strategy);
        }
        Ok(ExternalStrategies(list))
    }

    /// The strategy registered as `name`.
    pub fn get(&self, name: &str) -> Option<&ExternalStrategy> {
        self.0.iter().find(|s| s.name == name)
    }

    /// Every registered strategy, in the order given.
    pub fn iter(&self) -> impl Iterator<Item = &ExternalStrategy> {
        self.0.iter()
    }

    /// Whether none is registered.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_split_their_command_and_keep_the_name() {
        let s: ExternalStrategy = "mine=python3 'my fin.py' --x=1".parse().unwrap();
        assert_eq!(s.name, "mine");
        assert_eq!(s.argv, ["python3", "my fin.py", "--x=1"]);
        assert_eq!(s.command, "python3 'my fin.py' --x=1");
        // Only the first `=` separates.
        let s: ExternalStrategy = "a=b=c d".parse().unwrap();
        assert_eq!(
            (s.name.as_str(), s.argv.clone()),
            ("a", vec!["b=c".to_string(), "d".to_string()])
        );
    }

    #[test]
    fn names_never_shadow_a_built_in() {
        let err = |s: &str| s.parse::<ExternalStrategy>().unwrap_err().to_string();
        assert_eq!(
            err("reference=./fin"),
            "invalid --external \"reference=./fin\": NAME \"reference\" is a built-in strategy's name (see \
             `budgetlab strategies`); choose another"
        );
        for builtin in ["send-guard", "head-tail-0.5", "head-tail-x", "codex"] {
            assert!(
                err(&format!("{builtin}=./fin")).contains("built-in"),
                "{builtin}"
            );
        }
        assert!(err("./fin").ends_with("expected NAME=COMMAND"));
        for bad in [
            "=./fin",
            "-x=./fin",
            "a b=./fin",
            "é=./fin",
            &format!("{}=./f", "n".repeat(65)),
        ] {
            assert!(err(bad).contains("NAME must be 1 to 64"), "{bad}");
        }
        assert!(err("ok=").contains("COMMAND: the command is empty"));
        assert!(err("ok=a | b").contains("COMMAND: unquoted `|`"));
        let twice = ExternalStrategies::from_specs(&["a=x", "b=y", "a=z"]).unwrap_err();
        assert_eq!(
            twice.to_string(),
            "invalid --external \"a=z\": NAME \"a\" is registered twice"
        );
        let set = ExternalStrategies::from_specs(&["a=x", "b=y"]).unwrap();
        assert_eq!(set.get("b").unwrap().argv, ["y"]);
        assert!(set.get("c").is_none());
    }

    #[test]
    fn timeouts_are_bounded_seconds() {
        assert_eq!(parse_timeout("10").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_timeout("0.5").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_timeout("0.001").unwrap(), Duration::from_millis(1));
        assert_eq!(parse_timeout("86400").unwrap(), MAX_TIMEOUT);
        assert_eq!(parse_timeout("1.000000001").unwrap(), Duration::new(1, 1));
        for bad in [
            "",
            "0",
            "0.0009",
            "86400.5",
            "-1",
            "1e3",
            "1.",
            ".5",
            "inf",
            "NaN",
            " 1",
            "1.0000000001",
            "9999999",
        ] {
            assert!(parse_timeout(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            parse_timeout("-1").unwrap_err().to_string(),
            "invalid --external-timeout \"-1\": expected seconds from 0.001 to 86400, such as 10 or 0.5"
        );
    }
}
