//! Focused results (`[focus]`): long outputs whose relevant lines sit in the middle, where the turn's context
//! points at them, so that a strategy that reads the context can be measured against known truth.
//!
//! A focused result replaces an entry's output after the batch is generated (with its own stream,
//! `focus:<scenario>`, so a scenario without `[focus]` is untouched). Three shapes, each with its needles
//! ([`NeedleKind::Relevant`]) and what in the context points at them:
//!
//! - **window**: a file read whose tool printed the whole numbered file, though the call asked for lines
//!   `a` to `b` (`{"path", "view_range": [a, b]}`): the needles are those lines.
//! - **task**: a test log in which one test, the function the task names, fails: the needle is its `FAILED`
//!   line in the middle (the failure's report at the end is not one: a tail keeps it anyway).
//! - **hits**: a search for a broad pattern over the code base, where the assistant says which function it is
//!   looking for: the needles are the hits naming that function.
//!
//! Each output is 600 to 1,800 lines (about 30,000 to 110,000 UTF-16 units) with the relevant lines between
//! 35% and 65% of the way in, so one head and one tail of a few thousand units lose them.

use super::context::{identifier, path};
use super::vocab::{MODULES, NOUNS, VERBS};
use super::GeneratedBatch;
use crate::model::{Field, Part};
use crate::needles::{Needle, NeedleKind};
use crate::rng::{Seed, Stream};

/// What the focus put in a batch that the turn's context must say: each focused entry's call arguments, and
/// the assistant's sentences that point at the relevant lines.
#[derive(Debug, Default)]
pub(super) struct FocusPlan {
    /// The arguments of each focused entry's call, by entry.
    pub arguments: Vec<(usize, String)>,
    /// Sentences of the assistant's text about the focused calls.
    pub assistant: Vec<String>,
}

/// A focused output being written: its text and the needles planted in it.
struct Focused {
    text: String,
    needles: Vec<(usize, String)>,
}

impl Focused {
    fn new() -> Focused {
        Focused {
            text: String::new(),
            needles: Vec::new(),
        }
    }

    /// Appends a line (ASCII: offsets in bytes are offsets in UTF-16 units).
    fn line(&mut self, line: &str) {
        debug_assert!(line.is_ascii());
        self.text.push_str(line);
        self.text.push('\n');
    }

    /// Appends a line that is a needle.
    fn needle(&mut self, line: &str) {
        self.needles.push((self.text.len(), line.to_string()));
        self.line(line);
    }
}

/// The number of lines of a focused output and where its relevant part starts.
fn extent(rng: &mut Stream) -> (u64, u64) {
    let lines = rng.range(600, 1_800);
    let at = lines * rng.range(35, 65) / 100;
    (lines, at)
}

/// A line of made-up code.
fn code_line(rng: &mut Stream) -> String {
    let (verb, noun, other) = (rng.pick(VERBS), rng.pick(NOUNS), rng.pick(NOUNS));
    match rng.below(5) {
        0 => format!("    let {noun} = self.{verb}({other})?;"),
        1 => format!("    if {noun}.is_empty() {{ return Ok({other}); }}"),
        2 => format!("        {noun}.{verb}(&mut {other});"),
        3 => format!("    // {verb} the {noun} before the {other}"),
        _ => "    }".to_string(),
    }
}

/// A file read printing the whole numbered file; the call asked for a window of it.
fn window(rng: &mut Stream) -> (String, String, Focused, String) {
    let (lines, at) = extent(rng);
    let width = rng.range(12, 30);
    let file = path(rng);
    let mut out = Focused::new();
    for n in 1..=lines {
        let line = format!("{n:>6}\t{}", code_line(rng));
        if (at..at + width).contains(&n) {
            out.needle(&line);
        } else {
            out.line(&line);
        }
    }
    let end = at + width - 1;
    let arguments = serde_json::json!({"path": file, "view_range": [at, end]}).to_string();
    let said = format!("Let me read lines {at} to {end} of {file}.");
    ("read_file".into(), arguments, out, said)
}

