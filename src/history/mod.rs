//! The nightly history (`budgetlab history`): a SQLite database of runs, one a night, that keeps every row's
//! tracked figures with the commit, the date and the inputs' digests, so that the trend of each figure and the
//! night that moved it can be read back, and the newest night checked against all of them rather than one
//! baseline.
//!
//! From the top: [`store`] opens the database safely and keeps its schema ([`schema`]: a version and its
//! migrations); [`RunRecord`] is what a run adds and [`History::add`] records it in one transaction; [`tracked`]
//! names the figures kept; [`History::series`] reads them back night by night and [`show`] prints them;
//! [`History::check`] gives the verdict ([`check`]), holding the noisy cost to a rank test
//! ([`changepoint`]) whose false alarms and delays [`measure`] measures on simulated histories.

pub mod changepoint;
pub mod check;
pub mod measure;
pub mod record;
pub mod schema;
pub mod series;
pub mod show;
pub mod store;
pub mod tracked;

pub use changepoint::{RankTest, Shift};
pub use check::{CostAlarm, HistoryVerdict, Move};
pub use record::{iso_date, Added, Night, RowFigure, RunRecord};
pub use series::{Filter, NightInfo, Series, SeriesKey, Table};
pub use store::History;
pub use tracked::TrackedFigure;

/// The database `history` uses without `--db`.
pub const DEFAULT_DB: &str = "reports/history.sqlite";

#[cfg(test)]
mod tests;
