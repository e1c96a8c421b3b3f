//! The external finalizer against small `sh` children: answers, faults of every kind, and what is left of the
//! processes afterwards (nothing). Each child appends its pid to `pids`, and a child that starts a grandchild
//! appends that one's to `grandchildren`, so the tests can check that every one of them is gone.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Duration;

use super::*;
use crate::external::child::testing::assert_nothing_left;
use crate::external::child::ChannelError;
use crate::persist::{FaultyStore, MemoryStore, PersistStats};
use crate::{parse_batch, Budget};

/// The handshake answer every test child gives.
const HELLO: &str =
    r#"{"protocol":"budgetlab-finalizer","version":1,"name":"t","capabilities":[]}"#;

/// Answers every request of an empty batch, numbering them from 1.
const ANSWER_EMPTY: &str = r#"n=0; while read -r req; do n=$((n+1)); echo "{\"id\":$n,\"entries\":[],\"persisted\":[]}"; done"#;

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn logs(&self) -> std::path::PathBuf {
        self.path().join("logs")
    }

    /// A finalizer named `name` running `sh -c` with the pid and handshake prelude and then `body`.
    fn finalizer(&self, name: &str, body: &str, timeout: Duration) -> ExternalFinalizer {
        self.finalizer_with(name, body, timeout, LoneSurrogatePolicy::Reject)
    }

    fn finalizer_with(
        &self,
        name: &str,
        body: &str,
        timeout: Duration,
        lone: LoneSurrogatePolicy,
    ) -> ExternalFinalizer {
        let dir = self.path().display();
        let script = format!("echo $$ >> '{dir}/pids'; read -r hello; echo '{HELLO}'; {body}",);
        let strategy = ExternalStrategy {
            name: name.into(),
            command: script.clone(),
            argv: vec!["sh".into(), "-c".into(), script],
        };
        let mut options = ExternalOptions::new(self.logs());
        options.timeout = timeout;
        options.lone_surrogates = lone;
        ExternalFinalizer::new(strategy, options)
    }

    fn pids(&self, file: &str) -> Vec<u32> {
        fs::read_to_string(self.path().join(file))
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect()
    }

    /// Asserts that every child is reaped and every grandchild dead.
    fn assert_nothing_left(&self) {
        assert_nothing_left(&self.pids("pids"), &self.pids("grandchildren"));
    }
}

fn ctx(budget: i64) -> BudgetContext {
    BudgetContext::new(Budget::Units(budget))
}

fn one_entry() -> Batch {
    parse_batch(
        br#"[{"callId":"calls/c1","toolName":"shell","responseParts":[{"text":"hello"}]}]"#,
        "t",
    )
    .unwrap()
}

fn finalize_empty(f: &ExternalFinalizer) -> Outcome {
    f.finalize(Vec::new(), &ctx(100), &mut MemoryStore::new("d"))
}

#[test]
fn children_answer_in_order_and_end_with_their_input() {
    let s = Setup::new();
    let f = s.finalizer("echo", ANSWER_EMPTY, Duration::from_secs(30));
    for _ in 0..3 {
        assert_eq!(finalize_empty(&f), Outcome::unchanged(Vec::new()));
    }
    assert_eq!(f.children_started(), 1, "one child, kept");
    assert!(f.check().is_ok());
    drop(f);
    s.assert_nothing_left();
    assert!(!s.logs().exists(), "a quiet child leaves no log");
}

