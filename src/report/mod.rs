//! Reports: the folder a run leaves behind (`results.json`, `batches.jsonl`, `batches.csv`, `summary.md`, and
//! the charts and page of later stages), written to a staging folder beside the target and swapped into place
//! only when complete, so an interrupted run never leaves a half-written report that looks complete; a folder
//! budgetlab did not make is never replaced (see `folder`).

pub mod chart;
pub mod export;
pub mod html;

use std::path::Path;

mod externals;
mod folder;
mod pages;

pub use externals::{
    check_folders, write_with_externals, ExternalLogs, EXTERNAL_DIR, FAILED_SUFFIX, FAULT_FILE,
};
pub use folder::{
    check_aside, check_folder, is_report_folder, write_folder, PendingFolder, MARKER,
};
pub use pages::{redraw, sweep_folder_files, write_sweep, Redrawn};

use crate::error::Result;
use crate::run::RunOutput;

/// Writes every exporter's file for `run` into `dir`, with the charts and `index.html`, replacing an earlier
/// report there (see [`write_folder`] for what may be replaced).
pub fn write_report(dir: &Path, run: &RunOutput) -> Result<()> {
    write_folder(dir, &render_files(run)?)
}

/// Every file of the report folder for `run`, as (relative name, bytes), without touching the disk.
pub fn render_files(run: &RunOutput) -> Result<Vec<(String, Vec<u8>)>> {
    let mut files: Vec<(String, Vec<u8>)> = export::all()
        .iter()
        .map(|e| Ok((e.file_name().to_string(), e.serialize(run)?)))
        .collect::<Result<Vec<_>>>()?;
    files.extend(pages::run_files(&run.results, &run.records)?);
    Ok(files)
}