/// A test log in which the test the task names fails.
fn task_log(rng: &mut Stream, ident: &str) -> (String, String, Focused, String) {
    let (lines, at) = extent(rng);
    let module = rng.pick(MODULES);
    let mut out = Focused::new();
    out.line(&format!("   Compiling {module} v0.4.2 (/work/{module})"));
    out.line("    Finished `test` profile [unoptimized + debuginfo] target(s) in 4.31s");
    out.line(&format!(
        "     Running unittests src/lib.rs (target/debug/deps/{module}-5f2a)"
    ));
    out.line(&format!("running {lines} tests"));
    for n in 0..lines {
        if n == at {
            out.needle(&format!("test {module}::tests::{ident} ... FAILED"));
            continue;
        }
        let name = format!("{}_{}", rng.pick(VERBS), rng.pick(NOUNS));
        out.line(&format!("test {module}::tests::{name}_{n} ... ok"));
    }
    out.line("");
    out.line("failures:");
    out.line("");
    out.line(&format!("---- {module}::tests::{ident} stdout ----"));
    out.line(&format!(
        "thread '{module}::tests::{ident}' panicked at src/{module}/mod.rs:{}:9:",
        rng.range(40, 900)
    ));
    out.line(&format!(
        "test result: FAILED. {} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out",
        lines - 1
    ));
    let arguments = serde_json::json!({ "command": format!("cargo test -p {module}") }).to_string();
    let said = "Running the tests to see the failure the issue describes.".to_string();
    ("run_shell_command".into(), arguments, out, said)
}

/// A search for a broad pattern, among whose hits are those of the function the assistant is looking for.
fn hits(rng: &mut Stream) -> (String, String, Focused, String) {
    let (lines, at) = extent(rng);
    let wanted = identifier(rng);
    let count = rng.range(2, 5);
    let mut out = Focused::new();
    for n in 0..lines {
        let file = format!("src/{}/{}.rs", rng.pick(MODULES), rng.pick(NOUNS));
        let line_no = rng.range(1, 2_000);
        if (at..at + count).contains(&n) {
            out.needle(&format!(
                "{file}:{line_no}:    pub fn {wanted}(&self) -> Result<()> {{"
            ));
        } else {
            let name = format!("{}_{}", rng.pick(VERBS), rng.pick(NOUNS));
            out.line(&format!(
                "{file}:{line_no}:    pub fn {name}(&self) -> Result<()> {{"
            ));
        }
    }
    let arguments = serde_json::json!({"pattern": "pub fn ", "path": "src"}).to_string();
    let said = format!("Searching for where `{wanted}` is defined.");
    ("grep".into(), arguments, out, said)
}

