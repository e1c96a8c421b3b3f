//! The budget a finalizer works to, and the context it is given with it: the batch budget in UTF-16 units, the
//! model's context window where a policy needs one, and the plan-mode lifecycle reminders that stay outside the
//! budget.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::error::Error;

/// A batch budget in UTF-16 code units, as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// `inf`: no budget; finalizers return the batch unchanged.
    Unlimited,
    /// A configured number of units. Zero or negative (how a configuration disables it) means no budget too.
    Units(i64),
}

impl Budget {
    /// The effective limit: `Some(n)` for a finite, positive budget, `None` when finalization is a no-op.
    pub fn limit(self) -> Option<u64> {
        match self {
            Budget::Units(n) if n > 0 => Some(n as u64),
            _ => None,
        }
    }
}

/// How a number of UTF-16 units may be written, for messages.
pub(crate) const UNITS_FORMS: &str =
    "digits (20000), or with k for thousands or M for millions (20k, 1.5M)";

/// A number of UTF-16 units as a user writes one: digits (`20000`), or a number with `k` (thousands) or `M`
/// (millions) after it (`20k`, `1.5M`, `0.5k`) that comes to a whole number. The error says how to write one.
pub fn parse_units(text: &str) -> Result<u64, String> {
    let bad = || format!("invalid number of UTF-16 units {text:?}: write {UNITS_FORMS}");
    let (number, scale) = match text.strip_suffix(['k', 'K']) {
        Some(n) => (n, 1_000u64),
        None => match text.strip_suffix(['m', 'M']) {
            Some(n) => (n, 1_000_000),
            None => (text, 1),
        },
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty()
        || !digits(whole)
        || !digits(fraction)
        || (scale == 1 && number.contains('.'))
    {
        return Err(bad());
    }
    // Exact arithmetic: the fraction's digits, scaled, must leave no remainder.
    let places = u32::try_from(fraction.len()).map_err(|_| bad())?;
    let divisor = 10u64.checked_pow(places).ok_or_else(bad)?;
    let mantissa: u64 = format!("{whole}{fraction}").parse().map_err(|_| bad())?;
    let scaled = mantissa.checked_mul(scale).ok_or_else(bad)?;
    if scaled % divisor != 0 {
        return Err(format!("{text:?} is not a whole number of UTF-16 units"));
    }
    Ok(scaled / divisor)
}

impl FromStr for Budget {
    type Err = Error;

    /// Parses a decimal integer (possibly negative), a number with `k` or `M` ([`parse_units`]) or `inf`.
    fn from_str(s: &str) -> Result<Self, Error> {
        if s == "inf" {
            return Ok(Budget::Unlimited);
        }
        let digits = s.strip_prefix('-').unwrap_or(s);
        if digits == s && !digits.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(units) = parse_units(s) {
                return i64::try_from(units)
                    .map(Budget::Units)
                    .map_err(|_| Error::invalid("budget", s, "out of range for a 64-bit integer"));
            }
        }
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::invalid(
                "budget",
                s,
                "expected a decimal integer of UTF-16 units (e.g. 200000, 20k or 1.5M, or -1 to disable) or `inf`",
            ));
        }
        s.parse::<i64>()
            .map(Budget::Units)
            .map_err(|_| Error::invalid("budget", s, "out of range for a 64-bit integer"))
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Unlimited => f.write_str("inf"),
            Budget::Units(n) => write!(f, "{n}"),
        }
    }
}

/// The function name whose successful output installs the planning policy and is exempt from the budget.
pub(crate) const PLAN_MODE_TOOL: &str = "enter_plan_mode";

/// Built-in lifecycle reminder for plan mode that may later proceed to edits.
const BUILTIN_PLAN_REMINDER: &str = "<system-reminder>\n\
Plan mode is on. Explore with read-only tools only, write up the complete plan, and wait until the user \
approves it before you edit files, run commands that change state, or alter any configuration.\n\
</system-reminder>";

/// Built-in lifecycle reminder for a session that is limited to planning.
const BUILTIN_PLAN_ONLY_REMINDER: &str = "<system-reminder>\n\
Plan mode is on and this session may only plan. Explore with read-only tools, describe the plan you would \
carry out, and make no edits and no state-changing commands.\n\
</system-reminder>";

/// The plan-mode lifecycle reminder texts: an `enter_plan_mode` output equal to one of them (or starting with
/// one followed by a blank line) is policy input, not tool output, and stays inline outside the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanReminders(Arc<[String]>);

impl Default for PlanReminders {
    fn default() -> Self {
        PlanReminders::new(vec![
            BUILTIN_PLAN_REMINDER.to_string(),
            BUILTIN_PLAN_ONLY_REMINDER.to_string(),
        ])
    }
}

