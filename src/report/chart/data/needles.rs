//! The needle chart: survival by needle kind and strategy, with the upper bound.

use std::collections::BTreeMap;

use super::{ratio, rows_of};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// Needle survival of one strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct NeedleRow {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Survival per kind (0..1), in the order of [`NeedleSurvival::kinds`]; `None` where none were planted.
    pub by_kind: Vec<Option<f64>>,
    /// Survival of every kind together (0..1); `None` when no needle was planted.
    pub all: Option<f64>,
    /// The most any allocation of the same budgets could keep (0..1); `None` when no needle was planted.
    pub upper_bound: Option<f64>,
}

/// The needle chart's data, pooled over every scenario and budget.
#[derive(Debug, Clone, PartialEq)]
pub struct NeedleSurvival {
    /// The needle kinds planted anywhere in the run.
    pub kinds: Vec<String>,
    /// One row per strategy, in run order.
    pub rows: Vec<NeedleRow>,
    /// Needles planted per strategy.
    pub planted: u64,
}

/// Needle survival by kind and strategy, pooled over every row.
pub fn needle_survival(results: &RunResults) -> NeedleSurvival {
    let mut kinds: Vec<String> = results
        .rows
        .iter()
        .flat_map(|r| r.needles.by_kind.keys().cloned())
        .collect();
    kinds.sort();
    kinds.dedup();
    let mut planted_max = 0;
    let rows = results
        .inputs
        .strategies
        .iter()
        .map(|strategy| {
            let mut by_kind: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
            let (mut planted, mut bound) = (0u64, 0.0f64);
            for r in rows_of(results, strategy) {
                let row_planted: u64 = r.needles.by_kind.values().map(|k| k.planted).sum();
                planted += row_planted;
                bound += r.needles.upper_bound.unwrap_or(0.0) * row_planted as f64;
                for (kind, k) in &r.needles.by_kind {
                    let e = by_kind.entry(kind).or_default();
                    e.0 += k.survived;
                    e.1 += k.planted;
                }
            }
            planted_max = planted_max.max(planted);
            let survived: u64 = by_kind.values().map(|(s, _)| s).sum();
            NeedleRow {
                strategy: strategy.clone(),
                by_kind: kinds
                    .iter()
                    .map(|k| {
                        by_kind
                            .get(k.as_str())
                            .and_then(|&(s, p)| ratio(s as f64, p as f64))
                    })
                    .collect(),
                all: ratio(survived as f64, planted as f64),
                upper_bound: ratio(bound, planted as f64),
            }
        })
        .collect();
    NeedleSurvival {
        kinds,
        rows,
        planted: planted_max,
    }
}
