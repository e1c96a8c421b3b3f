//! Exporters: each turns a run's output into the bytes of one file, and does no I/O of its own. The report
//! writer owns the files.

mod csv;
mod json;
mod markdown;

pub use self::csv::BatchCsv;
pub use self::json::{BatchesJsonl, ResultsJson};
pub use self::markdown::{duration, floor_ratio, needles_cell, pct, pct_opt, SummaryMarkdown};
pub(crate) use self::markdown::{token_compliance_cell, units_per_token_cell};

use crate::error::Result;
use crate::run::RunOutput;

/// One output format.
pub trait Exporter {
    /// The file name it is written to in the report folder.
    fn file_name(&self) -> &'static str;

    /// The file's bytes.
    fn serialize(&self, run: &RunOutput) -> Result<Vec<u8>>;
}

/// Every exporter a report folder gets, in writing order.
pub fn all() -> Vec<Box<dyn Exporter>> {
    vec![
        Box::new(ResultsJson),
        Box::new(BatchesJsonl),
        Box::new(BatchCsv),
        Box::new(SummaryMarkdown),
    ]
}
