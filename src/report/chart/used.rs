//! The chart of the lines the agent used: per workload and budget with used lines, the share of them each
//! strategy keeps visible, against the most any allocation of that budget could keep.
//!
//! One panel per workload and budget (budgets across, at most [`COLUMNS`] a row of panels, workloads down; the
//! legend below), each a horizontal bar per strategy in its colour, in run order; the upper bound a dashed line
//! across the panel with the range beyond it shaded as out of reach, so that a bar at the bound reads as the best
//! allocation can do rather than as short of 100%. A strategy over budget in some turn is a hollow bar; a row with no used line a
//! dash. Drawn only when the run measured used lines; never pooled with the detector's needles.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::axis::ScaleCoord;
use super::draw::legend::{self, Entry, Swatch};
use super::draw::style::{self, number, PANEL_TITLE, SMALL, TICK};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Plot, Run};
use crate::metrics::used_ranking::UsedPlace;
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// The chart's file name (without extension).
pub const STEM: &str = "used-needles";

/// At most this many panels side by side; more budgets wrap to another row of panels.
const COLUMNS: usize = 4;

/// One strategy in a panel.
#[derive(Debug, Clone, PartialEq)]
pub struct UsedBar {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Used lines kept and there were; `None` when its row has none.
    pub kept: Option<(u64, u64)>,
    /// The most any allocation of the budget could keep, as a share of the used lines; `None` without any.
    pub bound: Option<f64>,
    /// Whether it broke the budget in some turn (not ranked).
    pub over_budget: bool,
}

impl UsedBar {
    /// Its share of used lines kept (0..1); `None` without any.
    pub fn share(&self) -> Option<f64> {
        self.kept
            .and_then(|(kept, of)| (of > 0).then(|| kept as f64 / of as f64))
    }
}

/// One workload at one budget.
#[derive(Debug, Clone, PartialEq)]
pub struct UsedPanel {
    /// The workload.
    pub scenario: String,
    /// The budget as the tables show it: `20,000`, `4,800 (16k window)`.
    pub budget: String,
    /// One bar per strategy, in run order.
    pub bars: Vec<UsedBar>,
}

/// The chart's data: a panel per workload and budget with used lines, in the rows' order; `None` when the run
/// measured none.
pub fn used_panels(results: &RunResults) -> Option<Vec<UsedPanel>> {
    let panels: Vec<UsedPanel> = results
        .used_ranking
        .iter()
        .map(|r| UsedPanel {
            scenario: r.scenario.clone(),
            budget: crate::report::answer::budget_text(results, &r.scenario, &r.budget, r.units),
            bars: results
                .inputs
                .strategies
                .iter()
                .filter_map(|s| r.places.iter().find(|p| &p.strategy == s))
                .map(bar)
                .collect(),
        })
        .collect();
    (!panels.is_empty()).then_some(panels)
}

fn bar(p: &UsedPlace) -> UsedBar {
    UsedBar {
        strategy: p.strategy.clone(),
        kept: p.used.as_ref().map(|u| (u.survived, u.needles)),
        bound: p.used.as_ref().map(|u| u.upper_bound_share),
        over_budget: p.violation_rate > 0.0,
    }
}

/// The chart.
struct Panels<'a>(&'a [UsedPanel]);

const ROW: u32 = 30;
/// The height of a panel's heading.
const HEAD: u32 = 58;
const PANEL_W: u32 = 360;
/// Room right of a panel's plot for the label of a bar at 100%.
const LABEL_ROOM: u32 = 90;
const PANEL_EXTRA: u32 = 100;
const OUT_OF_REACH: RGBColor = RGBColor(228, 228, 228);

fn entries() -> Vec<Entry> {
    vec![
        Entry {
            label: "used lines kept (strategy's colour)".into(),
            swatch: Swatch::Box(RGBColor(0x4E, 0x79, 0xA7)),
        },
        Entry {
            label: "upper bound (most any allocation keeps)".into(),
            swatch: Swatch::Line {
                style: style::BOUND,
                marker: false,
            },
        },
        Entry {
            label: "out of reach at this budget".into(),
            swatch: Swatch::Box(OUT_OF_REACH),
        },
        Entry {
            label: "hollow, 'over': over budget, not ranked".into(),
            swatch: Swatch::Hollow(style::MUTED),
        },
    ]
}

