//! `budgetlab tune`: the settings of the tunable strategy families that maximise an objective on a workload,
//! per budget, under constraints, found by successive halving on a tuning set and checked on a validation set
//! the search never saw.
//!
//! [`space`] makes the candidate settings, [`search`] runs them, [`score`] holds what is measured and the
//! objective; this module holds the request, the plan and the results (`tune.json`) with their Markdown summary.
//! Everything but the validation cost ratios (wall-clock time) is the same on any number of threads.

pub mod group;
pub mod score;
pub mod search;
pub mod space;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::needles::NeedleKind;
use crate::rng::Seed;
use crate::run::{PlanRequest, Workload, WorkloadSource};

pub use group::{GroupBy, SplitReport};
pub use score::{Objective, Paired, Sums};
pub use search::Step;
pub use space::{Candidate, Family, DEFAULT_SETTINGS, MAX_SETTINGS};

/// The validation share when not told.
pub const DEFAULT_VALIDATION: f64 = 0.3;

/// The seed of the split and the sampled settings when not told.
pub const DEFAULT_SEED: u64 = 1;

/// What `tune.json` says it is.
pub const TUNE_FORMAT: &str = "budgetlab-tune/1";

/// What a tune is asked to do, before validation.
#[derive(Debug, Clone)]
pub struct TuneRequest {
    /// The workloads (scenarios or recorded batches) and their sizes; its strategies are ignored.
    pub run: PlanRequest,
    /// The families to search (`--families`); empty = every tunable one.
    pub families: Vec<String>,
    /// How many settings to try in all.
    pub settings: usize,
    /// What to maximise.
    pub objective: Objective,
    /// The constraints.
    pub constraints: Constraints,
    /// The share of each workload's batches kept for validation.
    pub validation: f64,
    /// The seed of the split and of the sampled settings.
    pub seed: u64,
    /// What a group of batches is for the split (`--group-by`; default: the coarsest the input has).
    pub group_by: Option<GroupBy>,
}

impl Default for TuneRequest {
    fn default() -> Self {
        TuneRequest {
            run: PlanRequest::default(),
            families: Vec::new(),
            settings: DEFAULT_SETTINGS,
            objective: Objective::NEEDLES,
            constraints: Constraints::default(),
            validation: DEFAULT_VALIDATION,
            seed: DEFAULT_SEED,
            group_by: None,
        }
    }
}

/// The constraints a recommended setting meets. The design's contract is always one: the budget kept in every
/// turn, every cut output recoverable from its artifact, nothing the design exempts changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Constraints {
    /// The most artifact writes per turn.
    pub max_writes_per_turn: Option<f64>,
    /// The most time over the floor's (measured on the validation set).
    pub max_cost_ratio: Option<f64>,
}

impl Constraints {
    /// Whether `sums` keep the design's contract (see [`Sums::contract_breaks`]) and the writes within their
    /// limit.
    pub fn allows(&self, sums: &Sums) -> bool {
        sums.contract_breaks().is_empty()
            && self
                .max_writes_per_turn
                .is_none_or(|max| sums.writes_per_turn().unwrap_or(0.0) <= max)
    }

    /// Whether a cost ratio is within its limit (an unmeasured one is not, when there is a limit).
    pub fn allows_cost(&self, ratio: Option<f64>) -> bool {
        match (self.max_cost_ratio, ratio) {
            (None, _) => true,
            (Some(max), Some(r)) => r <= max,
            (Some(_), None) => false,
        }
    }

    fn check(&self) -> Result<()> {
        if let Some(w) = self.max_writes_per_turn {
            if !(w.is_finite() && (0.0..=1e9).contains(&w)) {
                return Err(Error::invalid(
                    "--max-writes-per-turn",
                    w.to_string(),
                    "must be a number from 0 to 1000000000",
                ));
            }
        }
        if let Some(c) = self.max_cost_ratio {
            if !(c.is_finite() && (1.0..=1e6).contains(&c)) {
                return Err(Error::invalid(
                    "--max-cost-ratio",
                    c.to_string(),
                    "must be a number from 1 (the floor's time) to 1000000",
                ));
            }
        }
        Ok(())
    }
}

