//! The formats of a conformance report, each a pure function of the [`ConformReport`] (no I/O): the Markdown
//! summary printed on stdout, `conform.json`, JUnit XML, and the files of the report folder.

use std::fmt::Write as _;

use super::report::{CheckResult, ConformReport, Counterexample};
use super::shrink::CaseSize;
use crate::xml::escape;

/// The report as Markdown: a headline, the table (check, cases, passed, first counterexample, or why the check
/// was not run) and, for every failing check, its counterexample with the commands that replay it.
pub fn markdown(r: &ConformReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# budgetlab conform: `{}`\n", r.strategy);
    let failing = r.checks.iter().filter(|c| !c.holds()).count();
    let not_run = r.checks.iter().filter(|c| c.not_run.is_some()).count();
    let c = &r.cases;
    let _ = writeln!(
        out,
        "{} cases ({} edge cases, {} production vectors, {} generated from {} scenarios), seed {}{}: {}.\n",
        c.total,
        c.edge,
        c.vectors,
        c.generated,
        r.scenarios.len(),
        r.seed,
        if r.as_reference {
            ", held to the reference"
        } else {
            ""
        },
        match (failing, not_run) {
            (0, 0) => format!("all {} checks hold", r.checks.len()),
            (0, _) => format!(
                "all {} checks that ran hold, {not_run} not run",
                r.checks.len() - not_run
            ),
            (_, 0) => format!("{failing} of {} checks fail", r.checks.len()),
            _ => format!(
                "{failing} of {} checks that ran fail, {not_run} not run",
                r.checks.len() - not_run
            ),
        }
    );
    if r.cases_not_run > 0 {
        let _ = writeln!(
            out,
            "{} cases that inject failed writes not run: {}.\n",
            r.cases_not_run,
            crate::conform::NO_PERSIST_FAULTS
        );
    }
    out.push_str("| check | cases | passed | first counterexample |\n|---|---:|---:|---|\n");
    for check in &r.checks {
        let passed = if check.cases == 0 {
            "-".to_string()
        } else {
            check.passed.to_string()
        };
        let example = check.counterexample.as_ref().map_or_else(
            || {
                check
                    .not_run
                    .as_ref()
                    .map_or_else(|| "-".to_string(), |why| cell(&format!("not run: {why}")))
            },
            |x| {
                cell(&format!(
                    "`{}` shrunk to {}: {}",
                    x.case,
                    size(&x.shrunk),
                    x.message
                ))
            },
        );
        let _ = writeln!(
            out,
            "| `{}` | {} | {passed} | {example} |",
            check.check, check.cases
        );
    }
    let failures: Vec<(&CheckResult, &Counterexample)> = r
        .checks
        .iter()
        .filter_map(|c| c.counterexample.as_ref().map(|x| (c, x)))
        .collect();
    if !failures.is_empty() {
        out.push_str("\n## Counterexamples\n");
    }
    for (check, x) in failures {
        let _ = writeln!(out, "\n### `{}`\n", check.check);
        let _ = writeln!(out, "{}.\n", check.description);
        let _ = writeln!(
            out,
            "Case `{}` ({}): {}\n\nShrunk in {} evaluations to {}: {}\n",
            x.case,
            size(&x.original),
            x.original_message,
            x.evaluations,
            size(&x.shrunk),
            x.message
        );
        out.push_str("```sh\n");
        for command in &x.commands {
            let _ = writeln!(out, "{command}");
        }
        out.push_str("```\n");
    }
    out
}

/// `1 entry, 1 part, 2 units of text, budget 1`.
fn size(s: &CaseSize) -> String {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{}, {}, {} of text, budget {}",
        plural(s.entries as u64, "entry", "entries"),
        plural(s.parts as u64, "part", "parts"),
        plural(s.text_units, "unit", "units"),
        s.budget
    )
}

/// Text made safe for one Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// `conform.json`: the report, pretty-printed, with a final newline.
pub fn json(r: &ConformReport) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(r).expect("a conformance report serializes");
    bytes.push(b'\n');
    bytes
}

/// The report as JUnit XML: one test suite for the strategy, one test case per check; a failing check carries
/// its counterexample and replay commands, a check not run or that no case applied to is skipped. No timestamps or durations.
pub fn junit(r: &ConformReport) -> String {
    let failures = r.checks.iter().filter(|c| !c.holds()).count();
    let skipped = r
        .checks
        .iter()
        .filter(|c| c.cases == 0 || c.not_run.is_some())
        .count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"budgetlab conform\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">",
        r.checks.len()
    );
    let strategy = escape(&r.strategy);
    let _ = writeln!(
        out,
        "  <testsuite name=\"conform/{strategy}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">",
        r.checks.len()
    );
    for check in &r.checks {
        let _ = write!(
            out,
            "    <testcase classname=\"conform.{strategy}\" name=\"{}\"",
            check.check
        );
        match &check.counterexample {
            Some(x) => {
                let mut body = format!(
                    "{}: {}\ncase {} ({}) shrunk to {}",
                    check.description,
                    x.message,
                    x.case,
                    size(&x.original),
                    size(&x.shrunk)
                );
                for command in &x.commands {
                    body.push('\n');
                    body.push_str(command);
                }
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                    escape(&x.message),
                    check.check,
                    escape(&body)
                );
            }
            None if check.not_run.is_some() => {
                let why = check.not_run.as_deref().unwrap_or_default();
                let _ = writeln!(
                    out,
                    ">\n      <skipped message=\"not run: {}\"/>\n    </testcase>",
                    escape(why)
                );
            }
            None if check.cases == 0 => {
                out.push_str(">\n      <skipped message=\"no case applies\"/>\n    </testcase>\n");
            }
            None => out.push_str("/>\n"),
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Every file of the report folder: `conform.json`, `summary.md` and each counterexample's files.
pub fn folder_files(r: &ConformReport) -> Vec<(String, Vec<u8>)> {
    let mut files = vec![
        ("conform.json".to_string(), json(r)),
        ("summary.md".to_string(), markdown(r).into_bytes()),
    ];
    for check in &r.checks {
        if let Some(x) = &check.counterexample {
            files.extend(x.contents.iter().cloned());
        }
    }
    files
}
