//! Sweeps: one scenario run at many settings of one parameter (log-spaced budgets, context windows for the
//! window-relative policies, or the head share of the reference fit), through the same machinery as
//! `budgetlab run`, to draw the curves an engineer tuning allocation picks a setting from. [`SweepRequest`]
//! validates what the CLI was given into a [`SweepPlan`]; running it gives the [`SweepResults`] of `sweep.json`.
//! With `--tokenizer`, every point's rows carry the token figures of a run's rows, and with `--token-budget`
//! their compliance in tokens.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::external::ExternalRegistry;
use crate::finalize::{HeadShare, StrategyName};
use crate::generate::Shard;
use crate::metrics::{Aggregate, StrategyKey, TokenBudget, TokenSettings};
use crate::run::{token_counting, RunPlan, Workload, WorkloadInfo};
use crate::scenario::{
    check_batches, BudgetLabel, Scenario, ScenarioBudget, MAX_BUDGET_UNITS, MAX_WINDOW_TOKENS,
};
use crate::tokens::TokenRequest;

/// The version of the `sweep.json` schema.
pub const SWEEP_SCHEMA_VERSION: u32 = 1;

/// Points of a budget or window sweep when `--steps` is not given.
pub const DEFAULT_STEPS: usize = 12;

/// Points of a head-share sweep when `--steps` is not given (0, 0.1, ..., 1).
pub const DEFAULT_HEAD_SHARE_STEPS: usize = 11;

/// Batches at each point of a sweep, at most, when `--batches` is not given: a sweep runs one scenario through a
/// few strategies, so it affords more batches than a run's [`crate::run::DEFAULT_MAX_BATCHES`] for smoother
/// curves, and still finishes a 12-point sweep of any shipped scenario in well under a minute on 2 cores.
pub const DEFAULT_SWEEP_BATCHES: u64 = 200;

/// The most points a sweep may have.
pub const MAX_STEPS: usize = 200;

/// Strategies of a budget sweep when none are given: the reference and the batch allocations it is weighed
/// against.
pub const DEFAULT_BUDGET_STRATEGIES: &[&str] = &[
    "reference",
    "proportional",
    "uniform",
    "greedy",
    "largest-first",
];

/// Strategies of a window sweep when none are given: the policies whose threshold follows the window, and the
/// reference at the same budgets.
pub const DEFAULT_WINDOW_STRATEGIES: &[&str] = &["reference", "window-relative", "gemini-cli"];

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SweepAxis {
    /// The aggregate budget, in UTF-16 units.
    Budget,
    /// The model's context window, in tokens; the budget follows it by the window-relative rule.
    Window,
    /// The head share of each preview (strategies `head-tail-<share>`), at the scenario's budgets.
    HeadShare,
}

impl SweepAxis {
    /// What the parameter is, with its unit.
    pub fn noun(self) -> &'static str {
        match self {
            SweepAxis::Budget => "budget (UTF-16 units)",
            SweepAxis::Window => "context window (tokens)",
            SweepAxis::HeadShare => "head share of the preview",
        }
    }

    /// The axis label of charts against the parameter.
    pub fn axis_label(self) -> &'static str {
        match self {
            SweepAxis::Budget => "budget (UTF-16 units, log scale)",
            SweepAxis::Window => "context window (tokens, log scale)",
            SweepAxis::HeadShare => "head share of each preview (0 = tail only, 1 = head only)",
        }
    }
}

/// The parameter and range a sweep was asked for, as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SweepParameter {
    /// `--budgets FROM..TO`.
    Budgets(String),
    /// `--windows FROM..TO`.
    Windows(String),
    /// `--head-shares [FROM..TO]` (default `0..1`).
    HeadShares(Option<String>),
}

