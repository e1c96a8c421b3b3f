//! The drawn part of a report folder, the charts and `index.html`: made with the rest of a run's report, made
//! for a sweep's or a profile's folder (with its results file), or redrawn by `budgetlab report DIR` from the `results.json` (and `batches.jsonl` when
//! present) or `sweep.json` already there, without rerunning anything.

use std::io::Write as _;
use std::path::Path;

use super::chart::{self, data::TurnTallies, Rendered, Source, CHART_DIR};
use super::{folder, html};
use crate::atomic::{AtomicFile, Destination};
use crate::error::{Error, Result};
use crate::history::{HistoryVerdict, Table};
use crate::profile::{markdown, ProfileReport};
use crate::run::RunResults;
use crate::sweep::SweepResults;

/// The page's file name.
pub const INDEX: &str = "index.html";
/// A sweep's results file name.
pub(super) const SWEEP_JSON: &str = "sweep.json";

fn chart_files(charts: &[Rendered]) -> Vec<(String, Vec<u8>)> {
    charts
        .iter()
        .flat_map(|c| c.files().map(|(path, bytes)| (path, bytes.to_vec())))
        .collect()
}

/// The charts and page of a run, as (relative path, bytes); with a history, its trend charts too, on the page
/// in their own section.
pub(crate) fn run_files(
    results: &RunResults,
    turns: Option<&TurnTallies>,
    history: Option<&Table>,
) -> Result<Vec<(String, Vec<u8>)>> {
    let run = chart::Run { results, turns };
    let charts = chart::render(Source::Run(run))?;
    let mut files = chart_files(&charts);
    let trends = match history {
        Some(table) => chart::render(Source::History(table))?,
        None => Vec::new(),
    };
    files.extend(chart_files(&trends));
    let page = html::run_page(
        results,
        &charts,
        run.per_turn(),
        history.map(|t| (t, trends.as_slice())),
    );
    files.push((INDEX.to_string(), page.into_bytes()));
    Ok(files)
}

/// The file a history's folder holds its series and verdict in.
pub const HISTORY_JSON: &str = "history.json";

/// Every file of a history's folder (`budgetlab history report --out`): `history.json` (the series, as
/// `history show --json` prints them, and the verdict, as `history check --json`), the trend charts and
/// `index.html`, without touching the disk.
pub(super) fn history_folder_files(
    table: &Table,
    verdict: &HistoryVerdict,
) -> Result<Vec<(String, Vec<u8>)>> {
    let trends = chart::render(Source::History(table))?;
    let json = serde_json::json!({
        "history": crate::history::show::json(table),
        "verdict": crate::history::check::json(verdict),
        "charts": trends.iter().map(|c| c.stem.clone()).collect::<Vec<_>>(),
    });
    let mut bytes = serde_json::to_vec_pretty(&json).expect("a history serializes");
    bytes.push(b'\n');
    let mut files = vec![(HISTORY_JSON.to_string(), bytes)];
    files.extend(chart_files(&trends));
    files.push((
        INDEX.to_string(),
        html::history_page(table, verdict, &trends).into_bytes(),
    ));
    Ok(files)
}

fn sweep_files(sweep: &SweepResults) -> Result<Vec<(String, Vec<u8>)>> {
    let charts = chart::render(Source::Sweep(sweep))?;
    let mut files = chart_files(&charts);
    files.push((
        INDEX.to_string(),
        html::sweep_page(sweep, &charts).into_bytes(),
    ));
    Ok(files)
}

/// Every file of a sweep's folder (`sweep.json`, its charts and `index.html`), without touching the disk.
pub(super) fn sweep_folder_files(sweep: &SweepResults) -> Result<Vec<(String, Vec<u8>)>> {
    let mut json = serde_json::to_vec_pretty(sweep).expect("a sweep serializes");
    json.push(b'\n');
    let mut files = vec![(SWEEP_JSON.to_string(), json)];
    files.extend(sweep_files(sweep)?);
    Ok(files)
}

/// The file a profile's folder holds the profile in.
const PROFILE_JSON: &str = "profile.json";

/// Every file of a profile's folder (`budgetlab profile --out`): `profile.json` (the [`ProfileReport`]),
/// `summary.md` (the Markdown printed on stdout) and its charts, without touching the disk.
pub(super) fn profile_folder_files(report: &ProfileReport) -> Result<Vec<(String, Vec<u8>)>> {
    let mut files = vec![
        (PROFILE_JSON.to_string(), report.json()?),
        ("summary.md".to_string(), markdown(report).into_bytes()),
    ];
    files.extend(chart_files(&chart::render(Source::Profile(report))?));
    Ok(files)
}

/// The file a tune's folder holds its results in.
pub(crate) const TUNE_JSON: &str = "tune.json";

