//! The token-compliance chart (runs given `--tokenizer` and `--token-budget`): for each strategy, the share of
//! turns within the budget in UTF-16 units beside the share within the token budget, over the same rows.

use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// One strategy's two compliance figures.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenComplianceRow {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Turns counted (of the rows with a token budget).
    pub turns: u64,
    /// Share of those turns within the budget in units (0..1).
    pub units: f64,
    /// Share of those turns within the token budget (0..1).
    pub tokens: f64,
}

/// The token-compliance chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenCompliance {
    /// The token budget as given (`10%`, `4000`).
    pub budget: String,
    /// One row per strategy with a token budget in some row, in run order.
    pub rows: Vec<TokenComplianceRow>,
}

/// Compliance in units and in tokens by strategy, pooled over the rows that have a token budget; `None` without
/// a token budget or without any such row.
pub fn token_compliance(results: &RunResults) -> Option<TokenCompliance> {
    let budget = results.inputs.tokens.as_ref()?.token_budget?;
    let rows: Vec<TokenComplianceRow> = results
        .inputs
        .strategies
        .iter()
        .filter_map(|strategy| {
            let (mut turns, mut units_ok, mut tokens_ok) = (0u64, 0u64, 0u64);
            for row in results.rows.iter().filter(|r| r.strategy == *strategy) {
                let Some(c) = row.tokens.as_ref().and_then(|t| t.compliance.as_ref()) else {
                    continue;
                };
                turns += row.batches;
                units_ok += row.batches - row.compliance.violations;
                tokens_ok += row.batches - c.violations;
            }
            (turns > 0).then(|| TokenComplianceRow {
                strategy: strategy.clone(),
                turns,
                units: units_ok as f64 / turns as f64,
                tokens: tokens_ok as f64 / turns as f64,
            })
        })
        .collect();
    (!rows.is_empty()).then(|| TokenCompliance {
        budget: budget.to_string(),
        rows,
    })
}
