//! The hand-made edge cases of `budgetlab conform`: empty batches and outputs, budgets of 0 and below, an emoji
//! at every cut position, plan-mode reminders, pre-persisted entries, duplicate and path-like call ids, writes
//! that fail. Each is a batch at a few budgets chosen around its size.

use serde_json::{json, Map, Value};

use super::case::Case;
use super::vectors;
use crate::budget::{Budget, PlanReminders, PLAN_MODE_TOOL};
use crate::model::{Batch, Entry, Part};

/// An entry whose one function response (named like the tool) carries `output`.
fn output_entry(id: &str, tool: &str, output: impl Into<String>) -> Entry {
    Entry::new(
        id,
        tool,
        vec![Part::function_response(
            id,
            tool,
            Some(json!(output.into())),
            None,
        )],
    )
}

/// An entry whose one function response carries `output` and `error`.
fn output_error_entry(
    id: &str,
    tool: &str,
    output: impl Into<String>,
    error: impl Into<String>,
) -> Entry {
    Entry::new(
        id,
        tool,
        vec![Part::function_response(
            id,
            tool,
            Some(json!(output.into())),
            Some(json!(error.into())),
        )],
    )
}

/// `n` numbered log lines of about 40 ASCII units each.
fn log_lines(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{tag} {i:05}: step finished, 3 warnings\n"))
        .collect()
}

fn part(value: Value) -> Part {
    match value {
        Value::Object(map) => Part(map),
        _ => Part(Map::new()),
    }
}

/// Adds one case per budget to `out`, named `edge:<group>@<budget>`.
fn at_budgets(
    out: &mut Vec<Case>,
    group: &str,
    batch: &Batch,
    budgets: &[Budget],
    tweak: &dyn Fn(&mut Case),
) {
    for &budget in budgets {
        let mut case = Case::new(format!("edge:{group}@{budget}"), batch.clone(), budget);
        tweak(&mut case);
        out.push(case);
    }
}

fn units(budgets: &[i64]) -> Vec<Budget> {
    budgets.iter().map(|&b| Budget::Units(b)).collect()
}

