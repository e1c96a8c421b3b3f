//! The `[texture]` of a scenario on generated batches: each share met on a corpus at a fixed seed, the needles at
//! their places whatever the texture did, each exit style framed its way (the named ones and `exit_lines`), repeats
//! that are really earlier results, windowed file views, and the short forms of `short_units`.

use std::collections::BTreeMap;

use budgetlab::{Field, GeneratedBatch, Generator, NeedleKind, Scenario};

/// A result's text: its text parts, string output and string error, in part order.
fn text_of(entry: &budgetlab::Entry) -> String {
    let mut t = String::new();
    for p in &entry.response_parts {
        for f in Field::ALL {
            if let Some(s) = p.field(f) {
                t.push_str(s);
            }
        }
    }
    t
}

fn batches(s: &Scenario, n: u64) -> Vec<GeneratedBatch> {
    let g = Generator::new(s);
    (0..n).map(|i| g.batch(i)).collect()
}

/// The mixed workload without its empty, cancelled and object results (they would be empty by another way),
/// with `texture` (TOML lines) added.
fn textured(name: &str, texture: &str) -> Scenario {
    let src = format!(
        "name = \"{name}\"\ndescription = \"d\"\nseed = 17\nbatches = 10\n\
         [kinds]\nshell = 27\nmcp = 9\nsurrogate = 1.5\nfile_read = 22\nsearch = 10\nlisting = 6\n\
         short_success = 14\nerror_trace = 4\nmedia = 2\n\
         [shape]\nobject_output_rate = 0.0\n[texture]\n{texture}"
    );
    Scenario::parse(&src, "textured.toml").unwrap()
}

/// Shares of results with each feature: (astral, non-ASCII, CRLF, ANSI, empty), and the number of results.
fn shares(all: &[GeneratedBatch]) -> ([f64; 5], usize) {
    let mut counts = [0usize; 5];
    let mut n = 0;
    for e in all.iter().flat_map(|b| &b.batch) {
        let t = text_of(e);
        n += 1;
        let has = [
            t.chars().any(|c| c.len_utf16() == 2),
            !t.is_ascii(),
            t.contains("\r\n"),
            t.contains('\x1b'),
            t.is_empty(),
        ];
        for (c, h) in counts.iter_mut().zip(has) {
            *c += usize::from(h);
        }
    }
    (counts.map(|c| c as f64 / n as f64), n)
}

#[test]
fn every_share_is_met_on_a_generated_corpus() {
    let s = textured(
        "shares",
        "astral_share = 0.1\nnon_ascii_share = 0.3\ncrlf_share = 0.25\nansi_share = 0.15\nempty_share = 0.2\n",
    );
    let all = batches(&s, 1_500);
    let (got, n) = shares(&all);
    assert!(n > 5_000, "{n} results");
    // Each feature is drawn for the results that were not emptied: 80% of them.
    let want = [0.1 * 0.8, 0.3 * 0.8, 0.25 * 0.8, 0.15 * 0.8, 0.2];
    // Three standard deviations of a share over n results, at most 0.5/sqrt(n): 0.021 at 5,000.
    let tolerance = 1.5 / (n as f64).sqrt();
    for (name, (g, w)) in ["astral", "non-ASCII", "CRLF", "ANSI", "empty"]
        .iter()
        .zip(got.iter().zip(want))
    {
        assert!(
            (g - w).abs() <= tolerance,
            "{name}: {g:.4} vs {w:.4} (n {n})"
        );
    }
    // Without the texture the same workload is far from these shares: the texture did it.
    let plain = textured("shares", "");
    let (before, _) = shares(&batches(&plain, 1_500));
    assert!(before[2] == 0.0 && before[4] < 0.01, "{before:?}");
}