/// Every file of a tune's folder: `tune.json` (every setting evaluated), `summary.md`, its charts and
/// `index.html`.
pub(super) fn tune_folder_files(tune: &crate::tune::TuneResults) -> Result<Vec<(String, Vec<u8>)>> {
    let mut json = serde_json::to_vec_pretty(tune).expect("a tune serializes");
    json.push(b'\n');
    let mut files = vec![
        (TUNE_JSON.to_string(), json),
        ("summary.md".to_string(), tune.markdown().into_bytes()),
    ];
    let charts = chart::render(Source::Tune(tune))?;
    files.extend(chart_files(&charts));
    files.push((
        INDEX.to_string(),
        html::tune_page(tune, &charts).into_bytes(),
    ));
    Ok(files)
}

/// What `budgetlab report` redrew.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redrawn {
    /// The results file read (`results.json` or `sweep.json`).
    pub source: String,
    /// Charts drawn (each as SVG and PNG).
    pub charts: usize,
    /// Whether per-batch records (`batches.jsonl`) were read.
    pub per_batch: bool,
}

/// The tallies of the turns of the `batches.jsonl` of `dir`, read a line at a time and checked against the
/// sha256 `results` records, each record held to the schema's ranges; errors name the folder, or the line and the
/// field.
fn tally_records(dir: &Path, results: &RunResults) -> Result<TurnTallies> {
    let mut turns = TurnTallies::new(&results.inputs);
    crate::run::for_each_record(dir, results, |_, r| {
        turns.add(&r);
        Ok(())
    })?;
    Ok(turns)
}

/// Redraws the charts and `index.html` of the report folder `dir` from its `results.json` (with
/// `batches.jsonl` when present) or, for a sweep's folder, its `sweep.json`. Only `charts/` and `index.html`
/// are replaced, and only when budgetlab made them (or they are absent; an empty `charts/` is filled).
pub(super) fn redraw(dir: &Path, history: Option<&Table>) -> Result<Redrawn> {
    let results_path = dir.join("results.json");
    let sweep_path = dir.join(SWEEP_JSON);
    let (files, redrawn) = if !results_path.exists() && sweep_path.exists() {
        let bytes = std::fs::read(&sweep_path).map_err(|e| Error::io(&sweep_path, e))?;
        let sweep = SweepResults::parse(&bytes, &sweep_path.display().to_string())?;
        let files = sweep_files(&sweep)?;
        let charts = (files.len() - 1) / 2;
        (
            files,
            Redrawn {
                source: SWEEP_JSON.into(),
                charts,
                per_batch: false,
            },
        )
    } else {
        let results = RunResults::load(&results_path)?;
        let batches = dir.join(crate::run::BATCHES_JSONL);
        let turns = if batches.exists() {
            Some(tally_records(dir, &results)?)
        } else {
            None
        };
        let files = run_files(&results, turns.as_ref(), history)?;
        let charts = (files.len() - 1) / 2;
        (
            files,
            Redrawn {
                source: "results.json".into(),
                charts,
                per_batch: turns.is_some_and(|t| t.turns() > 0),
            },
        )
    };
    let prefix = format!("{CHART_DIR}/");
    let (charts, page): (Vec<_>, Vec<_>) = files
        .into_iter()
        .partition(|(name, _)| name.starts_with(&prefix));
    let charts: Vec<(String, Vec<u8>)> = charts
        .into_iter()
        .map(|(name, bytes)| (name[prefix.len()..].to_string(), bytes))
        .collect();
    // The charts folder is replaced only if budgetlab drew it (it carries the marker) or it is empty or absent;
    // the page only if budgetlab drew it too (the folder or the charts carry the marker) or it is absent.
    let charts_dir = dir.join(CHART_DIR);
    let before = folder::existing(&charts_dir, &charts_dir)?;
    let ours = before == folder::Existing::Report || folder::is_report_folder(dir);
    // Every page file is checked before anything is written: none replaces what is not budgetlab's, and none
    // is written through a link (a report folder from elsewhere may carry one).
    let mut destinations = Vec::with_capacity(page.len());
    for (name, _) in &page {
        let path = dir.join(name);
        if !ours && std::fs::symlink_metadata(&path).is_ok() {
            return Err(Error::refused(
                path,
                "exists and is not in a budgetlab report folder: move it away first",
            ));
        }
        // Inside a report folder no link is written through, not even one to a stream.
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(crate::atomic::refused_link(&path));
        }
        destinations.push(Destination::resolve(&path)?);
    }
    // A chart that is a link is refused too, though the folder it is in is replaced whole and nothing is
    // written through it: the link came from elsewhere, and its owner is told rather than have it vanish.
    for (name, _) in &charts {
        let path = charts_dir.join(name);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(crate::atomic::refused_link(&path));
        }
    }
    folder::write_staged(&charts_dir, &charts_dir, before, true, &charts)?;
    for ((name, bytes), destination) in page.into_iter().zip(destinations) {
        let mut file = AtomicFile::open(&dir.join(&name), destination)?;
        file.write_all(&bytes)
            .map_err(|e| Error::io(dir.join(&name), e))?;
        file.commit()?;
    }
    Ok(redrawn)
}
