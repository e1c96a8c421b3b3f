//! Profiles of small hand-built batches, every figure computed by hand (sizes in UTF-16 units, nearest-rank
//! percentiles), and the profile of a generated scenario.

use serde_json::json;

use super::*;
use crate::model::{Entry, Part};

fn entry(tool: &str, output: &str) -> Entry {
    Entry::new(
        "c",
        tool,
        vec![Part::function_response(
            "c",
            tool,
            Some(json!(output)),
            None,
        )],
    )
}

/// 19 units: `Exit code: 0` (12) + `\n` + `hello` (5) + `\n`; 2 lines.
const A: &str = "Exit code: 0\nhello\n";
/// 36 units: 15 + 1, 9 + 2 (CRLF), 9; 3 lines.
const B: &str = "Found 2 matches\na.rs:1: x\r\nb.rs:2: y";
/// 8 units: the emoji is a surrogate pair (2), space, `café` (4), `\n`; 1 line.
const D: &str = "😀 café\n";
/// 18 units; the keys `"a"` at 1 and `"b"` at 9; 1 line.
const E: &str = "{\"a\": 1, \"b\": [2]}";

fn f() -> String {
    // 5 + 11 + 4 + 1 = 21 units of coloured error line, then one 12,000-unit line (too long to be a needle).
    format!("\x1b[31merror: boom\x1b[0m\n{}", "x".repeat(12_000))
}

fn batches() -> Vec<Batch> {
    vec![
        vec![entry("bash", A), entry("grep", B)],
        vec![entry("bash", "")],
        vec![entry("read", D)],
        vec![entry("mcp", E), entry("bash", A), entry("bash", &f())],
    ]
}

fn info() -> SourceInfo {
    SourceInfo {
        name: "hand".into(),
        kind: SourceKind::Recorded,
        digest: "d".into(),
        seed: None,
        batches: 4,
    }
}

fn share_of(count: u64, whole: u64) -> Share {
    Share {
        count,
        share: Some(count as f64 / whole as f64),
    }
}

#[test]
fn a_hand_built_corpus_gives_its_hand_computed_profile() {
    let p = profile_batches(info(), &batches());
    assert_eq!(p.outputs, 7);
    // Sizes sorted: 0, 8, 18, 19, 19, 36, 12021. Median: rank ceil(3.5) = 4; p90: ceil(6.3) = 7; p99: 7.
    assert_eq!(
        p.sizes.distribution,
        Distribution {
            count: 7,
            median: Some(19),
            p90: Some(12_021),
            p99: Some(12_021),
            max: Some(12_021)
        }
    );
    assert_eq!(p.sizes.total_units, 12_121);
    assert_eq!(p.sizes.mean, Some(12_121.0 / 7.0));
    assert_eq!(
        p.sizes.above,
        [
            Above {
                units: 10_000,
                outputs: share_of(1, 7)
            },
            Above {
                units: 30_000,
                outputs: share_of(0, 7)
            },
            Above {
                units: 100_000,
                outputs: share_of(0, 7)
            },
        ]
    );
    // p14: rank ceil(0.98) = 1; p15: ceil(1.05) = 2; p58: ceil(4.06) = 5; p85: ceil(5.95) = 6.
    let q = |percent: f64| {
        p.sizes
            .quantiles
            .iter()
            .find(|q| q.percent == percent)
            .unwrap()
            .units
    };
    assert_eq!(
        (
            q(1.0),
            q(14.0),
            q(15.0),
            q(58.0),
            q(85.0),
            q(86.0),
            q(100.0)
        ),
        (0, 0, 8, 19, 36, 12_021, 12_021)
    );
    assert_eq!(p.sizes.quantiles.len(), 103);
    // One output each.
    for s in [
        p.shape.astral,
        p.shape.non_ascii,
        p.shape.crlf,
        p.shape.ansi,
        p.shape.empty,
        p.shape.json,
    ] {
        assert_eq!(s, share_of(1, 7));
    }
    // Lines sorted: 0, 1, 1, 2, 2, 2, 3.
    assert_eq!(
        p.lines,
        Distribution {
            count: 7,
            median: Some(2),
            p90: Some(3),
            p99: Some(3),
            max: Some(3)
        }
    );
    // Widths 2, 1, 1, 3: sorted 1, 1, 2, 3; median rank 2, p90 rank ceil(3.6) = 4.
    assert_eq!(
        p.width.distribution,
        Distribution {
            count: 4,
            median: Some(1),
            p90: Some(3),
            p99: Some(3),
            max: Some(3)
        }
    );
    assert_eq!(p.width.above_one, share_of(2, 4));
    assert_eq!(p.repeats.repeated, share_of(1, 7));
    assert_eq!(p.repeats.texts, 1);
    assert_eq!(
        p.repeats.most,
        Some(MostRepeated {
            copies: 2,
            units: 19,
            tool: "bash".into()
        })
    );
    assert_eq!(p.exit_styles.none, share_of(5, 7));
    assert_eq!(
        p.exit_styles.styles,
        [StyleRow {
            style: "Exit code: N".into(),
            outputs: share_of(2, 7)
        }]
    );
}

