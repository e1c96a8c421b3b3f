//! Fixtures shared by `run`'s unit tests: shell calls, recorded batches on disk, and report folders written
//! without `report` (which uses `run`).

use std::path::{Path, PathBuf};

use super::{
    BatchFilesSha256, PlanRequest, RecordedBatches, RunOutput, RunResults, Workloads, BATCHES_JSONL,
};
use crate::model::{Batch, Entry, Part};

/// A shell call `id` whose output is `output`.
pub(super) fn shell_entry(id: &str, output: &str) -> Entry {
    let output = Some(serde_json::Value::String(output.into()));
    Entry::new(
        id,
        "shell",
        vec![Part::function_response(id, "shell", output, None)],
    )
}

/// A request to run `batches`, written as JSON Lines into `dir`, at `budgets` in `mode` (or its legacy form).
pub(super) fn recorded_request(
    dir: &Path,
    batches: &[Batch],
    budgets: Vec<u64>,
    mode: Option<&str>,
    legacy: bool,
) -> PlanRequest {
    let file: PathBuf = dir.join("recorded.jsonl");
    let lines: String = batches
        .iter()
        .map(|b| serde_json::to_string(b).unwrap() + "\n")
        .collect();
    std::fs::write(&file, lines).unwrap();
    PlanRequest {
        workloads: Workloads::Recorded(RecordedBatches {
            file,
            budgets,
            mode: mode.map(String::from),
            legacy,
        }),
        ..PlanRequest::default()
    }
}

/// Writes `out` into `dir` as a run's report folder holds it for reading back: `batches.jsonl`, one record a line,
/// and `results.json` with that file's sha256; the results written.
pub(super) fn write_run_folder(dir: &Path, out: &RunOutput) -> RunResults {
    let mut jsonl = Vec::new();
    for r in &out.records {
        serde_json::to_writer(&mut jsonl, r).unwrap();
        jsonl.push(b'\n');
    }
    let mut results = out.results.clone();
    results.sha256 = Some(BatchFilesSha256 {
        batches_jsonl: crate::digest::sha256_hex(&jsonl),
        batches_csv: crate::digest::sha256_hex(b""),
    });
    std::fs::write(dir.join(BATCHES_JSONL), &jsonl).unwrap();
    std::fs::write(
        dir.join("results.json"),
        serde_json::to_vec(&results).unwrap(),
    )
    .unwrap();
    results
}
