//! The plotters implementation of [`ChartBackend`]: one file per chart, plus the pieces they share (axes,
//! legends, styles, line panels). Every chart is drawn once for any plotters backend (the SVG backend into a
//! string, the bitmap backend into a buffer that is then encoded as PNG), with text from the shipped font.

mod axis;
mod bars;
mod compliance;
mod cost;
mod curves;
mod legend;
mod lines;
mod needles;
mod overshoot;
mod persistence;
mod retention;
mod style;
mod text;
mod token_compliance;
mod units_per_token;

use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::{
    ComplianceGrid, CostCurves, Curves, NeedleSurvival, Overshoot, PersistenceIo, RetentionCdf,
    TokenCompliance, UnitsPerToken,
};
use super::{ChartBackend, ChartContext, Format, GroupedBars};
use crate::error::{Error, Result};

/// The font every chart's text is drawn with (DejaVu Sans; its licence is beside it).
const FONT: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans.ttf");

/// Draws charts with plotters.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlottersBackend;

/// What a chart's drawing code returns: any plotters error, boxed.
type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// A chart that can be drawn on any plotters backend.
trait Figure {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32);

    /// Draws the chart below its title.
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

/// Registers the shipped font as plotters' sans-serif, once per process.
fn register_font() -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(chart_error(
            &"the shipped font is not a valid TrueType file",
        ))
    }
}

fn chart_error(message: &dyn std::fmt::Display) -> Error {
    Error::io(
        "charts",
        std::io::Error::other(format!("drawing failed: {message}")),
    )
}

/// Draws `figure` with its title in `format`.
fn render(ctx: &ChartContext, figure: &impl Figure) -> Result<Vec<u8>> {
    register_font()?;
    let (w, h) = figure.size();
    match ctx.format {
        Format::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                page(&root, &ctx.title, figure).map_err(|e| chart_error(&e))?;
                root.present().map_err(|e| chart_error(&e))?;
            }
            Ok(svg.into_bytes())
        }
        Format::Png => {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            {
                let root = text::GlyphText(BitMapBackend::with_buffer(&mut rgb, (w, h)))
                    .into_drawing_area();
                page(&root, &ctx.title, figure).map_err(|e| chart_error(&e))?;
                root.present().map_err(|e| chart_error(&e))?;
            }
            encode_png(&rgb, w, h)
        }
    }
}

fn page<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    figure: &impl Figure,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let body = root.margin(8, 8, 12, 12);
    let body = body.titled(title, style::text(style::TITLE))?;
    figure.draw(&body.margin(6, 0, 0, 0))
}

/// Encodes an RGB buffer as PNG.
fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Balanced);
        let mut writer = encoder.write_header().map_err(|e| chart_error(&e))?;
        writer.write_image_data(rgb).map_err(|e| chart_error(&e))?;
        writer.finish().map_err(|e| chart_error(&e))?;
    }
    Ok(out)
}

impl ChartBackend for PlottersBackend {
    fn compliance(&self, ctx: &ChartContext, data: &ComplianceGrid) -> Result<Vec<u8>> {
        render(ctx, &compliance::Heatmap(data))
    }

    fn overshoot(&self, ctx: &ChartContext, data: &Overshoot) -> Result<Vec<u8>> {
        render(ctx, &overshoot::Boxes(data))
    }

    fn retention_cdf(&self, ctx: &ChartContext, data: &RetentionCdf) -> Result<Vec<u8>> {
        render(ctx, &retention::Cdf(data))
    }

    fn needle_survival(&self, ctx: &ChartContext, data: &NeedleSurvival) -> Result<Vec<u8>> {
        render(ctx, &needles::Bars(data))
    }

    fn persistence(&self, ctx: &ChartContext, data: &PersistenceIo) -> Result<Vec<u8>> {
        render(ctx, &persistence::Bars(data))
    }

    fn budget_curves(&self, ctx: &ChartContext, data: &Curves) -> Result<Vec<u8>> {
        render(ctx, &curves::Grid(data))
    }

    fn cost(&self, ctx: &ChartContext, data: &CostCurves) -> Result<Vec<u8>> {
        render(ctx, &cost::Lines(data))
    }

    fn units_per_token(&self, ctx: &ChartContext, data: &UnitsPerToken) -> Result<Vec<u8>> {
        render(ctx, &units_per_token::Boxes(data))
    }

    fn token_compliance(&self, ctx: &ChartContext, data: &TokenCompliance) -> Result<Vec<u8>> {
        render(ctx, &token_compliance::Bars(data))
    }

    fn grouped_bars(&self, ctx: &ChartContext, data: &GroupedBars) -> Result<Vec<u8>> {
        render(ctx, &bars::Groups(data))
    }
}
