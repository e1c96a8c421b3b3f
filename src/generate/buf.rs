//! The text builder every kind of output is written with: a pre-sized `String` that also counts its length in
//! UTF-16 units as it grows, formats numbers without going through `fmt`, repeats sections by copying them, and
//! records the needles planted in it at their UTF-16 offsets.

use crate::needles::NeedleKind;

/// A needle planted in one text, before it is placed in a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Planted {
    /// What the needle is.
    pub kind: NeedleKind,
    /// UTF-16 offset of its first unit in the text.
    pub offset: usize,
    /// Its exact text.
    pub text: String,
}

/// A finished text and the needles planted in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Written {
    /// The text.
    pub text: String,
    /// Its length in UTF-16 units.
    pub units: usize,
    /// Its needles, in offset order.
    pub needles: Vec<Planted>,
}

/// A growing text that knows its UTF-16 length.
#[derive(Debug, Clone, Default)]
pub(crate) struct TextBuf {
    s: String,
    units: usize,
    needles: Vec<Planted>,
}

/// A position in a [`TextBuf`]: byte and UTF-16 offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    bytes: usize,
    units: usize,
}

impl Mark {
    /// The UTF-16 offset of this position.
    pub(super) fn units(self) -> usize {
        self.units
    }
}

impl TextBuf {
    /// An empty buffer with room for about `units` UTF-16 units of mostly ASCII text.
    pub(super) fn with_capacity(units: usize) -> TextBuf {
        TextBuf {
            s: String::with_capacity(units + units / 16 + 64),
            units: 0,
            needles: Vec::new(),
        }
    }

    /// The length so far, in UTF-16 units.
    #[inline]
    pub(super) fn units(&self) -> usize {
        self.units
    }

    /// The text so far.
    pub(super) fn as_str(&self) -> &str {
        &self.s
    }

    /// Appends ASCII text (one unit per byte).
    #[inline]
    pub(super) fn ascii(&mut self, s: &str) {
        debug_assert!(s.is_ascii(), "{s:?}");
        self.s.push_str(s);
        self.units += s.len();
    }

    /// Appends any text.
    #[inline]
    pub(super) fn push(&mut self, s: &str) {
        self.s.push_str(s);
        self.units += crate::text::utf16_len(s);
    }

    /// Appends a newline.
    #[inline]
    pub(super) fn nl(&mut self) {
        self.s.push('\n');
        self.units += 1;
    }

    /// Appends a decimal number.
    #[inline]
    pub(super) fn num(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.ascii_bytes(&digits[i..]);
    }

    /// Appends a decimal number left-padded with zeros to `width` digits.
    #[inline]
    pub(super) fn num_pad(&mut self, n: u64, width: usize) {
        let mut digits = [b'0'; 20];
        let mut i = digits.len();
        let mut v = n;
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        let start = i.min(digits.len().saturating_sub(width));
        self.ascii_bytes(&digits[start..]);
    }

    /// Appends a decimal number right-aligned in `width` columns (space padded).
    pub(super) fn num_right(&mut self, n: u64, width: usize) {
        let len = decimal_len(n);
        for _ in len..width {
            self.s.push(' ');
            self.units += 1;
        }
        self.num(n);
    }

    /// Appends a number with thousands separators (`12,345`).
    pub(super) fn num_grouped(&mut self, n: u64) {
        if n < 1000 {
            self.num(n);
            return;
        }
        self.num_grouped(n / 1000);
        self.ascii(",");
        self.num_pad(n % 1000, 3);
    }

    /// Appends `whole.frac` with `decimals` fractional digits, from a value given in units of 10^-decimals.
    pub(super) fn fixed(&mut self, scaled: u64, decimals: u32) {
        let div = 10u64.pow(decimals);
        self.num(scaled / div);
        self.ascii(".");
        self.num_pad(scaled % div, decimals as usize);
    }

