//! The fit: knobs set from the corpus, then corrected round by round against a generated sample of the scenario
//! they make, until the check passes (or the rounds run out; the best round is kept).
//!
//! - Sizes: each kind gets a table of quantiles (`[sizes.KIND] quantiles`) read off its outputs in the corpus
//!   (every output's size for a kind of 64 outputs or fewer, a fixed grid of 31 shares above). The kinds write
//!   some framing around a drawn size and cannot write every size (a search always names its count), so each
//!   round moves every point of a table by the ratio, in `1 + units`, of the corpus's quantile to the sample's,
//!   never above twice the corpus's quantile and 1,000 units (a kind that cannot come down to a size would
//!   otherwise climb round after round, and its samples with it).
//! - The kind mix: each kind's weight is moved by the ratio of its share of the corpus's outputs to its share of
//!   the sample's.
//! - Shares: the empty share is solved for the sample's own empty outputs; astral, non-ASCII, CRLF, ANSI and
//!   repeated outputs are moved by what the sample misses; the summary-start share by the secant through the
//!   last two rounds' mean summary positions; each exit style's weight by the ratio of its shares (styles the
//!   generator has no name for are written as the texture's `exit_lines`). When a sample has more repeated or
//!   empty outputs than the corpus, the next rounds write short results as short outputs of their own
//!   (`short_units`).
//! - The batch width is a log-normal with the corpus's median and p90, moved a whole entry when the sample's
//!   median differs. Call-id duplicates and windowed views are read off the corpus once.
//!
//! Rounds generate with the kinds' tool names replaced by `calibrate-kind:KIND`, so that each output's kind is
//! known; names change nothing else, so the last round's sample is the fitted scenario's.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use super::check::{self, Figures};
use super::measure::{Corpus, Measure};
use super::write::{scenario_toml, Params};
use crate::error::{Error, Result};
use crate::generate::Generator;
use crate::model::Batch;
use crate::profile::percentile;
use crate::scenario::{
    ExitStyle, Scenario, ENTRY_OVERHEAD_UNITS, MAX_BATCHES, MAX_BATCH_UNITS, MAX_BATCH_WIDTH,
    MAX_EXIT_LINE_BYTES,
};
use crate::workload::{Kind, MAX_SIZE};

/// Outputs a round's sample aims at (fewer when the corpus's outputs are large, see `SAMPLE_UNITS`).
pub const SAMPLE_OUTPUTS: u64 = 20_000;
/// Fewest outputs a round's sample has.
pub(super) const MIN_SAMPLE_OUTPUTS: u64 = 2_000;
/// UTF-16 units a round's sample aims to stay under, at the corpus's mean output size.
pub(super) const SAMPLE_UNITS: u64 = 100_000_000;
/// Most rounds.
pub const ROUNDS: usize = 12;
/// A point of a kind's table stays at most this many times the corpus's size at its share, plus
/// [`SIZE_SLACK`] units: so a round's sample holds at most a few times [`SAMPLE_UNITS`].
const SIZE_CAP: f64 = 2.0;
/// See [`SIZE_CAP`].
const SIZE_SLACK: f64 = 1_000.0;

/// The shares of the quantile tables of kinds with more than 64 outputs in the corpus.
const GRID: [f64; 31] = [
    0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65,
    0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995, 0.998, 0.999, 1.0,
];

/// The tool-name prefix a round's kinds are recorded under.
const FIT_NAME: &str = "calibrate-kind:";

/// The profile's names of the exit styles the generator writes.
const STYLE_NAMES: [(ExitStyle, &str); 4] = [
    (ExitStyle::Header, "Exit Code: N"),
    (ExitStyle::Returncode, "<returncode>N</returncode>"),
    (ExitStyle::Finished, "[Command finished with exit code N]"),
    (ExitStyle::ExitCode, "Exit code: N"),
];

/// Whether the generator writes exit lines of the profile's style `style`: one of its named styles, or a last
/// line of the texture's `exit_lines`.
pub(super) fn writes_style(style: &str) -> bool {
    STYLE_NAMES.iter().any(|(_, name)| *name == style) || is_exit_line(style)
}

