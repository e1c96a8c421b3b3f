//! How well the detector's needles match what agents used: over recorded batches with their used lines, the share
//! of used lines the detector also flags, and the share of detector needles the agent went on to use, overall, per
//! tool and per kind. A used line and a detector needle agree when they lie in the same field and their spans
//! overlap. Only batches whose used lines were measured count (a session without agent text says nothing).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{detect_batch, UsedNeedles};
use crate::generate::{Needle, NeedleKind};
use crate::model::Batch;
use crate::text::utf16_len;

/// Counts of one group (all results, one tool or one kind).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgreementCounts {
    /// Used lines.
    pub used: u64,
    /// Of those, lines a detector needle overlaps.
    pub used_flagged: u64,
    /// Detector needles.
    pub detected: u64,
    /// Of those, needles a used line overlaps.
    pub detected_used: u64,
    /// `used_flagged / used`; `None` without used lines.
    pub used_flagged_share: Option<f64>,
    /// `detected_used / detected`; `None` without detector needles.
    pub detected_used_share: Option<f64>,
}

impl AgreementCounts {
    fn shares(mut self) -> AgreementCounts {
        let share = |a: u64, b: u64| (b > 0).then(|| a as f64 / b as f64);
        self.used_flagged_share = share(self.used_flagged, self.used);
        self.detected_used_share = share(self.detected_used, self.detected);
        self
    }
}

/// The agreement of a corpus.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Agreement {
    /// Batches whose used lines were measured.
    pub batches: u64,
    /// Batches left out: their session recorded nothing the agent wrote.
    pub unmeasured: u64,
    /// Every result together.
    pub all: AgreementCounts,
    /// By tool name.
    pub by_tool: BTreeMap<String, AgreementCounts>,
    /// By the detector's kind (`used` and `usedFlagged` stay 0 here: a used line has no detector kind).
    pub by_kind: BTreeMap<NeedleKind, AgreementCounts>,
}

fn overlap(a: &Needle, b: &Needle) -> bool {
    (a.entry, a.part, a.field) == (b.entry, b.part, b.field)
        && a.offset < b.offset + utf16_len(&b.text)
        && b.offset < a.offset + utf16_len(&a.text)
}

/// The agreement of `batches` and their used needles (`used[i]` for batch `i`).
pub fn agreement(batches: &[Batch], used: &UsedNeedles) -> Agreement {
    let mut out = Agreement::default();
    for (batch, used) in batches.iter().zip(used) {
        let Some(used) = used else {
            out.unmeasured += 1;
            continue;
        };
        out.batches += 1;
        let detected = detect_batch(batch);
        let tool = |n: &Needle| batch[n.entry].tool_name.clone();
        for u in used {
            let flagged = detected.iter().any(|d| overlap(u, d));
            for c in [&mut out.all, out.by_tool.entry(tool(u)).or_default()] {
                c.used += 1;
                c.used_flagged += u64::from(flagged);
            }
        }
        for d in &detected {
            let taken = used.iter().any(|u| overlap(u, d));
            for c in [
                &mut out.all,
                out.by_tool.entry(tool(d)).or_default(),
                out.by_kind.entry(d.kind).or_default(),
            ] {
                c.detected += 1;
                c.detected_used += u64::from(taken);
            }
        }
    }
    out.all = out.all.shares();
    for c in out.by_tool.values_mut().chain(out.by_kind.values_mut()) {
        *c = std::mem::take(c).shares();
    }
    out
}

impl Agreement {
    /// The agreement as Markdown: one table, every result first, then each tool, then each kind.
    pub fn markdown(&self) -> String {
        let pct = |s: Option<f64>| s.map_or("-".to_string(), |s| format!("{:.1}%", 100.0 * s));
        let mut out = format!(
            "Used lines against the detector's needles ({} batches measured, {} without agent text)\n\n\
| group | used lines | flagged by the detector | detector needles | used by the agent |\n\
|---|---:|---:|---:|---:|\n",
            self.batches, self.unmeasured
        );
        let mut row = |name: String, c: &AgreementCounts| {
            out.push_str(&format!(
                "| {name} | {} | {} ({}) | {} | {} ({}) |\n",
                c.used,
                c.used_flagged,
                pct(c.used_flagged_share),
                c.detected,
                c.detected_used,
                pct(c.detected_used_share)
            ));
        };
        row("all".into(), &self.all);
        for (tool, c) in &self.by_tool {
            row(format!("tool {tool}"), c);
        }
        for (kind, c) in &self.by_kind {
            let name = serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            row(format!("kind {name}"), c);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entry, Field, Part};
    use serde_json::Value;

    fn entry(tool: &str, text: &str) -> Entry {
        Entry::new(
            "c",
            tool,
            vec![Part::function_response(
                "c",
                tool,
                Some(Value::String(text.into())),
                None,
            )],
        )
    }

    fn used(entry: usize, text: &str, line: &str) -> Needle {
        let at = text.find(line).unwrap();
        Needle {
            kind: NeedleKind::Used,
            text: line.to_string(),
            entry,
            part: 0,
            field: Field::Output,
            offset: utf16_len(&text[..at]),
        }
    }

    #[test]
    fn counts_overlaps_both_ways_per_tool_and_kind() {
        let a = "src/a.py\nerror: boom in src/b.py\nExit code 1";
        let b = "x.txt\ny.txt";
        let batches = vec![
            vec![entry("Bash", a), entry("Glob", b)],
            vec![entry("Bash", "z")],
        ];
        let used: UsedNeedles = vec![
            Some(vec![
                used(0, a, "error: boom in src/b.py"),
                used(0, a, "src/a.py"),
                used(1, b, "y.txt"),
            ]),
            None,
        ];
        let g = agreement(&batches, &used);
        assert_eq!((g.batches, g.unmeasured), (1, 1));
        let all = &g.all;
        assert_eq!(
            (all.used, all.used_flagged, all.detected, all.detected_used),
            (3, 1, 2, 1)
        );
        assert_eq!(all.used_flagged_share, Some(1.0 / 3.0));
        assert_eq!(all.detected_used_share, Some(0.5));
        let glob = &g.by_tool["Glob"];
        assert_eq!(
            (glob.used, glob.detected, glob.detected_used_share),
            (1, 0, None)
        );
        let exit = &g.by_kind[&NeedleKind::ExitInfo];
        assert_eq!((exit.detected, exit.detected_used), (1, 0));
        assert_eq!(g.by_kind[&NeedleKind::FirstError].detected_used, 1);
        assert!(
            g.markdown()
                .contains("| all | 3 | 1 (33.3%) | 2 | 1 (50.0%) |"),
            "{}",
            g.markdown()
        );
    }
}