#[test]
fn a_hanging_child_times_out_and_dies_with_its_grandchildren() {
    let s = Setup::new();
    let dir = s.path().display().to_string();
    let body = format!("read -r req; sleep 1000 & echo $! >> '{dir}/grandchildren'; wait");
    let f = s.finalizer("hang", &body, Duration::from_millis(500));
    let batch = one_entry();
    let out = f.finalize(batch.clone(), &ctx(3), &mut MemoryStore::new("d"));
    assert_eq!(
        out,
        Outcome::unchanged(batch.clone()),
        "a fault leaves the batch as it was"
    );
    // Killed at the fault already, not only when the finalizer goes.
    s.assert_nothing_left();
    let fault = f.fault().unwrap();
    assert_eq!(fault.request, Some(1));
    assert_eq!(
        fault.problem,
        Problem::Channel(ChannelError::Timeout(Duration::from_millis(500)))
    );
    let line = f.check().unwrap_err().to_string();
    let saved = s.logs().join("hang-request-1.json");
    assert!(
        line.starts_with(&format!(
            "external strategy hang: request 1: the child gave no answer within 0.5 s; the request is saved in \
             {} (replay: budgetlab finalize --input {} --budget 3)",
            s.logs().join("hang-request-1.jsonl").display(),
            saved.display()
        )),
        "{line}"
    );
    assert_eq!(
        parse_batch(&fs::read(&saved).unwrap(), "saved").unwrap(),
        batch
    );
    let exchange = fs::read_to_string(s.logs().join("hang-request-1.jsonl")).unwrap();
    let lines: Vec<&str> = exchange.lines().collect();
    assert_eq!(
        lines[0],
        r#"{"protocol":"budgetlab-finalizer","version":1}"#
    );
    assert!(
        lines[1].starts_with(r#"{"id":1,"boundary":"finalize","budget":3,"#),
        "{}",
        lines[1]
    );
    // After a fault nothing more is asked of any child.
    let again = f.finalize(batch.clone(), &ctx(3), &mut MemoryStore::new("d"));
    assert_eq!(again.batch, batch);
    assert_eq!(f.children_started(), 1);
}

#[test]
fn a_child_that_crashes_mid_run_is_named_with_its_status_and_log() {
    let s = Setup::new();
    let body = r#"n=0; while read -r req; do n=$((n+1)); if [ $n = 3 ]; then echo "boom at $n" >&2; exit 3; fi; echo "{\"id\":$n,\"entries\":[],\"persisted\":[]}"; done"#;
    let f = s.finalizer("crash", body, Duration::from_secs(30));
    finalize_empty(&f);
    finalize_empty(&f);
    assert!(f.check().is_ok());
    finalize_empty(&f);
    let line = f.check().unwrap_err().to_string();
    let log = s.logs().join("crash.0.stderr.log");
    assert!(
        line.starts_with(
            "external strategy crash: request 3: the child exited with status 3 without answering;"
        ),
        "{line}"
    );
    assert!(
        line.ends_with(&format!("; its stderr is in {}", log.display())),
        "{line}"
    );
    assert_eq!(fs::read_to_string(&log).unwrap(), "boom at 3\n");
    drop(f);
    s.assert_nothing_left();
}

#[test]
fn a_child_flooding_stderr_never_blocks() {
    let s = Setup::new();
    // Ten megabytes of stderr before each answer: far more than a pipe holds.
    let body = r#"n=0; while read -r req; do n=$((n+1)); head -c 10000000 /dev/zero | tr '\0' x >&2; echo "{\"id\":$n,\"entries\":[],\"persisted\":[]}"; done"#;
    let f = s.finalizer("flood", body, Duration::from_secs(60));
    finalize_empty(&f);
    finalize_empty(&f);
    assert!(f.check().is_ok(), "{:?}", f.fault());
    drop(f);
    s.assert_nothing_left();
    // All 20 MB were read (the child was never blocked); the log keeps its limit and says what it left out.
    let log = fs::read(s.logs().join("flood.0.stderr.log")).unwrap();
    let dropped = 20_000_000 - crate::external::LOG_LIMIT;
    let note = format!("\n[budgetlab: {dropped} more bytes of stderr were read and not kept]\n");
    assert_eq!(
        log.len() as u64,
        crate::external::LOG_LIMIT + note.len() as u64
    );
    assert!(log.ends_with(note.as_bytes()));
    assert!(log[..log.len() - note.len()].iter().all(|&b| b == b'x'));
}

#[test]
fn wrong_ids_garbage_and_child_errors_are_faults() {
    let cases = [
        (
            r#"read -r req; echo '{"id":2,"entries":[],"persisted":[]}'; cat > /dev/null"#,
            "request 1: answered request 2 instead of 1",
        ),
        (
            "read -r req; echo 'hello there'; cat > /dev/null",
            r#"request 1: malformed answer: invalid JSON at byte 1: expected value in "hello there""#,
        ),
        (
            r#"read -r req; echo '{"id":1,"entries":[]}'; cat > /dev/null"#,
            "request 1: malformed answer: missing \"persisted\"",
        ),
        (
            r#"read -r req; echo '{"id":1,"error":"cannot cut this"}'; cat > /dev/null"#,
            "request 1: the child reported an error: cannot cut this",
        ),
        (
            r#"read -r req; echo '{"id":1,"entries":[{"callId":"x","toolName":"t","responseParts":[]}],"persisted":[]}'; cat > /dev/null"#,
            "request 1: inconsistent answer: 1 entries answered for a batch of 0",
        ),
        (
            r#"read -r req; printf '{"id":1,'; exit 0"#,
            "request 1: the child exited with status 0 after 8 bytes of an unfinished answer line",
        ),
    ];
    for (body, expected) in cases {
        let s = Setup::new();
        let f = s.finalizer("bad", body, Duration::from_secs(30));
        finalize_empty(&f);
        let line = f.check().unwrap_err().to_string();
        assert!(
            line.starts_with(&format!("external strategy bad: {expected};")),
            "{line}\nexpected: {expected}"
        );
        drop(f);
        s.assert_nothing_left();
    }
}

#[test]
fn handshake_and_start_failures_are_faults() {
    let s = Setup::new();
    let script = format!(
        "echo $$ >> '{}/pids'; read -r hello; echo '{{\"protocol\":\"budgetlab-finalizer\",\"version\":2,\"name\":\"n\"}}'; cat > /dev/null",
        s.path().display()
    );
    let strategy = ExternalStrategy {
        name: "v2".into(),
        command: script.clone(),
        argv: vec!["sh".into(), "-c".into(), script],
    };
    let f = ExternalFinalizer::new(strategy, ExternalOptions::new(s.logs()));
    let err = f.start().unwrap_err().to_string();
    assert_eq!(
        err,
        "external strategy v2: handshake: bad handshake answer: it speaks budgetlab-finalizer version 2, \
         budgetlab speaks budgetlab-finalizer version 1"
    );
    drop(f);
    s.assert_nothing_left();

    let missing = ExternalStrategy {
        name: "gone".into(),
        command: "/nonexistent/fin".into(),
        argv: vec!["/nonexistent/fin".into()],
    };
    let f = ExternalFinalizer::new(missing, ExternalOptions::new(s.logs()));
    let out = finalize_empty(&f);
    assert!(out.batch.is_empty());
    let err = f.check().unwrap_err().to_string();
    assert!(
        err.starts_with("external strategy gone: start: the child could not be started: /nonexistent/fin: No such file"),
        "{err}"
    );
}

#[test]
fn lone_surrogates_are_refused_or_replaced_and_counted() {
    let answer = r#"read -r req; printf '%s\n' '{"id":1,"entries":[{"callId":"calls/c1","toolName":"shell","responseParts":[{"text":"ab\ud83d"}]}],"persisted":[]}'; cat > /dev/null"#;
    let s = Setup::new();
    let f = s.finalizer("split", answer, Duration::from_secs(30));
    f.finalize(one_entry(), &ctx(3), &mut MemoryStore::new("d"));
    let line = f.check().unwrap_err().to_string();
    assert!(
        line.starts_with(
            "external strategy split: request 1: malformed answer: 1 lone UTF-16 surrogate escape (\\udXXX \
             without its other half; the first at byte 88): a surrogate pair was split"
        ),
        "{line}"
    );
    assert_eq!(f.lone_surrogates(), 0);
    drop(f);

    let s = Setup::new();
    let f = s.finalizer_with(
        "split",
        answer,
        Duration::from_secs(30),
        LoneSurrogatePolicy::Replace,
    );
    let out = f.finalize(one_entry(), &ctx(3), &mut MemoryStore::new("d"));
    assert!(f.check().is_ok());
    assert_eq!(
        out.batch[0].response_parts[0].field(crate::Field::Text),
        Some("ab\u{FFFD}")
    );
    assert_eq!(f.lone_surrogates(), 1);
}

#[test]
fn reported_writes_become_the_outcome_and_the_backend_counts() {
    let s = Setup::new();
    // Two attempts: one with no entry index (attributed by its persistence id), one failed with an index.
    let answer = r#"read -r req; echo '{"id":1,"entries":[{"callId":"calls/c1","toolName":"shell","responseParts":[{"text":"[see d/c1.txt]"}],"persistedOutputFiles":["d/c1.txt"]}],"persisted":[{"callId":"c1","toolName":"shell","content":"hello","path":"d/c1.txt"},{"callId":"c1-1","toolName":"shell","content":"hello","path":null,"entry":0}]}'; cat > /dev/null"#;
    let f = s.finalizer("rep", answer, Duration::from_secs(30));
    let mut store = MemoryStore::new("d");
    let out = f.finalize(one_entry(), &ctx(3), &mut store);
    assert!(f.check().is_ok(), "{:?}", f.fault());
    assert_eq!(out.persisted.len(), 2);
    assert_eq!(
        (out.persisted[0].entry, out.persisted[0].path.as_deref()),
        (0, Some("d/c1.txt"))
    );
    assert_eq!(
        (out.persisted[1].entry, out.persisted[1].path.as_deref()),
        (0, None)
    );
    assert_eq!(&*out.persisted[0].content, "hello");
    assert_eq!(
        store.stats(),
        PersistStats {
            writes: 1,
            bytes: 5,
            failures: 1
        }
    );
    assert_eq!(store.artifacts()[0].path, "d/c1.txt");
}

#[test]
fn a_record_naming_no_entry_is_a_fault() {
    let s = Setup::new();
    let answer = r#"read -r req; echo '{"id":1,"entries":[{"callId":"calls/c1","toolName":"shell","responseParts":[]}],"persisted":[{"callId":"zz","toolName":"shell","content":"x","path":"d/zz.txt"}]}'; cat > /dev/null"#;
    let f = s.finalizer("orphan", answer, Duration::from_secs(30));
    f.finalize(one_entry(), &ctx(3), &mut MemoryStore::new("d"));
    let line = f.check().unwrap_err().to_string();
    assert!(
        line.starts_with(
            "external strategy orphan: request 1: inconsistent answer: persisted[0]: callId \"zz\" is no entry's \
             (give its \"entry\" index)"
        ),
        "{line}"
    );
}

#[test]
fn injected_failures_need_the_capability() {
    let s = Setup::new();
    let f = s.finalizer("plain", ANSWER_EMPTY, Duration::from_secs(30));
    let mut store = FaultyStore::new(MemoryStore::new("d"), ["c1".to_string()]);
    f.finalize(Vec::new(), &ctx(3), &mut store);
    let line = f.check().unwrap_err().to_string();
    assert!(
        line.starts_with(
            "external strategy plain: request 1: persistence failures are injected here and the child does not \
             declare the `persist-faults` capability"
        ),
        "{line}"
    );
    drop(f);
    s.assert_nothing_left();
}

/// A backend that panics when a reported write is recorded: a panic while a child is in use.
struct PanickingStore;

impl ArtifactStore for PanickingStore {
    fn write(
        &mut self,
        _: &str,
        _: &str,
        _: &Content,
    ) -> Result<String, crate::persist::PersistError> {
        unreachable!("an external strategy never writes through the backend")
    }
    fn stats(&self) -> PersistStats {
        PersistStats::default()
    }
    fn artifact_dir(&self) -> &str {
        "d"
    }
    fn record(&mut self, _: &str, _: &str, _: &Content, _: Option<&str>) {
        panic!("record");
    }
}

#[test]
fn a_panic_with_a_child_in_use_kills_it_while_unwinding() {
    let s = Setup::new();
    let answer = r#"read -r req; echo '{"id":1,"entries":[{"callId":"calls/c1","toolName":"shell","responseParts":[]}],"persisted":[{"callId":"c1","toolName":"shell","content":"x","path":"d/c1.txt"}]}'; sleep 1000"#;
    let f = s.finalizer("panics", answer, Duration::from_secs(30));
    let result = catch_unwind(AssertUnwindSafe(|| {
        f.finalize(one_entry(), &ctx(3), &mut PanickingStore)
    }));
    assert!(result.is_err());
    // The finalizer is still alive; the child it had checked out is not.
    s.assert_nothing_left();
    assert_eq!(f.children_started(), 1);
}

#[test]
fn one_child_per_concurrent_caller_at_most() {
    let s = Setup::new();
    let f = s.finalizer("many", ANSWER_EMPTY, Duration::from_secs(30));
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..5 {
                    assert!(finalize_empty(&f).batch.is_empty());
                }
            });
        }
    });
    assert!(f.check().is_ok(), "{:?}", f.fault());
    let started = f.children_started();
    assert!((1..=4).contains(&started), "{started}");
    assert_eq!(s.pids("pids").len(), started);
    drop(f);
    s.assert_nothing_left();
}