impl Panels<'_> {
    fn strategies(&self) -> usize {
        self.0.iter().map(|p| p.bars.len()).max().unwrap_or(0)
    }

    fn label_width(&self) -> u32 {
        style::label_width(
            self.0
                .iter()
                .flat_map(|p| p.bars.iter().map(|b| b.strategy.as_str())),
            TICK,
            50,
        )
    }

    fn panel_height(&self) -> u32 {
        self.strategies() as u32 * ROW + HEAD + PANEL_EXTRA
    }

    /// The panels in rows: each workload's budgets, at most [`COLUMNS`] a row.
    fn grid(&self) -> Vec<Vec<&UsedPanel>> {
        let mut rows: Vec<Vec<&UsedPanel>> = Vec::new();
        for p in self.0 {
            match rows.last_mut() {
                Some(row) if row[0].scenario == p.scenario && row.len() < COLUMNS => row.push(p),
                _ => rows.push(vec![p]),
            }
        }
        rows
    }

    fn columns(&self) -> u32 {
        self.grid().iter().map(Vec::len).max().unwrap_or(1) as u32
    }
}

impl Figure for Panels<'_> {
    fn size(&self) -> (u32, u32) {
        let rows = self.grid().len() as u32;
        let legend = legend::height(&entries()) + 30;
        (
            (self.label_width() + self.columns() * PANEL_W + 40)
                .max(legend::width(&entries()) + 80),
            rows * self.panel_height() + legend + 50,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        let grid = self.grid();
        let (plots, below) = area.split_vertically(grid.len() as u32 * self.panel_height());
        let label_w = self.label_width();
        let rows = plots.split_evenly((grid.len(), 1));
        for (row, panels) in rows.iter().zip(&grid) {
            let (labelled, mut rest) = row.split_horizontally(label_w + PANEL_W);
            let mut areas = vec![labelled];
            for _ in 1..panels.len() {
                let (a, b) = rest.split_horizontally(PANEL_W);
                areas.push(a);
                rest = b;
            }
            for (k, (panel, at)) in panels.iter().zip(&areas).enumerate() {
                draw_panel(at, panel, if k == 0 { label_w } else { 10 })?;
            }
        }
        legend::draw(&below.margin(10, 0, label_w as i32, 0), &entries())?;
        Ok(Marks::default())
    }
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &UsedPanel,
    label_w: u32,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let bars = &panel.bars;
    let names: Vec<String> = bars.iter().map(|b| b.strategy.to_string()).collect();
    // The heading: the workload and budget, then the used lines and the bound, above the plot.
    let (head, body) = area.split_vertically(HEAD);
    let (w, _) = area.dim_in_pixel();
    let centre = ((label_w + 10 + w - LABEL_ROOM) / 2) as i32;
    head.draw_text(
        &format!("{} · {} units", panel.scenario, panel.budget),
        &style::anchored(PANEL_TITLE, HPos::Center, VPos::Top, style::INK),
        (centre, 6),
    )?;
    let used = bars
        .iter()
        .find_map(|b| b.kept.map(|(_, of)| of))
        .zip(bars.iter().find_map(|b| b.bound));
    if let Some((needles, bound)) = used {
        head.draw_text(
            &format!(
                "{needles} used lines · any allocation: at most {}",
                crate::report::answer::share(Some(bound))
            ),
            &style::anchored(SMALL, HPos::Center, VPos::Top, style::MUTED),
            (centre, 34),
        )?;
    }
    let mut chart = ChartBuilder::on(&body)
        .margin(10)
        .margin_top(4)
        .margin_right(LABEL_ROOM)
        .x_label_area_size(64)
        .y_label_area_size(label_w)
        .build_cartesian_2d(
            ScaleCoord::linear(0.0, 100.0, 20.0, 10.0),
            ScaleCoord::categories(bars.len()),
        )?;
    style::mesh(&mut chart)
        .disable_y_mesh()
        .x_desc("used lines the model still sees (%)")
        .y_desc(if label_w > 10 { "strategy" } else { "" })
        .x_label_formatter(&|v| number(*v))
        .y_label_formatter(&|v| {
            if label_w > 10 {
                names.get(v.round() as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .draw()?;
    // Out of reach first, under the bars: from each strategy's bound to 100%.
    for (i, b) in bars.iter().enumerate() {
        if let Some(bound) = b.bound {
            let y = i as f64;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(bound * 100.0, y - 0.5), (100.0, y + 0.5)],
                OUT_OF_REACH.filled(),
            )))?;
        }
    }
    // The bound, a dashed line through each strategy's band (named in the heading), under the bars and labels.
    for (i, b) in bars.iter().enumerate() {
        if let Some(bound) = b.bound {
            let y = i as f64;
            chart.draw_series(std::iter::once(super::draw::mark::stroke(
                vec![(bound * 100.0, y - 0.5), (bound * 100.0, y + 0.5)],
                &style::BOUND,
            )))?;
        }
    }
    for (i, b) in bars.iter().enumerate() {
        let y = i as f64;
        let look = style::strategy(b.strategy.as_str());
        let Some(share) = b.share() else {
            chart.draw_series(std::iter::once(Text::new(
                " –".to_string(),
                (0.0, y),
                style::anchored(SMALL, HPos::Left, VPos::Center, style::INK),
            )))?;
            continue;
        };
        let corners = [(0.0, y - 0.32), (share * 100.0, y + 0.32)];
        if b.over_budget {
            chart.draw_series(std::iter::once(Rectangle::new(
                corners,
                ShapeStyle::from(&look.colour).stroke_width(2),
            )))?;
        } else if share > 0.0 {
            chart.draw_series(std::iter::once(Rectangle::new(
                corners,
                look.colour.filled(),
            )))?;
        }
        let (kept, of) = b.kept.unwrap_or((0, 0));
        let label = if b.over_budget {
            format!(" {kept}/{of} over")
        } else {
            format!(" {kept}/{of}")
        };
        chart.draw_series(std::iter::once(Text::new(
            label,
            (share * 100.0, y),
            style::anchored(SMALL, HPos::Left, VPos::Center, style::INK),
        )))?;
    }
    Ok(())
}

