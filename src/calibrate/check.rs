//! The fit check: the corpus's figures beside the fitted scenario's, each with its tolerance. p10, p50, p90 and
//! p99 within 10%; the share above 100,000 units within a factor of 2 when the corpus has at least 20 such outputs;
//! every shape share (astral, non-ASCII, CRLF, ANSI, empty, repeated, each exit-line style) and the mean
//! summary-line position within 1 percentage point; the median batch width equal. The same rules score the
//! fit's rounds (on [`Measure`]s) and judge the result (on the two [`Profile`]s).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::measure::Measure;
use crate::profile::{percentile, Profile};

/// Relative tolerance of the size percentiles.
pub const PERCENTILE_TOLERANCE: f64 = 0.10;
/// Absolute tolerance of the shape shares and the summary position.
pub const SHARE_TOLERANCE: f64 = 0.01;
/// The factor the share above 100,000 units may be off by.
pub const GIANT_FACTOR: f64 = 2.0;
/// Fewest corpus outputs above 100,000 units for their share to be checked.
pub const GIANT_MIN: u64 = 20;

/// A figure exactly at its tolerance passes: the rounding of the divisions behind it is not a miss.
const EDGE: f64 = 1.0 + 1e-9;

/// The figures the check compares.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Figures {
    /// Outputs.
    pub outputs: u64,
    /// Size percentiles (p10, p50, p90, p99) and maximum.
    pub sizes: [Option<u64>; 5],
    /// Outputs above 100,000 units: count and share.
    pub giants: (u64, f64),
    /// Shares: astral, non-ASCII, CRLF, ANSI, empty, repeated.
    pub shares: [f64; 6],
    /// Each exit-line style's share of the outputs.
    pub styles: BTreeMap<String, f64>,
    /// The mean summary-line position.
    pub summary: Option<f64>,
    /// The median batch width.
    pub width: Option<u64>,
}

/// The names of [`Figures::shares`].
const SHARE_NAMES: [&str; 6] = ["astral", "non-ASCII", "CRLF", "ANSI", "empty", "repeated"];

impl Figures {
    /// The figures of a profile.
    pub(super) fn of_profile(p: &Profile) -> Figures {
        let d = &p.sizes.distribution;
        let p10 = p
            .sizes
            .quantiles
            .iter()
            .find(|q| q.percent == 10.0)
            .map(|q| q.units);
        let share = |s: &crate::profile::Share| s.share.unwrap_or(0.0);
        let giants = p
            .sizes
            .above
            .iter()
            .find(|a| a.units == 100_000)
            .map_or((0, 0.0), |a| (a.outputs.count, share(&a.outputs)));
        Figures {
            outputs: p.outputs,
            sizes: [p10, d.median, d.p90, d.p99, d.max],
            giants,
            shares: [
                share(&p.shape.astral),
                share(&p.shape.non_ascii),
                share(&p.shape.crlf),
                share(&p.shape.ansi),
                share(&p.shape.empty),
                share(&p.repeats.repeated),
            ],
            styles: p
                .exit_styles
                .styles
                .iter()
                .map(|s| (s.style.clone(), share(&s.outputs)))
                .collect(),
            summary: p.shape.summary_position.mean,
            width: p.width.distribution.median,
        }
    }

    /// The same figures of a measure.
    pub(super) fn of_measure(m: &Measure) -> Figures {
        let giants = m.sizes.len() - m.sizes.partition_point(|&s| s <= 100_000);
        Figures {
            outputs: m.outputs,
            sizes: [
                percentile(&m.sizes, 1_000),
                percentile(&m.sizes, 5_000),
                percentile(&m.sizes, 9_000),
                percentile(&m.sizes, 9_900),
                m.sizes.last().copied(),
            ],
            giants: (giants as u64, m.share(giants as u64)),
            shares: [
                m.share(m.astral),
                m.share(m.non_ascii),
                m.share(m.crlf),
                m.share(m.ansi),
                m.share(m.empty),
                m.share(m.repeated),
            ],
            styles: m
                .styles
                .iter()
                .map(|(s, &n)| (s.clone(), m.share(n)))
                .collect(),
            summary: m.summary_position(),
            width: percentile(&m.widths, 5_000),
        }
    }
}

