//! The charts of a sweep: retention, needle survival, compliance and writes against the swept parameter (one
//! chart a metric), and compliance in units beside compliance in tokens when the sweep counted tokens; one line
//! per strategy (per budget for head shares), drawn as the run's budget curves are.

use super::curves::{curve_panels, draw_grid, token_compliance_curves, CurvePoint, Lines};
use super::data::{Axis, Scale};
use super::Plot;
use crate::metrics::Metric;
use crate::sweep::{SweepAxis, SweepResults};

/// What every chart of a sweep is drawn against, and the words its captions share.
struct Against<'a> {
    points: Vec<CurvePoint<'a>>,
    x: Axis,
    budgets: Vec<crate::scenario::BudgetLabel>,
    /// What the swept parameter is called in a title.
    name: &'static str,
    /// The last sentence of a caption: the batches, the scenario, the values and the lines.
    batches: String,
}

impl<'a> Against<'a> {
    fn of(sweep: &'a SweepResults) -> Against<'a> {
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
        let one_line = match sweep.axis {
            SweepAxis::HeadShare => "one line per budget",
            SweepAxis::Budget | SweepAxis::Window => "one line per strategy",
        };
        let name = match sweep.axis {
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
        Against {
            points,
            x: Axis::new(sweep.axis.axis_label(), scale),
            budgets: sweep.scenario.budgets.iter().map(|b| b.label).collect(),
            name,
            batches,
        }
    }

    fn lines<'b>(&'b self, sweep: &'b SweepResults) -> Lines<'b> {
        match sweep.axis {
            SweepAxis::HeadShare => Lines::Budgets(&self.budgets),
            SweepAxis::Budget | SweepAxis::Window => Lines::Strategies(&sweep.strategies),
        }
    }
}

/// The chart of `metric` against the swept parameter.
pub(super) fn metric(sweep: &SweepResults, metric: Metric) -> Option<Plot> {
    let against = Against::of(sweep);
    let read = match metric {
        Metric::Retention => "Mean share of each output field the model still sees. Higher is better; where the lines \
flatten, more budget buys little.".to_string(),
        Metric::Needles => "Share of planted needles (exit lines, first errors, summary lines, JSON keys) still visible. \
The dashed grey line, where shown, is the most any allocation of the same budget could keep."
            .to_string(),
        Metric::Compliance => "Share of turns whose model request fits the budget. Anything below 100% means the model \
was sent more than the budget allows."
            .to_string(),
        Metric::Count(_) => format!(
            "{} per turn. {}",
            metric.title(),
            metric.figure().and_then(|f| f.gate).map_or("", |g| g.read)
        ),
        Metric::Cost => {
            "The strategy's time over the floor's. Lower is cheaper; it differs between runs.".to_string()
        }
        Metric::Time => {
            "Median time per batch. Lower is faster; it differs between runs and with load.".to_string()
        }
    };
    Some(Plot::new(
        format!(
            "{} against {} ({})",
            metric.title(),
            against.name,
            sweep.scenario.name
        ),
        format!("{read} {}", against.batches),
        curve_panels(
            &against.points,
            against.lines(sweep),
            &against.x,
            &[metric],
            sweep.axis != SweepAxis::HeadShare,
        ),
        draw_grid,
    ))
}

/// Compliance in units beside compliance in tokens against the swept parameter, when the sweep counted tokens.
pub(super) fn token_compliance(sweep: &SweepResults) -> Option<Plot> {
    let against = Against::of(sweep);
    let curves = token_compliance_curves(&against.points, against.lines(sweep), &against.x)?;
    let budget = sweep
        .tokens
        .as_ref()
        .and_then(|t| t.token_budget)
        .map_or_else(String::new, |b| format!(" (token budget {b})"));
    Some(Plot::new(
        format!(
            "Compliance in units and in tokens against {}{budget} ({})",
            against.name, sweep.scenario.name
        ),
        format!(
            "Share of turns whose model request fits the budget in UTF-16 units (left) and the token budget \
(right), counted with {}. A strategy at 100% on the left and lower on the right fits its character budget but \
sends the model more tokens than the token budget allows: its text carries fewer units per token than the budget \
assumed. {}",
            sweep.tokens.as_ref().map_or("the tokenizer", |t| t.tokenizer.as_str()),
            against.batches
        ),
        curves,
        draw_grid,
    ))
}
