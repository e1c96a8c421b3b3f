//! Reports: the folder a run leaves behind (`results.json`, `batches.jsonl`, `batches.csv`, `summary.md`, and
//! the charts and page of later stages), written to a staging folder beside the target and swapped into place
//! only when complete, so an interrupted run never leaves a half-written report that looks complete; a folder
//! budgetlab did not make is never replaced (see `folder`).

pub mod chart;
pub mod export;
pub mod html;

pub(crate) mod answer;
mod batches;

use std::path::Path;

mod externals;
mod folder;
mod pages;

pub use externals::{
    check_folders, write_with_externals, ExternalLogs, EXTERNAL_DIR, FAILED_SUFFIX, FAULT_FILE,
};
pub use folder::{
    check_aside, check_folder, is_report_folder, take_warnings, write_folder, PendingFolder, MARKER,
};
pub use pages::{
    profile_folder_files, redraw, sweep_folder_files, write_profile, write_sweep, Redrawn,
    INDEX as INDEX_HTML,
};

use crate::error::Result;
use crate::run::{BatchFilesSha256, RunOutput, RunPlan, RunResults};

pub use batches::BatchFiles;
pub use chart::data::TurnTallies;

/// Writes every exporter's file for `run` into `dir`, with the charts and `index.html`, replacing an earlier
/// report there (see [`write_folder`] for what may be replaced).
pub fn write_report(dir: &Path, run: &RunOutput) -> Result<()> {
    write_folder(dir, &render_files(run)?)
}

/// Every file of the report folder for `run`, whose records are in memory, as (relative name, bytes), without
/// touching the disk: the same bytes [`stream_run`] and [`streamed_files`] write.
pub fn render_files(run: &RunOutput) -> Result<Vec<(String, Vec<u8>)>> {
    let inputs = &run.results.inputs;
    let mut batch_files = Vec::new();
    for e in export::record_files() {
        let mut bytes = e.header(inputs)?;
        e.records(inputs, &run.records, &mut bytes)?;
        batch_files.push((e.file_name().to_string(), bytes));
    }
    let sha = |name: &str| {
        batch_files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, bytes)| crate::run::sha256_hex_bytes(bytes))
            .expect("every per-batch file is written")
    };
    let mut results = run.results.clone();
    results.sha256 = Some(BatchFilesSha256 {
        batches_jsonl: sha(crate::run::BATCHES_JSONL),
        batches_csv: sha(crate::run::BATCHES_CSV),
    });
    let turns = TurnTallies::of(inputs, &run.records);
    let mut files: Vec<(String, Vec<u8>)> = export::all()
        .iter()
        .map(|e| Ok((e.file_name().to_string(), e.serialize(&results)?)))
        .collect::<Result<Vec<_>>>()?;
    files.extend(batch_files);
    files.extend(pages::run_files(&results, Some(&turns))?);
    Ok(files)
}

/// A run whose records were streamed into its report folder ([`stream_run`]).
#[derive(Debug, Clone)]
pub struct StreamedRun {
    /// `results.json`, with the sha256 of the per-batch files written.
    pub results: RunResults,
    /// The tallies of its turns, for the charts.
    pub turns: TurnTallies,
}

/// Runs `plan`, writing its per-batch files (`batches.jsonl`, `batches.csv`) into `staging`, the staging folder of
/// its report ([`PendingFolder::path`]), as its batches complete, then `results.json` and `summary.md`: the
/// memory the run takes does not depend on its number of batches. `progress` is as for [`RunPlan::run`]. The
/// rest of the report (charts and page) is [`streamed_files`].
pub fn stream_run(
    plan: &RunPlan,
    staging: &Path,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<StreamedRun> {
    let mut files = BatchFiles::create(staging, &plan.inputs())?;
    let mut results = plan.run_into(progress, &mut files)?;
    let (sha, turns) = files.finish()?;
    results.sha256 = Some(sha);
    write_results(staging, &results)?;
    Ok(StreamedRun { results, turns })
}

/// Merges `shards` into the report folder `dir` of the unsharded run, streaming the shards' records into its
/// staging folder as [`stream_run`] streams a run's; the merged results. Nothing is left at `dir` but the complete
/// report, or what was there before when the shards are refused.
pub fn write_merged(dir: &Path, shards: Vec<crate::run::ShardReport>) -> Result<RunResults> {
    let pending = PendingFolder::begin(dir)?;
    let staging = pending.path().to_path_buf();
    let (mut results, files) =
        crate::run::merge_into(shards, |inputs| BatchFiles::create(&staging, inputs))?;
    let (sha, turns) = files.finish()?;
    results.sha256 = Some(sha);
    write_results(&staging, &results)?;
    let run = StreamedRun { results, turns };
    pending.commit(&streamed_files(&run)?)?;
    Ok(run.results)
}

/// Writes `results.json` and `summary.md` of `results` into the folder `dir`.
fn write_results(dir: &Path, results: &RunResults) -> Result<()> {
    for e in export::all() {
        let path = dir.join(e.file_name());
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| crate::error::Error::io(&path, e))?;
        let mut out = std::io::BufWriter::new(file);
        e.write(results, &mut out)?;
        std::io::Write::flush(&mut out).map_err(|e| crate::error::Error::io(&path, e))?;
    }
    Ok(())
}

/// The files of a streamed run's report that [`stream_run`] leaves to the caller: the charts and `index.html`,
/// as (relative name, bytes).
pub fn streamed_files(run: &StreamedRun) -> Result<Vec<(String, Vec<u8>)>> {
    pages::run_files(&run.results, Some(&run.turns))
}

/// The rows of `results` measured on `scenario` at the budget labelled `label`, in their order.
pub(crate) fn rows_at<'a>(
    results: &'a crate::run::RunResults,
    scenario: &str,
    label: &crate::scenario::BudgetLabel,
) -> Vec<&'a crate::metrics::Aggregate> {
    results
        .rows
        .iter()
        .filter(|r| r.scenario == scenario && &r.budget_label == label)
        .collect()
}
