//! `budgetlab merge`: shards of one run, each a report folder, recombined into the output of the unsharded run.
//!
//! A shard's folder holds its `results.json` (whose inputs say which run and which shard it is) and its
//! `batches.jsonl` (one record per batch). The shards must describe the same run (the same scenarios with the same
//! digests, seeds, sizes and budgets, the same strategies, the same budgetlab version) and together hold every
//! shard number `0..N` once; each shard's `batches.jsonl` must be the file its `results.json` records the sha256
//! of, and every record must belong to its shard and appear once. The records are then put in
//! the order the unsharded run writes them, and the rows' summaries (which `results.json` holds, checked against
//! the row's figures on reading) are combined ([`RowSummaries::merge`]), so the merged report equals the unsharded
//! run's in everything but the `cost` figures.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use super::records::{sha256_of_file, RecordReader};
use super::{
    BatchRecord, Collected, RecordSink, RowSummaries, RunInputs, RunOutput, RunResults, ShardInfo,
    WorkloadInfo, BATCHES_JSONL,
};
use crate::error::{Error, Result};

/// One shard's report folder, as read back.
#[derive(Debug, Clone)]
pub struct ShardReport {
    /// The folder, as named in error messages.
    pub source: String,
    /// Its `results.json`.
    pub results: RunResults,
    /// Its records.
    pub records: ShardRecords,
}

/// The records of a shard: its `batches.jsonl`, read a line at a time while merging, or records in memory.
#[derive(Debug, Clone)]
pub enum ShardRecords {
    /// The `batches.jsonl` at this path, checked against `results.json` on loading; its sha256 is checked again
    /// as it is read, so a file changed in between is refused.
    File(PathBuf),
    /// Records in file order, each with its 1-based line number.
    Memory(Vec<(usize, BatchRecord)>),
}

impl FromIterator<(usize, BatchRecord)> for ShardRecords {
    fn from_iter<I: IntoIterator<Item = (usize, BatchRecord)>>(iter: I) -> Self {
        ShardRecords::Memory(iter.into_iter().collect())
    }
}

/// A shard's records being read, one pending at a time.
enum RecordStream {
    File {
        reader: Box<RecordReader<BufReader<File>>>,
        path: PathBuf,
        expected_sha: String,
    },
    Memory(std::vec::IntoIter<(usize, BatchRecord)>),
}

impl RecordStream {
    fn open(records: ShardRecords, results: &RunResults) -> Result<RecordStream> {
        Ok(match records {
            ShardRecords::Memory(v) => RecordStream::Memory(v.into_iter()),
            ShardRecords::File(path) => RecordStream::File {
                reader: Box::new(RecordReader::open(&path)?),
                expected_sha: results
                    .sha256
                    .as_ref()
                    .map(|s| s.batches_jsonl.clone())
                    .unwrap_or_default(),
                path,
            },
        })
    }

    fn next(&mut self) -> Result<Option<(usize, BatchRecord)>> {
        match self {
            RecordStream::Memory(it) => Ok(it.next()),
            RecordStream::File { reader, .. } => reader.next_record(),
        }
    }

    /// Reads the rest and checks the file is still the one loaded.
    fn finish(self) -> Result<()> {
        if let RecordStream::File {
            reader,
            path,
            expected_sha,
        } = self
        {
            let sha = reader.finish()?;
            if sha != expected_sha {
                return Err(Error::report(
                    path.display().to_string(),
                    "changed while it was being merged; merge again",
                ));
            }
        }
        Ok(())
    }
}

impl ShardReport {
    /// Reads `dir/results.json` and checks `dir/batches.jsonl` against the sha256 it records (reading it a block at
    /// a time); the records are read while merging.
    pub fn load(dir: &Path) -> Result<ShardReport> {
        if !dir.is_dir() {
            return Err(Error::report(
                dir.display().to_string(),
                "not a report folder (expected a folder written by budgetlab run --shard)",
            ));
        }
        let results = RunResults::load(&dir.join("results.json"))?;
        let path = dir.join(BATCHES_JSONL);
        results.verify_batches_sha256(&sha256_of_file(&path)?, &dir.display().to_string())?;
        Ok(ShardReport {
            source: dir.display().to_string(),
            results,
            records: ShardRecords::File(path),
        })
    }

