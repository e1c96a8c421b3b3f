//! Metrics against budget (or a swept parameter): a grid of panels, one line per strategy with a marker at every
//! budget run, the needle upper bound dashed.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::lines::{self, Look};
use super::{DrawResult, Figure};
use crate::report::chart::data::Curves;

/// The chart.
pub(super) struct Grid<'a>(pub &'a Curves);

impl Grid<'_> {
    fn look(&self) -> Look {
        Look {
            markers: true,
            panel_width: if self.0.columns > 1 { 620 } else { 1050 },
            panel_height: 440,
        }
    }
}

impl Figure for Grid<'_> {
    fn size(&self) -> (u32, u32) {
        lines::size(&self.0.panels, self.0.columns, self.look())
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        lines::draw(area, &self.0.panels, self.0.columns, self.look())
    }
}
