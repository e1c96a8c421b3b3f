//! Text for bitmaps: a drawing backend that wraps plotters' bitmap backend and rasterises text itself with the
//! shipped font, placing each glyph by its own bearing and at sub-pixel positions (plotters' own ab_glyph text
//! drops the bearings, which spaces letters unevenly). Text boxes and anchors are plotters', so layouts are the
//! same as in the SVG files; every other shape goes to the bitmap backend unchanged.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters::prelude::BitMapBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

use super::FONT;

/// The bitmap backend with well-spaced text.
pub(in crate::report::chart) struct GlyphText<'a>(pub BitMapBackend<'a>);

type Error<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

/// The width of `text` at `size` pixels in the shipped font, rounded up.
pub(in crate::report::chart) fn width(text: &str, size: u32) -> u32 {
    let Some(font) = font() else {
        return text.chars().count() as u32 * size * 6 / 10;
    };
    let scaled = font.as_scaled(PxScale::from(size as f32));
    let mut previous = None;
    let mut w = 0.0f32;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = previous {
            w += scaled.kern(p, id);
        }
        w += scaled.h_advance(id);
        previous = Some(id);
    }
    w.ceil() as u32
}

fn font() -> Option<&'static FontRef<'static>> {
    static PARSED: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    PARSED
        .get_or_init(|| FontRef::try_from_slice(FONT).ok())
        .as_ref()
}

impl<'a> DrawingBackend for GlyphText<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), Error<'a>> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Error<'a>> {
        self.0.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error<'a>> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.0.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.0.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), Error<'a>> {
        self.0.blit_bitmap(pos, size, src)
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), Error<'a>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        let Some(font) = font() else {
            return self.0.draw_text(text, style, pos);
        };
        let ((min_x, min_y), (max_x, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let size = style.size() as f32;
        let scaled = font.as_scaled(PxScale::from(size));
        // The line (ascent to descent, `size` pixels) centred on plotters' text box.
        let baseline = (height as f32 - size) / 2.0 + scaled.ascent();
        let transform = style.transform();
        let mut caret = 0.0f32;
        let mut previous = None;
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = previous {
                caret += scaled.kern(p, id);
            }
            previous = Some(id);
            let glyph = id.with_scale_and_position(size, point(caret, baseline));
            caret += scaled.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            let (ox, oy) = (bounds.min.x as i32, bounds.min.y as i32);
            let backend = &mut self.0;
            outline.draw(|gx, gy, coverage| {
                if coverage <= 0.0 {
                    return;
                }
                let (x, y) =
                    transform.transform(ox + gx as i32 + dx - min_x, oy + gy as i32 + dy - min_y);
                // Out-of-range pixels are skipped by the bitmap backend, which reports no other error.
                let _ = backend.draw_pixel(
                    (pos.0 + x, pos.1 + y),
                    BackendColor {
                        alpha: colour.alpha * f64::from(coverage.min(1.0)),
                        rgb: colour.rgb,
                    },
                );
            });
        }
        Ok(())
    }
}