impl PlanReminders {
    /// Reminders with exactly these texts, in this order of precedence.
    pub fn new(texts: Vec<String>) -> Self {
        PlanReminders(texts.into())
    }

    /// The reminder texts.
    pub fn texts(&self) -> &[String] {
        &self.0
    }

    /// How many leading bytes of an `enter_plan_mode` output are protected: the whole output when it equals a
    /// reminder, `reminder + "\n\n"` when it starts with one followed by a blank line, otherwise none.
    pub fn protected_prefix(&self, output: &str) -> usize {
        for reminder in self.0.iter() {
            if output == reminder.as_str() {
                return output.len();
            }
            if let Some(rest) = output.strip_prefix(reminder.as_str()) {
                if rest.starts_with("\n\n") {
                    return reminder.len() + 2;
                }
            }
        }
        0
    }
}

/// Everything a finalizer is told besides the batch itself.
#[derive(Debug, Clone)]
pub struct BudgetContext {
    /// The aggregate budget of the batch, in UTF-16 units.
    pub budget: Budget,
    /// The model's context window in tokens, for the policies that scale with it.
    pub context_window_tokens: Option<u64>,
    /// The lifecycle reminders exempt from the budget.
    pub reminders: PlanReminders,
    /// The runtime boundary finalizing (`finalize` by default; a simulation names its boundaries). Built-in
    /// strategies ignore it; an external strategy is told it.
    pub boundary: &'static str,
    /// What the runtime knows about the turn (task, calls, the assistant's text), when the batch carries it.
    /// The reference and the other position-only strategies ignore it; content-aware strategies read it.
    pub turn: Option<Arc<crate::context::TurnContext>>,
    /// The digests of the batch's long texts already hashed, shared by every strategy and budget a run gives the
    /// same batch, so that each is hashed once (`None`: every digest is computed where it is needed). It changes
    /// no output: a digest is found only for the very same text.
    pub known_digests: Option<Arc<crate::digest::KnownDigests>>,
}

impl BudgetContext {
    /// A context with the given budget, no context window and the built-in reminders.
    pub fn new(budget: Budget) -> Self {
        BudgetContext {
            budget,
            context_window_tokens: None,
            reminders: PlanReminders::default(),
            boundary: "finalize",
            turn: None,
            known_digests: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_written_with_k_or_m_or_refused_with_how_to_write_them() {
        for (text, units) in [
            ("20000", 20_000),
            ("20k", 20_000),
            ("20K", 20_000),
            ("1.5M", 1_500_000),
            ("0.5k", 500),
            ("2m", 2_000_000),
        ] {
            assert_eq!(parse_units(text), Ok(units), "{text}");
        }
        for text in [
            "20x",
            "k",
            "1.5",
            "-5",
            "1.0005k",
            "1e3",
            "",
            "99999999999999999999M",
        ] {
            assert!(parse_units(text).is_err(), "{text}");
        }
        assert!(parse_units("20x").unwrap_err().contains("20k, 1.5M"));
        assert_eq!("20k".parse::<Budget>().unwrap(), Budget::Units(20_000));
        assert_eq!("-1".parse::<Budget>().unwrap(), Budget::Units(-1));
    }

    #[test]
    fn parses_integers_and_inf_only() {
        assert_eq!("200000".parse::<Budget>().unwrap(), Budget::Units(200_000));
        assert_eq!("-1".parse::<Budget>().unwrap(), Budget::Units(-1));
        assert_eq!("inf".parse::<Budget>().unwrap(), Budget::Unlimited);
        for bad in ["lots", "1.5", "", "-", "1e3", " 5", "+5", "Infinity"] {
            assert!(bad.parse::<Budget>().is_err(), "{bad:?} accepted");
        }
        assert!("99999999999999999999".parse::<Budget>().is_err());
    }

    #[test]
    fn only_positive_finite_budgets_limit() {
        assert_eq!(Budget::Units(5).limit(), Some(5));
        assert_eq!(Budget::Units(0).limit(), None);
        assert_eq!(Budget::Units(-1).limit(), None);
        assert_eq!(Budget::Unlimited.limit(), None);
    }

    #[test]
    fn protected_prefix_covers_reminder_and_blank_line() {
        let r = PlanReminders::new(vec!["R1".into(), "R2 long".into()]);
        assert_eq!(r.protected_prefix("R1"), 2);
        assert_eq!(r.protected_prefix("R1\n\nhook"), 4);
        assert_eq!(r.protected_prefix("R1\nhook"), 0);
        assert_eq!(r.protected_prefix("R2 long\n\n"), 9);
        assert_eq!(r.protected_prefix("other"), 0);
    }
}
