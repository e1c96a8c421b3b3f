//! The persistence chart: artifact writes and bytes per turn, by strategy.
//!
//! Persistence I/O: per strategy, artifact writes per turn (first, duplicate and failed writes stacked) on the
//! left and KiB written per turn on the right, each bar labelled with its value.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::data::{ratio, rows_of, Scale};
use super::draw::axis::ScaleCoord;
use super::draw::legend::{self, Entry, Swatch};
use super::draw::style::{self, number, PANEL_TITLE, SMALL, TICK};
use super::draw::{DrawResult, Figure, Marks};
use super::{draw, Plot, Run};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// Persistence I/O of one strategy, per turn.
#[derive(Debug, Clone, PartialEq)]
pub struct PersistenceRow {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Turns run.
    pub turns: u64,
    /// Successful writes per turn, first writes of an entry.
    pub first_writes: f64,
    /// Writes per turn of an entry already written in the same turn.
    pub duplicate_writes: f64,
    /// Failed or refused writes per turn.
    pub failed_writes: f64,
    /// KiB written per turn.
    pub kib: f64,
}

/// The persistence chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct PersistenceIo {
    /// One row per strategy, in run order.
    pub rows: Vec<PersistenceRow>,
}

/// Writes and bytes per turn by strategy, over every row.
pub fn persistence_io(results: &RunResults) -> PersistenceIo {
    let rows = results
        .inputs
        .strategies
        .iter()
        .map(|strategy| {
            let (mut turns, mut writes, mut dup, mut failed, mut bytes) = (0, 0, 0, 0, 0);
            for r in rows_of(results, strategy) {
                turns += r.batches;
                writes += r.persistence.writes;
                dup += r.persistence.duplicate_writes;
                failed += r.persistence.failed_writes;
                bytes += r.persistence.bytes;
            }
            let per_turn = |v: u64| ratio(v as f64, turns as f64).unwrap_or(0.0);
            PersistenceRow {
                strategy: strategy.clone(),
                turns,
                first_writes: per_turn(writes - dup.min(writes)),
                duplicate_writes: per_turn(dup),
                failed_writes: per_turn(failed),
                kib: per_turn(bytes) / 1024.0,
            }
        })
        .collect();
    PersistenceIo { rows }
}

/// The chart.
struct Bars<'a>(&'a PersistenceIo);

const ROW: u32 = 34;
const FIRST: RGBColor = RGBColor(0x4E, 0x79, 0xA7);
const DUPLICATE: RGBColor = RGBColor(0xE1, 0x57, 0x59);
const FAILED: RGBColor = RGBColor(0xA0, 0xA0, 0xA0);
const BYTES: RGBColor = RGBColor(0x59, 0xA1, 0x4F);

fn entries() -> Vec<Entry> {
    vec![
        Entry {
            label: "first write of an output".into(),
            swatch: Swatch::Box(FIRST),
        },
        Entry {
            label: "duplicate write (same output again)".into(),
            swatch: Swatch::Box(DUPLICATE),
        },
        Entry {
            label: "failed or refused write".into(),
            swatch: Swatch::Box(FAILED),
        },
        Entry {
            label: "KiB written".into(),
            swatch: Swatch::Box(BYTES),
        },
    ]
}

/// A value label that keeps small non-zero values visible.
fn value_label(v: f64) -> String {
    format!(" {}", value(v))
}

fn value(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v < 0.01 {
        "<0.01".into()
    } else if v < 10.0 {
        format!("{v:.2}")
    } else {
        number(v.round())
    }
}

impl Bars<'_> {
    fn label_width(&self) -> u32 {
        style::label_width(self.0.rows.iter().map(|r| r.strategy.as_str()), TICK, 50)
    }
}