/// What a sweep is asked to do, before validation.
#[derive(Debug, Clone)]
pub struct SweepRequest {
    /// A scenario file or a shipped scenario's name.
    pub scenario: String,
    /// The parameter and its range.
    pub parameter: SweepParameter,
    /// Points (default [`DEFAULT_STEPS`], or [`DEFAULT_HEAD_SHARE_STEPS`] for head shares).
    pub steps: Option<usize>,
    /// Strategy names, built-in or registered in `externals` (default by parameter, and every registered one;
    /// not allowed with head shares).
    pub strategies: Vec<String>,
    /// The external strategies registered for the sweep (`--external NAME=COMMAND`).
    pub externals: ExternalRegistry,
    /// Batches per point (default: the scenario's, at most [`DEFAULT_SWEEP_BATCHES`]).
    pub batches: Option<u64>,
    /// Seed overriding the scenario's.
    pub seed: Option<u64>,
    /// Token counting (`--tokenizer`, `--token-budget`); `None` counts nothing.
    pub tokens: Option<TokenRequest>,
}

/// One point of a planned sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct PointSpec {
    /// The parameter's value.
    pub value: f64,
    /// How the value is shown.
    pub label: String,
    /// Which rows are run at it.
    key: PointKey,
}

/// What the rows of one point of a sweep share.
#[derive(Debug, Clone, PartialEq)]
enum PointKey {
    /// The budget (budget and window sweeps).
    Budget(BudgetLabel),
    /// The strategy (head-share sweeps).
    Strategy(StrategyKey),
}

impl PointKey {
    /// Whether `row` was run at the point.
    fn holds(&self, row: &Aggregate) -> bool {
        match self {
            PointKey::Budget(label) => row.budget_label == *label,
            PointKey::Strategy(strategy) => row.strategy == *strategy,
        }
    }
}

/// A validated sweep: the run that makes it and the points to read from its rows.
#[derive(Debug, Clone)]
pub struct SweepPlan {
    /// What is swept.
    pub axis: SweepAxis,
    /// The run: one workload whose budgets (or strategies) are the points.
    pub run: RunPlan,
    /// The points, in increasing order.
    pub points: Vec<PointSpec>,
}

/// One point of a sweep's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepPoint {
    /// The parameter's value (budget units, window tokens or head share).
    pub value: f64,
    /// How the value is shown.
    pub label: String,
    /// The rows run at this value: one per strategy (one per budget for head shares).
    pub rows: Vec<Aggregate>,
}

/// `sweep.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepResults {
    /// [`SWEEP_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The budgetlab version that produced it.
    pub crate_version: String,
    /// The seed of the generated batches.
    pub seed: u64,
    /// What was swept.
    pub axis: SweepAxis,
    /// The scenario, with every budget it ran at.
    pub scenario: WorkloadInfo,
    /// The strategies run.
    pub strategies: Vec<StrategyKey>,
    /// The points, in increasing order.
    pub points: Vec<SweepPoint>,
    /// The tokenizer and token budget of a sweep given `--tokenizer` (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenSettings>,
}

/// Parses `FROM..TO` of whole numbers, `FROM >= 1` and `FROM < TO`.
pub fn parse_range(flag: &str, s: &str, unit: &str) -> Result<(u64, u64)> {
    let bad = |reason: String| Error::invalid(flag, s, reason);
    let (from, to) = s.split_once("..").ok_or_else(|| {
        bad(format!(
            "expected FROM..TO in whole {unit}, e.g. 2000..200000"
        ))
    })?;
    let number = |t: &str| -> Result<u64> {
        let t = t.trim().replace('_', "");
        t.parse::<u64>().map_err(|_| {
            bad(format!(
                "{t:?} is not a whole number; expected FROM..TO in whole {unit}, e.g. 2000..200000"
            ))
        })
    };
    let (from, to) = (number(from)?, number(to)?);
    if from == 0 {
        return Err(bad("FROM must be at least 1".into()));
    }
    if from >= to {
        return Err(bad("FROM must be less than TO".into()));
    }
    Ok((from, to))
}

/// Refuses a range of `flag` whose end `to` is over `max`, the bound a scenario's `what` have.
fn within(flag: &str, range: &str, to: u64, max: u64, what: &str) -> Result<()> {
    if to > max {
        return Err(Error::invalid(
            flag,
            range,
            format!("TO must be at most {max} ({what} are bounded as in a scenario)"),
        ));
    }
    Ok(())
}

