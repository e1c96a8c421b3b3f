//! The profile of a workload: what its tool results look like, measured the same way for a corpus of recorded
//! batches and for a generated scenario, so that the two can be compared (`budgetlab profile --compare`) and a
//! scenario fitted to a corpus (`budgetlab calibrate`).
//!
//! An *output* is one tool result: one entry of a batch, all its text fields together (top-level text parts,
//! string outputs and string errors, in UTF-16 units; media are not text). [`Profile`] holds, over a source's
//! outputs: the size distribution (median, p90, p99, max, a quantile grid, the shares above 10,000, 30,000 and
//! 100,000 units), the shape features (shares with an astral character, with any non-ASCII, with CRLF, with an
//! escape character, empty, whole JSON), where summary lines sit, lines per output, batch width, repeated
//! outputs, the exit-line styles, the needles the detector ([`crate::needles`]) finds by kind and position, and
//! one row per tool. Percentiles are nearest-rank and shares of nothing are `None` (see [`stats`]).
//!
//! The computation is a pure function of the batches: [`profile_batches`] for recorded ones,
//! [`profile_scenario`] for a scenario's generated ones (whose planted needles are also checked against what
//! the detector finds). Batches are read in parallel and folded in order, so a profile does not depend on the
//! thread count. Around it: [`ProfileJob`] reads the sources `budgetlab profile` is given into a
//! [`ProfileReport`], [`markdown`] renders it (side by side, with differences against `--compare`), and
//! the report folder of `budgetlab profile --out` (`profile.json`, `summary.md`, the charts) is written by the
//! report module.

mod facts;
mod markdown;
mod source;
pub mod stats;

pub use facts::{is_found, BatchFacts, OutputFacts};
pub use markdown::markdown;
pub use source::{read_batches_file, ProfileJob, ProfileReport};
pub use stats::{nearest_rank, percentile, share, Distribution, Positions};

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::generate::Generator;
use crate::model::Batch;
use crate::needles::NeedleKind;
use crate::scenario::Scenario;

/// The version of a profile's JSON form.
pub const PROFILE_SCHEMA_VERSION: u32 = 1;

/// The sizes (UTF-16 units) whose shares of outputs strictly above them a profile reports.
pub const SIZE_THRESHOLDS: [u64; 3] = [10_000, 30_000, 100_000];

/// The percentiles (basis points) of a profile's size quantile grid: every percent from 1 to 99, then 99.5,
/// 99.9, 99.99 and 100.
pub fn quantile_grid() -> Vec<u32> {
    (1..=99)
        .map(|p| p * 100)
        .chain([9_950, 9_990, 9_999, 10_000])
        .collect()
}

/// Batches generated and read together when profiling a scenario (memory stays bounded whatever the count).
const CHUNK: u64 = 256;

/// Where a profile's batches came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceInfo {
    /// The source as named on the command line (a file's path, a scenario's name).
    pub name: String,
    /// Recorded batches or a generated scenario.
    pub kind: SourceKind,
    /// The sha256 of a batches file; a scenario's digest.
    pub digest: String,
    /// A scenario's seed; `None` for recorded batches.
    pub seed: Option<u64>,
    /// Batches profiled.
    pub batches: u64,
}

/// Recorded or generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    /// A file of batches (one JSON array a line).
    Recorded,
    /// A scenario's generated batches.
    Generated,
}

/// How many outputs have a feature, and their share of all outputs (`None` when there is no output).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// Outputs (or batches) with the feature.
    pub count: u64,
    /// `count` over all of them.
    pub share: Option<f64>,
}

impl Share {
    fn of(count: u64, whole: u64) -> Share {
        Share {
            count,
            share: share(count, whole),
        }
    }
}

