//! Shared looks: font sizes, the strategy palette (the baseline always black), the colour scale of rates, and
//! how numbers are printed on axes and labels.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Chart title.
pub(in crate::report::chart) const TITLE: u32 = 28;
/// Panel title.
pub(in crate::report::chart) const PANEL_TITLE: u32 = 20;
/// Axis description.
pub(in crate::report::chart) const AXIS: u32 = 18;
/// Tick labels.
pub(in crate::report::chart) const TICK: u32 = 16;
/// Legend entries.
pub(in crate::report::chart) const LEGEND: u32 = 16;
/// Small print inside a chart (cell values, counts).
pub(in crate::report::chart) const SMALL: u32 = 15;

/// Dark grey for text that is not a title.
pub(in crate::report::chart) const INK: RGBColor = RGBColor(30, 30, 30);
/// Muted grey for notes and bounds.
pub(in crate::report::chart) const MUTED: RGBColor = RGBColor(110, 110, 110);
/// The baseline's (reference's) colour.
pub(in crate::report::chart) const BASELINE: RGBColor = RGBColor(0, 0, 0);

/// Ten distinguishable colours (a Tableau-like palette, darkened where too light for lines on white).
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4E, 0x79, 0xA7),
    RGBColor(0xF2, 0x8E, 0x2B),
    RGBColor(0xE1, 0x57, 0x59),
    RGBColor(0x3E, 0x9F, 0x98),
    RGBColor(0x59, 0xA1, 0x4F),
    RGBColor(0xB6, 0x99, 0x2D),
    RGBColor(0xB0, 0x7A, 0xA1),
    RGBColor(0xD3, 0x72, 0x95),
    RGBColor(0x9C, 0x75, 0x5F),
    RGBColor(0x79, 0x70, 0x6E),
];

/// The `i`-th non-baseline colour.
pub(in crate::report::chart) fn palette(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Text of `size` pixels in the shipped font, dark grey, anchored at its left centre.
pub(in crate::report::chart) fn text(size: u32) -> TextStyle<'static> {
    TextStyle {
        font: FontDesc::new(FontFamily::SansSerif, f64::from(size), FontStyle::Normal),
        color: INK.to_backend_color(),
        pos: Pos::new(HPos::Left, VPos::Top),
    }
}

/// Text of `size` pixels with an anchor and colour.
pub(in crate::report::chart) fn anchored(
    size: u32,
    h: HPos,
    v: VPos,
    colour: RGBColor,
) -> TextStyle<'static> {
    TextStyle {
        font: FontDesc::new(FontFamily::SansSerif, f64::from(size), FontStyle::Normal),
        color: colour.to_backend_color(),
        pos: Pos::new(h, v),
    }
}

/// The width of a column of `labels` at `size` pixels, plus `pad`.
pub(in crate::report::chart) fn label_width<'a>(
    labels: impl Iterator<Item = &'a str>,
    size: u32,
    pad: u32,
) -> u32 {
    labels
        .map(|l| super::text::width(l, size))
        .max()
        .unwrap_or(0)
        + pad
}

/// A rate (0..1) as a colour from red (0) through pale yellow (0.5) to blue (1), the RdYlBu scale, which
/// colour-blind readers can tell apart.
pub(in crate::report::chart) fn rate_colour(rate: f64) -> RGBColor {
    const STOPS: [(f64, (f64, f64, f64)); 5] = [
        (0.0, (165.0, 0.0, 38.0)),
        (0.5, (244.0, 109.0, 67.0)),
        (0.8, (254.0, 224.0, 144.0)),
        (0.95, (171.0, 217.0, 233.0)),
        (1.0, (49.0, 104.0, 170.0)),
    ];
    let r = rate.clamp(0.0, 1.0);
    let i = STOPS.iter().position(|(s, _)| *s >= r).unwrap_or(4).max(1);
    let (s0, c0) = STOPS[i - 1];
    let (s1, c1) = STOPS[i];
    let t = if s1 > s0 { (r - s0) / (s1 - s0) } else { 1.0 };
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(mix(c0.0, c1.0), mix(c0.1, c1.1), mix(c0.2, c1.2))
}

/// Whether text on `colour` should be white rather than dark.
pub(in crate::report::chart) fn needs_light_text(colour: RGBColor) -> bool {
    let RGBColor(r, g, b) = colour;
    0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b) < 140.0
}

/// A number for an axis or label: `k` and `M` for thousands and millions, at most two decimals, no trailing
/// zeros.
pub(in crate::report::chart) fn number(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 || (a >= 1e3 && (v / 1e3).fract().abs() < 1e-9) {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = format!("{scaled:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(20.0), "20");
        assert_eq!(number(1500.0), "1500");
        assert_eq!(number(2000.0), "2k");
        assert_eq!(number(20_000.0), "20k");
        assert_eq!(number(12_500.0), "12.5k");
        assert_eq!(number(2_000_000.0), "2M");
    }

    #[test]
    fn the_rate_scale_runs_from_red_to_blue() {
        assert_eq!(rate_colour(0.0), RGBColor(165, 0, 38));
        assert_eq!(rate_colour(1.0), RGBColor(49, 104, 170));
        assert!(needs_light_text(rate_colour(0.0)));
        assert!(!needs_light_text(rate_colour(0.8)));
    }
}
