//! Charts of a run or a sweep: the [`ChartBackend`] trait (one method per chart, each taking a small context and
//! the chart's data from [`data`]), the plotters implementation in `plotters_backend/`, and the list of charts a
//! report folder gets, each drawn as SVG and PNG with a caption saying what to read from it.
//!
//! Text is drawn with the DejaVu Sans font shipped in `assets/fonts/`, so charts render the same on a machine
//! with no fonts installed.

pub mod data;
mod plotters_backend;

pub use plotters_backend::PlottersBackend;

use self::data::{
    ComplianceGrid, CostCurves, Curves, NeedleSurvival, Overshoot, PersistenceIo, RetentionCdf,
    TokenCompliance, UnitsPerToken,
};
use crate::error::Result;
use crate::run::RunResults;

/// An image format charts are drawn in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Scalable vector graphics (text as text).
    Svg,
    /// A PNG bitmap (text rasterised from the shipped font).
    Png,
}

impl Format {
    /// Both formats, in the order files are written.
    pub const ALL: [Format; 2] = [Format::Svg, Format::Png];

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
        }
    }
}

/// What every chart is drawn with besides its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartContext {
    /// The title drawn at the top.
    pub title: String,
    /// The format to draw in.
    pub format: Format,
}

/// Draws the charts. Each method returns the bytes of one image file; none does I/O.
pub trait ChartBackend {
    /// Share of turns within budget by strategy (rows) and scenario (columns).
    fn compliance(&self, ctx: &ChartContext, data: &ComplianceGrid) -> Result<Vec<u8>>;

    /// How far over-budget turns went over, by strategy.
    fn overshoot(&self, ctx: &ChartContext, data: &Overshoot) -> Result<Vec<u8>>;

    /// The distribution (CDF) of the kept share per field, one line per strategy.
    fn retention_cdf(&self, ctx: &ChartContext, data: &RetentionCdf) -> Result<Vec<u8>>;

    /// Needle survival by needle kind and strategy, with the upper bound marked.
    fn needle_survival(&self, ctx: &ChartContext, data: &NeedleSurvival) -> Result<Vec<u8>>;

    /// Artifact writes and bytes per turn by strategy.
    fn persistence(&self, ctx: &ChartContext, data: &PersistenceIo) -> Result<Vec<u8>>;

    /// Metrics against budget (or a swept parameter), one line per strategy.
    fn budget_curves(&self, ctx: &ChartContext, data: &Curves) -> Result<Vec<u8>>;

    /// Median cost per turn against batch size, one line per strategy.
    fn cost(&self, ctx: &ChartContext, data: &CostCurves) -> Result<Vec<u8>>;

    /// UTF-16 units per token by kind of output, one box per kind and tokenizer.
    fn units_per_token(&self, ctx: &ChartContext, data: &UnitsPerToken) -> Result<Vec<u8>>;

    /// Compliance in tokens beside compliance in units, by strategy.
    fn token_compliance(&self, ctx: &ChartContext, data: &TokenCompliance) -> Result<Vec<u8>>;
    /// Bars of several series side by side in groups (a profile's shape features, one bar per source).
    fn grouped_bars(&self, ctx: &ChartContext, data: &GroupedBars) -> Result<Vec<u8>>;
}

/// The data of [`ChartBackend::grouped_bars`].
#[derive(Debug, Clone, PartialEq)]
pub struct GroupedBars {
    /// The groups, top to bottom.
    pub groups: Vec<String>,
    /// The series: one bar of each in every group, in legend order.
    pub series: Vec<String>,
    /// `values[group][series]` in percent; `None` where a series has nothing to measure (no bar, `-` written).
    pub values: Vec<Vec<Option<f64>>>,
    /// The label of the value axis.
    pub x_label: String,
}

/// The data of one chart, before it is drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum ChartData {
    /// See [`ChartBackend::compliance`].
    Compliance(ComplianceGrid),
    /// See [`ChartBackend::overshoot`].
    Overshoot(Overshoot),
    /// See [`ChartBackend::retention_cdf`].
    RetentionCdf(RetentionCdf),
    /// See [`ChartBackend::needle_survival`].
    NeedleSurvival(NeedleSurvival),
    /// See [`ChartBackend::persistence`].
    Persistence(PersistenceIo),
    /// See [`ChartBackend::budget_curves`].
    BudgetCurves(Curves),
    /// See [`ChartBackend::cost`].
    Cost(CostCurves),
    /// See [`ChartBackend::units_per_token`].
    UnitsPerToken(UnitsPerToken),
    /// See [`ChartBackend::token_compliance`].
    TokenCompliance(TokenCompliance),
    /// See [`ChartBackend::grouped_bars`].
    GroupedBars(GroupedBars),
}