/// `k` values from `from` to `to`, evenly spaced on a log scale and rounded, without repeats.
pub fn log_spaced(from: u64, to: u64, k: usize) -> Vec<u64> {
    let (lo, hi) = ((from as f64).ln(), (to as f64).ln());
    let mut out: Vec<u64> = (0..k)
        .map(|i| {
            if i == 0 {
                from
            } else if i + 1 == k {
                to
            } else {
                (lo + (hi - lo) * i as f64 / (k - 1) as f64).exp().round() as u64
            }
        })
        .collect();
    out.dedup();
    out
}

/// `k` head shares from `from` to `to` (within 0..=1), evenly spaced, in thousandths, without repeats.
fn head_shares(range: Option<&str>, k: usize) -> Result<Vec<HeadShare>> {
    let (from, to) = match range {
        None => (0.0, 1.0),
        Some(s) => {
            let bad = || {
                Error::invalid(
                    "--head-shares",
                    s,
                    "expected FROM..TO with 0 <= FROM < TO <= 1, e.g. 0..1 or 0.1..0.5",
                )
            };
            let (a, b) = s.split_once("..").ok_or_else(bad)?;
            let (a, b): (f64, f64) = (
                a.trim().parse().map_err(|_| bad())?,
                b.trim().parse().map_err(|_| bad())?,
            );
            if !(0.0..=1.0).contains(&a) || !(0.0..=1.0).contains(&b) || a >= b {
                return Err(bad());
            }
            (a, b)
        }
    };
    let mut shares: Vec<HeadShare> = (0..k)
        .map(|i| {
            let v = from + (to - from) * i as f64 / (k - 1) as f64;
            HeadShare::new((v * 1000.0).round() as u64, 1000).expect("a share within 0..=1")
        })
        .collect();
    shares.dedup();
    Ok(shares)
}

