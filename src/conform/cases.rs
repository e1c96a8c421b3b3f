//! The cases `budgetlab conform` runs a finalizer on: hand-made edge cases, the production sample vectors, and
//! batches generated from every shipped scenario at budgets drawn around their size.
//!
//! A [`Case`] is a batch with everything `budgetlab finalize` is told beside it (budget, context window,
//! lifecycle reminders, artifact directory, writes that fail), so every case, shrunk or not, can be replayed with
//! one `finalize` command. [`CaseSet`] numbers them: the edge cases first, then the vectors, then the generated
//! ones, each generated case a pure function of (seed, its number), made only when it is run.

use serde_json::{json, Map, Value};

use super::vectors;
use crate::budget::{Budget, BudgetContext, PlanReminders, PLAN_MODE_TOOL};
use crate::finalize::{budgeted_total, SlotScope};
use crate::generate::Generator;
use crate::model::{Batch, Entry, Part};
use crate::persist::{FaultyStore, MemoryStore, PersistenceIds};
use crate::rng::{Seed, Stream};
use crate::scenario::Scenario;

/// The artifact directory of the cases that name none: `budgetlab finalize`'s default, so that replay commands
/// need no `--artifact-dir`.
pub const DEFAULT_ARTIFACT_DIR: &str = "tool-results";

/// Most generated cases one run may ask for (`--cases`).
pub const MAX_GENERATED: u64 = 100_000;

/// One batch and everything a finalizer is told with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Where the case comes from: `edge:<group>@<budget>`, `vector:<name>` or `<scenario>/<batch>@<budget>`.
    pub name: String,
    /// The batch.
    pub batch: Batch,
    /// The budget.
    pub budget: Budget,
    /// The model's context window in tokens, for the policies that scale with it.
    pub context_window_tokens: Option<u64>,
    /// The lifecycle reminders kept outside the budget.
    pub reminders: PlanReminders,
    /// The directory artifact paths are under.
    pub artifact_dir: String,
    /// Persistence ids whose writes fail.
    pub fail_ids: Vec<String>,
    /// For a production vector, what `budgetlab finalize` must print for it.
    pub expected: Option<Value>,
}

impl Case {
    /// A case at `budget` with the built-in reminders, the default artifact directory and no failing write.
    pub fn new(name: impl Into<String>, batch: Batch, budget: Budget) -> Case {
        Case {
            name: name.into(),
            batch,
            budget,
            context_window_tokens: None,
            reminders: PlanReminders::default(),
            artifact_dir: DEFAULT_ARTIFACT_DIR.into(),
            fail_ids: Vec::new(),
            expected: None,
        }
    }

    /// The context a finalizer gets with the batch.
    pub fn ctx(&self) -> BudgetContext {
        BudgetContext {
            budget: self.budget,
            context_window_tokens: self.context_window_tokens,
            reminders: self.reminders.clone(),
            ..BudgetContext::new(self.budget)
        }
    }

    /// The backend `budgetlab finalize` builds for this case (in memory, failing the case's ids), or one where
    /// every write fails.
    pub fn store(&self, fail_all: bool) -> FaultyStore<MemoryStore> {
        let store = FaultyStore::new(
            MemoryStore::new(self.artifact_dir.clone()),
            self.fail_ids.iter().cloned(),
        );
        if fail_all {
            store.with_rate(1.0, 0)
        } else {
            store
        }
    }

    /// UTF-16 units of every text, output and error string of the batch.
    pub fn text_units(&self) -> u64 {
        self.batch
            .iter()
            .map(|e| crate::generate::result_size(e) as u64)
            .sum()
    }
}

/// How many cases of each origin a set holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CaseCounts {
    /// Hand-made edge cases.
    pub edge: u64,
    /// Production sample vectors.
    pub vectors: u64,
    /// Generated from the shipped scenarios.
    pub generated: u64,
    /// All of them.
    pub total: u64,
}

/// The numbered cases of one run.
#[derive(Debug, Clone)]
pub struct CaseSet {
    seed: Seed,
    edge: Vec<Case>,
    vectors: Vec<Case>,
    generators: Vec<Generator>,
    generated: u64,
}

impl CaseSet {
    /// The edge cases, the vectors and `generated` cases drawn from every shipped scenario under `seed` (which
    /// replaces each scenario's own seed).
    pub fn new(seed: Seed, generated: u64) -> CaseSet {
        let generators = Scenario::all_shipped()
            .into_iter()
            .map(|mut s| {
                s.seed = seed;
                Generator::new(&s)
            })
            .collect();
        CaseSet {
            seed,
            edge: edge_cases(),
            vectors: vectors::cases(),
            generators,
            generated,
        }
    }

    /// How many cases of each origin.
    pub fn counts(&self) -> CaseCounts {
        let (edge, vectors) = (self.edge.len() as u64, self.vectors.len() as u64);
        CaseCounts {
            edge,
            vectors,
            generated: self.generated,
            total: edge + vectors + self.generated,
        }
    }

    /// The number of cases.
    pub fn len(&self) -> u64 {
        self.counts().total
    }

