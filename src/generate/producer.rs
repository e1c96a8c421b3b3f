//! Producer-level previews, as the runtime's producers make them before any aggregate finalization: a shell
//! output over its trigger (30,000 units) becomes a head-and-tail preview of about 4,000 units that names the
//! persisted file, so the exit information stays visible; an MCP result over its trigger becomes a head preview
//! of about 2,000 units. `persistedOutputFiles` is set to the path, or to `[]` when the producer's write failed
//! (then the preview says so and names no file). Needles that fall in the removed middle are dropped; the others
//! move to their new offsets.

use super::buf::{TextBuf, Written};
use super::kinds::shell;
use super::{Body, Draft};
use crate::rng::Stream;
use crate::scenario::Scenario;
use crate::text;
use crate::workload::MCP_PREFIX;

/// Replaces a large shell or MCP output by its producer preview, when the scenario turns previews on.
pub(crate) fn apply(rng: &mut Stream, scenario: &Scenario, call_id: &str, draft: &mut Draft) {
    let p = &scenario.producer;
    if !p.previews {
        return;
    }
    let is_shell = draft.tool == shell::TOOL;
    let is_mcp = draft.tool.starts_with(MCP_PREFIX);
    let Some(Body::Text(w)) = &mut draft.output else {
        return;
    };
    let (trigger, preview) = match (is_shell, is_mcp) {
        (true, _) => (p.shell_trigger, p.shell_preview),
        (_, true) => (p.mcp_trigger, p.mcp_preview),
        _ => return,
    };
    if (w.units as u64) <= trigger {
        return;
    }
    let failed = rng.unit() < scenario.persistence.producer_fault_rate;
    let path = (!failed).then(|| artifact_path(&p.artifact_dir, &draft.tool, call_id));
    let original = std::mem::take(w);
    *w = if is_shell {
        head_and_tail(original, preview as usize, path.as_deref())
    } else {
        head_only(original, preview as usize, path.as_deref())
    };
    draft.persisted = Some(path.into_iter().collect());
}

/// The file a producer saves a complete output to: the call id's last path component, made safe.
fn artifact_path(dir: &str, tool: &str, call_id: &str) -> String {
    let last = call_id
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    let mut id: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.trim_matches('_').is_empty() {
        id = "call".into();
    }
    format!("{dir}/{tool}-{id}.txt")
}

fn marker(b: &mut TextBuf, omitted: usize, path: Option<&str>) {
    b.ascii("\n\n[... ");
    b.num_grouped(omitted as u64);
    b.ascii(" characters omitted. ");
    match path {
        Some(path) => {
            b.ascii("Full output saved to: ");
            b.push(path);
        }
        None => b.ascii("The full output could not be saved."),
    }
    b.ascii(" ...]\n\n");
}

fn head_and_tail(w: Written, preview: usize, path: Option<&str>) -> Written {
    let head = text::head(&w.text, preview / 5);
    let tail = text::tail(&w.text, preview - preview / 5);
    let head_units = text::utf16_len(head);
    let tail_units = text::utf16_len(tail);
    let tail_start = w.units - tail_units;
    let mut b = TextBuf::with_capacity(preview + 256);
    b.push(head);
    marker(&mut b, w.units - head_units - tail_units, path);
    let shift = b.units();
    b.push(tail);
    let mut out = b.finish();
    out.needles = w
        .needles
        .into_iter()
        .filter_map(|mut n| {
            let len = text::utf16_len(&n.text);
            if n.offset + len <= head_units {
                Some(n)
            } else if n.offset >= tail_start {
                n.offset = n.offset - tail_start + shift;
                Some(n)
            } else {
                None
            }
        })
        .collect();
    out
}

fn head_only(w: Written, preview: usize, path: Option<&str>) -> Written {
    let head = text::head(&w.text, preview);
    let head_units = text::utf16_len(head);
    let mut b = TextBuf::with_capacity(preview + 256);
    b.push(head);
    b.ascii("\n\n[Output truncated: showing the first ");
    b.num_grouped(head_units as u64);
    b.ascii(" of ");
    b.num_grouped(w.units as u64);
    b.ascii(" characters. ");
    match path {
        Some(path) => {
            b.ascii("Full result saved to: ");
            b.push(path);
        }
        None => b.ascii("The full result could not be saved."),
    }
    b.ascii("]");
    let mut out = b.finish();
    out.needles = w
        .needles
        .into_iter()
        .filter(|n| n.offset + text::utf16_len(&n.text) <= head_units)
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::needles::NeedleKind;

    fn long_log() -> Written {
        let mut b = TextBuf::with_capacity(50_000);
        b.needle_line(NeedleKind::JsonKey, |b| b.ascii("\"start\""));
        b.nl();
        while b.units() < 40_000 {
            b.push("line of 😀 output\n");
        }
        b.needle_line(NeedleKind::FirstError, |b| {
            b.ascii("error: lost in the middle? no, at the end")
        });
        b.nl();
        shell::exit_info(&mut b, shell::Exit(101, None));
        b.finish()
    }

    #[test]
    fn head_and_tail_keeps_exit_info_and_names_the_file() {
        let w = head_and_tail(long_log(), 4_000, Some("/tmp/out/x.txt"));
        assert!(w.units <= 4_000 + 120, "{}", w.units);
        assert!(w.text.contains("Full output saved to: /tmp/out/x.txt"));
        assert!(w.text.ends_with("Exit Code: 101"));
        assert_eq!(w.needles.len(), 3);
        for n in &w.needles {
            let start = text::head(&w.text, n.offset).len();
            assert!(w.text[start..].starts_with(&n.text), "{n:?}");
        }
        let failed = head_and_tail(long_log(), 4_000, None);
        assert!(failed.text.contains("could not be saved"));
    }

    #[test]
    fn artifact_paths_use_a_safe_last_component() {
        assert_eq!(artifact_path("/d", "t", "a/b/call_1/"), "/d/t-call_1.txt");
        assert_eq!(artifact_path("/d", "t", ".."), "/d/t-call.txt");
        assert_eq!(artifact_path("/d", "t", "x y"), "/d/t-x_y.txt");
    }
}
