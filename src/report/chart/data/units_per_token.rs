//! The units-per-token chart (runs given `--tokenizer`): for each kind of tool output, the spread of UTF-16 units
//! per token of what the model receives, one box per kind and tokenizer.

use std::collections::BTreeMap;

use super::Spread;
use crate::metrics::Aggregate;
use crate::run::{BatchRecord, RunResults};

/// The boxes of one tokenizer.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenizerBoxes {
    /// The tokenizer's name.
    pub tokenizer: String,
    /// One spread per kind of [`UnitsPerToken::kinds`], `None` where the kind had no tokens.
    pub boxes: Vec<Option<Spread>>,
}

/// The units-per-token chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitsPerToken {
    /// The kinds, in name order.
    pub kinds: Vec<String>,
    /// One series per tokenizer.
    pub series: Vec<TokenizerBoxes>,
    /// Whether the spreads are of single turns (from `batches.jsonl`) or of rows' means.
    pub per_turn: bool,
}

/// Units per token by kind of the reference strategy's turns (what the production finalizer lets the model
/// receive; every strategy's when the run has no reference), each turn's units of a kind over its tokens of it;
/// without `records`, the rows' means. `None` for a run without tokens.
pub fn units_per_token(results: &RunResults, records: &[BatchRecord]) -> Option<UnitsPerToken> {
    let settings = results.inputs.tokens.as_ref()?;
    let has_reference = results.inputs.strategies.iter().any(|s| s.is_reference());
    let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let per_turn = !records.is_empty();
    if per_turn {
        let turns = records
            .iter()
            .filter(|r| !has_reference || r.strategy.is_reference())
            .filter_map(|r| r.metrics.tokens.as_ref());
        for turn in turns {
            for (kind, k) in &turn.by_kind {
                let v = values.entry(kind.clone()).or_default();
                if k.tokens > 0 {
                    v.push(k.units as f64 / k.tokens as f64);
                }
            }
        }
    } else {
        let rows = results
            .rows
            .iter()
            .filter(|r| !has_reference || r.strategy.is_reference())
            .filter_map(|r: &Aggregate| r.tokens.as_ref());
        for row in rows {
            for (kind, k) in &row.by_kind {
                values.entry(kind.clone()).or_default().extend(k.mean);
            }
        }
    }
    let kinds: Vec<String> = values.keys().cloned().collect();
    let boxes = values.values().map(|v| Spread::of(v)).collect();
    Some(UnitsPerToken {
        kinds,
        series: vec![TokenizerBoxes {
            tokenizer: settings.tokenizer.clone(),
            boxes,
        }],
        per_turn,
    })
}
