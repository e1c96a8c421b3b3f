//! `budgetlab simulate`: a scenario's turns through one strategy in one mode, summarised boundary by boundary,
//! as a table for people or as JSON Lines for tools.

use std::fmt::Write as _;

use serde::Serialize;

use super::{simulate_turn, Boundary, SimConfig};
use crate::budget::{Budget, BudgetContext};
use crate::finalize::{StrategyConfig, StrategyName};
use crate::generate::Generator;
use crate::persist::{FaultyStore, MemoryStore};
use crate::scenario::{Scenario, ScenarioBudget};

/// A validated simulation request.
#[derive(Debug, Clone)]
pub struct SimulateJob {
    /// The scenario whose batches are simulated.
    pub scenario: Scenario,
    /// The strategy at every finalization boundary.
    pub strategy: StrategyName,
    /// Mode, legacy form, hook and send guard.
    pub config: SimConfig,
    /// The budget.
    pub budget: ScenarioBudget,
    /// How many turns (batches `0..batches`).
    pub batches: u64,
}

/// One boundary's budgeted total.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoundaryTotal {
    /// The boundary (serialized as its name).
    pub name: Boundary,
    /// The model-facing budgeted total leaving it, in UTF-16 units.
    pub total: u64,
}

/// One simulated turn, summarised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnSummary {
    /// Batch index.
    pub batch: u64,
    /// Runtime mode.
    pub mode: String,
    /// Legacy form.
    pub legacy: bool,
    /// Strategy name.
    pub strategy: String,
    /// Budget in UTF-16 units.
    pub budget: u64,
    /// Every boundary in order.
    pub boundaries: Vec<BoundaryTotal>,
    /// Whether the model request is within the budget.
    pub within_budget: bool,
    /// Whether the model request, transcript and tool-result record hold the same parts.
    pub records_identical: bool,
}

impl SimulateJob {
    /// A job for `scenario` with its own mode, first budget and strategy settings.
    pub fn new(scenario: Scenario, strategy: StrategyName, batches: u64) -> SimulateJob {
        SimulateJob {
            config: SimConfig {
                mode: scenario.mode,
                legacy: scenario.legacy,
                hook: scenario.hook,
                ..SimConfig::default()
            },
            budget: scenario.budgets().remove(0),
            strategy,
            batches,
            scenario,
        }
    }

    /// The summaries of turns `0..batches`, in order.
    pub fn turns(&self) -> impl Iterator<Item = TurnSummary> + '_ {
        let generator = Generator::new(&self.scenario);
        let config: &StrategyConfig = &self.scenario.strategy;
        let finalizer = self.strategy.build_with(config);
        let mut ctx = BudgetContext::new(Budget::Units(self.budget.units as i64));
        ctx.context_window_tokens = self.budget.window_tokens;
        let rate = self.scenario.persistence.finalizer_fault_rate;
        (0..self.batches).map(move |i| {
            let mut store = FaultyStore::new(MemoryStore::new("tool-results"), []).with_rate(
                rate,
                self.scenario.seed.0 ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            let record = simulate_turn(
                generator.batch(i).batch,
                finalizer.as_ref(),
                &ctx,
                &mut store,
                &self.config,
            );
            TurnSummary {
                batch: i,
                mode: self.config.mode.as_str().into(),
                legacy: self.config.legacy,
                strategy: self.strategy.as_str().into_owned(),
                budget: self.budget.units,
                boundaries: record
                    .boundaries
                    .iter()
                    .map(|b| BoundaryTotal {
                        name: b.boundary,
                        total: b.total,
                    })
                    .collect(),
                within_budget: record.within_budget,
                records_identical: record.records_identical,
            }
        })
    }
}

impl TurnSummary {
    /// The per-boundary table people read.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "batch {} · {}{} · {} · budget {} · {} · records {}",
            self.batch,
            self.mode,
            if self.legacy { " (legacy)" } else { "" },
            self.strategy,
            self.budget,
            if self.within_budget {
                "within budget"
            } else {
                "OVER BUDGET"
            },
            if self.records_identical {
                "identical"
            } else {
                "DIFFER"
            },
        );
        let _ = writeln!(
            out,
            "  {:<28} {:>12} {:>10}",
            "boundary", "units", "of budget"
        );
        for b in &self.boundaries {
            let share = b.total as f64 / self.budget.max(1) as f64 * 100.0;
            let flag = if b.total > self.budget { "  over" } else { "" };
            let _ = writeln!(
                out,
                "  {:<28} {:>12} {:>9.1}%{flag}",
                b.name, b.total, share
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_follow_the_scenario_and_render() {
        let scenario = Scenario::shipped("shell-heavy").unwrap();
        let job = SimulateJob::new(scenario, StrategyName::REFERENCE, 3);
        let turns: Vec<TurnSummary> = job.turns().collect();
        assert_eq!(turns.len(), 3);
        for t in &turns {
            assert!(t.within_budget && t.records_identical);
            assert_eq!(t.boundaries.first().unwrap().name, Boundary::Producers);
            assert_eq!(t.boundaries.last().unwrap().name, Boundary::ModelRequest);
            assert!(t.boundaries.last().unwrap().total <= t.budget);
        }
        let table = turns[0].table();
        assert!(table.starts_with("batch 0 · "));
        assert!(table.contains("model-request"));
        assert_eq!(turns, job.turns().collect::<Vec<_>>(), "deterministic");
    }
}
