//! Adding a run to the history: what a run contributes ([`RunRecord`]: its results' sha256, its inputs'
//! digests and every row's [`TrackedFigure`]s), what names its night ([`Night`]: the commit, the date, a label),
//! and the one transaction that records them ([`History::add`]).
//!
//! "The same run" is the same `results.json`, byte for byte: its sha256 is unique in the database. Two runs of
//! the same commit and inputs are two nights (their cost figures differ), while one run added twice, or copied
//! and added again, is refused.

use std::path::Path;

use rusqlite::{params, OptionalExtension, TransactionBehavior};

use super::store::History;
use super::tracked::TrackedFigure;
use crate::digest::sha256_hex;
use crate::error::{Error, Result};
use crate::run::RunResults;

/// The longest `--label`, in bytes.
pub const MAX_LABEL_BYTES: usize = 200;

/// What names a night: the commit it ran, when, and a free label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Night {
    /// The commit, 4 to 64 lowercase hexadecimal digits.
    pub commit: Option<String>,
    /// When, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` (UTC); nights are ordered by it, then by the order they were
    /// added.
    pub date: String,
    /// A free label (at most [`MAX_LABEL_BYTES`], no control characters).
    pub label: Option<String>,
}

impl Night {
    /// Checks the flags' values: `--commit` hexadecimal, `--date` one of the two forms, `--label` short and
    /// printable.
    pub fn new(commit: Option<String>, date: String, label: Option<String>) -> Result<Night> {
        if let Some(c) = &commit {
            let hex = c
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            if !(4..=64).contains(&c.len()) || !hex {
                return Err(Error::invalid(
                    "--commit",
                    c,
                    "a commit is 4 to 64 lowercase hexadecimal digits",
                ));
            }
        }
        if !valid_date(&date) {
            return Err(Error::invalid(
                "--date",
                &date,
                "a date is YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)",
            ));
        }
        if let Some(l) = &label {
            if l.len() > MAX_LABEL_BYTES || l.chars().any(char::is_control) || l.is_empty() {
                return Err(Error::invalid(
                    "--label",
                    l,
                    format!("a label is 1 to {MAX_LABEL_BYTES} bytes without control characters"),
                ));
            }
        }
        Ok(Night {
            commit,
            date,
            label,
        })
    }
}

/// Whether `date` is `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` with fields in range.
fn valid_date(date: &str) -> bool {
    let b = date.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = date.get(range)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let day_ok = b.len() >= 10
        && b[4] == b'-'
        && b[7] == b'-'
        && num(0..4).zip(num(5..7)).is_some_and(|(year, month)| {
            num(8..10).is_some_and(|day| (1..=days_in_month(year, month)).contains(&day))
        });
    match b.len() {
        10 => day_ok,
        20 => {
            day_ok
                && b[10] == b'T'
                && b[13] == b':'
                && b[16] == b':'
                && b[19] == b'Z'
                && num(11..13).is_some_and(|h| h < 24)
                && num(14..16).is_some_and(|m| m < 60)
                && num(17..19).is_some_and(|s| s < 60)
        }
        _ => false,
    }
}

/// The days of `month` (1 to 12) in `year` of the Gregorian calendar; 0 for a month out of range.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        _ => 0,
    }
}

/// `seconds` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (the default `--date`: now).
pub fn iso_date(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let rest = seconds % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// One kept figure of one results row.
#[derive(Debug, Clone, PartialEq)]
pub struct RowFigure {
    /// The row's scenario.
    pub scenario: String,
    /// The row's budget label.
    pub budget: String,
    /// The row's strategy.
    pub strategy: String,
    /// The figure.
    pub figure: TrackedFigure,
    /// Its value; `None` with nothing to measure it by.
    pub value: Option<f64>,
}

/// What one run adds to the history.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// The sha256 of the `results.json` bytes: what makes it the same run.
    pub results_sha256: String,
    /// The sha256 of the results' `inputs` as JSON: the workloads with their digests, seeds, batches, modes and
    /// budgets, and the strategies; it changes when the inputs do.
    pub inputs_sha256: String,
    /// The budgetlab version that made the run.
    pub crate_version: String,
    /// The results' schema version.
    pub results_schema: u32,
    /// The run's seed.
    pub seed: u64,
    /// The workloads: name, digest, origin, seed, batches and mode.
    pub inputs: Vec<(String, String, String, u64, u64, String)>,
    /// Every row's kept figures, rows in run order, figures in [`TrackedFigure::all`] order.
    pub figures: Vec<RowFigure>,
}