#[test]
fn a_child_that_ignores_the_end_of_its_input_is_killed_after_the_grace() {
    let s = Setup::new();
    let dir = s.path().display().to_string();
    // Answers, then ignores its closed stdin and keeps a grandchild. It gives up after two minutes, far past the
    // grace, so that a test process killed midway (a test runner cancelling it) leaves nothing behind for ever.
    let body = format!(
        r#"read -r req; echo '{{"id":1,"entries":[],"persisted":[]}}'; sleep 1000 & echo $! >> '{dir}/grandchildren'; trap '' TERM; n=0; while [ $n -lt 120 ]; do sleep 1; n=$((n + 1)); done"#
    );
    let f = s.finalizer("stubborn", &body, Duration::from_secs(30));
    finalize_empty(&f);
    assert!(f.check().is_ok(), "{:?}", f.fault());
    drop(f);
    s.assert_nothing_left();
}

#[test]
fn attribution_prefers_the_index_then_the_call_id() {
    let batch = parse_batch(
        br#"[{"callId":"d","toolName":"t","responseParts":[]},{"callId":"d","toolName":"t","responseParts":[]},
             {"callId":"x/e","toolName":"t","responseParts":[]},{"callId":"a/","toolName":"t","responseParts":[]}]"#,
        "t",
    )
    .unwrap();
    let w = |call_id: &str, entry: Option<u64>| crate::external::protocol::ReportedWrite {
        call_id: call_id.into(),
        tool_name: "t".into(),
        content: String::new(),
        path: None,
        entry,
    };
    assert_eq!(
        attribute(
            &batch,
            &[
                w("d-1", None),
                w("d-2", None),
                w("e", None),
                w("a/", None),
                w("q", Some(2))
            ]
        )
        .unwrap(),
        [0, 1, 2, 3, 2]
    );
    assert_eq!(
        attribute(&batch, &[w("d", None), w("d", None), w("d", None)]).unwrap(),
        [0, 1, 0]
    );
    assert_eq!(
        attribute(&batch, &[w("d", Some(4))]).unwrap_err(),
        "persisted[0] names entry 4 of a batch of 4"
    );
    assert!(attribute(&batch, &[w("d-01", None)]).is_err());
}