/// Whether the profile's style `style` is written as a line of the texture's `exit_lines`: a style the named ones
/// do not cover that is a last line (not a tag opening the output, as `<returncode>` is) and a valid key there.
/// The style is the line with its status as `N`, so it is its own template.
fn is_exit_line(style: &str) -> bool {
    !STYLE_NAMES.iter().any(|(_, name)| *name == style)
        && !style.starts_with('<')
        && !style.is_empty()
        && style.len() <= MAX_EXIT_LINE_BYTES
        && style.contains('N')
        && !style.chars().any(char::is_control)
}

/// The `short_units` a fit turns on when a round's sample has more repeated or empty outputs than the corpus:
/// results drawn shorter are written as short outputs of their own, neither empty nor alike, where the kinds'
/// long forms cut down to a few units are often both.
pub(crate) const SHORT_UNITS: u64 = 400;

/// The result of a fit.
#[derive(Debug, Clone)]
pub(super) struct Fit {
    /// The knobs of the best round.
    pub params: Params,
    /// Batches of the sample (the scenario's `batches`).
    pub batches: u64,
    /// Rounds run.
    pub rounds: usize,
    /// Each kind's size model and why.
    pub models: Vec<SizeChoice>,
}

/// The shares of a kind's table of quantiles, for `n` outputs.
fn shares_for(n: usize) -> Vec<f64> {
    match n {
        0 | 1 => vec![0.0, 1.0],
        2..=64 => (0..n).map(|i| i as f64 / (n - 1) as f64).collect(),
        _ => GRID.to_vec(),
    }
}

/// The value at share `q` of `sorted` (the order statistic nearest to `q (n - 1)`).
fn at(sorted: &[u64], q: f64) -> f64 {
    let i = (q * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)] as f64
}

fn clamp01(v: f64) -> f64 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// `v` rounded to 6 decimals (the shares written to the file).
fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// The knobs read off the corpus, before any round.
fn initial(corpus: &Corpus) -> Params {
    let m = &corpus.measure;
    let mut weights = BTreeMap::new();
    let mut tables = BTreeMap::new();
    for (kind, sizes) in &m.by_kind {
        weights.insert(*kind, sizes.len() as f64);
        let table = shares_for(sizes.len())
            .into_iter()
            .map(|q| [q, at(sizes, q)])
            .collect();
        tables.insert(*kind, table);
    }
    let empty_only = weights.is_empty();
    if empty_only {
        // Nothing but empty outputs: any kind, emptied.
        weights.insert(Kind::ShortSuccess, 1.0);
        tables.insert(Kind::ShortSuccess, vec![[0.0, 1.0], [1.0, 1.0]]);
    }
    let median = percentile(&m.widths, 5_000).unwrap_or(1).max(1);
    let p90 = percentile(&m.widths, 9_000).unwrap_or(median).max(median);
    let sigma = if p90 > median {
        round6((p90 as f64 / median as f64).ln() / 1.2816)
    } else {
        0.0
    };
    let min = m
        .widths
        .first()
        .copied()
        .unwrap_or(1)
        .clamp(1, MAX_BATCH_WIDTH);
    let max = m
        .widths
        .last()
        .copied()
        .unwrap_or(1)
        .clamp(min, MAX_BATCH_WIDTH);
    let shell = m.by_kind.get(&Kind::Shell).map_or(0, Vec::len) as f64;
    let mut exit_styles = BTreeMap::new();
    let mut exit_lines = BTreeMap::new();
    if shell > 0.0 {
        let mut written = 0.0;
        for (style, name) in STYLE_NAMES {
            if let Some(&n) = m.styles.get(name) {
                exit_styles.insert(style, n as f64);
                written += n as f64;
            }
        }
        for (name, &n) in m.styles.iter().filter(|(name, _)| is_exit_line(name)) {
            exit_lines.insert(name.clone(), n as f64);
            written += n as f64;
        }
        if shell > written || (exit_styles.is_empty() && exit_lines.is_empty()) {
            exit_styles.insert(ExitStyle::None, (shell - written).max(1.0));
        }
    }
    Params {
        width: (median as f64, sigma, min, max),
        duplicate_rate: round6(corpus.duplicate_rate),
        weights,
        tables,
        astral: round6(m.share(m.astral)),
        non_ascii: round6(m.share(m.non_ascii)),
        crlf: round6(m.share(m.crlf)),
        ansi: round6(m.share(m.ansi)),
        empty: if empty_only {
            1.0
        } else {
            round6(m.share(m.empty))
        },
        repeat: round6(m.share(m.repeated)),
        summary_start: round6(m.summary_position().map_or(0.0, |p| 1.0 - p)),
        file_view: round6(corpus.file_view_share),
        exit_styles,
        exit_lines,
        short_units: 0,
        empirical: BTreeSet::new(),
    }
}