    /// The shard this report holds (a whole run is shard 0 of 1).
    fn shard(&self) -> ShardInfo {
        self.results
            .inputs
            .shard
            .unwrap_or(ShardInfo { index: 0, count: 1 })
    }
}

/// Parses `batches.jsonl`: one [`BatchRecord`] a line, blank lines ignored, each held to the schema's ranges
/// ([`BatchRecord::parse_line`]). Errors name the line and the field.
pub fn parse_records(bytes: &[u8], source_name: &str) -> Result<Vec<(usize, BatchRecord)>> {
    let text = crate::model::jsonl_text(bytes).map_err(|(line, byte)| {
        Error::report(
            format!("{source_name}:{line}"),
            format!("not valid UTF-8 (byte {byte} of the line)"),
        )
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| BatchRecord::parse_line(line, source_name, i + 1).map(|r| (i + 1, r)))
        .collect()
}

/// Merges the shards of one run into the output of the unsharded run, held in memory, or says why they are not
/// that.
pub fn merge(shards: Vec<ShardReport>) -> Result<RunOutput> {
    let (results, collected) = merge_into(shards, |_| Ok(Collected::default()))?;
    Ok(RunOutput {
        results,
        records: collected.records,
    })
}

/// Merges the shards of one run, handing the records of the unsharded run, in its order, to the sink `make`
/// gives for the merged run's inputs (as [`super::RunPlan::run_into`] does); the results (without the files'
/// sha256) and the sink. The shards' records are read in step, a record pending per shard at most, so the memory
/// does not depend on the shards' size. Records missing, repeated, out of their shard or of no row of the run are
/// refused, naming the file and line.
pub fn merge_into<S: RecordSink>(
    shards: Vec<ShardReport>,
    make: impl FnOnce(&RunInputs) -> Result<S>,
) -> Result<(RunResults, S)> {
    let Some(first) = shards.first() else {
        return Err(Error::invalid(
            "merge",
            "",
            "name at least one shard folder",
        ));
    };
    let inputs = RunInputs {
        shard: None,
        ..first.results.inputs.clone()
    };
    let version = first.results.crate_version.clone();
    let count = first.shard().count;
    let mut seen: BTreeMap<u64, String> = BTreeMap::new();
    for shard in &shards {
        same_run(first, shard)?;
        if shard.results.crate_version != version {
            return Err(Error::report(
                &shard.source,
                format!(
                    "made by budgetlab {}, but {} by budgetlab {version}; rerun the shards with one version",
                    shard.results.crate_version, first.source
                ),
            ));
        }
        let info = shard.shard();
        if info.count != count {
            return Err(Error::report(
                &shard.source,
                format!(
                    "is shard {}/{}, but {} is one of {count} shards",
                    info.index, info.count, first.source
                ),
            ));
        }
        if let Some(other) = seen.insert(info.index, shard.source.clone()) {
            return Err(Error::report(
                &shard.source,
                format!(
                    "is shard {}/{count}, and so is {other}; name each shard once",
                    info.index
                ),
            ));
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|i| !seen.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::report(
            &first.source,
            format!("the run has {count} shards; missing {}", missing.join(", ")),
        ));
    }

    let index = RecordIndex::new(&inputs);
    let mut summaries = RowSummaries::new(&inputs);
    // Each shard's records, by shard number.
    let mut streams: BTreeMap<u64, Shard> = BTreeMap::new();
    for shard in shards {
        for (i, row) in shard.results.rows.iter().enumerate() {
            super::results::validate::agrees_with_summary(row).map_err(|m| {
                Error::report(
                    format!("{}/results.json", shard.source.trim_end_matches('/')),
                    format!("row {}: {m}", i + 1),
                )
            })?;
            summaries.merge(row);
        }
        let info = shard.shard();
        streams.insert(
            info.index,
            Shard {
                file: format!("{}/batches.jsonl", shard.source.trim_end_matches('/')),
                stream: RecordStream::open(shard.records, &shard.results)?,
                info,
                pending: None,
            },
        );
    }
    let mut sink = make(&inputs)?;
    let strategies = inputs.strategies.len();
    let mut run = Pending::default();
    let mut workload = None;
    for (w, b, s, batch) in index.expected() {
        if workload != Some(w) {
            run.flush(&mut sink)?;
            if workload.is_some() {
                sink.end_workload()?;
            }
            sink.begin_workload(inputs.scenarios[w].budgets.len() * strategies)?;
            workload = Some(w);
        }
        let owner = batch % count;
        let shard = streams.get_mut(&owner).expect("every shard was given");
        let next = shard.next_record(&index, &inputs)?;
        let missing = || {
            let scenario = &inputs.scenarios[w];
            Error::report(
                &shard.file,
                format!(
                    "shard {owner}/{count} holds no record of scenario {}, budget {}, strategy {}, batch {batch}; \
                     was its batches.jsonl cut short?",
                    scenario.name,
                    scenario.budgets[b].label,
                    inputs.strategies[s],
                ),
            )
        };
        let Some((line, key, record)) = next else {
            return Err(missing());
        };
        match key.cmp(&(w, b, s, batch)) {
            std::cmp::Ordering::Equal => {}
            std::cmp::Ordering::Greater => {
                let error = missing();
                shard.pending = Some((line, key, record));
                return Err(error);
            }
            // Every key of the shard before this one was taken already.
            std::cmp::Ordering::Less => {
                return Err(Error::report(
                    format!("{}:{line}", shard.file),
                    "a second record for the same scenario, budget, strategy and batch",
                ))
            }
        }
        run.push(b * strategies + s, record, &mut sink)?;
    }
    run.flush(&mut sink)?;
    if workload.is_some() {
        sink.end_workload()?;
    }
    for (_, mut shard) in streams {
        if let Some((line, _, _)) = shard.next_record(&index, &inputs)? {
            // Every key of the run was taken: a record beyond them repeats one.
            return Err(Error::report(
                format!("{}:{line}", shard.file),
                "a second record for the same scenario, budget, strategy and batch",
            ));
        }
        shard.stream.finish()?;
    }
    Ok((summaries.finish(inputs), sink))
}

/// A shard's records being merged.
struct Shard {
    /// Its `batches.jsonl`, as named in errors.
    file: String,
    stream: RecordStream,
    info: ShardInfo,
    /// A record read but not taken yet, with its line and key.
    pending: Option<(usize, RecordKey, BatchRecord)>,
}

/// Where a record goes in the unsharded run: scenario, budget, strategy (by position) and batch.
type RecordKey = (usize, usize, usize, u64);

impl Shard {
    /// The next record, checked to be of a row of the run, of this shard and with tokens as the run counts them.
    fn next_record(
        &mut self,
        index: &RecordIndex<'_>,
        inputs: &RunInputs,
    ) -> Result<Option<(usize, RecordKey, BatchRecord)>> {
        if let Some(p) = self.pending.take() {
            return Ok(Some(p));
        }
        let Some((line, record)) = self.stream.next()? else {
            return Ok(None);
        };
        let at = |message: String| Error::report(format!("{}:{line}", self.file), message);
        let key = index.key(&record).map_err(at)?;
        match (&inputs.tokens, &record.metrics.tokens) {
            (Some(_), None) => {
                return Err(at(
                    "metrics.tokens: absent, but the run counted tokens (inputs.tokens)".into(),
                ))
            }
            (None, Some(_)) => {
                return Err(at(
                    "metrics.tokens: present, but the run counted none (no inputs.tokens)".into(),
                ))
            }
            _ => {}
        }
        let batch = key.3;
        if batch % self.info.count != self.info.index {
            return Err(at(format!(
                "batch {batch} does not belong to shard {}/{}",
                self.info.index, self.info.count
            )));
        }
        Ok(Some((line, key, record)))
    }
}

/// Records of one group on their way to the sink, handed over a few hundred at a time.
#[derive(Default)]
struct Pending {
    group: usize,
    records: Vec<BatchRecord>,
}

impl Pending {
    const MAX: usize = 256;

    fn push(&mut self, group: usize, record: BatchRecord, sink: &mut dyn RecordSink) -> Result<()> {
        if group != self.group || self.records.len() >= Self::MAX {
            self.flush(sink)?;
            self.group = group;
        }
        self.records.push(record);
        Ok(())
    }

    fn flush(&mut self, sink: &mut dyn RecordSink) -> Result<()> {
        if !self.records.is_empty() {
            sink.records(self.group, &self.records)?;
            self.records.clear();
        }
        Ok(())
    }
}

/// Whether `shard` describes the same run as `first`; the error names the first difference.
fn same_run(first: &ShardReport, shard: &ShardReport) -> Result<()> {
    let (a, b) = (&first.results.inputs, &shard.results.inputs);
    let differ = |what: String| {
        Err(Error::report(
            &shard.source,
            format!("is not a shard of the same run as {}: {what}", first.source),
        ))
    };
    if a.strategies != b.strategies {
        return differ(format!(
            "strategies {} vs {}",
            b.strategies.join(","),
            a.strategies.join(",")
        ));
    }
    let names = |i: &RunInputs| {
        i.scenarios
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(",")
    };
    if names(a) != names(b) {
        return differ(format!("scenarios {} vs {}", names(b), names(a)));
    }
    for (x, y) in a.scenarios.iter().zip(&b.scenarios) {
        let differences = y.differences(x);
        if !differences.is_empty() {
            return differ(format!("scenario {}: {}", x.name, differences.join(", ")));
        }
    }
    if a.tokens != b.tokens {
        let describe = |t: &Option<crate::metrics::TokenSettings>| match t {
            None => "no tokenizer".to_string(),
            Some(t) => format!(
                "tokenizer {}{}",
                t.tokenizer,
                t.token_budget
                    .map_or(String::new(), |b| format!(" with token budget {b}"))
            ),
        };
        return differ(format!(
            "{} vs {}",
            describe(&b.tokens),
            describe(&a.tokens)
        ));
    }
    Ok(())
}

/// Positions of scenarios, budgets and strategies in the run's inputs: the order records are written in.
struct RecordIndex<'a> {
    inputs: &'a RunInputs,
    scenarios: BTreeMap<&'a str, usize>,
    strategies: BTreeMap<&'a str, usize>,
}

