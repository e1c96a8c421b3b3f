//! The compliance chart: the share of turns within budget by strategy and scenario.

use super::{ratio, rows_of};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// Compliance rate per (strategy, scenario), pooled over the scenario's budgets.
#[derive(Debug, Clone, PartialEq)]
pub struct ComplianceGrid {
    /// Column names.
    pub scenarios: Vec<String>,
    /// Row names.
    pub strategies: Vec<StrategyKey>,
    /// `rates[strategy][scenario]`: share of turns within budget (0..1), `None` where nothing ran.
    pub rates: Vec<Vec<Option<f64>>>,
}

/// The compliance grid of a run.
pub fn compliance_grid(results: &RunResults) -> ComplianceGrid {
    let scenarios: Vec<String> = results
        .inputs
        .scenarios
        .iter()
        .map(|s| s.name.clone())
        .collect();
    let strategies = results.inputs.strategies.clone();
    let rates = strategies
        .iter()
        .map(|strategy| {
            scenarios
                .iter()
                .map(|scenario| {
                    let (within, turns) = rows_of(results, strategy)
                        .filter(|r| &r.scenario == scenario)
                        .fold((0u64, 0u64), |(w, t), r| {
                            (w + r.batches - r.compliance.violations, t + r.batches)
                        });
                    ratio(within as f64, turns as f64)
                })
                .collect()
        })
        .collect();
    ComplianceGrid {
        scenarios,
        strategies,
        rates,
    }
}
