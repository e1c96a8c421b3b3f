//! Budgets as the model sees them: the tokens of a turn's model request under a real tokenizer, and their
//! aggregation into a row. Nothing here runs unless a run was given `--tokenizer`; every figure of this module is
//! absent from a run without one.
//!
//! A turn's [`TurnTokens`] counts the same fields as its UTF-16 total (the budgeted slots of the model request,
//! each encoded on its own), by kind of tool output ([`TextKind`], read from the batch as `budgetlab tokens`
//! reads it). A row's [`TokenSummary`] gives units per token by kind (the kind's units over its tokens, and the
//! 10th and 90th percentiles of the turns' ratios), compliance with a token budget when one was given
//! ([`TokenBudget`]), and for `window-relative` at a window budget, how often the threshold, computed at 3 units
//! per token, lets a result through that is more than 10% of the window in tokens ([`WindowLeak`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::summary::{scaled, LogHistogram, RATIO_SCALE};
use crate::budget::PlanReminders;
use crate::finalize::{collect_slots, SlotScope};
use crate::model::Entry;
use crate::tokens::{TextKind, Tokenizer};
pub use crate::tokens::{TokenBudget, MAX_TOKEN_BUDGET};

/// The longest tokenizer name a results file may hold (a rank file's path), in bytes.
pub const MAX_TOKENIZER_NAME: usize = 4096;

/// The share of the window a single result may take under the window-relative rule, in percent.
const WINDOW_PERCENT: u64 = 10;

/// What a run counted tokens with, as `results.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenSettings {
    /// The tokenizer's name: a built-in encoding's, or the rank file's path.
    pub tokenizer: String,
    /// The token budget, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<TokenBudget>,
}

impl TokenSettings {
    /// Whether the settings keep their promises; the message names the field.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.tokenizer.is_empty() || self.tokenizer.len() > MAX_TOKENIZER_NAME {
            return Err(format!(
                "tokenizer: a name of 1 to {MAX_TOKENIZER_NAME} bytes, not {}",
                self.tokenizer.len()
            ));
        }
        Ok(())
    }
}

/// The fields, UTF-16 units and tokens of one kind of output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KindTokens {
    /// Fields of the kind.
    pub fields: u64,
    /// Their UTF-16 units.
    pub units: u64,
    /// Their tokens.
    pub tokens: u64,
}

/// The tokens of one turn's model request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TurnTokens {
    /// Tokens of the model request's budgeted fields, each encoded on its own.
    pub tokens: u64,
    /// UTF-16 units of the same fields (the turn's `finalTotal`).
    pub units: u64,
    /// The most tokens of any one field.
    pub max_field_tokens: u64,
    /// By kind of tool output (`budgetlab tokens`'s kinds), in kind-name order.
    pub by_kind: BTreeMap<String, KindTokens>,
}

impl TurnTokens {
    /// Counts the budgeted fields of `request` (the model request) with `tokenizer`.
    pub fn count(
        request: &[Entry],
        reminders: &PlanReminders,
        tokenizer: &Tokenizer,
    ) -> TurnTokens {
        let mut out = TurnTokens {
            tokens: 0,
            units: 0,
            max_field_tokens: 0,
            by_kind: BTreeMap::new(),
        };
        for slot in collect_slots(request, reminders, SlotScope::ALL) {
            let text = slot.text(request);
            let tokens = tokenizer.count(text) as u64;
            let kind = TextKind::of(&request[slot.entry], slot.field, text);
            let k = out.by_kind.entry(kind.as_str().to_string()).or_default();
            k.fields += 1;
            k.units += slot.len;
            k.tokens += tokens;
            out.tokens += tokens;
            out.units += slot.len;
            out.max_field_tokens = out.max_field_tokens.max(tokens);
        }
        out
    }

    /// Whether the turn's figures agree with each other; the message names the field.
    pub fn validate(&self, final_total: u64) -> std::result::Result<(), String> {
        if self.units != final_total {
            return Err(format!(
                "tokens.units is {}, but finalTotal is {final_total}; they count the same fields",
                self.units
            ));
        }
        if self.max_field_tokens > self.tokens {
            return Err(format!(
                "tokens.maxFieldTokens is {}, more than tokens.tokens ({})",
                self.max_field_tokens, self.tokens
            ));
        }
        for kind in self.by_kind.keys() {
            if !is_kind_name(kind) {
                return Err(format!("tokens.byKind: {kind:?} is not a kind of output"));
            }
        }
        let sum = |f: fn(&KindTokens) -> u64| self.by_kind.values().map(f).sum::<u64>();
        if sum(|k| k.units) != self.units || sum(|k| k.tokens) != self.tokens {
            return Err(
                "tokens.byKind: the kinds do not add up to tokens.units and tokens.tokens".into(),
            );
        }
        Ok(())
    }
}

/// Whether `name` is the name of a [`TextKind`].
fn is_kind_name(name: &str) -> bool {
    name == TextKind::HookText.as_str()
        || name == TextKind::Other.as_str()
        || crate::workload::Kind::ALL
            .iter()
            .any(|k| k.as_str() == name)
}

