//! `budgetlab simulate`: a scenario's turns through one strategy in one mode, summarised boundary by boundary,
//! as a table for people or as JSON Lines for tools. With `--tokenizer`, each turn also gives the tokens of its
//! model request beside the request's UTF-16 units (and, with `--token-budget`, whether they fit).

use std::fmt::Write as _;

use serde::Serialize;

use super::{simulate_turn, Boundary, SimConfig};
use crate::budget::{Budget, BudgetContext};
use crate::error::{Error, Result};
use crate::external::ExternalRegistry;
use crate::finalize::{StrategyConfig, StrategyName};
use crate::generate::Generator;
use crate::persist::{FaultyStore, InjectedFaults, MemoryStore};
use crate::scenario::{check_batches, Scenario, ScenarioBudget, MAX_BUDGET_UNITS};
use crate::tokens::{RequestTokens, TokenCheck, TokenRequest};

/// What `simulate` is asked for, before validation: a scenario, a strategy and what replaces the scenario's own
/// settings.
#[derive(Debug, Clone)]
pub struct SimulateRequest {
    /// A scenario file, or the name of a shipped scenario.
    pub scenario: String,
    /// The strategy's name, built-in or registered in `externals`.
    pub strategy: String,
    /// The external strategies registered for the command.
    pub externals: ExternalRegistry,
    /// A runtime mode replacing the scenario's.
    pub mode: Option<String>,
    /// Run the mode's legacy form (also when the scenario does not ask for it).
    pub legacy: bool,
    /// How many turns (1 to [`MAX_BATCHES`](crate::scenario::MAX_BATCHES)).
    pub batches: u64,
    /// A seed replacing the scenario's.
    pub seed: Option<u64>,
    /// A budget in UTF-16 units replacing the scenario's first.
    pub budget: Option<u64>,
    /// Whether the chat send guard runs.
    pub send_guard: bool,
    /// Count each model request's tokens (`--tokenizer`); `None` counts nothing.
    pub tokens: Option<TokenRequest>,
}

impl SimulateRequest {
    /// Validates the request into a job.
    pub fn job(&self) -> Result<SimulateJob> {
        let scenario = Scenario::resolve(&self.scenario)?.with_seed(self.seed);
        let strategy = self.externals.resolve(&self.strategy)?;
        let batches = check_batches("--batches", self.batches)?;
        let mut job = SimulateJob::new(scenario, strategy, batches);
        if let Some(mode) = &self.mode {
            job.config.mode = mode.parse()?;
        }
        job.config.legacy |= self.legacy;
        job.config.send_guard = self.send_guard;
        if let Some(units) = self.budget {
            if !(1..=MAX_BUDGET_UNITS).contains(&units) {
                return Err(Error::invalid(
                    "--budget",
                    units.to_string(),
                    format!("must be between 1 and {MAX_BUDGET_UNITS}"),
                ));
            }
            job.budget = ScenarioBudget::absolute(units);
        }
        if let Some(tokens) = &self.tokens {
            let why = format!("budget {} has none", job.budget.label);
            job.tokens = Some(tokens.check(job.budget.window_tokens, &why)?);
        }
        Ok(job)
    }
}

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
    /// The tokenizer and token budget each model request is counted with; `None` counts nothing.
    pub tokens: Option<TokenCheck>,
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
    /// The model request's tokens (`--tokenizer` only; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<RequestTokens>,
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
            tokens: None,
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
            let mut store = FaultyStore::new(MemoryStore::new("tool-results"), [])
                .with_rate(rate, InjectedFaults::batch_seed(self.scenario.seed.0, i));
            let generated = generator.batch(i);
            let ctx = BudgetContext {
                turn: generated.context,
                ..ctx.clone()
            };
            let record = simulate_turn(
                generated.batch,
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
                tokens: self
                    .tokens
                    .as_ref()
                    .map(|t| t.count(&record.model_request, &ctx.reminders)),
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
        if self.tokens.is_some() {
            let _ = writeln!(
                out,
                "  {:<28} {:>12} {:>10} {:>10}",
                "boundary", "units", "of budget", "tokens"
            );
        } else {
            let _ = writeln!(
                out,
                "  {:<28} {:>12} {:>10}",
                "boundary", "units", "of budget"
            );
        }
        for b in &self.boundaries {
            let share = b.total as f64 / self.budget.max(1) as f64 * 100.0;
            let flag = if b.total > self.budget { "  over" } else { "" };
            // Only the model request is counted: it is what the model receives.
            let tokens = match &self.tokens {
                Some(t) if b.name == Boundary::ModelRequest => format!(" {:>10}", t.tokens),
                Some(_) => format!(" {:>10}", "-"),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "  {:<28} {:>12} {:>9.1}%{tokens}{flag}",
                b.name, b.total, share
            );
        }
        if let Some(t) = &self.tokens {
            let per = t
                .units_per_token()
                .map_or_else(|| "-".to_string(), |x| format!("{x:.2}"));
            let _ = write!(
                out,
                "  model request: {} tokens of {} ({} units, {per} units per token)",
                t.tokens, t.tokenizer, t.units
            );
            if let (Some(budget), Some(within)) = (t.budget, t.within_budget) {
                let verdict = if within {
                    "within".to_string()
                } else {
                    format!("OVER by {}", t.tokens - budget)
                };
                let _ = write!(out, " · token budget {budget}: {verdict}");
            }
            out.push('\n');
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

    #[test]
    fn a_request_replaces_the_scenarios_settings_and_checks_its_bounds() {
        let request = SimulateRequest {
            scenario: "shell-heavy".into(),
            strategy: "greedy".into(),
            externals: ExternalRegistry::default(),
            mode: None,
            legacy: false,
            batches: 2,
            seed: None,
            budget: None,
            send_guard: true,
            tokens: None,
        };
        let shipped = Scenario::shipped("shell-heavy").unwrap();
        let job = request.job().unwrap();
        assert_eq!(job.scenario.seed, shipped.seed);
        assert_eq!(job.config.mode, shipped.mode);
        assert_eq!(job.budget, shipped.budgets()[0]);
        assert_eq!((job.batches, job.strategy.as_str().as_ref()), (2, "greedy"));
        assert!(job.config.send_guard);
        let job = SimulateRequest {
            mode: Some("acp".into()),
            legacy: true,
            seed: Some(shipped.seed.0 + 1),
            budget: Some(777),
            send_guard: false,
            ..request.clone()
        }
        .job()
        .unwrap();
        assert_eq!(job.scenario.seed.0, shipped.seed.0 + 1);
        assert_eq!(
            (job.config.mode, job.config.legacy),
            (crate::workload::Mode::Acp, true)
        );
        assert!(!job.config.send_guard);
        assert_eq!(job.budget, ScenarioBudget::absolute(777));
        let bad = |r: SimulateRequest| r.job().unwrap_err().to_string();
        let budget = bad(SimulateRequest {
            budget: Some(0),
            ..request.clone()
        });
        assert!(
            budget.starts_with("invalid --budget \"0\": must be between 1 and "),
            "{budget}"
        );
        let batches = bad(SimulateRequest {
            batches: 0,
            ..request.clone()
        });
        assert!(batches.starts_with("invalid --batches \"0\""), "{batches}");
        let mode = bad(SimulateRequest {
            mode: Some("fast".into()),
            ..request
        });
        assert!(mode.starts_with("invalid mode \"fast\""), "{mode}");
    }
}
