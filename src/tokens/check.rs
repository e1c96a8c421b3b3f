//! One model request's tokens, for the commands that look at single turns (`simulate`, `finalize`): what
//! `--tokenizer NAME|FILE [--tokenizer-pattern P] [--token-budget N|P%]` ask for ([`TokenRequest`]), the
//! tokenizer and budget it resolves to ([`TokenCheck`]), and the count of a request's budgeted fields against that
//! budget ([`RequestTokens`]). The fields counted are those of the UTF-16 total (each budgeted slot encoded on its
//! own), as `budgetlab run` counts them.

use serde::Serialize;

use super::{TokenBudget, Tokenizer};
use crate::budget::PlanReminders;
use crate::error::Result;
use crate::finalize::{collect_slots, SlotScope};
use crate::model::Entry;

/// What `--tokenizer NAME|FILE [--tokenizer-pattern P] [--token-budget N|P%]` ask for, before validation.
#[derive(Debug, Clone, Default)]
pub struct TokenRequest {
    /// A built-in encoding's name or a rank file's path.
    pub tokenizer: String,
    /// The pre-tokenization of a rank file.
    pub pattern: Option<String>,
    /// `N` tokens or `P%` of the context window.
    pub budget: Option<String>,
}

impl TokenRequest {
    /// Checks the budget and loads the tokenizer (the budget first: it is cheaper to refuse).
    pub fn load(&self) -> Result<(Tokenizer, Option<TokenBudget>)> {
        let budget = self.budget.as_deref().map(str::parse).transpose()?;
        let tokenizer = Tokenizer::resolve(&self.tokenizer, self.pattern.as_deref())?;
        Ok((tokenizer, budget))
    }

    /// The tokenizer and the budget in tokens at a single budget whose context window is `window`; `why` ends
    /// the error refusing a share of a window that is not there (`budget abs-4000 has none`).
    pub fn check(&self, window: Option<u64>, why: &str) -> Result<TokenCheck> {
        let budget = self
            .budget
            .as_deref()
            .map(str::parse::<TokenBudget>)
            .transpose()?;
        let budget = budget.map(|b| b.at_window(window, why)).transpose()?;
        let tokenizer = Tokenizer::resolve(&self.tokenizer, self.pattern.as_deref())?;
        Ok(TokenCheck { tokenizer, budget })
    }
}

/// A tokenizer and the token budget to hold a model request to, if any.
#[derive(Debug, Clone)]
pub struct TokenCheck {
    /// The tokenizer.
    pub tokenizer: Tokenizer,
    /// The budget in tokens.
    pub budget: Option<u64>,
}

/// The tokens of one model request's budgeted fields, and whether they fit the token budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestTokens {
    /// The tokenizer's name.
    pub tokenizer: String,
    /// Tokens of the budgeted fields, each encoded on its own.
    pub tokens: u64,
    /// UTF-16 units of the same fields.
    pub units: u64,
    /// The token budget (`--token-budget`), absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
    /// Whether `tokens` is within the budget; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within_budget: Option<bool>,
}

impl TokenCheck {
    /// Counts the budgeted fields of `request` (what the model receives).
    pub fn count(&self, request: &[Entry], reminders: &PlanReminders) -> RequestTokens {
        let (mut tokens, mut units) = (0u64, 0u64);
        for slot in collect_slots(request, reminders, SlotScope::ALL) {
            tokens += self.tokenizer.count(slot.text(request)) as u64;
            units += slot.len;
        }
        RequestTokens {
            tokenizer: self.tokenizer.name().to_string(),
            tokens,
            units,
            budget: self.budget,
            within_budget: self.budget.map(|b| tokens <= b),
        }
    }
}

impl RequestTokens {
    /// UTF-16 units per token; `None` when there are no tokens.
    pub fn units_per_token(&self) -> Option<f64> {
        (self.tokens > 0).then(|| self.units as f64 / self.tokens as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Part;

    fn entry(id: &str, output: &str) -> Entry {
        Entry::new(
            id,
            "run_shell_command",
            vec![Part::function_response(
                id,
                "run_shell_command",
                Some(serde_json::json!(output)),
                None,
            )],
        )
    }

    #[test]
    fn a_request_is_counted_field_by_field_against_the_budget() {
        let request = TokenRequest {
            tokenizer: "o200k_base".into(),
            pattern: None,
            budget: Some("3".into()),
        };
        let check = request.check(None, "budget abs-100 has none").unwrap();
        // "hello world" is 2 tokens, "hello" 1: encoded apart, 3 (together they would not be "hello world hello").
        let batch = vec![entry("a", "hello world"), entry("b", "hello")];
        let counted = check.count(&batch, &PlanReminders::default());
        assert_eq!(
            counted,
            RequestTokens {
                tokenizer: "o200k_base".into(),
                tokens: 3,
                units: 16,
                budget: Some(3),
                within_budget: Some(true),
            }
        );
        assert_eq!(counted.units_per_token(), Some(16.0 / 3.0));
        let tight = TokenCheck {
            budget: Some(2),
            ..check
        };
        assert_eq!(
            tight.count(&batch, &PlanReminders::default()).within_budget,
            Some(false)
        );
    }

    #[test]
    fn a_share_of_a_window_needs_a_window() {
        let request = TokenRequest {
            tokenizer: "o200k_base".into(),
            pattern: None,
            budget: Some("10%".into()),
        };
        assert_eq!(request.check(Some(16_000), "x").unwrap().budget, Some(1600));
        assert_eq!(
            request.check(None, "budget abs-4000 has none").unwrap_err().to_string(),
            "invalid --token-budget \"10%\": a share of the context window, and budget abs-4000 has none"
        );
        let without = TokenRequest {
            budget: None,
            ..request
        };
        assert_eq!(without.check(None, "x").unwrap().budget, None);
    }
}
