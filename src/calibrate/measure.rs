//! The figures a fit works with, measured the same way on the corpus and on a generated sample: the profile's
//! (`crate::profile`, through its per-output facts) plus the sizes of each kind's outputs. On the corpus this
//! also decides each tool's kind ([`Corpus`]): by name, or by shape against the kinds' own generated outputs.

use std::collections::BTreeMap;

use rayon::prelude::*;

use super::mapping::{self, Features, How};
use crate::model::{Batch, Entry, Field};
use crate::needles::NeedleKind;
use crate::profile::{BatchFacts, OutputFacts};
use crate::workload::Kind;

/// What a set of batches measures to.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Measure {
    /// Outputs (tool results).
    pub outputs: u64,
    /// Every output's size in UTF-16 units, sorted.
    pub sizes: Vec<u64>,
    /// The sizes of each kind's non-empty outputs, sorted.
    pub by_kind: BTreeMap<Kind, Vec<u64>>,
    /// Outputs with an astral character, any non-ASCII, CRLF, an escape character; empty; repeating an earlier
    /// one (as the profile counts them).
    pub astral: u64,
    /// See `astral`.
    pub non_ascii: u64,
    /// See `astral`.
    pub crlf: u64,
    /// See `astral`.
    pub ansi: u64,
    /// See `astral`.
    pub empty: u64,
    /// See `astral`.
    pub repeated: u64,
    /// Outputs with an exit line of each style (the profile's style names).
    pub styles: BTreeMap<String, u64>,
    /// The positions of every summary line found (0 start, 1 end).
    pub summary_positions: Vec<f64>,
    /// Outputs per batch, sorted.
    pub widths: Vec<u64>,
    /// Each kind's outputs repeating an earlier one.
    pub repeated_by_kind: BTreeMap<Kind, u64>,
}

impl Measure {
    /// Measures `batches`, each output's kind given by `kind_of` (its entry and its facts).
    pub(super) fn of(batches: &[Batch], kind_of: impl Fn(&Entry, &OutputFacts) -> Kind) -> Measure {
        let facts: Vec<BatchFacts> = batches
            .par_iter()
            .map(|b| BatchFacts::of(b, None))
            .collect();
        let mut m = Measure::default();
        let mut seen = std::collections::BTreeSet::new();
        for (batch, facts) in batches.iter().zip(facts) {
            m.widths.push(batch.len() as u64);
            for (entry, out) in batch.iter().zip(facts.outputs) {
                m.outputs += 1;
                m.sizes.push(out.units);
                m.astral += u64::from(out.astral);
                m.non_ascii += u64::from(out.non_ascii);
                m.crlf += u64::from(out.crlf);
                m.ansi += u64::from(out.ansi);
                m.empty += u64::from(out.units == 0);
                if let Some(digest) = out.digest {
                    if !seen.insert(digest) {
                        m.repeated += 1;
                        *m.repeated_by_kind.entry(kind_of(entry, &out)).or_default() += 1;
                    }
                }
                for style in &out.exit_styles {
                    *m.styles.entry(style.clone()).or_default() += 1;
                }
                m.summary_positions.extend(
                    out.needles
                        .iter()
                        .filter(|(k, _)| *k == NeedleKind::SummaryLine)
                        .filter_map(|(_, p)| *p),
                );
                if out.units > 0 {
                    m.by_kind
                        .entry(kind_of(entry, &out))
                        .or_default()
                        .push(out.units);
                }
            }
        }
        m.sizes.sort_unstable();
        m.widths.sort_unstable();
        for v in m.by_kind.values_mut() {
            v.sort_unstable();
        }
        m
    }

    /// `count` over the outputs (0 without outputs).
    pub(super) fn share(&self, count: u64) -> f64 {
        if self.outputs == 0 {
            0.0
        } else {
            count as f64 / self.outputs as f64
        }
    }

    /// The mean summary position, `None` without summary lines.
    pub(super) fn summary_position(&self) -> Option<f64> {
        let n = self.summary_positions.len();
        (n > 0).then(|| self.summary_positions.iter().sum::<f64>() / n as f64)
    }
}

/// Whether the text of `entry` is in `error` fields only (a failed call).
pub(super) fn is_error_only(entry: &Entry) -> bool {
    let mut error = false;
    for part in &entry.response_parts {
        if part.field(Field::Output).is_some_and(|t| !t.is_empty())
            || part.field(Field::Text).is_some_and(|t| !t.is_empty())
        {
            return false;
        }
        error |= part.field(Field::Error).is_some_and(|t| !t.is_empty());
    }
    error
}

