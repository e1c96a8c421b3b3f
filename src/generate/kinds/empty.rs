//! Empty output and empty error strings: a field that is there and holds nothing.

use super::Writers;
use crate::generate::buf::Written;
use crate::generate::{Body, Ctx, Draft};

/// How this kind's outputs are written: [`write`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: None,
};

/// An empty output, an empty error, or both (of any target).
pub(crate) fn write(c: &mut Ctx, _target: usize) -> Draft {
    let tool = c.rng.pick(&[
        "run_shell_command",
        "read_file",
        "mcp__tracker__add_comment",
        "write_todos",
    ]);
    let empty = || Written::plain(String::new());
    match c.rng.below(3) {
        0 => Draft::output(tool, Body::Text(empty())),
        1 => Draft::error(tool, empty()),
        _ => {
            let mut d = Draft::output(tool, Body::Text(empty()));
            d.error = Some(empty());
            d
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_ctx;

    #[test]
    fn empty_kind_has_empty_strings() {
        let mut c = test_ctx(23);
        for _ in 0..20 {
            let d = write(&mut c, 0);
            let texts: Vec<&str> = d
                .error
                .iter()
                .map(|w| w.text.as_str())
                .chain(match &d.output {
                    Some(Body::Text(w)) => Some(w.text.as_str()),
                    _ => None,
                })
                .collect();
            assert!(!texts.is_empty() && texts.iter().all(|t| t.is_empty()));
        }
    }
}
