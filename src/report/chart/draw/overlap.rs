//! Lines that a panel draws on the same pixels show as one line, whatever their looks: the panel names them
//! together at its bottom right (`one line: a, b, c`), so that no strategy hides behind another unsaid.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::ScaleCoord;
use super::style::{self, SMALL};
use super::DrawResult;
use crate::report::chart::data::Series;

/// Names, at the bottom right of `chart`'s plotting area in `area`, each group of `lines` drawn on the same
/// pixels, a line of text a group (broken after commas where it is wider than the panel).
pub(in crate::report::chart) fn name_coinciding<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &ChartContext<'_, DB, Cartesian2d<ScaleCoord, ScaleCoord>>,
    lines: &[&Series],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let pixels: Vec<Vec<(i32, i32)>> = lines
        .iter()
        .map(|s| s.points.iter().map(|p| chart.backend_coord(p)).collect())
        .collect();
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let base = area.get_base_pixel();
    let notes: Vec<String> = coinciding(&pixels)
        .iter()
        .flat_map(|group| {
            let names: Vec<&str> = group.iter().map(|&i| lines[i].name.as_str()).collect();
            wrap(
                &format!("one line: {}", names.join(", ")),
                SMALL,
                (xs.end - xs.start - 24).max(0) as u32,
            )
        })
        .collect();
    for (k, note) in notes.iter().rev().enumerate() {
        let (x, y) = (xs.end - base.0 - 8, ys.end - base.1 - 8 - k as i32 * 19);
        let w = super::text::width(note, SMALL) as i32;
        area.draw(&Rectangle::new(
            [(x - w - 4, y - 18), (x + 4, y + 1)],
            WHITE.mix(0.85).filled(),
        ))?;
        area.draw_text(
            note,
            &style::anchored(SMALL, HPos::Right, VPos::Bottom, style::INK),
            (x, y),
        )?;
    }
    Ok(())
}

/// Groups of lines drawn on the same pixels (`pixels[i]`: line `i`'s points, each within 2 pixels of the other
/// line's), each of two lines or more, in the lines' order.
pub(in crate::report::chart) fn coinciding(pixels: &[Vec<(i32, i32)>]) -> Vec<Vec<usize>> {
    let same = |a: &[(i32, i32)], b: &[(i32, i32)]| {
        !a.is_empty()
            && a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(p, q)| (p.0 - q.0).abs() <= 2 && (p.1 - q.1).abs() <= 2)
    };
    let mut taken = vec![false; pixels.len()];
    let mut groups = Vec::new();
    for i in 0..pixels.len() {
        if taken[i] {
            continue;
        }
        let group: Vec<usize> = (i..pixels.len())
            .filter(|&j| !taken[j] && same(&pixels[i], &pixels[j]))
            .collect();
        if group.len() >= 2 {
            for &j in &group {
                taken[j] = true;
            }
            groups.push(group);
        }
    }
    groups
}

/// `text` broken after commas into lines at most `max` pixels wide at `size` (a line of one piece may be wider).
fn wrap(text: &str, size: u32, max: u32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for piece in text.split_inclusive(", ") {
        match lines.last_mut() {
            Some(last) if super::text::width(format!("{last}{piece}").trim_end(), size) <= max => {
                last.push_str(piece)
            }
            _ => lines.push(piece.to_string()),
        }
    }
    lines.iter().map(|l| l.trim_end().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_notes_break_after_commas() {
        let wide = super::super::text::width("one line: a, b,", SMALL);
        assert_eq!(
            wrap("one line: a, b, c", SMALL, wide),
            ["one line: a, b,", "c"]
        );
        assert_eq!(
            wrap("one line: a, b, c", SMALL, wide - 1),
            ["one line: a,", "b, c"]
        );
        assert_eq!(wrap("one line: a, b", SMALL, 1), ["one line: a,", "b"]);
    }
}
