//! The workload generator and scenario files, end to end: calibration against the published figures,
//! determinism across shardings and threads, a golden digest, needles, shapes, and the `generate` and
//! `scenarios` commands.

use std::collections::BTreeSet;
use std::path::Path;

use assert_cmd::Command;
use budgetlab::generate::result_size;
use budgetlab::{parse_batch, Field, GeneratedBatch, Generator, NeedleKind, Scenario, Seed};
use sha2::{Digest, Sha256};

fn shipped(name: &str) -> Scenario {
    Scenario::shipped(name).expect("shipped scenario")
}

fn batches(s: &Scenario, n: u64) -> Vec<GeneratedBatch> {
    let g = Generator::new(s);
    (0..n).map(|i| g.batch(i)).collect()
}

fn bin() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The published measurement: over 2,697 real tool results, p99 was 57,301 characters and 0.1% exceeded
/// 100,000. Over 100,000 generated results of the default workload, p99 must be within 5% of 57,301 and the
/// share above 100,000 between 0.05% and 0.2%, with most results small.
#[test]
fn mixed_realistic_reproduces_the_published_size_figures() {
    let s = shipped("mixed-realistic");
    let mut sizes = Generator::new(&s).result_sizes(100_000);
    assert_eq!(sizes.len(), 100_000);
    sizes.sort_unstable();
    let n = sizes.len();
    let p99 = sizes[(n * 99).div_ceil(100) - 1];
    let median = sizes[n / 2 - 1];
    let over = sizes.iter().filter(|&&x| x > 100_000).count();
    eprintln!("p50 {median}  p99 {p99}  over 100k {over} of {n}");
    assert!(
        (57_301.0 * 0.95..=57_301.0 * 1.05).contains(&(p99 as f64)),
        "p99 {p99} not within 5% of 57,301"
    );
    assert!(
        (50..=200).contains(&over),
        "{over} results above 100,000 (want 0.05%..0.2% of 100,000)"
    );
    assert!(
        median < 2_000,
        "median {median}: most results must be small"
    );
}

#[test]
fn result_sizes_count_text_output_and_error_only() {
    let g = batches(&shipped("mixed-realistic"), 200);
    for b in &g {
        for (e, size) in b.batch.iter().zip(b.result_sizes()) {
            let mut expect = 0;
            for p in &e.response_parts {
                for f in Field::ALL {
                    expect += p.field(f).map_or(0, |t| t.encode_utf16().count());
                }
            }
            assert_eq!(size, expect);
            assert_eq!(size, result_size(e));
        }
    }
}

#[test]
fn golden_digest_pins_generated_values() {
    // A change of rand/rand_chacha values, of the stream derivation or of any generator changes these digests.
    // Update them only for an intentional change of the generated workloads.
    let cases = [
        ("mixed-realistic", 0u64),
        ("surrogate-storm", 3),
        ("pre-persisted", 1),
        ("cjk-heavy", 2),
        ("swe-agent-recorded", 5),
    ];
    let digests: Vec<String> = cases
        .iter()
        .map(|(name, i)| {
            let b = Generator::new(&shipped(name)).batch(*i);
            sha256_hex(serde_json::to_string(&b.batch).unwrap().as_bytes())
        })
        .collect();
    assert_eq!(
        digests,
        [
            "9b0bb20f459f9da77e5b484ae4368af8accf8de23662bbe75149faf9573db16c",
            "03ed52bfb1b4a6d78b746fb2fa794c4d1b8ddf6f56ad2450ae169458fc00eb42",
            "cf2996c52ac6584bb40455e273de1a0e33efdd5e7ccb17f7e136cd5b6d6ec898",
            "06eddcc7148846ba0c9a9cc066027178f71de4d7296b0bfc3877ab7cdf5e906d",
            "33238b5b2a07be7d09ff645d6297477d2a77713a491c01c3c6f95e507d468fda",
        ]
    );
}

