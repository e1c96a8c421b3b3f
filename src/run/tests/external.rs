//! A run with an external strategy, against small `sh` children that answer batches of no entries (which any
//! shell can answer): one pool of children for the whole run, one request per finalization, the boundaries named
//! in the requests, and nothing left of any child once the run's strategies are finished, whether the run ended
//! well, a child crashed or one hung.

use std::fs;
use std::time::Duration;

use crate::external::testing::assert_nothing_left;
use crate::external::{ExternalFault, ExternalOptions, ExternalStrategies, Problem};
use crate::run::*;

/// The handshake answer of every test child.
const HELLO: &str = r#"{"protocol":"budgetlab-finalizer","version":1,"name":"t","capabilities":["persist-faults"]}"#;

/// Batches of the test workload.
const BATCHES: usize = 6;

/// Finalizations of the strategy per turn of an empty batch in interactive mode: the scheduler before and after
/// the hook, and the outer finalization (the send guard is built in).
const PER_TURN: usize = 3;

struct Setup {
    dir: tempfile::TempDir,
    externals: ExternalRegistry,
}

impl Setup {
    /// A registry with strategy `t`: a child that notes its pid, answers the handshake, then runs `on_request`
    /// for request `$n` (its line in `$req`) and answers it with no entries.
    fn new(on_request: &str, timeout: Duration) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let script = dir.path().join("child.sh");
        fs::write(
            &script,
            format!(
                "echo $$ >> '{d}/pids'\nread -r hello\necho '{HELLO}'\nn=0\nwhile read -r req; do\n  \
                 n=$((n+1))\n  printf '%s\\n' \"$req\" >> '{d}/requests'\n  {on_request}\n  \
                 echo \"{{\\\"id\\\":$n,\\\"entries\\\":[],\\\"persisted\\\":[]}}\"\ndone\n"
            ),
        )
        .unwrap();
        let strategies =
            ExternalStrategies::from_specs(&[format!("t=sh '{}'", script.display())]).unwrap();
        let mut options = ExternalOptions::new(dir.path().join("logs"));
        options.timeout = timeout;
        Setup {
            externals: ExternalRegistry::new(&strategies, &options),
            dir,
        }
    }

    fn plan(&self) -> RunPlan {
        let jsonl = "[]\n".repeat(BATCHES);
        let sim = SimConfig::default();
        let workload =
            Workload::from_recorded("empty", jsonl.as_bytes(), &[100, 200], sim).unwrap();
        RunPlan {
            workloads: vec![workload],
            strategies: vec![
                StrategyName::REFERENCE,
                self.externals.resolve("t").unwrap(),
            ],
            shard: Shard::WHOLE,
            slowdown: Slowdown::default(),
            externals: self.externals.clone(),
            tokens: None,
        }
    }

    fn lines(&self, file: &str) -> Vec<String> {
        fs::read_to_string(self.dir.path().join(file))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    fn pids(&self, file: &str) -> Vec<u32> {
        self.lines(file)
            .iter()
            .map(|l| l.parse().unwrap())
            .collect()
    }

    /// Every child reaped (not running, not a zombie of ours) and every grandchild gone.
    fn assert_nothing_left(&self) {
        assert_nothing_left(&self.pids("pids"), &self.pids("grandchildren"));
    }

    /// Runs the plan, finishes the strategies and returns the output and the fault.
    fn run(&self) -> (RunOutput, Option<ExternalFault>) {
        let plan = self.plan();
        self.externals.start(&plan.strategies).unwrap();
        let output = plan.run(&|_| {});
        drop(plan);
        (output, self.externals.finish())
    }
}

#[test]
fn one_pool_serves_the_whole_run_one_request_per_finalization_each_naming_its_boundary() {
    let s = Setup::new(":", Duration::from_secs(30));
    let (output, fault) = s.run();
    assert!(fault.is_none(), "{fault:?}");
    assert_eq!(output.results.rows.len(), 4, "2 budgets x 2 strategies");
    assert!(output.results.rows.iter().any(|r| r.strategy == "t"));
    s.assert_nothing_left();
    // A child per worker thread at most, each started once, for both budgets.
    let children = s.pids("pids").len();
    assert!(
        (1..=rayon::current_num_threads()).contains(&children),
        "{children} children"
    );
    // Every finalization is one request (the cost of an external strategy is timed once, not sampled).
    let requests = s.lines("requests");
    assert_eq!(requests.len(), BATCHES * 2 * PER_TURN);
    let mut boundaries: Vec<String> = requests
        .iter()
        .map(|r| {
            let v: serde_json::Value = serde_json::from_str(r).unwrap();
            assert_eq!(v["artifactDir"], "tool-results");
            v["boundary"].as_str().unwrap().to_string()
        })
        .collect();
    boundaries.sort();
    boundaries.dedup();
    assert_eq!(
        boundaries,
        [
            "interactive-outer-finalize",
            "scheduler-post-hook",
            "scheduler-pre-hook"
        ]
    );
}

#[test]
fn a_child_that_crashes_mid_run_ends_it_and_is_reaped() {
    let s = Setup::new(
        r#"if [ $n = 3 ]; then echo "boom at $n" >&2; exit 3; fi"#,
        Duration::from_secs(30),
    );
    let (_, fault) = s.run();
    let fault = fault.expect("a fault");
    assert_eq!(fault.strategy, "t");
    assert_eq!(fault.request, Some(3));
    assert!(
        matches!(&fault.problem, Problem::Channel(_))
            && fault.problem.to_string() == "the child exited with status 3 without answering",
        "{}",
        fault.problem
    );
    let log = fault.log.clone().expect("its stderr log");
    assert_eq!(fs::read_to_string(log).unwrap(), "boom at 3\n");
    s.assert_nothing_left();
    // The run stopped asking once the fault came: far fewer requests than a whole run makes.
    assert!(s.lines("requests").len() < BATCHES * 2 * PER_TURN);
}

#[test]
fn a_child_that_hangs_times_out_and_its_group_dies() {
    let dir_note = "grandchildren";
    let s = Setup::new(
        &format!(
            r#"if [ $n = 2 ]; then sleep 1000 & echo $! >> "$(dirname "$0")/{dir_note}"; wait; fi"#
        ),
        Duration::from_millis(300),
    );
    let (_, fault) = s.run();
    let fault = fault.expect("a fault");
    assert_eq!(fault.request, Some(2));
    assert_eq!(
        fault.problem.to_string(),
        "the child gave no answer within 0.3 s"
    );
    assert!(!s.pids("grandchildren").is_empty());
    s.assert_nothing_left();
}
