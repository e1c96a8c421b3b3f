//! Where things are in a scenario file, from the spans the toml parser records: the line a field is written on,
//! and the field an error's span falls in. Nothing here reads the text or the parser's messages to find a
//! position; a dotted key (`shape.giant_rate = 1.5`) and an inline table (`shape = { giant_rate = 1.5 }`) are
//! found where they are written, as a `[shape]` table is.

use std::ops::Range;

use serde::de::DeserializeOwned;
use toml::de::{DeTable, DeValue, Deserializer};
use toml::Spanned;

use super::validate::FieldPath;

/// A problem at a place in a scenario file: its line, the field there and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located {
    /// 1-based line.
    pub line: usize,
    /// The field the problem is in (the root's path when the problem is the file as a whole).
    pub field: FieldPath,
    /// What is wrong: the parser's or serde's description.
    pub message: String,
}

/// A parsed scenario file: its text and the spanned tree of its tables.
pub(crate) struct Document<'i> {
    source: &'i str,
    root: Spanned<DeTable<'i>>,
}

impl<'i> Document<'i> {
    /// Parses `source` as TOML. A syntax error is located at the parser's span, in the field that holds it in
    /// what the parser could read (the root's path when none does).
    pub(super) fn parse(source: &'i str) -> Result<Document<'i>, Located> {
        match DeTable::parse(source) {
            Ok(root) => Ok(Document { source, root }),
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                let (partial, _) = DeTable::parse_recoverable(source);
                Err(Located {
                    line: line_at(source, span.start),
                    field: field_holding(partial.get_ref(), &span),
                    message: e.message().to_string(),
                })
            }
        }
    }

    /// Deserializes the document. An error is located at serde's span, in the field that holds it; an error of
    /// the root table itself (a missing key) is on line 1 with the root's path.
    pub(super) fn deserialize<T: DeserializeOwned>(&self) -> Result<T, Located> {
        T::deserialize(Deserializer::from(self.root.clone())).map_err(|e| {
            let span = e.span().filter(|s| *s != self.root.span());
            let (line, field) = match span {
                Some(span) => (
                    line_at(self.source, span.start),
                    field_holding(self.root.get_ref(), &span),
                ),
                None => (1, FieldPath::default()),
            };
            Located {
                line,
                field,
                message: e.message().to_string(),
            }
        })
    }

    /// Whether the root table has `key`.
    pub(super) fn has_key(&self, key: &str) -> bool {
        self.root.get_ref().iter().any(|(k, _)| k.get_ref() == key)
    }

    /// The line `field` is written on: its key's, or, when the file leaves the field out, the key of its nearest
    /// table the file writes (a `[table]` header, a dotted key's first part); line 1 when it writes none.
    pub(super) fn line_of(&self, field: &FieldPath) -> usize {
        let mut table = self.root.get_ref();
        let mut line = 1;
        for key in field.keys() {
            let Some((k, v)) = table.iter().find(|(k, _)| k.get_ref() == key) else {
                break;
            };
            line = line_at(self.source, k.span().start);
            match v.get_ref() {
                DeValue::Table(inner) => table = inner,
                _ => break,
            }
        }
        line
    }
}

/// The 1-based line of byte `offset` of `source`.
fn line_at(source: &str, offset: usize) -> usize {
    let end = offset.min(source.len());
    source.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn contains(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// The deepest field whose key or value spans `span`, searching every table (a `[table]`'s own span is its
/// header, so its keys are searched whether or not the table's span holds `span`). Arrays are not entered: a span
/// inside one belongs to the array's field.
fn field_holding(table: &DeTable<'_>, span: &Range<usize>) -> FieldPath {
    let mut best = FieldPath::default();
    search(table, span, &FieldPath::default(), &mut best);
    best
}

fn search(table: &DeTable<'_>, span: &Range<usize>, at: &FieldPath, best: &mut FieldPath) {
    for (k, v) in table.iter() {
        let path = at.clone().join(k.get_ref());
        if (contains(&k.span(), span) || contains(&v.span(), span))
            && path.keys().len() > best.keys().len()
        {
            *best = path.clone();
        }
        if let DeValue::Table(inner) = v.get_ref() {
            search(inner, span, &path, best);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(source: &str) -> Document<'_> {
        Document::parse(source).unwrap()
    }

    #[test]
    fn a_field_is_found_on_its_line_however_it_is_written() {
        let source =
            "a = 1\n[t]\nx = 2\n\nu.v = 3\nw = { y = 4, z = { q = 5 } }\n[t.deep]\nk = 6\n";
        let d = doc(source);
        let line = |keys: &[&str]| d.line_of(&FieldPath::of(keys));
        assert_eq!(line(&["a"]), 1);
        assert_eq!(line(&["t"]), 2);
        assert_eq!(line(&["t", "x"]), 3);
        assert_eq!(line(&["t", "u", "v"]), 5, "a dotted key");
        assert_eq!(line(&["t", "w", "z", "q"]), 6, "an inline table");
        assert_eq!(line(&["t", "deep", "k"]), 8);
        // Left out of the file: the nearest table written, or line 1.
        assert_eq!(line(&["t", "missing"]), 2);
        assert_eq!(line(&["t", "deep", "missing"]), 7);
        assert_eq!(line(&["nowhere", "x"]), 1);
        assert_eq!(line(&[]), 1);
    }

    #[test]
    fn a_span_falls_in_the_deepest_field_that_holds_it() {
        let source = "a = [1, 2]\n[t]\nx = 2\nw = { y = 4 }\n";
        let d = doc(source);
        let at = |text: &str| {
            let start = source.find(text).unwrap();
            field_holding(d.root.get_ref(), &(start..start + text.len())).to_string()
        };
        assert_eq!(at("2]"), "a", "inside an array: the array's field");
        assert_eq!(at("x"), "t.x");
        assert_eq!(at("4"), "t.w.y");
        assert_eq!(at("{ y = 4 }"), "t.w");
        assert_eq!(at("[t]"), "t");
        assert_eq!(
            field_holding(d.root.get_ref(), &(0..source.len())),
            FieldPath::default()
        );
    }

    #[test]
    fn a_syntax_error_is_at_the_parsers_span() {
        let e = Document::parse("a = 1\n[t]\nx = 0.5.5\n").err().unwrap();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("invalid float"), "{}", e.message);
        let e = Document::parse("a = 1\nb = 2\nb = 3\n").err().unwrap();
        assert_eq!((e.line, e.message.as_str()), (3, "duplicate key"));
    }
}
