//! The retention CDF: one panel per strategy family, one line per strategy, kept share on x and the share of
//! turns keeping at most that much on y.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::lines::{self, Look};
use super::{DrawResult, Figure};
use crate::report::chart::data::RetentionCdf;

/// The chart.
pub(super) struct Cdf<'a>(pub &'a RetentionCdf);

const LOOK: Look = Look {
    markers: false,
    panel_width: 1050,
    panel_height: 440,
};

impl Figure for Cdf<'_> {
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
