//! Reports: the folder a run leaves behind (`results.json`, `batches.jsonl`, `batches.csv`, `summary.md`, the
//! charts and `index.html`), and the folders of a sweep and a profile, each written by [`ReportWriter`] to a
//! staging folder beside the target and swapped into place only when complete, so an interrupted command never
//! leaves a half-written report that looks complete; a folder budgetlab did not make is never replaced (see
//! `folder`). The exporters are in `export`, the charts in `chart`, the page in `html`; `batches` is the sink a
//! run streams its records into.

pub mod chart;
pub mod export;
pub mod html;

pub(crate) mod answer;
mod batches;
mod folder;
mod pages;
pub(crate) mod pareto;
pub(crate) mod used;
mod writer;

pub use folder::{
    check_aside, check_folder, is_report_folder, take_warnings, write_folder, PendingFolder, MARKER,
};
pub use pages::{Redrawn, HISTORY_JSON, INDEX as INDEX_HTML};
pub use writer::{ReportWriter, StreamedRun, EXTERNAL_DIR, FAILED_SUFFIX, FAULT_FILE};

use crate::error::Result;
use crate::run::{BatchFilesSha256, RunOutput};

pub use batches::BatchFiles;
pub use chart::data::TurnTallies;

/// Every file of the report folder for `run`, whose records are in memory, as (relative name, bytes), without
/// touching the disk: the same bytes [`ReportWriter::run`] writes.
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
            .map(|(_, bytes)| crate::digest::sha256_hex(bytes))
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
    files.extend(pages::run_files(&results, Some(&turns), None)?);
    Ok(files)
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
