//! Reports: the folder a run leaves behind (`results.json`, `batches.jsonl`, `batches.csv`, `summary.md`, and
//! the charts and page of later stages), written to a temporary folder beside the target and moved into place
//! only when complete, so an interrupted run never leaves a half-written report that looks complete.

pub mod chart;
pub mod export;
pub mod html;

use std::fs;
use std::path::{Path, PathBuf};

mod pages;

pub use pages::{redraw, write_sweep, Redrawn};

use crate::error::{Error, Result};
use crate::run::RunOutput;

/// Writes every exporter's file for `run` into `dir`, with the charts and `index.html`, replacing an earlier
/// report there.
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

/// Writes `files` (name, bytes) as the complete content of folder `dir`, atomically: into a fresh sibling
/// folder first, which then replaces `dir`.
/// Names may hold `/` to put a file in a subfolder.
pub fn write_folder<N: AsRef<str>>(dir: &Path, files: &[(N, Vec<u8>)]) -> Result<()> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    let staging = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir(&staging).map_err(|e| Error::io(&staging, e))?;
    let result = (|| {
        for (file, bytes) in files {
            let path = staging.join(file.as_ref());
            if let Some(folder) = path.parent().filter(|p| *p != staging) {
                fs::create_dir_all(folder).map_err(|e| Error::io(folder, e))?;
            }
            fs::write(&path, bytes).map_err(|e| Error::io(&path, e))?;
        }
        replace_dir(&staging, dir)
    })();
    if result.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    result
}

/// Moves `staging` to `dir`, removing what was at `dir` only after the new folder is in place.
fn replace_dir(staging: &Path, dir: &Path) -> Result<()> {
    let old: Option<PathBuf> = if dir.exists() {
        let old = staging.with_extension("old");
        let _ = fs::remove_dir_all(&old);
        fs::rename(dir, &old).map_err(|e| Error::io(dir, e))?;
        Some(old)
    } else {
        None
    };
    fs::rename(staging, dir).map_err(|e| Error::io(dir, e))?;
    if let Some(old) = old {
        let _ = fs::remove_dir_all(old);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_folder_whole() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("latest");
        write_folder(
            &dir,
            &[("a.txt", b"one".to_vec()), ("b.txt", b"two".to_vec())],
        )
        .unwrap();
        write_folder(&dir, &[("a.txt", b"three".to_vec())]).unwrap();
        assert_eq!(fs::read_to_string(dir.join("a.txt")).unwrap(), "three");
        assert!(!dir.join("b.txt").exists());
        let names: Vec<_> = fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("latest")]);
    }
}
