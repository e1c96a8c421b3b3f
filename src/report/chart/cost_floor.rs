//! The cost-over-floor chart: the figure the gate checks for cost (`cost.floorRatio`, a strategy's time over the
//! floor's, measured side by side), for every row of the run.
//!
//! A heat map: the scenarios' budgets down (one row each, grouped by scenario), strategies across, each cell the
//! row's ratio as a number and a colour on a log scale (blue below 1, pale at 1, red above), `–` where the row
//! has no measured ratio or did not run, and a colour bar as the legend.

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::heatmap::{self, ColourBar};
use super::draw::style::{self, AXIS, TICK};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Plot, Run};
use crate::gate::default_tolerance;
use crate::metrics::{Metric, StrategyKey};
use crate::run::RunResults;
use crate::scenario::BudgetLabel;

/// Every row's time over the floor's: one line per scenario and budget, one column per strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct CostFloorGrid {
    /// The columns, in the run's order.
    pub strategies: Vec<StrategyKey>,
    /// The lines, scenario by scenario in the run's order, each scenario's budgets in its order.
    pub rows: Vec<CostFloorRow>,
}

/// One scenario and budget of a [`CostFloorGrid`].
#[derive(Debug, Clone, PartialEq)]
pub struct CostFloorRow {
    /// The scenario.
    pub scenario: String,
    /// The budget.
    pub budget: BudgetLabel,
    /// `ratios[j]`: the row's `cost.floorRatio` for strategy `j`; `None` where it was not measured (no turn had a
    /// measurable floor) or the row is not in the results.
    pub ratios: Vec<Option<f64>>,
}

/// The grid of a run: each cell the `cost.floorRatio` of its row, as the results hold it.
pub fn cost_floor_grid(results: &RunResults) -> CostFloorGrid {
    let strategies = results.inputs.strategies.clone();
    let by_key: BTreeMap<(&str, BudgetLabel, &StrategyKey), Option<f64>> = results
        .rows
        .iter()
        .map(|r| {
            (
                (r.scenario.as_str(), r.budget_label, &r.strategy),
                r.cost.floor_ratio,
            )
        })
        .collect();
    let rows = results
        .inputs
        .scenarios
        .iter()
        .flat_map(|scenario| {
            scenario.budgets.iter().map(|budget| CostFloorRow {
                scenario: scenario.name.clone(),
                budget: budget.label,
                ratios: strategies
                    .iter()
                    .map(|s| {
                        by_key
                            .get(&(scenario.name.as_str(), budget.label, s))
                            .copied()
                            .flatten()
                    })
                    .collect(),
            })
        })
        .collect();
    CostFloorGrid { strategies, rows }
}

/// The colour of a ratio: a diverging scale on its logarithm, dark blue at 1/8 or below, pale at 1, dark red at 8
/// or above (the ends of the RdYlBu scale, which colour-blind readers can tell apart).
fn ratio_colour(ratio: f64) -> RGBColor {
    const STOPS: [(f64, (f64, f64, f64)); 6] = [
        (-3.0, (49.0, 104.0, 170.0)),
        (-1.0, (171.0, 217.0, 233.0)),
        (0.0, (246.0, 246.0, 238.0)),
        (1.0, (254.0, 224.0, 144.0)),
        (2.0, (244.0, 109.0, 67.0)),
        (3.0, (165.0, 0.0, 38.0)),
    ];
    let t = ratio.max(f64::MIN_POSITIVE).log2().clamp(-3.0, 3.0);
    let i = STOPS.iter().position(|(s, _)| *s >= t).unwrap_or(5).max(1);
    let (s0, c0) = STOPS[i - 1];
    let (s1, c1) = STOPS[i];
    let f = (t - s0) / (s1 - s0);
    let mix = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    RGBColor(mix(c0.0, c1.0), mix(c0.1, c1.1), mix(c0.2, c1.2))
}

/// A ratio for a cell: two significant digits (`0.08`, `1.3`, `12`).
fn cell_text(ratio: f64) -> String {
    if ratio >= 9.95 {
        format!("{ratio:.0}")
    } else if ratio >= 0.995 {
        format!("{ratio:.1}")
    } else {
        format!("{ratio:.2}")
    }
}

/// The chart.
struct Heatmap<'a>(&'a CostFloorGrid);

const CELL_W: i32 = 52;
const CELL_H: i32 = 26;
/// Space between two scenarios' lines.
const GAP: i32 = 6;
const BAR_AREA: i32 = 250;

impl Heatmap<'_> {
    fn scenario_width(&self) -> i32 {
        style::label_width(self.0.rows.iter().map(|r| r.scenario.as_str()), TICK, 16) as i32
    }

    fn budget_width(&self) -> i32 {
        let labels: Vec<String> = self.0.rows.iter().map(|r| r.budget.to_string()).collect();
        style::label_width(labels.iter().map(String::as_str), TICK, 16).max(70) as i32
    }

    fn header_height(&self) -> i32 {
        style::label_width(self.0.strategies.iter().map(StrategyKey::as_str), TICK, 16) as i32 + 40
    }

    /// The top of each line, with a gap before each scenario but the first.
    fn tops(&self) -> Vec<i32> {
        let mut y = self.header_height();
        let mut out = Vec::with_capacity(self.0.rows.len());
        for (i, row) in self.0.rows.iter().enumerate() {
            if i > 0 && self.0.rows[i - 1].scenario != row.scenario {
                y += GAP;
            }
            out.push(y);
            y += CELL_H;
        }
        out
    }
}

