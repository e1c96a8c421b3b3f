//! The units-per-token chart (runs given `--tokenizer`): for each kind of tool output, the spread of UTF-16 units
//! per token of what the model receives, one box per kind and tokenizer.
//!
//! Units per token by kind: one horizontal box plot per kind of output (one colour per tokenizer), on a linear
//! axis with the window-relative rule's 3 units per token marked.

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::data::{Spread, TurnTallies};
use super::draw::axis::ScaleCoord;
use super::draw::legend::{self, Entry, Swatch};
use super::draw::mark;
use super::draw::style::{self, number, SMALL, TICK};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Plot, Run};
use crate::metrics::Aggregate;
use crate::run::RunResults;

/// The boxes of one tokenizer.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenizerBoxes {
    /// The tokenizer's name.
    pub tokenizer: String,
    /// One spread per kind of [`UnitsPerToken::kinds`], `None` where the kind had no tokens.
    pub boxes: Vec<Option<Spread>>,
}

/// The units-per-token chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitsPerToken {
    /// The kinds, in name order.
    pub kinds: Vec<String>,
    /// One series per tokenizer.
    pub series: Vec<TokenizerBoxes>,
    /// Whether the spreads are of single turns (from `batches.jsonl`) or of rows' means.
    pub per_turn: bool,
}

/// Units per token by kind of the reference strategy's turns (what the production finalizer lets the model
/// receive; every strategy's when the run has no reference), each turn's units of a kind over its tokens of it,
/// from the run's tallied `turns` (quartiles within the tally's error, see [`TurnTallies`]); without them, the
/// rows' means. `None` for a run without tokens.
pub fn units_per_token(results: &RunResults, turns: Option<&TurnTallies>) -> Option<UnitsPerToken> {
    let settings = results.inputs.tokens.as_ref()?;
    let turns = turns.filter(|t| t.turns() > 0);
    let per_turn = turns.is_some();
    let (kinds, boxes): (Vec<String>, Vec<Option<Spread>>) = match turns {
        Some(tallies) => tallies
            .units_per_token()
            .iter()
            .map(|(kind, tally)| (kind.clone(), tally.spread()))
            .unzip(),
        None => {
            let has_reference = results.inputs.strategies.iter().any(|s| s.is_reference());
            let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            let rows = results
                .rows
                .iter()
                .filter(|r| !has_reference || r.strategy.is_reference())
                .filter_map(|r: &Aggregate| r.tokens.as_ref());
            for row in rows {
                for (kind, k) in &row.by_kind {
                    values.entry(kind.clone()).or_default().extend(k.mean);
                }
            }
            values
                .into_iter()
                .map(|(kind, v)| (kind, Spread::of(&v)))
                .unzip()
        }
    };
    Some(UnitsPerToken {
        kinds,
        series: vec![TokenizerBoxes {
            tokenizer: settings.tokenizer.clone(),
            boxes,
        }],
        per_turn,
    })
}

/// The chart.
struct Boxes<'a>(&'a UnitsPerToken);

const ROW: u32 = 30;
/// The conversion the window-relative rule assumes.
const RULE: f64 = 3.0;

impl Boxes<'_> {
    fn entries(&self) -> Vec<Entry> {
        let mut out: Vec<Entry> = self
            .0
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| Entry {
                label: s.tokenizer.clone(),
                swatch: Swatch::BoxPlot(style::palette(i)),
            })
            .collect();
        out.push(Entry {
            label: "box: middle half; whiskers: min to max".into(),
            swatch: Swatch::Tick(BLACK),
        });
        out.push(Entry {
            label: "3 units per token (the rule's)".into(),
            swatch: Swatch::Line {
                style: style::BOUND,
                marker: false,
            },
        });
        out
    }

    fn lanes(&self) -> usize {
        self.0.kinds.len() * self.0.series.len().max(1)
    }
}