/// Units per token of one kind over a row's turns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KindUnitsPerToken {
    /// Fields, units and tokens of the kind over the row.
    #[serde(flatten)]
    pub counts: KindTokens,
    /// The kind's units over its tokens; null when it has no tokens.
    pub mean: Option<f64>,
    /// 10th percentile (nearest rank) of the turns' units per token of the kind, over turns with tokens of it.
    pub p10: Option<f64>,
    /// 90th percentile of the same.
    pub p90: Option<f64>,
}

/// Compliance with the token budget over a row's batches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenCompliance {
    /// The budget, in tokens.
    pub budget: u64,
    /// Share of batches whose model request is within it (0..1).
    pub rate: f64,
    /// Batches over it.
    pub violations: u64,
    /// Largest overshoot, in tokens.
    pub max_overshoot: u64,
    /// 99th percentile overshoot (nearest rank), in tokens.
    pub p99_overshoot: u64,
}

/// For `window-relative` at a window budget: results the threshold lets through that are more than 10% of the
/// window in tokens (the rule assumes 3 units per token).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WindowLeak {
    /// 10% of the window, in tokens: what the threshold means to let through at most.
    pub limit_tokens: u64,
    /// Turns whose model request holds a result of more tokens than that.
    pub turns: u64,
    /// Their share of the row's turns (0..1).
    pub share: f64,
    /// 99th percentile (nearest rank) over turns of the largest result's tokens over the limit.
    pub p99_ratio: f64,
}

/// A row's tokens: present only in a run given `--tokenizer`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenSummary {
    /// Tokens of the model requests, over the row's turns.
    pub tokens: u64,
    /// UTF-16 units of the same fields.
    pub units: u64,
    /// Units over tokens; null when there are no tokens.
    pub units_per_token: Option<f64>,
    /// 99th percentile (nearest rank) of the turns' tokens.
    pub p99_tokens: u64,
    /// Units per token by kind of output, in kind-name order.
    pub by_kind: BTreeMap<String, KindUnitsPerToken>,
    /// Compliance with `--token-budget`; absent without one, and for a share of the window at a budget without a
    /// window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliance: Option<TokenCompliance>,
    /// `window-relative` at a window budget only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_leak: Option<WindowLeak>,
    /// The counts and histograms the figures above are computed from, which `merge` combines.
    pub summary: TokenTally,
}

fn ratio(units: u64, tokens: u64) -> Option<f64> {
    (tokens > 0).then(|| units as f64 / tokens as f64)
}

/// One kind's counts over a row's turns and the histogram of the turns' units per token of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KindTally {
    /// Fields, units and tokens of the kind.
    #[serde(flatten)]
    pub counts: KindTokens,
    /// Units per token of each turn with tokens of the kind, in thousandths.
    pub ratios: LogHistogram,
}

/// What a row's token figures are computed from, as whole-number counts and histograms: adding turns in any
/// order, or merging the tallies of shards ([`TokenTally::merge`]), gives the same figures. The row's token
/// budget and window limit are part of it, so that a tally read back from a file gives its figures alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenTally {
    /// Turns.
    pub turns: u64,
    /// Tokens of the model requests.
    pub tokens: u64,
    /// UTF-16 units of the same fields.
    pub units: u64,
    /// Tokens of each turn.
    pub turn_tokens: LogHistogram,
    /// By kind of output.
    pub by_kind: BTreeMap<String, KindTally>,
    /// The row's token budget, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
    /// Turns over the token budget.
    pub violations: u64,
    /// The largest overshoot of the token budget, in tokens.
    pub max_overshoot: u64,
    /// 10% of the window in tokens, for `window-relative` at a window budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leak_limit: Option<u64>,
    /// Turns with a result of more tokens than `leak_limit`.
    pub leak_turns: u64,
    /// Each turn's largest result over `leak_limit`, in thousandths; empty without a limit.
    pub leak_ratio: LogHistogram,
}

impl TokenTally {
    /// No turns yet of a row whose token budget is `budget` (if any) and whose context window is `leak_window`
    /// tokens (a `window-relative` row at a window budget only).
    pub fn new(budget: Option<u64>, leak_window: Option<u64>) -> TokenTally {
        TokenTally {
            budget,
            leak_limit: leak_window.map(|w| w.saturating_mul(WINDOW_PERCENT) / 100),
            ..TokenTally::default()
        }
    }

    /// Adds one turn.
    pub fn add(&mut self, t: &TurnTokens) {
        self.turns += 1;
        self.tokens = self.tokens.saturating_add(t.tokens);
        self.units = self.units.saturating_add(t.units);
        self.turn_tokens.add(t.tokens);
        for (kind, k) in &t.by_kind {
            let e = self.by_kind.entry(kind.clone()).or_default();
            e.counts.fields += k.fields;
            e.counts.units += k.units;
            e.counts.tokens += k.tokens;
            if let Some(r) = ratio(k.units, k.tokens) {
                e.ratios.add(scaled(r));
            }
        }
        if let Some(budget) = self.budget {
            let over = t.tokens.saturating_sub(budget);
            self.violations += u64::from(over > 0);
            self.max_overshoot = self.max_overshoot.max(over);
        }
        if let Some(limit) = self.leak_limit {
            self.leak_turns += u64::from(t.max_field_tokens > limit);
            self.leak_ratio
                .add(scaled(t.max_field_tokens as f64 / limit.max(1) as f64));
        }
    }

