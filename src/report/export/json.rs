//! `results.json` (the versioned aggregate results) and `batches.jsonl` (one per-batch record a line, what
//! `budgetlab merge` recombines shards from).

use super::Exporter;
use crate::error::Result;
use crate::run::RunOutput;

/// `results.json`, pretty-printed.
pub struct ResultsJson;

impl Exporter for ResultsJson {
    fn file_name(&self) -> &'static str {
        "results.json"
    }

    fn serialize(&self, run: &RunOutput) -> Result<Vec<u8>> {
        let mut out = serde_json::to_vec_pretty(&run.results).expect("results serialize");
        out.push(b'\n');
        Ok(out)
    }
}

/// `batches.jsonl`: every per-batch record, one JSON object a line.
pub struct BatchesJsonl;

impl Exporter for BatchesJsonl {
    fn file_name(&self) -> &'static str {
        "batches.jsonl"
    }

    fn serialize(&self, run: &RunOutput) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        for record in &run.records {
            serde_json::to_writer(&mut out, record).expect("records serialize");
            out.push(b'\n');
        }
        Ok(out)
    }
}
