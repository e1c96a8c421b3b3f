//! The figures a history keeps of every results row ([`TrackedFigure`]): the gate's tracked metrics
//! ([`Metric::all`]), the survival of the lines agents used when the row has them, and the strategy's and the
//! floor's median times. Each knows its name in the database, whether two runs of the same inputs give the same
//! value, how to read it from a row and how to show it.

use std::sync::LazyLock;

use crate::metrics::{duration, Aggregate, Metric};

/// One figure of a results row that a history keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TrackedFigure {
    /// A metric the gate tracks: `compliance`, `retention`, `needles`, `writes`, `cost` (over the floor) and
    /// `time` (median per batch).
    Metric(Metric),
    /// `usedNeedles.survival`: the share of the lines the agent used that survived (rows of recorded batches
    /// with used lines only).
    UsedSurvival,
    /// `usedNeedles.upperBoundShare`: the share of them any strategy could have kept.
    UsedUpperBound,
    /// `cost.strategyMedianNs`: the strategy's own median time per batch.
    StrategyTime,
    /// `cost.floorMedianNs`: the floor's median time per batch.
    FloorTime,
}

impl TrackedFigure {
    /// Every kept figure, in report order: the gate's metrics, then the used lines, then the two times.
    pub fn all() -> &'static [TrackedFigure] {
        static ALL: LazyLock<Vec<TrackedFigure>> = LazyLock::new(|| {
            Metric::all()
                .iter()
                .map(|&m| TrackedFigure::Metric(m))
                .chain([
                    TrackedFigure::UsedSurvival,
                    TrackedFigure::UsedUpperBound,
                    TrackedFigure::StrategyTime,
                    TrackedFigure::FloorTime,
                ])
                .collect()
        });
        &ALL
    }

    /// Its name in the database and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TrackedFigure::Metric(m) => m.name(),
            TrackedFigure::UsedSurvival => "used",
            TrackedFigure::UsedUpperBound => "usedBound",
            TrackedFigure::StrategyTime => "strategyTime",
            TrackedFigure::FloorTime => "floorTime",
        }
    }

    /// The figure a name (or a gate metric's field) stands for.
    pub fn parse(name: &str) -> Option<TrackedFigure> {
        TrackedFigure::all()
            .iter()
            .copied()
            .find(|t| t.name() == name)
            .or_else(|| Metric::parse(name).map(TrackedFigure::Metric))
    }

    /// The names of every kept figure, for messages.
    pub fn names() -> String {
        TrackedFigure::all()
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether two runs of the same inputs give the same value (all but the times and the cost over the
    /// floor).
    pub fn deterministic(self) -> bool {
        match self {
            TrackedFigure::Metric(m) => m.deterministic(),
            TrackedFigure::UsedSurvival | TrackedFigure::UsedUpperBound => true,
            TrackedFigure::StrategyTime | TrackedFigure::FloorTime => false,
        }
    }

    /// Whether `row` has the figure at all: the used lines' figures only when the row has used lines. A figure
    /// the row has may still be null (nothing to measure it by).
    pub fn present(self, row: &Aggregate) -> bool {
        match self {
            TrackedFigure::UsedSurvival | TrackedFigure::UsedUpperBound => {
                row.used_needles.is_some()
            }
            _ => true,
        }
    }

    /// Its value in `row`; `None` when there is nothing to measure it by.
    pub fn value(self, row: &Aggregate) -> Option<f64> {
        match self {
            TrackedFigure::Metric(m) => m.value(row),
            TrackedFigure::UsedSurvival => row.used_needles.as_ref().map(|u| u.survival),
            TrackedFigure::UsedUpperBound => row.used_needles.as_ref().map(|u| u.upper_bound_share),
            TrackedFigure::StrategyTime => Some(row.cost.strategy_median_ns as f64),
            TrackedFigure::FloorTime => Some(row.cost.floor_median_ns as f64),
        }
    }

    /// A value as a reader wants it (as [`Metric::format`]); `-` for none.
    pub fn format(self, value: Option<f64>) -> String {
        let Some(v) = value else {
            return "-".to_string();
        };
        match self {
            TrackedFigure::Metric(m) => m.format(v),
            TrackedFigure::UsedSurvival | TrackedFigure::UsedUpperBound => {
                Metric::Retention.format(v)
            }
            TrackedFigure::StrategyTime | TrackedFigure::FloorTime => duration(v.max(0.0) as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_only_the_times_and_cost_are_noisy() {
        assert_eq!(
            TrackedFigure::names(),
            "compliance, retention, needles, writes, cost, time, used, usedBound, strategyTime, floorTime"
        );
        for &t in TrackedFigure::all() {
            assert_eq!(TrackedFigure::parse(t.name()), Some(t));
        }
        assert_eq!(
            TrackedFigure::parse("compliance.rate"),
            Some(TrackedFigure::Metric(Metric::Compliance))
        );
        assert_eq!(TrackedFigure::parse("speed"), None);
        let noisy: Vec<&str> = TrackedFigure::all()
            .iter()
            .filter(|t| !t.deterministic())
            .map(|t| t.name())
            .collect();
        assert_eq!(noisy, ["cost", "time", "strategyTime", "floorTime"]);
        assert_eq!(TrackedFigure::UsedSurvival.format(Some(0.5)), "50.00%");
        assert_eq!(TrackedFigure::FloorTime.format(Some(12_345.0)), "12.3 µs");
        assert_eq!(TrackedFigure::Metric(Metric::Cost).format(None), "-");
    }
}