    /// Adds every turn of `other`, a tally of the same row.
    pub fn merge(&mut self, other: &TokenTally) {
        self.turns += other.turns;
        self.tokens = self.tokens.saturating_add(other.tokens);
        self.units = self.units.saturating_add(other.units);
        self.turn_tokens.merge(&other.turn_tokens);
        for (kind, k) in &other.by_kind {
            let e = self.by_kind.entry(kind.clone()).or_default();
            e.counts.fields += k.counts.fields;
            e.counts.units += k.counts.units;
            e.counts.tokens += k.counts.tokens;
            e.ratios.merge(&k.ratios);
        }
        self.violations += other.violations;
        self.max_overshoot = self.max_overshoot.max(other.max_overshoot);
        self.leak_turns += other.leak_turns;
        self.leak_ratio.merge(&other.leak_ratio);
    }
}

/// A histogram of thousandths read back as a ratio.
fn unscaled(h: &LogHistogram, p: f64) -> Option<f64> {
    (h.count() > 0).then(|| h.percentile(p) as f64 / RATIO_SCALE)
}

impl TokenSummary {
    /// Aggregates the turns of a row. `budget` is the token budget of the row, if any; `leak_window` the context
    /// window, in tokens, of a `window-relative` row at a window budget.
    pub fn from_turns(
        turns: &[&TurnTokens],
        budget: Option<u64>,
        leak_window: Option<u64>,
    ) -> TokenSummary {
        let mut tally = TokenTally::new(budget, leak_window);
        for t in turns {
            tally.add(t);
        }
        TokenSummary::from_tally(tally)
    }

    /// The figures of a row's tally. Percentiles are nearest-rank from its histograms: token counts exact below
    /// 2,048 and at most 0.1% low above; ratios rounded to thousandths, then the same.
    pub fn from_tally(tally: TokenTally) -> TokenSummary {
        let by_kind = tally
            .by_kind
            .iter()
            .map(|(kind, k)| {
                let row = KindUnitsPerToken {
                    counts: k.counts,
                    mean: ratio(k.counts.units, k.counts.tokens),
                    p10: unscaled(&k.ratios, 10.0),
                    p90: unscaled(&k.ratios, 90.0),
                };
                (kind.clone(), row)
            })
            .collect();
        let n = tally.turns;
        // Without a turn there is nothing to measure: no compliance and no leak, rather than perfect ones.
        let compliance = tally
            .budget
            .filter(|_| n > 0)
            .map(|budget| TokenCompliance {
                budget,
                rate: (n - tally.violations.min(n)) as f64 / n as f64,
                violations: tally.violations,
                max_overshoot: tally.max_overshoot,
                // Overshoot grows with tokens, so its percentile is the tokens' percentile's overshoot: taken from
                // the one histogram, the two figures agree exactly (two histograms would each round on their own).
                p99_overshoot: tally.turn_tokens.percentile(99.0).saturating_sub(budget),
            });
        let window_leak = tally.leak_limit.filter(|_| n > 0).map(|limit| WindowLeak {
            limit_tokens: limit,
            turns: tally.leak_turns,
            share: tally.leak_turns.min(n) as f64 / n as f64,
            p99_ratio: unscaled(&tally.leak_ratio, 99.0).unwrap_or(0.0),
        });
        TokenSummary {
            tokens: tally.tokens,
            units: tally.units,
            units_per_token: ratio(tally.units, tally.tokens),
            p99_tokens: tally.turn_tokens.percentile(99.0),
            by_kind,
            compliance,
            window_leak,
            summary: tally,
        }
    }

    /// Whether the row's token figures are those its run asks for: compliance with `budget` (the row's token
    /// budget, if any) and the window leak at `leak_window` (for a `window-relative` row at a window budget) are
    /// there exactly when they apply, at those figures. The message names the field.
    pub fn validate_settings(
        &self,
        budget: Option<u64>,
        leak_window: Option<u64>,
    ) -> std::result::Result<(), String> {
        match (&self.compliance, budget) {
            (Some(c), Some(b)) if c.budget != b => {
                return Err(format!(
                "tokens.compliance.budget is {}, but the run's token budget at this budget is {b}",
                c.budget
            ))
            }
            (Some(_), None) => {
                return Err(
                    "tokens.compliance: present, but the run gives this budget no token budget"
                        .into(),
                )
            }
            (None, Some(b)) => {
                return Err(format!(
                    "tokens.compliance: absent, but the run's token budget at this budget is {b}"
                ))
            }
            _ => {}
        }
        match (&self.window_leak, leak_window) {
            (Some(w), Some(window)) if w.limit_tokens != window.saturating_mul(WINDOW_PERCENT) / 100 => {
                Err(format!(
                    "tokens.windowLeak.limitTokens is {}, but {WINDOW_PERCENT}% of the {window}-token window is {}",
                    w.limit_tokens,
                    window.saturating_mul(WINDOW_PERCENT) / 100
                ))
            }
            (Some(_), None) => Err(
                "tokens.windowLeak: present, but only window-relative at a window budget has one".into(),
            ),
            (None, Some(_)) => {
                Err("tokens.windowLeak: absent, but window-relative at a window budget has one".into())
            }
            _ => Ok(()),
        }
    }

