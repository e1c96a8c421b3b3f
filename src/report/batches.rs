//! The per-batch files of a report (`batches.jsonl`, `batches.csv`), written into the report's staging folder as
//! a run's records come, so that no run holds its records: the [`RecordSink`] a run streams into.
//!
//! A run hands over its records a window of batches at a time, each (budget, strategy) group in batch order but
//! the groups interleaved, while the files are in run order: workload, group, batch. So the first group of a
//! workload goes straight into the files and every other group into a segment file of its own in the staging
//! folder, appended to the files (and removed) when the workload ends. The sha256 of each file is computed from
//! the bytes as they are written, and the turns are tallied for the charts ([`TurnTallies`]) on the way.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::chart::data::TurnTallies;
use super::export::{self, RecordExporter};
use crate::error::{Error, Result};
use crate::run::{
    BatchFilesSha256, BatchRecord, RecordSink, RunInputs, BATCHES_CSV, BATCHES_JSONL,
};

/// The folder of a staging folder holding the segments of a workload being written.
const SEGMENTS: &str = "segments.partial";

/// One file being written, with the sha256 of what was written so far.
struct HashedFile {
    path: PathBuf,
    out: BufWriter<File>,
    hasher: Sha256,
}

impl HashedFile {
    fn create(path: PathBuf) -> Result<HashedFile> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        Ok(HashedFile {
            out: BufWriter::with_capacity(1 << 16, file),
            path,
            hasher: Sha256::new(),
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.hasher.update(bytes);
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Flushes the file; the lowercase hex sha256 of everything written.
    fn finish(mut self) -> Result<String> {
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        Ok(crate::digest::hex(&self.hasher.finalize().into()))
    }
}

/// A run's per-batch files being written into a folder (see the module's description).
pub struct BatchFiles {
    inputs: RunInputs,
    exporters: Vec<Box<dyn RecordExporter + Send + Sync>>,
    /// One file per exporter, in the exporters' order.
    files: Vec<HashedFile>,
    segments: PathBuf,
    /// Groups of the current workload, and which of them have a segment.
    segmented: Vec<bool>,
    buffer: Vec<u8>,
    turns: TurnTallies,
}

impl BatchFiles {
    /// Starts the per-batch files of a run of `inputs` in `dir` (the staging folder, where they must not exist
    /// yet), each with its header.
    pub fn create(dir: &Path, inputs: &RunInputs) -> Result<BatchFiles> {
        let exporters = export::record_files();
        let mut files = Vec::with_capacity(exporters.len());
        for e in &exporters {
            let mut file = HashedFile::create(dir.join(e.file_name()))?;
            file.write(&e.header(inputs)?)?;
            files.push(file);
        }
        Ok(BatchFiles {
            inputs: inputs.clone(),
            exporters,
            files,
            segments: dir.join(SEGMENTS),
            segmented: Vec::new(),
            buffer: Vec::new(),
            turns: TurnTallies::new(inputs),
        })
    }

    fn segment(&self, group: usize, exporter: usize) -> PathBuf {
        self.segments
            .join(format!("{group}-{}", self.exporters[exporter].file_name()))
    }

    /// Finishes the files: the sha256 of `batches.jsonl` and `batches.csv`, and the tallies of the turns written.
    pub fn finish(self) -> Result<(BatchFilesSha256, TurnTallies)> {
        if self.segments.exists() {
            fs::remove_dir_all(&self.segments).map_err(|e| Error::io(&self.segments, e))?;
        }
        let mut jsonl = None;
        let mut csv = None;
        for (e, file) in self.exporters.iter().zip(self.files) {
            let sha = file.finish()?;
            match e.file_name() {
                BATCHES_JSONL => jsonl = Some(sha),
                BATCHES_CSV => csv = Some(sha),
                _ => {}
            }
        }
        let sha = BatchFilesSha256 {
            batches_jsonl: jsonl.expect("batches.jsonl is an exporter"),
            batches_csv: csv.expect("batches.csv is an exporter"),
        };
        Ok((sha, self.turns))
    }
}

impl RecordSink for BatchFiles {
    fn begin_workload(&mut self, groups: usize) -> Result<()> {
        self.segmented = vec![false; groups];
        Ok(())
    }

    fn records(&mut self, group: usize, records: &[BatchRecord]) -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        for r in records {
            self.turns.add(r);
        }
        if group > 0 && !self.segmented[group] {
            if !self.segments.exists() {
                fs::create_dir(&self.segments).map_err(|e| Error::io(&self.segments, e))?;
            }
            self.segmented[group] = true;
        }
        for i in 0..self.exporters.len() {
            self.buffer.clear();
            self.exporters[i].records(&self.inputs, records, &mut self.buffer)?;
            if group == 0 {
                self.files[i].write(&self.buffer)?;
            } else {
                let path = self.segment(group, i);
                let mut file = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .map_err(|e| Error::io(&path, e))?;
                file.write_all(&self.buffer)
                    .map_err(|e| Error::io(&path, e))?;
            }
        }
        Ok(())
    }

    fn end_workload(&mut self) -> Result<()> {
        let mut chunk = vec![0u8; 1 << 16];
        for group in 1..self.segmented.len() {
            if !self.segmented[group] {
                continue;
            }
            for i in 0..self.exporters.len() {
                let path = self.segment(group, i);
                let mut segment = File::open(&path).map_err(|e| Error::io(&path, e))?;
                loop {
                    let n = segment.read(&mut chunk).map_err(|e| Error::io(&path, e))?;
                    if n == 0 {
                        break;
                    }
                    self.files[i].write(&chunk[..n])?;
                }
                drop(segment);
                fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            }
        }
        self.segmented.clear();
        Ok(())
    }
}