/// Most runs of equal sizes a kind's empirical table keeps as steps (two points each); a kind with more
/// distinct sizes gets every percent instead.
const STEP_RUNS: usize = crate::scenario::MAX_EMPIRICAL_POINTS / 2;

/// The empirical table of a kind's `sorted` sizes in the corpus. Up to [`STEP_RUNS`] distinct sizes, the table is
/// the corpus's own distribution: each size holds the shares of its outputs (the `k`-th of `n` from `k / n` to
/// `(k + 1) / n`) as a flat step, so a draw is always one of the corpus's sizes and each percentile of the draws
/// is the corpus's nearest-rank one. Above, every percent and the tail's 99.5, 99.8 and 99.9, interpolated.
fn empirical_table(sorted: &[u64]) -> Vec<[f64; 2]> {
    let n = sorted.len();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, &v) in sorted.iter().enumerate() {
        match runs.last_mut() {
            Some((_, end)) if sorted[*end] == v => *end = i,
            _ => runs.push((i, i)),
        }
    }
    if n < 2 || runs.len() > STEP_RUNS {
        let mut shares: Vec<f64> = (0..=100).map(|i| f64::from(i) / 100.0).collect();
        shares.extend([0.995, 0.998, 0.999]);
        shares.sort_by(f64::total_cmp);
        if n < 2 {
            shares = vec![0.0, 1.0];
        }
        return shares.into_iter().map(|q| [q, at(sorted, q)]).collect();
    }
    let mut table = Vec::with_capacity(2 * runs.len());
    for (r, &(start, end)) in runs.iter().enumerate() {
        let v = sorted[start] as f64;
        // A step starts just after the one before ends (shares strictly rise).
        let from = if r == 0 {
            0.0
        } else {
            start as f64 / n as f64 + 1e-9
        };
        table.push([from, v]);
        table.push([(end + 1) as f64 / n as f64, v]);
    }
    table
}

/// Which size model a kind got, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeChoice {
    /// The kind.
    pub kind: Kind,
    /// Whether its model is empirical (`[empirical.KIND]`) rather than parametric (`[sizes.KIND]`).
    pub empirical: bool,
    /// Why, in a phrase.
    pub why: String,
}

/// The size percentiles a kind is compared at, for choosing its model.
const KIND_PERCENTILES: [(f64, &str); 4] =
    [(0.1, "p10"), (0.5, "p50"), (0.9, "p90"), (0.99, "p99")];

