//! The turn context and group of a generated batch: the task the made-up agent was given, each call's name and
//! arguments, one line of the assistant's text, and the scenario block the batch belongs to.
//!
//! Everything here draws from streams of its own (`context-task:<scenario>` per task block, `context:<scenario>`
//! per batch), never from the batch's stream, so adding the context left every entry of every scenario as it
//! was. A session is a block of [`SESSION_BATCHES`] consecutive batches and a task a block of [`TASK_SESSIONS`]
//! sessions: the groups a split that must not leak keeps on one side.

use super::vocab::{MODULES, NOUNS, PROJECTS, VERBS};
use crate::batch_line::BatchGroup;
use crate::context::{CallContext, TurnContext};
use crate::model::Batch;
use crate::rng::{Seed, Stream};
use crate::workload::{kind_of_tool, Kind};

/// Consecutive batches of a generated session.
pub const SESSION_BATCHES: u64 = 16;
/// Consecutive sessions of a generated task.
pub const TASK_SESSIONS: u64 = 4;

/// The group of batch `index` of scenario `name`: its session block and its task block.
pub(super) fn group(name: &str, index: u64) -> BatchGroup {
    let session = index / SESSION_BATCHES;
    BatchGroup {
        session: format!("{name}/session-{session}"),
        task: Some(format!("{name}/task-{}", session / TASK_SESSIONS)),
    }
}

/// The task block of batch `index`.
pub(super) fn task_of(index: u64) -> u64 {
    index / SESSION_BATCHES / TASK_SESSIONS
}

/// The function the task of block `task` of scenario `name` names, with the stream that goes on to write the
/// rest of its text.
fn task_start(seed: Seed, name: &str, task: u64) -> (String, Stream) {
    let mut rng = Stream::derive(seed, &format!("context-task:{name}"), task);
    let ident = identifier(&mut rng);
    (ident, rng)
}

/// The function the task of block `task` of scenario `name` names (see [`task_text`]).
pub(super) fn task_ident(seed: Seed, name: &str, task: u64) -> String {
    task_start(seed, name, task).0
}

/// The task text of the task block `task` of scenario `name`: the same for every batch of the block; it names
/// one function ([`task_ident`]).
pub(super) fn task_text(seed: Seed, name: &str, task: u64) -> String {
    let (ident, mut rng) = task_start(seed, name, task);
    let (project, _) = rng.pick(PROJECTS);
    let module = rng.pick(MODULES);
    let verb = rng.pick(VERBS);
    format!(
        "Issue in {project}: `{ident}` in src/{module}/mod.rs fails to {verb} the {} when the {} is empty. \
         Find the cause and fix it so that the {module} tests pass.",
        rng.pick(NOUNS),
        rng.pick(NOUNS),
    )
}

/// An identifier such as `apply_ledger_offset`.
pub(super) fn identifier(rng: &mut Stream) -> String {
    format!(
        "{}_{}_{}",
        rng.pick(VERBS),
        rng.pick(NOUNS),
        rng.pick(NOUNS)
    )
}

/// A source path such as `src/ledger/offset.rs`.
pub(super) fn path(rng: &mut Stream) -> String {
    format!("src/{}/{}.rs", rng.pick(MODULES), rng.pick(NOUNS))
}

/// The arguments of a call of `tool` (its kind read from the name), as JSON text.
fn arguments(rng: &mut Stream, tool: &str) -> String {
    let json = match kind_of_tool(tool) {
        Some(Kind::Shell | Kind::ErrorTrace | Kind::ShortSuccess | Kind::Cancelled) => {
            let command = match rng.below(4) {
                0 => format!("cargo test -p {}", rng.pick(MODULES)),
                1 => "cargo build".to_string(),
                2 => format!("git log --oneline -- {}", path(rng)),
                _ => format!("npm test -- {}", rng.pick(MODULES)),
            };
            serde_json::json!({ "command": command })
        }
        Some(Kind::FileRead | Kind::Edit | Kind::Surrogate | Kind::Media) => {
            serde_json::json!({ "path": path(rng) })
        }
        Some(Kind::Search) => {
            serde_json::json!({ "pattern": identifier(rng), "path": "src" })
        }
        Some(Kind::Listing) => serde_json::json!({ "path": format!("src/{}", rng.pick(MODULES)) }),
        _ => serde_json::json!({ "query": format!("{} {}", rng.pick(VERBS), rng.pick(NOUNS)) }),
    };
    json.to_string()
}