impl Figure for Heatmap<'_> {
    fn size(&self) -> (u32, u32) {
        let w = self.scenario_width()
            + self.budget_width()
            + self.0.strategies.len() as i32 * CELL_W
            + BAR_AREA;
        let bottom = self
            .tops()
            .last()
            .map_or(self.header_height(), |y| y + CELL_H);
        (w.max(760) as u32, (bottom + 30).max(460) as u32 + 30)
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        let grid = self.0;
        let left = self.scenario_width() + self.budget_width();
        let top = self.header_height();
        let right = left + grid.strategies.len() as i32 * CELL_W;
        let tops = self.tops();
        let tick = |h, v| style::anchored(TICK, h, v, style::INK);

        // Axis descriptions.
        area.draw_text(
            "strategy",
            &style::anchored(AXIS, HPos::Center, VPos::Top, style::INK),
            ((left + right) / 2, 4),
        )?;
        area.draw_text(
            "scenario",
            &style::anchored(AXIS, HPos::Left, VPos::Bottom, style::INK),
            (0, top - 6),
        )?;
        area.draw_text(
            "budget",
            &style::anchored(AXIS, HPos::Left, VPos::Bottom, style::INK),
            (self.scenario_width(), top - 6),
        )?;
        // Column headers, read upwards.
        for (j, name) in grid.strategies.iter().enumerate() {
            let x = left + j as i32 * CELL_W + CELL_W / 2;
            area.draw_text(
                name.as_str(),
                &tick(HPos::Left, VPos::Center).transform(FontTransform::Rotate270),
                (x, top - 8),
            )?;
        }
        // Lines.
        for (i, (row, &y)) in grid.rows.iter().zip(&tops).enumerate() {
            if i == 0 || grid.rows[i - 1].scenario != row.scenario {
                area.draw_text(
                    &row.scenario,
                    &tick(HPos::Left, VPos::Center),
                    (0, y + CELL_H / 2),
                )?;
            }
            area.draw_text(
                &row.budget.to_string(),
                &tick(HPos::Left, VPos::Center),
                (self.scenario_width(), y + CELL_H / 2),
            )?;
            for (j, ratio) in row.ratios.iter().enumerate() {
                let x = left + j as i32 * CELL_W;
                let (fill, label) = match ratio {
                    Some(r) => (ratio_colour(*r), cell_text(*r)),
                    None => (RGBColor(225, 225, 225), "–".to_string()),
                };
                heatmap::cell(area, (x, y), (CELL_W, CELL_H), (fill, true), &label)?;
            }
        }
        // The colour bar, on the ratios' log scale.
        ColourBar {
            title: &["strategy time", "over the floor's", "(x, log scale)"],
            at: (right + 40, top + 12),
            height: 300,
            colour: |k, last| ratio_colour((3.0 - 6.0 * k / last).exp2()),
            ticks: &[
                (3.0, "8 or more"),
                (2.0, "4"),
                (1.0, "2"),
                (0.0, "1: the floor's time"),
                (-1.0, "0.5"),
                (-2.0, "0.25"),
                (-3.0, "0.125 or less"),
            ]
            .map(|(log2, label): (f64, &str)| ((3.0 - log2) / 6.0, label)),
            note: "– : not measured",
        }
        .draw(area)?;
        Ok(Marks::default())
    }
}

/// The chart of a run.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    let tolerance = default_tolerance(Metric::Cost).describe(Metric::Cost);
    Some(Plot::new(
        "Cost over the floor: the figure the gate checks",
        format!(
            "Each cell is a row's cost/floor (`cost.floorRatio`): the time the strategy spent in its own \
finalizations of a turn over the time the floor, the least work any exact finalizer must do, took on the same \
inputs, timed side by side and averaged over the middle half of the batches. 1 is the floor's time; red is \
slower, blue faster (below 1 a strategy does less than fitting the batch exactly takes, which only one that does \
not fit it can). `budgetlab check` compares every cell with the baseline's and fails a row whose ratio moves by \
more than the tolerance ({tolerance} by default, `--tolerance cost=...`); the tolerance is relative to the \
baseline, which a report does not hold, so no line is drawn for it. – : no ratio was measured (no turn had a \
measurable floor) or the row did not run. Unlike every other figure, it differs between runs."
        ),
        cost_floor_grid(run.results),
        |grid, title, format| draw::render(title, format, &Heatmap(grid)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_have_two_significant_digits() {
        assert_eq!(cell_text(0.0779), "0.08");
        assert_eq!(cell_text(0.9949), "0.99");
        assert_eq!(cell_text(0.996), "1.0");
        assert_eq!(cell_text(1.26), "1.3");
        assert_eq!(cell_text(9.248), "9.2");
        assert_eq!(cell_text(12.4), "12");
    }

    #[test]
    fn the_scale_is_pale_at_the_floor_and_dark_at_both_ends() {
        assert_eq!(ratio_colour(1.0), RGBColor(246, 246, 238));
        assert_eq!(ratio_colour(8.0), RGBColor(165, 0, 38));
        assert_eq!(ratio_colour(100.0), RGBColor(165, 0, 38));
        assert_eq!(ratio_colour(0.125), RGBColor(49, 104, 170));
        assert_eq!(ratio_colour(0.0), RGBColor(49, 104, 170));
        assert!(style::needs_light_text(ratio_colour(8.0)));
        assert!(!style::needs_light_text(ratio_colour(1.3)));
    }
}
