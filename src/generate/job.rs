//! A generate job: which batches of a scenario to write (all of them, or one shard), and writing them as JSON
//! Lines (one batch per line, the format `budgetlab finalize` reads) with the needles beside them.

use std::io::Write;
use std::path::Path;
use std::str::FromStr;

use serde::Serialize;

use super::{GeneratedBatch, Generator};
use crate::atomic::{self, AtomicFile, Destination};
use crate::error::{Error, Result};
use crate::needles::Needle;
use crate::scenario::{check_batches, Scenario};

/// One shard of a run: batch `i` belongs to shard `i % count`. The shards `0..count` together hold exactly the
/// batches of the unsharded run, with the same global batch numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard's number, `0..count`.
    pub index: u64,
    /// How many shards the run is split into.
    pub count: u64,
}

impl Shard {
    /// The whole run as one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Whether batch `batch` belongs to this shard.
    pub fn contains(&self, batch: u64) -> bool {
        batch % self.count == self.index
    }

    /// The batch numbers of this shard among `0..batches`, in order.
    pub fn batches(&self, batches: u64) -> impl Iterator<Item = u64> {
        (self.index..batches).step_by(self.count as usize)
    }
}

/// Most shards a run may be split into.
pub const MAX_SHARDS: u64 = u32::MAX as u64;

impl FromStr for Shard {
    type Err = Error;

    /// Parses `I/N` with `1 <= N <= MAX_SHARDS` and `I < N`.
    fn from_str(s: &str) -> Result<Shard> {
        let bad = |reason: &str| Error::invalid("--shard", s, reason);
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| bad("expected I/N, e.g. 0/4"))?;
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(i) || !digits(n) {
            return Err(bad("expected I/N with decimal numbers, e.g. 0/4"));
        }
        let too_many = format!("the shard count is too large: at most {MAX_SHARDS}");
        let count = n
            .parse::<u64>()
            .ok()
            .filter(|&c| c <= MAX_SHARDS)
            .ok_or_else(|| bad(&too_many))?;
        if count == 0 {
            return Err(bad("the shard count must be at least 1"));
        }
        match i.parse::<u64>() {
            Ok(index) if index < count => Ok(Shard { index, count }),
            _ => Err(bad("shards are numbered 0 to N-1")),
        }
    }
}

/// What `generate` is asked for, before validation: a scenario and what replaces its own settings.
#[derive(Debug, Clone, Default)]
pub struct GenerateRequest {
    /// A scenario file, or the name of a shipped scenario.
    pub scenario: String,
    /// A seed replacing the scenario's.
    pub seed: Option<u64>,
    /// A number of batches replacing the scenario's (1 to [`MAX_BATCHES`](crate::scenario::MAX_BATCHES)).
    pub batches: Option<u64>,
    /// The shard to write (`I/N`); every batch when `None`.
    pub shard: Option<String>,
    /// Whether each batch is written with its turn context and group (the object form of a batch line).
    pub context: bool,
}

impl GenerateRequest {
    /// Validates the request into a job: the scenario resolved, the seed and batches applied, the shard parsed.
    pub fn job(&self) -> Result<GenerateJob> {
        let mut scenario = Scenario::resolve(&self.scenario)?.with_seed(self.seed);
        if let Some(batches) = self.batches {
            scenario.batches = check_batches("--batches", batches)?;
        }
        let shard = match &self.shard {
            Some(s) => s.parse()?,
            None => Shard::WHOLE,
        };
        Ok(GenerateJob {
            scenario,
            shard,
            context: self.context,
        })
    }
}

/// A validated generate run.
#[derive(Debug, Clone)]
pub struct GenerateJob {
    /// The scenario (with `--seed` and `--batches` already applied).
    pub scenario: Scenario,
    /// The shard to write.
    pub shard: Shard,
    /// Whether each batch is written with its turn context and group (`{"entries", "context", "group"}`)
    /// rather than as its array of entries alone.
    pub context: bool,
}

/// What a job wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GenerateStats {
    /// Batches written.
    pub batches: u64,
    /// Entries (results) written.
    pub entries: u64,
    /// Needles planted.
    pub needles: u64,
    /// UTF-8 bytes of the text fields generated.
    pub text_bytes: u64,
}