    /// Whether the row's token figures keep their promises (`batches` is the row's); the message names the
    /// field.
    pub fn validate(&self, batches: u64) -> std::result::Result<(), String> {
        self.validate_tally(batches)?;
        let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * b.abs().max(1.0),
            (None, None) => true,
            _ => false,
        };
        if !close(self.units_per_token, ratio(self.units, self.tokens)) {
            return Err("tokens.unitsPerToken is not tokens.units over tokens.tokens".into());
        }
        let mut units = 0u64;
        let mut tokens = 0u64;
        for (kind, k) in &self.by_kind {
            let at = |m: &str| format!("tokens.byKind.{kind}: {m}");
            if !is_kind_name(kind) {
                return Err(at("not a kind of output"));
            }
            if !close(k.mean, ratio(k.counts.units, k.counts.tokens)) {
                return Err(at("mean is not units over tokens"));
            }
            for v in [k.p10, k.p90].into_iter().flatten() {
                if !v.is_finite() || v < 0.0 {
                    return Err(at("p10 and p90 are finite and at least 0"));
                }
            }
            if let (Some(p10), Some(p90)) = (k.p10, k.p90) {
                if p10 > p90 {
                    return Err(at("p10 is more than p90"));
                }
            }
            // A token is at least one byte, and a UTF-16 unit at most three bytes of UTF-8; text has a token.
            if k.counts.tokens > k.counts.units.saturating_mul(3) {
                return Err(at(&format!(
                    "{} tokens in {} units; a unit is at most 3 bytes, and a token at least 1",
                    k.counts.tokens, k.counts.units
                )));
            }
            if (k.counts.units == 0) != (k.counts.tokens == 0) {
                return Err(at(&format!(
                    "{} tokens in {} units; text has tokens and only text does",
                    k.counts.tokens, k.counts.units
                )));
            }
            units = units.saturating_add(k.counts.units);
            tokens = tokens.saturating_add(k.counts.tokens);
        }
        if units != self.units || tokens != self.tokens {
            return Err(
                "tokens.byKind: the kinds do not add up to tokens.units and tokens.tokens".into(),
            );
        }
        if self.p99_tokens > self.tokens {
            return Err(format!(
                "tokens.p99Tokens is {}, more than tokens.tokens ({})",
                self.p99_tokens, self.tokens
            ));
        }
        if let Some(c) = &self.compliance {
            // Overshoot grows with tokens, so its percentile is the percentile's overshoot.
            let p99 = self.p99_tokens.saturating_sub(c.budget);
            if c.p99_overshoot != p99 {
                return Err(format!(
                    "tokens.compliance.p99Overshoot is {}, but tokens.p99Tokens {} at budget {} overshoots by {p99}",
                    c.p99_overshoot, self.p99_tokens, c.budget
                ));
            }
            if c.violations > batches {
                return Err(format!(
                    "tokens.compliance.violations is {}, more than batches ({batches})",
                    c.violations
                ));
            }
            if batches == 0 {
                return Err("tokens.compliance is given for a row without turns".into());
            }
            let rate = (batches - c.violations) as f64 / batches as f64;
            if (c.rate - rate).abs() > 1e-9 {
                return Err(format!(
                    "tokens.compliance.rate is {}, but {} violations in {batches} batches give {rate}",
                    c.rate, c.violations
                ));
            }
            if c.p99_overshoot > c.max_overshoot || (c.violations == 0) != (c.max_overshoot == 0) {
                return Err(
                    "tokens.compliance: the overshoots disagree with the violations".into(),
                );
            }
        }
        if let Some(w) = &self.window_leak {
            if w.turns > batches {
                return Err(format!(
                    "tokens.windowLeak.turns is {}, more than batches ({batches})",
                    w.turns
                ));
            }
            if batches == 0 {
                return Err("tokens.windowLeak is given for a row without turns".into());
            }
            let share = w.turns as f64 / batches as f64;
            if (w.share - share).abs() > 1e-9 {
                return Err(format!(
                    "tokens.windowLeak.share is {}, but {} of {batches} turns give {share}",
                    w.share, w.turns
                ));
            }
            if !w.p99_ratio.is_finite() || w.p99_ratio < 0.0 {
                return Err("tokens.windowLeak.p99Ratio is a finite number of at least 0".into());
            }
        }
        Ok(())
    }
}

