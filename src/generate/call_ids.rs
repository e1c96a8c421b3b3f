//! Call ids of a batch: provider-style ids (`call_…`, `toolu_…`, `fc_…`), and at a scenario's rate awkward ones
//! a finalizer's persistence naming must survive: ids with '/', trailing '/', `.` and `..` components, spaces,
//! non-ASCII, NUL, an empty id, very long ids.

use super::buf::TextBuf;
use crate::rng::Stream;

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Hands out the call ids of one batch.
#[derive(Debug, Clone)]
pub(crate) struct CallIds {
    style: Option<u64>,
    batch: u64,
    count: u64,
}

impl CallIds {
    /// Call ids for batch `batch`.
    pub(super) fn new(batch: u64) -> CallIds {
        CallIds {
            style: None,
            batch,
            count: 0,
        }
    }

    /// The next call id: awkward with probability `awkward_rate`, otherwise in the batch's provider style.
    pub(super) fn next(&mut self, rng: &mut Stream, awkward_rate: f64) -> String {
        self.count += 1;
        let style = *self.style.get_or_insert_with(|| rng.below(3));
        if rng.unit() < awkward_rate {
            return awkward(rng, self.batch, self.count);
        }
        let mut b = TextBuf::with_capacity(32);
        match style {
            0 => {
                b.ascii("call_");
                base62(&mut b, rng, 24);
            }
            1 => {
                b.ascii("toolu_01");
                base62(&mut b, rng, 22);
            }
            _ => {
                b.ascii("fc_");
                super::vocab::hex_id(&mut b, rng, 32);
            }
        }
        b.finish().text
    }
}

fn base62(b: &mut TextBuf, rng: &mut Stream, n: usize) {
    let mut s = [0u8; 32];
    for slot in s[..n].iter_mut() {
        *slot = BASE62[rng.index(62)];
    }
    b.ascii(std::str::from_utf8(&s[..n]).expect("base62 is ascii"));
}

fn awkward(rng: &mut Stream, batch: u64, count: u64) -> String {
    match rng.below(14) {
        0 => format!("mcp/tracker/list_issues/{count}"),
        1 => format!("run_shell_command/{batch}/{count}/"),
        2 => format!("tools/../../etc/passwd-{count}"),
        3 => "..".to_string(),
        4 => ".".to_string(),
        5 => String::new(),
        6 => format!("call id with spaces {count}"),
        7 => format!("呼び出し-{count}-ツール"),
        8 => format!("call\u{0}nul-{count}"),
        9 => format!("emoji-🔧-{count}"),
        10 => format!("C:\\Users\\dev\\call_{count}"),
        11 => format!("{}-{count}", "x".repeat(300)),
        12 => format!("a/b/c/{count}/."),
        _ => format!("weird:chars|*?<>\"{count}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Seed;

    #[test]
    fn one_style_per_batch_and_awkward_ids_at_rate_one() {
        let mut rng = Stream::derive(Seed(9), "ids", 0);
        let mut ids = CallIds::new(0);
        let a = ids.next(&mut rng, 0.0);
        let b = ids.next(&mut rng, 0.0);
        let prefix = |s: &str| s.split('_').next().unwrap().to_string();
        assert_eq!(prefix(&a), prefix(&b));
        assert_ne!(a, b);
        assert!(a.is_ascii() && a.len() >= 27, "{a}");
        let odd: Vec<String> = (0..200).map(|_| ids.next(&mut rng, 1.0)).collect();
        assert!(odd.iter().any(|s| s.contains('/')));
        assert!(odd.iter().any(|s| s.is_empty()));
        assert!(odd.iter().any(|s| s.contains('\0')));
        assert!(odd.iter().any(|s| !s.is_ascii()));
    }

    /// The awkward ids the module documents, for the `count`th id of batch `batch`.
    fn awkward_forms(batch: u64, count: u64) -> [String; 14] {
        [
            format!("mcp/tracker/list_issues/{count}"),
            format!("run_shell_command/{batch}/{count}/"),
            format!("tools/../../etc/passwd-{count}"),
            "..".into(),
            ".".into(),
            String::new(),
            format!("call id with spaces {count}"),
            format!("呼び出し-{count}-ツール"),
            format!("call\u{0}nul-{count}"),
            format!("emoji-🔧-{count}"),
            format!("C:\\Users\\dev\\call_{count}"),
            format!("{}-{count}", "x".repeat(300)),
            format!("a/b/c/{count}/."),
            format!("weird:chars|*?<>\"{count}\""),
        ]
    }

    #[test]
    fn every_awkward_form_comes_out_exactly_as_documented() {
        let mut rng = Stream::derive(Seed(3), "ids", 0);
        let mut ids = CallIds::new(7);
        let mut seen = [0u32; 14];
        for count in 1..=600 {
            let id = ids.next(&mut rng, 1.0);
            let form = awkward_forms(7, count)
                .iter()
                .position(|f| *f == id)
                .unwrap_or_else(|| panic!("id {count} is no documented awkward form: {id:?}"));
            seen[form] += 1;
        }
        assert!(seen.iter().all(|&n| n > 0), "forms never drawn: {seen:?}");
    }
}
