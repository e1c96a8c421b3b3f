//! `budgetlab import`: agent session logs in, batches out, one batch a line in the format `finalize` and
//! `run --batches-file` read.
//!
//! A batch is the tool results that answer the calls of one model turn (one assistant response), in call order,
//! each result's text exactly as the model received it. Each supported agent is a [`SessionFormat`] in its own
//! file (registered once in [`FORMATS`]); the shared pieces are the folder walk (files and folders to sessions,
//! in sorted order), detection (which format a file is, for `--format auto`), the turn grouping of [`Turns`],
//! bounded reading ([`MAX_LINE_BYTES`], [`MAX_DOCUMENT_BYTES`]) and the [`Anonymizer`]. [`ImportJob`] ties them
//! together: it reads every session, counts what it skipped and why, and writes the batches atomically.

mod anonymize;
mod claude_code;
mod codex;
mod detect;
mod gemini_cli;
mod mini_swe_agent;
mod openhands;
mod pyrepr;
mod qwen_code;
mod read;
mod swe_agent;
mod turns;
mod used;
mod walk;

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::atomic::AtomicFile;
use crate::batch_line::{BatchGroup, BatchLine};
use crate::context::TurnContext;
use crate::error::{Error, Result};
use crate::model::{Batch, Entry};
use crate::needles::{used_path_for, UsedRules};
use crate::rng::Seed;

pub use anonymize::{Anonymizer, KEPT_SUFFIXES, KEPT_UNITS, KEYWORDS};
pub use read::{Source, Tally, MAX_DOCUMENT_BYTES, MAX_LINE_BYTES};
pub use turns::{ImportedBatch, ImportedEntry, ToolResult, Turns};
pub use used::UsedTally;
pub use walk::MAX_WALK_DEPTH;

/// The most output `import` buffers for standard output (256 MiB): standard output is written only once every
/// session has been read, so that a malformed file leaves nothing half-written there either. Use `--out FILE`
/// beyond it.
pub const MAX_STDOUT_BYTES: usize = 256 << 20;

/// One agent's session log format.
pub trait SessionFormat: Sync {
    /// Its name on the command line (`claude-code`).
    fn name(&self) -> &'static str;
    /// Whether a folder walk picks up a file of this name for this format.
    fn wants_file(&self, file_name: &str) -> bool;
    /// Whether one JSON Lines record is unmistakably of this format.
    fn sniff_line(&self, _line: &Map<String, Value>) -> bool {
        false
    }
    /// Whether a whole JSON document is of this format.
    fn sniff_document(&self, _doc: &Value) -> bool {
        false
    }
    /// Reads one session: its calls grouped by model turn and their results, counting what it skips.
    fn read(&self, source: &Source, tally: &mut Tally) -> Result<Turns>;
}

/// Every supported format, in the order `--help` lists them.
pub static FORMATS: &[&dyn SessionFormat] = &[
    &claude_code::ClaudeCode,
    &codex::Codex,
    &gemini_cli::GeminiCli,
    &qwen_code::QwenCode,
    &swe_agent::SweAgent,
    &mini_swe_agent::MiniSweAgent,
    &openhands::OpenHands,
];

/// The formats' names, in [`FORMATS`] order, joined by `, `: what `--format` takes besides `auto`.
pub fn format_names() -> String {
    let names: Vec<&str> = FORMATS.iter().map(|f| f.name()).collect();
    names.join(", ")
}

/// The format called `name`.
pub fn format_named(name: &str) -> Option<&'static dyn SessionFormat> {
    FORMATS.iter().copied().find(|f| f.name() == name)
}

/// What `--format` asks for: one format, or detection per file.
#[derive(Clone, Copy)]
pub enum FormatChoice {
    /// Detect each file's format, and say what was detected.
    Auto,
    /// Every file is of this format.
    Only(&'static dyn SessionFormat),
}

impl std::fmt::Debug for FormatChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FormatChoice::Auto => "auto",
            FormatChoice::Only(format) => format.name(),
        })
    }
}

impl std::str::FromStr for FormatChoice {
    type Err = Error;

    fn from_str(s: &str) -> Result<FormatChoice> {
        if s == "auto" {
            return Ok(FormatChoice::Auto);
        }
        format_named(s).map(FormatChoice::Only).ok_or_else(|| {
            Error::invalid(
                "--format",
                s,
                format!("expected one of {}, or auto", format_names()),
            )
        })
    }
}

