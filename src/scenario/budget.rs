//! The budgets a run goes through, each named by a [`BudgetLabel`]: `abs-<units>` for an absolute budget,
//! `window-<tokens>` for one derived from a context window by the window-relative rule. The label is a typed
//! value wherever a budget is a key (a results row, a per-batch record, a sweep point), and its text form is
//! written in exactly one place, [`BudgetLabel`]'s `Display`, and read back by its `FromStr`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};
use crate::finalize::window_relative_threshold;

/// What a budget is, as reports name it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BudgetLabel {
    /// An absolute budget, in UTF-16 units: `abs-20000`.
    Absolute(u64),
    /// The window-relative budget of a context window of this many tokens: `window-16000`.
    Window(u64),
}

impl BudgetLabel {
    const ABSOLUTE: &'static str = "abs-";
    const WINDOW: &'static str = "window-";
}

impl fmt::Display for BudgetLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BudgetLabel::Absolute(units) => write!(f, "{}{units}", BudgetLabel::ABSOLUTE),
            BudgetLabel::Window(tokens) => write!(f, "{}{tokens}", BudgetLabel::WINDOW),
        }
    }
}

impl fmt::Debug for BudgetLabel {
    /// As the label's text, quoted: what messages showed when labels were strings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string(), f)
    }
}

impl FromStr for BudgetLabel {
    type Err = Error;

    /// Parses the form `Display` writes, and only that (no sign, no leading zero), so a label reads back to the
    /// same text.
    fn from_str(s: &str) -> Result<BudgetLabel> {
        let number = |digits: &str| {
            let canonical = !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits == "0" || !digits.starts_with('0'));
            canonical.then(|| digits.parse::<u64>().ok()).flatten()
        };
        let label = if let Some(rest) = s.strip_prefix(BudgetLabel::ABSOLUTE) {
            number(rest).map(BudgetLabel::Absolute)
        } else if let Some(rest) = s.strip_prefix(BudgetLabel::WINDOW) {
            number(rest).map(BudgetLabel::Window)
        } else {
            None
        };
        label.ok_or_else(|| {
            Error::invalid(
                "budget label",
                s,
                "expected abs-<units> or window-<tokens> (whole numbers)",
            )
        })
    }
}

impl PartialEq<str> for BudgetLabel {
    fn eq(&self, other: &str) -> bool {
        other.parse::<BudgetLabel>().is_ok_and(|l| l == *self)
    }
}

impl PartialEq<&str> for BudgetLabel {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl Serialize for BudgetLabel {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for BudgetLabel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(|_| {
            serde::de::Error::custom(format_args!(
                "{text:?} is not a budget label (abs-<units> or window-<tokens>)"
            ))
        })
    }
}

/// One budget a scenario runs at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioBudget {
    /// What reports call it: `abs-20000`, `window-16000`.
    pub label: BudgetLabel,
    /// The budget in UTF-16 units.
    pub units: u64,
    /// The context window it was derived from, in tokens.
    pub window_tokens: Option<u64>,
}

impl ScenarioBudget {
    /// An absolute budget of `units` UTF-16 units.
    pub fn absolute(units: u64) -> ScenarioBudget {
        ScenarioBudget {
            label: BudgetLabel::Absolute(units),
            units,
            window_tokens: None,
        }
    }

    /// The budget the window-relative rule gives a context window of `tokens` tokens, from the `configured`
    /// character budget.
    pub fn window(configured: u64, tokens: u64) -> ScenarioBudget {
        ScenarioBudget {
            label: BudgetLabel::Window(tokens),
            units: window_relative_threshold(configured, Some(tokens)),
            window_tokens: Some(tokens),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_back_as_written_and_nothing_else_reads() {
        for label in [
            BudgetLabel::Absolute(20_000),
            BudgetLabel::Absolute(0),
            BudgetLabel::Window(16_000),
            BudgetLabel::Window(u64::MAX),
        ] {
            assert_eq!(label.to_string().parse::<BudgetLabel>().unwrap(), label);
            let json = serde_json::to_string(&label).unwrap();
            assert_eq!(json, format!("\"{label}\""));
            assert_eq!(serde_json::from_str::<BudgetLabel>(&json).unwrap(), label);
        }
        assert_eq!(BudgetLabel::Absolute(7).to_string(), "abs-7");
        assert_eq!(BudgetLabel::Window(8_000).to_string(), "window-8000");
        for bad in [
            "",
            "abs-",
            "abs-07",
            "abs--1",
            "abs-+1",
            "abs-1.5",
            "Abs-1",
            "window",
            "win-9",
            "abs-1 ",
            "abs-99999999999999999999",
        ] {
            assert!(bad.parse::<BudgetLabel>().is_err(), "{bad:?}");
        }
        let err = serde_json::from_str::<BudgetLabel>("\"fast\"").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("\"fast\" is not a budget label"),
            "{err}"
        );
        assert!(BudgetLabel::Absolute(1000) == "abs-1000");
        assert!(BudgetLabel::Absolute(1000) != "window-1000");
    }

    #[test]
    fn budgets_carry_their_label() {
        assert_eq!(
            ScenarioBudget::absolute(500),
            ScenarioBudget {
                label: BudgetLabel::Absolute(500),
                units: 500,
                window_tokens: None
            }
        );
        let w = ScenarioBudget::window(100_000, 16_000);
        assert_eq!(w.label, BudgetLabel::Window(16_000));
        assert_eq!(w.units, window_relative_threshold(100_000, Some(16_000)));
        assert_eq!(w.window_tokens, Some(16_000));
    }
}
