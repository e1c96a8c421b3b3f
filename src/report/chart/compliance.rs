//! The compliance chart: the share of turns within budget by strategy and scenario.
//!
//! Compliance as a heat map: strategies down, scenarios across, each cell coloured by the share of turns within
//! budget and labelled with it, and a colour bar as the legend.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::data::{ratio, rows_of};
use super::draw::heatmap::{self, ColourBar};
use super::draw::style::{self, AXIS, TICK};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Plot, Run};
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

/// The chart.
struct Heatmap<'a>(&'a ComplianceGrid);

const CELL_W: i32 = 100;
const CELL_H: i32 = 32;
const HEADER_LINE: i32 = 20;
const BAR_AREA: i32 = 230;

/// A percentage for a cell: never rounded up to 100.
fn cell_text(rate: f64) -> String {
    let pct = rate * 100.0;
    if rate >= 1.0 {
        "100".into()
    } else if pct >= 99.0 {
        format!("{:.1}", (pct * 10.0).floor() / 10.0)
    } else {
        format!("{:.0}", pct.floor())
    }
}

/// A scenario name broken at hyphens into lines of at most 11 characters where possible.
fn header_lines(name: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for part in name.split_inclusive('-') {
        match lines.last_mut() {
            Some(last) if last.chars().count() + part.chars().count() <= 11 => last.push_str(part),
            _ => lines.push(part.to_string()),
        }
    }
    lines
}

impl Heatmap<'_> {
    fn label_width(&self) -> i32 {
        style::label_width(self.0.strategies.iter().map(StrategyKey::as_str), TICK, 24).max(90)
            as i32
    }

    fn header_height(&self) -> i32 {
        let lines = self
            .0
            .scenarios
            .iter()
            .map(|s| header_lines(s).len())
            .max()
            .unwrap_or(1) as i32;
        36 + lines * HEADER_LINE + 8
    }
}

impl Figure for Heatmap<'_> {
    fn size(&self) -> (u32, u32) {
        let w = self.label_width() + self.0.scenarios.len() as i32 * CELL_W + BAR_AREA + 30;
        let h = self.header_height() + self.0.strategies.len() as i32 * CELL_H + 30;
        (w.max(700) as u32, h.max(420) as u32 + 50)
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        let grid = self.0;
        let left = self.label_width();
        let top = self.header_height();
        let right = left + grid.scenarios.len() as i32 * CELL_W;
        let bottom = top + grid.strategies.len() as i32 * CELL_H;
        let tick = |h, v| style::anchored(TICK, h, v, style::INK);

        // Axis descriptions.
        area.draw_text(
            "scenario (every budget of the scenario pooled)",
            &style::anchored(AXIS, HPos::Center, VPos::Top, style::INK),
            ((left + right) / 2, 4),
        )?;
        area.draw_text(
            "strategy",
            &style::anchored(AXIS, HPos::Right, VPos::Bottom, style::INK),
            (left - 10, top - 6),
        )?;
        // Column headers.
        for (j, name) in grid.scenarios.iter().enumerate() {
            let x = left + j as i32 * CELL_W + CELL_W / 2;
            let lines = header_lines(name);
            let first = top - 6 - lines.len() as i32 * HEADER_LINE;
            for (k, line) in lines.iter().enumerate() {
                area.draw_text(
                    line,
                    &tick(HPos::Center, VPos::Top),
                    (x, first + k as i32 * HEADER_LINE),
                )?;
            }
        }
        // Rows.
        for (i, (strategy, rates)) in grid.strategies.iter().zip(&grid.rates).enumerate() {
            let y = top + i as i32 * CELL_H;
            area.draw_text(
                strategy,
                &tick(HPos::Right, VPos::Center),
                (left - 10, y + CELL_H / 2),
            )?;
            for (j, rate) in rates.iter().enumerate() {
                let x = left + j as i32 * CELL_W;
                let (fill, label) = match rate {
                    Some(r) => (style::rate_colour(*r), cell_text(*r)),
                    None => (RGBColor(235, 235, 235), "–".to_string()),
                };
                heatmap::cell(area, (x, y), (CELL_W, CELL_H), (fill, false), &label)?;
            }
        }
        // Cell borders.
        for i in 0..=grid.strategies.len() as i32 {
            let y = top + i * CELL_H;
            area.draw(&PathElement::new(vec![(left, y), (right, y)], WHITE))?;
        }
        for j in 0..=grid.scenarios.len() as i32 {
            let x = left + j * CELL_W;
            area.draw(&PathElement::new(vec![(x, top), (x, bottom)], WHITE))?;
        }
        // The colour bar.
        ColourBar {
            title: &["turns within", "budget (%)"],
            at: (right + 40, top + 12),
            height: (bottom - top).clamp(160, 320),
            colour: |k, last| style::rate_colour(1.0 - k / last),
            ticks: &[
                (1.0, "0"),
                (0.75, "25"),
                (0.5, "50"),
                (0.25, "75"),
                (0.0, "100"),
            ],
            note: "– : not run",
        }
        .draw(area)?;
        Ok(Marks::default())
    }
}

/// The chart of a run.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    Some(Plot::new(
        "Budget compliance by strategy and scenario",
        "Each cell is the share of turns whose model request fits the budget, over all budgets of \
the scenario. Blue is good: anything below 100% means the model saw more than the budget allows. Strategies that \
cap the batch should be 100% everywhere; per-result policies miss where many results arrive together.",
        compliance_grid(run.results),
        |grid, title, format| draw::render(title, format, &Heatmap(grid)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_never_round_up_to_100() {
        assert_eq!(cell_text(1.0), "100");
        assert_eq!(cell_text(0.9996), "99.9");
        assert_eq!(cell_text(0.995), "99.5");
        assert_eq!(cell_text(0.5), "50");
        assert_eq!(cell_text(0.0), "0");
    }

    #[test]
    fn long_scenario_names_break_at_hyphens() {
        assert_eq!(header_lines("one-giant"), vec!["one-giant"]);
        assert_eq!(
            header_lines("persist-failures"),
            vec!["persist-", "failures"]
        );
        assert_eq!(header_lines("surrogate-storm"), vec!["surrogate-", "storm"]);
    }
}