impl SweepRequest {
    /// Validates the request into a plan.
    pub fn plan(&self) -> Result<SweepPlan> {
        let scenario = Scenario::resolve(&self.scenario)?.with_seed(self.seed);
        if let Some(batches) = self.batches {
            check_batches("--batches", batches)?;
        }
        let default_steps = match self.parameter {
            SweepParameter::HeadShares(_) => DEFAULT_HEAD_SHARE_STEPS,
            _ => DEFAULT_STEPS,
        };
        let steps = self.steps.unwrap_or(default_steps);
        if !(2..=MAX_STEPS).contains(&steps) {
            return Err(Error::invalid(
                "--steps",
                steps.to_string(),
                format!("must be between 2 and {MAX_STEPS}"),
            ));
        }
        let strategies = |defaults: &[&str]| -> Result<Vec<StrategyName>> {
            if self.strategies.is_empty() {
                let mut names: Vec<StrategyName> = defaults
                    .iter()
                    .map(|s| s.parse().expect("a known strategy"))
                    .collect();
                names.extend(self.externals.names());
                Ok(names)
            } else {
                self.externals.resolve_all(&self.strategies)
            }
        };
        let batches = self
            .batches
            .unwrap_or(scenario.batches.min(DEFAULT_SWEEP_BATCHES));
        let mut workload = Workload::from_scenario(&scenario, Some(batches));
        let (axis, strategies, points) = match &self.parameter {
            SweepParameter::Budgets(range) => {
                let (from, to) = parse_range("--budgets", range, "UTF-16 units")?;
                within("--budgets", range, to, MAX_BUDGET_UNITS, "budgets")?;
                let budgets: Vec<ScenarioBudget> = log_spaced(from, to, steps)
                    .into_iter()
                    .map(ScenarioBudget::absolute)
                    .collect();
                let points = budgets
                    .iter()
                    .map(|b| PointSpec {
                        value: b.units as f64,
                        label: b.units.to_string(),
                        key: PointKey::Budget(b.label),
                    })
                    .collect();
                workload.info.budgets = budgets;
                (
                    SweepAxis::Budget,
                    strategies(DEFAULT_BUDGET_STRATEGIES)?,
                    points,
                )
            }
            SweepParameter::Windows(range) => {
                let (from, to) = parse_range("--windows", range, "tokens")?;
                within("--windows", range, to, MAX_WINDOW_TOKENS, "windows")?;
                let configured = scenario.budgets.configured;
                let budgets: Vec<ScenarioBudget> = log_spaced(from, to, steps)
                    .into_iter()
                    .map(|w| ScenarioBudget::window(configured, w))
                    .collect();
                let points = budgets
                    .iter()
                    .map(|b| PointSpec {
                        value: b.window_tokens.unwrap_or(0) as f64,
                        label: format!("{} tokens", b.window_tokens.unwrap_or(0)),
                        key: PointKey::Budget(b.label),
                    })
                    .collect();
                workload.info.budgets = budgets;
                (
                    SweepAxis::Window,
                    strategies(DEFAULT_WINDOW_STRATEGIES)?,
                    points,
                )
            }
            SweepParameter::HeadShares(range) => {
                if !self.strategies.is_empty() {
                    return Err(Error::invalid(
                        "--strategies",
                        self.strategies.join(","),
                        "a head-share sweep runs the head-tail-<share> strategies; give no --strategies",
                    ));
                }
                let shares = head_shares(range.as_deref(), steps)?;
                let strategies: Vec<StrategyName> =
                    shares.iter().map(|&s| StrategyName::HeadTail(s)).collect();
                let points = shares
                    .iter()
                    .zip(&strategies)
                    .map(|(s, name)| PointSpec {
                        value: s.num as f64 / s.den.max(1) as f64,
                        label: s.to_string(),
                        key: PointKey::Strategy(StrategyKey::of(name)),
                    })
                    .collect();
                (SweepAxis::HeadShare, strategies, points)
            }
        };
        let tokens = self.tokens.as_ref().map(token_counting).transpose()?;
        if let Some(TokenBudget::WindowPercent(_)) =
            tokens.as_ref().and_then(|t| t.settings.token_budget)
        {
            if workload
                .info
                .budgets
                .iter()
                .all(|b| b.window_tokens.is_none())
            {
                return Err(Error::invalid(
                    "--token-budget",
                    self.tokens
                        .as_ref()
                        .and_then(|t| t.budget.clone())
                        .unwrap_or_default(),
                    "a share of the context window, and no budget of this sweep has a window (give a \
                     number of tokens, or sweep --windows)",
                ));
            }
        }
        Ok(SweepPlan {
            axis,
            run: RunPlan {
                workloads: vec![workload],
                strategies,
                shard: Shard::WHOLE,
                slowdown: Default::default(),
                externals: self.externals.clone(),
                tokens,
            },
            points,
        })
    }
}

impl SweepPlan {
    /// The number of simulated turns the sweep makes.
    pub fn turns(&self) -> u64 {
        self.run.turns()
    }

    /// Runs the sweep; `progress` is called with the number of turns finished since its last call.
    pub fn run(&self, progress: &(dyn Fn(u64) + Sync)) -> SweepResults {
        let results = self.run.run_results(progress);
        let points = self
            .points
            .iter()
            .map(|p| SweepPoint {
                value: p.value,
                label: p.label.clone(),
                rows: results
                    .rows
                    .iter()
                    .filter(|r| p.key.holds(r))
                    .cloned()
                    .collect(),
            })
            .collect();
        SweepResults {
            schema_version: SWEEP_SCHEMA_VERSION,
            crate_version: results.crate_version,
            seed: results.seed,
            axis: self.axis,
            scenario: results.inputs.scenarios[0].clone(),
            strategies: results.inputs.strategies,
            points,
            tokens: results.inputs.tokens,
        }
    }
}