/// A validated tune.
#[derive(Debug, Clone)]
pub struct TunePlan {
    /// The workloads.
    pub workloads: Vec<Workload>,
    /// The families searched.
    pub families: Vec<Family>,
    /// The settings tried, the reference first.
    pub candidates: Vec<Candidate>,
    /// What is maximised.
    pub objective: Objective,
    /// The constraints.
    pub constraints: Constraints,
    /// The validation share.
    pub validation: f64,
    /// The seed.
    pub seed: Seed,
    /// What a group of batches is for the split.
    pub group_by: Option<GroupBy>,
}

impl TuneRequest {
    /// Validates the request into a plan.
    pub fn plan(&self) -> Result<TunePlan> {
        if !(self.validation.is_finite() && (0.05..=0.9).contains(&self.validation)) {
            return Err(Error::invalid(
                "--validation",
                self.validation.to_string(),
                "must be a share from 0.05 to 0.9",
            ));
        }
        self.constraints.check()?;
        let families = space::families(&self.families)?;
        let candidates = space::candidates(&families, self.settings, Seed(self.seed))?;
        let workloads = self.run.full_size_workloads()?;
        if let Some(w) = workloads.iter().find(|w| w.info.batches < 2) {
            return Err(Error::invalid(
                "--batches",
                w.info.batches.to_string(),
                format!(
                    "{} has fewer than 2 batches: tune needs some to tune on and some to validate on",
                    w.info.name
                ),
            ));
        }
        if self.objective.used > 0.0 {
            if let Some(w) = workloads.iter().find(|w| {
                w.used.as_ref().is_none_or(|u| {
                    !u.iter()
                        .flatten()
                        .flatten()
                        .any(|n| n.kind == NeedleKind::UsedToken)
                })
            }) {
                return Err(Error::invalid(
                    "--objective",
                    self.objective.describe(),
                    format!(
                        "weighs the tokens agents used, but {} has none (budgetlab import writes them beside the batches, X.used.jsonl; a file written before used tokens were measured needs importing again)",
                        w.info.name
                    ),
                ));
            }
        }
        for w in &workloads {
            group::workload_groups(w, self.group_by)?;
        }
        Ok(TunePlan {
            group_by: self.group_by,
            workloads,
            families,
            candidates,
            objective: self.objective.clone(),
            constraints: self.constraints.clone(),
            validation: self.validation,
            seed: Seed(self.seed),
        })
    }
}

impl TunePlan {
    /// The progress the tune reports in all (settings x batches x budgets; see [`search::planned_turns`]).
    pub fn turns(&self) -> u64 {
        self.workloads
            .iter()
            .map(|w| {
                let t = w.info.batches as usize;
                let v = ((t as f64) * self.validation).round() as usize;
                let (t, v) = (t.saturating_sub(v), v);
                search::planned_turns(self.candidates.len(), t, v, w.info.budgets.len())
            })
            .sum()
    }

    /// Runs the search; `progress` gets the turns run, and the turns added to [`TunePlan::turns`] when the
    /// search runs more than planned.
    pub fn run(&self, progress: &(dyn Fn(Step) + Sync)) -> Result<TuneResults> {
        let workloads = self
            .workloads
            .iter()
            .map(|w| search::tune_workload(self, w, progress))
            .collect::<Result<Vec<_>>>()?;
        Ok(TuneResults {
            format: TUNE_FORMAT.into(),
            crate_version: env!("CARGO_PKG_VERSION").into(),
            objective: self.objective.clone(),
            objective_text: self.objective.describe(),
            constraints: self.constraints.clone(),
            seed: self.seed.0,
            validation_share: self.validation,
            families: self.families.iter().map(|f| f.name.clone()).collect(),
            settings: self.candidates.len(),
            workloads,
        })
    }
}