/// A chart to draw: its file stem, title, caption and data.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSpec {
    /// The file name without extension (`compliance` gives `charts/compliance.svg` and `.png`).
    pub stem: String,
    /// The title drawn on the chart and shown on the page.
    pub title: String,
    /// What to read from it, shown under it on the page.
    pub caption: String,
    /// The data.
    pub data: ChartData,
}

impl ChartSpec {
    /// Draws the chart in `format` with `backend`.
    pub fn draw(&self, backend: &dyn ChartBackend, format: Format) -> Result<Vec<u8>> {
        let ctx = ChartContext {
            title: self.title.clone(),
            format,
        };
        match &self.data {
            ChartData::Compliance(d) => backend.compliance(&ctx, d),
            ChartData::Overshoot(d) => backend.overshoot(&ctx, d),
            ChartData::RetentionCdf(d) => backend.retention_cdf(&ctx, d),
            ChartData::NeedleSurvival(d) => backend.needle_survival(&ctx, d),
            ChartData::Persistence(d) => backend.persistence(&ctx, d),
            ChartData::BudgetCurves(d) => backend.budget_curves(&ctx, d),
            ChartData::Cost(d) => backend.cost(&ctx, d),
            ChartData::UnitsPerToken(d) => backend.units_per_token(&ctx, d),
            ChartData::TokenCompliance(d) => backend.token_compliance(&ctx, d),
            ChartData::GroupedBars(d) => backend.grouped_bars(&ctx, d),
        }
    }
}

/// A drawn chart: its spec and the image of each format.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// What was drawn.
    pub spec: ChartSpec,
    /// The SVG file.
    pub svg: Vec<u8>,
    /// The PNG file.
    pub png: Vec<u8>,
}

impl Rendered {
    /// The path of the chart's file of `format`, relative to the report folder.
    pub fn path(&self, format: Format) -> String {
        chart_path(&self.spec.stem, format)
    }

    /// The (relative path, bytes) of both files.
    pub fn files(&self) -> [(String, &[u8]); 2] {
        [
            (self.path(Format::Svg), &self.svg),
            (self.path(Format::Png), &self.png),
        ]
    }
}

/// The folder of a report that charts are written to.
pub const CHART_DIR: &str = "charts";

/// The relative path of chart `stem` in `format`.
pub fn chart_path(stem: &str, format: Format) -> String {
    format!("{CHART_DIR}/{stem}.{}", format.extension())
}

/// Draws every spec in both formats, in parallel.
pub fn render(specs: Vec<ChartSpec>, backend: &(dyn ChartBackend + Sync)) -> Result<Vec<Rendered>> {
    use rayon::prelude::*;
    specs
        .into_par_iter()
        .map(|spec| {
            Ok(Rendered {
                svg: spec.draw(backend, Format::Svg)?,
                png: spec.draw(backend, Format::Png)?,
                spec,
            })
        })
        .collect()
}

