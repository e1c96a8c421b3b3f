//! The token-compliance chart (runs given `--tokenizer` and `--token-budget`): for each strategy, the share of
//! turns within the budget in UTF-16 units beside the share within the token budget, over the same rows.
//!
//! Token compliance beside unit compliance: two horizontal bars per strategy, the share of turns within the
//! budget in UTF-16 units and the share within the token budget, over the rows that have a token budget.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::axis::ScaleCoord;
use super::draw::legend::{self, Entry, Swatch};
use super::draw::style::{self, SMALL, TICK};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Plot, Run};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// One strategy's two compliance figures.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenComplianceRow {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Turns counted (of the rows with a token budget).
    pub turns: u64,
    /// Share of those turns within the budget in units (0..1).
    pub units: f64,
    /// Share of those turns within the token budget (0..1).
    pub tokens: f64,
}

/// The token-compliance chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenCompliance {
    /// The token budget as given (`10%`, `4000`).
    pub budget: String,
    /// One row per strategy with a token budget in some row, in run order.
    pub rows: Vec<TokenComplianceRow>,
}

/// Compliance in units and in tokens by strategy, pooled over the rows that have a token budget; `None` without
/// a token budget or without any such row.
pub fn token_compliance(results: &RunResults) -> Option<TokenCompliance> {
    let budget = results.inputs.tokens.as_ref()?.token_budget?;
    let rows: Vec<TokenComplianceRow> = results
        .inputs
        .strategies
        .iter()
        .filter_map(|strategy| {
            let (mut turns, mut units_ok, mut tokens_ok) = (0u64, 0u64, 0u64);
            for row in results.rows.iter().filter(|r| r.strategy == *strategy) {
                let Some(c) = row.tokens.as_ref().and_then(|t| t.compliance.as_ref()) else {
                    continue;
                };
                turns += row.batches;
                units_ok += row.batches - row.compliance.violations;
                tokens_ok += row.batches - c.violations;
            }
            (turns > 0).then(|| TokenComplianceRow {
                strategy: strategy.clone(),
                turns,
                units: units_ok as f64 / turns as f64,
                tokens: tokens_ok as f64 / turns as f64,
            })
        })
        .collect();
    (!rows.is_empty()).then(|| TokenCompliance {
        budget: budget.to_string(),
        rows,
    })
}

/// The chart.
struct Bars<'a>(&'a TokenCompliance);

const ROW: u32 = 44;
const UNITS: RGBColor = RGBColor(150, 150, 150);

impl Bars<'_> {
    fn entries(&self) -> Vec<Entry> {
        vec![
            Entry {
                label: "within the budget in UTF-16 units".into(),
                swatch: Swatch::Box(UNITS),
            },
            Entry {
                label: format!("within the token budget ({})", self.0.budget),
                swatch: Swatch::Box(style::palette(0)),
            },
        ]
    }
}

impl Figure for Bars<'_> {
    fn size(&self) -> (u32, u32) {
        let entries = self.entries();
        let h = self.0.rows.len() as u32 * ROW + 140;
        (
            1000 + legend::width(&entries) + 40,
            h.max(legend::height(&entries) + 120) + 50,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        let rows = &self.0.rows;
        let entries = self.entries();
        let legend_w = legend::width(&entries) + 30;
        let (plot, side) = area.split_horizontally(area.dim_in_pixel().0 - legend_w);
        let names: Vec<String> = rows.iter().map(|r| r.strategy.to_string()).collect();
        let label_w = style::label_width(names.iter().map(String::as_str), TICK, 50);
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .margin_right(70)
            .x_label_area_size(64)
            .y_label_area_size(label_w)
            .build_cartesian_2d(
                ScaleCoord::linear(0.0, 100.0, 20.0, 10.0),
                ScaleCoord::categories(rows.len()),
            )?;
        style::mesh(&mut chart)
            .disable_y_mesh()
            .x_desc("turns within budget (%)")
            .y_desc("strategy")
            .x_label_formatter(&|v| format!("{v:.0}%"))
            .y_label_formatter(&|v| names.get(v.round() as usize).cloned().unwrap_or_default())
            .draw()?;
        let base = plot.get_base_pixel();
        for (i, r) in rows.iter().enumerate() {
            let y = i as f64;
            for (value, colour, lo, hi) in [
                (r.units, UNITS, y - 0.38, y - 0.02),
                (r.tokens, style::palette(0), y + 0.02, y + 0.38),
            ] {
                let pct = value * 100.0;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(0.0, lo), (pct, hi)],
                    colour.filled(),
                )))?;
                let (px, py) = chart.backend_coord(&(pct, (lo + hi) / 2.0));
                plot.draw_text(
                    &format!("{pct:.0}%"),
                    &style::anchored(SMALL, HPos::Left, VPos::Center, style::INK),
                    (px - base.0 + 6, py - base.1),
                )?;
            }
        }
        legend::draw(&side.margin(20, 0, 10, 0), &entries)?;
        Ok(Marks::default())
    }
}

/// The chart of a run given a tokenizer and a token budget.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    let tc = token_compliance(run.results)?;
    Some(Plot::new(
        format!("Compliance in units and in tokens (token budget {})", tc.budget),
        "For each strategy, the share of turns whose model request fits the budget in UTF-16 units (grey) beside the share that fits the token budget (colour), over the same rows (those with a token budget: a percentage applies to window budgets only). A strategy can be at 100% in units and far below in tokens: its budget counts characters, and text of few units per token (CJK, dense JSON) carries more tokens than the budget assumed.",
        tc,
        |data, title, format| draw::render(title, format, &Bars(data)),
    ))
}
