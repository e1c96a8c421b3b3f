//! `budgetlab calibrate`: a scenario fitted to a corpus of recorded batches, and the check that it fits.
//!
//! [`calibrate`] maps the corpus's tools to the generator's kinds (`mapping`: by name, failed calls to error
//! traces, unknown tools to the kind closest by shape), measures the corpus (`measure`), fits the scenario's
//! knobs round by round against generated samples (`fit`: a table of quantiles per kind, the kind mix, the batch
//! width, and the texture: astral, non-ASCII, CRLF, ANSI, empty and repeated outputs, the exit-line styles, the
//! summary position, windowed views, the tools' names), writes it as a scenario file with the mapping as
//! comments (`write`), and compares the profile ([`crate::profile`]) of the scenario's generated batches with
//! the corpus's (`check`): p10, p50, p90 and p99 within 10%, the share above 100,000 units within a factor of 2 when
//! the corpus has at least 20 such outputs, every shape share within 1 percentage point, the median batch width
//! equal. A fit that misses is still written; [`Calibration::passed`] says whether it fits.
//!
//! Everything is a pure function of the corpus: the scenario's seed comes from the corpus's digest, and the
//! samples are generated and measured in parallel but folded in order.

mod check;
mod fit;
mod mapping;
mod measure;
mod write;

pub use check::{Row, GIANT_FACTOR, GIANT_MIN, PERCENTILE_TOLERANCE, SHARE_TOLERANCE};
pub use fit::{SizeChoice, ROUNDS, SAMPLE_OUTPUTS};
pub use mapping::{Features, How};
pub use measure::ToolKind;

use std::fmt::Write as _;

use std::path::Path;

use crate::batch_line::parse_jsonl_batches;
use crate::error::{Error, Result};
use crate::model::Batch;
use crate::profile::{
    profile_batches, profile_scenario, BatchFacts, Profile, SourceInfo, SourceKind,
};
use crate::scenario::Scenario;
use crate::workload::Kind;
use check::Figures;
use mapping::SHAPE_KINDS;
use measure::Corpus;

/// Outputs generated per kind to learn what each kind looks like, for mapping tools by shape.
const REFERENCE_OUTPUTS: u64 = 400;

/// A fitted scenario and how well it fits.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// The scenario file's text.
    pub toml: String,
    /// The scenario it holds.
    pub scenario: Scenario,
    /// The corpus's tools and the kind each was mapped to, the most frequent first.
    pub tools: Vec<ToolKind>,
    /// Failed calls of the corpus (error text only), fitted as error traces.
    pub errors: u64,
    /// The corpus's profile.
    pub corpus: Profile,
    /// The profile of the scenario's generated batches.
    pub fitted: Profile,
    /// The comparison.
    pub rows: Vec<Row>,
    /// Rounds of the fit.
    pub rounds: usize,
    /// Each kind's size model (parametric or empirical) and why.
    pub models: Vec<SizeChoice>,
}

impl Calibration {
    /// Whether every checked figure is within its tolerance.
    pub fn passed(&self) -> bool {
        check::passed(&self.rows)
    }