/// Why a kind of the parametric fit's best `sample` needs an empirical model, if it does: one of its size
/// percentiles more than 10% off the corpus's for the kind, or its outputs repeating each other more than the
/// corpus's by over a point while the sample has too many repeats.
fn needs_empirical(kind: Kind, corpus: &Measure, sample: &Measure) -> Option<String> {
    let want = corpus.by_kind.get(&kind)?;
    let Some(got) = sample.by_kind.get(&kind) else {
        return Some("the sample had none of its outputs".into());
    };
    for (q, name) in KIND_PERCENTILES {
        let (w, g) = (at(want, q), at(got, q));
        if (g - w).abs() > w * check::PERCENTILE_TOLERANCE {
            return Some(format!(
                "its {name} was {g} units in the parametric fit's sample against {w} in the corpus"
            ));
        }
    }
    let share = |m: &Measure, sizes: &[u64]| {
        m.repeated_by_kind.get(&kind).copied().unwrap_or(0) as f64 / sizes.len().max(1) as f64
    };
    let (w, g) = (share(corpus, want), share(sample, got));
    let too_many =
        sample.share(sample.repeated) > corpus.share(corpus.repeated) + check::SHARE_TOLERANCE;
    if too_many && g > w + check::SHARE_TOLERANCE {
        return Some(format!(
            "{:.1}% of its outputs repeated an earlier one in the parametric fit's sample against {:.1}% in \
             the corpus",
            g * 100.0,
            w * 100.0
        ));
    }
    None
}

/// The outputs a round's sample aims at, and so its batches.
fn sample_batches(corpus: &Measure) -> u64 {
    let mean_units = corpus.sizes.iter().sum::<u64>() / corpus.outputs.max(1);
    let outputs = (SAMPLE_UNITS / mean_units.max(1)).clamp(MIN_SAMPLE_OUTPUTS, SAMPLE_OUTPUTS);
    let mean_width = corpus.outputs as f64 / corpus.widths.len().max(1) as f64;
    ((outputs as f64 / mean_width.max(1.0)).ceil() as u64).clamp(1, MAX_BATCHES)
}

/// The kind a round's output was generated as, from its tool name.
fn kind_of_fit_name(tool: &str) -> Kind {
    tool.strip_prefix(FIT_NAME)
        .and_then(|k| Kind::ALL.into_iter().find(|kind| kind.as_str() == k))
        .unwrap_or(Kind::ShortSuccess)
}

/// The batches of `scenario`, in parallel, in order.
fn generate(scenario: &Scenario, batches: u64) -> Vec<Batch> {
    let g = Generator::new(scenario);
    (0..batches)
        .into_par_iter()
        .map(|i| g.batch(i).batch)
        .collect()
}

/// The scenario text of `p` with the kinds' names `names`.
pub(super) fn text(
    header: &[String],
    name: &str,
    seed: u64,
    batches: u64,
    p: &Params,
    names: &BTreeMap<Kind, String>,
) -> String {
    let mut p = p.clone();
    // Keep the batch within the scenario bound: as wide as the largest sizes allow.
    let largest = p
        .tables
        .values()
        .filter_map(|t| t.last())
        .map(|l| l[1].ceil() as u64)
        .max()
        .unwrap_or(0);
    let widest = (MAX_BATCH_UNITS / (largest + ENTRY_OVERHEAD_UNITS)).max(1);
    p.width.3 = p.width.3.min(widest);
    p.width.2 = p.width.2.min(p.width.3);
    scenario_toml(header, name, seed, batches, &p, names)
}