/// One line of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The figure.
    pub figure: String,
    /// The corpus's value, as shown.
    pub corpus: String,
    /// The fitted scenario's value, as shown.
    pub fitted: String,
    /// The tolerance, as shown.
    pub tolerance: String,
    /// Whether it is within; `None` for a figure shown but not checked.
    pub pass: Option<bool>,
    /// How far off, in tolerances (1 is at the edge); 0 when not checked.
    pub miss: f64,
}

fn units(v: Option<u64>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

fn percent(v: f64) -> String {
    format!("{:.2}%", v * 100.0)
}

/// The comparison of the fitted figures with the corpus's.
pub(super) fn rows(corpus: &Figures, fitted: &Figures) -> Vec<Row> {
    let mut rows = Vec::new();
    for (i, name) in ["p10", "p50", "p90", "p99"].iter().enumerate() {
        let (c, f) = (corpus.sizes[i], fitted.sizes[i]);
        let miss = match (c, f) {
            (Some(c), Some(f)) if c > 0 => {
                (f as f64 - c as f64).abs() / (c as f64 * PERCENTILE_TOLERANCE)
            }
            (Some(0), Some(0)) => 0.0,
            _ => f64::INFINITY,
        };
        rows.push(Row {
            figure: format!("size {name} (units)"),
            corpus: units(c),
            fitted: units(f),
            tolerance: "±10%".into(),
            pass: Some(miss <= EDGE),
            miss,
        });
    }
    rows.push(Row {
        figure: "size max (units)".into(),
        corpus: units(corpus.sizes[4]),
        fitted: units(fitted.sizes[4]),
        tolerance: "-".into(),
        pass: None,
        miss: 0.0,
    });
    let checked = corpus.giants.0 >= GIANT_MIN;
    let (c, f) = (corpus.giants.1, fitted.giants.1);
    let miss = if !checked {
        0.0
    } else if f <= 0.0 {
        f64::INFINITY
    } else {
        (f / c).max(c / f).ln() / GIANT_FACTOR.ln()
    };
    rows.push(Row {
        figure: "above 100,000 units".into(),
        corpus: format!("{} ({})", percent(c), corpus.giants.0),
        fitted: format!("{} ({})", percent(f), fitted.giants.0),
        tolerance: if checked {
            "×2".into()
        } else {
            format!("- (fewer than {GIANT_MIN})")
        },
        pass: checked.then_some(miss <= EDGE),
        miss,
    });
    let mut share_row = |figure: String, c: f64, f: f64| {
        let miss = (f - c).abs() / SHARE_TOLERANCE;
        rows.push(Row {
            figure,
            corpus: percent(c),
            fitted: percent(f),
            tolerance: "±1 pp".into(),
            pass: Some(miss <= EDGE),
            miss,
        });
    };
    for (i, name) in SHARE_NAMES.iter().enumerate() {
        share_row(
            format!("{name} outputs"),
            corpus.shares[i],
            fitted.shares[i],
        );
    }
    let styles: std::collections::BTreeSet<&String> =
        corpus.styles.keys().chain(fitted.styles.keys()).collect();
    for style in styles {
        let get = |f: &Figures| f.styles.get(style).copied().unwrap_or(0.0);
        share_row(format!("exit line `{style}`"), get(corpus), get(fitted));
    }
    let (c, f) = (corpus.summary, fitted.summary);
    let miss = match (c, f) {
        (Some(c), Some(f)) => (f - c).abs() / SHARE_TOLERANCE,
        (Some(_), None) => f64::INFINITY,
        (None, _) => 0.0,
    };
    let show = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.3}"));
    rows.push(Row {
        figure: "summary line position (mean, 0 start, 1 end)".into(),
        corpus: show(c),
        fitted: show(f),
        tolerance: if c.is_some() { "±0.01" } else { "-" }.into(),
        pass: c.is_some().then_some(miss <= EDGE),
        miss,
    });
    let equal = corpus.width == fitted.width;
    rows.push(Row {
        figure: "batch width (median)".into(),
        corpus: units(corpus.width),
        fitted: units(fitted.width),
        tolerance: "equal".into(),
        pass: Some(equal),
        miss: if equal { 0.0 } else { f64::INFINITY },
    });
    rows
}

