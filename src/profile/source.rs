//! What `budgetlab profile` reads: each SOURCE is a file of batches (JSON Lines, one batch a line, the format of
//! `run --batches-file`) or a scenario (a `.toml` file or a shipped scenario's name), resolved, bounded and
//! profiled into a [`ProfileReport`]. Every problem is an error naming the source (and the line of a batch).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{profile_batches, profile_scenario, Profile, SourceInfo, SourceKind};
use crate::batch_line::parse_batch_line;
use crate::error::{Error, Result};
use crate::model::{batches_text, Batch};
use crate::scenario::{check_batches, Scenario, MAX_BATCHES, SHIPPED};

/// What `budgetlab profile` is asked.
#[derive(Debug, Clone, Default)]
pub struct ProfileJob {
    /// The sources, each profiled on its own, in order.
    pub sources: Vec<String>,
    /// A source every other is compared with.
    pub compare: Option<String>,
    /// Batches per source: a scenario's first N (default: its own number), a file's first N (default: all,
    /// at most [`MAX_BATCHES`]).
    pub batches: Option<u64>,
}

/// The profiles of a `budgetlab profile` call: `profile.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileReport {
    /// [`super::PROFILE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// budgetlab's version.
    pub crate_version: String,
    /// One profile per source, in the order given.
    pub profiles: Vec<Profile>,
    /// The profile every source is compared with, when `--compare` was given.
    pub compare: Option<Profile>,
}

impl ProfileReport {
    /// `profile.json`: the report, pretty-printed, with a final newline (what `profile --json` prints).
    pub fn json(&self) -> Result<Vec<u8>> {
        let mut bytes = serde_json::to_vec_pretty(self)
            .map_err(|e| Error::io("profile.json", std::io::Error::other(e)))?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

impl ProfileJob {
    /// Checks the flags, reads every source and profiles it.
    pub fn run(&self) -> Result<ProfileReport> {
        if self.sources.is_empty() {
            return Err(Error::invalid("SOURCE", "", "give at least one source"));
        }
        if let Some(n) = self.batches {
            check_batches("--batches", n)?;
        }
        let profiles = self
            .sources
            .iter()
            .map(|s| self.profile(s))
            .collect::<Result<Vec<_>>>()?;
        let compare = self
            .compare
            .as_deref()
            .map(|s| self.profile(s))
            .transpose()?;
        Ok(ProfileReport {
            schema_version: super::PROFILE_SCHEMA_VERSION,
            crate_version: env!("CARGO_PKG_VERSION").into(),
            profiles,
            compare,
        })
    }

    fn profile(&self, arg: &str) -> Result<Profile> {
        match resolve(arg)? {
            Resolved::Scenario(s) => {
                let batches = self.batches.unwrap_or(s.batches);
                Ok(profile_scenario(&s, batches))
            }
            Resolved::File => {
                let (batches, digest) = read_batches_file(Path::new(arg), self.batches)?;
                let info = SourceInfo {
                    name: arg.to_string(),
                    kind: SourceKind::Recorded,
                    digest,
                    seed: None,
                    batches: batches.len() as u64,
                };
                Ok(profile_batches(info, &batches))
            }
        }
    }
}

enum Resolved {
    Scenario(Box<Scenario>),
    File,
}

/// A file that exists is a scenario when it ends in `.toml` and batches otherwise; a name that is no file is a
/// shipped scenario's, unless it looks like a path.
fn resolve(arg: &str) -> Result<Resolved> {
    let path = Path::new(arg);
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(Error::invalid(
            "SOURCE",
            arg,
            "is a folder; give a batches file (one batch a line) or a scenario",
        )),
        Ok(_) if arg.ends_with(".toml") => Ok(Resolved::Scenario(Box::new(Scenario::load(path)?))),
        Ok(_) => Ok(Resolved::File),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path, e)),
        Err(e) => {
            if let Some(s) = Scenario::shipped(arg) {
                return Ok(Resolved::Scenario(Box::new(s)));
            }
            if arg.contains('/') || arg.contains('.') {
                return Err(Error::io(path, e));
            }
            Err(Error::invalid(
                "SOURCE",
                arg,
                format!(
                    "no such file, and not a shipped scenario ({})",
                    SHIPPED
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ))
        }
    }
}

/// The batches of a file (one JSON array a line; blank lines skipped; a UTF-8 byte order mark at the start
/// skipped), the first `limit` of them, and the sha256 of its text. More than [`MAX_BATCHES`] lines without a
/// limit, no batch at all, text that is not UTF-8 and a line that is not a batch are errors naming the file and
/// the line.
pub fn read_batches_file(path: &Path, limit: Option<u64>) -> Result<(Vec<Batch>, String)> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let text = batches_text(&bytes, &name)?;
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    if lines.is_empty() {
        return Err(Error::invalid("SOURCE", &name, "holds no batch"));
    }
    let take = match limit {
        Some(n) => lines.len().min(usize::try_from(n).unwrap_or(usize::MAX)),
        None if lines.len() as u64 > MAX_BATCHES => {
            return Err(Error::invalid(
                "SOURCE",
                &name,
                format!(
                    "holds {} batches, more than {MAX_BATCHES}; --batches N profiles the first N",
                    lines.len()
                ),
            ))
        }
        None => lines.len(),
    };
    let batches = lines[..take]
        .iter()
        .map(|(i, l)| {
            parse_batch_line(l.as_bytes(), &format!("{name}:{}", i + 1)).map(|l| l.entries)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((batches, crate::digest::sha256_hex(text.as_bytes())))
}