/// A setting's figures on a set of batches.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    /// The sums they are computed from.
    pub sums: Sums,
    /// The objective (`null`: nothing to measure).
    pub objective: Option<f64>,
    /// Needle survival over every result (pooled).
    pub needles: Option<f64>,
    /// Needle survival over the results longer than the budget (what the objective weighs).
    #[serde(default)]
    pub needles_long: Option<f64>,
    /// Mean kept share per field.
    pub retention: Option<f64>,
    /// Survival of the lines the agent used, over every result (pooled).
    pub used: Option<f64>,
    /// Survival of the lines the agent used, over the results longer than the budget.
    #[serde(default)]
    pub used_long: Option<f64>,
    /// Survival of the tokens the agent used, over every result (pooled).
    #[serde(default)]
    pub tokens: Option<f64>,
    /// Survival of the tokens the agent used, over the results longer than the budget (what the objective
    /// weighs).
    #[serde(default)]
    pub tokens_long: Option<f64>,
    /// Artifact writes per turn.
    pub writes_per_turn: Option<f64>,
    /// Whether every turn kept the budget.
    pub kept_budget: bool,
    /// What of the design's contract it broke (empty: nothing): `over budget`, `cut output not recoverable`,
    /// `exempt content changed`. A setting that breaks it is never recommended.
    #[serde(default)]
    pub breaks: Vec<String>,
}

impl Figures {
    /// The figures of `sums` under `objective`.
    pub fn of(sums: &Sums, objective: &Objective) -> Figures {
        Figures {
            sums: *sums,
            objective: objective.value(sums),
            needles: sums.needle_share(),
            needles_long: sums.long_needle_share(),
            retention: sums.retention(),
            used: sums.used_share(),
            used_long: sums.long_used_share(),
            tokens: sums.token_share(),
            tokens_long: sums.long_token_share(),
            writes_per_turn: sums.writes_per_turn(),
            kept_budget: sums.kept_budget(),
            breaks: sums
                .contract_breaks()
                .into_iter()
                .map(String::from)
                .collect(),
        }
    }
}

/// One setting as the search left it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingReport {
    /// The strategy name.
    pub strategy: String,
    /// Its family.
    pub family: String,
    /// The last rung it ran in (0 = the first).
    pub rung: usize,
    /// Tuning batches it ran on.
    pub batches: usize,
    /// Its figures on them.
    pub figures: Figures,
}

/// One rung of the search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RungReport {
    /// Tuning batches in its sample.
    pub batches: usize,
    /// The objective events (needles, used tokens in results longer than the budget; fields) its sample holds.
    #[serde(default)]
    pub events: u64,
    /// Settings it ran.
    pub settings: usize,
    /// The best of them.
    pub best: Option<String>,
    /// Its objective.
    pub best_objective: Option<f64>,
    /// The reference's objective on the same sample.
    pub reference_objective: Option<f64>,
    /// Every setting it ran, in candidate order (the reference first), with its figures on the rung's whole
    /// sample (the samples are nested: a rung's figures include the batches of the rungs before it). Absent
    /// from files written before it was added.
    #[serde(default)]
    pub ran: Vec<RungSetting>,
}

impl RungReport {
    /// The rung in words, as the summary and the page give it: `40 settings on 12 batches (96 objective events)`.
    pub fn step_text(&self) -> String {
        format!(
            "{} settings on {} batches ({} objective events)",
            self.settings, self.batches, self.events
        )
    }
}

/// One setting on one rung: where the rung's ranking put it, whether it went on, and its figures on the rung's
/// sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RungSetting {
    /// The strategy name.
    pub strategy: String,
    /// Its place in the rung's ranking (0 = best); `null` for the reference once it has dropped out of the
    /// ranking (it runs on every sample, beside the settings still in it, so that their gains are on the same
    /// batches).
    pub place: Option<usize>,
    /// Whether it went on: to the next rung, or, on the last rung, to the validation set as a finalist.
    pub goes_on: bool,
    /// Its figures on the rung's sample.
    pub figures: Figures,
}

/// A finalist (or the reference) on both sets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Validated {
    /// The strategy name.
    pub strategy: String,
    /// Its family.
    pub family: String,
    /// Whether it is the reference.
    pub reference: bool,
    /// Its place among the finalists on the tuning set (0 = best); `null` for the reference when it was not
    /// one.
    pub tuning_rank: Option<usize>,
    /// Its figures on the tuning set.
    pub tuning: Figures,
    /// Its figures on the validation set.
    pub validation: Figures,
    /// Its time over the floor's on the validation set (wall-clock: varies between runs).
    pub cost_ratio: Option<f64>,
    /// Its objective minus the reference's on the validation set.
    pub gain: Option<f64>,
    /// The 95% paired bootstrap interval of that gain.
    pub gain_interval: Option<[f64; 2]>,
    /// Whether it meets the constraints on the validation set.
    pub meets_constraints: bool,
}

