//! The units-per-token chart (runs given `--tokenizer`): for each kind of tool output, the spread of UTF-16 units
//! per token of what the model receives, one box per kind and tokenizer.

use std::collections::BTreeMap;

use super::{Spread, TurnTallies};
use crate::metrics::Aggregate;
use crate::run::RunResults;

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
/// receive; every strategy's when the run has no reference), each turn's units of a kind over its tokens of it,
/// from the run's tallied `turns` (quartiles within the tally's error, see [`TurnTallies`]); without them, the
/// rows' means. `None` for a run without tokens.
pub fn units_per_token(results: &RunResults, turns: Option<&TurnTallies>) -> Option<UnitsPerToken> {
    let settings = results.inputs.tokens.as_ref()?;
    let turns = turns.filter(|t| t.turns() > 0);
    let per_turn = turns.is_some();
    let (kinds, boxes): (Vec<String>, Vec<Option<Spread>>) = match turns {
        Some(tallies) => tallies
            .units_per_token()
            .iter()
            .map(|(kind, tally)| (kind.clone(), tally.spread()))
            .unzip(),
        None => {
            let has_reference = results.inputs.strategies.iter().any(|s| s.is_reference());
            let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
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
            values
                .into_iter()
                .map(|(kind, v)| (kind, Spread::of(&v)))
                .unzip()
        }
    };
    Some(UnitsPerToken {
        kinds,
        series: vec![TokenizerBoxes {
            tokenizer: settings.tokenizer.clone(),
            boxes,
        }],
        per_turn,
    })
}