/// The hand-made edge cases, in a fixed order.
pub fn edge_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let none = &|_: &mut Case| {};

    // An empty batch, at finite and disabled budgets.
    let mut budgets = units(&[1, 100, 0]);
    budgets.push(Budget::Unlimited);
    at_budgets(&mut out, "empty-batch", &Vec::new(), &budgets, none);

    // An entry without parts beside one over the budget.
    let batch = vec![
        Entry::new("bare", "shell", Vec::new()),
        output_entry("c1", "shell", "x".repeat(600)),
    ];
    at_budgets(&mut out, "no-parts", &batch, &units(&[1, 10, 300]), none);

    // Empty output, error and text strings beside a large output.
    let batch = vec![
        output_entry("empty-out", "shell", ""),
        output_error_entry("empty-both", "shell", "", ""),
        Entry::new("empty-text", "hook", vec![Part::text("")]),
        output_entry("big", "shell", log_lines("build", 80)),
    ];
    at_budgets(
        &mut out,
        "empty-fields",
        &batch,
        &units(&[1, 20, 200, 3_000]),
        none,
    );

    // Disabled budgets over outputs past every per-result threshold (150,000 units, 3,750 lines).
    let batch = vec![
        output_entry("sh", "run_shell_command", log_lines("test", 3_750)),
        output_entry("mcp", "mcp_search", "{\"k\": \"v\"}, ".repeat(5_000)),
        Entry::new("hook", "hook", vec![Part::text("h".repeat(5_000))]),
    ];
    let mut budgets = units(&[0, -1, -1_000_000, i64::MIN]);
    budgets.push(Budget::Unlimited);
    at_budgets(&mut out, "disabled-budget", &batch, &budgets, none);

    // Emoji at every cut position: one field of 120 emoji (after an ASCII unit or not) at every budget up to its
    // length, so that the head and the tail of the preview start and end on both halves of a pair.
    for (label, prefix) in [("emoji-cut", ""), ("emoji-cut-odd", "a")] {
        let batch = vec![output_entry(
            "e1",
            "shell",
            format!("{prefix}{}", "😀".repeat(120)),
        )];
        let budgets: Vec<i64> = (1..=242).collect();
        at_budgets(&mut out, label, &batch, &units(&budgets), none);
    }
    // A call id with an emoji: the artifact path in the header is cut at every position.
    let batch = vec![output_entry("😀", "shell", "x".repeat(400))];
    at_budgets(
        &mut out,
        "emoji-path",
        &batch,
        &units(&(1..=200).collect::<Vec<_>>()),
        none,
    );
    // Output, error and a text part sharing the budget, each full of pairs.
    let batch = vec![Entry::new(
        "e2",
        "shell",
        vec![
            Part::text(format!("{}c", "𝔘".repeat(50))),
            Part::function_response(
                "e2",
                "shell",
                Some(json!("😀".repeat(100))),
                Some(json!(format!("b{}", "👩‍👩‍👧".repeat(30)))),
            ),
        ],
    )];
    let budgets: Vec<i64> = (1..=600).step_by(3).collect();
    at_budgets(&mut out, "emoji-fields", &batch, &units(&budgets), none);

    plan_mode_cases(&mut out);

    // Entries that come with a persistence decision: one path, two paths, none, and none made yet.
    let mut batch = vec![
        output_entry("pre1", "shell", log_lines("pre", 200)),
        output_error_entry("pre2", "mcp_tool", log_lines("two", 200), "e".repeat(500)),
        output_entry("decided", "shell", log_lines("dec", 200)),
        output_entry("fresh", "shell", log_lines("new", 200)),
    ];
    batch[0].persisted_output_files = Some(vec!["/pre/a.txt".into()]);
    batch[1].persisted_output_files = Some(vec!["/pre/a.txt".into(), "/pre/b.txt".into()]);
    batch[2].persisted_output_files = Some(Vec::new());
    at_budgets(
        &mut out,
        "pre-persisted",
        &batch,
        &units(&[1, 100, 500, 3_000, 20_000]),
        none,
    );

    // Duplicate call ids, and ids that collide with the suffixes duplicates get.
    let batch: Batch = ["c", "c", "c", "c-1", "c-2", "d"]
        .iter()
        .enumerate()
        .map(|(i, id)| output_entry(id, "shell", log_lines(&format!("dup{i}"), 50)))
        .collect();
    at_budgets(
        &mut out,
        "duplicate-ids",
        &batch,
        &units(&[100, 1_000, 5_000]),
        none,
    );

    // Call ids that look like paths, are empty or invalid as file names, or are long.
    let long = "i".repeat(300);
    let ids = [
        "dir/c1",
        "c1",
        "..",
        ".",
        "",
        "a\0b",
        "x/",
        "../../etc/passwd",
        "/abs/p",
        "😀",
        &long,
        "with space",
        "quote'\"",
    ];
    let batch: Batch = ids
        .iter()
        .enumerate()
        .map(|(i, id)| output_entry(id, "shell", log_lines(&format!("id{i}"), 40)))
        .collect();
    at_budgets(
        &mut out,
        "path-like-ids",
        &batch,
        &units(&[200, 2_000, 10_000]),
        none,
    );

    // Failing writes: one id, every id, and a failure beside a pre-persisted entry.
    let mut batch = vec![
        output_entry("c1", "shell", log_lines("f1", 120)),
        output_entry("c2", "shell", log_lines("f2", 120)),
        output_entry("dir/c3", "shell", log_lines("f3", 120)),
        output_entry("pre", "shell", log_lines("f4", 120)),
    ];
    batch[3].persisted_output_files = Some(vec!["/pre/pre.txt".into()]);
    for (label, fail) in [
        ("persist-fails-one", vec!["c1"]),
        ("persist-fails-all", vec!["c1", "c2", "c3"]),
    ] {
        let fail: Vec<String> = fail.into_iter().map(String::from).collect();
        at_budgets(
            &mut out,
            label,
            &batch,
            &units(&[100, 1_000, 10_000]),
            &|c| c.fail_ids = fail.clone(),
        );
    }

    // Media, non-string outputs and unknown keys beside text over the budget.
    let mut media = Entry::new(
        "m1",
        "screenshot",
        vec![
            part(
                json!({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgoAAAANSUhEUg=="}}),
            ),
            Part::function_response(
                "m1",
                "screenshot",
                Some(json!(log_lines("media", 150))),
                None,
            ),
            part(
                json!({"fileData": {"mimeType": "application/pdf", "fileUri": "gs://bucket/report.pdf"}}),
            ),
        ],
    );
    media.extra.insert("status".into(), json!("success"));
    media.extra.insert("ordinal".into(), json!(3));
    let batch = vec![
        media,
        Entry::new(
            "obj",
            "mcp_query",
            vec![Part::function_response(
                "obj",
                "mcp_query",
                Some(json!({"rows": [1, 2, 3], "note": "x".repeat(2_000)})),
                Some(json!("q".repeat(3_000))),
            )],
        ),
        Entry::new(
            "thought",
            "hook",
            vec![part(json!({"text": "t".repeat(4_000), "thought": true}))],
        ),
    ];
    at_budgets(&mut out, "media", &batch, &units(&[50, 500, 5_000]), none);

    // One response larger than the whole budget, and several sharing what is left.
    let batch = vec![
        output_entry("giant", "run_shell_command", log_lines("giant", 7_500)),
        output_entry("small", "read_file", "fn main() {}\n"),
    ];
    at_budgets(&mut out, "giant", &batch, &units(&[1_000, 50_000]), none);
    let batch: Batch = (0..3)
        .map(|i| {
            output_entry(
                &format!("big{i}"),
                "shell",
                log_lines(&format!("big{i}"), 1_250),
            )
        })
        .collect();
    at_budgets(
        &mut out,
        "three-large",
        &batch,
        &units(&[1_000, 100_000]),
        none,
    );

    // Hook context in top-level text parts.
    let batch = vec![
        Entry::new(
            "h1",
            "shell",
            vec![
                Part::function_response("h1", "shell", Some(json!(log_lines("hk", 100))), None),
                Part::text(format!("PostToolBatch hook: {}", "context ".repeat(500))),
            ],
        ),
        Entry::new("h2", "hook", vec![Part::text("h".repeat(4_000))]),
    ];
    at_budgets(&mut out, "hook-text", &batch, &units(&[500, 5_000]), none);
    out
}

/// Plan-mode cases: the reminder alone, with hook context after a blank line, with a failure, named by the
/// function response or by the tool, not protected (no blank line, another function name), with the vectors'
/// reminders, and nested.
fn plan_mode_cases(out: &mut Vec<Case>) {
    let none = &|_: &mut Case| {};
    let builtin = PlanReminders::default();
    let (r1, r2) = (builtin.texts()[0].clone(), builtin.texts()[1].clone());
    let plan = |output: String| output_entry("plan", PLAN_MODE_TOOL, output);

    at_budgets(
        out,
        "plan-alone",
        &vec![plan(r1.clone())],
        &units(&[1, 10, 100]),
        none,
    );

    let batch = vec![
        plan(format!("{r1}\n\n{}", log_lines("hook", 75))),
        output_entry("sh", "shell", log_lines("sh", 125)),
    ];
    at_budgets(
        out,
        "plan-hook",
        &batch,
        &units(&[1, 100, 1_000, 4_000, 9_000]),
        none,
    );

    let batch = vec![output_error_entry(
        "plan",
        PLAN_MODE_TOOL,
        r2.clone(),
        format!("plan mode could not start: {}", "denied ".repeat(300)),
    )];
    at_budgets(out, "plan-failed", &batch, &units(&[1, 50, 500]), none);

    let mut by_name = Entry::new(
        "named",
        "shell",
        vec![Part::function_response(
            "named",
            PLAN_MODE_TOOL,
            Some(json!(format!("{r1}\n\n{}", "n".repeat(500)))),
            None,
        )],
    );
    by_name.extra.insert(
        "note".into(),
        json!("the function response names enter_plan_mode"),
    );
    let other = Entry::new(
        "other",
        PLAN_MODE_TOOL,
        vec![Part::function_response(
            "other",
            "other_tool",
            Some(json!(r1.clone())),
            None,
        )],
    );
    let unprotected = plan(format!("{r1}\nno blank line {}", "u".repeat(400)));
    at_budgets(
        out,
        "plan-names",
        &vec![by_name, other, unprotected],
        &units(&[10, 300]),
        none,
    );

    let theirs = vectors::vector_reminders();
    let batch = vec![
        plan(format!(
            "{}\n\n{}",
            theirs.texts()[0],
            log_lines("theirs", 50)
        )),
        output_entry("sh", "shell", log_lines("sh", 50)),
    ];
    let reminders = theirs.clone();
    at_budgets(
        out,
        "plan-vector-reminders",
        &batch,
        &units(&[1, 100, 1_000]),
        &|c| c.reminders = reminders.clone(),
    );

    let batch = vec![plan(format!("{r1}\n\n{r1}\n\n{}", "x".repeat(2_000)))];
    at_budgets(out, "plan-nested", &batch, &units(&[100]), none);
}