/// The charts of a run, in page order. Charts that need the tallies of single turns (cost against batch size) are
/// left out without them; the overshoot and retention charts then fall back on the rows' figures.
pub fn run_charts(results: &RunResults, turns: Option<&data::TurnTallies>) -> Vec<ChartSpec> {
    let per_turn = turns.is_some_and(|t| t.turns() > 0);
    let mut specs = vec![
        ChartSpec {
            stem: "compliance".into(),
            title: "Budget compliance by strategy and scenario".into(),
            caption: "Each cell is the share of turns whose model request fits the budget, over all budgets of \
the scenario. Blue is good: anything below 100% means the model saw more than the budget allows. Strategies that \
cap the batch should be 100% everywhere; per-result policies miss where many results arrive together."
                .into(),
            data: ChartData::Compliance(data::compliance_grid(results)),
        },
        ChartSpec {
            stem: "overshoot".into(),
            title: "Overshoot of over-budget turns".into(),
            caption: if per_turn {
                "How far the turns that broke the budget went over it, in percent of the budget (log scale): the \
box spans the middle half of those turns, the bar inside is the median and the whiskers reach the smallest and \
largest. The count on the right is how many turns were over. No box means never over budget."
            } else {
                "How far rows that broke the budget went over it, in percent of the budget (log scale), from each \
row's 99th percentile and maximum overshoot (batches.jsonl was not available for single turns). No box means \
never over budget."
            }
            .into(),
            data: ChartData::Overshoot(data::overshoot(results, turns)),
        },
        ChartSpec {
            stem: "retention-cdf".into(),
            title: "Retention: how much of each output the model still sees".into(),
            caption: if per_turn {
                "Cumulative distribution of the mean kept share per field over the turns whose output was over \
budget. A line further right (and lower) keeps more: where a line reaches 50%, half of the turns kept at most that \
share. The wide black line is the reference; a line drawn on top of it keeps the same."
            } else {
                "Cumulative distribution of each row's mean kept share per field (batches.jsonl was not available \
for single turns). A line further right keeps more; the black line is the reference."
            }
            .into(),
            data: ChartData::RetentionCdf(data::retention_cdf(results, turns)),
        },
        ChartSpec {
            stem: "needles".into(),
            title: "Needle survival by kind".into(),
            caption: "Share of planted needles (exit lines, first errors, summary lines, JSON keys) the model can \
still see, over every scenario and budget. The black tick is the most any allocation of the same budgets could \
keep: compare it with the dark 'all kinds' bar. Bars at the tick cannot be improved by allocation alone."
                .into(),
            data: ChartData::NeedleSurvival(data::needle_survival(results)),
        },
        ChartSpec {
            stem: "persistence".into(),
            title: "Persistence: artifact writes and bytes per turn".into(),
            caption: "What each strategy writes to disk per turn, over every scenario and budget. Duplicate \
writes (the same output written twice in a turn) and failed writes are stacked after first writes; fewer writes \
and bytes for the same retention is better, and duplicate writes should be zero."
                .into(),
            data: ChartData::Persistence(data::persistence_io(results)),
        },
    ];
    if let Some((scenario, curves)) = data::budget_curves(results) {
        specs.push(ChartSpec {
            stem: "budget-curves".into(),
            title: format!("Retention and needle survival against budget ({scenario})"),
            caption: format!(
                "Mean kept share per field (left) and needle survival (right) at each budget {scenario} ran at \
(log scale), one line per strategy; the dashed grey line is the needle upper bound. Lines that rise earlier do \
more with less budget. For a finer curve run `budgetlab sweep --scenario {scenario}`."
            ),
            data: ChartData::BudgetCurves(curves),
        });
    }
    if let Some(cost) = data::cost_curves(results, turns) {
        specs.push(ChartSpec {
            stem: "cost".into(),
            title: "Cost per turn against batch size".into(),
            caption: "Median wall-clock time of a simulated turn (finalizer and runtime boundaries) for turns of \
each size, binned by powers of two of the producers' output (log-log). A line that climbs steeper than the others \
scales worse with batch size. These are the only figures that differ between runs."
                .into(),
            data: ChartData::Cost(cost),
        });
    }
    if let Some(upt) = data::units_per_token(results, turns) {
        let of = if upt.per_turn {
            "one turn's output of the kind (the reference strategy's turns)"
        } else {
            "each row's output of the kind (batches.jsonl was not available for single turns)"
        };
        specs.push(ChartSpec {
            stem: "units-per-token".into(),
            title: "UTF-16 units per token by kind of output".into(),
            caption: format!(
                "How many UTF-16 units make one token of what the model receives, for {of}: the box spans the middle half, the bar inside is the median, the whiskers reach the smallest and largest. Every budget here is in units, but the model's window is in tokens: left of the dashed line (the 3 units per token the window-relative rule assumes) a character budget lets more tokens through than it was sized for. CJK text sits near 1 to 2, English logs and code near 4."
            ),
            data: ChartData::UnitsPerToken(upt),
        });
    }
    if let Some(tc) = data::token_compliance(results) {
        specs.push(ChartSpec {
            stem: "token-compliance".into(),
            title: format!("Compliance in units and in tokens (token budget {})", tc.budget),
            caption: "For each strategy, the share of turns whose model request fits the budget in UTF-16 units (grey) beside the share that fits the token budget (colour), over the same rows (those with a token budget: a percentage applies to window budgets only). A strategy can be at 100% in units and far below in tokens: its budget counts characters, and text of few units per token (CJK, dense JSON) carries more tokens than the budget assumed."
                .into(),
            data: ChartData::TokenCompliance(tc),
        });
    }
    specs
}

