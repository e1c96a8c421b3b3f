//! A scenario's texture (`[texture]`, [`Texture`]) applied to the drafts the kinds write, from the batch's own
//! texture stream (never the stream the kinds draw from, so the sizes drawn stay what they were; a shell output
//! whose style drops the generator's header and exit line is written [`framing_allowance`] units longer, so that
//! its own text still comes to its drawn size). Two steps, each editing the text with `splice`, so the needles
//! stay at their places:
//!
//! - [`frame`], before the producers' previews: the harness's framing of a shell output (its exit-line style,
//!   with the generator's own `Command:` / `Output:` header only in the `header` style) and, at
//!   `summary_start_share`, the summary line moved to the start of the output (a search's match count becomes a
//!   `Found N matches in M files` header);
//! - [`surface`], on the result as it will be sent (output, error and hook text): emptied at `empty_share`, and
//!   each of ANSI escapes, CRLF line ends, an astral character and a non-ASCII character made present or absent
//!   as its share draws: absent by a rewrite (escapes removed, line ends made LF, an astral character turned into
//!   two BMP boxes, a non-ASCII character folded to ASCII of the same UTF-16 length), present by adding one (a
//!   coloured line, CRLF line ends, a word with the character at the end of a line or at the start of a JSON
//!   string value).
//!
//! A share left out of the scenario draws nothing and changes nothing.

use super::buf::Written;
use super::kinds::shell;
use super::splice::{self, byte_at};
use super::{Body, Draft};
use crate::needles::NeedleKind;
use crate::rng::Stream;
use crate::scenario::{ExitStyle, Texture};
use crate::text::utf16_len;
use crate::workload::Kind;

/// Words added to give a result an astral character (the emoji are all outside the BMP).
const ASTRAL_WORDS: &[&str] = &["🚀", "🎉", "👍", "🐛", "🔥", "📦", "🙂", "✨🎉"];

/// Words added to give a result a non-ASCII character, all in the BMP.
const BMP_WORDS: &[&str] = &[
    "café", "naïve", "→", "…", "µs", "±0.5", "Zürich", "✓", "—", "°C",
];

/// What an astral character becomes when a result must have none: two white squares, the length of the pair.
const ASTRAL_FOLD: &str = "\u{25a1}\u{25a1}";

/// How one shell output is framed: a named style, or the `i`-th of the scenario's `exit_lines`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Frame {
    /// A named style.
    Style(ExitStyle),
    /// A custom last line, by its index in the scenario's `exit_lines`.
    Line(usize),
}

/// The weights a frame is drawn with: the named styles' in [`ExitStyle::ALL`] order, then the exit lines'.
pub(crate) fn frame_weights(texture: &Texture) -> Vec<f64> {
    texture
        .exit_style_weights()
        .into_iter()
        .map(|(_, w)| w)
        .chain(texture.exit_lines.values().copied())
        .collect()
}

fn draw(rng: &mut Stream, weights: &[f64]) -> Frame {
    let i = rng.weighted(weights);
    match ExitStyle::ALL.get(i) {
        Some(style) => Frame::Style(*style),
        None => Frame::Line(i - ExitStyle::ALL.len()),
    }
}

/// The frame of the next output when it is of the shell kind and the scenario reframes shell outputs, drawn
/// before the kind writes it (see [`framing_allowance`]).
pub(crate) fn frame_of(
    rng: &mut Stream,
    texture: &Texture,
    weights: &[f64],
    kind: Kind,
) -> Option<Frame> {
    (kind == Kind::Shell && texture.reframes()).then(|| draw(rng, weights))
}

/// How many more units a shell output is written with in `frame` than in the generator's own: about what the
/// frame drops of the `Command:` / `Output:` header and the `Exit Code: N` line, so that the output's own text
/// still comes to the size drawn (small commands would otherwise be left with nothing).
pub(crate) fn framing_allowance(frame: Frame) -> usize {
    match frame {
        Frame::Style(ExitStyle::Header | ExitStyle::Returncode) => 0,
        Frame::Style(ExitStyle::Finished) => 20,
        Frame::Style(ExitStyle::ExitCode) | Frame::Line(_) => 35,
        Frame::Style(ExitStyle::None) => 48,
    }
}

/// Applies the harness framing: the exit line of a shell output (`frame`, or drawn here for a shell tool's output
/// of another kind) and the summary line's position.
pub(crate) fn frame(
    rng: &mut Stream,
    texture: &Texture,
    weights: &[f64],
    frame: Option<Frame>,
    kind: Kind,
    d: &mut Draft,
) {
    let is_shell = kind == Kind::Shell || d.tool == shell::TOOL;
    let Some(Body::Text(w)) = &mut d.output else {
        return;
    };
    if is_shell && texture.reframes() {
        match frame.unwrap_or_else(|| draw(rng, weights)) {
            Frame::Style(style) => exit_style(w, style, None),
            Frame::Line(i) => {
                let line = texture.exit_lines.keys().nth(i).map(String::as_str);
                exit_style(w, ExitStyle::ExitCode, line);
            }
        }
    }
    if texture.summary_start_share > 0.0
        && w.needles.iter().any(|n| n.kind == NeedleKind::SummaryLine)
        && rng.chance(texture.summary_start_share)
    {
        summary_first(w, kind == Kind::Search);
    }
}