#[test]
fn needles_by_kind_with_their_positions() {
    let p = profile_batches(info(), &batches());
    assert_eq!(p.needles.total, 6);
    assert_eq!(p.needles.planted, None);
    let kind = |k: NeedleKind| p.needles.kinds.iter().find(|r| r.kind == k).unwrap();
    // Both copies of A start with their exit line: position 0 of a room of 19 - 12 = 7.
    let exit = kind(NeedleKind::ExitInfo);
    assert_eq!((exit.count, exit.outputs), (2, share_of(2, 7)));
    assert_eq!(
        exit.positions,
        Positions {
            count: 2,
            median: Some(0.0),
            mean: Some(0.0),
            first_tenth: Some(1.0),
            last_tenth: Some(0.0)
        }
    );
    let error = kind(NeedleKind::FirstError);
    assert_eq!((error.count, error.positions.median), (1, Some(0.0)));
    let summary = kind(NeedleKind::SummaryLine);
    assert_eq!((summary.count, summary.outputs), (1, share_of(1, 7)));
    assert_eq!(p.shape.summary_position, summary.positions);
    // Keys at 1 and 9 of a room of 18 - 3 = 15: positions 1/15 and 9/15.
    let keys = kind(NeedleKind::JsonKey);
    assert_eq!((keys.count, keys.outputs), (2, share_of(1, 7)));
    assert_eq!(keys.positions.median, Some(1.0 / 15.0));
    assert_eq!(keys.positions.mean, Some((1.0 / 15.0 + 9.0 / 15.0) / 2.0));
    assert_eq!(keys.positions.first_tenth, Some(0.5));
    assert_eq!(
        p.needles.kinds.iter().map(|k| k.kind).collect::<Vec<_>>(),
        [
            NeedleKind::ExitInfo,
            NeedleKind::FirstError,
            NeedleKind::SummaryLine,
            NeedleKind::JsonKey
        ]
    );
}

#[test]
fn one_row_per_tool_the_most_frequent_first() {
    let p = profile_batches(info(), &batches());
    let rows: Vec<_> = p
        .tools
        .iter()
        .map(|t| {
            (
                t.tool.as_str(),
                t.sizes.count,
                t.sizes.median,
                t.sizes.p99,
                t.sizes.max,
            )
        })
        .collect();
    // bash: 0, 19, 19, 12021 (median rank 2).
    assert_eq!(
        rows,
        [
            ("bash", 4, Some(19), Some(12_021), Some(12_021)),
            ("grep", 1, Some(36), Some(36), Some(36)),
            ("mcp", 1, Some(18), Some(18), Some(18)),
            ("read", 1, Some(8), Some(8), Some(8)),
        ]
    );
    assert_eq!(p.tools[0].share, Some(4.0 / 7.0));
}

#[test]
fn nothing_to_measure_is_none_not_zero() {
    let p = profile_batches(info(), &[]);
    assert_eq!(p.outputs, 0);
    assert_eq!(p.sizes.distribution.median, None);
    assert_eq!(p.sizes.mean, None);
    assert!(p.sizes.quantiles.is_empty());
    assert_eq!(p.sizes.above[0].outputs.share, None);
    assert_eq!(p.shape.empty.share, None);
    assert_eq!(p.shape.summary_position.median, None);
    assert_eq!(p.width.above_one.share, None);
    assert_eq!(p.repeats.repeated.share, None);
    assert_eq!(p.repeats.most, None);
    assert!(p.tools.is_empty());
    // Batches without outputs: widths exist, output shares do not.
    let p = profile_batches(info(), &[vec![], vec![]]);
    assert_eq!(p.width.distribution.median, Some(0));
    assert_eq!(p.width.above_one, share_of(0, 2));
    assert_eq!(p.shape.json.share, None);
}

#[test]
fn a_profile_does_not_depend_on_the_thread_count() {
    let mut many = Vec::new();
    for i in 0..40 {
        many.extend(batches().into_iter().map(|mut b| {
            b.push(entry("x", &"y".repeat(i)));
            b
        }));
    }
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| profile_batches(info(), &many))
    };
    assert_eq!(on(1), on(3));
}

#[test]
fn a_generated_scenario_has_every_planted_needle_found() {
    let s = Scenario::shipped("shell-heavy").unwrap();
    let p = profile_scenario(&s, 20);
    assert_eq!(p.source.kind, SourceKind::Generated);
    assert_eq!(p.source.batches, 20);
    assert_eq!(p.width.distribution.count, 20);
    let check = p.needles.planted.unwrap();
    assert!(check.planted > 50, "{check:?}");
    assert_eq!(check.found, check.planted);
    assert_eq!(check.beyond, p.needles.total - check.found);
    // The same batches read as recorded ones give the same figures, without the planted check.
    let g = Generator::new(&s);
    let recorded: Vec<Batch> = (0..20).map(|i| g.batch(i).batch).collect();
    let r = profile_batches(info(), &recorded);
    assert_eq!(r.sizes, p.sizes);
    assert_eq!(r.shape, p.shape);
    assert_eq!(r.needles.kinds, p.needles.kinds);
    assert_eq!(r.needles.planted, None);
}
