//! Edit results: the agent's edit applied, answered with the edited region of the file so the model can check
//! it. Written as a confirmation line and the region numbered as `cat -n` numbers lines, or, at the scenario's
//! `file_view_share`, as a windowed file view of the region (`file_read`'s) followed by a closing notice.

use super::file_read::{block, window};
use super::Writers;
use crate::generate::buf::TextBuf;
use crate::generate::vocab;
use crate::generate::{Body, Ctx, Draft};

/// The tool name edit results are recorded under.
pub(crate) const TOOL: &str = "edit_file";

/// The notice after a windowed view of an edit.
const NOTICE: &str =
    "File updated. Check the lines above (indentation, duplicated lines) and edit again if \
                      they are not what you meant.";

/// How this kind's outputs are written: [`write`] and, below the scenario's `short_units`, [`short`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: Some(short),
};

/// Writes an edit result of about `target` units.
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    if c.knobs.file_view_share > 0.0 && c.rng.chance(c.knobs.file_view_share) {
        return Draft::output(TOOL, Body::Text(window(c, target, NOTICE)));
    }
    let zh = c.knobs.cjk_share;
    let rng = &mut c.rng;
    let lang = rng.below(3);
    let mut b = TextBuf::with_capacity(target + 256);
    b.ascii("The file ");
    vocab::project_root(&mut b, rng.pick(vocab::PROJECTS).0);
    b.ascii("/");
    vocab::src_path(&mut b, rng, "src/", [".rs", ".ts", ".py"][lang as usize]);
    b.ascii(" has been edited. The changed region, numbered:\n");
    let mut line_no = rng.range(1, 600);
    let mut lines = TextBuf::with_capacity(512);
    let mut first = true;
    while first || b.units() + 40 < target {
        first = false;
        lines = TextBuf::with_capacity(lines.as_str().len().max(256));
        block(rng, &mut lines, lang, zh);
        for line in lines.as_str().split_inclusive('\n') {
            b.num_right(line_no, 6);
            b.ascii("\t");
            b.push(line);
            line_no += 1;
        }
    }
    Draft::output(TOOL, Body::Text(b.finish()))
}

/// An edit's confirmation naming the lines it replaced, and what changed when there is room.
fn short(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 96);
    b.ascii("Edited ");
    vocab::src_path(&mut b, rng, "src/", ".py");
    let from = rng.range(1, 900);
    b.ascii(": lines ");
    b.num(from);
    b.ascii("-");
    b.num(from + rng.range(0, 12));
    b.ascii(" replaced.");
    while b.units() + 30 < target {
        b.ascii("\n- line ");
        b.num(rng.range(1, 900));
        b.ascii(": ");
        vocab::ident(&mut b, rng);
        b.ascii(" updated");
    }
    Draft::output(TOOL, Body::Text(b.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_ctx;

    #[test]
    fn an_edit_shows_its_region_numbered_at_about_its_size() {
        let mut c = test_ctx(41);
        for target in [300usize, 2_442, 20_000] {
            for _ in 0..20 {
                let Some(Body::Text(w)) = write(&mut c, target).output else {
                    panic!("an edit is text")
                };
                assert_eq!(w.units, w.text.encode_utf16().count());
                let mut lines = w.text.lines();
                assert!(lines
                    .next()
                    .unwrap()
                    .ends_with(" has been edited. The changed region, numbered:"));
                let numbers: Vec<u64> = lines
                    .map(|l| l.split('\t').next().unwrap().trim().parse().unwrap())
                    .collect();
                assert!(numbers.windows(2).all(|p| p[1] == p[0] + 1), "consecutive");
                assert!(
                    w.units + 700 >= target && w.units <= target + 700,
                    "target {target}: {}",
                    w.units
                );
            }
        }
    }
}
