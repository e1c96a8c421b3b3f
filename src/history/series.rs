//! Reading the history back: the nights in order ([`NightInfo`]) and, for each kept figure of each row, its
//! value night by night ([`Series`]), filtered as `history show` and `history check` ask ([`Filter`]).

use std::collections::BTreeMap;

use serde::Serialize;

use super::store::History;
use super::tracked::TrackedFigure;
use crate::error::{Error, Result};

/// The most nights `--last` may ask for.
pub const MAX_LAST: usize = 1_000_000;

/// One night of the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NightInfo {
    /// Its place, from 1, in the order of the nights (by date, then as added).
    pub night: u64,
    /// Its date.
    pub date: String,
    /// Its commit, when given.
    pub commit: Option<String>,
    /// Its label, when given.
    pub label: Option<String>,
    /// The sha256 of its `results.json`.
    pub results_sha256: String,
    /// The sha256 of its inputs.
    pub inputs_sha256: String,
    /// The budgetlab version that made the run.
    pub crate_version: String,
}

impl NightInfo {
    /// The commit's first 12 digits, or `-`.
    pub fn short_commit(&self) -> &str {
        self.commit
            .as_deref()
            .map_or("-", |c| &c[..c.len().min(12)])
    }
}

/// Which series to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// The figures (all when empty).
    pub figures: Vec<TrackedFigure>,
    /// Only this scenario.
    pub scenario: Option<String>,
    /// Only this budget label.
    pub budget: Option<String>,
    /// Only this strategy.
    pub strategy: Option<String>,
    /// Only the last this many nights.
    pub last: Option<usize>,
}

/// What a series is of: a figure of one (scenario, budget, strategy) row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SeriesKey {
    /// The figure.
    pub figure: TrackedFigure,
    /// The scenario.
    pub scenario: String,
    /// The budget label.
    pub budget: String,
    /// The strategy.
    pub strategy: String,
}

/// A figure of one row night by night.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// What it is of.
    pub key: SeriesKey,
    /// One entry a night of [`Table::nights`]: `None` when the run had no such row, `Some(None)` when the row had
    /// nothing to measure the figure by.
    pub values: Vec<Option<Option<f64>>>,
}

/// The nights and the series read.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The nights, in order.
    pub nights: Vec<NightInfo>,
    /// The series, by figure (in [`TrackedFigure::all`] order), then rows in the order first recorded.
    pub series: Vec<Series>,
}

impl History {
    /// The nights and the series `filter` selects. Refused: a `--last` of 0 or over [`MAX_LAST`].
    pub fn series(&self, filter: &Filter) -> Result<Table> {
        if let Some(last) = filter.last {
            if last == 0 || last > MAX_LAST {
                return Err(Error::invalid(
                    "--last",
                    last.to_string(),
                    format!("the nights shown are 1 to {MAX_LAST}"),
                ));
            }
        }
        let sql = |e| self.sql(e);
        let mut statement = self
            .conn
            .prepare(
                "SELECT id, date, commit_sha, label, results_sha256, inputs_sha256, crate_version \
                 FROM runs ORDER BY date, id",
            )
            .map_err(sql)?;
        let mut ids = Vec::new();
        let mut nights = Vec::new();
        let rows = statement
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    NightInfo {
                        night: 0,
                        date: r.get(1)?,
                        commit: r.get(2)?,
                        label: r.get(3)?,
                        results_sha256: r.get(4)?,
                        inputs_sha256: r.get(5)?,
                        crate_version: r.get(6)?,
                    },
                ))
            })
            .map_err(sql)?;
        for (i, row) in rows.enumerate() {
            let (id, mut night) = row.map_err(sql)?;
            night.night = i as u64 + 1;
            ids.push(id);
            nights.push(night);
        }
        let skip = filter
            .last
            .map_or(0, |last| nights.len().saturating_sub(last));
        let ids = ids.split_off(skip);
        let nights = nights.split_off(skip);
        let column: BTreeMap<i64, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        let first_id = ids.iter().copied().min().unwrap_or(0);
        let mut statement = self
            .conn
            .prepare(
                "SELECT f.run_id, s.id, s.scenario, s.budget, s.strategy, s.metric, f.value \
                 FROM figures f JOIN series s ON s.id = f.series_id \
                 WHERE f.run_id >= ?1 \
                 AND (?2 IS NULL OR s.scenario = ?2) AND (?3 IS NULL OR s.budget = ?3) \
                 AND (?4 IS NULL OR s.strategy = ?4)",
            )
            .map_err(sql)?;
        let rows = statement
            .query_map(
                rusqlite::params![first_id, filter.scenario, filter.budget, filter.strategy],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, String>(5)?,
                        r.get::<_, Option<f64>>(6)?,
                    ))
                },
            )
            .map_err(sql)?;
        // By figure, then in the order the rows were first recorded (a run's order).
        let mut series: BTreeMap<(TrackedFigure, i64), Series> = BTreeMap::new();
        for row in rows {
            let (run_id, id, scenario, budget, strategy, metric, value) = row.map_err(sql)?;
            let Some(&at) = column.get(&run_id) else {
                continue;
            };
            let Some(figure) = TrackedFigure::parse(&metric) else {
                continue;
            };
            if !filter.figures.is_empty() && !filter.figures.contains(&figure) {
                continue;
            }
            series
                .entry((figure, id))
                .or_insert_with(|| Series {
                    key: SeriesKey {
                        figure,
                        scenario,
                        budget,
                        strategy,
                    },
                    values: vec![None; nights.len()],
                })
                .values[at] = Some(value);
        }
        Ok(Table {
            nights,
            series: series.into_values().collect(),
        })
    }
}
