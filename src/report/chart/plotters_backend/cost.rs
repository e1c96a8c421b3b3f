//! Cost per turn against batch size, log-log: one panel per strategy family, one line per strategy through the
//! median of each size bin.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::lines::{self, Look};
use super::{DrawResult, Figure};
use crate::report::chart::data::CostCurves;

/// The chart.
pub(super) struct Lines<'a>(pub &'a CostCurves);

const LOOK: Look = Look {
    markers: true,
    panel_width: 1050,
    panel_height: 440,
};

impl Figure for Lines<'_> {
    fn size(&self) -> (u32, u32) {
        lines::size(&self.0.panels, 1, LOOK)
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        lines::draw(area, &self.0.panels, 1, LOOK)
    }
}
