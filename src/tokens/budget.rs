//! Token budgets: `--token-budget N` (a number of tokens) or `--token-budget P%` (a share of the context window
//! of the budget it is checked at), parsed and bounded here, and turned into a number of tokens once the window is
//! known.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};

/// The largest token budget `--token-budget N` takes.
pub const MAX_TOKEN_BUDGET: u64 = 100_000_000;

/// A token budget: a number of tokens, or a share of the row's context window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenBudget {
    /// This many tokens (`--token-budget 4000`).
    Tokens(u64),
    /// This percentage, 1 to 100, of the row's context window (`--token-budget 10%`); rows of an absolute
    /// budget have no window, so no token compliance.
    WindowPercent(u64),
}

impl TokenBudget {
    /// The budget in tokens of a row whose context window is `window` tokens (`None` when it has none and the
    /// budget is a share of it). The share is rounded down.
    pub fn tokens(self, window: Option<u64>) -> Option<u64> {
        match self {
            TokenBudget::Tokens(n) => Some(n),
            TokenBudget::WindowPercent(p) => window
                .map(|w| u64::try_from(u128::from(w) * u128::from(p) / 100).unwrap_or(u64::MAX)),
        }
    }

    /// The budget in tokens at a single budget (`simulate`, `finalize`): a share of the window is refused when
    /// there is no window, `why` saying so (`budget abs-4000 has none`, `no --context-window was given`).
    pub fn at_window(self, window: Option<u64>, why: &str) -> Result<u64> {
        self.tokens(window).ok_or_else(|| {
            Error::invalid(
                "--token-budget",
                self.to_string(),
                format!("a share of the context window, and {why}"),
            )
        })
    }
}

impl fmt::Display for TokenBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenBudget::Tokens(n) => write!(f, "{n}"),
            TokenBudget::WindowPercent(p) => write!(f, "{p}%"),
        }
    }
}

impl FromStr for TokenBudget {
    type Err = Error;

    /// `N` (1 to [`MAX_TOKEN_BUDGET`] tokens) or `P%` (a whole percentage, 1 to 100, of the context window).
    fn from_str(s: &str) -> Result<TokenBudget> {
        let bad = |why: String| Error::invalid("--token-budget", s, why);
        let whole = |digits: &str| {
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse::<u64>().ok())
                .flatten()
        };
        if let Some(p) = s.strip_suffix('%') {
            match whole(p) {
                Some(p) if (1..=100).contains(&p) => Ok(TokenBudget::WindowPercent(p)),
                _ => Err(bad(
                    "a share of the window is a whole percentage, 1% to 100%".into(),
                )),
            }
        } else {
            match whole(s) {
                Some(n) if (1..=MAX_TOKEN_BUDGET).contains(&n) => Ok(TokenBudget::Tokens(n)),
                _ => Err(bad(format!(
                    "expected a number of tokens, 1 to {MAX_TOKEN_BUDGET}, or a percentage of the context \
                     window such as 10%"
                ))),
            }
        }
    }
}

impl Serialize for TokenBudget {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TokenBudget {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(|_| {
            serde::de::Error::custom(format_args!(
                "{text:?} is not a token budget (tokens, or a percentage such as 10%)"
            ))
        })
    }
}