    /// The mapping and the comparison, as Markdown.
    pub fn markdown(&self) -> String {
        let missed = self.rows.iter().filter(|r| r.pass == Some(false)).count();
        let checked = self.rows.iter().filter(|r| r.pass.is_some()).count();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "## budgetlab calibrate: {}\n",
            if missed == 0 {
                format!("the fit passes ({checked} checks)")
            } else {
                format!("the fit MISSES {missed} of {checked} checks")
            }
        );
        let _ = writeln!(
            out,
            "Corpus `{}`: {} batches, {} outputs. Scenario `{}`: {} batches, {} outputs, fitted in {} rounds.\n",
            self.corpus.source.name,
            self.corpus.source.batches,
            self.corpus.outputs,
            self.scenario.name,
            self.fitted.source.batches,
            self.fitted.outputs,
            self.rounds
        );
        out.push_str("| tool | outputs | kind | mapped |\n|---|---:|---|---|\n");
        for t in &self.tools {
            let how = match &t.how {
                How::Name => "by name".to_string(),
                How::Shape(f, _) => format!("by shape ({f})"),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {how} |",
                t.tool,
                t.outputs,
                t.kind.as_str()
            );
        }
        if self.errors > 0 {
            let _ = writeln!(
                out,
                "| (failed calls) | {} | error_trace | error text only |",
                self.errors
            );
        }
        out.push_str("\n| kind | size model | why |\n|---|---|---|\n");
        for m in &self.models {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                m.kind.as_str(),
                model_name(m),
                m.why
            );
        }
        out.push('\n');
        out.push_str(&check::markdown(&self.rows));
        out
    }

    /// The mapping and the comparison, as one JSON object and a newline: what [`Calibration::markdown`] shows,
    /// with every figure's tolerance, whether it passed (`null` for a figure shown but not checked) and how far
    /// off it is in tolerances.
    pub fn json(&self) -> String {
        let tools: Vec<serde_json::Value> = self
            .tools
            .iter()
            .map(|t| {
                let (mapped, distance) = match &t.how {
                    How::Name => ("name", None),
                    How::Shape(_, d) => ("shape", Some(*d)),
                };
                serde_json::json!({
                    "tool": t.tool,
                    "outputs": t.outputs,
                    "kind": t.kind.as_str(),
                    "mapped": mapped,
                    "shapeDistance": distance,
                })
            })
            .collect();
        let models: Vec<serde_json::Value> = self
            .models
            .iter()
            .map(|m| {
                serde_json::json!({
                    "kind": m.kind.as_str(),
                    "model": model_name(m),
                    "why": m.why,
                })
            })
            .collect();
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "figure": r.figure,
                    "corpus": r.corpus,
                    "fitted": r.fitted,
                    "tolerance": r.tolerance,
                    "passed": r.pass,
                    "miss": r.pass.map(|_| r.miss),
                })
            })
            .collect();
        let document = serde_json::json!({
            "passed": self.passed(),
            "corpus": {
                "name": self.corpus.source.name,
                "sha256": self.corpus.source.digest,
                "batches": self.corpus.source.batches,
                "outputs": self.corpus.outputs,
            },
            "scenario": {
                "name": self.scenario.name,
                "batches": self.fitted.source.batches,
                "outputs": self.fitted.outputs,
            },
            "rounds": self.rounds,
            "failedCalls": self.errors,
            "tools": tools,
            "sizeModels": models,
            "checks": rows,
        });
        let mut text = serde_json::to_string_pretty(&document).expect("a calibration serializes");
        text.push('\n');
        text
    }
}

/// What each kind a tool may be mapped to by shape looks like: its generated outputs at the built-in sizes.
fn references() -> Result<Vec<(Kind, Features)>> {
    let mut out = Vec::new();
    for kind in SHAPE_KINDS {
        let source = format!(
            "name = \"calibrate-reference\"\ndescription = \"d\"\nseed = 1\nbatches = {REFERENCE_OUTPUTS}\n\
             [batch_size]\nmedian = 1.0\nsigma = 0.0\nmin = 1\nmax = 1\n[kinds]\n{} = 1\n\
             [shape]\nduplicate_rate = 0.0\nhook_text_rate = 0.0\nobject_output_rate = 0.0\n",
            kind.as_str()
        );
        let scenario = Scenario::parse(&source, "calibrate-reference")?;
        let g = crate::generate::Generator::new(&scenario);
        let mut outputs = Vec::new();
        for i in 0..REFERENCE_OUTPUTS {
            let batch = g.batch(i).batch;
            for f in BatchFacts::of(&batch, None).outputs {
                if f.units > 0 {
                    outputs.push((f.units, f.lines, f.json, !f.exit_styles.is_empty()));
                }
            }
        }
        if let Some(f) = Features::of(&outputs) {
            out.push((kind, f));
        }
    }
    Ok(out)
}

/// The seed of a fitted scenario: the first 48 bits of the corpus's digest (1 when it is not hex).
fn seed_of(digest: &str) -> u64 {
    digest
        .get(..12)
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .unwrap_or(1)
}

/// Reads a corpus: a batches file, one batch (a JSON array of entries) a line, as `import` and `generate` write
/// them; a byte order mark at its start is skipped, blank lines too. Errors name the file and the line.
pub fn read_corpus(path: &Path) -> Result<(Vec<Batch>, SourceInfo)> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let (batches, text) = parse_jsonl_batches(&bytes, &name)?;
    let source = SourceInfo {
        digest: crate::digest::sha256_hex(text),
        kind: SourceKind::Recorded,
        seed: None,
        batches: batches.len() as u64,
        name,
    };
    Ok((batches, source))
}

/// The steps [`calibrate`] reports to its `progress`: one a round of fitting (at most 12 parametric, then at
/// most 12 with empirical models; the rounds a fit that ends early does not take are reported as done then), and
/// the final check.
pub const PROGRESS_STEPS: u64 = 2 * fit::ROUNDS as u64 + 1;