impl Figure for Boxes<'_> {
    fn size(&self) -> (u32, u32) {
        let entries = self.entries();
        let h = self.lanes() as u32 * ROW + 140;
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
        let legend_w = legend::width(&entries) + 30;
        let (plot, side) = area.split_horizontally(area.dim_in_pixel().0 - legend_w);
        let hi = data
            .series
            .iter()
            .flat_map(|s| s.boxes.iter().flatten())
            .fold(RULE, |hi, s| hi.max(s.max));
        let hi = (hi + 0.5).ceil();
        let step = if hi > 12.0 { 2.0 } else { 1.0 };
        let x = ScaleCoord::linear(0.0, hi, step, step / 2.0);
        let n = data.series.len().max(1);
        let lanes = self.lanes();
        let names: Vec<String> = (0..lanes)
            .map(|i| {
                if i % n == 0 {
                    data.kinds[i / n].clone()
                } else {
                    String::new()
                }
            })
            .collect();
        let label_w = style::label_width(data.kinds.iter().map(String::as_str), TICK, 50);
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .margin_right(30)
            .x_label_area_size(64)
            .y_label_area_size(label_w)
            .build_cartesian_2d(x, ScaleCoord::categories(lanes))?;
        style::mesh(&mut chart)
            .disable_y_mesh()
            .x_desc("UTF-16 units per token of one turn's output of the kind")
            .y_desc("kind of output")
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&|v| names.get(v.round() as usize).cloned().unwrap_or_default())
            .draw()?;
        chart.draw_series(std::iter::once(mark::stroke(
            vec![(RULE, -0.5), (RULE, lanes as f64 - 0.5)],
            &style::BOUND,
        )))?;
        let base = plot.get_base_pixel();
        for (k, _) in data.kinds.iter().enumerate() {
            for (t, series) in data.series.iter().enumerate() {
                let y = (k * n + t) as f64;
                let colour = style::palette(t);
                match series.boxes.get(k).copied().flatten() {
                    Some(s) => {
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(s.min, y), (s.max, y)],
                            ShapeStyle::from(&colour).stroke_width(2),
                        )))?;
                        let corners = [(s.q1, y - 0.3), (s.q3, y + 0.3)];
                        chart.draw_series(std::iter::once(Rectangle::new(
                            corners,
                            colour.mix(0.35).filled(),
                        )))?;
                        chart.draw_series(std::iter::once(Rectangle::new(
                            corners,
                            ShapeStyle::from(&colour).stroke_width(2),
                        )))?;
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(s.median, y - 0.3), (s.median, y + 0.3)],
                            ShapeStyle::from(&BLACK).stroke_width(3),
                        )))?;
                    }
                    None => {
                        let (px, py) = chart.backend_coord(&(0.0, y));
                        plot.draw_text(
                            "no tokens",
                            &style::anchored(SMALL, HPos::Left, VPos::Center, style::MUTED),
                            (px - base.0 + 8, py - base.1),
                        )?;
                    }
                }
            }
        }
        legend::draw(&side.margin(20, 0, 10, 0), &entries)?;
        Ok(Marks::default())
    }
}

/// The chart of a run given a tokenizer.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    let upt = units_per_token(run.results, run.turns)?;
    let of = if upt.per_turn {
        "one turn's output of the kind (the reference strategy's turns)"
    } else {
        "each row's output of the kind (batches.jsonl was not available for single turns)"
    };
    Some(Plot::new(
        "UTF-16 units per token by kind of output",
        format!(
            "How many UTF-16 units make one token of what the model receives, for {of}: the box spans the middle half, the bar inside is the median, the whiskers reach the smallest and largest. Every budget here is in units, but the model's window is in tokens: left of the dashed line (the 3 units per token the window-relative rule assumes) a character budget lets more tokens through than it was sized for. CJK text sits near 1 to 2, English logs and code near 4."
        ),
        upt,
        |data, title, format| draw::render(title, format, &Boxes(data)),
    ))
}