#[test]
fn a_texture_keeps_every_needle_at_its_place() {
    let s = textured(
        "needles",
        "astral_share = 0.5\nnon_ascii_share = 0.6\ncrlf_share = 0.5\nansi_share = 0.5\n\
         summary_start_share = 0.5\nrepeat_share = 0.2\n\
         exit_styles = { header = 1, returncode = 1, finished = 1, exit_code = 1, none = 1 }\n",
    );
    let mut kinds = BTreeMap::new();
    for b in batches(&s, 300) {
        for n in &b.needles {
            assert!(n.is_at_place_in(&b.batch), "batch {} {n:?}", b.index);
            *kinds.entry(n.kind).or_insert(0) += 1;
        }
        let mut sorted = b.needles.clone();
        sorted.sort_by_key(|n| (n.entry, n.part, n.field, n.offset));
        assert_eq!(sorted, b.needles, "needles out of order");
    }
    assert_eq!(kinds.len(), 4, "{kinds:?}");
}

#[test]
fn shell_outputs_take_each_exit_style_in_its_share() {
    let s = textured(
        "styles",
        "exit_styles = { header = 1, returncode = 2, finished = 1, exit_code = 1, none = 1 }\n",
    );
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut shells = 0;
    for b in batches(&s, 1_000) {
        for (i, e) in b.batch.iter().enumerate() {
            if e.tool_name != "run_shell_command" {
                continue;
            }
            let Some(out) = e.response_parts[0].field(Field::Output) else {
                continue;
            };
            shells += 1;
            let exit: Vec<&str> = b
                .needles
                .iter()
                .filter(|n| n.entry == i && n.kind == NeedleKind::ExitInfo)
                .map(|n| n.text.as_str())
                .collect();
            let last = out.rsplit('\n').next().unwrap();
            let style = if out.starts_with("<returncode>") {
                let first = out.split('\n').next().unwrap();
                assert_eq!(exit, [first]);
                assert!(out.ends_with("</output>") && out.contains("\n<output>\n"));
                "returncode"
            } else if last.starts_with("[Command finished with exit code ") {
                assert_eq!(exit, [last]);
                "finished"
            } else if last.starts_with("Exit code: ") {
                assert_eq!(exit, [last]);
                "exit_code"
            } else if last.starts_with("Exit Code: ") {
                assert!(out.starts_with("Command: "));
                assert_eq!(exit, [last]);
                "header"
            } else {
                assert!(exit.is_empty(), "{exit:?}");
                assert!(
                    !out.starts_with("Command: "),
                    "{}",
                    &out[..out.len().min(300)]
                );
                "none"
            };
            *seen.entry(style).or_default() += 1;
        }
    }
    let share = |style: &str| seen.get(style).copied().unwrap_or(0) as f64 / shells as f64;
    let tolerance = 1.5 / (shells as f64).sqrt();
    for (style, want) in [
        ("header", 1.0 / 6.0),
        ("returncode", 2.0 / 6.0),
        ("finished", 1.0 / 6.0),
        ("exit_code", 1.0 / 6.0),
        ("none", 1.0 / 6.0),
    ] {
        assert!(
            (share(style) - want).abs() <= tolerance,
            "{style}: {:.3} vs {want:.3} of {shells}",
            share(style)
        );
    }
}

#[test]
fn summaries_come_first_at_their_share() {
    let s = textured("summaries", "summary_start_share = 1.0\n");
    let (mut first, mut total) = (0, 0);
    for b in batches(&s, 400) {
        for (i, e) in b.batch.iter().enumerate() {
            let Some(out) = e.response_parts[0].field(Field::Output) else {
                continue;
            };
            let Some(last) = b
                .needles
                .iter()
                .rfind(|n| n.entry == i && n.kind == NeedleKind::SummaryLine)
            else {
                continue;
            };
            total += 1;
            // The start of the command's own output: after a `Command:` header through its `Output:` line.
            let body = out
                .find("\nOutput:\n")
                .filter(|_| out.starts_with("Command: "))
                .map_or(0, |i| i + "\nOutput:\n".len());
            if out[body..].starts_with(&last.text) {
                first += 1;
            }
            if e.tool_name == "search_file_content" {
                assert!(out.starts_with("Found "), "{out}");
            }
        }
    }
    assert!(total > 200, "{total}");
    // A summary that is not a whole line of its own (one inside a progress line) stays where it is.
    assert!(first * 100 >= total * 95, "{first} of {total} first");
}