/// A child that declares `context` is sent the batch's context (and one that does not, never); a batch without
/// one goes without the field either way.
#[test]
fn only_a_child_declaring_context_is_sent_it() {
    let s = Setup::new();
    let dir = s.path().display().to_string();
    let turn = crate::TurnContext {
        task: Some("fix the parser".into()),
        calls: vec![crate::CallContext {
            call_id: "calls/c1".into(),
            name: "shell".into(),
            arguments: "{\"command\":\"ls\"}".into(),
        }],
        assistant: Some("Listing.".into()),
    };
    let mut with = ctx(100);
    with.turn = Some(std::sync::Arc::new(turn.clone()));
    for (name, capabilities) in [("plain", "[]"), ("wants", "[\"context\"]")] {
        let hello = format!(
            r#"{{"protocol":"budgetlab-finalizer","version":1,"name":"t","capabilities":{capabilities}}}"#
        );
        let body = format!(
            r#"read -r hello; echo '{hello}'; n=0; while read -r req; do n=$((n+1)); printf '%s\n' "$req" >> '{dir}/{name}.requests'; echo "{{\"id\":$n,\"entries\":[{{\"callId\":\"calls/c1\",\"toolName\":\"shell\",\"responseParts\":[{{\"text\":\"hello\"}}]}}],\"persisted\":[]}}"; done"#
        );
        let strategy = ExternalStrategy {
            name: name.into(),
            command: body.clone(),
            argv: vec!["sh".into(), "-c".into(), body],
        };
        let f = ExternalFinalizer::new(strategy, ExternalOptions::new(s.logs()));
        for c in [&with, &ctx(100)] {
            let out = f.finalize(one_entry(), c, &mut MemoryStore::new("d"));
            assert_eq!(out.batch, one_entry(), "{:?}", f.fault());
        }
        f.check().unwrap();
        drop(f);
        let requests: Vec<serde_json::Value> =
            fs::read_to_string(s.path().join(format!("{name}.requests")))
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
        assert_eq!(requests.len(), 2);
        assert!(requests[1].get("context").is_none());
        match name {
            "wants" => assert_eq!(requests[0]["context"], serde_json::to_value(&turn).unwrap()),
            _ => assert!(requests[0].get("context").is_none(), "{}", requests[0]),
        }
    }
}
