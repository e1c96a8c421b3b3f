//! How well the detector's needles match what agents used: over recorded batches with their used content, the
//! share of used tokens and used lines the detector also flags, and the share of detector needles the agent went
//! on to use, first over the results longer than a budget (where a finalizer has to choose, and so where a needle
//! matters), then over every result, per tool and per kind. A used line (or a place of a used token) and a
//! detector needle agree when they lie in the same field and their spans overlap; a token is flagged when any of
//! its places is. Only batches whose used content was measured count (a session without agent text says nothing).
//! Tool names that are not names of a tool (a malformed action: `DISCUSSION`, `I'll`, `#`) fold into one group,
//! [`MALFORMED_TOOL`].

use std::collections::BTreeMap;

use serde::Serialize;

use super::{detect_batch, UsedNeedles};
use crate::model::{Batch, Entry, Field};
use crate::needles::{Needle, NeedleKind};
use crate::text::utf16_len;

/// The group of the tool names that are no tool's name (malformed actions).
pub const MALFORMED_TOOL: &str = "(malformed)";

/// The group `name` counts in: itself, or [`MALFORMED_TOOL`] when it cannot be a tool's name: empty, not starting
/// with a letter, `_`, `.` or `/`, holding anything but letters, digits and `_ . : / @ + -`, or a word of four or
/// more capitals (`DISCUSSION`, `THOUGHT`: a heading the model wrote where the action should be).
pub fn tool_group(name: &str) -> &str {
    let starts = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '.' | '/'));
    let chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '/' | '@' | '+' | '-'));
    let shouted = name.len() >= 4 && name.chars().all(|c| c.is_ascii_uppercase());
    if starts && chars && !shouted {
        name
    } else {
        MALFORMED_TOOL
    }
}

/// Counts of one group (all results, one tool or one kind).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgreementCounts {
    /// Results.
    pub results: u64,
    /// Used tokens.
    pub tokens: u64,
    /// Of those, tokens a detector needle overlaps at one of their places at least.
    pub tokens_flagged: u64,
    /// `tokens_flagged / tokens`; `None` without used tokens.
    pub tokens_flagged_share: Option<f64>,
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
        self.tokens_flagged_share = share(self.tokens_flagged, self.tokens);
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
    /// The budget (UTF-16 units) that [`Agreement::over_budget`] is over.
    pub budget: u64,
    /// The results whose text is longer than the budget, together.
    pub over_budget: AgreementCounts,
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

/// The UTF-16 length of an entry's text (its outputs and errors).
fn entry_units(entry: &Entry) -> u64 {
    entry
        .response_parts
        .iter()
        .flat_map(|p| [p.field(Field::Output), p.field(Field::Error)])
        .flatten()
        .map(|t| utf16_len(t) as u64)
        .sum()
}