/// Where a shell output's own text starts: after a `Command:` header through its `Output:` line, or after the
/// `<returncode>` line and `<output>` tag; 0 otherwise.
fn body_start(text: &str) -> usize {
    if text.starts_with("Command: ") {
        let mut at = 0;
        for line in text.split_inclusive('\n').take(4) {
            at += utf16_len(line);
            if line == "Output:\n" {
                return at;
            }
        }
    } else if text.starts_with("<returncode>") {
        if let Some(i) = text.find("\n<output>\n") {
            return utf16_len(&text[..i + "\n<output>\n".len()]);
        }
    }
    0
}

/// Rewrites a shell output's exit information in `style` (nothing for `header`, the style it is written in); with
/// `line`, a last line with the status where its last `N` is, in place of `exit_code`'s.
fn exit_style(w: &mut Written, style: ExitStyle, line: Option<&str>) {
    if style == ExitStyle::Header {
        return;
    }
    let Some(exit) = w.needles.last() else {
        return;
    };
    if exit.kind != NeedleKind::ExitInfo || exit.offset + utf16_len(&exit.text) != w.units {
        return;
    }
    let Some(code) = exit
        .text
        .strip_prefix("Exit Code: ")
        .map(|rest| rest.split(' ').next().unwrap_or(rest).to_string())
    else {
        return;
    };
    let start = exit.offset;
    let header = body_start(&w.text);
    let newline_before = start > header && w.text.as_bytes()[byte_at(&w.text, start) - 1] == b'\n';
    splice::remove(w, start - usize::from(newline_before), w.units);
    splice::remove(w, 0, header);
    let sep = |w: &Written| {
        if w.text.is_empty() || w.text.ends_with('\n') {
            ""
        } else {
            "\n"
        }
    };
    match style {
        ExitStyle::Header | ExitStyle::None => {}
        ExitStyle::Returncode => {
            let line = format!("<returncode>{code}</returncode>");
            splice::plant(w, 0, &line, NeedleKind::ExitInfo);
            splice::insert(w, line.len(), "\n<output>\n");
            let end = w.units;
            splice::insert(w, end, &format!("{}</output>", sep(w)));
        }
        ExitStyle::Finished | ExitStyle::ExitCode => {
            let end = w.units;
            splice::insert(w, end, sep(w));
            let line = match (style, line) {
                (ExitStyle::Finished, _) => format!("[Command finished with exit code {code}]"),
                (_, Some(template)) => {
                    let at = template.rfind('N').unwrap_or(template.len());
                    format!(
                        "{}{code}{}",
                        &template[..at],
                        &template[(at + 1).min(template.len())..]
                    )
                }
                _ => format!("Exit code: {code}"),
            };
            let end = w.units;
            splice::plant(w, end, &line, NeedleKind::ExitInfo);
        }
    }
}

/// Moves the last summary line (a whole line) to the start of the output's own text; a search's count becomes a
/// `Found ...` header.
fn summary_first(w: &mut Written, search: bool) {
    let Some(n) = w
        .needles
        .iter()
        .rfind(|n| n.kind == NeedleKind::SummaryLine)
        .cloned()
    else {
        return;
    };
    let (start, end) = (n.offset, n.offset + utf16_len(&n.text));
    let bytes = w.text.as_bytes();
    let (from, to) = (byte_at(&w.text, start), byte_at(&w.text, end));
    let whole = (from == 0 || bytes[from - 1] == b'\n')
        && (to == bytes.len() || bytes[to] == b'\n' || bytes[to] == b'\r');
    let at = body_start(&w.text);
    if !whole || start < at || (start == at && !search) {
        return;
    }
    // The line goes with the line end before it (or, first already, the one after it).
    if start > at {
        splice::remove(w, start - 1, end);
    } else {
        let after =
            usize::from(to < bytes.len() && bytes[to] == b'\r') + usize::from(to < bytes.len());
        splice::remove(w, start, end + after);
    }
    let line = if search {
        format!("Found {}", n.text)
    } else {
        n.text
    };
    let rest = w.units > at;
    splice::plant(w, at, &line, NeedleKind::SummaryLine);
    if rest {
        splice::insert(w, at + utf16_len(&line), "\n");
    }
}