/// Whether `text` ends with a windowed view's `(N more lines below)` marker (a notice may follow it on one line).
pub(super) fn ends_with_view_marker(text: &str) -> bool {
    let mut lines = text.trim_end().rsplit('\n');
    let is_marker = |l: &str| {
        let l = l.trim_end_matches('\r').trim();
        l.strip_prefix('(')
            .and_then(|l| l.strip_suffix(" more lines below)"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let last = lines.next().unwrap_or("");
    is_marker(last) || lines.next().is_some_and(is_marker)
}

/// One tool of the corpus and the kind it was mapped to.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolKind {
    /// The tool name.
    pub tool: String,
    /// Its outputs (failed calls, which go to `error_trace`, not counted).
    pub outputs: u64,
    /// The kind.
    pub kind: Kind,
    /// How it was decided.
    pub how: How,
}

/// The corpus: its measure, each tool's kind, and what only it gives (call-id duplicates, windowed views).
#[derive(Debug, Clone)]
pub(super) struct Corpus {
    /// Its figures.
    pub measure: Measure,
    /// Each tool and its kind, the most frequent first (ties by name).
    pub tools: Vec<ToolKind>,
    /// Failed calls (error text only): they go to `error_trace`.
    pub errors: u64,
    /// For each kind, the tool its outputs are recorded under most often.
    pub names: BTreeMap<Kind, String>,
    /// Share of entries (after a batch's first) that repeat a call id of their batch.
    pub duplicate_rate: f64,
    /// Share of the file reads' and edits' outputs that end with a `(N more lines below)` marker.
    pub file_view_share: f64,
}

/// One tool's (units, lines, JSON, exit line) of its non-failed, non-empty outputs, and its count of outputs.
type ToolOutputs = (Vec<(u64, u64, bool, bool)>, u64);

impl Corpus {
    /// Reads `batches`, mapping unknown tools by shape against `references` (each candidate kind's features).
    pub(super) fn of(batches: &[Batch], references: &[(Kind, Features)]) -> Corpus {
        // Per tool: (units, lines, JSON, exit line) of its non-failed, non-empty outputs, and its count.
        let mut per_tool: BTreeMap<String, ToolOutputs> = BTreeMap::new();
        let mut errors = 0;
        let (mut later, mut duplicates) = (0u64, 0u64);
        for batch in batches {
            let facts = BatchFacts::of(batch, None);
            for (i, (entry, out)) in batch.iter().zip(&facts.outputs).enumerate() {
                if i > 0 {
                    later += 1;
                    duplicates += u64::from(batch[..i].iter().any(|e| e.call_id == entry.call_id));
                }
                if is_error_only(entry) {
                    errors += 1;
                    continue;
                }
                let t = per_tool.entry(entry.tool_name.clone()).or_default();
                t.1 += 1;
                if out.units > 0 {
                    t.0.push((out.units, out.lines, out.json, !out.exit_styles.is_empty()));
                }
            }
        }
        let mut tools: Vec<ToolKind> = per_tool
            .iter()
            .map(|(tool, (outputs, count))| {
                let (kind, how) = match mapping::by_name(tool) {
                    Some(kind) => (kind, How::Name),
                    None => match Features::of(outputs) {
                        Some(f) => {
                            let (kind, d) = mapping::by_shape(&f, references);
                            (kind, How::Shape(f, d))
                        }
                        // Only empty outputs: nothing to go by, and nothing to size.
                        None => (Kind::ShortSuccess, How::Name),
                    },
                };
                ToolKind {
                    tool: tool.clone(),
                    outputs: *count,
                    kind,
                    how,
                }
            })
            .collect();
        tools.sort_by(|a, b| b.outputs.cmp(&a.outputs).then(a.tool.cmp(&b.tool)));
        let kind_of_tool: BTreeMap<&str, Kind> =
            tools.iter().map(|t| (t.tool.as_str(), t.kind)).collect();
        let kind_of = |entry: &Entry, _: &OutputFacts| {
            if is_error_only(entry) {
                Kind::ErrorTrace
            } else {
                kind_of_tool
                    .get(entry.tool_name.as_str())
                    .copied()
                    .unwrap_or(Kind::ShortSuccess)
            }
        };
        let measure = Measure::of(batches, kind_of);
        let mut names: BTreeMap<Kind, String> = BTreeMap::new();
        for t in &tools {
            // The most frequent first: the first tool of a kind names it.
            names.entry(t.kind).or_insert_with(|| t.tool.clone());
        }
        if errors > 0 {
            // Failed calls are named after the tool that fails most.
            let mut failing: BTreeMap<&str, u64> = BTreeMap::new();
            for e in batches.iter().flatten().filter(|e| is_error_only(e)) {
                *failing.entry(e.tool_name.as_str()).or_default() += 1;
            }
            if let Some((tool, _)) = failing
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            {
                names.insert(Kind::ErrorTrace, tool.to_string());
            }
        }
        let (mut viewable, mut views) = (0u64, 0u64);
        for entry in batches.iter().flatten() {
            if is_error_only(entry) {
                continue;
            }
            let kind = kind_of_tool.get(entry.tool_name.as_str()).copied();
            if !matches!(kind, Some(Kind::FileRead | Kind::Edit)) {
                continue;
            }
            let Some(text) = entry
                .response_parts
                .iter()
                .find_map(|p| p.field(Field::Output))
                .filter(|t| !t.is_empty())
            else {
                continue;
            };
            viewable += 1;
            views += u64::from(ends_with_view_marker(text));
        }
        Corpus {
            measure,
            tools,
            errors,
            names,
            duplicate_rate: if later == 0 {
                0.0
            } else {
                duplicates as f64 / later as f64
            },
            file_view_share: if viewable == 0 {
                0.0
            } else {
                views as f64 / viewable as f64
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Part;
    use serde_json::json;

    fn entry(id: &str, tool: &str, output: Option<&str>, error: Option<&str>) -> Entry {
        Entry::new(
            id,
            tool,
            vec![Part::function_response(
                id,
                tool,
                output.map(|o| json!(o)),
                error.map(|e| json!(e)),
            )],
        )
    }

    #[test]
    fn markers_and_failed_calls_are_recognised() {
        assert!(ends_with_view_marker(
            "[File: a.py (9 lines total)]\n1:x\n(8 more lines below)"
        ));
        assert!(ends_with_view_marker(
            "1:x\n(8 more lines below)\nFile updated.\n"
        ));
        assert!(!ends_with_view_marker("1:x\n(8 more lines above)"));
        assert!(!ends_with_view_marker("(more lines below)"));
        assert!(is_error_only(&entry("c", "bash", None, Some("boom"))));
        assert!(is_error_only(&entry("c", "bash", Some(""), Some("boom"))));
        assert!(!is_error_only(&entry(
            "c",
            "bash",
            Some("ok"),
            Some("boom")
        )));
        assert!(!is_error_only(&entry("c", "bash", None, Some(""))));
    }

    #[test]
    fn a_corpus_maps_its_tools_and_counts_what_only_it_has() {
        let view = "[File: /a.py (300 lines total)]\n1:import os\n(299 more lines below)";
        let batches = vec![
            vec![
                entry("a", "bash", Some("ok\nExit code: 0"), None),
                entry("a", "bash", Some("ok\nExit code: 0"), None),
            ],
            vec![entry("b", "open", Some(view), None)],
            vec![entry("c", "open", Some("1:x\n2:y\n"), None)],
            vec![entry("d", "frobnicate", Some("{\"k\": [1, 2, 3]}"), None)],
            vec![entry(
                "e",
                "bash",
                None,
                Some("bash: nope: command not found"),
            )],
            vec![entry("f", "bash", Some(""), None)],
        ];
        let refs = [
            (
                Kind::Mcp,
                Features {
                    json: 1.0,
                    exit: 0.0,
                    size: 0.3,
                    width: 0.5,
                },
            ),
            (
                Kind::Shell,
                Features {
                    json: 0.0,
                    exit: 1.0,
                    size: 0.3,
                    width: 0.5,
                },
            ),
        ];
        let c = Corpus::of(&batches, &refs);
        let kinds: Vec<(&str, u64, Kind, bool)> = c
            .tools
            .iter()
            .map(|t| (t.tool.as_str(), t.outputs, t.kind, t.how == How::Name))
            .collect();
        assert_eq!(
            kinds,
            [
                ("bash", 3, Kind::Shell, true),
                ("open", 2, Kind::FileRead, true),
                ("frobnicate", 1, Kind::Mcp, false)
            ]
        );
        assert_eq!(c.errors, 1);
        assert_eq!(c.names[&Kind::ErrorTrace], "bash");
        assert_eq!(c.names[&Kind::Shell], "bash");
        // One later entry of three in the batches repeats a call id of its batch.
        assert_eq!(c.duplicate_rate, 1.0);
        assert_eq!(c.file_view_share, 0.5);
        let m = &c.measure;
        assert_eq!((m.outputs, m.empty, m.repeated), (7, 1, 1));
        assert_eq!(m.by_kind[&Kind::Shell], [15, 15]);
        assert_eq!(m.by_kind[&Kind::ErrorTrace], [29]);
        assert_eq!(m.styles["Exit code: N"], 2);
        assert_eq!(m.widths, [1, 1, 1, 1, 1, 2]);
    }
}