/// The profile of one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// Where the batches came from.
    pub source: SourceInfo,
    /// Outputs (tool results) over all batches.
    pub outputs: u64,
    /// Output sizes in UTF-16 units.
    pub sizes: Sizes,
    /// Shape features, as shares of outputs.
    pub shape: Shape,
    /// Lines per output.
    pub lines: Distribution,
    /// Outputs per batch.
    pub width: Width,
    /// Outputs identical to an earlier one.
    pub repeats: Repeats,
    /// The styles of exit lines.
    pub exit_styles: ExitStyles,
    /// The needles found.
    pub needles: NeedleProfile,
    /// One row per tool name, the most frequent first (ties by name).
    pub tools: Vec<ToolRow>,
}

/// Output sizes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sizes {
    /// Median, p90, p99 and maximum.
    pub distribution: Distribution,
    /// The mean size; `None` without outputs.
    pub mean: Option<f64>,
    /// Every output's units together.
    pub total_units: u64,
    /// Outputs strictly above each of [`SIZE_THRESHOLDS`].
    pub above: Vec<Above>,
    /// The size at each percentile of [`quantile_grid`] (empty without outputs).
    pub quantiles: Vec<Quantile>,
}

/// Outputs above a size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Above {
    /// The size, in UTF-16 units.
    pub units: u64,
    /// Outputs strictly larger, and their share.
    pub outputs: Share,
}

/// One point of the size quantile grid.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Quantile {
    /// The percentile (99.9 is p99.9).
    pub percent: f64,
    /// The nearest-rank size at it, in UTF-16 units.
    pub units: u64,
}

/// Shape features of the outputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shape {
    /// With a character outside the Basic Multilingual Plane (a surrogate pair).
    pub astral: Share,
    /// With any character outside ASCII.
    pub non_ascii: Share,
    /// With a CRLF line end.
    pub crlf: Share,
    /// With an escape character (ANSI escape sequences).
    pub ansi: Share,
    /// Without any text (0 units).
    pub empty: Share,
    /// With a field that is a whole JSON object or array.
    pub json: Share,
    /// Where the summary lines sit in their text (0 start, 1 end).
    pub summary_position: Positions,
}

/// Outputs per batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Width {
    /// Median, p90, p99 and maximum (count: batches).
    pub distribution: Distribution,
    /// Batches of more than one output.
    pub above_one: Share,
}

/// Repeated outputs: results whose text is the same, field by field, as an earlier result's (empty results do
/// not count).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Repeats {
    /// Outputs that repeat an earlier one, and their share of all outputs.
    pub repeated: Share,
    /// Distinct texts seen more than once.
    pub texts: u64,
    /// The text seen most often (the largest among equals, then the first seen), when one is seen twice.
    pub most: Option<MostRepeated>,
}

/// The most repeated output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MostRepeated {
    /// How many times it was seen.
    pub copies: u64,
    /// Its size in UTF-16 units.
    pub units: u64,
    /// The tool of its first copy.
    pub tool: String,
}

/// Exit-line styles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExitStyles {
    /// Outputs without any exit line.
    pub none: Share,
    /// Each style (see [`crate::needles::exit_style`]) with the outputs that have it, the most frequent first.
    pub styles: Vec<StyleRow>,
}

/// One exit-line style.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StyleRow {
    /// The style (`Exit Code: N`, `<returncode>N</returncode>`, ...).
    pub style: String,
    /// Outputs with an exit line of this style.
    pub outputs: Share,
}

/// The needles found in the outputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NeedleProfile {
    /// Needles found.
    pub total: u64,
    /// One row per kind, every kind, in kind order.
    pub kinds: Vec<KindRow>,
    /// For a generated source: the planted needles and how many of them the detector found.
    pub planted: Option<PlantedCheck>,
}

/// The needles of one kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindRow {
    /// The kind.
    pub kind: NeedleKind,
    /// Needles of this kind found.
    pub count: u64,
    /// Outputs with at least one.
    pub outputs: Share,
    /// Where they sit in their text (0 start, 1 end; a needle that is its whole text has no position).
    pub positions: Positions,
}

/// The generator's planted needles against the detector's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlantedCheck {
    /// Needles planted.
    pub planted: u64,
    /// Of those, found by the detector.
    pub found: u64,
    /// Needles the detector found that were not planted.
    pub beyond: u64,
}

