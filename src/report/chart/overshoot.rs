//! The overshoot chart: how far over-budget turns went over, by strategy.
//!
//! The overshoot distribution: one horizontal box plot per strategy of how far its over-budget turns went over,
//! in percent of the budget on a log axis, with the count of over-budget turns at the right.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::data::{rows_of, Spread, TurnTallies};
use super::draw::axis::ScaleCoord;
use super::draw::legend::{self, Entry, Swatch};
use super::draw::style::{self, number, Dash, StrategyStyle, SMALL, TICK};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Plot, Run};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// How far one strategy's over-budget turns went over.
#[derive(Debug, Clone, PartialEq)]
pub struct OvershootRow {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Turns run.
    pub turns: u64,
    /// Turns over budget.
    pub over: u64,
    /// The overshoot of the over-budget turns, in percent of the budget.
    pub spread: Option<Spread>,
}

/// The overshoot chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct Overshoot {
    /// One row per strategy, in run order.
    pub rows: Vec<OvershootRow>,
    /// Whether the spreads are of single turns (from `batches.jsonl`) or of rows' p99 and maximum.
    pub per_turn: bool,
}

/// Overshoot per strategy: from every over-budget turn when the run's `turns` were tallied, else from the rows'
/// 99th percentile and maximum. From turns, the quartiles are the tally's (see [`TurnTallies`]).
pub fn overshoot(results: &RunResults, turns: Option<&TurnTallies>) -> Overshoot {
    let turns = turns.filter(|t| t.turns() > 0);
    let per_turn = turns.is_some();
    let rows = results
        .inputs
        .strategies
        .iter()
        .map(|strategy| {
            let (turns, over, spread) = if let Some(tallies) = turns {
                tallies
                    .strategy(strategy)
                    .map_or((0, 0, None), |t| (t.turns, t.over, t.overshoot.spread()))
            } else {
                let mut values = Vec::new();
                let (mut turns, mut over) = (0, 0);
                for r in rows_of(results, strategy) {
                    turns += r.batches;
                    over += r.compliance.violations;
                    if let Some(budget) = r.budget.filter(|&b| b > 0 && r.compliance.violations > 0)
                    {
                        for o in [r.compliance.p99_overshoot, r.compliance.max_overshoot] {
                            if o > 0 {
                                values.push(o as f64 / budget as f64 * 100.0);
                            }
                        }
                    }
                }
                (turns, over, Spread::of(&values))
            };
            OvershootRow {
                strategy: strategy.clone(),
                turns,
                over,
                spread,
            }
        })
        .collect();
    Overshoot { rows, per_turn }
}

/// The chart.
struct Boxes<'a>(&'a Overshoot);

const ROW: u32 = 34;
const COUNTS: i32 = 150;

fn entries() -> Vec<Entry> {
    vec![
        Entry {
            label: "box: middle half of the over-budget turns".into(),
            swatch: Swatch::BoxPlot(style::MUTED),
        },
        Entry {
            label: "bar in the box: median".into(),
            swatch: Swatch::Tick(BLACK),
        },
        Entry {
            label: "whiskers: smallest to largest".into(),
            swatch: Swatch::Line {
                style: StrategyStyle {
                    dash: Dash::Solid,
                    ..style::BOUND
                },
                marker: false,
            },
        },
    ]
}

impl Boxes<'_> {
    fn label_width(&self) -> u32 {
        style::label_width(self.0.rows.iter().map(|r| r.strategy.as_str()), TICK, 50)
    }
}

