//! Exporters: each turns a run's results, or its per-batch records, into the bytes of one file, and does no I/O of
//! its own. The report writer owns the files: it hands a [`RecordExporter`] the records a window at a time, so a
//! run of any size is written without holding its records.

mod csv;
mod json;
mod markdown;

pub use self::csv::BatchCsv;
pub use self::json::{BatchesJsonl, ResultsJson};
pub use self::markdown::{
    duration, figure_cell, floor_ratio, needles_cell, pct, pct_opt, SummaryMarkdown, TimeUnit,
};
pub(crate) use self::markdown::{token_compliance_cell, units_per_token_cell};

use crate::error::Result;
use crate::run::{BatchRecord, RunInputs, RunResults};

/// One file made from a run's results.
pub trait Exporter {
    /// The file name it is written to in the report folder.
    fn file_name(&self) -> &'static str;

    /// Writes the file's bytes, for `results` (which carry the sha256 of the per-batch files), to `out`.
    fn write(&self, results: &RunResults, out: &mut dyn std::io::Write) -> Result<()>;

    /// The file's bytes, for `results`.
    fn serialize(&self, results: &RunResults) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write(results, &mut out)?;
        Ok(out)
    }
}

/// One file of per-batch records: a header, then the records in run order, appended a few at a time.
pub trait RecordExporter {
    /// The file name it is written to in the report folder.
    fn file_name(&self) -> &'static str;

    /// The bytes the file starts with, for a run of `inputs` (maybe none).
    fn header(&self, inputs: &RunInputs) -> Result<Vec<u8>>;

    /// Appends the bytes of `records`, records of a run of `inputs`, to `out`.
    fn records(&self, inputs: &RunInputs, records: &[BatchRecord], out: &mut Vec<u8>)
        -> Result<()>;
}

/// Every exporter of the run's results a report folder gets, in writing order.
pub fn all() -> Vec<Box<dyn Exporter>> {
    vec![Box::new(ResultsJson), Box::new(SummaryMarkdown)]
}

/// Every exporter of per-batch records a report folder gets, in writing order.
pub fn record_files() -> Vec<Box<dyn RecordExporter + Send + Sync>> {
    vec![Box::new(BatchesJsonl), Box::new(BatchCsv)]
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// One batch of `pre-persisted` through the reference.
    pub(in crate::report) fn one_batch() -> crate::run::RunOutput {
        crate::run::PlanRequest {
            workloads: crate::run::Workloads::Scenarios(vec!["pre-persisted".into()]),
            strategies: vec!["reference".into()],
            batches: Some(1),
            ..Default::default()
        }
        .plan()
        .unwrap()
        .run(&|_| {})
    }

    /// The reference's row of one batch of `pre-persisted`, its figures set to known values.
    pub(in crate::report) fn known_row() -> crate::metrics::Aggregate {
        let mut r = one_batch().results.rows[0].clone();
        r.compliance.rate = 0.25;
        r.compliance.max_overshoot = 7;
        r.retention.mean = None;
        r.retention.budget_used = Some(0.5);
        r.needles.survival = Some(0.75);
        r.needles.upper_bound = Some(1.0);
        r.persistence.writes = 3;
        r.persistence.duplicate_writes = 1;
        r.persistence.recoverable = Some(1.0);
        let i = &mut r.integrity;
        (i.broken_surrogates, i.reordered, i.dropped, i.media_changed) = (0, 1, 2, 0);
        (
            i.reminders_changed,
            i.non_budgeted_changed,
            i.records_differ,
        ) = (0, 0, 1);
        r.cost.median_ns = 12_345;
        r.cost.floor_ratio = Some(2.5);
        r.tokens = None;
        r
    }

    #[test]
    fn a_report_folder_gets_its_files_in_writing_order() {
        let names: Vec<&str> = all().iter().map(|e| e.file_name()).collect();
        assert_eq!(names, ["results.json", "summary.md"]);
        let names: Vec<&str> = record_files().iter().map(|e| e.file_name()).collect();
        assert_eq!(names, ["batches.jsonl", "batches.csv"]);
    }

    #[test]
    fn serialize_gives_the_bytes_write_writes() {
        let run = one_batch();
        for exporter in all() {
            let mut written = Vec::new();
            exporter.write(&run.results, &mut written).unwrap();
            assert!(written.len() > 100, "{}", exporter.file_name());
            assert_eq!(exporter.serialize(&run.results).unwrap(), written);
        }
    }
}