#[derive(Serialize)]
struct NeedleLine<'a> {
    batch: u64,
    needles: &'a [Needle],
}

impl GenerateJob {
    /// The batches of this job, generated in order.
    pub fn batches(&self) -> impl Iterator<Item = GeneratedBatch> + '_ {
        let generator = Generator::new(&self.scenario);
        self.shard
            .batches(self.scenario.batches)
            .map(move |i| generator.batch(i))
    }

    /// Writes one batch per line to `batches`, and `{"batch": i, "needles": [..]}` per line to `needles`.
    pub fn write(
        &self,
        batches: &mut dyn Write,
        needles: Option<&mut dyn Write>,
    ) -> std::io::Result<GenerateStats> {
        self.write_parts(Some(batches), needles).map_err(|(_, e)| e)
    }
}

impl GenerateJob {
    /// Writes the batches to `out` (standard output when `None` or `-`) and the needles to `needles` if given
    /// (`-` is standard output too), both or neither: the files are written first, in one pass, and committed
    /// together (see [`atomic::commit_all`]); what goes out as it is written (standard output, a FIFO, a device,
    /// a socket) is written after that, in a second pass over the same batches. The same place for both is
    /// refused.
    pub fn write_outputs(
        &self,
        out: Option<&Path>,
        needles: Option<&Path>,
    ) -> Result<GenerateStats> {
        let out = out.unwrap_or(Path::new(atomic::STDOUT));
        let batches_to = Destination::resolve(out)?;
        let needles_to = needles
            .map(|path| Destination::resolve(path).map(|d| (path, d)))
            .transpose()?;
        if let Some((path, to)) = &needles_to {
            if to.same_as(&batches_to) {
                return Err(Error::invalid(
                    "--needles",
                    path.display().to_string(),
                    format!(
                        "the same file as --out {}; give each its own",
                        out.display()
                    ),
                ));
            }
        }
        let outputs: Vec<(Part, &Path, Destination)> =
            std::iter::once((Part::Batches, out, batches_to))
                .chain(needles_to.map(|(path, to)| (Part::Needles, path, to)))
                .collect();
        let (streams, files): (Vec<_>, Vec<_>) =
            outputs.into_iter().partition(|(_, _, to)| to.is_stream());
        let mut stats = GenerateStats::default();
        for outputs in [files, streams] {
            if outputs.is_empty() {
                continue;
            }
            let mut opened = outputs
                .into_iter()
                .map(|(part, path, to)| Ok((part, AtomicFile::open(path, to)?)))
                .collect::<Result<Vec<_>>>()?;
            let (mut batches, mut needles) = (None, None);
            for (part, file) in opened.iter_mut() {
                match part {
                    Part::Batches => batches = Some(file),
                    Part::Needles => needles = Some(file),
                }
            }
            let failed = |file: &Option<&mut AtomicFile>| {
                file.as_ref()
                    .map(|f| f.dest().to_path_buf())
                    .unwrap_or_default()
            };
            let written = self.write_parts(
                batches.as_deref_mut().map(|f| f as &mut dyn Write),
                needles.as_deref_mut().map(|f| f as &mut dyn Write),
            );
            match written {
                // Both passes go over the same batches: the counts are the same.
                Ok(s) => stats = s,
                Err((Part::Batches, e)) => return Err(Error::io(failed(&batches), e)),
                Err((Part::Needles, e)) => return Err(Error::io(failed(&needles), e)),
            }
            atomic::commit_all(opened.into_iter().map(|(_, f)| f).collect())?;
        }
        Ok(stats)
    }