/// What tune recommends at one budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recommendation {
    /// The strategy to paste into `run --strategies` (the reference when nothing beats it).
    pub strategy: String,
    /// Whether it beats the reference on the validation set (its gain interval above 0) and holds under
    /// resampling of the tuning set.
    pub beats_reference: bool,
    /// Its time over the floor's on the validation set (wall-clock: varies between runs).
    #[serde(default)]
    pub cost_ratio: Option<f64>,
    /// How the best finalist on the tuning set held under resampling of the tuning set (`null` when the
    /// reference ranked first or no finalist met the constraints).
    #[serde(default)]
    pub stability: Option<Stability>,
    /// Why, in a sentence.
    pub note: String,
}

/// How the best finalist held under resampling of the tuning set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stability {
    /// The finalist.
    pub strategy: String,
    /// The resamples in which it beat the reference and no other finalist beat it.
    pub wins: usize,
    /// The resamples (whole groups drawn with seeded Poisson weights).
    pub resamples: usize,
    /// The wins a recommendation needs.
    pub needed: usize,
}

/// How one budget's search went.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchReport {
    /// Turns the rungs ran (the reference's first pass not counted).
    pub evaluations: u64,
    /// The most they could run.
    pub evaluation_budget: u64,
    /// The fewest objective events a rung's sample holds (or the whole tuning set's, when fewer).
    pub min_rung_events: u64,
    /// The objective events the tuning set holds.
    pub events: u64,
    /// Whether a rung kept fewer settings than it could not tell apart, to stay within the budget.
    pub exhausted: bool,
    /// Whether the finalists were told apart from every other setting on the tuning set.
    pub told_apart: bool,
    /// The same in a sentence.
    pub note: String,
}

/// The search at one budget of a workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CellTune {
    /// The budget's label.
    pub budget: String,
    /// The budget in UTF-16 units.
    pub units: u64,
    /// The rungs, first to last.
    pub rungs: Vec<RungReport>,
    /// Every setting evaluated, in candidate order.
    pub settings: Vec<SettingReport>,
    /// The reference, then the finalists, on both sets.
    pub finalists: Vec<Validated>,
    /// The recommendation.
    pub recommendation: Recommendation,
    /// How the search went.
    #[serde(default)]
    pub search: SearchReport,
    /// The cross-fitted evidence the recommendation rests on (absent from files written before it was added).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_fit: Option<CrossFit>,
}

/// The cross-fitted check of one budget: the batches are split into folds by group (fold 0 is the validation
/// set); for each fold a search on the other folds chooses a family (the one gaining most over the budgets) and
/// its best setting at this budget, which then runs with the reference on the fold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrossFit {
    /// The family fold 0's searches chose (`null`: none gains over the reference on the tuning set).
    pub family: Option<String>,
    /// Whether every fold's searches chose it.
    pub agreed: bool,
    /// Per fold, fold 0 first.
    pub folds: Vec<FoldReport>,
    /// The chosen settings' objective minus the reference's over every held-out batch (`null` unless agreed).
    pub gain: Option<f64>,
    /// Its 95% paired bootstrap interval (whole groups resampled; the same weights for setting and reference).
    pub gain_interval: Option<[f64; 2]>,
}

impl CrossFit {
    /// The check in words: when every fold chose one family, its gain pooled over the held-out folds with the
    /// interval (`+15.5 pts (95% interval +3.5 pts to +24.6 pts) for structure, 3 held-out folds`); otherwise
    /// what each fold chose and gained there, not pooled.
    pub fn summary(&self) -> String {
        let family = self.family.as_deref().unwrap_or("none");
        let folds = self.folds.len();
        match (self.agreed, self.gain, self.gain_interval) {
            (true, Some(g), Some([lo, hi])) => format!(
                "{} (95% interval {} to {}) for {family}, {folds} held-out folds",
                signed_points(g),
                signed_points(lo),
                signed_points(hi)
            ),
            (true, Some(g), None) => {
                format!("{} for {family}, {folds} held-out folds", signed_points(g))
            }
            _ if self.family.is_none() => {
                "- (no family gains over the reference on the tuning set)".into()
            }
            _ => {
                let each: Vec<String> = self
                    .folds
                    .iter()
                    .map(|f| {
                        format!(
                            "{} {}",
                            f.family.as_deref().unwrap_or("none"),
                            f.gain.map_or("-".into(), signed_points)
                        )
                    })
                    .collect();
                format!("- (not pooled: the folds chose {})", each.join(", "))
            }
        }
    }
}