impl<'a> RecordIndex<'a> {
    fn new(inputs: &'a RunInputs) -> Self {
        RecordIndex {
            inputs,
            scenarios: inputs
                .scenarios
                .iter()
                .enumerate()
                .map(|(i, s)| (s.name.as_str(), i))
                .collect(),
            strategies: inputs
                .strategies
                .iter()
                .enumerate()
                .map(|(i, s)| (s.as_str(), i))
                .collect(),
        }
    }

    /// (scenario, budget, strategy, batch) of a record, or why it belongs to no row of the run.
    fn key(&self, r: &BatchRecord) -> std::result::Result<(usize, usize, usize, u64), String> {
        let &w = self.scenarios.get(r.scenario.as_str()).ok_or_else(|| {
            format!(
                "record of scenario {:?}, which the run does not have",
                r.scenario
            )
        })?;
        let info = &self.inputs.scenarios[w];
        let b = info
            .budgets
            .iter()
            .position(|b| b.label == r.budget_label)
            .ok_or_else(|| {
                format!(
                    "record at budget {:?}, which scenario {} does not have",
                    r.budget_label, info.name
                )
            })?;
        let units = info.budgets[b].units;
        if r.metrics.budget != Some(units) {
            return Err(format!(
                "record at budget {} with metrics.budget {}, but the budget is {units} units",
                r.budget_label,
                r.metrics
                    .budget
                    .map_or("null".to_string(), |b| b.to_string())
            ));
        }
        let &s = self.strategies.get(r.strategy.as_str()).ok_or_else(|| {
            format!(
                "record of strategy {:?}, which the run does not have",
                r.strategy
            )
        })?;
        let batch = r.metrics.batch as u64;
        if batch >= info.batches {
            return Err(format!(
                "batch {batch}, but scenario {} has {} batches",
                info.name, info.batches
            ));
        }
        Ok((w, b, s, batch))
    }