impl Figure for Boxes<'_> {
    fn size(&self) -> (u32, u32) {
        let h = self.0.rows.len() as u32 * ROW + 140;
        (
            1000 + legend::width(&entries()) + 40,
            h.max(legend::height(&entries()) + 120) + 50,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        let rows = &self.0.rows;
        let legend_w = legend::width(&entries()) + 30;
        let (plot, side) = area.split_horizontally(area.dim_in_pixel().0 - legend_w);
        let spreads = rows.iter().filter_map(|r| r.spread);
        let (lo, hi) = spreads.fold((f64::INFINITY, 0f64), |(lo, hi), s| {
            (lo.min(s.min), hi.max(s.max))
        });
        let x = if lo.is_finite() && hi > 0.0 {
            ScaleCoord::log(lo.max(1e-3), hi)
        } else {
            ScaleCoord::log(1.0, 100.0)
        };
        let x_lo = x.range().start;
        let names: Vec<String> = rows.iter().map(|r| r.strategy.to_string()).collect();
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .margin_right(COUNTS)
            .x_label_area_size(64)
            .y_label_area_size(self.label_width())
            .build_cartesian_2d(x, ScaleCoord::categories(rows.len()))?;
        style::mesh(&mut chart)
            .disable_y_mesh()
            .x_desc("overshoot of an over-budget turn (% of the budget, log scale)")
            .y_desc("strategy")
            .x_label_formatter(&|v| format!("{}%", number(*v)))
            .y_label_formatter(&|v| names.get(v.round() as usize).cloned().unwrap_or_default())
            .draw()?;
        let base = plot.get_base_pixel();
        let right = chart.plotting_area().get_pixel_range().0.end;
        plot.draw_text(
            "over budget / turns",
            &style::anchored(SMALL, HPos::Left, VPos::Bottom, style::MUTED),
            (
                right - base.0 + 12,
                chart.backend_coord(&(x_lo, -0.5)).1 - base.1 - 4,
            ),
        )?;
        for (i, r) in rows.iter().enumerate() {
            let y = i as f64;
            let colour = style::strategy(r.strategy.as_str()).colour;
            match r.spread {
                Some(s) => {
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(s.min, y), (s.max, y)],
                        ShapeStyle::from(&colour).stroke_width(2),
                    )))?;
                    for end in [s.min, s.max] {
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(end, y - 0.2), (end, y + 0.2)],
                            ShapeStyle::from(&colour).stroke_width(2),
                        )))?;
                    }
                    let box_corners = [(s.q1, y - 0.3), (s.q3, y + 0.3)];
                    chart.draw_series(std::iter::once(Rectangle::new(
                        box_corners,
                        colour.mix(0.35).filled(),
                    )))?;
                    chart.draw_series(std::iter::once(Rectangle::new(
                        box_corners,
                        ShapeStyle::from(&colour).stroke_width(2),
                    )))?;
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(s.median, y - 0.3), (s.median, y + 0.3)],
                        ShapeStyle::from(&BLACK).stroke_width(3),
                    )))?;
                }
                None => {
                    let (px, py) = chart.backend_coord(&(x_lo, y));
                    plot.draw_text(
                        "never over budget",
                        &style::anchored(SMALL, HPos::Left, VPos::Center, style::MUTED),
                        (px - base.0 + 8, py - base.1),
                    )?;
                }
            }
            let py = chart.backend_coord(&(x_lo, y)).1;
            plot.draw_text(
                &format!("{} / {}", r.over, r.turns),
                &style::anchored(SMALL, HPos::Left, VPos::Center, style::INK),
                (right - base.0 + 12, py - base.1),
            )?;
        }
        legend::draw(&side.margin(20, 0, 10, 0), &entries())?;
        Ok(Marks::default())
    }
}

/// The chart of a run.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    let caption = if run.per_turn() {
        "How far the turns that broke the budget went over it, in percent of the budget (log scale): the \
box spans the middle half of those turns, the bar inside is the median and the whiskers reach the smallest and \
largest. The count on the right is how many turns were over. No box means never over budget. Each box is in its \
strategy's colour, as on every chart (the reference black)."
    } else {
        "How far rows that broke the budget went over it, in percent of the budget (log scale), from each \
row's 99th percentile and maximum overshoot (batches.jsonl was not available for single turns). No box means \
never over budget. Each box is in its strategy's colour, as on every chart (the reference black)."
    };
    Some(Plot::new(
        "Overshoot of over-budget turns",
        caption,
        overshoot(run.results, run.turns),
        |data, title, format| draw::render(title, format, &Boxes(data)),
    ))
}