/// One tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRow {
    /// The tool name.
    pub tool: String,
    /// Its outputs' sizes (count: its outputs).
    pub sizes: Distribution,
    /// Its share of all outputs.
    pub share: Option<f64>,
}

/// The profile of recorded `batches` (in parallel; the result does not depend on the thread count).
pub fn profile_batches(source: SourceInfo, batches: &[Batch]) -> Profile {
    let facts: Vec<BatchFacts> = batches
        .par_iter()
        .map(|b| BatchFacts::of(b, None))
        .collect();
    let mut fold = Fold::default();
    for f in facts {
        fold.add(f);
    }
    fold.finish(source)
}

/// The profile of the first `batches` batches of `scenario`, with its planted needles checked against the
/// detector's.
pub fn profile_scenario(scenario: &Scenario, batches: u64) -> Profile {
    let generator = Generator::new(scenario);
    let mut fold = Fold::default();
    let mut start = 0;
    while start < batches {
        let end = (start + CHUNK).min(batches);
        let facts: Vec<BatchFacts> = (start..end)
            .into_par_iter()
            .map(|i| {
                let g = generator.batch(i);
                BatchFacts::of(&g.batch, Some(&g.needles))
            })
            .collect();
        for f in facts {
            fold.add(f);
        }
        start = end;
    }
    fold.finish(SourceInfo {
        name: scenario.name.clone(),
        kind: SourceKind::Generated,
        digest: scenario.digest(),
        seed: Some(scenario.seed.0),
        batches,
    })
}

/// The running sums and lists of a profile, batch by batch in order.
#[derive(Default)]
struct Fold {
    sizes: Vec<u64>,
    lines: Vec<u64>,
    widths: Vec<u64>,
    astral: u64,
    non_ascii: u64,
    crlf: u64,
    ansi: u64,
    empty: u64,
    json: u64,
    /// Per digest: copies, units, the first copy's tool and its order of first sight.
    texts: BTreeMap<[u8; 32], (u64, u64, String, u64)>,
    /// Per kind: needles, outputs with one, positions.
    needles: BTreeMap<NeedleKind, (u64, u64, Vec<f64>)>,
    without_exit: u64,
    styles: BTreeMap<String, u64>,
    tools: BTreeMap<String, Vec<u64>>,
    planted: Option<(u64, u64)>,
}

impl Fold {
    fn add(&mut self, batch: BatchFacts) {
        self.widths.push(batch.outputs.len() as u64);
        if let Some((planted, found)) = batch.planted {
            let p = self.planted.get_or_insert((0, 0));
            p.0 += planted;
            p.1 += found;
        }
        for out in batch.outputs {
            self.sizes.push(out.units);
            self.lines.push(out.lines);
            self.astral += u64::from(out.astral);
            self.non_ascii += u64::from(out.non_ascii);
            self.crlf += u64::from(out.crlf);
            self.ansi += u64::from(out.ansi);
            self.empty += u64::from(out.units == 0);
            self.json += u64::from(out.json);
            if let Some(digest) = out.digest {
                let seen = self.texts.len() as u64;
                self.texts
                    .entry(digest)
                    .or_insert_with(|| (0, out.units, out.tool.clone(), seen))
                    .0 += 1;
            }
            let mut kinds_here: Vec<NeedleKind> = Vec::new();
            for (kind, position) in out.needles {
                let k = self.needles.entry(kind).or_default();
                k.0 += 1;
                k.2.extend(position);
                if !kinds_here.contains(&kind) {
                    kinds_here.push(kind);
                    k.1 += 1;
                }
            }
            self.without_exit += u64::from(out.exit_styles.is_empty());
            for style in out.exit_styles {
                *self.styles.entry(style).or_default() += 1;
            }
            self.tools.entry(out.tool).or_default().push(out.units);
        }
    }