/// Whether every checked row passes.
pub(super) fn passed(rows: &[Row]) -> bool {
    rows.iter().all(|r| r.pass != Some(false))
}

/// How good a fit is, smaller better: the rows that miss, then how far they miss in all.
pub(super) fn score(rows: &[Row]) -> (usize, f64) {
    let failed = rows.iter().filter(|r| r.pass == Some(false)).count();
    let total = rows
        .iter()
        .filter(|r| r.pass.is_some())
        .map(|r| r.miss.min(1e6))
        .sum();
    (failed, total)
}

/// The comparison as a Markdown table.
pub(super) fn markdown(rows: &[Row]) -> String {
    let mut out =
        String::from("| figure | corpus | fitted | tolerance | |\n|---|---:|---:|---|---|\n");
    for r in rows {
        let mark = match r.pass {
            Some(true) => "ok",
            Some(false) => "**missed**",
            None => "",
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {mark} |",
            r.figure, r.corpus, r.fitted, r.tolerance
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> Figures {
        Figures {
            outputs: 1_000,
            sizes: [
                Some(40),
                Some(300),
                Some(4_000),
                Some(10_000),
                Some(600_000),
            ],
            giants: (25, 0.025),
            shares: [0.0, 0.004, 0.003, 0.0006, 0.057, 0.02],
            styles: BTreeMap::from([("Exit code: N".to_string(), 0.2)]),
            summary: Some(0.1),
            width: Some(1),
        }
    }

    #[test]
    fn each_rule_at_its_edge() {
        let corpus = figures();
        let same = rows(&corpus, &corpus);
        assert!(passed(&same));
        assert_eq!(score(&same), (0, 0.0));
        // 10% off is within, a unit more is not.
        let mut f = figures();
        f.sizes[1] = Some(330);
        assert!(passed(&rows(&corpus, &f)));
        f.sizes[1] = Some(331);
        let r = rows(&corpus, &f);
        assert_eq!(r[1].pass, Some(false));
        assert_eq!(score(&r).0, 1);
        // The small sizes too: p10 is checked.
        let mut f = figures();
        f.sizes[0] = Some(44);
        let r = rows(&corpus, &f);
        assert_eq!(r[0].figure, "size p10 (units)");
        assert!(passed(&r));
        f.sizes[0] = Some(45);
        assert_eq!(rows(&corpus, &f)[0].pass, Some(false));
        // Twice the giants is within, a little more is not; with fewer than 20 in the corpus, unchecked.
        let mut f = figures();
        f.giants = (50, 0.05);
        assert!(passed(&rows(&corpus, &f)));
        f.giants = (51, 0.051);
        assert!(!passed(&rows(&corpus, &f)));
        let mut few = figures();
        few.giants = (19, 0.019);
        let r = rows(&few, &f);
        assert_eq!(r[5].pass, None);
        assert!(passed(&r));
        // One percentage point.
        let mut f = figures();
        f.shares[4] = 0.067;
        assert!(passed(&rows(&corpus, &f)));
        f.shares[4] = 0.0671;
        assert!(!passed(&rows(&corpus, &f)));
        // A style only one side has is a share of 0 on the other.
        let mut f = figures();
        f.styles.insert("<returncode>N</returncode>".into(), 0.011);
        let r = rows(&corpus, &f);
        assert!(!passed(&r));
        assert!(r
            .iter()
            .any(|r| r.figure == "exit line `<returncode>N</returncode>`"
                && r.corpus == "0.00%"
                && r.pass == Some(false)));
        // The summary position, and the width's median.
        let mut f = figures();
        f.summary = Some(0.115);
        assert!(!passed(&rows(&corpus, &f)));
        let mut f = figures();
        f.width = Some(2);
        assert!(!passed(&rows(&corpus, &f)));
        // A corpus without summary lines does not check them.
        let mut c = figures();
        c.summary = None;
        assert!(passed(&rows(&c, &figures())));
        let table = markdown(&rows(&corpus, &f));
        assert!(
            table.contains("| batch width (median) | 1 | 2 | equal | **missed** |"),
            "{table}"
        );
    }
}