impl TokenSummary {
    /// The promises of the row's tally: one turn a batch, each histogram of every turn holding one value a turn,
    /// no more violations or leaking turns than turns.
    fn validate_tally(&self, batches: u64) -> std::result::Result<(), String> {
        let t = &self.summary;
        if t.turns != batches {
            return Err(format!(
                "tokens.summary.turns is {}, but the row has {batches} batches",
                t.turns
            ));
        }
        let every_turn = [
            ("turnTokens", &t.turn_tokens, true),
            ("leakRatio", &t.leak_ratio, t.leak_limit.is_some()),
        ];
        for (field, h, kept) in every_turn {
            let expected = if kept { t.turns } else { 0 };
            if h.count() != expected {
                return Err(format!(
                    "tokens.summary.{field} holds {} values, not {expected}",
                    h.count()
                ));
            }
        }
        for (kind, k) in &t.by_kind {
            if k.ratios.count() > t.turns {
                return Err(format!(
                    "tokens.summary.byKind.{kind}.ratios holds {} values, more than the {} turns",
                    k.ratios.count(),
                    t.turns
                ));
            }
        }
        if t.violations > t.turns || t.leak_turns > t.turns {
            return Err("tokens.summary: more violations or leaking turns than turns".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(tokens: u64, units: u64, max: u64, kinds: &[(&str, u64, u64)]) -> TurnTokens {
        TurnTokens {
            tokens,
            units,
            max_field_tokens: max,
            by_kind: kinds
                .iter()
                .map(|&(k, u, t)| {
                    (
                        k.to_string(),
                        KindTokens {
                            fields: 1,
                            units: u,
                            tokens: t,
                        },
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn token_budgets_parse_as_tokens_or_a_share_of_the_window() {
        assert_eq!(
            "4000".parse::<TokenBudget>().unwrap(),
            TokenBudget::Tokens(4000)
        );
        assert_eq!(
            "10%".parse::<TokenBudget>().unwrap(),
            TokenBudget::WindowPercent(10)
        );
        assert_eq!(
            TokenBudget::WindowPercent(10).tokens(Some(16_000)),
            Some(1_600)
        );
        assert_eq!(TokenBudget::WindowPercent(10).tokens(None), None);
        assert_eq!(TokenBudget::Tokens(7).tokens(None), Some(7));
        assert_eq!(TokenBudget::WindowPercent(10).to_string(), "10%");
        for bad in ["0", "0%", "101%", "-5", "1.5%", "", "%", "abc", "100000001"] {
            assert!(bad.parse::<TokenBudget>().is_err(), "{bad}");
        }
        assert_eq!(
            "0%".parse::<TokenBudget>().unwrap_err().to_string(),
            "invalid --token-budget \"0%\": a share of the window is a whole percentage, 1% to 100%"
        );
    }

    #[test]
    fn token_settings_name_a_tokenizer_of_1_to_4096_bytes() {
        let named = |len: usize| TokenSettings {
            tokenizer: "t".repeat(len),
            token_budget: None,
        };
        assert_eq!(named(1).validate(), Ok(()));
        assert_eq!(named(MAX_TOKENIZER_NAME).validate(), Ok(()));
        assert_eq!(
            named(0).validate(),
            Err("tokenizer: a name of 1 to 4096 bytes, not 0".to_string())
        );
        assert_eq!(
            named(MAX_TOKENIZER_NAME + 1).validate(),
            Err("tokenizer: a name of 1 to 4096 bytes, not 4097".to_string())
        );
    }

    #[test]
    fn a_row_sums_the_turns_and_takes_percentiles_of_their_ratios() {
        let a = turn(100, 400, 60, &[("shell", 300, 60), ("search", 100, 40)]);
        let b = turn(300, 600, 250, &[("shell", 600, 300)]);
        let s = TokenSummary::from_turns(&[&a, &b], Some(200), None);
        assert_eq!((s.tokens, s.units, s.p99_tokens), (400, 1000, 300));
        assert_eq!(s.units_per_token, Some(2.5));
        let shell = &s.by_kind["shell"];
        assert_eq!((shell.counts.units, shell.counts.tokens), (900, 360));
        // A shell field in each turn, a search field in one.
        assert_eq!(
            (shell.counts.fields, s.by_kind["search"].counts.fields),
            (2, 1)
        );
        assert_eq!(shell.mean, Some(2.5));
        assert_eq!((shell.p10, shell.p90), (Some(2.0), Some(5.0)));
        assert_eq!(s.by_kind["search"].p90, Some(2.5));
        let c = s.compliance.as_ref().unwrap();
        assert_eq!(
            (c.budget, c.violations, c.rate, c.max_overshoot),
            (200, 1, 0.5, 100)
        );
        assert_eq!(s.window_leak, None);
        assert_eq!(s.validate(2), Ok(()));
        assert!(s.validate(0).is_err());
    }

    #[test]
    fn without_a_turn_there_is_no_compliance_or_leak_rather_than_perfect_ones() {
        let s = TokenSummary::from_turns(&[], Some(200), Some(16_000));
        assert_eq!((&s.compliance, &s.window_leak), (&None, &None));
        assert_eq!(s.units_per_token, None);
        // A file claiming either for a row without turns is refused.
        let a = turn(100, 400, 60, &[("shell", 400, 100)]);
        let one = TokenSummary::from_turns(&[&a], Some(200), Some(16_000));
        let mut claimed = s.clone();
        claimed.compliance = one.compliance.clone();
        assert!(claimed.validate(0).is_err());
        let mut claimed = s;
        claimed.window_leak = one.window_leak.clone();
        assert!(claimed.validate(0).is_err());
    }

    #[test]
    fn the_window_leak_counts_turns_with_a_result_over_a_tenth_of_the_window() {
        // 16k window: 1,600 tokens is 10%. One turn at 1,600 (not over), one at 2,400 (1.5x).
        let a = turn(2000, 5000, 1600, &[("other", 5000, 2000)]);
        let b = turn(2400, 4800, 2400, &[("other", 4800, 2400)]);
        let s = TokenSummary::from_turns(&[&a, &b], None, Some(16_000));
        let w = s.window_leak.as_ref().unwrap();
        assert_eq!((w.limit_tokens, w.turns, w.share), (1600, 1, 0.5));
        assert_eq!(w.p99_ratio, 1.5);
        assert_eq!(s.compliance, None);
        assert_eq!(s.validate(2), Ok(()));
    }

    #[test]
    fn a_turn_counts_the_budgeted_fields_by_kind() {
        let entry = |id: &str, tool: &str, output: &str| {
            Entry::new(
                id,
                tool,
                vec![crate::model::Part::function_response(
                    id,
                    tool,
                    Some(serde_json::json!(output)),
                    None,
                )],
            )
        };
        let batch = vec![
            entry("a", "run_shell_command", "hello world"),
            entry("b", "grep", "src/a.rs:1: fn main"),
        ];
        let t = TurnTokens::count(
            &batch,
            &PlanReminders::default(),
            &Tokenizer::builtin(crate::tokens::Encoding::O200kBase),
        );
        assert_eq!(
            t.by_kind["shell"],
            KindTokens {
                fields: 1,
                units: 11,
                tokens: 2
            }
        );
        assert_eq!(t.by_kind["search"].units, 19);
        assert_eq!(t.units, 30);
        assert_eq!(t.tokens, 2 + t.by_kind["search"].tokens);
        assert_eq!(t.max_field_tokens, t.by_kind["search"].tokens.max(2));
        assert_eq!(t.validate(30), Ok(()));
        assert!(t.validate(31).is_err());
    }

    #[test]
    fn a_turn_whose_figures_disagree_is_refused_naming_the_field() {
        let kinds = |shell: (u64, u64), other: (u64, u64)| {
            BTreeMap::from([
                (
                    "shell".to_string(),
                    KindTokens {
                        fields: 1,
                        units: shell.0,
                        tokens: shell.1,
                    },
                ),
                (
                    "other".to_string(),
                    KindTokens {
                        fields: 1,
                        units: other.0,
                        tokens: other.1,
                    },
                ),
            ])
        };
        let turn = TurnTokens {
            tokens: 10,
            units: 40,
            max_field_tokens: 10,
            by_kind: kinds((30, 6), (10, 4)),
        };
        // One field may hold every token.
        assert_eq!(turn.validate(40), Ok(()));
        let more = TurnTokens {
            max_field_tokens: 11,
            ..turn.clone()
        };
        assert_eq!(
            more.validate(40),
            Err("tokens.maxFieldTokens is 11, more than tokens.tokens (10)".to_string())
        );
        // The units add up but the tokens do not, and the other way round.
        let not_adding_up = Err(
            "tokens.byKind: the kinds do not add up to tokens.units and tokens.tokens".to_string(),
        );
        for by_kind in [kinds((30, 6), (10, 5)), kinds((30, 6), (11, 4))] {
            let turn = TurnTokens {
                by_kind,
                ..turn.clone()
            };
            assert_eq!(turn.validate(40), not_adding_up);
        }
    }

    #[test]
    fn tallies_merged_in_any_split_equal_the_tally_of_all_turns() {
        // A 1,000-token window: results of more than 100 tokens leak; a budget of 300 tokens.
        let turns = [
            turn(400, 900, 150, &[("shell", 600, 250), ("search", 300, 150)]),
            turn(120, 500, 100, &[("shell", 500, 120)]),
            turn(350, 700, 200, &[("search", 700, 350)]),
        ];
        let tally = |turns: &[TurnTokens]| {
            let mut t = TokenTally::new(Some(300), Some(1_000));
            for turn in turns {
                t.add(turn);
            }
            t
        };
        let all = tally(&turns);
        assert_eq!(
            (
                all.turns,
                all.tokens,
                all.units,
                all.violations,
                all.max_overshoot
            ),
            (3, 870, 2100, 2, 100)
        );
        // 150 and 200 tokens are over the limit of 100; 100 itself is not.
        assert_eq!((all.leak_limit, all.leak_turns), (Some(100), 2));
        assert_eq!(all.leak_ratio.count(), 3);
        let fields = |t: &TokenTally| {
            t.by_kind
                .iter()
                .map(|(k, v)| (k.clone(), v.counts))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            fields(&all),
            [
                (
                    "search".to_string(),
                    KindTokens {
                        fields: 2,
                        units: 1000,
                        tokens: 500
                    }
                ),
                (
                    "shell".to_string(),
                    KindTokens {
                        fields: 2,
                        units: 1100,
                        tokens: 370
                    }
                ),
            ]
        );
        for split in 0..=turns.len() {
            let mut merged = tally(&turns[..split]);
            merged.merge(&tally(&turns[split..]));
            assert_eq!(merged, all, "split at {split}");
        }
    }

    #[test]
    fn a_row_is_checked_against_the_token_budget_and_window_of_its_run() {
        let turns = [turn(250, 900, 120, &[("shell", 900, 250)])];
        let row = |budget, window| {
            TokenSummary::from_turns(&turns.iter().collect::<Vec<_>>(), budget, window)
        };
        let (budgeted, leaky, plain) = (
            row(Some(200), None),
            row(None, Some(1_000)),
            row(None, None),
        );
        assert_eq!(budgeted.validate_settings(Some(200), None), Ok(()));
        assert_eq!(leaky.validate_settings(None, Some(1_000)), Ok(()));
        assert_eq!(plain.validate_settings(None, None), Ok(()));
        let refused = [
            (
                budgeted.validate_settings(Some(300), None),
                "tokens.compliance.budget is 200, but the run's token budget at this budget is 300",
            ),
            (
                budgeted.validate_settings(None, None),
                "tokens.compliance: present, but the run gives this budget no token budget",
            ),
            (
                plain.validate_settings(Some(200), None),
                "tokens.compliance: absent, but the run's token budget at this budget is 200",
            ),
            (
                leaky.validate_settings(None, Some(2_000)),
                "tokens.windowLeak.limitTokens is 100, but 10% of the 2000-token window is 200",
            ),
            (
                leaky.validate_settings(None, None),
                "tokens.windowLeak: present, but only window-relative at a window budget has one",
            ),
            (
                plain.validate_settings(None, Some(1_000)),
                "tokens.windowLeak: absent, but window-relative at a window budget has one",
            ),
        ];
        for (result, message) in refused {
            assert_eq!(result, Err(message.to_string()));
        }
    }

    #[test]
    fn a_kind_without_tokens_has_no_ratio_percentiles() {
        let turns = [turn(0, 10, 0, &[("shell", 10, 0)])];
        let s = TokenSummary::from_turns(&turns.iter().collect::<Vec<_>>(), None, None);
        assert_eq!(
            (s.by_kind["shell"].p10, s.by_kind["shell"].p90),
            (None, None)
        );
    }

    #[test]
    fn a_row_whose_token_figures_break_a_promise_is_refused_naming_it() {
        let turns = [
            turn(100, 400, 60, &[("shell", 300, 60), ("search", 100, 40)]),
            turn(300, 600, 250, &[("shell", 600, 300)]),
        ];
        let row = TokenSummary::from_turns(&turns.iter().collect::<Vec<_>>(), None, None);
        assert_eq!(row.validate(2), Ok(()));
        // A row without turns has nothing to divide, and keeps its promises.
        assert_eq!(
            TokenSummary::from_turns(&[], None, None).validate(0),
            Ok(())
        );
        let changed = |change: &dyn Fn(&mut TokenSummary)| {
            let mut r = row.clone();
            change(&mut r);
            r.validate(2)
        };
        // Within a billionth of the ratio is the ratio (2.5); a hundredth off is not.
        assert_eq!(changed(&|r| r.units_per_token = Some(2.5 + 1e-9)), Ok(()));
        assert_eq!(
            changed(&|r| r.units_per_token = Some(2.51)),
            Err("tokens.unitsPerToken is not tokens.units over tokens.tokens".to_string())
        );
        let shell = |r: &mut TokenSummary| r.by_kind.get_mut("shell").unwrap().clone();
        let with_shell = |p10: Option<f64>, p90: Option<f64>| {
            changed(&move |r: &mut TokenSummary| {
                let mut k = shell(r);
                (k.p10, k.p90) = (p10, p90);
                r.by_kind.insert("shell".into(), k);
            })
        };
        // Percentiles of 0 and equal ones are fine.
        assert_eq!(with_shell(Some(0.0), Some(0.0)), Ok(()));
        assert_eq!(with_shell(Some(2.0), Some(2.0)), Ok(()));
        let bad_value =
            Err("tokens.byKind.shell: p10 and p90 are finite and at least 0".to_string());
        for bad in [-0.5, f64::NAN, f64::INFINITY] {
            assert_eq!(with_shell(Some(bad), Some(3.0)), bad_value, "{bad}");
        }
        assert_eq!(
            with_shell(Some(3.0), Some(2.0)),
            Err("tokens.byKind.shell: p10 is more than p90".to_string())
        );
        // Kinds that do not add up, in units alone or in tokens alone.
        let not_adding_up = Err(
            "tokens.byKind: the kinds do not add up to tokens.units and tokens.tokens".to_string(),
        );
        // (The ratio follows, so that only the sum is wrong.)
        assert_eq!(
            changed(&|r| {
                r.units += 1;
                r.units_per_token = ratio(r.units, r.tokens);
            }),
            not_adding_up
        );
        assert_eq!(
            changed(&|r| {
                r.tokens += 1;
                r.units_per_token = ratio(r.units, r.tokens);
            }),
            not_adding_up
        );
    }

    #[test]
    fn a_row_of_one_turn_over_its_budget_is_at_the_edges_of_its_promises() {
        // One turn over a 200-token budget: its 99th percentile is all its tokens, its violations all its turns.
        let turns = [turn(300, 900, 300, &[("shell", 900, 300)])];
        let row = TokenSummary::from_turns(&turns.iter().collect::<Vec<_>>(), Some(200), None);
        assert_eq!((row.p99_tokens, row.tokens), (300, 300));
        assert_eq!(row.compliance.as_ref().unwrap().violations, 1);
        assert_eq!(row.validate(1), Ok(()));
        let mut more = row.clone();
        more.p99_tokens = 301;
        assert_eq!(
            more.validate(1),
            Err("tokens.p99Tokens is 301, more than tokens.tokens (300)".to_string())
        );
        let mut more = row.clone();
        more.compliance.as_mut().unwrap().violations = 2;
        assert_eq!(
            more.validate(1),
            Err("tokens.compliance.violations is 2, more than batches (1)".to_string())
        );
        // Its rate is 0: within a billionth is 0, half is not.
        let rate = |r: f64| {
            let mut row = row.clone();
            row.compliance.as_mut().unwrap().rate = r;
            row.validate(1)
        };
        assert_eq!(rate(1e-9), Ok(()));
        assert_eq!(
            rate(0.5),
            Err("tokens.compliance.rate is 0.5, but 1 violations in 1 batches give 0".to_string())
        );
        // Its overshoot is 100 tokens: a largest overshoot below the 99th percentile's is refused, one above it
        // is not; with a violation there is an overshoot.
        let overshoots = |max: u64, p99: u64| {
            let mut row = row.clone();
            let c = row.compliance.as_mut().unwrap();
            (c.max_overshoot, c.p99_overshoot) = (max, p99);
            row.validate(1)
        };
        let disagree =
            Err("tokens.compliance: the overshoots disagree with the violations".to_string());
        assert_eq!(overshoots(100, 100), Ok(()));
        assert_eq!(overshoots(101, 100), Ok(()));
        assert_eq!(overshoots(99, 100), disagree);
    }

    #[test]
    fn a_row_of_window_leaks_is_at_the_edges_of_its_promises() {
        // A 1,000-token window: a result of 300 tokens leaks, one of 50 does not.
        let row = |max: u64| {
            let turns = [turn(300, 900, max, &[("shell", 900, 300)])];
            TokenSummary::from_turns(&turns.iter().collect::<Vec<_>>(), None, Some(1_000))
        };
        let (leaking, tight) = (row(300), row(50));
        assert_eq!(leaking.window_leak.as_ref().unwrap().turns, 1);
        assert_eq!((leaking.validate(1), tight.validate(1)), (Ok(()), Ok(())));
        let changed = |row: &TokenSummary, change: &dyn Fn(&mut WindowLeak)| {
            let mut row = row.clone();
            change(row.window_leak.as_mut().unwrap());
            row.validate(1)
        };
        assert_eq!(
            changed(&leaking, &|w| w.turns = 2),
            Err("tokens.windowLeak.turns is 2, more than batches (1)".to_string())
        );
        // No turn leaked: a share within a billionth of 0 is 0, a half is not.
        assert_eq!(changed(&tight, &|w| w.share = 1e-9), Ok(()));
        assert_eq!(
            changed(&tight, &|w| w.share = 0.5),
            Err("tokens.windowLeak.share is 0.5, but 0 of 1 turns give 0".to_string())
        );
        assert_eq!(changed(&tight, &|w| w.p99_ratio = 0.0), Ok(()));
        for bad in [-0.5, f64::NAN, f64::INFINITY] {
            assert_eq!(
                changed(&tight, &|w| w.p99_ratio = bad),
                Err("tokens.windowLeak.p99Ratio is a finite number of at least 0".to_string()),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_tally_that_does_not_hold_one_value_a_turn_is_refused() {
        // One turn over a 200-token budget with a result leaking from a 1,000-token window: every count at 1.
        let turns = [turn(300, 900, 300, &[("shell", 900, 300)])];
        let row =
            |window| TokenSummary::from_turns(&turns.iter().collect::<Vec<_>>(), Some(200), window);
        let (leaking, plain) = (row(Some(1_000)), row(None));
        let t = &leaking.summary;
        assert_eq!((t.turns, t.violations, t.leak_turns), (1, 1, 1));
        assert_eq!((leaking.validate(1), plain.validate(1)), (Ok(()), Ok(())));
        assert_eq!(
            leaking.validate(2),
            Err("tokens.summary.turns is 1, but the row has 2 batches".to_string())
        );
        let changed = |row: &TokenSummary, change: &dyn Fn(&mut TokenTally)| {
            let mut row = row.clone();
            change(&mut row.summary);
            row.validate(1)
        };
        assert_eq!(
            changed(&leaking, &|t| t.turn_tokens.add(5)),
            Err("tokens.summary.turnTokens holds 2 values, not 1".to_string())
        );
        assert_eq!(
            changed(&leaking, &|t| t.leak_ratio = LogHistogram::default()),
            Err("tokens.summary.leakRatio holds 0 values, not 1".to_string())
        );
        assert_eq!(
            changed(&plain, &|t| t.leak_ratio.add(5)),
            Err("tokens.summary.leakRatio holds 1 values, not 0".to_string())
        );
        assert_eq!(
            changed(&leaking, &|t| {
                t.by_kind.get_mut("shell").unwrap().ratios.add(5);
            }),
            Err(
                "tokens.summary.byKind.shell.ratios holds 2 values, more than the 1 turns"
                    .to_string()
            )
        );
        let more = Err("tokens.summary: more violations or leaking turns than turns".to_string());
        assert_eq!(changed(&leaking, &|t| t.violations = 2), more);
        assert_eq!(changed(&leaking, &|t| t.leak_turns = 2), more);
    }

    #[test]
    fn a_kind_holds_at_most_three_tokens_a_unit() {
        let row = |tokens: u64| {
            let turns = [turn(tokens, 10, tokens, &[("shell", 10, tokens)])];
            TokenSummary::from_turns(&turns.iter().collect::<Vec<_>>(), None, None).validate(1)
        };
        assert_eq!(row(30), Ok(()));
        assert_eq!(
            row(31),
            Err("tokens.byKind.shell: 31 tokens in 10 units; a unit is at most 3 bytes, and a token at least 1"
                .to_string())
        );
    }

    #[test]
    fn kind_names_are_the_kinds_of_output() {
        for kind in crate::workload::Kind::ALL {
            assert!(is_kind_name(kind.as_str()), "{}", kind.as_str());
        }
        assert!(is_kind_name("hook_text") && is_kind_name("other"));
        for name in ["", "nonsense", "Shell", "hook-text"] {
            assert!(!is_kind_name(name), "{name}");
        }
    }
}