/// Applies the shares of the result's surface: empty, ANSI escapes, CRLF, astral and non-ASCII characters.
pub(crate) fn surface(
    rng: &mut Stream,
    texture: &Texture,
    d: &mut Draft,
    hook: &mut Option<Written>,
) {
    if let Some(p) = texture.empty_share {
        if rng.chance(p) {
            empty(d, hook);
            return;
        }
    }
    if let Some(p) = texture.ansi_share {
        let want = rng.chance(p);
        let has = fields(d, hook).iter().any(|w| w.text.contains('\x1b'));
        if want && !has {
            if let Some(w) = main(d) {
                colour_a_line(rng, w);
            }
        } else if !want && has {
            for w in fields(d, hook) {
                if w.text.contains('\x1b') {
                    splice::map_text(w, strip_ansi);
                }
            }
        }
    }
    if let Some(p) = texture.crlf_share {
        let want = rng.chance(p);
        let mut fields = fields(d, hook);
        if want {
            let any_line_end = fields.iter().any(|w| w.text.contains('\n'));
            for w in fields.iter_mut().filter(|w| w.text.contains('\n')) {
                splice::map_text(w, to_crlf);
            }
            if !any_line_end {
                // A one-line result ends its line the same way.
                if let Some(w) = fields.into_iter().find(|w| !w.text.is_empty()) {
                    let end = w.units;
                    splice::insert(w, end, "\r\n");
                }
            }
        } else {
            for w in fields.into_iter().filter(|w| w.text.contains("\r\n")) {
                splice::map_text(w, to_lf);
            }
        }
    }
    let mut has_astral = fields(d, hook).iter().any(|w| is_astral(&w.text));
    if let Some(p) = texture.astral_share {
        let want = rng.chance(p);
        if want && !has_astral {
            if let Some(w) = main(d) {
                has_astral = insert_word(rng, w, ASTRAL_WORDS);
            }
        } else if !want && has_astral {
            for w in fields(d, hook) {
                if is_astral(&w.text) {
                    splice::map_text(w, |piece, out| fold(piece, out, false));
                }
            }
            has_astral = false;
        }
    }
    if let Some(p) = texture.non_ascii_share {
        if has_astral {
            return;
        }
        // The astral share is part of this one: the rest are drawn among the results without an astral character.
        let a = texture.astral_share.unwrap_or(0.0);
        let p = if a >= 1.0 {
            0.0
        } else {
            ((p - a) / (1.0 - a)).clamp(0.0, 1.0)
        };
        let want = rng.chance(p);
        let has = fields(d, hook).iter().any(|w| !w.text.is_ascii());
        if want && !has {
            if let Some(w) = main(d) {
                insert_word(rng, w, BMP_WORDS);
            }
        } else if !want && has {
            for w in fields(d, hook) {
                if !w.text.is_ascii() {
                    splice::map_text(w, |piece, out| fold(piece, out, true));
                }
            }
        }
    }
}

/// The result's text fields: the string output, the error and the hook text.
fn fields<'a>(d: &'a mut Draft, hook: &'a mut Option<Written>) -> Vec<&'a mut Written> {
    let mut out = Vec::with_capacity(3);
    if let Some(Body::Text(w)) = &mut d.output {
        out.push(w);
    }
    if let Some(w) = &mut d.error {
        out.push(w);
    }
    if let Some(w) = hook {
        out.push(w);
    }
    out
}

/// The field a word is added to: the string output, or else the error.
fn main(d: &mut Draft) -> Option<&mut Written> {
    match &mut d.output {
        Some(Body::Text(w)) => Some(w),
        _ => d.error.as_mut(),
    }
}

/// Every text field an empty string, the hook text gone.
fn empty(d: &mut Draft, hook: &mut Option<Written>) {
    if let Some(Body::Text(w)) = &mut d.output {
        *w = Written::default();
    }
    if let Some(w) = &mut d.error {
        *w = Written::default();
    }
    *hook = None;
}

/// Whether `text` has a character outside the BMP (a four-byte UTF-8 sequence).
fn is_astral(text: &str) -> bool {
    text.bytes().any(|b| b >= 0xf0)
}

/// Whether `text` is a JSON document: its first non-blank character opens an object, or an array whose first
/// value starts there (`[File: ...]` is not one).
fn is_json(text: &str) -> bool {
    let t = text.trim_start();
    match t.as_bytes().first() {
        Some(b'{') => true,
        Some(b'[') => matches!(
            t[1..].trim_start().as_bytes().first(),
            Some(b'{' | b'[' | b'"' | b']' | b'-' | b'0'..=b'9')
        ),
        _ => false,
    }
}

/// The lines of `w` no needle touches that hold something, as UTF-16 ranges.
fn free_lines(w: &Written) -> Vec<(usize, usize)> {
    splice::line_ranges(&w.text)
        .into_iter()
        .filter(|&(s, e)| {
            e > s
                && !w.needles.iter().any(|n| {
                    let end = n.offset + utf16_len(&n.text);
                    n.offset <= e && end >= s
                })
        })
        .collect()
}

