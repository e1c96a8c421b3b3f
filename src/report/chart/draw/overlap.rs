//! Lines that a panel draws on the same pixels show as one line, whatever their looks: the panel names them
//! together in the corner of the panel its lines leave most free (`one line: a, b, c`), or above the data where
//! every corner holds a line, so that no strategy hides behind another unsaid and the note hides no line while
//! it takes under half the panel's height.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::ScaleCoord;
use super::style::{self, SMALL};
use super::DrawResult;
use crate::report::chart::data::Series;

/// The notes of `lines` on `chart` (a line of text a group of lines drawn on the same pixels, broken after
/// commas where wider than the panel) and every line's points in pixels.
fn notes<DB: DrawingBackend>(
    chart: &ChartContext<'_, DB, Cartesian2d<ScaleCoord, ScaleCoord>>,
    lines: &[&Series],
) -> (Vec<String>, Vec<Vec<(i32, i32)>>) {
    let pixels: Vec<Vec<(i32, i32)>> = lines
        .iter()
        .map(|s| s.points.iter().map(|p| chart.backend_coord(p)).collect())
        .collect();
    let (xs, _) = chart.plotting_area().get_pixel_range();
    let notes = coinciding(&pixels)
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
    (notes, pixels)
}

/// The box the notes take: width and height in pixels.
fn notes_box(notes: &[String]) -> (i32, i32) {
    let width = notes
        .iter()
        .map(|n| super::text::width(n, SMALL) as i32)
        .max()
        .unwrap_or(0);
    (width + 8, notes.len() as i32 * NOTE_LINE + 4)
}

/// The share of the vertical axis to add above the data so that the notes of `lines` fit over it, when every
/// corner of the plotting area would have them cover a line; `None` when there are no notes, a corner is free,
/// or the notes would take half the panel's height.
pub(in crate::report::chart) fn headroom<DB: DrawingBackend>(
    chart: &ChartContext<'_, DB, Cartesian2d<ScaleCoord, ScaleCoord>>,
    lines: &[&Series],
) -> Option<f64> {
    let (notes, pixels) = notes(chart, lines);
    if notes.is_empty() {
        return None;
    }
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let size = notes_box(&notes);
    let plot = [xs.start, ys.start, xs.end, ys.end];
    let corner = quietest_corner(plot, size, &pixels);
    let free = covered(corner, size, &pixels) == 0;
    let height = ys.end - ys.start;
    let need = size.1 + 16;
    (!free && 2 * need < height).then(|| f64::from(need) / f64::from(height - need))
}

/// Names, in the corner of `chart`'s plotting area in `area` that its lines cross least, each group of `lines`
/// drawn on the same pixels, a line of text a group (broken after commas where it is wider than the panel).
pub(in crate::report::chart) fn name_coinciding<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &ChartContext<'_, DB, Cartesian2d<ScaleCoord, ScaleCoord>>,
    lines: &[&Series],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (notes, pixels) = notes(chart, lines);
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let base = area.get_base_pixel();
    if notes.is_empty() {
        return Ok(());
    }
    let size = notes_box(&notes);
    let width = size.0 - 8;
    let plot = [xs.start, ys.start, xs.end, ys.end];
    let (left, top, right) = quietest_corner(plot, size, &pixels);
    area.draw(&Rectangle::new(
        [
            (left - base.0, top - base.1),
            (left + size.0 - base.0, top + size.1 - base.1),
        ],
        WHITE.mix(0.85).filled(),
    ))?;
    for (k, note) in notes.iter().enumerate() {
        let y = top - base.1 + 2 + (k as i32 + 1) * NOTE_LINE;
        let (x, pos) = if right {
            (left + width + 4 - base.0, HPos::Right)
        } else {
            (left + 4 - base.0, HPos::Left)
        };
        area.draw_text(
            note,
            &style::anchored(SMALL, pos, VPos::Bottom, style::INK),
            (x, y),
        )?;
    }
    Ok(())
}

/// How many pixels of `lines` (their segments sampled every 2 pixels) a box of `size` at corner `(left, top, _)`
/// covers.
fn covered((x, y, _): (i32, i32, bool), (w, h): (i32, i32), lines: &[Vec<(i32, i32)>]) -> usize {
    let inside = |(px, py): (i32, i32)| px >= x && px <= x + w && py >= y && py <= y + h;
    lines
        .iter()
        .map(|line| {
            line.windows(2)
                .map(|s| {
                    let ((x0, y0), (x1, y1)) = (s[0], s[1]);
                    let n = ((x1 - x0).abs().max((y1 - y0).abs()) / 2).max(1);
                    (0..=n)
                        .filter(|&k| inside((x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n)))
                        .count()
                })
                .sum::<usize>()
                + usize::from(line.len() == 1 && inside(line[0]))
        })
        .sum()
}

/// Height of a line of the notes, in pixels.
const NOTE_LINE: i32 = 19;

/// Where a box of `size` (width, height) covers the fewest pixels of `lines` among the four corners of `plot`
/// (left, top, right, bottom; 8 pixels in from its edges): its left and top edges and whether it is a right
/// corner. Ties go to the bottom right, then the top right, the bottom left and the top left, so that a panel
/// whose lines leave the bottom right free keeps its notes there.
fn quietest_corner(
    plot: [i32; 4],
    size: (i32, i32),
    lines: &[Vec<(i32, i32)>],
) -> (i32, i32, bool) {
    let (w, h) = size;
    let corners = [
        (plot[2] - 8 - w, plot[3] - 8 - h, true),
        (plot[2] - 8 - w, plot[1] + 8, true),
        (plot[0] + 8, plot[3] - 8 - h, false),
        (plot[0] + 8, plot[1] + 8, false),
    ];
    let covered = |c: &(i32, i32, bool)| covered(*c, size, lines);
    let mut best = corners[0];
    let mut least = covered(&best);
    for c in &corners[1..] {
        let n = covered(c);
        if n < least {
            (best, least) = (*c, n);
        }
    }
    best
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
    fn the_notes_go_to_the_corner_the_lines_leave_free() {
        let plot = [0, 0, 400, 300];
        // A line along the bottom: the notes go to the top right.
        let bottom = vec![vec![(0, 290), (400, 290)]];
        assert_eq!(quietest_corner(plot, (100, 40), &bottom), (292, 8, true));
        // Lines along the bottom and across the top right: the top left is the one free corner.
        let two = vec![vec![(0, 290), (400, 290)], vec![(200, 20), (400, 20)]];
        assert_eq!(quietest_corner(plot, (100, 40), &two), (8, 8, false));
        // Nothing near a corner: the bottom right, as before.
        let middle = vec![vec![(0, 150), (400, 150)]];
        assert_eq!(quietest_corner(plot, (100, 40), &middle), (292, 252, true));
    }

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
