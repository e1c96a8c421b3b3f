//! `history check`: the verdict for the newest night against the whole history ([`HistoryVerdict`]).
//!
//! A deterministic figure (compliance, retention, needles, writes, the used lines) changes only when the code or
//! the inputs do, so any change from the night before is a move ([`Move`]), named by its night and commit and by
//! whether the inputs' digests changed with it; every move in the history is listed, and a move on the newest
//! night fails the check. The noisy cost over the floor is held to [`RankTest`] at the newest night instead: an
//! alarm fails the check. The times (`time`, `strategyTime`, `floorTime`) move with the machine's load and are
//! shown, not checked.

use std::fmt::Write;

use serde_json::json;

use super::changepoint::{RankTest, Shift};
use super::series::{Filter, NightInfo, Series, SeriesKey, Table};
use super::store::History;
use super::tracked::TrackedFigure;
use crate::error::Result;
use crate::metrics::Metric;

/// A deterministic figure that changed from one night to the next.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    /// The series.
    pub key: SeriesKey,
    /// The night it moved on, from 1.
    pub night: u64,
    /// The night it had the value before, from 1.
    pub since: u64,
    /// The value before.
    pub from: Option<f64>,
    /// The value on the night.
    pub to: Option<f64>,
    /// Whether the inputs' digests differ between the two nights.
    pub inputs_changed: bool,
}

/// A cost series the rank test raised an alarm on at the newest night.
#[derive(Debug, Clone, PartialEq)]
pub struct CostAlarm {
    /// The series.
    pub key: SeriesKey,
    /// The test's figures.
    pub shift: Shift,
    /// The first night of the recent window, from 1.
    pub since: u64,
}

/// The verdict for the newest night.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryVerdict {
    /// Every night.
    pub nights: Vec<NightInfo>,
    /// Every move of a deterministic figure in the history, by night then series.
    pub moves: Vec<Move>,
    /// The cost alarms at the newest night.
    pub alarms: Vec<CostAlarm>,
    /// The cost series with nights enough to be tested at the newest night.
    pub cost_tested: usize,
    /// The test's settings.
    pub test: RankTest,
}

impl HistoryVerdict {
    /// The newest night, if any.
    pub fn newest(&self) -> Option<&NightInfo> {
        self.nights.last()
    }

    /// The moves on the newest night.
    pub fn newest_moves(&self) -> impl Iterator<Item = &Move> {
        let newest = self.newest().map_or(0, |n| n.night);
        self.moves.iter().filter(move |m| m.night == newest)
    }

    /// Whether the newest night passes: no deterministic figure moved on it and no cost alarm.
    pub fn passed(&self) -> bool {
        self.newest_moves().next().is_none() && self.alarms.is_empty()
    }
}

impl History {
    /// The verdict for the newest night, the cost held to `test`.
    pub fn check(&self, test: &RankTest) -> Result<HistoryVerdict> {
        Ok(verdict(&self.series(&Filter::default())?, test))
    }
}

/// The verdict of `table` (every night, every series), the cost held to `test`.
pub fn verdict(table: &Table, test: &RankTest) -> HistoryVerdict {
    let mut moves = Vec::new();
    let mut alarms = Vec::new();
    let mut cost_tested = 0;
    for series in &table.series {
        let figure = series.key.figure;
        if figure.deterministic() {
            moves.extend(series_moves(series, &table.nights));
        } else if figure == TrackedFigure::Metric(Metric::Cost)
            && series.values.last().is_some_and(|v| v.flatten().is_some())
        {
            let values: Vec<(usize, f64)> = series
                .values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| Some((i, (*v)??)))
                .collect();
            let plain: Vec<f64> = values.iter().map(|&(_, v)| v).collect();
            if let Some(shift) = test.at_end(&plain) {
                cost_tested += 1;
                if shift.alarm {
                    let since = values[values.len() - test.window()].0 as u64 + 1;
                    alarms.push(CostAlarm {
                        key: series.key.clone(),
                        shift,
                        since,
                    });
                }
            }
        }
    }
    moves.sort_by_key(|m| m.night);
    HistoryVerdict {
        nights: table.nights.clone(),
        moves,
        alarms,
        cost_tested,
        test: test.clone(),
    }
}

/// The moves of one deterministic series: each night whose value differs from the last night that had the row.
fn series_moves(series: &Series, nights: &[NightInfo]) -> Vec<Move> {
    let mut moves = Vec::new();
    let mut last: Option<(usize, Option<f64>)> = None;
    for (i, value) in series.values.iter().enumerate() {
        let Some(value) = *value else { continue };
        if let Some((j, before)) = last {
            if before.map(f64::to_bits) != value.map(f64::to_bits) {
                moves.push(Move {
                    key: series.key.clone(),
                    night: nights[i].night,
                    since: nights[j].night,
                    from: before,
                    to: value,
                    inputs_changed: nights[i].inputs_sha256 != nights[j].inputs_sha256,
                });
            }
        }
        last = Some((i, value));
    }
    moves
}