/// Replaces a `share` of the entries of `generated` (drawn from the stream `focus:<name>` of its index) with
/// focused outputs; `task_ident` is the identifier the batch's task names. Entries whose call id another entry
/// shares are left alone (the context has one call an id). Returns what the context must say of them.
pub(super) fn apply(
    seed: Seed,
    name: &str,
    share: f64,
    task_ident: &str,
    generated: &mut GeneratedBatch,
) -> FocusPlan {
    let mut plan = FocusPlan::default();
    if share <= 0.0 {
        return plan;
    }
    let mut rng = Stream::derive(seed, &format!("focus:{name}"), generated.index);
    for e in 0..generated.batch.len() {
        if !rng.chance(share) {
            continue;
        }
        let id = generated.batch[e].call_id.clone();
        if generated.batch.iter().filter(|o| o.call_id == id).count() > 1 {
            continue;
        }
        let (tool, arguments, out, said) = match rng.below(3) {
            0 => window(&mut rng),
            1 => task_log(&mut rng, task_ident),
            _ => hits(&mut rng),
        };
        let entry = &mut generated.batch[e];
        entry.tool_name.clone_from(&tool);
        entry.persisted_output_files = None;
        entry.response_parts = vec![Part::function_response(
            &id,
            &tool,
            Some(serde_json::Value::String(out.text)),
            None,
        )];
        generated.needles.retain(|n| n.entry != e);
        generated
            .needles
            .extend(out.needles.into_iter().map(|(offset, text)| Needle {
                kind: NeedleKind::Relevant,
                text,
                entry: e,
                part: 0,
                field: Field::Output,
                offset,
            }));
        plan.arguments.push((e, arguments));
        plan.assistant.push(said);
    }
    // Needles in entry, part, field and offset order, as the generator reports them.
    generated.needles.sort_by(|a, b| {
        (a.entry, a.part, a.field, a.offset).cmp(&(b.entry, b.part, b.field, b.offset))
    });
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Entry;

    #[test]
    fn focused_needles_sit_in_the_middle_at_their_place() {
        let batch: Vec<Entry> = (0..6)
            .map(|i| Entry::new(format!("c{i}"), "shell", vec![Part::text("x")]))
            .collect();
        let mut generated = GeneratedBatch {
            index: 3,
            batch,
            needles: Vec::new(),
            context: None,
            group: None,
        };
        let plan = apply(Seed(1), "f", 1.0, "apply_ledger_offset", &mut generated);
        assert_eq!(plan.arguments.len(), 6);
        assert_eq!(plan.assistant.len(), 6);
        assert!(!generated.needles.is_empty());
        for n in &generated.needles {
            assert_eq!(n.kind, NeedleKind::Relevant);
            assert!(n.is_at_place_in(&generated.batch), "{n:?}");
            let text = generated.batch[n.entry].response_parts[0]
                .field(Field::Output)
                .unwrap();
            let share = n.offset as f64 / text.len() as f64;
            assert!((0.3..0.7).contains(&share), "{share}");
            assert!(text.len() > 25_000, "{}", text.len());
        }
        // The task's identifier is what the task-log shape's needles name.
        let tool_of = |e: usize| generated.batch[e].tool_name.as_str();
        for (e, args) in &plan.arguments {
            match tool_of(*e) {
                "run_shell_command" => assert!(generated
                    .needles
                    .iter()
                    .filter(|n| n.entry == *e)
                    .all(|n| n.text.contains("apply_ledger_offset"))),
                "read_file" => assert!(args.contains("view_range"), "{args}"),
                other => assert_eq!(other, "grep"),
            }
        }
        let mut again = GeneratedBatch {
            index: 3,
            batch: (0..6)
                .map(|i| Entry::new(format!("c{i}"), "shell", vec![Part::text("x")]))
                .collect(),
            needles: Vec::new(),
            context: None,
            group: None,
        };
        apply(Seed(1), "f", 1.0, "apply_ledger_offset", &mut again);
        assert_eq!(again, generated);
    }

    /// The shipped `context-focus` scenario plants relevant needles, and each batch's context points at them:
    /// a window's needles are the lines its call asked for, a task log's name the function the task names.
    #[test]
    fn context_focus_batches_carry_needles_their_context_points_at() {
        let scenario = crate::Scenario::shipped("context-focus").unwrap();
        let generator = super::super::Generator::new(&scenario);
        let mut windows = 0;
        let mut tasks = 0;
        for index in 0..40 {
            let g = generator.batch(index);
            let context = g.context.as_deref().unwrap();
            context.validate("generated").unwrap();
            let task = context.task.as_deref().unwrap();
            for n in g.needles.iter().filter(|n| n.kind == NeedleKind::Relevant) {
                assert!(n.is_at_place_in(&g.batch), "{n:?}");
                let entry = &g.batch[n.entry];
                let call = context.call(&entry.call_id).unwrap();
                assert_eq!(call.name, entry.tool_name);
                match entry.tool_name.as_str() {
                    "read_file" => {
                        let args: serde_json::Value =
                            serde_json::from_str(&call.arguments).unwrap();
                        let (a, b) = (
                            args["view_range"][0].as_u64().unwrap(),
                            args["view_range"][1].as_u64().unwrap(),
                        );
                        let line: u64 = n.text.split('\t').next().unwrap().trim().parse().unwrap();
                        assert!((a..=b).contains(&line), "{line} not in {a}..={b}");
                        windows += 1;
                    }
                    "run_shell_command" => {
                        let ident = n.text.split("tests::").nth(1).unwrap();
                        let ident = ident.split([' ', '\'']).next().unwrap();
                        assert!(task.contains(ident), "{task} does not name {ident}");
                        tasks += 1;
                    }
                    _ => {
                        let name = n
                            .text
                            .split("pub fn ")
                            .nth(1)
                            .unwrap()
                            .split('(')
                            .next()
                            .unwrap();
                        assert!(context.assistant.as_deref().unwrap().contains(name));
                    }
                }
            }
        }
        assert!(windows > 0 && tasks > 0, "{windows} {tasks}");
    }
}