impl Figure for Bars<'_> {
    fn size(&self) -> (u32, u32) {
        let h = self.0.rows.len() as u32 * ROW + 140;
        (
            1250 + legend::width(&entries()) + 40,
            h.max(legend::height(&entries()) + 120) + 50,
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
    where
        DB::ErrorType: 'static,
    {
        let rows = &self.0.rows;
        let (plots, side) =
            area.split_horizontally(area.dim_in_pixel().0 - legend::width(&entries()) - 30);
        let label_w = self.label_width();
        let (left, right) = plots.split_horizontally((plots.dim_in_pixel().0 + label_w) / 2);
        let names: Vec<String> = rows.iter().map(|r| r.strategy.to_string()).collect();
        let total = |r: &PersistenceRow| r.first_writes + r.duplicate_writes + r.failed_writes;

        // Writes.
        let x = ScaleCoord::fit(Scale::Linear, rows.iter().map(|r| total(r) * 1.12));
        let mut chart = ChartBuilder::on(&left)
            .margin(10)
            .margin_right(20)
            .x_label_area_size(64)
            .y_label_area_size(label_w)
            .caption("Artifact writes", style::text(PANEL_TITLE))
            .build_cartesian_2d(x, ScaleCoord::categories(rows.len()))?;
        style::mesh(&mut chart)
            .disable_y_mesh()
            .x_desc("writes per turn (count)")
            .y_desc("strategy")
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&|v| names.get(v.round() as usize).cloned().unwrap_or_default())
            .draw()?;
        for (i, r) in rows.iter().enumerate() {
            let y = i as f64;
            let mut from = 0.0;
            for (value, colour) in [
                (r.first_writes, FIRST),
                (r.duplicate_writes, DUPLICATE),
                (r.failed_writes, FAILED),
            ] {
                if value > 0.0 {
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(from, y - 0.32), (from + value, y + 0.32)],
                        colour.filled(),
                    )))?;
                }
                from += value;
            }
            chart.draw_series(std::iter::once(Text::new(
                value_label(total(r)),
                (from, y),
                style::anchored(SMALL, HPos::Left, VPos::Center, style::INK),
            )))?;
        }

        // Bytes.
        let x = ScaleCoord::fit(Scale::Linear, rows.iter().map(|r| r.kib * 1.15));
        let mut chart = ChartBuilder::on(&right)
            .margin(10)
            .margin_right(20)
            .x_label_area_size(64)
            .y_label_area_size(10)
            .caption("Bytes written", style::text(PANEL_TITLE))
            .build_cartesian_2d(x, ScaleCoord::categories(rows.len()))?;
        style::mesh(&mut chart)
            .disable_y_mesh()
            .x_desc("KiB written per turn")
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&|_| String::new())
            .draw()?;
        for (i, r) in rows.iter().enumerate() {
            let y = i as f64;
            if r.kib > 0.0 {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y - 0.32), (r.kib, y + 0.32)],
                    BYTES.filled(),
                )))?;
            }
            chart.draw_series(std::iter::once(Text::new(
                value_label(r.kib),
                (r.kib, y),
                style::anchored(SMALL, HPos::Left, VPos::Center, style::INK),
            )))?;
        }
        legend::draw(&side.margin(20, 0, 10, 0), &entries())?;
        Ok(Marks::default())
    }
}

/// The chart of a run.
pub(super) fn plot(run: &Run<'_>) -> Option<Plot> {
    Some(Plot::new(
        "Persistence: artifact writes and bytes per turn",
        "What each strategy writes to disk per turn, over every scenario and budget. Duplicate \
writes (the same output written twice in a turn) and failed writes are stacked after first writes; fewer writes \
and bytes for the same retention is better, and duplicate writes should be zero.",
        persistence_io(run.results),
        |data, title, format| draw::render(title, format, &Bars(data)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_stay_visible() {
        assert_eq!(value(0.0), "0");
        assert_eq!(value(0.004), "<0.01");
        assert_eq!(value(1.234), "1.23");
        assert_eq!(value(1234.4), "1234");
        assert_eq!(value(25_300.0), "25.3k");
        assert_eq!(value_label(2.0), " 2.00");
    }
}