/// The agreement of `batches` and their used needles (`used[i]` for batch `i`), over every result and over the
/// results longer than `budget` units.
pub fn agreement(batches: &[Batch], used: &UsedNeedles, budget: u64) -> Agreement {
    let mut out = Agreement {
        budget,
        ..Agreement::default()
    };
    for (batch, used) in batches.iter().zip(used) {
        let Some(used) = used else {
            out.unmeasured += 1;
            continue;
        };
        out.batches += 1;
        let detected = detect_batch(batch);
        let over: Vec<bool> = batch.iter().map(|e| entry_units(e) > budget).collect();
        let tool = |e: usize| tool_group(&batch[e].tool_name).to_string();
        // The groups an entry counts in: every result, its tool, and the results over budget when it is one.
        macro_rules! groups {
            ($out:expr, $e:expr) => {{
                let mut groups: Vec<&mut AgreementCounts> = Vec::with_capacity(3);
                groups.push(&mut $out.all);
                if over[$e] {
                    groups.push(&mut $out.over_budget);
                }
                groups.push($out.by_tool.entry(tool($e)).or_default());
                groups
            }};
        }
        // The index is what the groups are chosen by (an entry's tool and whether it was over budget).
        #[allow(clippy::needless_range_loop)]
        for e in 0..batch.len() {
            for c in groups!(out, e) {
                c.results += 1;
            }
        }
        let (lines, places): (Vec<&Needle>, Vec<&Needle>) =
            used.iter().partition(|n| n.kind == NeedleKind::Used);
        for u in &lines {
            let flagged = detected.iter().any(|d| overlap(u, d));
            for c in groups!(out, u.entry) {
                c.used += 1;
                c.used_flagged += u64::from(flagged);
            }
        }
        let mut tokens: BTreeMap<(usize, usize, Field, &str), bool> = BTreeMap::new();
        for p in &places {
            let flagged = detected.iter().any(|d| overlap(p, d));
            *tokens
                .entry((p.entry, p.part, p.field, p.text.as_str()))
                .or_default() |= flagged;
        }
        for ((entry, ..), flagged) in tokens {
            for c in groups!(out, entry) {
                c.tokens += 1;
                c.tokens_flagged += u64::from(flagged);
            }
        }
        for d in &detected {
            let taken = used.iter().any(|u| overlap(u, d));
            let mut groups = groups!(out, d.entry);
            groups.push(out.by_kind.entry(d.kind).or_default());
            for c in groups {
                c.detected += 1;
                c.detected_used += u64::from(taken);
            }
        }
    }
    out.all = std::mem::take(&mut out.all).shares();
    out.over_budget = std::mem::take(&mut out.over_budget).shares();
    for c in out.by_tool.values_mut().chain(out.by_kind.values_mut()) {
        *c = std::mem::take(c).shares();
    }
    out
}

impl Agreement {
    /// The agreement as Markdown: one table, the results longer than the budget first, then every result, each
    /// tool and each kind.
    pub fn markdown(&self) -> String {
        let pct = |s: Option<f64>| s.map_or("-".to_string(), |s| format!("{:.1}%", 100.0 * s));
        let mut out = format!(
            "Used tokens and lines against the detector's needles ({} batches measured, {} without agent text); \
first over the results longer than {} units, where a finalizer has to choose\n\n\
| group | results | used tokens | flagged by the detector | used lines | flagged by the detector | detector needles | used by the agent |\n\
|---|---:|---:|---:|---:|---:|---:|---:|\n",
            self.batches, self.unmeasured, self.budget
        );
        let mut row = |name: String, c: &AgreementCounts| {
            out.push_str(&format!(
                "| {name} | {} | {} | {} ({}) | {} | {} ({}) | {} | {} ({}) |\n",
                c.results,
                c.tokens,
                c.tokens_flagged,
                pct(c.tokens_flagged_share),
                c.used,
                c.used_flagged,
                pct(c.used_flagged_share),
                c.detected,
                c.detected_used,
                pct(c.detected_used_share)
            ));
        };
        row(format!("over {} units", self.budget), &self.over_budget);
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
        let g = agreement(&batches, &used, 20);
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
        // Only the Bash result (44 units) is longer than 20.
        let over = &g.over_budget;
        assert_eq!(
            (over.results, over.used, over.used_flagged, over.detected),
            (1, 2, 1, 2)
        );
        let exit = &g.by_kind[&NeedleKind::ExitInfo];
        assert_eq!((exit.detected, exit.detected_used), (1, 0));
        assert_eq!(g.by_kind[&NeedleKind::FirstError].detected_used, 1);
        assert!(
            g.markdown()
                .contains("| all | 2 | 0 | 0 (-) | 3 | 1 (33.3%) | 2 | 1 (50.0%) |"),
            "{}",
            g.markdown()
        );
    }
}

#[cfg(test)]
mod fold_tests {
    use super::*;

    #[test]
    fn malformed_actions_fold_into_one_tool_name() {
        for name in [
            "edit",
            "find_file",
            "./gradlew",
            "Bash",
            "mcp__fs__read",
            "apt-get",
        ] {
            assert_eq!(tool_group(name), name);
        }
        for name in ["DISCUSSION", "I'll", "#", "", "**Step", "THOUGHT", "Let's"] {
            assert_eq!(tool_group(name), MALFORMED_TOOL, "{name}");
        }
    }
}