#[test]
fn a_repeat_is_an_earlier_result_word_for_word() {
    let one_call = "[batch_size]\nmedian = 1.0\nsigma = 0.0\nmin = 1\nmax = 1\n";
    let src = |repeat: f64| {
        format!(
            "name = \"rereads\"\ndescription = \"d\"\nseed = 5\nbatches = 10\n{one_call}\
             [texture]\nrepeat_share = {repeat}\ncrlf_share = 0.1\n"
        )
    };
    let with = Scenario::parse(&src(0.25), "t").unwrap();
    let without = Scenario::parse(&src(0.0), "t").unwrap();
    let (a, b) = (batches(&with, 1_200), batches(&without, 1_200));
    let mut repeats = 0;
    for i in 0..a.len() {
        let (x, y) = (&a[i].batch[0], &b[i].batch[0]);
        assert_eq!(x.call_id, y.call_id, "a repeat keeps its own call id");
        if x == y {
            continue;
        }
        repeats += 1;
        // The text of a result from one of the 8 batches before, with its tool and needles.
        let text = text_of(x);
        let earlier = (i.saturating_sub(8)..i)
            .find(|&j| text_of(&a[j].batch[0]) == text && a[j].batch[0].tool_name == x.tool_name)
            .unwrap_or_else(|| panic!("batch {i}: not an earlier result"));
        let strip = |b: &GeneratedBatch| -> Vec<(NeedleKind, String, usize)> {
            b.needles
                .iter()
                .map(|n| (n.kind, n.text.clone(), n.offset))
                .collect()
        };
        assert_eq!(strip(&a[i]), strip(&a[earlier]));
        let id = &x.response_parts[0].0["functionResponse"]["id"];
        assert_eq!(id, x.call_id.as_str());
    }
    let share = repeats as f64 / a.len() as f64;
    // Batch 0 has nothing before it to repeat; a repeat of an identical result does not show.
    assert!(
        (share - 0.25).abs() <= 0.04,
        "{repeats} repeats of {}",
        a.len()
    );
}

#[test]
fn file_views_end_with_their_marker_and_tool_names_follow_the_scenario() {
    let s = textured(
        "views",
        "file_view_share = 1.0\ntool_names = { file_read = \"open\", shell = \"bash\" }\n",
    );
    let mut views = 0;
    for b in batches(&s, 200) {
        for e in &b.batch {
            // Other kinds keep their names: an error trace of a file read is still `read_file`'s, a surrogate-dense
            // `cat` is still `run_shell_command`'s.
            if let Some(out) = e.response_parts[0].field(Field::Output) {
                match e.tool_name.as_str() {
                    "read_file" => assert!(!out.starts_with("[File: "), "{out}"),
                    "run_shell_command" => {
                        assert!(
                            out.starts_with("Command: cat data/customers_jp.tsv"),
                            "{out}"
                        )
                    }
                    _ => {}
                }
            }
            let name = e.response_parts[0].0["functionResponse"]["name"].as_str();
            assert_eq!(name, Some(e.tool_name.as_str()));
            if e.tool_name == "open" {
                let out = e.response_parts[0].field(Field::Output).unwrap();
                assert!(out.starts_with("[File: /repo/src/"), "{out}");
                let last = out.rsplit('\n').next().unwrap();
                assert!(
                    last.starts_with('(') && last.ends_with(" more lines below)"),
                    "{last}"
                );
                views += 1;
            }
        }
    }
    assert!(views > 50, "{views}");
}

