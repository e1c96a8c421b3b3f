//! The gate's texts at their edges, each found by mutation testing (`.ci/mutants`) as a change no other test
//! noticed: the characters JUnit XML cannot hold, the Markdown verdict's table at exactly its length limit, a
//! tolerance of zero, and the metric and tolerance names as reports print them.

use budgetlab::gate::markdown::{render, MAX_TABLED_FAILURES};
use budgetlab::gate::{CheckCase, CheckKind, Metric, Tolerance, Tolerances, Verdict};
use budgetlab::xml::escape;

#[test]
fn junit_drops_the_two_noncharacters_xml_forbids_and_keeps_every_other_character() {
    assert_eq!(escape("a\u{FFFE}b"), "ab");
    assert_eq!(escape("a\u{FFFF}b"), "ab");
    assert_eq!(escape("\u{FFFE}\u{FFFF}"), "");
    // Their neighbours, the replacement character, other planes and the space are kept as they are.
    let kept = "\u{FFFD}\u{FFFC}\u{10000}\u{1F600}é \u{7F}";
    assert_eq!(escape(kept), kept);
    // Of the C0 controls only tab, line feed and carriage return stay.
    let controls: String = (0u8..0x20).map(char::from).collect();
    assert_eq!(escape(&controls), "\t\n\r");
}

fn verdict_with_failures(n: usize) -> Verdict {
    Verdict {
        baseline: "base".into(),
        current: "cur".into(),
        tolerances: Tolerances::default(),
        matched_rows: n,
        baseline_only: 0,
        current_only: 0,
        cases: (0..n)
            .map(|i| CheckCase {
                scenario: format!("s{i}"),
                budget_label: Some("abs-1000".parse().unwrap()),
                strategy: Some("greedy".into()),
                kind: CheckKind::Integrity,
                failure: Some("bad".into()),
            })
            .collect(),
    }
}

#[test]
fn the_verdict_tables_up_to_its_limit_and_says_so_only_past_it() {
    let at_limit = render(&verdict_with_failures(MAX_TABLED_FAILURES));
    assert_eq!(at_limit.matches("| integrity | bad |").count(), 100);
    assert!(!at_limit.contains("The first"), "{at_limit}");
    assert!(at_limit.ends_with("| s99 | abs-1000 | greedy | integrity | bad |\n"));

    let past = render(&verdict_with_failures(MAX_TABLED_FAILURES + 1));
    assert_eq!(past.matches("| integrity | bad |").count(), 100);
    assert!(!past.contains("| s100 |"), "{past}");
    assert!(past.ends_with(
        "\nThe first 100 of 101 failed checks; the JUnit report (`--junit`) lists them all.\n"
    ));
}

#[test]
fn a_tolerance_of_zero_is_accepted_and_allows_no_change() {
    let t = Tolerances::from_specs(&["retention=0,writes=abs:0,needles=rel:0,cost=0%"]).unwrap();
    assert_eq!(t.get(Metric::Retention), Tolerance::Absolute(0.0));
    assert_eq!(t.get(Metric::WRITES), Tolerance::Absolute(0.0));
    assert_eq!(t.get(Metric::Needles), Tolerance::Relative(0.0));
    assert_eq!(t.get(Metric::Cost), Tolerance::Relative(0.0));
    for tolerance in [Tolerance::Absolute(0.0), Tolerance::Relative(0.0)] {
        assert!(tolerance.allows(0.25, 0.25));
        assert!(!tolerance.allows(0.25, 0.2501));
        assert!(!tolerance.allows(0.25, 0.2499));
    }
    // The smallest negative number is still refused.
    let err = Tolerances::from_specs(&["retention=-0.0001"])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("a tolerance is a finite number of at least 0"),
        "{err}"
    );
}

#[test]
fn metrics_and_tolerances_print_as_the_reports_name_them() {
    let names: Vec<String> = Metric::all().iter().map(ToString::to_string).collect();
    assert_eq!(
        names,
        [
            "compliance",
            "retention",
            "needles",
            "writes",
            "cost",
            "time"
        ]
    );
    // Absolute tolerances are percentage points for shares only; a count's is in its own unit.
    assert_eq!(Tolerance::Absolute(3.0).describe(Metric::WRITES), "±3");
    assert_eq!(
        Tolerance::Absolute(0.01).describe(Metric::Retention),
        "±0.01 (1 pp)"
    );
    assert_eq!(Tolerance::Relative(0.1).describe(Metric::Retention), "±10%");
    assert_eq!(
        Tolerance::Relative(0.1).allowance(Metric::Retention),
        "±10%"
    );
    assert_eq!(Tolerance::Off.describe(Metric::Cost), "off");
    assert_eq!(Tolerance::Off.allowance(Metric::Cost), "off");
}