    /// [`GenerateJob::write`] with either output left out (and not serialized); an error says which output
    /// failed.
    fn write_parts(
        &self,
        mut batches: Option<&mut dyn Write>,
        mut needles: Option<&mut dyn Write>,
    ) -> std::result::Result<GenerateStats, (Part, std::io::Error)> {
        let mut stats = GenerateStats::default();
        for g in self.batches() {
            if let Some(w) = batches.as_deref_mut() {
                let written = if self.context {
                    let line = crate::batch_line::BatchLine {
                        entries: g.batch.clone(),
                        context: g.context.clone(),
                        group: g.group.clone(),
                    };
                    serde_json::to_writer(&mut *w, &line)
                } else {
                    serde_json::to_writer(&mut *w, &g.batch)
                };
                written
                    .map_err(std::io::Error::from)
                    .and_then(|()| w.write_all(b"\n"))
                    .map_err(|e| (Part::Batches, e))?;
            }
            if let Some(w) = needles.as_deref_mut() {
                let line = NeedleLine {
                    batch: g.index,
                    needles: &g.needles,
                };
                serde_json::to_writer(&mut *w, &line)
                    .map_err(std::io::Error::from)
                    .and_then(|()| w.write_all(b"\n"))
                    .map_err(|e| (Part::Needles, e))?;
            }
            stats.batches += 1;
            stats.entries += g.batch.len() as u64;
            stats.needles += g.needles.len() as u64;
            stats.text_bytes += g.text_bytes() as u64;
        }
        Ok(stats)
    }
}

/// The two outputs of a generate job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Batches,
    Needles,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_shards() {
        assert_eq!("0/1".parse::<Shard>().unwrap(), Shard::WHOLE);
        assert_eq!(
            "3/4".parse::<Shard>().unwrap(),
            Shard { index: 3, count: 4 }
        );
        for bad in ["4/4", "1/0", "a/2", "1", "-1/2", "1/2/3", " 1/2", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let reason = |s: &str| match s.parse::<Shard>().unwrap_err() {
            Error::InvalidValue { reason, .. } => reason,
            other => panic!("{other}"),
        };
        let too_large = "the shard count is too large: at most 4294967295";
        assert_eq!(reason("0/18446744073709551615"), too_large);
        assert_eq!(reason("0/99999999999999999999999"), too_large);
        assert_eq!(reason("0/4294967296"), too_large);
        assert_eq!(
            "4294967294/4294967295".parse::<Shard>().unwrap().index,
            4_294_967_294
        );
        assert_eq!(reason("1/0"), "the shard count must be at least 1");
        assert_eq!(
            reason("99999999999999999999999/4"),
            "shards are numbered 0 to N-1"
        );
    }

    #[test]
    fn a_request_applies_its_seed_and_batches_and_parses_its_shard() {
        let plain = GenerateRequest {
            scenario: "many-small".into(),
            ..GenerateRequest::default()
        }
        .job()
        .unwrap();
        let shipped = Scenario::shipped("many-small").unwrap();
        assert_eq!(
            (plain.scenario.seed, plain.shard),
            (shipped.seed, Shard::WHOLE)
        );
        assert_eq!(plain.scenario.batches, shipped.batches);
        let job = GenerateRequest {
            scenario: "many-small".into(),
            seed: Some(shipped.seed.0 + 1),
            batches: Some(3),
            shard: Some("1/2".into()),
            context: false,
        }
        .job()
        .unwrap();
        assert_eq!(job.scenario.seed.0, shipped.seed.0 + 1);
        assert_eq!(job.scenario.batches, 3);
        assert_eq!(job.shard, Shard { index: 1, count: 2 });
        assert_eq!(job.batches().map(|g| g.index).collect::<Vec<_>>(), [1]);
        let bad = |request: GenerateRequest| request.job().unwrap_err().to_string();
        let zero = bad(GenerateRequest {
            scenario: "many-small".into(),
            batches: Some(0),
            ..GenerateRequest::default()
        });
        assert!(zero.starts_with("invalid --batches \"0\""), "{zero}");
        let shard = bad(GenerateRequest {
            scenario: "many-small".into(),
            shard: Some("2/2".into()),
            ..GenerateRequest::default()
        });
        assert!(shard.starts_with("invalid --shard \"2/2\""), "{shard}");
    }

    #[test]
    fn shards_partition_the_run() {
        let mut all: Vec<u64> = (0..3)
            .flat_map(|i| Shard { index: i, count: 3 }.batches(10).collect::<Vec<_>>())
            .collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert_eq!(
            Shard { index: 1, count: 3 }.batches(10).collect::<Vec<_>>(),
            [1, 4, 7]
        );
        assert!(Shard { index: 1, count: 3 }.contains(7));
    }
}
