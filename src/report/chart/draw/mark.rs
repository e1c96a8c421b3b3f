//! How a [`StrategyStyle`] is drawn: its line (solid, dashed or dotted) and the marker at a point (a circle,
//! square, triangle or diamond, filled or hollow), the same in panels and legends; and the marks of x values a
//! panel of lines may carry.

use std::iter::{once, Once};

use plotters::element::{DashedPathElement, Drawable, PointCollection};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use plotters_backend::{BackendCoord, DrawingErrorKind};

use super::axis::ScaleCoord;
use super::style::{self, Dash, Marker, Shape, StrategyStyle, SMALL};
use super::DrawResult;

/// A marker of `marker`'s shape in `colour`, `radius` pixels from its centre to its side, at a point of any
/// coordinate system: filled with the colour, or white inside a line of the colour (so that a line under it does
/// not show through and two markers on one point stay apart).
pub(in crate::report::chart) struct MarkerAt<C> {
    at: C,
    marker: Marker,
    colour: RGBColor,
    radius: i32,
}

impl<C> MarkerAt<C> {
    /// The marker of `style` at `at`, `radius` pixels wide from the centre.
    pub(in crate::report::chart) fn new(at: C, style: &StrategyStyle, radius: i32) -> MarkerAt<C> {
        MarkerAt {
            at,
            marker: style.marker,
            colour: style.colour,
            radius,
        }
    }
}

impl<'a, C> PointCollection<'a, C> for &'a MarkerAt<C> {
    type Point = &'a C;
    type IntoIter = Once<&'a C>;

    fn point_iter(self) -> Self::IntoIter {
        once(&self.at)
    }
}

/// The corners of `shape` around `(x, y)`, `r` pixels from the centre to a side (of about the same area as a
/// circle of radius `r`); `None` for the circle.
fn corners(shape: Shape, (x, y): BackendCoord, r: i32) -> Option<Vec<BackendCoord>> {
    let f = |k: f64| (f64::from(r) * k).round() as i32;
    match shape {
        Shape::Circle => None,
        Shape::Square => {
            let s = f(0.9);
            Some(vec![
                (x - s, y - s),
                (x + s, y - s),
                (x + s, y + s),
                (x - s, y + s),
            ])
        }
        Shape::Triangle => Some(vec![
            (x, y - f(1.35)),
            (x + f(1.25), y + f(0.9)),
            (x - f(1.25), y + f(0.9)),
        ]),
        Shape::Diamond => {
            let s = f(1.3);
            Some(vec![(x, y - s), (x + s, y), (x, y + s), (x - s, y)])
        }
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for MarkerAt<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut pos: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some(centre) = pos.next() else {
            return Ok(());
        };
        let inside = if self.marker.filled {
            self.colour
        } else {
            WHITE
        };
        let edge = ShapeStyle::from(&self.colour).stroke_width(2);
        match corners(self.marker.shape, centre, self.radius) {
            None => {
                let r = self.radius.max(1) as u32;
                backend.draw_circle(centre, r, &inside.filled(), true)?;
                backend.draw_circle(centre, r, &edge, false)?;
            }
            Some(points) => {
                backend.fill_polygon(points.iter().copied(), &inside.filled())?;
                backend.draw_path(points.iter().copied().chain(once(points[0])), &edge)?;
            }
        }
        Ok(())
    }
}

/// The dashes of `style`'s line through `points`: one path per dash (the whole line when solid), in any coordinate
/// system. The pattern runs on along the line across its points, so a line of many short segments (a CDF) is
/// dashed as one of few.
pub(in crate::report::chart) fn stroke<C: Clone + 'static, DB: DrawingBackend>(
    points: Vec<C>,
    style: &StrategyStyle,
) -> DynElement<'static, DB, C> {
    let shape = ShapeStyle::from(&style.colour).stroke_width(style.width);
    match style.dash.pattern() {
        None => PathElement::new(points, shape).into_dyn(),
        Some((dash, gap)) => DashedPathElement::new(points, dash, gap, shape).into_dyn(),
    }
}

/// Draws each of `marks` on `chart`: a dotted grey line across the panel at its x, its label above the panel,
/// every other label a line higher so that marks close together keep their labels apart.
pub(in crate::report::chart) fn x_marks<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<ScaleCoord, ScaleCoord>>,
    marks: &[(f64, String)],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let line = StrategyStyle {
        dash: Dash::Dotted,
        width: 1,
        ..style::BOUND
    };
    let (y0, y1) = (chart.y_range().start, chart.y_range().end);
    for (i, (x, label)) in marks.iter().enumerate() {
        chart.draw_series(once(stroke(vec![(*x, y0), (*x, y1)], &line)))?;
        let lift = if i % 2 == 0 { 4 } else { 22 };
        chart.draw_series(once(
            EmptyElement::at((*x, y1))
                + Text::new(
                    label.clone(),
                    (0, -lift),
                    style::anchored(SMALL, HPos::Center, VPos::Bottom, style::INK),
                ),
        ))?;
    }
    Ok(())
}