/// Reads one session of a known format into its batches (no cross-file deduplication, no anonymization).
pub fn import_source(
    format: &dyn SessionFormat,
    source: &Source,
    tally: &mut Tally,
) -> Result<Vec<Batch>> {
    let turns = format.read(source, tally)?;
    Ok(turns
        .into_batches(tally)
        .into_iter()
        .map(|b| b.entries.into_iter().map(|e| e.entry).collect())
        .collect())
}

/// What `budgetlab import` does.
#[derive(Debug, Clone)]
pub struct ImportJob {
    /// The format of the logs, or detection per file.
    pub format: FormatChoice,
    /// Files and folders (walked recursively, in sorted order).
    pub paths: Vec<PathBuf>,
    /// Anonymize the results with this seed.
    pub anonymize: Option<Seed>,
    /// Skip (and count) malformed files instead of stopping at the first one.
    pub skip_bad: bool,
    /// How the lines the agent used are found (see [`crate::needles::used_content`]).
    pub used: UsedRules,
}

/// One session that was imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// The file (or OpenHands event folder).
    pub path: PathBuf,
    /// Its format.
    pub format: &'static str,
    /// Batches written from it.
    pub batches: u64,
    /// Results (batch entries) written from it.
    pub results: u64,
}

/// What an import read, wrote and skipped.
#[derive(Debug, Clone, Default)]
pub struct ImportReport {
    /// Whether formats were detected per file (`--format auto`).
    pub detected: bool,
    /// Every session imported, in the order written.
    pub files: Vec<FileReport>,
    /// Files met in folders that are not sessions of the asked format (or of any format, with `auto`).
    pub ignored: Vec<PathBuf>,
    /// Malformed files skipped with `--skip-bad`, with the error (which names file and line).
    pub bad: Vec<String>,
    /// Batches written.
    pub batches: u64,
    /// Results written.
    pub results: u64,
    /// What was skipped, by reason.
    pub tally: Tally,
    /// Where the batches went.
    pub destination: String,
    /// What the used-lines pass found, by format (empty when no used-lines file was written).
    pub used: BTreeMap<&'static str, UsedTally>,
    /// Where the used lines went, when they were written.
    pub used_destination: Option<String>,
    /// The rules the used lines were found with.
    pub used_rules: UsedRules,
}

impl ImportReport {
    /// The report in brief for standard error: what was read and written, then, when anything was left out, one
    /// line counting it (what [`ImportReport::summary`] lists), then the used lines' line.
    pub fn brief(&self) -> Vec<String> {
        let mut lines = vec![self.read_and_written()];
        let mut left_out = Vec::new();
        if !self.ignored.is_empty() {
            left_out.push(format!(
                "ignored {} files that are not session logs",
                self.ignored.len()
            ));
        }
        let skipped: u64 = self.tally.skipped.values().sum();
        if skipped > 0 {
            left_out.push(format!(
                "skipped {skipped} results ({} reasons)",
                self.tally.skipped.len()
            ));
        }
        if !self.bad.is_empty() {
            left_out.push(format!(
                "skipped {} malformed files (--skip-bad)",
                self.bad.len()
            ));
        }
        if self.tally.repaired_surrogates > 0 {
            left_out.push(format!(
                "replaced {} lone surrogate escapes with U+FFFD",
                self.tally.repaired_surrogates
            ));
        }
        if !left_out.is_empty() {
            lines.push(format!("{}; --verbose lists them", left_out.join(", ")));
        }
        // The used lines' summary, and the formats whose sessions could not be measured (a warning, one line a
        // format, never left to --verbose).
        if let Some(destination) = &self.used_destination {
            lines.extend(used::summary(&self.used, &self.used_rules, destination));
        }
        lines
    }

    /// The line saying how many sessions were read, of which formats, and what was written where.
    fn read_and_written(&self) -> String {
        let mut by_format: BTreeMap<&str, u64> = BTreeMap::new();
        for f in &self.files {
            *by_format.entry(f.format).or_insert(0) += 1;
        }
        let formats: Vec<String> = by_format
            .iter()
            .map(|(name, n)| format!("{n} {name}"))
            .collect();
        format!(
            "read {} files ({}); wrote {} batches with {} results to {}",
            self.files.len(),
            if formats.is_empty() {
                "none".to_string()
            } else {
                formats.join(", ")
            },
            self.batches,
            self.results,
            self.destination
        )
    }