/// The chart of a run; `None` when it measured no line the agent used.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    let panels = used_panels(run.results)?;
    Some(Plot::new(
        "Needles the agent used: kept against the most any allocation keeps",
        "Share of the lines the agent used (recorded batches imported with their used lines) that each strategy \
leaves visible to the model, one panel per workload and budget. The dashed line is the most any allocation of \
that budget could keep and the grey beyond it is out of reach: a bar at the line is as good as allocation gets, \
however far from 100%. Hollow bars broke the budget in some turn and are not ranked; – : no used line. Counted \
apart from the detector's needles (the needle chart).",
        panels,
        |data, title, format| draw::render(title, format, &Panels(data)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::chart::{render, Source};

    #[test]
    fn a_panel_per_budget_with_used_lines_a_bar_per_strategy_in_run_order() {
        let results = crate::report::used::tests::used_run();
        let panels = used_panels(&results).unwrap();
        // The third budget has no used line: no panel.
        let heads: Vec<(&str, &str)> = panels
            .iter()
            .map(|p| (p.scenario.as_str(), p.budget.as_str()))
            .collect();
        assert_eq!(
            heads,
            [("surrogate-storm", "1,000"), ("surrogate-storm", "7,001")]
        );
        type Bar<'a> = (&'a str, Option<(u64, u64)>, Option<f64>, bool);
        let bars: Vec<Bar<'_>> = panels[0]
            .bars
            .iter()
            .map(|b| (b.strategy.as_str(), b.kept, b.bound, b.over_budget))
            .collect();
        assert_eq!(
            bars,
            [
                ("reference", Some((14, 20)), Some(0.8), false),
                ("greedy", Some((9, 20)), Some(0.8), false),
                ("uniform", Some((0, 20)), Some(0.8), false),
                ("codex", Some((20, 20)), Some(0.8), true),
                ("head-tail-0", Some((9, 20)), Some(0.8), false),
            ]
        );
        assert_eq!(panels[0].bars[0].share(), Some(0.7));
        // A row without used lines: no share, no bound (a dash), never 0%.
        let greedy = &panels[1].bars[1];
        assert_eq!(
            (greedy.strategy.as_str(), greedy.share(), greedy.bound),
            ("greedy", None, None)
        );
    }

    #[test]
    fn the_chart_is_drawn_naming_every_strategy_and_only_with_used_lines() {
        let results = crate::report::used::tests::used_run();
        let charts = render(Source::Run(Run {
            results: &results,
            turns: None,
        }))
        .unwrap();
        let chart = charts.iter().find(|c| c.stem == STEM).unwrap();
        // Right after the needle chart, as `CHARTS` lists it.
        let at = charts.iter().position(|c| c.stem == STEM).unwrap();
        assert_eq!(charts[at - 1].stem, "needles");
        let svg = String::from_utf8(chart.svg.clone()).unwrap();
        for name in ["reference", "greedy", "uniform", "codex", "head-tail-0"] {
            assert!(
                svg.contains(&format!(">\n{name}\n</text>")),
                "{name} not named"
            );
        }
        for text in [
            "surrogate-storm · 1,000 units",
            "20 used lines · any allocation: at most 80%",
            " 14/20",
            " 20/20 over",
            " –",
            "upper bound (most any allocation keeps)",
        ] {
            assert!(svg.contains(text), "{text} not drawn");
        }
        assert!(chart.png.starts_with(b"\x89PNG"));
        assert!(chart.caption.contains("out of reach"));

        let plain = crate::report::pareto::tests::small_run();
        let charts = render(Source::Run(Run {
            results: &plain,
            turns: None,
        }))
        .unwrap();
        assert!(charts.iter().all(|c| c.stem != STEM));
    }
}