/// Adds one of `words`: at the start of a JSON string value in JSON text, else at the end of a line no needle is
/// on. Whether there was a place for it.
fn insert_word(rng: &mut Stream, w: &mut Written, words: &[&str]) -> bool {
    let word = rng.pick(words);
    if is_json(&w.text) {
        // Each `": "` or `":"` before a string value: the value starts after its quote.
        let starts: Vec<usize> = value_starts(&w.text).take(256).collect();
        let free: Vec<usize> = starts
            .into_iter()
            .map(|b| utf16_len(&w.text[..b]))
            .filter(|&at| !splice::inside_needle(w, at))
            .collect();
        if free.is_empty() {
            return false;
        }
        let at = free[rng.index(free.len())];
        splice::insert(w, at, &format!("{word} "));
        return true;
    }
    let mut lines = free_lines(w);
    if lines.is_empty() {
        // Every line holds a needle: the word goes after the last one that has text (the needle stays whole).
        lines.extend(
            splice::line_ranges(&w.text)
                .into_iter()
                .rev()
                .find(|&(s, e)| e > s && !splice::inside_needle(w, e)),
        );
    }
    let Some(&(_, end)) = lines.get(rng.index(lines.len().max(1))) else {
        return false;
    };
    splice::insert(w, end, &format!(" {word}"));
    true
}

/// Byte offsets of the first character of each JSON string value that follows a key.
fn value_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(3)).filter_map(move |i| {
        if bytes[i] != b'"' || bytes[i + 1] != b':' {
            return None;
        }
        match (bytes[i + 2], bytes.get(i + 3)) {
            (b'"', _) => Some(i + 3),
            (b' ', Some(b'"')) => Some(i + 4),
            _ => None,
        }
    })
}

/// Colours one line no needle is on (bold), unless the text is JSON or has no such line.
fn colour_a_line(rng: &mut Stream, w: &mut Written) {
    if is_json(&w.text) {
        return;
    }
    let lines = free_lines(w);
    if lines.is_empty() {
        return;
    }
    let (start, end) = lines[rng.index(lines.len())];
    splice::insert(w, end, "\x1b[0m");
    splice::insert(w, start, "\x1b[1m");
}

/// `piece` without its ANSI escape sequences (CSI `ESC [ ... final`, or `ESC` and one character).
fn strip_ansi(piece: &str, out: &mut String) {
    let mut chars = piece.chars();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        if let Some('[') = chars.next() {
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
    }
}

/// `piece` with every LF line end (not already CRLF) made CRLF.
fn to_crlf(piece: &str, out: &mut String) {
    let mut prev = '\0';
    for c in piece.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
}

/// `piece` with its CRLF line ends made LF.
fn to_lf(piece: &str, out: &mut String) {
    out.push_str(&piece.replace("\r\n", "\n"));
}

/// `piece` with its astral characters as two white squares and, when `to_ascii`, every other non-ASCII character
/// as ASCII of the same UTF-16 length (accents dropped, punctuation and box drawing by their ASCII look-alikes,
/// the rest `?`).
fn fold(piece: &str, out: &mut String, to_ascii: bool) {
    for c in piece.chars() {
        if c.is_ascii() {
            out.push(c);
        } else if c.len_utf16() == 2 {
            out.push_str(if to_ascii { "??" } else { ASTRAL_FOLD });
        } else if to_ascii {
            out.push(ascii_of(c));
        } else {
            out.push(c);
        }
    }
}

/// The ASCII character a BMP character is folded to.
fn ascii_of(c: char) -> char {
    match c {
        'à'..='å' => 'a',
        'À'..='Å' => 'A',
        'è'..='ë' => 'e',
        'È'..='Ë' => 'E',
        'ì'..='ï' => 'i',
        'Ì'..='Ï' => 'I',
        'ò'..='ö' | 'ø' => 'o',
        'Ò'..='Ö' | 'Ø' => 'O',
        'ù'..='ü' => 'u',
        'Ù'..='Ü' => 'U',
        'ç' => 'c',
        'Ç' => 'C',
        'ñ' => 'n',
        'Ñ' => 'N',
        'ý' | 'ÿ' => 'y',
        'ß' => 's',
        '‘' | '’' | '′' => '\'',
        '“' | '”' | '″' => '"',
        '–' | '—' | '─' | '━' | '−' => '-',
        '│' | '┃' => '|',
        '…' | '·' | '•' => '.',
        '→' | '›' | '»' => '>',
        '←' | '‹' | '«' => '<',
        '×' => 'x',
        '\u{a0}' | '\u{2009}' | '\u{202f}' => ' ',
        _ => '?',
    }
}

#[cfg(test)]
mod tests;