    /// The report in full as lines for standard error (`--verbose`): each file detected, ignored and skipped.
    pub fn summary(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.detected {
            for f in &self.files {
                lines.push(format!("{}: detected {}", f.path.display(), f.format));
            }
        }
        const LISTED: usize = 20;
        for path in self.ignored.iter().take(LISTED) {
            lines.push(format!(
                "ignored {}: not a session log of {}",
                path.display(),
                if self.detected {
                    "a known format"
                } else {
                    "the given format"
                }
            ));
        }
        if self.ignored.len() > LISTED {
            lines.push(format!(
                "ignored {} more files",
                self.ignored.len() - LISTED
            ));
        }
        for bad in &self.bad {
            lines.push(format!("skipped malformed file {bad}"));
        }
        lines.push(self.read_and_written());
        for (reason, n) in &self.tally.skipped {
            lines.push(format!("skipped {n}: {reason}"));
        }
        if self.tally.repaired_surrogates > 0 {
            lines.push(format!(
                "replaced {} lone surrogate escapes with U+FFFD",
                self.tally.repaired_surrogates
            ));
        }
        if !self.bad.is_empty() {
            lines.push(format!(
                "skipped {} malformed files (--skip-bad)",
                self.bad.len()
            ));
        }
        if let Some(destination) = &self.used_destination {
            lines.extend(used::summary(&self.used, &self.used_rules, destination));
        }
        lines
    }
}

/// A `Write` into memory that refuses to grow past a limit.
struct Bounded {
    buf: Vec<u8>,
    limit: usize,
}

