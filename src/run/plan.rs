//! From what a user asks for (scenario paths or names, strategy names, sizes, a shard) to a validated
//! [`RunPlan`]. The CLI fills in [`PlanRequest`]; every check and default lives here.

use std::path::Path;

use super::{RunPlan, Slowdown, TokenCounting, Workload};
use crate::error::{Error, Result};
use crate::external::ExternalRegistry;
use crate::finalize::StrategyName;
use crate::generate::Shard;
use crate::metrics::TokenSettings;
use crate::scenario::{check_batches, Scenario, MAX_BUDGETS, MAX_BUDGET_UNITS};
use crate::simulate::SimConfig;
pub use crate::tokens::TokenRequest;
use crate::workload::Mode;

/// Batches per scenario of a `--quick` run.
pub const QUICK_BATCHES: u64 = 12;

/// Batches per scenario of a default run, at most: the shipped scenarios run in well under a minute on 2 cores.
pub const DEFAULT_MAX_BATCHES: u64 = 60;

/// The budgets recorded batches run at when none are given.
pub(super) const DEFAULT_RECORDED_BUDGETS: &[u64] = &[20_000, 50_000, 200_000];

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

/// Where a run's batches come from, before validation.
#[derive(Debug, Clone)]
pub enum Workloads {
    /// Generated from scenarios: files, directories of `*.toml` files, or shipped scenario names; empty = every
    /// shipped one.
    Scenarios(Vec<String>),
    /// Generated from scenarios (as [`Workloads::Scenarios`]), each run at these absolute budgets in UTF-16 units
    /// in place of its own (`run --scenarios ... --budgets N,...`); the budgets are checked as recorded batches'
    /// are.
    ScenariosAtBudgets {
        /// Scenario files, directories of them, or shipped names; empty = every shipped one.
        scenarios: Vec<String>,
        /// The budgets, replacing each scenario's absolute and window budgets.
        budgets: Vec<u64>,
    },
    /// Recorded batches.
    Recorded(RecordedBatches),
}

impl Default for Workloads {
    /// Every shipped scenario.
    fn default() -> Workloads {
        Workloads::Scenarios(Vec::new())
    }
}

/// Recorded batches to run, and what to run them at.
#[derive(Debug, Clone, Default)]
pub struct RecordedBatches {
    /// The batches: JSON Lines, one batch a line.
    pub file: std::path::PathBuf,
    /// Budgets in UTF-16 units; empty = `DEFAULT_RECORDED_BUDGETS`.
    pub budgets: Vec<u64>,
    /// The runtime mode (default interactive).
    pub mode: Option<String>,
    /// Whether the mode runs in its legacy form.
    pub legacy: bool,
}

/// What a run is asked to do, before validation.
#[derive(Debug, Clone, Default)]
pub struct PlanRequest {
    /// Where the batches come from.
    pub workloads: Workloads,
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
    /// Test-only: the value of `BUDGETLAB_TEST_SLOWDOWN` (see [`Slowdown`]); `None` in every real run.
    pub slowdown: Option<String>,
    /// Token counting (`--tokenizer`, `--token-budget`); `None` counts nothing.
    pub tokens: Option<TokenRequest>,
}