    /// Every key the unsharded run has a record for, in its order.
    fn expected(&self) -> impl Iterator<Item = (usize, usize, usize, u64)> + '_ {
        let strategies = self.inputs.strategies.len();
        self.inputs
            .scenarios
            .iter()
            .enumerate()
            .flat_map(move |(w, info)| {
                (0..info.budgets.len()).flat_map(move |b| {
                    (0..strategies).flat_map(move |s| (0..info.batches).map(move |i| (w, b, s, i)))
                })
            })
    }
}

impl WorkloadInfo {
    /// What differs between two descriptions of the same-named workload, one phrase a field (`seed 7 vs 8`);
    /// empty when they are equal.
    pub fn differences(&self, other: &WorkloadInfo) -> Vec<String> {
        let mut out = Vec::new();
        let mut field = |name: &str, a: String, b: String| {
            if a != b {
                out.push(format!("{name} {a} vs {b}"));
            }
        };
        field("name", self.name.clone(), other.name.clone());
        field("digest", short(&self.digest), short(&other.digest));
        field("source", self.source.to_string(), other.source.to_string());
        field("seed", self.seed.to_string(), other.seed.to_string());
        field(
            "batches",
            self.batches.to_string(),
            other.batches.to_string(),
        );
        field("mode", self.mode.to_string(), other.mode.to_string());
        field("legacy", self.legacy.to_string(), other.legacy.to_string());
        let labels = |w: &WorkloadInfo| {
            w.budgets
                .iter()
                .map(|b| format!("{}={}", b.label, b.units))
                .collect::<Vec<_>>()
                .join(",")
        };
        field("budgets", labels(self), labels(other));
        out
    }
}

