//! Every example in budgetlab's help runs. The examples are read from the help the binary prints (the lines
//! after `Examples:` in `budgetlab --help` and in every command's `--help`, nested commands included), and each
//! command's lines are run in order, in a scratch folder of their own that holds what the examples name (the
//! example batch, a home with recorded sessions, a baseline made the way `run --quick` is made here), at a small
//! size: the rewrites in [`small`] shrink batches, steps, cases and settings and nothing else.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// What `budgetlab WORDS --help` prints.
fn help(words: &[&str]) -> String {
    let out = budgetlab().args(words).arg("--help").output().unwrap();
    assert!(out.status.success(), "{words:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The lines of a help's section (`Commands:`, `Examples:`), until a blank line.
fn section<'a>(help: &'a str, title: &str) -> Vec<&'a str> {
    help.lines()
        .skip_while(|l| l.trim_end() != title)
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect()
}

/// The commands a help lists (`help` aside).
fn commands(help: &str) -> Vec<String> {
    section(help, "Commands:")
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// The example command lines of a help: each `budgetlab ...` line of its `Examples:`, without its comment.
fn examples(help: &str) -> Vec<String> {
    section(help, "Examples:")
        .iter()
        .map(|l| l.split(" # ").next().unwrap().trim().to_string())
        .collect()
}

/// Every command path (`["history", "add"]`) and its help, depth first, in the order the helps list them.
fn every_command(path: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    let words: Vec<&str> = path.iter().map(String::as_str).collect();
    let text = help(&words);
    for sub in commands(&text) {
        let mut p = path.clone();
        p.push(sub);
        every_command(p, out);
    }
    out.push((path, text));
}

/// An example line at a small size, as the binary's arguments; `> FILE` becomes the file stdout goes to.
fn small(line: &str, home: &Path) -> (Vec<String>, Option<String>) {
    let mut words: Vec<String> = line
        .split_whitespace()
        .map(|w| match w.strip_prefix("~/") {
            Some(rest) => home.join(rest).display().to_string(),
            None => w.to_string(),
        })
        .collect();
    assert_eq!(words.remove(0), "budgetlab", "{line}");
    let mut stdout = None;
    if let Some(i) = words.iter().position(|w| w == ">") {
        stdout = Some(words[i + 1].clone());
        words.truncate(i);
    }
    let command = words[0].clone();
    let set = |words: &mut Vec<String>, flag: &str, value: &str| match words
        .iter()
        .position(|w| w == flag)
    {
        Some(i) => words[i + 1] = value.to_string(),
        None => words.extend([flag.to_string(), value.to_string()]),
    };
    if let Some(i) = words.iter().position(|w| w == "--quick") {
        words.remove(i);
    }
    match command.as_str() {
        // 2 batches a scenario: the baseline of the scratch folder is made the same way.
        "run" if !words.contains(&"--batches-file".to_string()) => {
            set(&mut words, "--batches", "2")
        }
        "sweep" | "simulate" => {
            set(&mut words, "--batches", "2");
            if words.contains(&"--steps".to_string()) {
                set(&mut words, "--steps", "3");
            }
        }
        "generate" => set(&mut words, "--batches", "6"),
        "profile" => set(&mut words, "--batches", "4"),
        "conform" => set(&mut words, "--cases", "20"),
        "tune" => {
            set(&mut words, "--batches", "6");
            set(&mut words, "--settings", "20");
        }
        // Cost is timing: at 2 batches on a busy machine it is noise, and this test checks that the example
        // runs, not the machine's load.
        "check" => words.extend(["--tolerance".to_string(), "cost=off".to_string()]),
        _ => {}
    }
    (words, stdout)
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A scratch folder holding what the examples name.
fn scratch(root: &Path, name: &str, baseline: &Path) -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join(name);
    fs::create_dir_all(dir.join("examples")).unwrap();
    fs::copy(
        repo.join("examples/turn.json"),
        dir.join("examples/turn.json"),
    )
    .unwrap();
    copy_tree(
        &repo.join("tests/fixtures/import/claude-code/projects"),
        &dir.join("home/.claude/projects"),
    );
    write_session_with_used_tokens(&dir.join("home/.claude/projects/-home-dev-shop"));
    copy_tree(baseline, &dir.join("reports/baseline"));
    dir
}

/// A Claude Code session, beside the shared fixture, in which the agent uses what a result showed (the search
/// hit's path, opened next): `tune --objective used` refuses sessions without used tokens, and the import
/// fixture's agent never reuses a result's token.
fn write_session_with_used_tokens(project: &Path) {
    let session = "5d0e9b1a-3c2f-4e8d-9b7a-1f6c2d4e8a90";
    let line = |uuid: &str,
                parent: Option<&str>,
                kind: &str,
                minute: u32,
                message: serde_json::Value| {
        serde_json::json!({
            "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/home/dev/shop",
            "sessionId": session, "version": "2.1.3", "type": kind, "uuid": uuid,
            "timestamp": format!("2025-11-04T10:{minute:02}:00.000Z"), "message": message,
        })
        .to_string()
    };
    let call = |id: &str, name: &str, input: serde_json::Value| serde_json::json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]});
    let result = |id: &str, text: &str| serde_json::json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": text}]});
    let lines = [
        line("v-1", None, "user", 0, serde_json::json!({"role": "user", "content": "Find where the discount is applied."})),
        line("v-2", Some("v-1"), "assistant", 1, call("toolu_V1", "Grep", serde_json::json!({"pattern": "applyDiscount", "path": "src"}))),
        line("v-3", Some("v-2"), "user", 2, result("toolu_V1", "src/pricing/discountRules.js:42:  return applyDiscount(cart, rule);\nsrc/checkout/summary.js:7:import { applyDiscount } from '../pricing/discountRules.js';")),
        line("v-4", Some("v-3"), "assistant", 3, call("toolu_V2", "Read", serde_json::json!({"file_path": "/home/dev/shop/src/pricing/discountRules.js"}))),
        line("v-5", Some("v-4"), "user", 4, result("toolu_V2", "     1\u{2192}export function applyDiscount(cart, rule) {\n     2\u{2192}  return cart.total * (1 - rule.rate);\n     3\u{2192}}\n")),
    ];
    fs::write(
        project.join(format!("{session}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
}

#[test]
fn the_top_level_help_ends_with_three_examples() {
    let text = help(&[]);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let tail = &lines[lines.len() - 4..];
    assert_eq!(tail[0], "Examples:", "{text}");
    for line in &tail[1..] {
        assert!(line.starts_with("  budgetlab "), "{line:?} in\n{text}");
    }
}

#[test]
fn every_example_of_every_command_runs() {
    let root = tempfile::tempdir().unwrap();
    // The baseline `check` and `compare` read: a run the size the examples' `run --quick` becomes here.
    let base = root.path().join("base");
    fs::create_dir_all(&base).unwrap();
    budgetlab()
        .current_dir(&base)
        .args(["run", "--batches", "2", "--out", "baseline"])
        .assert()
        .success();
    let mut all = Vec::new();
    every_command(Vec::new(), &mut all);
    assert!(all.len() >= 26, "{} commands", all.len());
    let mut ran = 0;
    for (path, text) in &all {
        let lines = examples(text);
        assert!(
            !lines.is_empty(),
            "`budgetlab {} --help` has no example",
            path.join(" ")
        );
        let name = if path.is_empty() {
            "top".to_string()
        } else {
            path.join("-")
        };
        let dir = scratch(root.path(), &name, &base.join("baseline"));
        for line in &lines {
            assert!(line.starts_with("budgetlab "), "{line}");
            let (args, stdout) = small(line, &dir.join("home"));
            let out = budgetlab()
                .current_dir(&dir)
                .env("HOME", dir.join("home"))
                .args(&args)
                .output()
                .unwrap();
            let code = out.status.code();
            let stderr = String::from_utf8_lossy(&out.stderr);
            // calibrate's exit 1 is its verdict (the fit missed a figure on a small corpus), with the scenario
            // written all the same; everything else succeeds.
            let ok = code == Some(0) || (args[0] == "calibrate" && code == Some(1));
            assert!(ok, "`{line}` (run as {args:?}) exited {code:?}:\n{stderr}");
            assert!(!stderr.contains("panicked"), "{line}: {stderr}");
            if let Some(file) = stdout {
                assert!(!out.stdout.is_empty(), "{line}: nothing on stdout");
                fs::write(dir.join(file), &out.stdout).unwrap();
            }
            ran += 1;
        }
    }
    assert!(ran >= 40, "{ran} example lines");
}