/// Loads the tokenizer of `request` and checks its budget, for a run.
pub(crate) fn token_counting(request: &TokenRequest) -> Result<TokenCounting> {
    let (tokenizer, budget) = request.load()?;
    let settings = TokenSettings {
        tokenizer: tokenizer.name().to_string(),
        token_budget: budget,
    };
    settings
        .validate()
        .map_err(|m| Error::invalid("--tokenizer", &request.tokenizer, m))?;
    Ok(TokenCounting {
        tokenizer,
        settings,
    })
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
        let cap = if self.quick {
            QUICK_BATCHES
        } else {
            DEFAULT_MAX_BATCHES
        };
        let workloads = self.workloads_capped(cap)?;
        let slowdown = match &self.slowdown {
            Some(spec) => Slowdown::parse(spec)?,
            None => Slowdown::default(),
        };
        let tokens = self.tokens.as_ref().map(token_counting).transpose()?;
        Ok(RunPlan {
            workloads,
            strategies,
            shard,
            slowdown,
            externals: self.externals.clone(),
            tokens,
        })
    }

    /// The request's workloads, each scenario at `batches` when given, else at its own number of batches
    /// (uncapped: `tune` splits them into tuning and validation sets and wants them all); checked as
    /// [`PlanRequest::plan`] checks them.
    pub fn full_size_workloads(&self) -> Result<Vec<Workload>> {
        if let Some(batches) = self.batches {
            check_batches("--batches", batches)?;
        }
        self.workloads_capped(u64::MAX)
    }

    /// The workloads, each scenario at `batches` when given, else at its own number of batches, at most `cap`.
    fn workloads_capped(&self, cap: u64) -> Result<Vec<Workload>> {
        let workloads: Vec<Workload> = match &self.workloads {
            Workloads::Recorded(recorded) => vec![self.recorded(recorded)?],
            Workloads::Scenarios(args) => self.generated(args, &[], cap)?,
            Workloads::ScenariosAtBudgets { scenarios, budgets } => {
                check_budgets(budgets)?;
                self.generated(scenarios, budgets, cap)?
            }
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
        Ok(workloads)
    }

    /// The scenarios `args` name as workloads, at `budgets` when any are given, each at `batches` when given,
    /// else at its own number of batches, at most `cap`.
    fn generated(&self, args: &[String], budgets: &[u64], cap: u64) -> Result<Vec<Workload>> {
        Ok(scenarios(args)?
            .into_iter()
            .map(|s| {
                let s = s.with_seed(self.seed).with_budgets(budgets);
                let batches = self.batches.unwrap_or(s.batches.min(cap));
                Workload::from_scenario(&s, Some(batches))
            })
            .collect())
    }

    fn recorded(&self, recorded: &RecordedBatches) -> Result<Workload> {
        let path = recorded.file.as_path();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let name = path
            .file_stem()
            .map_or("recorded".into(), |s| s.to_string_lossy().into_owned());
        let sim = SimConfig {
            mode: match &recorded.mode {
                Some(m) => m.parse::<Mode>()?,
                None => Mode::Interactive,
            },
            legacy: recorded.legacy,
            ..SimConfig::default()
        };
        let budgets = if recorded.budgets.is_empty() {
            DEFAULT_RECORDED_BUDGETS
        } else {
            &recorded.budgets
        };
        check_budgets(budgets)?;
        let mut workload = Workload::from_recorded(&name, &bytes, budgets, sim)?;
        // The lines the agent used, when `import` wrote them beside these very batches.
        let used_path = crate::needles::used_path_for(path);
        if let (super::Source::Recorded(batches), Ok(used)) =
            (&workload.source, std::fs::read(&used_path))
        {
            let read = crate::needles::read_used_file(
                &used,
                &used_path.display().to_string(),
                batches,
                &crate::digest::sha256_hex(&bytes),
            )?;
            if let crate::needles::UsedRead::Found(_, needles) = read {
                workload.used = Some(needles);
            }
        }
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

/// Checks `--budgets`: at most [`MAX_BUDGETS`] of them, each 1 to [`MAX_BUDGET_UNITS`], none twice.
fn check_budgets(budgets: &[u64]) -> Result<()> {
    if budgets.len() > MAX_BUDGETS {
        return Err(Error::invalid(
            "--budgets",
            format!("{},...", budgets[0]),
            format!(
                "at most {MAX_BUDGETS} budgets (as in a scenario), got {}",
                budgets.len()
            ),
        ));
    }
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
    if let Some(twice) = budgets
        .iter()
        .enumerate()
        .find_map(|(i, b)| budgets[..i].contains(b).then_some(b))
    {
        return Err(Error::invalid(
            "--budgets",
            twice.to_string(),
            "the budget is given twice",
        ));
    }
    Ok(())
}

/// The scenarios `args` name (files, directories of them, shipped names); every shipped one for none.
fn scenarios(args: &[String]) -> Result<Vec<Scenario>> {
    if args.is_empty() {
        return Ok(Scenario::all_shipped());
    }
    let mut out = Vec::new();
    for arg in args {
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