impl Write for Bounded {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + data.len() > self.limit {
            return Err(std::io::Error::other(format!(
                "more than {} bytes of batches for standard output; write them to a file with --out",
                self.limit
            )));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl ImportJob {
    /// Imports every session and writes the batches to `out` (`None` or `-`: standard output), atomically: on
    /// any error nothing is written (a file is created through [`AtomicFile`], standard output is written once
    /// at the end, up to [`MAX_STDOUT_BYTES`]). The used lines go to `used_out`, or when it is `None` and the
    /// batches go to a file, beside it ([`used_path_for`]); with the batches on standard output and no
    /// `used_out`, they are not written. Both files are put in place together, after every session was read.
    pub fn write_outputs(
        &self,
        out: Option<&Path>,
        used_out: Option<&Path>,
    ) -> Result<ImportReport> {
        let out = out.filter(|p| p.as_os_str() != "-");
        // The default file of used lines sits beside a file of batches; --out that names a device or a pipe
        // (`/dev/null`, directly or through a link) has no such place, and gets none, as standard output gets none.
        let used_path = used_out
            .map(Path::to_path_buf)
            .or_else(|| out.filter(|p| !is_special(p)).map(used_path_for));
        let used_flag = if used_out.is_some() {
            "--used-out"
        } else {
            "--used-out (made from --out)"
        };
        let mut outputs: Vec<(&str, &Path)> = Vec::new();
        outputs.extend(out.map(|p| ("--out", p)));
        outputs.extend(used_path.as_deref().map(|p| (used_flag, p)));
        let excluded = self.guard_outputs(&outputs)?;
        let mut used_file = match &used_path {
            Some(p) => Some(AtomicFile::create(p)?),
            None => None,
        };
        let used_name = used_path.as_ref().map(|p| p.display().to_string());
        match out {
            Some(path) => {
                let mut file = AtomicFile::create(path)?;
                let report = self.write_excluding(
                    &mut file,
                    used_file.as_mut().map(|f| f as &mut dyn Write),
                    used_name.as_deref(),
                    &path.display().to_string(),
                    &excluded,
                )?;
                let mut files = vec![file];
                files.extend(used_file);
                crate::atomic::commit_all(files)?;
                Ok(report)
            }
            None => {
                let mut buf = Bounded {
                    buf: Vec::new(),
                    limit: MAX_STDOUT_BYTES,
                };
                let report = self.write_excluding(
                    &mut buf,
                    used_file.as_mut().map(|f| f as &mut dyn Write),
                    used_name.as_deref(),
                    "standard output",
                    &excluded,
                )?;
                if let Some(f) = used_file {
                    f.commit()?;
                }
                let mut stdout = std::io::stdout().lock();
                stdout
                    .write_all(&buf.buf)
                    .and_then(|_| stdout.flush())
                    .map_err(|e| Error::io("<stdout>", e))?;
                Ok(report)
            }
        }
    }

    /// Imports every session and writes the batches to `out`, one JSON array a line. `destination` names `out`
    /// in errors and the report; `exclude` is a file never read as input (the output itself).
    pub fn write(
        &self,
        out: &mut dyn Write,
        destination: &str,
        exclude: Option<&Path>,
    ) -> Result<ImportReport> {
        self.write_with_used(out, None, None, destination, exclude)
    }

    /// [`ImportJob::write`], and the used-lines file to `used_out` (named `used_name` in errors and the report).
    pub fn write_with_used(
        &self,
        out: &mut dyn Write,
        used_out: Option<&mut dyn Write>,
        used_name: Option<&str>,
        destination: &str,
        exclude: Option<&Path>,
    ) -> Result<ImportReport> {
        let excluded: Vec<PathBuf> = exclude
            .and_then(|p| p.canonicalize().ok())
            .into_iter()
            .collect();
        self.write_excluding(out, used_out, used_name, destination, &excluded)
    }

    /// Which files are walked for sessions, as the import will walk them.
    fn wants(&self, name: &str) -> bool {
        match self.format {
            FormatChoice::Auto => FORMATS.iter().any(|f| f.wants_file(name)),
            FormatChoice::Only(f) => f.wants_file(name),
        }
    }

    /// Holds each output file (its flag and path) against every file the import would read, before anything is
    /// read or written: an output that is a file the user named, or a session log found in a walked folder, is
    /// refused (one line naming both); an output found in a walked folder that is no session log (budgetlab's
    /// own output of an earlier import, say) is left out of the walk. Gives the canonical paths to leave out.
    fn guard_outputs(&self, outputs: &[(&str, &Path)]) -> Result<Vec<PathBuf>> {
        let mut excluded = Vec::new();
        if outputs.iter().all(|(_, p)| !p.exists()) {
            return Ok(excluded);
        }
        let candidates = walk::collect(&self.paths, &|name| self.wants(name), &[])?;
        for candidate in &candidates {
            let files: Vec<&Path> = match &candidate.source.events {
                Some(events) => events.iter().map(PathBuf::as_path).collect(),
                None => vec![candidate.source.path.as_path()],
            };
            for file in files {
                for &(flag, output) in outputs {
                    let input = [crate::atomic::Named::new("PATH", file)];
                    if crate::atomic::refuse_same_file(
                        crate::atomic::Named::new(flag, output),
                        &input,
                    )
                    .is_ok()
                    {
                        continue;
                    }
                    let log =
                        candidate.given || !matches!(detect::detect(&Source::file(file)), Ok(None));
                    if log {
                        return Err(Error::invalid(
                            flag,
                            output.display().to_string(),
                            format!(
                                "is {} {:?}, a session log this import reads, which it would replace; \
                                 write the output elsewhere",
                                if candidate.given { "PATH" } else { "the file found under PATH" },
                                file.display().to_string()
                            ),
                        ));
                    }
                    excluded.extend(file.canonicalize().ok());
                }
            }
        }
        Ok(excluded)
    }

    /// [`ImportJob::write_with_used`], never reading the files `excluded` (canonical paths).
    fn write_excluding(
        &self,
        out: &mut dyn Write,
        mut used_out: Option<&mut dyn Write>,
        used_name: Option<&str>,
        destination: &str,
        excluded: &[PathBuf],
    ) -> Result<ImportReport> {
        let mut report = ImportReport {
            detected: matches!(self.format, FormatChoice::Auto),
            destination: destination.to_string(),
            used_rules: self.used,
            used_destination: used_out
                .as_ref()
                .map(|_| used_name.unwrap_or("memory").to_string()),
            ..ImportReport::default()
        };
        let mut used_sink = used_out
            .is_some()
            .then(|| used::UsedSink::new(self.used, self.anonymize.is_some()));
        let mut line = Vec::new();
        let candidates = walk::collect(&self.paths, &|name| self.wants(name), excluded)?;
        let mut anonymizer = self.anonymize.map(Anonymizer::new);
        // A result already written (same format, call id and content) comes from a session copied by a resume;
        // the same call id with other content is another result.
        let mut seen: HashSet<(&'static str, String, [u8; 32])> = HashSet::new();
        for candidate in candidates {
            for (source, format) in self.resolve(candidate, &mut report)? {
                let mut tally = Tally::default();
                let turns = match format.read(&source, &mut tally) {
                    Ok(turns) => turns,
                    Err(e) if self.skip_bad && matches!(e, Error::Import { .. }) => {
                        report.bad.push(e.to_string());
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                let mut file = FileReport {
                    path: source.path.clone(),
                    format: format.name(),
                    batches: 0,
                    results: 0,
                };
                let used_lines = used_sink
                    .as_ref()
                    .and_then(|_| turns.used_content(&self.used));
                if used_sink.is_some() {
                    let tally = report.used.entry(format.name()).or_default();
                    if used_lines.is_some() {
                        tally.sessions += 1;
                    } else {
                        tally.unmeasured += 1;
                    }
                }
                let group = {
                    let (session, issue) = turns.group_ids();
                    BatchGroup {
                        session: session.map_or_else(
                            || session_path(&self.paths, &source.path),
                            str::to_string,
                        ),
                        task: issue.map(str::to_string),
                    }
                };
                let group = group_line(group, anonymizer.as_mut());
                for imported in turns.into_batches(&mut tally) {
                    let ImportedBatch {
                        entries: imported,
                        mut context,
                    } = imported;
                    let mut batch: Batch = Vec::with_capacity(imported.len());
                    let mut ranks = Vec::with_capacity(imported.len());
                    for e in imported {
                        if !e.synthetic_id
                            && !seen.insert((
                                format.name(),
                                e.entry.call_id.clone(),
                                content_digest(&e.entry),
                            ))
                        {
                            tally.skip("result repeated from an earlier file (resumed session)");
                            continue;
                        }
                        batch.push(e.entry);
                        ranks.push(e.rank);
                    }
                    if batch.is_empty() {
                        continue;
                    }
                    // The context names the calls whose results the batch holds, and no other.
                    context
                        .calls
                        .retain(|c| batch.iter().any(|e| e.call_id == c.call_id));
                    if let Some(a) = anonymizer.as_mut() {
                        a.batch(&mut batch);
                        anonymize_context(a, &mut context);
                    }
                    let batch_line = BatchLine {
                        entries: batch,
                        context: (!context.is_empty()).then(|| Arc::new(context)),
                        group: group.clone(),
                    };
                    line.clear();
                    serde_json::to_writer(&mut line, &batch_line)
                        .map_err(std::io::Error::from)
                        .map_err(|e| Error::io(destination, e))?;
                    line.push(b'\n');
                    out.write_all(&line)
                        .map_err(|e| Error::io(destination, e))?;
                    if let Some(sink) = used_sink.as_mut() {
                        let tally = report.used.entry(format.name()).or_default();
                        let counted = if used_lines.is_some() {
                            tally
                        } else {
                            &mut UsedTally::default()
                        };
                        sink.batch(
                            &line,
                            &batch_line.entries,
                            &ranks,
                            used_lines.as_ref(),
                            counted,
                        );
                    }
                    file.batches += 1;
                    file.results += batch_line.entries.len() as u64;
                }
                report.batches += file.batches;
                report.results += file.results;
                report.tally.merge(&tally);
                report.files.push(file);
            }
        }
        if let (Some(sink), Some(used_out)) = (used_sink, used_out.as_mut()) {
            sink.finish(&mut **used_out)
                .map_err(|e| Error::io(used_name.unwrap_or("memory"), e))?;
        }
        if report.files.is_empty() && report.bad.is_empty() {
            let paths: Vec<String> = self.paths.iter().map(|p| p.display().to_string()).collect();
            return Err(Error::invalid(
                "PATH",
                paths.join(" "),
                format!("no session log of format {:?} found there", self.format),
            ));
        }
        Ok(report)
    }

    /// The sessions a walked candidate stands for, with their formats: detected (auto, or a folder walk that
    /// must check the asked format), or the asked format for a file given by path.
    fn resolve(
        &self,
        candidate: walk::Candidate,
        report: &mut ImportReport,
    ) -> Result<Vec<(Source, &'static dyn SessionFormat)>> {
        let walk::Candidate { source, given } = candidate;
        if let (FormatChoice::Only(f), true) = (self.format, given) {
            return Ok(vec![(source, f)]);
        }
        let detected = match detect::detect(&source) {
            Ok(d) => d,
            Err(e) if self.skip_bad && matches!(e, Error::Import { .. }) => {
                report.bad.push(e.to_string());
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        };
        let accepted = match (self.format, detected) {
            (FormatChoice::Auto, Some(f)) => Some(f),
            (FormatChoice::Only(f), Some(d)) if f.name() == d.name() => Some(f),
            _ => None,
        };
        if let Some(f) = accepted {
            return Ok(vec![(source, f)]);
        }
        if let Some(events) = source.events {
            // Numbered files that are not an OpenHands event stream: each is a file of its own.
            let mut out = Vec::new();
            for path in events {
                out.extend(self.resolve(
                    walk::Candidate {
                        source: Source::file(path),
                        given: false,
                    },
                    report,
                )?);
            }
            return Ok(out);
        }
        if given {
            return Err(Error::Import {
                location: source.path.display().to_string(),
                message: "not a session log of a known format; give its format with --format"
                    .into(),
            });
        }
        report.ignored.push(source.path);
        Ok(Vec::new())
    }
}

/// The SHA-256 of an entry's JSON: what tells a result repeated by a resumed session from another one that
/// reuses its call id.
/// The session name of a log without a session id: its path from the PATH argument it was found under, that
/// argument's own name first (`swe-agent/run-fc/x.traj` for `import tests/fixtures/import/swe-agent`; the file's
/// name for a file given), so that it does not depend on where the logs lie on the machine.
fn session_path(paths: &[PathBuf], path: &Path) -> String {
    for root in paths {
        if let Ok(rest) = path.strip_prefix(root) {
            let mut name = PathBuf::new();
            if let Some(base) = root.file_name() {
                name.push(base);
            }
            if !rest.as_os_str().is_empty() {
                name.push(rest);
            }
            let name = name.to_string_lossy().replace('\\', "/");
            if !name.is_empty() {
                return name;
            }
        }
    }
    path.display().to_string()
}

/// A session's group as its batches carry it: under `--anonymize`, its ids anonymized (word by word and seeded,
/// so batches of one session or one issue still share them).
fn group_line(group: BatchGroup, anonymizer: Option<&mut Anonymizer>) -> Option<BatchGroup> {
    let cut = |id: String| crate::text::head_bytes(&id, crate::MAX_GROUP_ID_BYTES).to_string();
    let group = match anonymizer {
        None => group,
        Some(a) => BatchGroup {
            session: a.plain(&group.session),
            task: group.task.map(|t| a.plain(&t)),
        },
    };
    let session = cut(group.session);
    (!session.is_empty()).then(|| BatchGroup {
        session,
        task: group.task.map(cut).filter(|t| !t.is_empty()),
    })
}

/// Anonymizes a context's texts as the results' texts are (the task, the assistant's text, each call's
/// arguments; tool names and call ids are kept, as in the entries), cut again to their bounds.
fn anonymize_context(a: &mut Anonymizer, context: &mut TurnContext) {
    use crate::context::{MAX_ARGUMENT_UNITS, MAX_ASSISTANT_UNITS, MAX_TASK_UNITS};
    let mut redo = |text: &mut String, bound: usize| {
        let new = a.text(text);
        *text = crate::text::head(&new, bound).to_string();
    };
    if let Some(task) = context.task.as_mut() {
        redo(task, MAX_TASK_UNITS);
    }
    if let Some(text) = context.assistant.as_mut() {
        redo(text, MAX_ASSISTANT_UNITS);
    }
    for call in &mut context.calls {
        redo(&mut call.arguments, MAX_ARGUMENT_UNITS);
    }
}

fn content_digest(entry: &Entry) -> [u8; 32] {
    let json = serde_json::to_vec(entry).unwrap_or_default();
    crate::digest::sha256(&json)
}

/// Whether `path` is (or links to) something other than a file or a folder: a device such as `/dev/null`, a pipe
/// or a socket.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}
