//! The needle chart: survival by needle kind and strategy, with the upper bound.
//!
//! Needle survival: per strategy a group of horizontal bars, one per needle kind and a dark one for every kind
//! together, with the upper bound (the most any allocation could keep) marked by a black tick across the group.
//! A strategy that broke the budget in some turn is never drawn as a winner: its bars are hollow and grey, its
//! name says "over budget", and it comes after every strategy that kept the budget, however much it kept.

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::data::{ratio, rows_of};
use super::draw::axis::ScaleCoord;
use super::draw::legend::{self, Entry, Swatch};
use super::draw::style::{self, number, SMALL, TICK};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Plot, Run};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// Needle survival of one strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct NeedleRow {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Survival per kind (0..1), in the order of [`NeedleSurvival::kinds`]; `None` where none were planted.
    pub by_kind: Vec<Option<f64>>,
    /// Survival of every kind together (0..1); `None` when no needle was planted.
    pub all: Option<f64>,
    /// The most any allocation of the same budgets could keep (0..1); `None` when no needle was planted.
    pub upper_bound: Option<f64>,
    /// Broke the budget in some turn of some row: what it kept was bought with room it did not have.
    pub over_budget: bool,
}

/// The needle chart's data, pooled over every scenario and budget.
#[derive(Debug, Clone, PartialEq)]
pub struct NeedleSurvival {
    /// The needle kinds planted anywhere in the run.
    pub kinds: Vec<String>,
    /// One row per strategy, in run order.
    pub rows: Vec<NeedleRow>,
    /// Needles planted per strategy.
    pub planted: u64,
}

impl NeedleSurvival {
    /// The rows in the order the chart draws them: those that kept the budget in run order, then those over
    /// budget in run order, so that a strategy over budget is never first.
    pub fn drawn(&self) -> Vec<&NeedleRow> {
        let (kept, over): (Vec<&NeedleRow>, Vec<&NeedleRow>) =
            self.rows.iter().partition(|r| !r.over_budget);
        kept.into_iter().chain(over).collect()
    }
}

/// Needle survival by kind and strategy, pooled over every row.
pub fn needle_survival(results: &RunResults) -> NeedleSurvival {
    let mut kinds: Vec<String> = results
        .rows
        .iter()
        .flat_map(|r| r.needles.by_kind.keys().cloned())
        .collect();
    kinds.sort();
    kinds.dedup();
    let mut planted_max = 0;
    let rows = results
        .inputs
        .strategies
        .iter()
        .map(|strategy| {
            let mut by_kind: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
            let (mut planted, mut bound) = (0u64, 0.0f64);
            let mut over_budget = false;
            for r in rows_of(results, strategy) {
                over_budget |= r.compliance.violations > 0;
                let row_planted: u64 = r.needles.by_kind.values().map(|k| k.planted).sum();
                planted += row_planted;
                bound += r.needles.upper_bound.unwrap_or(0.0) * row_planted as f64;
                for (kind, k) in &r.needles.by_kind {
                    let e = by_kind.entry(kind).or_default();
                    e.0 += k.survived;
                    e.1 += k.planted;
                }
            }
            planted_max = planted_max.max(planted);
            let survived: u64 = by_kind.values().map(|(s, _)| s).sum();
            NeedleRow {
                strategy: strategy.clone(),
                by_kind: kinds
                    .iter()
                    .map(|k| {
                        by_kind
                            .get(k.as_str())
                            .and_then(|&(s, p)| ratio(s as f64, p as f64))
                    })
                    .collect(),
                all: ratio(survived as f64, planted as f64),
                upper_bound: ratio(bound, planted as f64),
                over_budget,
            }
        })
        .collect();
    NeedleSurvival {
        kinds,
        rows,
        planted: planted_max,
    }
}

/// The chart.
struct Bars<'a>(&'a NeedleSurvival);

const BAR: u32 = 9;
const GAP: u32 = 16;
const NUMBERS: i32 = 130;
const ALL: RGBColor = RGBColor(60, 60, 60);
/// Grey of the bars of a strategy over budget (drawn hollow).
const OVER: RGBColor = RGBColor(150, 150, 150);

/// A strategy's name on the chart: marked when it broke the budget.
fn row_name(r: &NeedleRow) -> String {
    if r.over_budget {
        format!("{} (over budget)", r.strategy)
    } else {
        r.strategy.to_string()
    }
}