#[test]
fn exit_lines_end_shell_outputs_with_their_own_line() {
    let s = textured(
        "lines",
        "exit_lines = { \"Exit code N\" = 1, \"[The command completed with exit code N.]\" = 1 }\n",
    );
    let (mut plain, mut bracketed, mut shells) = (0usize, 0usize, 0usize);
    for b in batches(&s, 600) {
        for (i, e) in b.batch.iter().enumerate() {
            if e.tool_name != "run_shell_command" {
                continue;
            }
            let Some(out) = e.response_parts[0].field(Field::Output) else {
                continue;
            };
            shells += 1;
            let last = out.rsplit('\n').next().unwrap();
            let exit: Vec<&str> = b
                .needles
                .iter()
                .filter(|n| n.entry == i && n.kind == NeedleKind::ExitInfo)
                .map(|n| n.text.as_str())
                .collect();
            // The line of the scenario, its status where the N was, planted where it is; no header left.
            assert_eq!(exit, [last], "{out}");
            assert!(!out.starts_with("Command: "), "{out}");
            let status = |rest: &str| !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_digit());
            if let Some(rest) = last.strip_prefix("Exit code ") {
                assert!(status(rest), "{last}");
                plain += 1;
            } else {
                let rest = last
                    .strip_prefix("[The command completed with exit code ")
                    .and_then(|r| r.strip_suffix(".]"))
                    .unwrap_or_else(|| panic!("{last}"));
                assert!(status(rest), "{last}");
                bracketed += 1;
            }
        }
    }
    assert!(shells > 300, "{shells}");
    let tolerance = 1.5 / (shells as f64).sqrt();
    assert!(
        (plain as f64 / shells as f64 - 0.5).abs() <= tolerance,
        "{plain} of {shells}"
    );
    assert_eq!(plain + bracketed, shells);
    // The profile tells the two styles apart, as it does in recorded text.
    let p = budgetlab::profile::profile_scenario(&s, 600);
    let styles: Vec<(&str, u64)> = p
        .exit_styles
        .styles
        .iter()
        .map(|r| (r.style.as_str(), r.outputs.count))
        .collect();
    assert!(
        styles.contains(&("Exit code N", plain as u64)),
        "{styles:?}"
    );
    assert!(
        styles.contains(&("[The command completed with exit code N]", bracketed as u64)),
        "{styles:?}"
    );
}

/// A scenario of tiny results of every kind with a short form, `short_units` set.
fn tiny(short_units: u64) -> Scenario {
    let kinds = [
        ("shell", 4),
        ("file_read", 2),
        ("search", 1),
        ("listing", 1),
        ("short_success", 1),
        ("error_trace", 1),
        ("edit", 1),
        ("mcp", 1),
    ];
    let mut src =
        String::from("name = \"tiny\"\ndescription = \"d\"\nseed = 17\nbatches = 300\n[kinds]\n");
    for (kind, w) in kinds {
        src.push_str(&format!("{kind} = {w}\n"));
    }
    for (kind, _) in kinds {
        src.push_str(&format!("[sizes.{kind}]\nmedian = 60.0\nsigma = 0.6\n"));
    }
    src.push_str(
        "[shape]\nobject_output_rate = 0.0\nhook_text_rate = 0.0\nduplicate_rate = 0.0\n\
         [texture]\n",
    );
    src.push_str(&format!("short_units = {short_units}\n"));
    Scenario::parse(&src, "tiny.toml").unwrap()
}

#[test]
fn short_units_write_tiny_results_that_differ_at_their_size() {
    // Results drawn at a median of 60 units (p90 about 130): the kinds' long forms, cut down, are often the same
    // text, sometimes empty, and their framing makes them far larger; the short forms are neither.
    let long = budgetlab::profile::profile_scenario(&tiny(0), 300);
    let short = budgetlab::profile::profile_scenario(&tiny(400), 300);
    let repeated = |p: &budgetlab::profile::Profile| p.repeats.repeated.share.unwrap();
    let empty = |p: &budgetlab::profile::Profile| p.shape.empty.share.unwrap();
    assert!(repeated(&long) > 0.2, "{}", repeated(&long));
    assert!(empty(&long) > 0.02, "{}", empty(&long));
    assert!(long.sizes.distribution.p90.unwrap() > 300);
    assert!(short.outputs > 1_000, "{}", short.outputs);
    assert!(repeated(&short) < 0.005, "{}", repeated(&short));
    assert_eq!(short.shape.empty.count, 0);
    let p90 = short.sizes.distribution.p90.unwrap();
    assert!((100..=160).contains(&p90), "{p90}");
    // Their needles are planted as the kinds plant theirs, and found where they were planted.
    let planted = short.needles.planted.unwrap();
    assert!(planted.planted > 500, "{planted:?}");
    assert_eq!(planted.found, planted.planted);
}