    /// Appends the low `digits` hex digits of `n`, lower case.
    #[inline]
    pub(super) fn hex(&mut self, n: u64, digits: usize) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 16];
        let digits = digits.min(16);
        for (i, slot) in out[..digits].iter_mut().enumerate() {
            *slot = HEX[((n >> (4 * (digits - 1 - i))) & 0xf) as usize];
        }
        self.ascii_bytes(&out[..digits]);
    }

    /// Appends `n` copies of ASCII byte `b`.
    pub(super) fn repeat_byte(&mut self, b: u8, n: usize) {
        debug_assert!(b.is_ascii());
        for _ in 0..n {
            self.s.push(b as char);
        }
        self.units += n;
    }

    #[inline]
    fn ascii_bytes(&mut self, bytes: &[u8]) {
        // The bytes are ASCII digits or hex letters.
        self.s
            .push_str(std::str::from_utf8(bytes).expect("ascii digits"));
        self.units += bytes.len();
    }

    /// The current position.
    #[inline]
    pub(super) fn mark(&self) -> Mark {
        Mark {
            bytes: self.s.len(),
            units: self.units,
        }
    }

    /// The text written since `mark`.
    pub(super) fn since(&self, mark: Mark) -> &str {
        &self.s[mark.bytes..]
    }

    /// Appends `times` more copies of the text written since `mark` (a repeated section).
    pub(super) fn repeat_since(&mut self, mark: Mark, times: usize) {
        let section = self.s[mark.bytes..].to_string();
        let units = self.units - mark.units;
        self.s.reserve(section.len() * times);
        for _ in 0..times {
            self.s.push_str(&section);
        }
        self.units += units * times;
    }

    /// Appends a line written by `write` (without its newline) and plants it as a needle of `kind`.
    pub(super) fn needle_line(&mut self, kind: NeedleKind, write: impl FnOnce(&mut TextBuf)) {
        let mark = self.mark();
        write(self);
        self.plant(kind, mark);
    }

    /// Plants the text written since `mark` as a needle of `kind`.
    pub(super) fn plant(&mut self, kind: NeedleKind, mark: Mark) {
        let text = self.s[mark.bytes..].to_string();
        if !text.is_empty() {
            self.needles.push(Planted {
                kind,
                offset: mark.units,
                text,
            });
        }
    }

    /// Appends another finished text, moving its needles to their new offsets.
    pub(super) fn append(&mut self, other: Written) {
        let base = self.units;
        self.s.push_str(&other.text);
        self.units += other.units;
        self.needles.extend(other.needles.into_iter().map(|mut n| {
            n.offset += base;
            n
        }));
    }

    /// The finished text and its needles.
    pub(super) fn finish(self) -> Written {
        Written {
            text: self.s,
            units: self.units,
            needles: self.needles,
        }
    }
}

impl Written {
    /// A text without needles.
    pub(crate) fn plain(text: String) -> Written {
        let units = crate::text::utf16_len(&text);
        Written {
            text,
            units,
            needles: Vec::new(),
        }
    }
}

/// Number of decimal digits of `n`.
pub(crate) fn decimal_len(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_units_and_formats_numbers() {
        let mut b = TextBuf::with_capacity(10);
        b.num(0);
        b.ascii(" ");
        b.num(90210);
        b.ascii(" ");
        b.num_pad(7, 3);
        b.ascii(" ");
        b.num_right(42, 5);
        b.ascii(" ");
        b.num_grouped(1_234_005);
        b.ascii(" ");
        b.fixed(421, 2);
        b.ascii(" ");
        b.hex(0xbeef, 6);
        b.push(" 😀中");
        let w = b.finish();
        assert_eq!(w.text, "0 90210 007    42 1,234,005 4.21 00beef 😀中");
        assert_eq!(w.units, crate::text::utf16_len(&w.text));
    }

    #[test]
    fn repeats_sections_and_moves_needles() {
        let mut b = TextBuf::with_capacity(10);
        b.push("é");
        let m = b.mark();
        b.ascii("ab\n");
        b.repeat_since(m, 2);
        assert_eq!(b.as_str(), "éab\nab\nab\n");
        assert_eq!(b.units(), 10);
        let mut inner = TextBuf::with_capacity(4);
        inner.ascii("x");
        inner.needle_line(NeedleKind::ExitInfo, |b| b.ascii("Exit Code: 1"));
        b.append(inner.finish());
        let w = b.finish();
        assert_eq!(w.needles.len(), 1);
        assert_eq!(w.needles[0].offset, 11);
        assert_eq!(w.needles[0].text, "Exit Code: 1");
    }
}