/// Fits a scenario named `name` to the recorded `batches` (from `source`).
/// `progress` is told of each step done, [`PROGRESS_STEPS`] in all.
pub fn calibrate(
    batches: &[Batch],
    source: SourceInfo,
    name: &str,
    progress: &dyn Fn(u64),
) -> Result<Calibration> {
    if name.trim().is_empty() {
        return Err(Error::invalid("--name", name, "must not be empty"));
    }
    let outputs: usize = batches.iter().map(Vec::len).sum();
    if outputs == 0 {
        return Err(Error::invalid(
            "corpus",
            &source.name,
            "holds no tool result to fit",
        ));
    }
    let corpus = Corpus::of(batches, &references()?);
    let seed = seed_of(&source.digest);
    let fitted = fit::fit(&corpus, name, seed, progress)?;
    let names = corpus.names.clone();
    let bare = fit::text(&[], name, seed, fitted.batches, &fitted.params, &names);
    let scenario = Scenario::parse(&bare, name)?;
    let corpus_profile = profile_batches(source, batches);
    let fitted_profile = profile_scenario(&scenario, fitted.batches);
    let rows = check::rows(
        &Figures::of_profile(&corpus_profile),
        &Figures::of_profile(&fitted_profile),
    );
    progress(1);
    let header = header(
        &corpus_profile,
        &corpus,
        &rows,
        fitted.rounds,
        &fitted.models,
    );
    let toml = fit::text(&header, name, seed, fitted.batches, &fitted.params, &names);
    debug_assert_eq!(Scenario::parse(&toml, name).ok().as_ref(), Some(&scenario));
    Ok(Calibration {
        toml,
        scenario,
        tools: corpus.tools,
        errors: corpus.errors,
        corpus: corpus_profile,
        fitted: fitted_profile,
        rows,
        rounds: fitted.rounds,
        models: fitted.models,
    })
}

/// "empirical" or "parametric".
fn model_name(m: &SizeChoice) -> &'static str {
    if m.empirical {
        "empirical"
    } else {
        "parametric"
    }
}

/// The comment lines at the top of the scenario file.
fn header(
    corpus: &Profile,
    c: &Corpus,
    rows: &[Row],
    rounds: usize,
    models: &[SizeChoice],
) -> Vec<String> {
    let mut h = vec![
        format!(
            "Fitted by `budgetlab calibrate` (budgetlab {}) to {} (sha256 {}): {} batches, {} outputs.",
            env!("CARGO_PKG_VERSION"),
            corpus.source.name,
            corpus.source.digest,
            corpus.source.batches,
            corpus.outputs
        ),
        format!(
            "{rounds} rounds of fitting; the check (corpus vs this scenario's batches): {}.",
            if check::passed(rows) {
                "passed"
            } else {
                "MISSED"
            }
        ),
    ];
    for r in rows.iter().filter(|r| r.pass.is_some()) {
        h.push(format!(
            "  {}: {} vs {} ({}){}",
            r.figure,
            r.corpus,
            r.fitted,
            r.tolerance,
            if r.pass == Some(false) {
                ", missed"
            } else {
                ""
            }
        ));
    }
    h.push(String::new());
    h.push("Tools mapped to the generator's kinds (each kind's results are recorded under its first tool):".into());
    for t in &c.tools {
        let how = match &t.how {
            How::Name => "by name".to_string(),
            How::Shape(f, d) => format!("by shape, distance {d:.3}: {f}"),
        };
        h.push(format!(
            "  {} -> {} ({} outputs, {how})",
            t.tool,
            t.kind.as_str(),
            t.outputs
        ));
    }
    if c.errors > 0 {
        h.push(format!(
            "  failed calls (error text only) -> error_trace ({} outputs)",
            c.errors
        ));
    }
    h.push("Size models (parametric: [sizes.KIND], the size a kind writes its text to; empirical: [empirical.KIND], \
            the result's own size):"
        .into());
    for m in models {
        h.push(format!(
            "  {}: {}, {}",
            m.kind.as_str(),
            model_name(m),
            m.why
        ));
    }
    let unknown: Vec<String> = c
        .measure
        .styles
        .iter()
        .filter(|(s, _)| !fit::writes_style(s))
        .map(|(s, n)| format!("`{s}` ({n} outputs)"))
        .collect();
    if !unknown.is_empty() {
        h.push(format!(
            "Exit-line styles the generator does not write: {}.",
            unknown.join(", ")
        ));
    }
    h.push(String::new());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_comes_from_the_digest() {
        assert_eq!(seed_of("00000000000aff"), 10);
        assert_eq!(seed_of("zz"), 1);
    }

    #[test]
    fn an_empty_corpus_or_name_is_refused() {
        let source = SourceInfo {
            name: "c.jsonl".into(),
            kind: crate::profile::SourceKind::Recorded,
            digest: "ab".into(),
            seed: None,
            batches: 0,
        };
        let e = calibrate(&[], source.clone(), "x", &|_| ())
            .unwrap_err()
            .to_string();
        assert_eq!(e, "invalid corpus \"c.jsonl\": holds no tool result to fit");
        let e = calibrate(&[vec![]], source, " ", &|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("invalid --name"), "{e}");
    }
}