    fn finish(mut self, source: SourceInfo) -> Profile {
        let n = self.sizes.len() as u64;
        self.sizes.sort_unstable();
        let sizes = &self.sizes;
        let total_units: u64 = sizes.iter().sum();
        let above = SIZE_THRESHOLDS
            .iter()
            .map(|&units| Above {
                units,
                outputs: Share::of(
                    (sizes.len() - sizes.partition_point(|&s| s <= units)) as u64,
                    n,
                ),
            })
            .collect();
        let quantiles = if sizes.is_empty() {
            Vec::new()
        } else {
            quantile_grid()
                .into_iter()
                .map(|bp| Quantile {
                    percent: f64::from(bp) / 100.0,
                    units: sizes[nearest_rank(bp, sizes.len()) - 1],
                })
                .collect()
        };
        let repeated: u64 = self.texts.values().map(|t| t.0 - 1).sum();
        let most = self
            .texts
            .values()
            .filter(|t| t.0 > 1)
            .max_by(|a, b| {
                (a.0, a.1, std::cmp::Reverse(a.3)).cmp(&(b.0, b.1, std::cmp::Reverse(b.3)))
            })
            .map(|t| MostRepeated {
                copies: t.0,
                units: t.1,
                tool: t.2.clone(),
            });
        let summary_positions = self
            .needles
            .get(&NeedleKind::SummaryLine)
            .map(|k| k.2.as_slice())
            .unwrap_or_default();
        let kinds = [
            NeedleKind::ExitInfo,
            NeedleKind::FirstError,
            NeedleKind::SummaryLine,
            NeedleKind::JsonKey,
        ]
        .into_iter()
        .map(|kind| {
            let (count, outputs, positions) = self.needles.get(&kind).cloned().unwrap_or_default();
            KindRow {
                kind,
                count,
                outputs: Share::of(outputs, n),
                positions: Positions::of(&positions),
            }
        })
        .collect::<Vec<_>>();
        let total = kinds.iter().map(|k| k.count).sum();
        let mut styles: Vec<StyleRow> = self
            .styles
            .iter()
            .map(|(style, &count)| StyleRow {
                style: style.clone(),
                outputs: Share::of(count, n),
            })
            .collect();
        styles.sort_by(|a, b| {
            b.outputs
                .count
                .cmp(&a.outputs.count)
                .then(a.style.cmp(&b.style))
        });
        let mut tools: Vec<ToolRow> = self
            .tools
            .into_iter()
            .map(|(tool, sizes)| ToolRow {
                share: share(sizes.len() as u64, n),
                sizes: Distribution::of(&sizes),
                tool,
            })
            .collect();
        tools.sort_by(|a, b| b.sizes.count.cmp(&a.sizes.count).then(a.tool.cmp(&b.tool)));
        Profile {
            source,
            outputs: n,
            sizes: Sizes {
                distribution: Distribution::of_sorted(sizes),
                mean: (n > 0).then(|| total_units as f64 / n as f64),
                total_units,
                above,
                quantiles,
            },
            shape: Shape {
                astral: Share::of(self.astral, n),
                non_ascii: Share::of(self.non_ascii, n),
                crlf: Share::of(self.crlf, n),
                ansi: Share::of(self.ansi, n),
                empty: Share::of(self.empty, n),
                json: Share::of(self.json, n),
                summary_position: Positions::of(summary_positions),
            },
            lines: Distribution::of(&self.lines),
            width: Width {
                distribution: Distribution::of(&self.widths),
                above_one: Share::of(
                    self.widths.iter().filter(|&&w| w > 1).count() as u64,
                    self.widths.len() as u64,
                ),
            },
            repeats: Repeats {
                repeated: Share::of(repeated, n),
                texts: self.texts.values().filter(|t| t.0 > 1).count() as u64,
                most,
            },
            exit_styles: ExitStyles {
                none: Share::of(self.without_exit, n),
                styles,
            },
            needles: NeedleProfile {
                total,
                kinds,
                planted: self.planted.map(|(planted, found)| PlantedCheck {
                    planted,
                    found,
                    beyond: total.saturating_sub(found),
                }),
            },
            tools,
        }
    }
}

#[cfg(test)]
mod tests;