/// The verdict as Markdown: the newest night, then what fails it, then the moves of the history.
pub fn markdown(verdict: &HistoryVerdict) -> String {
    let mut out = String::new();
    let Some(newest) = verdict.newest() else {
        out.push_str("No nights recorded: nothing to check.\n");
        return out;
    };
    let test = &verdict.test;
    let _ = writeln!(
        out,
        "# History check: {}\n\nNewest night {} of {} ({}, commit {}). Cost over the floor: the last {} nights \
         against the {} before, one-sided Mann-Whitney at alpha {} and a rise of at least {:.0}% (a false-alarm \
         rate of at most {} per 100 nights a series); {} series tested (a series is tested from its night {}).\n",
        if verdict.passed() { "PASS" } else { "FAIL" },
        newest.night,
        verdict.nights.len(),
        newest.date,
        newest.short_commit(),
        test.window(),
        test.window(),
        test.alpha(),
        (test.min_ratio() - 1.0) * 100.0,
        test.alpha() * 100.0,
        verdict.cost_tested,
        2 * test.window(),
    );
    let night_of = |n: u64| &verdict.nights[n as usize - 1];
    let newest_moves: Vec<&Move> = verdict.newest_moves().collect();
    if newest_moves.is_empty() && verdict.alarms.is_empty() {
        out.push_str("No deterministic figure moved on the newest night and no cost alarm.\n\n");
    }
    if !newest_moves.is_empty() {
        out.push_str("## Moved on the newest night\n\n");
        moves_table(&mut out, &newest_moves, &night_of);
    }
    if !verdict.alarms.is_empty() {
        out.push_str(
            "## Cost alarms\n\n| row | before | recent | rise | p-value | since night |\n",
        );
        out.push_str("|---|---:|---:|---:|---:|---|\n");
        for a in &verdict.alarms {
            let cost = TrackedFigure::Metric(Metric::Cost);
            let since = night_of(a.since);
            let _ = writeln!(
                out,
                "| {} {} {} | {} | {} | {} | {:.4} | {} ({}, commit {}) |",
                a.key.scenario,
                a.key.budget,
                a.key.strategy,
                cost.format(Some(a.shift.before)),
                cost.format(Some(a.shift.after)),
                a.shift
                    .ratio()
                    .map_or("-".to_string(), |r| format!("{:+.1}%", (r - 1.0) * 100.0)),
                a.shift.p_value,
                since.night,
                since.date,
                since.short_commit()
            );
        }
        out.push('\n');
    }
    let all: Vec<&Move> = verdict.moves.iter().collect();
    if !all.is_empty() {
        out.push_str("## Every move in the history\n\n");
        moves_table(&mut out, &all, &night_of);
    }
    out
}

fn moves_table<'a>(out: &mut String, moves: &[&Move], night_of: &dyn Fn(u64) -> &'a NightInfo) {
    out.push_str("| night | commit | metric | row | from | to | inputs changed |\n");
    out.push_str("|---:|---|---|---|---:|---:|---|\n");
    for m in moves {
        let night = night_of(m.night);
        let _ = writeln!(
            out,
            "| {} ({}) | {} | {} | {} {} {} | {} | {} | {} |",
            m.night,
            night.date,
            night.short_commit(),
            m.key.figure.name(),
            m.key.scenario,
            m.key.budget,
            m.key.strategy,
            m.key.figure.format(m.from),
            m.key.figure.format(m.to),
            if m.inputs_changed { "yes" } else { "no" }
        );
    }
    out.push('\n');
}

/// The verdict as JSON.
pub fn json(verdict: &HistoryVerdict) -> serde_json::Value {
    let key = |k: &SeriesKey| json!({"metric": k.figure.name(), "scenario": k.scenario, "budget": k.budget, "strategy": k.strategy});
    let night = |n: u64| verdict.nights.get(n as usize - 1);
    json!({
        "passed": verdict.passed(),
        "nights": verdict.nights.len(),
        "newest": verdict.newest(),
        "test": {
            "method": "one-sided Mann-Whitney, last window against the window before",
            "window": verdict.test.window(),
            "alpha": verdict.test.alpha(),
            "minRatio": verdict.test.min_ratio(),
            "falseAlarmsPer100NightsAtMost": verdict.test.alpha() * 100.0,
        },
        "costTested": verdict.cost_tested,
        "moves": verdict.moves.iter().map(|m| json!({
            "series": key(&m.key),
            "night": m.night,
            "commit": night(m.night).and_then(|n| n.commit.clone()),
            "date": night(m.night).map(|n| n.date.clone()),
            "since": m.since,
            "from": m.from,
            "to": m.to,
            "inputsChanged": m.inputs_changed,
            "newest": Some(m.night as usize) == Some(verdict.nights.len()),
        })).collect::<Vec<_>>(),
        "alarms": verdict.alarms.iter().map(|a| json!({
            "series": key(&a.key),
            "before": a.shift.before,
            "after": a.shift.after,
            "u": a.shift.u,
            "pValue": a.shift.p_value,
            "since": a.since,
            "commit": night(a.since).and_then(|n| n.commit.clone()),
        })).collect::<Vec<_>>(),
    })
}