/// One fold of the cross-fitted check.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FoldReport {
    /// The family its searches chose.
    pub family: Option<String>,
    /// Its best setting at this budget.
    pub strategy: Option<String>,
    /// Held-out batches.
    pub batches: u64,
    /// Held-out groups.
    pub groups: u64,
    /// The setting's objective minus the reference's on them.
    pub gain: Option<f64>,
    /// What of the design's contract (or the constraints) it broke there.
    pub breaks: Vec<String>,
}

/// The search over one workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadTune {
    /// The scenario or recorded batches' name.
    pub name: String,
    /// Where its batches come from.
    pub source: WorkloadSource,
    /// Its digest.
    pub digest: String,
    /// Its batches.
    pub batches: u64,
    /// In the tuning set.
    pub tuning: u64,
    /// In the validation set.
    pub validation: u64,
    /// How the batches were split: what a group is, and the groups on each side (a group is never on both).
    #[serde(default)]
    pub split: SplitReport,
    /// Per budget.
    pub cells: Vec<CellTune>,
}

/// `tune.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TuneResults {
    /// [`TUNE_FORMAT`].
    pub format: String,
    /// The budgetlab version.
    pub crate_version: String,
    /// What was maximised.
    pub objective: Objective,
    /// The same, in words.
    pub objective_text: String,
    /// The constraints.
    pub constraints: Constraints,
    /// The seed.
    pub seed: u64,
    /// The validation share.
    pub validation_share: f64,
    /// The families searched.
    pub families: Vec<String>,
    /// Settings tried per budget (the reference included).
    pub settings: usize,
    /// Per workload.
    pub workloads: Vec<WorkloadTune>,
}

impl TuneResults {
    /// The recommended strategy names, one per (workload, budget) in order.
    pub fn recommended(&self) -> Vec<(&str, &str, &Recommendation)> {
        self.workloads
            .iter()
            .flat_map(|w| {
                w.cells
                    .iter()
                    .map(move |c| (w.name.as_str(), c.budget.as_str(), &c.recommendation))
            })
            .collect()
    }