impl RunRecord {
    /// Reads the run in `path` (a report folder or its `results.json`) with the results reader, refusing what
    /// it refuses and a shard (merge the shards first).
    pub fn load(path: &Path) -> Result<RunRecord> {
        let file = crate::gate::results_file(path);
        let name = file.display().to_string();
        let bytes = std::fs::read(&file).map_err(|e| Error::io(&file, e))?;
        let results = RunResults::parse(&bytes, &name)?;
        RunRecord::of(&results, &bytes, &name)
    }

    /// The record of `results`, read from `bytes` of the file `name`.
    pub fn of(results: &RunResults, bytes: &[u8], name: &str) -> Result<RunRecord> {
        if let Some(shard) = results.inputs.shard {
            return Err(Error::report(
                name,
                format!(
                    "is shard {}/{} of a run; merge the shards (`budgetlab merge`) and add the whole run",
                    shard.index, shard.count
                ),
            ));
        }
        let inputs_json =
            serde_json::to_vec(&results.inputs).map_err(|e| Error::report(name, e.to_string()))?;
        let inputs = results
            .inputs
            .scenarios
            .iter()
            .map(|w| {
                (
                    w.name.clone(),
                    w.digest.clone(),
                    w.source.to_string(),
                    w.seed,
                    w.batches,
                    serde_json::to_value(w.mode)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                )
            })
            .collect();
        let mut figures = Vec::new();
        for row in &results.rows {
            for &figure in TrackedFigure::all() {
                if figure.present(row) {
                    figures.push(RowFigure {
                        scenario: row.scenario.clone(),
                        budget: row.budget_label.to_string(),
                        strategy: row.strategy.to_string(),
                        figure,
                        value: figure.value(row),
                    });
                }
            }
        }
        Ok(RunRecord {
            results_sha256: sha256_hex(bytes),
            inputs_sha256: sha256_hex(&inputs_json),
            crate_version: results.crate_version.clone(),
            results_schema: results.schema_version,
            seed: results.seed,
            inputs,
            figures,
        })
    }
}

/// What [`History::add`] recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    /// The run's id in the database.
    pub run_id: i64,
    /// Its night: its place, from 1, in the order of the nights.
    pub night: u64,
    /// The nights in the history now.
    pub nights: u64,
    /// The figures recorded.
    pub figures: usize,
}

impl History {
    /// Records `run` as `night` in one transaction: all of it or, on any failure (and when the process is
    /// killed), nothing. Refused: a run whose `results.json` is already recorded.
    pub fn add(&mut self, run: &RunRecord, night: &Night, source: &str) -> Result<Added> {
        self.add_failing_at(run, night, source, None)
    }

