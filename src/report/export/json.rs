//! `results.json` (the versioned aggregate results) and `batches.jsonl` (one per-batch record a line, what
//! `budgetlab merge` recombines shards from).

use super::{Exporter, RecordExporter};
use crate::error::{Error, Result};
use crate::run::{BatchRecord, RunInputs, RunResults, BATCHES_JSONL};

/// `results.json`, pretty-printed; the results carry the sha256 of the `batches.jsonl` and `batches.csv` written
/// beside it, which the report writer computed from the very bytes written.
pub struct ResultsJson;

impl Exporter for ResultsJson {
    fn file_name(&self) -> &'static str {
        "results.json"
    }

    fn write(&self, results: &RunResults, out: &mut dyn std::io::Write) -> Result<()> {
        let failed = |e: std::io::Error| Error::io(self.file_name(), e);
        serde_json::to_writer_pretty(&mut *out, results).map_err(|e| failed(e.into()))?;
        out.write_all(b"\n").map_err(failed)
    }
}

/// `batches.jsonl`: every per-batch record, one JSON object a line.
pub struct BatchesJsonl;

impl RecordExporter for BatchesJsonl {
    fn file_name(&self) -> &'static str {
        BATCHES_JSONL
    }

    fn header(&self, _inputs: &RunInputs) -> Result<Vec<u8>> {
        Ok(Vec::new())
    }

    fn records(
        &self,
        _inputs: &RunInputs,
        records: &[BatchRecord],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        for record in records {
            serde_json::to_writer(&mut *out, record).expect("records serialize");
            out.push(b'\n');
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::one_batch;
    use super::*;

    #[test]
    fn batches_jsonl_is_one_record_a_line_with_no_header() {
        let run = one_batch();
        let inputs = &run.results.inputs;
        assert_eq!(BatchesJsonl.header(inputs).unwrap(), b"");
        let mut out = b"before\n".to_vec();
        BatchesJsonl
            .records(inputs, &run.records, &mut out)
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + run.records.len());
        assert_eq!(lines[0], "before");
        for (line, record) in lines[1..].iter().zip(&run.records) {
            assert_eq!(serde_json::from_str::<BatchRecord>(line).unwrap(), *record);
        }
        assert!(text.ends_with("}\n"));
    }
}
