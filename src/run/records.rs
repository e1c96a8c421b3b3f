//! Reading a `batches.jsonl` one line at a time: each line a [`BatchRecord`] held to the schema's ranges, the
//! file's sha256 computed from the bytes as they are read, so that `budgetlab report` and `budgetlab merge` read
//! a run's records of any size in the memory of one line. A line is at most [`MAX_RECORD_LINE`] bytes; a leading
//! byte order mark is skipped, blank lines are ignored and a line may end in `\r\n`, as in [`parse_records`].

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{BatchRecord, RunResults};
use crate::error::{Error, Result};

/// The longest line of a `batches.jsonl` read (64 MiB): a record is a few kilobytes.
pub const MAX_RECORD_LINE: usize = 64 << 20;

/// The records of a `batches.jsonl`, read a line at a time (see the module's description).
pub struct RecordReader<R> {
    input: R,
    source_name: String,
    /// Lines read so far.
    line: usize,
    hasher: Sha256,
    buffer: Vec<u8>,
    /// Whether the end of the input was reached.
    done: bool,
}

impl RecordReader<BufReader<File>> {
    /// Opens the file at `path` (named so in errors).
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(RecordReader::new(
            BufReader::with_capacity(1 << 16, file),
            &path.display().to_string(),
        ))
    }
}

impl<R: BufRead> RecordReader<R> {
    /// Reads `input`, named `source_name` in errors.
    pub fn new(input: R, source_name: &str) -> Self {
        RecordReader {
            input,
            source_name: source_name.into(),
            line: 0,
            hasher: Sha256::new(),
            buffer: Vec::new(),
            done: false,
        }
    }

    /// The next line's bytes into `buffer` (without its line break), hashed; `false` at the end.
    fn next_line(&mut self) -> Result<bool> {
        self.buffer.clear();
        if self.done {
            return Ok(false);
        }
        let limit = MAX_RECORD_LINE as u64 + 1;
        let n = (&mut self.input)
            .take(limit)
            .read_until(b'\n', &mut self.buffer)
            .map_err(|e| Error::io(&self.source_name, e))?;
        if n == 0 {
            self.done = true;
            return Ok(false);
        }
        self.hasher.update(&self.buffer);
        self.line += 1;
        if self.buffer.last() == Some(&b'\n') {
            self.buffer.pop();
            if self.buffer.last() == Some(&b'\r') {
                self.buffer.pop();
            }
        } else if self.buffer.len() > MAX_RECORD_LINE {
            return Err(Error::report(
                format!("{}:{}", self.source_name, self.line),
                format!("a line longer than {MAX_RECORD_LINE} bytes is no record"),
            ));
        }
        Ok(true)
    }

    /// The next record with its 1-based line number, blank lines skipped; `None` at the end.
    pub fn next_record(&mut self) -> Result<Option<(usize, BatchRecord)>> {
        while self.next_line()? {
            let mut bytes = &self.buffer[..];
            if self.line == 1 {
                bytes = crate::model::without_bom(bytes);
            }
            let text = std::str::from_utf8(bytes).map_err(|e| {
                Error::report(
                    format!("{}:{}", self.source_name, self.line),
                    format!("not valid UTF-8 (byte {} of the line)", e.valid_up_to() + 1),
                )
            })?;
            if text.trim().is_empty() {
                continue;
            }
            return BatchRecord::parse_line(text, &self.source_name, self.line)
                .map(|r| Some((self.line, r)));
        }
        Ok(None)
    }

    /// Reads the rest of the input without parsing it; the lowercase hex sha256 of the whole input.
    pub fn finish(mut self) -> Result<String> {
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            let n = self
                .input
                .read(&mut chunk)
                .map_err(|e| Error::io(&self.source_name, e))?;
            if n == 0 {
                break;
            }
            self.hasher.update(&chunk[..n]);
        }
        Ok(crate::digest::hex(&self.hasher.finalize().into()))
    }
}