    /// [`History::add`], failing after `fail_at` figures are inserted when given: how the tests interrupt an
    /// add half-way.
    pub(crate) fn add_failing_at(
        &mut self,
        run: &RunRecord,
        night: &Night,
        source: &str,
        fail_at: Option<usize>,
    ) -> Result<Added> {
        let path = self.path().to_path_buf();
        let sql = |e: rusqlite::Error| {
            Error::report(path.display().to_string(), format!("database: {e}"))
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let earlier: Option<(i64, String, Option<String>)> = tx
            .query_row(
                "SELECT id, date, commit_sha FROM runs WHERE results_sha256 = ?1",
                [&run.results_sha256],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(sql)?;
        if let Some((_, date, commit)) = earlier {
            return Err(Error::refused(
                source,
                format!(
                    "is already in the history (the same results.json, sha256 {}, added as the night of {date}, \
                     commit {})",
                    &run.results_sha256[..12],
                    commit.as_deref().unwrap_or("-")
                ),
            ));
        }
        tx.execute(
            "INSERT INTO runs (results_sha256, inputs_sha256, commit_sha, date, label, crate_version, \
             results_schema, seed, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                run.results_sha256,
                run.inputs_sha256,
                night.commit,
                night.date,
                night.label,
                run.crate_version,
                run.results_schema,
                run.seed as i64,
                source
            ],
        )
        .map_err(sql)?;
        let run_id = tx.last_insert_rowid();
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO inputs (run_id, position, scenario, digest, origin, seed, batches, mode) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(sql)?;
            for (i, (name, digest, origin, seed, batches, mode)) in run.inputs.iter().enumerate() {
                insert
                    .execute(params![
                        run_id,
                        i as i64,
                        name,
                        digest,
                        origin,
                        *seed as i64,
                        *batches as i64,
                        mode
                    ])
                    .map_err(sql)?;
            }
            let mut add_series = tx
                .prepare(
                    "INSERT OR IGNORE INTO series (scenario, budget, strategy, metric) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(sql)?;
            let mut series_id = tx
                .prepare(
                    "SELECT id FROM series WHERE scenario = ?1 AND budget = ?2 AND strategy = ?3 AND metric = ?4",
                )
                .map_err(sql)?;
            let mut insert = tx
                .prepare("INSERT INTO figures (run_id, series_id, value) VALUES (?1, ?2, ?3)")
                .map_err(sql)?;
            for (i, f) in run.figures.iter().enumerate() {
                if fail_at == Some(i) {
                    return Err(Error::report(
                        path.display().to_string(),
                        format!("add interrupted after {i} figures"),
                    ));
                }
                let key = params![f.scenario, f.budget, f.strategy, f.figure.name()];
                add_series.execute(key).map_err(sql)?;
                let id: i64 = series_id.query_row(key, |r| r.get(0)).map_err(sql)?;
                insert.execute(params![run_id, id, f.value]).map_err(sql)?;
            }
        }
        let (night, nights): (u64, u64) = tx
            .query_row(
                "SELECT (SELECT count(*) FROM runs WHERE date < ?1 OR (date = ?1 AND id <= ?2)), \
                 (SELECT count(*) FROM runs)",
                params![night.date, run_id],
                |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
            )
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok(Added {
            run_id,
            night,
            nights,
            figures: run.figures.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_checked_and_made() {
        assert_eq!(iso_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_date(1_780_000_000), "2026-05-28T20:26:40Z");
        assert_eq!(iso_date(951_782_400), "2000-02-29T00:00:00Z");
        for good in [
            "2026-12-05",
            "2026-12-05T13:05:09Z",
            "2024-02-29",
            "2000-02-29",
            "2026-04-30",
        ] {
            assert!(valid_date(good), "{good}");
        }
        for bad in [
            "2026-13-05",
            "2026-02-30",
            "2026-02-29",
            "1900-02-29",
            "2026-04-31T00:00:00Z",
            "2026-00-10",
            "2026-12-00",
            "2026-12-5",
            "2026-12-05T24:00:00Z",
            "2026-12-05 13:05:09",
            "2026-12-05T13:05:09",
            "yesterday",
            "",
        ] {
            assert!(!valid_date(bad), "{bad}");
        }
    }

    #[test]
    fn commits_and_labels_are_checked() {
        let night = |c: &str, l: &str| {
            Night::new(Some(c.into()), "2026-12-05".into(), Some(l.into()))
                .map_err(|e| e.to_string())
        };
        assert!(night("6151f2d", "nightly").is_ok());
        assert_eq!(
            night("6151F2D", "x").unwrap_err(),
            "invalid --commit \"6151F2D\": a commit is 4 to 64 lowercase hexadecimal digits"
        );
        assert!(night("abc", "x").is_err());
        assert!(night("abcd", "a\nb").is_err());
        assert!(night("abcd", &"x".repeat(MAX_LABEL_BYTES + 1)).is_err());
    }
}