/// Fits the knobs to `corpus`, the scenario named `name` generated at `seed` (both key its random streams, so
/// the rounds' samples are the fitted scenario's own). First every kind's table is parametric (`[sizes.KIND]`);
/// when that fit misses, the kinds whose sizes or repeats the parametric fit could not follow
/// ([`needs_empirical`]) get empirical tables read off the corpus afresh, and the fit runs again from the first
/// fit's knobs; the better of the two is kept. `progress` is told of each round, and of the rounds left untaken
/// when a fit ends early: twice [`ROUNDS`] in all.
pub(super) fn fit(corpus: &Corpus, name: &str, seed: u64, progress: &dyn Fn(u64)) -> Result<Fit> {
    let target = &corpus.measure;
    let batches = sample_batches(target);
    let first = rounds(corpus, name, seed, batches, initial(corpus), progress)?;
    let parametric_why = |passed: bool| {
        if passed {
            "the parametric fit passes".to_string()
        } else {
            "its sizes and repeats followed the corpus in the parametric fit".to_string()
        }
    };
    let mut choices: Vec<SizeChoice> = first
        .params
        .tables
        .keys()
        .map(|&kind| SizeChoice {
            kind,
            empirical: false,
            why: parametric_why(first.score.0 == 0),
        })
        .collect();
    // A size percentile of all the outputs missed: every kind's sizes are made exact, since the kinds' own
    // percentiles do not say which sizes between them the mixture misses.
    let size_miss = first.rows[..4].iter().find(|r| r.pass == Some(false));
    let chosen: BTreeMap<Kind, String> = if first.score.0 == 0 {
        BTreeMap::new()
    } else {
        choices
            .iter()
            .filter_map(|c| {
                let why = needs_empirical(c.kind, target, &first.sample).or_else(|| {
                    size_miss.map(|r| {
                        format!(
                            "the parametric fit missed the {} of all outputs ({} against {} in the corpus)",
                            r.figure.trim_end_matches(" (units)").trim_start_matches("size "),
                            r.fitted,
                            r.corpus
                        )
                    })
                })?;
                target.by_kind.contains_key(&c.kind).then_some((c.kind, why))
            })
            .collect()
    };
    if chosen.is_empty() {
        progress(ROUNDS as u64);
        return Ok(Fit {
            params: first.params,
            batches,
            rounds: first.rounds,
            models: choices,
        });
    }
    let mut params = first.params.clone();
    for kind in chosen.keys() {
        params.empirical.insert(*kind);
        if let Some(sizes) = target.by_kind.get(kind) {
            params.tables.insert(*kind, empirical_table(sizes));
        }
    }
    // The kinds' weights afresh from the corpus: what the parametric rounds moved them by made up for sizes
    // the kinds could not write.
    params.weights = initial(corpus).weights;
    let second = rounds(corpus, name, seed, batches, params, progress)?;
    let better = second.score.0 < first.score.0
        || (second.score.0 == first.score.0 && second.score.1 < first.score.1);
    for c in &mut choices {
        if let Some(why) = chosen.get(&c.kind) {
            if better {
                c.empirical = true;
                c.why = why.clone();
            } else {
                c.why = format!("{why}; an empirical model fitted no better");
            }
        }
    }
    let rounds = first.rounds + second.rounds;
    let best = if better { second } else { first };
    Ok(Fit {
        params: best.params,
        batches,
        rounds,
        models: choices,
    })
}

/// The best round of one fit.
struct Pass {
    /// Its score ([`check::score`]).
    score: (usize, f64),
    /// Its knobs.
    params: Params,
    /// Its sample's measure.
    sample: Measure,
    /// Its check.
    rows: Vec<check::Row>,
    /// Rounds run in the pass.
    rounds: usize,
}

/// Runs up to [`ROUNDS`] rounds from `params`, keeping the best; `progress` is told of [`ROUNDS`] in all.
fn rounds(
    corpus: &Corpus,
    name: &str,
    seed: u64,
    batches: u64,
    mut params: Params,
    progress: &dyn Fn(u64),
) -> Result<Pass> {
    let target = &corpus.measure;
    let fit_names: BTreeMap<Kind, String> = Kind::ALL
        .into_iter()
        .map(|k| (k, format!("{FIT_NAME}{}", k.as_str())))
        .collect();
    let corpus_figures = Figures::of_measure(target);
    let mut best: Option<Pass> = None;
    let mut summary_history: Vec<(f64, f64)> = Vec::new();
    let mut run = 0;
    for round in 0..ROUNDS {
        run = round + 1;
        let source = text(&[], name, seed, batches, &params, &fit_names);
        let scenario = Scenario::parse(&source, "calibrate-fit").map_err(|e| {
            Error::report(
                "calibrate",
                format!("the fitted knobs make no valid scenario: {e}"),
            )
        })?;
        let sample = Measure::of(&generate(&scenario, batches), |e, _| {
            kind_of_fit_name(&e.tool_name)
        });
        let rows = check::rows(&corpus_figures, &Figures::of_measure(&sample));
        let score = check::score(&rows);
        let better = best
            .as_ref()
            .is_none_or(|b| score.0 < b.score.0 || (score.0 == b.score.0 && score.1 < b.score.1));
        let next =
            (score.0 > 0).then(|| adjust(params.clone(), corpus, &sample, &mut summary_history));
        if better {
            best = Some(Pass {
                score,
                params,
                sample,
                rows,
                rounds: 0,
            });
        }
        progress(1);
        match next {
            Some(p) => params = p,
            None => {
                progress((ROUNDS - round - 1) as u64);
                break;
            }
        }
    }
    let mut best = best.expect("at least one round");
    best.rounds = run;
    Ok(best)
}

