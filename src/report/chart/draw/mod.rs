//! What every chart's drawing shares: the [`Figure`] each chart implements, the page it is drawn on (title,
//! margins) in SVG and PNG with the shipped font, and the pieces the figures are built of (axes, legends,
//! styles and how a strategy's is drawn, panels of lines). Every chart is drawn once for any plotters backend
//! (the SVG backend into a string, the bitmap backend into a buffer that is then encoded as PNG).

pub(super) mod axis;
pub(super) mod heatmap;
pub(super) mod hotspot;
pub(super) mod legend;
pub(super) mod lines;
pub(super) mod mark;
pub(super) mod overlap;
pub(super) mod style;
mod text;

pub(super) use hotspot::Marks;

use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::Format;
use crate::error::{Error, Result};

/// The font every chart's text is drawn with (DejaVu Sans; its licence is beside it).
const FONT: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans.ttf");

/// What a chart's drawing code returns: `T` (nothing, or a figure's [`Marks`]), or any plotters error, boxed.
pub(super) type DrawResult<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A chart drawn in one format: the image file's bytes and the points a reader can hover on it.
#[derive(Debug)]
pub(super) struct Drawn {
    /// The image file.
    pub(super) bytes: Vec<u8>,
    /// Where its markers are and what they show (none for a chart without).
    pub(super) hotspots: Vec<hotspot::Hotspot>,
}

/// A chart that can be drawn on any plotters backend.
pub(super) trait Figure {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32);

    /// Draws the chart below its title: the points it marked.
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<Marks>
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

/// Draws `figure` below `title` in `format`: the bytes of the image file and its hotspots.
pub(super) fn render(title: &str, format: Format, figure: &impl Figure) -> Result<Drawn> {
    register_font()?;
    let (w, h) = figure.size();
    let (bytes, marks) = match format {
        Format::Svg => {
            let mut svg = String::new();
            let marks = {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                let marks = page(&root, title, figure).map_err(|e| chart_error(&e))?;
                root.present().map_err(|e| chart_error(&e))?;
                marks
            };
            (svg.into_bytes(), marks)
        }
        Format::Png => {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            let marks = {
                let root = text::GlyphText(BitMapBackend::with_buffer(&mut rgb, (w, h)))
                    .into_drawing_area();
                let marks = page(&root, title, figure).map_err(|e| chart_error(&e))?;
                root.present().map_err(|e| chart_error(&e))?;
                marks
            };
            (encode_png(&rgb, w, h)?, marks)
        }
    };
    Ok(Drawn {
        bytes,
        hotspots: marks.hotspots((w, h)),
    })
}

fn page<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    figure: &impl Figure,
) -> DrawResult<Marks>
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
