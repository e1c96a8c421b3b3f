//! From what a user asks for (scenario paths or names, strategy names, sizes, a shard) to a validated
//! [`RunPlan`]. The CLI fills in [`PlanRequest`]; every check and default lives here.

use std::path::Path;

use super::{RunPlan, Slowdown, Workload};
use crate::error::{Error, Result};
use crate::external::ExternalRegistry;
use crate::finalize::StrategyName;
use crate::generate::Shard;
use crate::rng::Seed;
use crate::scenario::{check_batches, Scenario, MAX_BUDGET_UNITS};
use crate::simulate::SimConfig;
use crate::workload::Mode;

/// Batches per scenario of a `--quick` run.
pub const QUICK_BATCHES: u64 = 12;

/// Batches per scenario of a default run, at most: the shipped scenarios run in well under a minute on 2 cores.
pub const DEFAULT_MAX_BATCHES: u64 = 60;

/// The budgets recorded batches run at when none are given.
pub const DEFAULT_RECORDED_BUDGETS: &[u64] = &[20_000, 50_000, 200_000];

/// How many worker threads `--threads` may ask for per available core.
pub const THREADS_PER_CORE: usize = 4;

/// Checks `--threads` (of `run` and `sweep`): at least 1 and at most [`THREADS_PER_CORE`] times the cores this
/// process may use (leaving the flag out uses every core).
pub fn check_threads(threads: usize) -> Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let limit = THREADS_PER_CORE * cores;
    if threads == 0 {
        return Err(Error::invalid(
            "--threads",
            "0",
            "must be at least 1 (leave --threads out to use every core)",
        ));
    }
    if threads > limit {
        return Err(Error::invalid(
            "--threads",
            threads.to_string(),
            format!("must be at most {limit} ({THREADS_PER_CORE} x the {cores} available cores)"),
        ));
    }
    Ok(threads)
}

/// What a run is asked to do, before validation.
#[derive(Debug, Clone, Default)]
pub struct PlanRequest {
    /// Scenario files, directories of `*.toml` files, or shipped scenario names; empty = every shipped one.
    pub scenarios: Vec<String>,
    /// Strategy names, built-in or registered in `externals`; empty = every built-in strategy and every
    /// registered one.
    pub strategies: Vec<String>,
    /// The external strategies registered for the run (`--external NAME=COMMAND`).
    pub externals: ExternalRegistry,
    /// Batches per scenario (overrides the scenario's number and `quick`).
    pub batches: Option<u64>,
    /// Seed for every scenario (overrides theirs).
    pub seed: Option<u64>,
    /// The shard to run (`I/N`).
    pub shard: Option<String>,
    /// A small run, for smoke tests and CI.
    pub quick: bool,
    /// Recorded batches (JSON Lines) to run instead of scenarios.
    pub batches_file: Option<std::path::PathBuf>,
    /// Budgets for recorded batches.
    pub budgets: Vec<u64>,
    /// Mode for recorded batches.
    pub mode: Option<String>,
    /// Legacy form for recorded batches.
    pub legacy: bool,
    /// Test-only: the value of `BUDGETLAB_TEST_SLOWDOWN` (see [`Slowdown`]); `None` in every real run.
    pub slowdown: Option<String>,
}

impl PlanRequest {
    /// Validates the request into a plan.
    pub fn plan(&self) -> Result<RunPlan> {
        let strategies = if self.strategies.is_empty() {
            let mut all = StrategyName::all();
            all.extend(self.externals.names());
            all
        } else {
            self.externals.resolve_all(&self.strategies)?
        };
        let shard = match &self.shard {
            Some(s) => s.parse::<Shard>()?,
            None => Shard::WHOLE,
        };
        if let Some(batches) = self.batches {
            check_batches("--batches", batches)?;
        }
        let workloads = match &self.batches_file {
            Some(path) => vec![self.recorded(path)?],
            None => self
                .scenarios()?
                .into_iter()
                .map(|mut s| {
                    if let Some(seed) = self.seed {
                        s.seed = Seed(seed);
                    }
                    let batches = self.batches.unwrap_or(if self.quick {
                        s.batches.min(QUICK_BATCHES)
                    } else {
                        s.batches.min(DEFAULT_MAX_BATCHES)
                    });
                    Workload::from_scenario(&s, Some(batches))
                })
                .collect(),
        };
        let mut names: Vec<&str> = workloads.iter().map(|w| w.info.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::invalid(
                "--scenarios",
                w[0],
                "two scenarios have this name",
            ));
        }
        let slowdown = match &self.slowdown {
            Some(spec) => Slowdown::parse(spec)?,
            None => Slowdown::default(),
        };
        Ok(RunPlan {
            workloads,
            strategies,
            shard,
            slowdown,
            externals: self.externals.clone(),
        })
    }

    fn scenarios(&self) -> Result<Vec<Scenario>> {
        if self.scenarios.is_empty() {
            return Ok(Scenario::all_shipped());
        }
        let mut out = Vec::new();
        for arg in &self.scenarios {
            let path = Path::new(arg);
            if path.is_dir() {
                let found = Scenario::load_dir(path)?;
                if found.is_empty() {
                    return Err(Error::invalid(
                        "--scenarios",
                        arg,
                        "the directory holds no *.toml scenario",
                    ));
                }
                out.extend(found);
            } else {
                out.push(Scenario::resolve(arg)?);
            }
        }
        Ok(out)
    }

    fn recorded(&self, path: &Path) -> Result<Workload> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let name = path
            .file_stem()
            .map_or("recorded".into(), |s| s.to_string_lossy().into_owned());
        let sim = SimConfig {
            mode: match &self.mode {
                Some(m) => m.parse::<Mode>()?,
                None => Mode::Interactive,
            },
            legacy: self.legacy,
            ..SimConfig::default()
        };
        let budgets = if self.budgets.is_empty() {
            DEFAULT_RECORDED_BUDGETS
        } else {
            &self.budgets
        };
        if let Some(bad) = budgets
            .iter()
            .find(|&&b| !(1..=MAX_BUDGET_UNITS).contains(&b))
        {
            return Err(Error::invalid(
                "--budgets",
                bad.to_string(),
                format!("budgets must be between 1 and {MAX_BUDGET_UNITS}"),
            ));
        }
        let mut workload = Workload::from_recorded(&name, &bytes, budgets, sim)?;
        if workload.info.batches == 0 {
            return Err(Error::invalid(
                "--batches-file",
                path.display().to_string(),
                "holds no batch",
            ));
        }
        if let Some(n) = self.batches {
            workload.info.batches = workload.info.batches.min(n);
        }
        Ok(workload)
    }
}