/// The next round's knobs, from what the sample of this round's measured.
fn adjust(
    mut p: Params,
    corpus: &Corpus,
    sample: &Measure,
    summary_history: &mut Vec<(f64, f64)>,
) -> Params {
    let target = &corpus.measure;
    // Sizes: every point of a kind's table by the ratio of the quantiles at its share.
    for (kind, table) in &mut p.tables {
        let (Some(want), Some(got)) = (target.by_kind.get(kind), sample.by_kind.get(kind)) else {
            continue;
        };
        if p.empirical.contains(kind) {
            // Written to the size drawn: the corpus's own table stays.
            continue;
        }
        let mut floor = 0.0f64;
        for point in table.iter_mut() {
            let wanted = at(want, point[0]);
            let ratio = (1.0 + wanted) / (1.0 + at(got, point[0]));
            // A kind that cannot write a size (its framing alone is larger) would push its point up round after
            // round; the cap keeps a sample within a few times the corpus's units.
            let v = ((1.0 + point[1]) * ratio - 1.0)
                .round()
                .clamp(0.0, (SIZE_CAP * wanted + SIZE_SLACK).min(MAX_SIZE as f64));
            floor = floor.max(v);
            point[1] = floor;
        }
    }
    // The mix: each kind's share of the outputs.
    for (kind, w) in &mut p.weights {
        let want = target.share(target.by_kind.get(kind).map_or(0, Vec::len) as u64);
        let got = sample.share(sample.by_kind.get(kind).map_or(0, Vec::len) as u64);
        let factor = if got > 0.0 { want / got } else { 2.0 };
        *w = ((*w * factor) * 1e4).round().max(1.0) / 1e4;
    }
    // Empty outputs: the share to empty, given the share the kinds leave empty themselves.
    let (want_empty, got_empty) = (target.share(target.empty), sample.share(sample.empty));
    if p.empty < 1.0 {
        let natural = clamp01((got_empty - p.empty) / (1.0 - p.empty));
        if natural < 1.0 {
            p.empty = round6(clamp01((want_empty - natural) / (1.0 - natural)));
        }
    }
    // Features drawn on the outputs not emptied: move each by what the sample misses.
    let kept = (1.0 - want_empty).max(0.05);
    let step = |v: &mut f64, want: u64, got: u64| {
        *v = round6(clamp01(
            *v + (target.share(want) - sample.share(got)) / kept,
        ));
    };
    step(&mut p.astral, target.astral, sample.astral);
    step(&mut p.non_ascii, target.non_ascii, sample.non_ascii);
    step(&mut p.crlf, target.crlf, sample.crlf);
    step(&mut p.ansi, target.ansi, sample.ansi);
    step(&mut p.repeat, target.repeated, sample.repeated);
    p.non_ascii = p.non_ascii.max(p.astral);
    // The summary position falls as the share of summaries moved first grows.
    if let (Some(want), Some(got)) = (target.summary_position(), sample.summary_position()) {
        summary_history.push((p.summary_start, got));
        let next = match summary_history.as_slice() {
            [.., (s0, g0), (s1, g1)] if (g1 - g0).abs() > 1e-9 && (s1 - s0).abs() > 1e-9 => {
                s1 + (want - g1) * (s1 - s0) / (g1 - g0)
            }
            _ => p.summary_start + (got - want),
        };
        p.summary_start = round6(clamp01(next));
    }
    // Exit styles and lines: each weight by the ratio of its shares.
    let by_ratio = |w: &mut f64, name: &str| {
        let want = target.share(target.styles.get(name).copied().unwrap_or(0));
        let got = sample.share(sample.styles.get(name).copied().unwrap_or(0));
        let factor = if got > 0.0 { want / got } else { 2.0 };
        *w = ((*w * factor) * 1e4).round().max(1.0) / 1e4;
    };
    for (style, name) in STYLE_NAMES {
        if let Some(w) = p.exit_styles.get_mut(&style) {
            by_ratio(w, name);
        }
    }
    for (name, w) in &mut p.exit_lines {
        by_ratio(w, name);
    }
    // Short forms, once the sample has more repeated or empty outputs than the corpus can have.
    let over =
        |want: u64, got: u64| sample.share(got) > target.share(want) + check::SHARE_TOLERANCE;
    if p.short_units == 0
        && (over(target.repeated, sample.repeated) || over(target.empty, sample.empty))
    {
        p.short_units = SHORT_UNITS;
    }
    // The width's median, a whole entry at a time.
    if let (Some(want), Some(got)) = (
        percentile(&target.widths, 5_000),
        percentile(&sample.widths, 5_000),
    ) {
        if want != got {
            p.width.0 = (p.width.0 + want as f64 - got as f64).max(1.0);
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_take_every_output_of_a_small_kind_and_a_grid_above() {
        assert_eq!(shares_for(1), [0.0, 1.0]);
        assert_eq!(shares_for(3), [0.0, 0.5, 1.0]);
        assert_eq!(shares_for(65).len(), GRID.len());
        let sorted = [10, 20, 30, 40, 50];
        assert_eq!(at(&sorted, 0.0), 10.0);
        assert_eq!(at(&sorted, 0.5), 30.0);
        assert_eq!(at(&sorted, 0.6), 30.0);
        assert_eq!(at(&sorted, 1.0), 50.0);
        assert_eq!(kind_of_fit_name("calibrate-kind:file_read"), Kind::FileRead);
        assert_eq!(kind_of_fit_name("bash"), Kind::ShortSuccess);
    }

    #[test]
    fn an_empirical_table_is_the_corpus_own_distribution_in_steps() {
        let t = empirical_table(&[2, 2, 7, 40]);
        assert_eq!(
            t,
            [
                [0.0, 2.0],
                [0.5, 2.0],
                [0.5 + 1e-9, 7.0],
                [0.75, 7.0],
                [0.75 + 1e-9, 40.0],
                [1.0, 40.0]
            ]
        );
        let model = crate::scenario::Empirical::new(t);
        assert_eq!(model.validate(), Ok(()));
        // Each share draws the corpus's nearest-rank size there.
        for (u, want) in [
            (0.1, 2),
            (0.5, 2),
            (0.6, 7),
            (0.74, 7),
            (0.9, 40),
            (0.99, 40),
        ] {
            assert_eq!(model.at(u), want, "{u}");
        }
        assert_eq!(empirical_table(&[5]), [[0.0, 5.0], [1.0, 5.0]]);
        // Too many distinct sizes: every percent, interpolated.
        let many: Vec<u64> = (0..600).collect();
        let t = empirical_table(&many);
        assert_eq!(t.len(), 104);
        assert_eq!((t[0], t[103]), ([0.0, 0.0], [1.0, 599.0]));
        assert_eq!(crate::scenario::Empirical::new(t).validate(), Ok(()));
    }

    #[test]
    fn styles_the_named_ones_miss_are_written_as_exit_lines() {
        for named in ["Exit Code: N", "<returncode>N</returncode>", "Exit code: N"] {
            assert!(writes_style(named) && !is_exit_line(named), "{named}");
        }
        for line in [
            "Exit code N",
            "[The command completed with exit code N]",
            "exit status N",
        ] {
            assert!(writes_style(line) && is_exit_line(line), "{line}");
        }
        for not in ["<status>N</status>", "", "Exit\tcode N", "exit code n"] {
            assert!(!writes_style(not), "{not:?}");
        }
        assert!(!is_exit_line(&format!("Exit code N{}", "x".repeat(200))));
    }
}