/// The first 12 hex digits of a digest: enough to tell two apart in a message.
fn short(digest: &str) -> String {
    digest.chars().take(12).collect()
}

/// Which shards a set of shard reports holds, for messages: `0/3, 2/3`.
pub fn shard_list(shards: &[ShardReport]) -> String {
    let set: BTreeSet<(u64, u64)> = shards
        .iter()
        .map(|s| {
            let i = s.shard();
            (i.index, i.count)
        })
        .collect();
    set.into_iter()
        .map(|(i, n)| format!("{i}/{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{PlanRequest, Workloads};

    fn request(shard: Option<&str>) -> PlanRequest {
        PlanRequest {
            workloads: Workloads::Scenarios(vec!["surrogate-storm".into(), "pre-persisted".into()]),
            strategies: vec!["reference".into(), "greedy".into()],
            batches: Some(5),
            shard: shard.map(String::from),
            ..PlanRequest::default()
        }
    }

    fn shard(i: u64, n: u64) -> ShardReport {
        let out = request(Some(&format!("{i}/{n}")))
            .plan()
            .unwrap()
            .run(&|_| {});
        ShardReport {
            source: format!("shard-{i}"),
            results: out.results,
            records: out
                .records
                .into_iter()
                .enumerate()
                .map(|(k, r)| (k + 1, r))
                .collect(),
        }
    }

    /// A run's output with every cost figure zeroed.
    fn without_cost(mut out: RunOutput) -> RunOutput {
        for r in &mut out.records {
            (r.cost_ns, r.strategy_ns, r.floor_ns) = (0, 0, 0);
        }
        for row in &mut out.results.rows {
            let zero = crate::metrics::TurnCost {
                turn_ns: 0,
                strategy_ns: 0,
                floor_ns: 0,
            };
            row.cost = crate::metrics::CostSummary::from_turns(&vec![zero; row.batches as usize]);
        }
        // The fronts against cost rest on the timings: made again from the rows without them.
        out.results.pareto = crate::metrics::pareto::fronts(&out.results.rows);
        out
    }

    /// The records of a shard made in memory.
    fn mem(shard: &mut ShardReport) -> &mut Vec<(usize, BatchRecord)> {
        match &mut shard.records {
            ShardRecords::Memory(v) => v,
            ShardRecords::File(_) => unreachable!("shards of these tests are in memory"),
        }
    }

    fn message(err: Error) -> String {
        err.to_string()
    }

    #[test]
    fn shards_merge_into_the_unsharded_run() {
        let whole = without_cost(request(None).plan().unwrap().run(&|_| {}));
        let merged = without_cost(merge(vec![shard(2, 3), shard(0, 3), shard(1, 3)]).unwrap());
        assert_eq!(merged.results, whole.results);
        assert_eq!(merged.records, whole.records);
        assert_eq!(merged.results.inputs.shard, None);
    }

    #[test]
    fn a_whole_run_merges_into_itself() {
        let whole = without_cost(request(None).plan().unwrap().run(&|_| {}));
        let again = ShardReport {
            source: "whole".into(),
            results: whole.results.clone(),
            records: whole.records.iter().cloned().enumerate().collect(),
        };
        assert_eq!(
            without_cost(merge(vec![again]).unwrap()).results,
            whole.results
        );
    }

    #[test]
    fn missing_and_repeated_shards_are_named() {
        let err = message(merge(vec![shard(0, 3), shard(2, 3)]).unwrap_err());
        assert!(err.contains("missing 1/3"), "{err}");
        let err = message(merge(vec![shard(0, 2), shard(0, 2), shard(1, 2)]).unwrap_err());
        assert!(err.contains("is shard 0/2, and so is shard-0"), "{err}");
        let err = message(merge(vec![shard(0, 2), shard(1, 3)]).unwrap_err());
        assert!(
            err.contains("is shard 1/3, but shard-0 is one of 2 shards"),
            "{err}"
        );
        assert_eq!(shard_list(&[shard(1, 2), shard(0, 2)]), "0/2, 1/2");
    }

    #[test]
    fn shards_of_different_runs_are_refused() {
        let mut other = shard(1, 2);
        other.results.inputs.strategies.push("codex".into());
        let err = message(merge(vec![shard(0, 2), other]).unwrap_err());
        assert!(
            err.contains("not a shard of the same run as shard-0: strategies"),
            "{err}"
        );

        let mut other = shard(1, 2);
        other.results.inputs.scenarios[1].seed += 1;
        let err = message(merge(vec![shard(0, 2), other]).unwrap_err());
        assert!(err.contains("scenario pre-persisted: seed"), "{err}");

        let mut other = shard(1, 2);
        other.results.crate_version = "0.0.1".into();
        let err = message(merge(vec![shard(0, 2), other]).unwrap_err());
        assert!(err.contains("made by budgetlab 0.0.1"), "{err}");
    }

    #[test]
    fn records_must_belong_and_be_complete() {
        let mut cut = shard(1, 2);
        mem(&mut cut).pop();
        let err = message(merge(vec![shard(0, 2), cut]).unwrap_err());
        assert!(
            err.starts_with(
                "shard-1/batches.jsonl: shard 1/2 holds no record of scenario pre-persisted"
            ),
            "{err}"
        );
        // The shard missing a record is named whatever order the folders are given in.
        let mut cut = shard(0, 2);
        mem(&mut cut).remove(0);
        let err = message(merge(vec![shard(1, 2), cut]).unwrap_err());
        assert!(
            err.starts_with("shard-0/batches.jsonl: shard 0/2 holds no record"),
            "{err}"
        );

        let mut stray = shard(1, 2);
        mem(&mut stray)[0].1.metrics.batch = 0;
        let err = message(merge(vec![shard(0, 2), stray]).unwrap_err());
        assert!(
            err.contains("shard-1/batches.jsonl:1: batch 0 does not belong to shard 1/2"),
            "{err}"
        );

        let mut twice = shard(1, 2);
        let copy = mem(&mut twice)[0].clone();
        mem(&mut twice).push((99, copy.1));
        let err = message(merge(vec![shard(0, 2), twice]).unwrap_err());
        assert!(err.contains(":99: a second record"), "{err}");

        let mut unknown = shard(1, 2);
        mem(&mut unknown)[0].1.strategy = "codex".into();
        let err = message(merge(vec![shard(0, 2), unknown]).unwrap_err());
        assert!(
            err.contains("strategy \"codex\", which the run does not have"),
            "{err}"
        );
    }

    #[test]
    fn record_lines_are_parsed_with_their_numbers() {
        let mut out = shard(0, 1);
        let records = mem(&mut out).clone();
        let mut text = String::new();
        for (_, r) in &records[..2] {
            text.push_str(&serde_json::to_string(r).unwrap());
            text.push_str("\n\n");
        }
        let parsed = parse_records(text.as_bytes(), "b.jsonl").unwrap();
        assert_eq!(parsed[1].0, 3);
        // Every float reads back to the same bits (serde_json's float_roundtrip), so merging re-aggregates exactly.
        let all: String = records
            .iter()
            .map(|(_, r)| serde_json::to_string(r).unwrap() + "\n")
            .collect();
        let back: Vec<BatchRecord> = parse_records(all.as_bytes(), "b.jsonl")
            .unwrap()
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        let original: Vec<BatchRecord> = records.iter().map(|(_, r)| r.clone()).collect();
        assert_eq!(back, original);
        let err = parse_records(b"{}\n{\"scenario\":", "b.jsonl")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "b.jsonl:1: missing field `scenario` (column 2)");
        let err = parse_records(b"\n{\"scenario\":", "b.jsonl")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("b.jsonl: invalid JSON at line 2"), "{err}");
    }

    #[test]
    fn a_row_that_is_not_what_its_summary_gives_is_refused_naming_the_field() {
        let mut edited = shard(1, 2);
        let original = edited.results.rows[0].retention.mean.unwrap();
        edited.results.rows[0].retention.mean = Some(original / 2.0);
        let err = message(merge(vec![shard(0, 2), edited]).unwrap_err());
        assert_eq!(
            err,
            format!(
                "shard-1/results.json: row 1: retention.mean is not what its summary gives ({}); the file was \
                 edited",
                serde_json::json!(original)
            )
        );
    }

    /// What a sink was handed, call by call: a group's records as (budget label, strategy, batch).
    #[derive(Debug, Default)]
    struct Calls(Vec<String>);

    impl RecordSink for Calls {
        fn begin_workload(&mut self, groups: usize) -> Result<()> {
            self.0.push(format!("begin {groups}"));
            Ok(())
        }

        fn records(&mut self, group: usize, records: &[BatchRecord]) -> Result<()> {
            let list: Vec<String> = records
                .iter()
                .map(|r| format!("{} {} {}", r.budget_label, r.strategy, r.metrics.batch))
                .collect();
            self.0.push(format!("group {group}: {}", list.join(", ")));
            Ok(())
        }

        fn end_workload(&mut self) -> Result<()> {
            self.0.push("end".into());
            Ok(())
        }
    }

    #[test]
    fn the_sink_gets_each_group_whole_in_one_call_under_its_own_number() {
        let (_, calls) = merge_into(vec![shard(1, 3), shard(0, 3), shard(2, 3)], |_| {
            Ok(Calls::default())
        })
        .unwrap();
        // Group b x strategies + s holds budget b and strategy s; each of its 5 batches (fewer than the 256 a call
        // may hold) comes in the one call, in batch order.
        let inputs = shard(0, 3).results.inputs;
        let mut expected = Vec::new();
        for scenario in &inputs.scenarios {
            let strategies = &inputs.strategies;
            expected.push(format!(
                "begin {}",
                scenario.budgets.len() * strategies.len()
            ));
            for (b, budget) in scenario.budgets.iter().enumerate() {
                for (s, strategy) in strategies.iter().enumerate() {
                    let list: Vec<String> = (0..scenario.batches)
                        .map(|batch| format!("{} {strategy} {batch}", budget.label))
                        .collect();
                    expected.push(format!(
                        "group {}: {}",
                        b * strategies.len() + s,
                        list.join(", ")
                    ));
                }
            }
            expected.push("end".into());
        }
        assert_eq!(inputs.scenarios[0].batches, 5);
        assert!(inputs.scenarios[0].budgets.len() > 1);
        assert_eq!(calls.0, expected);
    }

    #[test]
    fn records_must_count_tokens_as_the_run_does() {
        // The run counted tokens, its records did not.
        let mut shards = vec![shard(0, 2), shard(1, 2)];
        for s in &mut shards {
            s.results.inputs.tokens = Some(crate::metrics::TokenSettings {
                tokenizer: "o200k_base".into(),
                token_budget: None,
            });
        }
        let err = message(merge(shards).unwrap_err());
        assert_eq!(
            err,
            "shard-0/batches.jsonl:1: metrics.tokens: absent, but the run counted tokens (inputs.tokens)"
        );
        // A record with tokens, in a run that counted none.
        let mut counted = shard(1, 2);
        mem(&mut counted)[0].1.metrics.tokens = Some(crate::metrics::TurnTokens {
            tokens: 1,
            units: 1,
            max_field_tokens: 1,
            by_kind: Default::default(),
        });
        let err = message(merge(vec![shard(0, 2), counted]).unwrap_err());
        assert_eq!(
            err,
            "shard-1/batches.jsonl:1: metrics.tokens: present, but the run counted none (no inputs.tokens)"
        );
    }

    /// Shard `i` of `n` written into `dir` (its records and results, as `run --shard` writes them), loaded.
    fn on_disk(i: u64, n: u64, dir: &Path) -> ShardReport {
        std::fs::create_dir_all(dir).unwrap();
        let out = request(Some(&format!("{i}/{n}")))
            .plan()
            .unwrap()
            .run(&|_| {});
        crate::run::testing::write_run_folder(dir, &out);
        ShardReport::load(dir).unwrap()
    }

    #[test]
    fn shard_folders_merge_as_in_memory_and_one_changed_meanwhile_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        let from_disk = without_cost(merge(vec![on_disk(0, 2, &a), on_disk(1, 2, &b)]).unwrap());
        let in_memory = without_cost(merge(vec![shard(0, 2), shard(1, 2)]).unwrap());
        assert_eq!(from_disk.results, in_memory.results);
        assert_eq!(from_disk.records, in_memory.records);
        // A file, and nothing at all, are not report folders.
        for path in [a.join("results.json"), tmp.path().join("none")] {
            let err = message(ShardReport::load(&path).unwrap_err());
            assert_eq!(
                err,
                format!(
                    "{}: not a report folder (expected a folder written by budgetlab run --shard)",
                    path.display()
                )
            );
        }
        // A blank line added to b's records after it was loaded: they read the same, but the file is not the one
        // whose sha256 was checked.
        let shards = vec![
            ShardReport::load(&a).unwrap(),
            ShardReport::load(&b).unwrap(),
        ];
        let records = b.join(BATCHES_JSONL);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&records)
            .unwrap();
        std::io::Write::write_all(&mut file, b"\n").unwrap();
        let err = message(merge(shards).unwrap_err());
        assert_eq!(
            err,
            format!(
                "{}: changed while it was being merged; merge again",
                records.display()
            )
        );
    }
}