    /// Whether the set is empty (it never is: the edge cases are always there).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The scenarios the generated cases come from, as (name, digest with the run's seed).
    pub fn scenarios(&self) -> Vec<(String, String)> {
        self.generators
            .iter()
            .map(|g| (g.scenario().name.clone(), g.scenario().digest()))
            .collect()
    }

    /// Case `k` (`k < len()`): edge cases, then vectors, then generated cases.
    pub fn case(&self, k: u64) -> Case {
        let edge = self.edge.len() as u64;
        let vectors = self.vectors.len() as u64;
        if k < edge {
            return self.edge[k as usize].clone();
        }
        if k < edge + vectors {
            return self.vectors[(k - edge) as usize].clone();
        }
        self.generated_case(k - edge - vectors)
    }

    /// Generated case `g`: batch `g / S` of scenario `g % S` (S shipped scenarios, in name order), at a budget
    /// drawn from the stream `(seed, "conform-budget", g)`: one of the scenario's own budgets (two times in
    /// five), a share of 1% to 100% of the batch's budgeted total (two in five), or a small budget of 1 to 400
    /// units (one in five). Writes fail for an entry's call id at the scenario's finalizer fault rate, and for
    /// the first entry one time in twenty.
    fn generated_case(&self, g: u64) -> Case {
        let n = self.generators.len() as u64;
        let generator = &self.generators[(g % n) as usize];
        let scenario = generator.scenario();
        let index = g / n;
        let batch = generator.batch(index).batch;
        let mut rng = Stream::derive(self.seed, "conform-budget", g);
        let budgets = scenario.budgets();
        let total = budgeted_total(&batch, &PlanReminders::default(), SlotScope::ALL);
        let draw = rng.below(5);
        let (units, window) = if draw < 2 || (draw < 4 && total == 0) {
            let b = &budgets[rng.index(budgets.len())];
            (b.units, b.window_tokens)
        } else if draw < 4 {
            let share = rng.range(1, 100);
            ((total * share / 100).max(1), budgets[0].window_tokens)
        } else {
            (rng.range(1, 400), budgets[0].window_tokens)
        };
        let mut fail_ids = Vec::new();
        let mut ids = PersistenceIds::new(batch.iter().map(|e| e.call_id.as_str()));
        for (i, entry) in batch.iter().enumerate() {
            let rate = scenario.persistence.finalizer_fault_rate + if i == 0 { 0.05 } else { 0.0 };
            let fails = rng.chance(rate);
            if let Some(id) = ids.assign(&entry.call_id) {
                if fails {
                    fail_ids.push(id);
                }
            }
        }
        let units = i64::try_from(units).unwrap_or(i64::MAX);
        let mut case = Case::new(
            format!("{}/{index}@{units}", scenario.name),
            batch,
            Budget::Units(units),
        );
        case.context_window_tokens = window;
        case.fail_ids = fail_ids;
        case
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_numbers_edge_cases_vectors_then_generated_ones() {
        let set = CaseSet::new(Seed(3), 30);
        let counts = set.counts();
        assert_eq!(counts.vectors, 20);
        assert_eq!(counts.generated, 30);
        assert_eq!(counts.total, counts.edge + 50);
        assert_eq!(set.case(0).name, "edge:empty-batch@1");
        assert_eq!(set.case(counts.edge).name, "vector:within-budget-unchanged");
        // Generated cases take the shipped scenarios in turn, in name order: batch 0 of each, then batch 1.
        let n = set.scenarios().len();
        assert_eq!(n, crate::Scenario::all_shipped().len());
        let first = set.case(counts.edge + 20);
        assert!(first.name.starts_with("cjk-heavy/0@"), "{}", first.name);
        let second_round = set.case(counts.edge + 20 + n as u64);
        assert!(
            second_round.name.starts_with("cjk-heavy/1@"),
            "{}",
            second_round.name
        );
    }

    #[test]
    fn generated_cases_are_a_function_of_seed_and_number() {
        let a = CaseSet::new(Seed(7), 40);
        let b = CaseSet::new(Seed(7), 40);
        let edge = a.counts().edge + 20;
        for k in [edge, edge + 5, edge + 39] {
            assert_eq!(a.case(k), b.case(k));
        }
        let c = CaseSet::new(Seed(8), 40);
        assert_ne!(a.case(edge + 5), c.case(edge + 5));
        // Every budget drawn is finite and positive.
        for k in edge..edge + 40 {
            assert!(a.case(k).budget.limit().is_some());
        }
    }

    #[test]
    fn edge_cases_cover_what_the_contract_names() {
        let cases = edge_cases();
        let has = |prefix: &str| cases.iter().any(|c| c.name.starts_with(prefix));
        for group in [
            "edge:empty-batch@1",
            "edge:empty-fields",
            "edge:disabled-budget@0",
            "edge:disabled-budget@-1",
            "edge:disabled-budget@inf",
            "edge:emoji-cut@241",
            "edge:plan-hook",
            "edge:pre-persisted",
            "edge:duplicate-ids",
            "edge:path-like-ids",
            "edge:persist-fails-all",
            "edge:media",
        ] {
            assert!(has(group), "{group}");
        }
        let names: std::collections::BTreeSet<&str> =
            cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names.len(), cases.len(), "case names are unique");
    }
}
