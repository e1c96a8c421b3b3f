//! Shared looks: font sizes, each strategy's look on every chart ([`strategy`]: colour, marker and dash by its
//! place in the registry, the reference always black and wider), the colour scale of rates, and how numbers are
//! printed on axes and labels.

use std::sync::OnceLock;

use plotters::chart::{ChartContext, MeshStyle};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::finalize::StrategyName;
use crate::metrics::StrategyKey;

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

/// Ten distinguishable colours (a Tableau-like palette, darkened where too light for lines on white; its grey
/// replaced by a dark violet, grey being the bounds' colour).
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
    RGBColor(0x5E, 0x3C, 0x99),
];

/// The `i`-th colour of things that are no strategy (kinds of needle, tokenizers, sources).
pub(in crate::report::chart) fn palette(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The shape of a point marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(in crate::report::chart) enum Shape {
    /// A circle.
    Circle,
    /// A square.
    Square,
    /// A triangle pointing up.
    Triangle,
    /// A square standing on a corner.
    Diamond,
}

/// A point marker: a shape, filled with the line's colour or hollow (white inside, outlined in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(in crate::report::chart) struct Marker {
    /// The shape.
    pub shape: Shape,
    /// Filled rather than hollow.
    pub filled: bool,
}

/// How a line is stroked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(in crate::report::chart) enum Dash {
    /// Unbroken.
    Solid,
    /// Long dashes.
    Dashed,
    /// Short dots.
    Dotted,
}

impl Dash {
    /// The lengths of a dash and of the gap after it, in pixels; `None` for a solid line.
    pub(in crate::report::chart) fn pattern(self) -> Option<(u32, u32)> {
        match self {
            Dash::Solid => None,
            Dash::Dashed => Some((11, 6)),
            Dash::Dotted => Some((3, 4)),
        }
    }
}

/// How a strategy (or another line) looks on every chart of every report: the colour of its line, bar or box,
/// the marker at its points and the dash of its line, and the line's width. Colour, marker and dash each tell it
/// apart on their own, so charts printed in grey still do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(in crate::report::chart) struct StrategyStyle {
    /// The colour.
    pub colour: RGBColor,
    /// The marker at its points.
    pub marker: Marker,
    /// The dash of its line.
    pub dash: Dash,
    /// The width of its line in pixels.
    pub width: u32,
}

/// The reference's look: black, solid, wider than the others, filled circles.
pub(in crate::report::chart) const REFERENCE: StrategyStyle = StrategyStyle {
    colour: BASELINE,
    marker: Marker {
        shape: Shape::Circle,
        filled: true,
    },
    dash: Dash::Solid,
    width: 4,
};

/// The look of a bound (the needle upper bound, a rule): grey and dashed, with no marker of its own.
pub(in crate::report::chart) const BOUND: StrategyStyle = StrategyStyle {
    colour: MUTED,
    marker: Marker {
        shape: Shape::Circle,
        filled: false,
    },
    dash: Dash::Dashed,
    width: 2,
};

/// The look of a point over budget on a line chart: a hollow grey circle in place of the line's own marker.
pub(in crate::report::chart) const OVER_BUDGET: StrategyStyle = StrategyStyle {
    colour: RGBColor(140, 140, 140),
    marker: Marker {
        shape: Shape::Circle,
        filled: false,
    },
    dash: Dash::Solid,
    width: 2,
};

/// The markers, in the order looks take them: shapes and fills alternate.
const MARKERS: [Marker; 8] = {
    const fn m(shape: Shape, filled: bool) -> Marker {
        Marker { shape, filled }
    }
    [
        m(Shape::Circle, true),
        m(Shape::Square, false),
        m(Shape::Triangle, true),
        m(Shape::Diamond, false),
        m(Shape::Circle, false),
        m(Shape::Square, true),
        m(Shape::Triangle, false),
        m(Shape::Diamond, true),
    ]
};

/// The dashes, in the order looks take them.
const DASHES: [Dash; 3] = [Dash::Solid, Dash::Dashed, Dash::Dotted];

/// How many looks differ in all of colour, marker and dash together (10 x 8 x 3 have 120 distinct triples when
/// look `k` takes the `k`-th of each, modulo its count, as the counts' least common multiple is 120); the first
/// 24 also differ in marker and dash alone.
pub(in crate::report::chart) const LOOKS: usize = 120;

/// Look `k` of the strategies that are not the reference: the `k`-th colour, marker and dash, each modulo its
/// count (the first 40 differ in colour and marker together).
pub(in crate::report::chart) fn look(k: usize) -> StrategyStyle {
    StrategyStyle {
        colour: PALETTE[k % PALETTE.len()],
        marker: MARKERS[k % MARKERS.len()],
        dash: DASHES[k % DASHES.len()],
        width: 2,
    }
}

/// The registry's strategies but the reference, in listing order (`head-tail` by its listed ratios).
fn registered() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        StrategyName::all()
            .iter()
            .filter(|n| StrategyKey::of(n) != StrategyKey::of(&StrategyName::REFERENCE))
            .map(|n| n.as_str().into_owned())
            .collect()
    })
}

/// The look of strategy `name` on every chart: [`REFERENCE`] for the reference; for the registry's `k`-th other
/// strategy (`budgetlab strategies` order), look `k`, so that no two of them share a colour, marker and dash
/// (and none of them a marker and dash, as long as there are at most 24); for any other name (an external
/// strategy, a head share the registry does not list), one of the remaining looks chosen by a hash of the name,
/// the same in every chart and every report (two such names may share one; their labels tell them apart).
pub(in crate::report::chart) fn strategy(name: &str) -> StrategyStyle {
    let canonical = name
        .parse::<StrategyName>()
        .map_or_else(|_| name.to_string(), |n| n.as_str().into_owned());
    if canonical == StrategyName::REFERENCE.as_str() {
        return REFERENCE;
    }
    let listed = registered();
    match listed.iter().position(|n| *n == canonical) {
        Some(k) => look(k),
        None => {
            // FNV-1a: stable across builds and platforms, unlike the standard library's hasher.
            let hash = canonical.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            });
            let spare = (LOOKS - listed.len()) as u64;
            look(listed.len() + (hash % spare) as usize)
        }
    }
}

/// The look of the `i`-th line of a chart whose lines are no strategies (budgets, a profile's sources): looks
/// after the registry's, so that none is mistaken for a built-in strategy.
pub(in crate::report::chart) fn other(i: usize) -> StrategyStyle {
    look(registered().len() + i % (LOOKS - registered().len()))
}

/// The mesh of a chart in the shared look: axis names and tick labels in the charts' text sizes, the grid's lines
/// faint. The caller names its axes, formats their labels and draws it.
pub(in crate::report::chart) fn mesh<'a, 'b, DB, X, Y, XT, YT>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
) -> MeshStyle<'a, 'b, X, Y, DB>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
{
    let mut mesh = chart.configure_mesh();
    mesh.axis_desc_style(text(AXIS))
        .label_style(text(TICK))
        .bold_line_style(RGBColor(0, 0, 0).mix(0.15))
        .light_line_style(RGBColor(0, 0, 0).mix(0.05));
    mesh
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