    /// The Markdown summary: per workload and budget, the recommendation and its figures on both sets beside
    /// the reference's, then how the search went.
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        md.push_str(&format!(
            "# budgetlab tune\n\nObjective: maximise {} with every turn within budget{}{}. {} settings from {} per budget; \
{:.0}% of each workload's batches held out for validation (seed {}).\n\n",
            self.objective_text,
            self.constraints
                .max_writes_per_turn
                .map_or(String::new(), |w| format!(", at most {w} writes per turn")),
            self.constraints
                .max_cost_ratio
                .map_or(String::new(), |c| format!(", at most {c}x the floor's time")),
            self.settings,
            self.families.join(", "),
            self.validation_share * 100.0,
            self.seed
        ));
        md.push_str("## Recommended settings\n\n");
        md.push_str("| workload | budget | recommended | beats the reference on validation | time / floor | why |\n|---|---|---|---|---:|---|\n");
        for (w, b, r) in self.recommended() {
            md.push_str(&format!(
                "| {w} | {b} | `{}` | {} | {} | {} |\n",
                r.strategy,
                if r.beats_reference { "yes" } else { "no" },
                ratio(r.cost_ratio),
                r.note
            ));
        }
        for w in &self.workloads {
            md.push_str(&format!(
                "\n## {} ({} batches: {} tuning, {} validation)\n\nSplit by {}: {} groups, {} tuning and {} validation; no group on both sides.\n",
                w.name,
                w.batches,
                w.tuning,
                w.validation,
                match w.split.block {
                    Some(1) => "batch (the batches record no session or task)".to_string(),
                    Some(n) => format!("blocks of {n} consecutive batches"),
                    None => w.split.by.clone(),
                },
                w.split.groups,
                w.split.tuning_groups,
                w.split.validation_groups
            ));
            for c in &w.cells {
                md.push_str(&format!(
                    "\n### {}\n\n| setting | tuning objective | validation objective | gain on validation (95% interval) | needles (long / all) | used tokens (long / all) | retention | writes/turn | time / floor | contract | meets constraints |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n",
                    c.budget
                ));
                for v in &c.finalists {
                    md.push_str(&format!(
                        "| `{}`{} | {} | {} | {} | {} / {} | {} / {} | {} | {} | {} | {} | {} |\n",
                        v.strategy,
                        if v.reference { " (reference)" } else { "" },
                        percent(v.tuning.objective),
                        percent(v.validation.objective),
                        match (v.gain, v.gain_interval) {
                            (Some(g), Some([lo, hi])) => format!(
                                "{} ({} to {})",
                                signed_points(g),
                                signed_points(lo),
                                signed_points(hi)
                            ),
                            (Some(g), None) => signed_points(g),
                            _ => "-".into(),
                        },
                        percent(v.validation.needles_long),
                        percent(v.validation.needles),
                        percent(v.validation.tokens_long),
                        percent(v.validation.tokens),
                        percent(v.validation.retention),
                        v.validation
                            .writes_per_turn
                            .map_or("-".into(), |w| format!("{w:.2}")),
                        ratio(v.cost_ratio),
                        contract(&v.validation.breaks),
                        if v.meets_constraints { "yes" } else { "no" }
                    ));
                }
                if let Some(n) = validation_n(c) {
                    md.push_str(&format!("\n{n}\n"));
                }
                if let Some(cross) = &c.cross_fit {
                    md.push_str(&format!(
                        "\nThe cross-fitted check: {}.\n\n| held-out fold | family its search chose | its setting | batches | groups | gain over the reference | contract |\n|---|---|---|---:|---:|---:|---|\n",
                        cross.summary()
                    ));
                    for (k, f) in cross.folds.iter().enumerate() {
                        md.push_str(&format!(
                            "| {}{} | {} | `{}` | {} | {} | {} | {} |\n",
                            k + 1,
                            if k == 0 { " (validation)" } else { "" },
                            f.family.as_deref().unwrap_or("none"),
                            f.strategy.as_deref().unwrap_or("-"),
                            f.batches,
                            f.groups,
                            f.gain.map_or("-".into(), signed_points),
                            contract(&f.breaks)
                        ));
                    }
                }
                md.push_str("\nThe search: ");
                let steps: Vec<String> = c.rungs.iter().map(RungReport::step_text).collect();
                md.push_str(&steps.join(", then "));
                md.push_str(&format!(
                    ". A rung holds at least {} objective events; {}.\n",
                    c.search.min_rung_events, c.search.note
                ));
                if let Some(s) = &c.recommendation.stability {
                    md.push_str(&format!(
                        "\n`{}` won in {} of {} resamples of the tuning set ({} needed for a recommendation).\n",
                        s.strategy, s.wins, s.resamples, s.needed
                    ));
                }
            }
        }
        md
    }
}

/// What the validation figures of `cell` are taken over, in words (`n on validation: 258 results longer than
/// the budget, holding 418 used tokens and 12 needles.`): the reference's sums, which are every setting's (they
/// belong to the batches). `None` when the reference did not reach the validation set.
pub(crate) fn validation_n(cell: &CellTune) -> Option<String> {
    let sums = &cell.finalists.iter().find(|v| v.reference)?.validation.sums;
    Some(format!(
        "n on validation: {} results longer than the budget, holding {} used tokens and {} needles.",
        sums.long_results, sums.long_tokens, sums.long_needles
    ))
}

/// `x` rounded to 3 decimals, for text.
pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A time over the floor's, `1.23x`, `-` when unmeasured.
pub(crate) fn ratio(x: Option<f64>) -> String {
    x.map_or("-".into(), |c| format!("{c:.2}x"))
}

/// What a setting did to the design's contract: `kept`, or what it broke.
pub(crate) fn contract(breaks: &[String]) -> String {
    if breaks.is_empty() {
        "kept".into()
    } else {
        format!("broken: {}", breaks.join(", "))
    }
}

/// A share as a percentage with one decimal, `-` when absent.
fn percent(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.1}%", x * 100.0))
}

/// A difference of shares in percentage points with a sign: `+1.2 pts`, `-0.4 pts`, `0.0 pts`.
pub(crate) fn signed_points(x: f64) -> String {
    let p = x * 100.0;
    if p.abs() < 0.05 {
        "0.0 pts".into()
    } else {
        format!("{p:+.1} pts")
    }
}
