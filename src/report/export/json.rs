//! `results.json` (the versioned aggregate results) and `batches.jsonl` (one per-batch record a line, what
//! `budgetlab merge` recombines shards from).

use super::{BatchCsv, Exporter};
use crate::error::Result;
use crate::run::{sha256_hex_bytes, BatchFilesSha256, RunOutput, BATCHES_JSONL};

/// `results.json`, pretty-printed, with the sha256 of the `batches.jsonl` and `batches.csv` written beside it
/// (serialized here too, since exporters are pure, so that the digests are of the very bytes written).
pub struct ResultsJson;

impl Exporter for ResultsJson {
    fn file_name(&self) -> &'static str {
        "results.json"
    }

    fn serialize(&self, run: &RunOutput) -> Result<Vec<u8>> {
        let mut results = run.results.clone();
        results.sha256 = Some(BatchFilesSha256 {
            batches_jsonl: sha256_hex_bytes(&BatchesJsonl.serialize(run)?),
            batches_csv: sha256_hex_bytes(&BatchCsv.serialize(run)?),
        });
        let mut out = serde_json::to_vec_pretty(&results).expect("results serialize");
        out.push(b'\n');
        Ok(out)
    }
}

/// `batches.jsonl`: every per-batch record, one JSON object a line.
pub struct BatchesJsonl;

impl Exporter for BatchesJsonl {
    fn file_name(&self) -> &'static str {
        BATCHES_JSONL
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