/// The charts of a sweep: retention, needle survival, compliance and writes against the swept parameter, one
/// line per strategy (per budget for head shares).
pub fn sweep_charts(sweep: &crate::sweep::SweepResults) -> Vec<ChartSpec> {
    use crate::metrics::Metric;
    use crate::sweep::SweepAxis;
    use data::{Axis, CurvePoint, Lines, Scale, SWEEP_METRICS};

    let points: Vec<CurvePoint<'_>> = sweep
        .points
        .iter()
        .flat_map(|p| p.rows.iter().map(move |row| CurvePoint { x: p.value, row }))
        .filter(|p| sweep.axis == SweepAxis::HeadShare || p.x > 0.0)
        .collect();
    let scale = match sweep.axis {
        SweepAxis::HeadShare => Scale::Linear,
        SweepAxis::Budget | SweepAxis::Window => Scale::Log,
    };
    let x = Axis::new(sweep.axis.axis_label(), scale);
    let budgets: Vec<_> = sweep.scenario.budgets.iter().map(|b| b.label).collect();
    let lines = match sweep.axis {
        SweepAxis::HeadShare => Lines::Budgets(&budgets),
        SweepAxis::Budget | SweepAxis::Window => Lines::Strategies(&sweep.strategies),
    };
    let one_line = match sweep.axis {
        SweepAxis::HeadShare => "one line per budget",
        SweepAxis::Budget | SweepAxis::Window => "one line per strategy",
    };
    let against = match sweep.axis {
        SweepAxis::Budget => "budget",
        SweepAxis::Window => "context window",
        SweepAxis::HeadShare => "head share",
    };
    let batches = format!(
        "{} {} of {} at {} values, {one_line}.",
        sweep.scenario.batches,
        if sweep.scenario.batches == 1 {
            "batch"
        } else {
            "batches"
        },
        sweep.scenario.name,
        sweep.points.len()
    );
    let token_compliance = data::token_compliance_curves(&points, lines, &x).map(|curves| {
        let budget = sweep
            .tokens
            .as_ref()
            .and_then(|t| t.token_budget)
            .map_or_else(String::new, |b| format!(" (token budget {b})"));
        ChartSpec {
            stem: "sweep-token-compliance".into(),
            title: format!(
                "Compliance in units and in tokens against {against}{budget} ({})",
                sweep.scenario.name
            ),
            caption: format!(
                "Share of turns whose model request fits the budget in UTF-16 units (left) and the token budget \
(right), counted with {}. A strategy at 100% on the left and lower on the right fits its character budget but \
sends the model more tokens than the token budget allows: its text carries fewer units per token than the budget \
assumed. {batches}",
                sweep.tokens.as_ref().map_or("the tokenizer", |t| t.tokenizer.as_str())
            ),
            data: ChartData::BudgetCurves(curves),
        }
    });
    let mut specs: Vec<ChartSpec> = SWEEP_METRICS
        .into_iter()
        .map(|metric| {
            let read = match metric {
                Metric::Retention => {
                    "Mean share of each output field the model still sees. Higher is better; where the lines \
flatten, more budget buys little."
                }
                Metric::Needles => {
                    "Share of planted needles (exit lines, first errors, summary lines, JSON keys) still visible. \
The dashed grey line, where shown, is the most any allocation of the same budget could keep."
                }
                Metric::Compliance => {
                    "Share of turns whose model request fits the budget. Anything below 100% means the model \
was sent more than the budget allows."
                }
                Metric::Writes => {
                    "Artifact writes per turn. Writes buy recoverability of what was cut; more writes for the same \
retention is wasted I/O."
                }
                Metric::Cost => {
                    "The strategy's time over the floor's. Lower is cheaper; it differs between runs."
                }
                Metric::Time => {
                    "Median time per batch. Lower is faster; it differs between runs and with load."
                }
            };
            ChartSpec {
                stem: format!("sweep-{}", metric.name()),
                title: format!(
                    "{} against {against} ({})",
                    metric.title(),
                    sweep.scenario.name
                ),
                caption: format!(
                    "{read} {} {} of {} at {} values, {one_line}.",
                    sweep.scenario.batches,
                    if sweep.scenario.batches == 1 { "batch" } else { "batches" },
                    sweep.scenario.name,
                    sweep.points.len()
                ),
                data: ChartData::BudgetCurves(data::curve_panels(
                    &points,
                    lines,
                    &x,
                    &[metric],
                    sweep.axis != SweepAxis::HeadShare,
                )),
            }
        })
        .collect();
    specs.extend(token_compliance);
    specs
}