#[test]
fn a_batch_is_the_same_alone_in_sequence_and_across_threads() {
    let s = shipped("mixed-realistic");
    let g = Generator::new(&s);
    let seq: Vec<GeneratedBatch> = (0..24).map(|i| g.batch(i)).collect();
    let alone = Generator::new(&s).batch(17);
    assert_eq!(alone, seq[17]);
    let from_threads: Vec<GeneratedBatch> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2u64)
            .map(|t| {
                let g = &g;
                scope.spawn(move || {
                    (0..24)
                        .filter(|i| i % 2 == t)
                        .rev()
                        .map(|i| g.batch(i))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<GeneratedBatch> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        all.sort_by_key(|b| b.index);
        all
    });
    assert_eq!(from_threads, seq);
}

#[test]
fn seed_and_scenario_change_the_batches() {
    let s = shipped("mixed-realistic");
    let mut t = s.clone();
    t.seed = Seed(s.seed.0 + 1);
    assert_ne!(Generator::new(&s).batch(0), Generator::new(&t).batch(0));
    let mut u = s.clone();
    u.name = "renamed".into();
    assert_ne!(Generator::new(&s).batch(0), Generator::new(&u).batch(0));
}

#[test]
fn every_needle_is_at_its_place_in_every_shipped_scenario() {
    for s in Scenario::all_shipped() {
        let mut kinds = BTreeSet::new();
        for b in batches(&s, 40) {
            for n in &b.needles {
                assert!(
                    n.is_at_place_in(&b.batch),
                    "{}: batch {} {n:?}",
                    s.name,
                    b.index
                );
                kinds.insert(n.kind);
            }
            let mut sorted = b.needles.clone();
            sorted.sort_by_key(|n| (n.entry, n.part, n.field, n.offset));
            assert_eq!(sorted, b.needles, "{}: needles out of order", s.name);
        }
        let want: &[NeedleKind] = match s.name.as_str() {
            "mixed-realistic" => &[
                NeedleKind::ExitInfo,
                NeedleKind::FirstError,
                NeedleKind::SummaryLine,
                NeedleKind::JsonKey,
            ],
            "shell-heavy" => &[
                NeedleKind::ExitInfo,
                NeedleKind::FirstError,
                NeedleKind::SummaryLine,
            ],
            "mcp-heavy" => &[NeedleKind::JsonKey],
            _ => &[],
        };
        for k in want {
            assert!(
                kinds.contains(k),
                "{}: no {k:?} needle in {kinds:?}",
                s.name
            );
        }
    }
}

#[test]
fn shell_exit_information_is_the_last_line_of_raw_logs() {
    let mut seen = 0;
    for b in batches(&shipped("shell-heavy"), 30) {
        for (i, e) in b.batch.iter().enumerate() {
            let Some(out) = e.response_parts[0].field(Field::Output) else {
                continue;
            };
            if e.tool_name != "run_shell_command" || !out.starts_with("Command: ") {
                continue;
            }
            let last = out.lines().last().unwrap();
            assert!(last.starts_with("Exit Code: "), "{last}");
            let exit = b
                .needles
                .iter()
                .rfind(|n| n.entry == i && n.kind == NeedleKind::ExitInfo)
                .expect("exit needle");
            assert_eq!(exit.text, last);
            assert_eq!(exit.offset + last.len(), out.encode_utf16().count());
            seen += 1;
        }
    }
    assert!(seen > 50, "{seen}");
}

#[test]
fn json_keys_are_planted_near_the_start() {
    for b in batches(&shipped("mcp-heavy"), 30) {
        for n in b
            .needles
            .iter()
            .filter(|n| n.kind == NeedleKind::JsonKey)
            .take(1)
        {
            assert!(n.offset <= 4, "first key at {}", n.offset);
        }
    }
}

#[test]
fn batch_shapes_of_the_shipped_scenarios() {
    for s in Scenario::all_shipped() {
        for b in batches(&s, 30) {
            let n = b.batch.len() as u64;
            assert!(
                n >= s.batch_size.min && n <= s.batch_size.max && (1..=64).contains(&n),
                "{} {n}",
                s.name
            );
        }
    }
    // one giant among many small ones, in every batch
    for b in batches(&shipped("one-giant"), 20) {
        let sizes = b.result_sizes();
        let giants = sizes.iter().filter(|&&x| x >= 100_000).count();
        assert!(giants >= 1, "{sizes:?}");
        assert!(sizes.len() >= 8);
    }
    // many small: wide batches
    let wide = batches(&shipped("many-small"), 20);
    assert!(wide.iter().all(|b| b.batch.len() >= 16));
}

#[test]
fn cjk_heavy_writes_chinese_where_the_other_scenarios_write_none() {
    let han = |t: &str| {
        t.chars()
            .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
            .count()
    };
    let share = |name: &str, kinds: &[&str]| {
        let (mut h, mut units) = (0, 0);
        for b in batches(&shipped(name), 100) {
            for e in b
                .batch
                .iter()
                .filter(|e| kinds.contains(&e.tool_name.as_str()))
            {
                for p in &e.response_parts {
                    for f in Field::ALL {
                        if let Some(t) = p.field(f) {
                            h += han(t);
                            units += t.encode_utf16().count();
                        }
                    }
                }
            }
        }
        h as f64 / units.max(1) as f64
    };
    // Chinese in logs, file reads (comments, docs), search TODOs and MCP issues and snippets.
    for tools in [
        &["run_shell_command"][..],
        &["read_file"],
        &["search_file_content"],
        &["mcp__tracker__list_issues", "mcp__docs__search"],
    ] {
        let s = share("cjk-heavy", tools);
        assert!(s > 0.03, "{tools:?}: {s}");
    }
    // The other workloads have Han characters only in their few non-English strings (file reads of the
    // surrogate kind, a tenant, an issue title): under 0.1% of their units.
    for name in ["mixed-realistic", "shell-heavy"] {
        let s = share(
            name,
            &["run_shell_command", "read_file", "search_file_content"],
        );
        assert!(s < 0.001, "{name}: {s}");
    }
}

#[test]
fn mixed_workload_has_the_awkward_parts_of_a_real_turn() {
    let all = batches(&shipped("mixed-realistic"), 600);
    let entries = || all.iter().flat_map(|b| &b.batch);
    let has_media = entries().any(|e| e.response_parts.iter().any(|p| p.is_media()));
    let has_empty_output = entries().any(|e| e.response_parts[0].field(Field::Output) == Some(""));
    let has_empty_error = entries().any(|e| e.response_parts[0].field(Field::Error) == Some(""));
    let has_object_output = entries().any(|e| {
        e.response_parts[0].0["functionResponse"]["response"]
            .get("output")
            .is_some_and(|o| o.is_object())
    });
    let has_hook_text = entries().any(|e| {
        e.response_parts
            .iter()
            .any(|p| p.field(Field::Text).is_some())
    });
    let has_slash_id = entries().any(|e| e.call_id.contains('/'));
    let has_duplicate = all.iter().any(|b| {
        let ids: BTreeSet<&str> = b.batch.iter().map(|e| e.call_id.as_str()).collect();
        ids.len() < b.batch.len()
    });
    let has_plan = entries().any(|e| e.tool_name == "enter_plan_mode");
    // ANSI colour is as rare here as in real traffic (0.06%, tests/real_shape.rs); shell-heavy has it in half.
    let has_ansi = batches(&shipped("shell-heavy"), 20).iter().any(|b| {
        b.batch.iter().any(|e| {
            e.response_parts[0]
                .field(Field::Output)
                .is_some_and(|t| t.contains("\x1b["))
        })
    });
    assert!(
        has_media
            && has_empty_output
            && has_empty_error
            && has_object_output
            && has_hook_text
            && has_slash_id
            && has_duplicate
            && has_plan
            && has_ansi,
        "media {has_media} empty-out {has_empty_output} empty-err {has_empty_error} object {has_object_output} \
         hook {has_hook_text} slash {has_slash_id} dup {has_duplicate} plan {has_plan} ansi {has_ansi}"
    );
    // raw outputs: the default workload has no producer previews
    assert!(entries().all(|e| e.persisted_output_files.is_none()));
}

#[test]
fn producer_previews_name_their_files_or_record_a_failed_write() {
    let pre = batches(&shipped("pre-persisted"), 60);
    let mut with_path = 0;
    for e in pre.iter().flat_map(|b| &b.batch) {
        if let Some(paths) = &e.persisted_output_files {
            assert_eq!(paths.len(), 1);
            let out = e.response_parts[0].field(Field::Output).unwrap();
            assert!(
                out.contains(paths[0].as_str()),
                "preview must name {}",
                paths[0]
            );
            let units = out.encode_utf16().count();
            let limit = if e.tool_name == "run_shell_command" {
                4_200
            } else {
                2_300
            };
            assert!(units <= limit, "{} preview of {units} units", e.tool_name);
            if e.tool_name == "run_shell_command" {
                assert!(out.lines().last().unwrap().starts_with("Exit Code: "));
            }
            with_path += 1;
        } else if e.tool_name == "run_shell_command" {
            let units = e.response_parts[0]
                .field(Field::Output)
                .map_or(0, |t| t.encode_utf16().count());
            assert!(units <= 30_000, "unpreviewed shell output of {units} units");
        }
    }
    assert!(with_path > 30, "{with_path}");

    let failures = batches(&shipped("persist-failures"), 60);
    let failed: Vec<_> = failures
        .iter()
        .flat_map(|b| &b.batch)
        .filter(|e| e.persisted_output_files.as_deref() == Some(&[]))
        .collect();
    assert!(failed.len() > 10, "{}", failed.len());
    for e in failed {
        assert!(e.response_parts[0]
            .field(Field::Output)
            .unwrap()
            .contains("could not be saved"));
    }
}

#[test]
fn surrogate_storm_splits_pairs_at_random_cuts() {
    // At a random unit offset, how often would a cut fall between the two halves of a pair?
    let mut inside = 0;
    let mut total = 0;
    for b in batches(&shipped("surrogate-storm"), 10) {
        for e in &b.batch {
            let Some(t) = e.response_parts[0].field(Field::Output) else {
                continue;
            };
            let units: Vec<u16> = t.encode_utf16().collect();
            for k in (1..units.len()).step_by(97) {
                total += 1;
                if (0xDC00..0xE000).contains(&units[k]) {
                    inside += 1;
                }
            }
        }
    }
    assert!(
        inside * 100 / total.max(1) >= 10,
        "{inside} of {total} cuts inside a pair"
    );
}

// ---- the commands ----

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn generate_writes_one_finalizable_batch_per_line_and_needles_beside() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b.jsonl");
    let needles = dir.path().join("n.jsonl");
    bin()
        .args([
            "generate",
            "--scenario",
            "mixed-realistic",
            "--batches",
            "12",
            "--seed",
            "5",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--needles")
        .arg(&needles)
        .assert()
        .success()
        .stdout("");
    let batch_lines = lines(&std::fs::read(&out).unwrap());
    let needle_lines = lines(&std::fs::read(&needles).unwrap());
    assert_eq!((batch_lines.len(), needle_lines.len()), (12, 12));
    let mut s = shipped("mixed-realistic");
    s.seed = Seed(5);
    let g = Generator::new(&s);
    for (i, (b, n)) in batch_lines.iter().zip(&needle_lines).enumerate() {
        let parsed = parse_batch(b.as_bytes(), "line").unwrap();
        assert_eq!(parsed, g.batch(i as u64).batch);
        let v: serde_json::Value = serde_json::from_str(n).unwrap();
        assert_eq!(v["batch"], i as u64);
        assert_eq!(
            v["needles"].as_array().unwrap().len(),
            g.batch(i as u64).needles.len()
        );
    }
    // a generated batch goes straight into `finalize`
    bin()
        .args(["finalize", "--budget", "3000"])
        .write_stdin(batch_lines[0].clone())
        .assert()
        .success();
}

#[test]
fn shards_together_hold_exactly_the_unsharded_run() {
    let run = |extra: &[&str]| {
        let out = bin()
            .args(["generate", "--scenario", "plan-mode", "--batches", "10"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success());
        lines(&out.stdout)
    };
    let whole = run(&[]);
    assert_eq!(whole, run(&[]), "two runs differ");
    let shards: Vec<Vec<String>> = (0..3)
        .map(|i| run(&["--shard", &format!("{i}/3")]))
        .collect();
    assert_eq!(shards.iter().map(Vec::len).collect::<Vec<_>>(), [4, 3, 3]);
    for (i, line) in whole.iter().enumerate() {
        assert_eq!(line, &shards[i % 3][i / 3], "batch {i}");
    }
    let two: Vec<Vec<String>> = (0..2)
        .map(|i| run(&["--shard", &format!("{i}/2")]))
        .collect();
    for (i, line) in whole.iter().enumerate() {
        assert_eq!(line, &two[i % 2][i / 2], "batch {i}");
    }
}

#[test]
fn malformed_scenario_exits_2_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.toml");
    std::fs::write(
        &path,
        "name = \"b\"\ndescription = \"d\"\nseed = 1\nbatches = 2\n\n[sizes.shell]\nmedain = 40\n",
    )
    .unwrap();
    let out = dir.path().join("out.jsonl");
    let assert = bin()
        .args(["generate", "--scenario"])
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2);
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("broken.toml:7:"), "{stderr}");
    assert!(stderr.contains("sizes.shell.medain"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!out.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "nothing but the scenario is left"
    );
}

#[test]
fn bad_flags_and_unwritable_outputs_exit_2_and_leave_nothing() {
    bin()
        .args([
            "generate",
            "--scenario",
            "mixed-realistic",
            "--shard",
            "3/3",
        ])
        .assert()
        .code(2);
    bin()
        .args(["generate", "--scenario", "no-such-scenario"])
        .assert()
        .code(2);
    let dir = tempfile::tempdir().unwrap();
    let needles = dir.path().join("n.jsonl");
    bin()
        .args([
            "generate",
            "--scenario",
            "many-small",
            "--batches",
            "2",
            "--out",
        ])
        .arg(dir.path().join("missing-dir/out.jsonl"))
        .arg("--needles")
        .arg(&needles)
        .assert()
        .code(2);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn scenarios_lists_one_line_each() {
    let assert = bin().arg("scenarios").assert().success();
    let out = lines(&assert.get_output().stdout);
    let names: Vec<&str> = out
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "cjk-heavy",
            "context-focus",
            "large-window",
            "many-small",
            "mcp-heavy",
            "mixed-realistic",
            "one-giant",
            "persist-failures",
            "plan-mode",
            "pre-persisted",
            "shell-heavy",
            "small-window",
            "surrogate-storm",
            "swe-agent-recorded"
        ]
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let from_dir = bin()
        .arg("scenarios")
        .arg("--dir")
        .arg(&dir)
        .assert()
        .success();
    assert_eq!(from_dir.get_output().stdout, assert.get_output().stdout);
}

#[test]
fn every_shipped_scenario_is_documented() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/README.md"))
            .unwrap();
    for s in Scenario::all_shipped() {
        assert!(
            readme.contains(&format!("`{}`", s.name)),
            "{} is not in scenarios/README.md",
            s.name
        );
    }
}

#[test]
fn window_budgets_of_the_window_scenarios() {
    let units = |name: &str| {
        shipped(name)
            .budgets()
            .iter()
            .map(|b| b.units)
            .collect::<Vec<_>>()
    };
    assert_eq!(units("small-window"), [4_800]);
    assert_eq!(units("large-window"), [60_000, 100_000]);
}