/// Reads the `batches.jsonl` of the report folder `dir` (whose `results.json` is `results`), handing `each` every
/// record in file order, and checks the file against the sha256 `results` records. A file that is not the one
/// the run wrote is refused whatever its lines hold (the error names the folder); otherwise the first bad line
/// (named by file and line) or the first error of `each` is the error.
pub fn for_each_record(
    dir: &Path,
    results: &RunResults,
    mut each: impl FnMut(usize, BatchRecord) -> Result<()>,
) -> Result<()> {
    let mut reader = RecordReader::open(&dir.join(super::BATCHES_JSONL))?;
    let mut first_error = None;
    loop {
        match reader.next_record() {
            Ok(Some((line, record))) => {
                if let Err(e) = each(line, record) {
                    first_error = Some(e);
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                first_error = Some(e);
                break;
            }
        }
    }
    let sha = reader.finish()?;
    results.verify_batches_sha256(&sha, &dir.display().to_string())?;
    first_error.map_or(Ok(()), Err)
}

/// The sha256 (lowercase hex) of the file at `path`, read a block at a time.
pub fn sha256_of_file(path: &Path) -> Result<String> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut chunk).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&chunk[..n]);
    }
    Ok(crate::digest::hex(&hasher.finalize().into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::parse_records;

    fn records() -> Vec<BatchRecord> {
        crate::run::PlanRequest {
            workloads: crate::run::Workloads::Scenarios(vec!["pre-persisted".into()]),
            strategies: vec!["reference".into(), "codex".into()],
            batches: Some(3),
            ..Default::default()
        }
        .plan()
        .unwrap()
        .run(&|_| {})
        .records
    }

    fn jsonl(records: &[BatchRecord]) -> Vec<u8> {
        let mut out = Vec::new();
        for r in records {
            serde_json::to_writer(&mut out, r).unwrap();
            out.push(b'\n');
        }
        out
    }

    fn read_all(bytes: &[u8]) -> Result<(Vec<(usize, BatchRecord)>, String)> {
        let mut reader = RecordReader::new(bytes, "b.jsonl");
        let mut out = Vec::new();
        while let Some(r) = reader.next_record()? {
            out.push(r);
        }
        Ok((out, reader.finish()?))
    }

    #[test]
    fn reads_what_parse_records_reads_and_hashes_every_byte() {
        let records = records();
        let mut bytes = crate::model::BOM.to_vec();
        let body = jsonl(&records);
        let text = String::from_utf8(body).unwrap();
        // A blank line, CRLF endings and a last line without a line break.
        let text = text.replacen('\n', "\r\n\n", 1);
        bytes.extend(text.trim_end().as_bytes());
        let (read, sha) = read_all(&bytes).unwrap();
        assert_eq!(read, parse_records(&bytes, "b.jsonl").unwrap());
        assert_eq!(read.len(), records.len());
        assert_eq!(read[1].0, 3);
        assert_eq!(sha, crate::digest::sha256_hex(&bytes));
    }

    #[test]
    fn a_line_of_the_longest_length_is_one_record_and_a_byte_more_is_refused() {
        let records = records();
        let one = jsonl(&records[..1]);
        // The first record padded with spaces (JSON whitespace) to exactly the longest line, then the same again.
        let mut line = one[..one.len() - 1].to_vec();
        line.resize(MAX_RECORD_LINE, b' ');
        let mut bytes = line.clone();
        bytes.push(b'\n');
        bytes.extend(&one);
        let (read, _) = read_all(&bytes).unwrap();
        assert_eq!(read, [(1, records[0].clone()), (2, records[0].clone())]);
        // The same as a last line, with no line break.
        assert_eq!(read_all(&line).unwrap().0, [(1, records[0].clone())]);
        line.extend(b" \n");
        let err = read_all(&line).unwrap_err().to_string();
        assert_eq!(
            err,
            format!("b.jsonl:1: a line longer than {MAX_RECORD_LINE} bytes is no record")
        );
    }

    #[test]
    fn a_file_is_hashed_whole_a_block_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        // Empty, shorter than a block, and over two blocks of 64 KiB.
        for len in [0, 5, (1 << 17) + 3] {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            assert_eq!(
                sha256_of_file(&path).unwrap(),
                crate::digest::sha256_hex(&bytes),
                "{len} bytes"
            );
        }
    }

    #[test]
    fn each_record_of_a_report_folder_is_handed_over_and_the_file_checked() {
        let dir = tempfile::tempdir().unwrap();
        let plan = crate::run::PlanRequest {
            workloads: crate::run::Workloads::Scenarios(vec!["pre-persisted".into()]),
            strategies: vec!["reference".into(), "codex".into()],
            batches: Some(3),
            ..Default::default()
        }
        .plan()
        .unwrap();
        let results = crate::run::testing::write_run_folder(dir.path(), &plan.run(&|_| {}));
        let mut seen = Vec::new();
        for_each_record(dir.path(), &results, |line, r| {
            seen.push((line, r));
            Ok(())
        })
        .unwrap();
        let written = std::fs::read(dir.path().join(crate::run::BATCHES_JSONL)).unwrap();
        assert_eq!(seen, parse_records(&written, "b.jsonl").unwrap());
        assert_eq!(seen.len() as u64, plan.turns());
        // The first error of `each` is the error.
        let err = for_each_record(dir.path(), &results, |line, _| {
            Err(Error::report("each", format!("line {line}")))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "each: line 1");
        // A file that is not the one written is refused, naming the folder.
        std::fs::write(
            dir.path().join(crate::run::BATCHES_JSONL),
            [written, b"\n".to_vec()].concat(),
        )
        .unwrap();
        let err = for_each_record(dir.path(), &results, |_, _| Ok(())).unwrap_err();
        assert!(
            err.to_string().starts_with(&format!(
                "{}: batches.jsonl is not the file this run wrote",
                dir.path().display()
            )),
            "{err}"
        );
    }

    #[test]
    fn a_bad_line_is_named_as_parse_records_names_it() {
        let records = records();
        let mut bytes = jsonl(&records[..2]);
        bytes.extend(b"{\"scenario\": \xff}\n");
        let streamed = read_all(&bytes).unwrap_err().to_string();
        let whole = parse_records(&bytes, "b.jsonl").unwrap_err().to_string();
        assert_eq!(streamed, whole);
        assert!(streamed.contains("b.jsonl:3"), "{streamed}");

        let mut bytes = jsonl(&records[..1]);
        bytes.extend(b"{\"scenario\": 1}\n");
        let streamed = read_all(&bytes).unwrap_err().to_string();
        assert_eq!(
            streamed,
            parse_records(&bytes, "b.jsonl").unwrap_err().to_string()
        );
    }
}
