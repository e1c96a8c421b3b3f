//! Results of a kind with an empirical size model (`[empirical.KIND]`) written to exactly the size drawn: the
//! kind writes its text as ever (to the drawn size, framing around it), then the result's main field (its string
//! output, or else its error) is cut or padded so that its text fields together come to the size. A cut keeps the
//! end of the text (where exit lines, view markers and the last lines of a log are) and removes from the start; a
//! pad puts lines of invented words, drawn from the batch's stream, before the last line (every result of 16
//! units or more gets at least a line with a drawn number, so that cut-down results do not repeat each other). Needles a cut reaches
//! are dropped, the others keep their text and move with it (`splice`). Applied before the texture's surface,
//! which may still add a few units (a CRLF line end, an astral word, a coloured line) or empty the result.

use super::buf::Written;
use super::splice;
use super::vocab::{NOUNS, VERBS};
use super::{Body, Draft};
use crate::rng::Stream;
use crate::text::{head, utf16_len};

/// Cuts or pads `d` so that its text fields come to `units` UTF-16 units (a unit more when the cut would split a
/// surrogate pair). A draft without a string output or error (a JSON object, media alone) is left as it is.
pub(crate) fn fit(rng: &mut Stream, d: &mut Draft, units: usize) {
    let (main, other) = match (&mut d.output, &mut d.error) {
        (Some(Body::Text(w)), error) => (w, error.as_ref().map_or(0, |e| e.units)),
        (_, Some(w)) => (w, 0),
        _ => return,
    };
    let want = units.saturating_sub(other);
    // A result of SALT_FROM units or more carries a line of its own drawn number: cut down from a kind's
    // templated text (a one-line success, a short command's header and exit line), results would otherwise repeat
    // each other far more often than a corpus of a few hundred does; the scenario's `repeat_share` gives repeats.
    let salt = if want >= SALT_FROM { SALT } else { 0 };
    if main.units + salt > want {
        cut(main, want - salt);
    }
    if main.units < want {
        pad(rng, main, want - main.units);
    }
}

/// Results of this many units or more get a drawn number (see [`fit`]).
const SALT_FROM: usize = 16;
/// Units of the number line: seven digits and a line end.
const SALT: usize = 8;

/// The first offset at or after `at` that is not inside a surrogate pair.
fn boundary(text: &str, at: usize) -> usize {
    let before = utf16_len(head(text, at));
    if before == at {
        at
    } else {
        at + 1
    }
}

/// Keeps the last `want` units of `w` (one fewer when the first of them would be the second half of a pair).
fn cut(w: &mut Written, want: usize) {
    let start = boundary(&w.text, w.units - want);
    splice::remove(w, 0, start);
}

/// Adds `need` units of invented words to `w`, the first a seven-digit number: before its last line, or at its
/// end when that line's start is inside a needle.
fn pad(rng: &mut Stream, w: &mut Written, need: usize) {
    let last_line = w.text.rfind('\n').map_or(0, |i| utf16_len(&w.text[..=i]));
    let (at, before_line) = if !splice::inside_needle(w, last_line) {
        (last_line, w.units > 0)
    } else {
        (w.units, false)
    };
    let mut filler = String::with_capacity(need + 16);
    let mut words = 0;
    while filler.len() < need {
        if words > 0 {
            filler.push(if words % 9 == 0 { '\n' } else { ' ' });
        }
        let r = rng.next_u32() as usize;
        if words == 0 {
            filler.push_str(&format!("{:07}", r % 10_000_000));
        } else if r.is_multiple_of(5) {
            filler.push_str(&(r >> 8).to_string());
        } else {
            let list = if r.is_multiple_of(2) { NOUNS } else { VERBS };
            filler.push_str(list[(r >> 8) % list.len()]);
        }
        words += 1;
    }
    filler.truncate(need);
    if need > 1 {
        // The pad is its own lines: it ends a line before the text's last line, or starts one after its end.
        if before_line {
            filler.pop();
            filler.push('\n');
        } else if at > 0 {
            filler.pop();
            filler.insert(0, '\n');
        }
    }
    splice::insert(w, at, &filler);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::needles::NeedleKind;
    use crate::rng::Seed;

    fn written(text: &str, exit: &str) -> Written {
        let mut w = Written::plain(text.to_string());
        let end = w.units;
        splice::plant(&mut w, end, exit, NeedleKind::ExitInfo);
        w
    }

    #[test]
    fn a_result_comes_to_the_size_drawn() {
        let mut rng = Stream::derive(Seed(1), "exact", 0);
        for units in [0, 1, 2, 7, 40, 41, 300, 5_000] {
            let mut d = Draft::output(
                "bash",
                Body::Text(written("line one\nline two\n", "Exit Code: 0")),
            );
            fit(&mut rng, &mut d, units);
            let Some(Body::Text(w)) = &d.output else {
                unreachable!()
            };
            assert_eq!((w.units, utf16_len(&w.text)), (units, units), "{w:?}");
            // The exit line, last, stays whole and a needle when it fits.
            if units >= 12 {
                assert!(
                    w.text.ends_with("\nExit Code: 0") || units == 12,
                    "{}",
                    w.text
                );
                let n = w.needles.last().unwrap();
                assert_eq!((n.offset, n.text.as_str()), (units - 12, "Exit Code: 0"));
            } else {
                assert!(w.needles.is_empty());
            }
        }
    }

    #[test]
    fn an_error_is_fitted_beside_its_output_and_pairs_are_not_split() {
        let mut rng = Stream::derive(Seed(2), "exact", 0);
        let mut d = Draft::output("t", Body::Text(Written::plain("ab🚀cd".into())));
        d.error = Some(Written::plain("boom".into()));
        fit(&mut rng, &mut d, 7);
        let Some(Body::Text(w)) = &d.output else {
            unreachable!()
        };
        // 3 units wanted of "ab🚀cd": the cut would split the pair, so "cd" is kept and a unit padded.
        assert_eq!(w.units, 3);
        assert!(w.text.ends_with("cd") && w.text.is_ascii(), "{}", w.text);
        let mut d = Draft::error("t", Written::plain("x".into()));
        fit(&mut rng, &mut d, 30);
        let e = d.error.unwrap();
        assert_eq!((e.units, utf16_len(&e.text)), (30, 30));
        assert!(e.text.ends_with("\nx"), "{}", e.text);
        let mut d = Draft::output("t", Body::Json(serde_json::json!({"a": 1})));
        fit(&mut rng, &mut d, 30);
        assert!(matches!(d.output, Some(Body::Json(_))));
    }
}