impl SweepResults {
    /// Parses a `sweep.json`, refusing other schema versions and a row that breaks the promises of a row of
    /// `results.json` (shares within 0..1, counts within what they count, figures null exactly when nothing
    /// measures them). `source_name` is named in errors, with the point, the row and the field.
    pub fn parse(bytes: &[u8], source_name: &str) -> Result<SweepResults> {
        let sweep: SweepResults =
            serde_json::from_slice(bytes).map_err(|e| Error::json(source_name, &e))?;
        if sweep.schema_version != SWEEP_SCHEMA_VERSION {
            return Err(Error::Batch {
                source_name: source_name.into(),
                message: format!(
                    "sweep schema version {}; this budgetlab reads version {SWEEP_SCHEMA_VERSION}",
                    sweep.schema_version
                ),
            });
        }
        for (i, point) in sweep.points.iter().enumerate() {
            for (j, row) in point.rows.iter().enumerate() {
                crate::run::validate_row(row).map_err(|m| {
                    Error::report(
                        source_name,
                        format!(
                            "point {} ({}), row {} (budget {}, strategy {}): {m}",
                            i + 1,
                            point.label,
                            j + 1,
                            row.budget_label,
                            row.strategy
                        ),
                    )
                })?;
            }
        }
        Ok(sweep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::window_relative_threshold;

    #[test]
    fn ranges_are_checked() {
        assert_eq!(
            parse_range("--budgets", "2000..200000", "units").unwrap(),
            (2000, 200_000)
        );
        assert_eq!(
            parse_range("--budgets", "2_000..20_000", "units").unwrap(),
            (2000, 20_000)
        );
        for bad in ["5..2", "x..y", "2000", "0..10", "7..7", "1.5..9"] {
            let e = parse_range("--budgets", bad, "units")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("invalid --budgets"), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
        assert!(parse_range("--budgets", "5..2", "units")
            .unwrap_err()
            .to_string()
            .contains("FROM must be less than TO"));
    }

    #[test]
    fn budgets_are_log_spaced_from_end_to_end() {
        let v = log_spaced(2000, 200_000, 12);
        assert_eq!(v.len(), 12);
        assert_eq!(v[0], 2000);
        assert_eq!(v[11], 200_000);
        assert!(v.windows(2).all(|w| w[0] < w[1]));
        // Equal ratios: 100x over 11 steps is about 1.52x a step.
        assert!(v
            .windows(2)
            .all(|w| (w[1] as f64 / w[0] as f64 - 1.52).abs() < 0.01));
        assert_eq!(log_spaced(1, 3, 12), vec![1, 2, 3]);
    }

    #[test]
    fn head_shares_default_to_tenths() {
        let shares = head_shares(None, 11).unwrap();
        let names: Vec<String> = shares.iter().map(|s| s.to_string()).collect();
        assert_eq!(names[0], "0");
        assert_eq!(names[2], "0.2");
        assert_eq!(names[10], "1");
        assert!(head_shares(Some("0.5..0.2"), 3).is_err());
        assert!(head_shares(Some("0..2"), 3).is_err());
    }

    #[test]
    fn plans_put_the_points_into_the_workload() {
        let request = SweepRequest {
            scenario: "mixed-realistic".into(),
            parameter: SweepParameter::Budgets("2000..200000".into()),
            steps: Some(5),
            strategies: vec![],
            externals: ExternalRegistry::default(),
            batches: Some(2),
            seed: None,
            tokens: None,
        };
        let plan = request.plan().unwrap();
        assert_eq!(plan.axis, SweepAxis::Budget);
        assert_eq!(plan.points.len(), 5);
        assert_eq!(plan.run.workloads[0].info.budgets.len(), 5);
        assert_eq!(plan.run.strategies.len(), DEFAULT_BUDGET_STRATEGIES.len());

        let windows = SweepRequest {
            parameter: SweepParameter::Windows("8000..1000000".into()),
            ..request.clone()
        }
        .plan()
        .unwrap();
        let budgets = &windows.run.workloads[0].info.budgets;
        assert_eq!(budgets[0].window_tokens, Some(8000));
        assert_eq!(
            budgets[0].units,
            window_relative_threshold(100_000, Some(8000))
        );

        let shares = SweepRequest {
            parameter: SweepParameter::HeadShares(None),
            steps: None,
            ..request.clone()
        }
        .plan()
        .unwrap();
        assert_eq!(shares.run.strategies.len(), DEFAULT_HEAD_SHARE_STEPS);
        assert_eq!(shares.run.strategies[1].as_str(), "head-tail-0.1");

        let unknown = SweepRequest {
            scenario: "no-such-scenario".into(),
            ..request
        };
        assert!(unknown.plan().is_err());
    }
}