impl Bars<'_> {
    fn entries(&self) -> Vec<Entry> {
        let mut entries: Vec<Entry> = self
            .0
            .kinds
            .iter()
            .enumerate()
            .map(|(i, k)| Entry {
                label: k.clone(),
                swatch: Swatch::Box(style::palette(i)),
            })
            .collect();
        entries.push(Entry {
            label: "all kinds".into(),
            swatch: Swatch::Box(ALL),
        });
        entries.push(Entry {
            label: "upper bound (all kinds)".into(),
            swatch: Swatch::Tick(BLACK),
        });
        if self.0.rows.iter().any(|r| r.over_budget) {
            entries.push(Entry {
                label: "hollow grey: over budget in some turn, not ranked".into(),
                swatch: Swatch::Hollow(OVER),
            });
        }
        entries
    }

    fn bars(&self) -> u32 {
        self.0.kinds.len() as u32 + 1
    }

    fn label_width(&self) -> u32 {
        let names: Vec<String> = self.0.rows.iter().map(row_name).collect();
        style::label_width(names.iter().map(String::as_str), TICK, 50)
    }
}

impl Figure for Bars<'_> {
    fn size(&self) -> (u32, u32) {
        let row = self.bars() * BAR + GAP;
        let h = self.0.rows.len() as u32 * row + 140;
        let entries = self.entries();
        (
            1000 + legend::width(&entries) + 40,
            h.max(legend::height(&entries) + 120) + 50,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        let data = self.0;
        let entries = self.entries();
        let (plot, side) =
            area.split_horizontally(area.dim_in_pixel().0 - legend::width(&entries) - 30);
        let drawn = data.drawn();
        let names: Vec<String> = drawn.iter().map(|r| row_name(r)).collect();
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .margin_right(NUMBERS)
            .x_label_area_size(64)
            .y_label_area_size(self.label_width())
            .build_cartesian_2d(
                ScaleCoord::linear(0.0, 100.0, 10.0, 5.0),
                ScaleCoord::categories(data.rows.len()),
            )?;
        style::mesh(&mut chart)
            .disable_y_mesh()
            .x_desc("needles still visible to the model (% of planted, every scenario and budget)")
            .y_desc("strategy")
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&|v| names.get(v.round() as usize).cloned().unwrap_or_default())
            .draw()?;
        let n = self.bars() as f64;
        let band = f64::from(self.bars() * BAR) / f64::from(self.bars() * BAR + GAP);
        let bar = band / n;
        let base = plot.get_base_pixel();
        let right = chart.plotting_area().get_pixel_range().0.end - base.0 + 12;
        plot.draw_text(
            "all / bound (%)",
            &style::anchored(SMALL, HPos::Left, VPos::Bottom, style::MUTED),
            (right, chart.backend_coord(&(0.0, -0.5)).1 - base.1 - 4),
        )?;
        for (i, r) in drawn.iter().enumerate() {
            let top = i as f64 - band / 2.0;
            let values = r
                .by_kind
                .iter()
                .enumerate()
                .map(|(k, v)| (style::palette(k), *v))
                .chain(std::iter::once((ALL, r.all)));
            for (k, (colour, value)) in values.enumerate() {
                let Some(value) = value else { continue };
                let y0 = top + k as f64 * bar;
                let look = if r.over_budget {
                    ShapeStyle::from(&OVER).stroke_width(1)
                } else {
                    colour.filled()
                };
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y0 + bar * 0.1), (value * 100.0, y0 + bar * 0.9)],
                    look,
                )))?;
            }
            if let Some(bound) = r.upper_bound {
                let bound = bound * 100.0;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(bound, top - 0.04), (bound, top + band + 0.04)],
                    ShapeStyle::from(&BLACK).stroke_width(4),
                )))?;
            }
            let whole = |v: Option<f64>| {
                v.map_or("–".to_string(), |v| format!("{:.0}", (v * 100.0).floor()))
            };
            let py = chart.backend_coord(&(0.0, i as f64)).1 - base.1;
            let ink = if r.over_budget {
                style::MUTED
            } else {
                style::INK
            };
            plot.draw_text(
                &format!("{} / {}", whole(r.all), whole(r.upper_bound)),
                &style::anchored(SMALL, HPos::Left, VPos::Center, ink),
                (right, py),
            )?;
        }
        legend::draw(&side.margin(20, 0, 10, 0), &entries)?;
        Ok(Marks::default())
    }
}

/// The chart of a run.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    Some(Plot::new(
        "Needle survival by kind",
        "Share of planted needles (exit lines, first errors, summary lines, JSON keys) the model can \
still see, over every scenario and budget. The black tick is the most any allocation of the same budgets could \
keep: compare it with the dark 'all kinds' bar. Bars at the tick cannot be improved by allocation alone. \
Strategies that broke the budget in some turn come last, in hollow grey bars marked 'over budget': what they kept \
was bought with room the budget did not give, so they are not ranked.",
        needle_survival(run.results),
        |data, title, format| draw::render(title, format, &Bars(data)),
    ))
}