/// The assistant's line of a turn making `calls` calls.
fn assistant(rng: &mut Stream, calls: usize) -> String {
    let what = match rng.below(3) {
        0 => format!("Let me look at how `{}` is handled.", identifier(rng)),
        1 => format!("I'll check the {} module first.", rng.pick(MODULES)),
        _ => format!("Running the {} tests to see what fails.", rng.pick(MODULES)),
    };
    if calls > 1 {
        format!("{what} I'll make {calls} calls.")
    } else {
        what
    }
}

/// The context of batch `index` of scenario `name`, whose entries are `batch`: the task of its block, one call
/// per distinct call id in batch order (the entry's tool name, arguments drawn for its kind), and an assistant
/// line. `fixed` gives arguments decided elsewhere (the focus of an entry), by entry, and `said` sentences the
/// assistant's text ends with.
pub(super) fn turn_context(
    seed: Seed,
    name: &str,
    index: u64,
    batch: &Batch,
    fixed: &[(usize, String)],
    said: &[String],
) -> TurnContext {
    let task = task_of(index);
    let mut rng = Stream::derive(seed, &format!("context:{name}"), index);
    let mut calls: Vec<CallContext> = Vec::with_capacity(batch.len());
    for (e, entry) in batch.iter().enumerate() {
        if calls.iter().any(|c| c.call_id == entry.call_id) {
            continue;
        }
        let drawn = arguments(&mut rng, &entry.tool_name);
        let arguments = fixed
            .iter()
            .find(|(at, _)| *at == e)
            .map_or(drawn, |(_, a)| a.clone());
        calls.push(CallContext {
            call_id: entry.call_id.clone(),
            name: entry.tool_name.clone(),
            arguments,
        });
    }
    let mut assistant = assistant(&mut rng, calls.len());
    for sentence in said {
        assistant.push(' ');
        assistant.push_str(sentence);
    }
    TurnContext {
        task: Some(task_text(seed, name, task)),
        calls,
        assistant: Some(assistant),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Entry;

    #[test]
    fn groups_are_blocks_of_sessions_and_tasks() {
        assert_eq!(
            group("s", 0),
            BatchGroup {
                session: "s/session-0".into(),
                task: Some("s/task-0".into())
            }
        );
        assert_eq!(group("s", 15).session, "s/session-0");
        assert_eq!(group("s", 16).session, "s/session-1");
        assert_eq!(group("s", 63).task.as_deref(), Some("s/task-0"));
        assert_eq!(group("s", 64).task.as_deref(), Some("s/task-1"));
    }

    #[test]
    fn a_context_names_each_call_once_and_is_a_function_of_its_inputs() {
        let batch = vec![
            Entry::new("a", "run_shell_command", vec![]),
            Entry::new("b", "read_file", vec![]),
            Entry::new("a", "run_shell_command", vec![]),
        ];
        let c = turn_context(
            Seed(7),
            "s",
            3,
            &batch,
            &[(1, "{\"path\":\"x\"}".into())],
            &[],
        );
        assert_eq!(
            c,
            turn_context(
                Seed(7),
                "s",
                3,
                &batch,
                &[(1, "{\"path\":\"x\"}".into())],
                &[]
            )
        );
        assert_eq!(
            c.calls
                .iter()
                .map(|c| c.call_id.as_str())
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(c.calls[1].arguments, "{\"path\":\"x\"}");
        assert!(c.calls[0].arguments.starts_with("{\"command\":"), "{c:?}");
        // One task a block: batches 3 and 60 share it, 64 has its own.
        let other = turn_context(Seed(7), "s", 60, &batch, &[], &[]);
        assert_eq!(c.task, other.task);
        assert_ne!(
            c.task,
            turn_context(Seed(7), "s", 64, &batch, &[], &[]).task
        );
        c.validate("generated").unwrap();
        assert!(c
            .task
            .as_deref()
            .unwrap()
            .contains(&task_ident(Seed(7), "s", 0)));
    }
}
