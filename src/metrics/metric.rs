//! The tracked metrics of a results row ([`Metric`]): what each reads from a row, what its values are
//! ([`Unit`]) and how a value and a change read. The gate checks them against a baseline, `compare` lists their
//! differences and the charts draw them against a budget or a swept parameter, all from this one list.

use std::fmt;
use std::sync::LazyLock;

use super::{Aggregate, Figure, FIGURES};

/// A tracked metric of a results row: what the gate compares with the baseline, `compare` lists and the charts
/// draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Metric {
    /// `compliance.rate`: the share of batches within budget.
    Compliance,
    /// `retention.mean`: the mean kept share per field.
    Retention,
    /// `needles.survival`: the share of planted needles still visible.
    Needles,
    /// A row figure the gate tracks (its [`Figure::gate`] is set), named by its [`Figure::column`]: for example
    /// [`Metric::WRITES`], `persistence.writes`.
    Count(&'static str),
    /// `cost.floorRatio`: the strategy's time over the floor's, measured side by side, averaged over the middle
    /// half of the batches (not deterministic, but what load on the machine changes cancels out).
    Cost,
    /// `cost.medianNs`: median time per batch (not deterministic, and slowed by anything else on the machine:
    /// not checked unless a tolerance is given).
    Time,
}

/// What a metric's values are, for reading and for its default kind of tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A share between 0 and 1.
    Share,
    /// A count.
    Count,
    /// A ratio of two times.
    Ratio,
    /// Nanoseconds.
    Nanos,
}

impl Metric {
    /// `persistence.writes`: successful artifact writes.
    pub const WRITES: Metric = Metric::Count("writes");

    /// Every tracked metric, in report order: compliance, retention and needles, then the tracked row figures in
    /// the order of [`FIGURES`], then the cost and the time.
    pub fn all() -> &'static [Metric] {
        static ALL: LazyLock<Vec<Metric>> = LazyLock::new(|| {
            let counts = FIGURES
                .iter()
                .filter(|f| f.gate.is_some())
                .map(|f| Metric::Count(f.column));
            [Metric::Compliance, Metric::Retention, Metric::Needles]
                .into_iter()
                .chain(counts)
                .chain([Metric::Cost, Metric::Time])
                .collect()
        });
        &ALL
    }

    /// Its place in [`Metric::all`].
    pub fn index(self) -> usize {
        Metric::all()
            .iter()
            .position(|&m| m == self)
            .expect("a metric is one of Metric::all()")
    }

    /// The names of every tracked metric, for messages: `compliance, retention, ...`.
    pub fn names() -> String {
        Metric::all()
            .iter()
            .map(|m| m.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The short name used in tolerance specs and reports.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Compliance => "compliance",
            Metric::Retention => "retention",
            Metric::Needles => "needles",
            Metric::Count(_) => self.figure().map_or("", |f| f.key),
            Metric::Cost => "cost",
            Metric::Time => "time",
        }
    }

    /// The field of `results.json` rows it reads.
    pub fn field(self) -> &'static str {
        match self {
            Metric::Compliance => "compliance.rate",
            Metric::Retention => "retention.mean",
            Metric::Needles => "needles.survival",
            Metric::Count(_) => self.figure().map_or("", |f| f.field),
            Metric::Cost => "cost.floorRatio",
            Metric::Time => "cost.medianNs",
        }
    }

    /// What its values are.
    pub fn unit(self) -> Unit {
        match self {
            Metric::Compliance | Metric::Retention | Metric::Needles => Unit::Share,
            Metric::Count(_) => Unit::Count,
            Metric::Cost => Unit::Ratio,
            Metric::Time => Unit::Nanos,
        }
    }

    /// The row figure it is, if any.
    pub fn figure(self) -> Option<&'static Figure> {
        match self {
            Metric::Count(column) => FIGURES
                .iter()
                .find(|f| f.column == column && f.gate.is_some()),
            _ => None,
        }
    }

    /// Whether two runs of the same inputs give the same value (all but the cost and the time).
    pub fn deterministic(self) -> bool {
        !matches!(self, Metric::Cost | Metric::Time)
    }

    /// Its value in `row`; `None` when the row has nothing to measure it by (a cost ratio without a measurable
    /// floor, retention without a field, survival without a planted needle).
    pub fn value(self, row: &Aggregate) -> Option<f64> {
        match self {
            Metric::Compliance => Some(row.compliance.rate),
            Metric::Retention => row.retention.mean,
            Metric::Needles => row.needles.survival,
            Metric::Count(_) => self.figure().and_then(|f| Some(f.row?(row) as f64)),
            Metric::Cost => row.cost.floor_ratio,
            Metric::Time => Some(row.cost.median_ns as f64),
        }
    }

    /// A value as a reader wants it: shares as percentages with two decimals, counts whole, ratios with two
    /// decimals and an `x`, times in a unit.
    pub fn format(self, value: f64) -> String {
        match self.unit() {
            Unit::Share => format!("{:.2}%", value * 100.0),
            Unit::Count => format!("{value:.0}"),
            Unit::Ratio => format!("{value:.2}x"),
            Unit::Nanos => duration(value.max(0.0) as u64),
        }
    }

    /// [`Metric::format`], or `-` for a value with nothing to measure it by.
    pub fn format_opt(self, value: Option<f64>) -> String {
        value.map_or_else(|| "-".to_string(), |v| self.format(v))
    }

    /// The change from `from` to `to`: percentage points for shares, the difference and its relative size for
    /// counts, the relative size for ratios and times.
    pub fn format_change(self, from: f64, to: f64) -> String {
        let relative = || {
            if from == 0.0 {
                String::new()
            } else {
                format!("{:+.1}%", (to - from) / from * 100.0)
            }
        };
        match self.unit() {
            Unit::Share => format!("{:+.2} pp", (to - from) * 100.0),
            Unit::Count => {
                let rel = relative();
                if rel.is_empty() {
                    format!("{:+.0}", to - from)
                } else {
                    format!("{:+.0} ({rel})", to - from)
                }
            }
            Unit::Ratio | Unit::Nanos => {
                let rel = relative();
                if rel.is_empty() {
                    format!("+{}", duration((to - from).max(0.0) as u64))
                } else {
                    rel
                }
            }
        }
    }

    /// What the metric is, for titles.
    pub fn title(self) -> &'static str {
        match self {
            Metric::Compliance => "Budget compliance",
            Metric::Retention => "Retention",
            Metric::Needles => "Needle survival",
            Metric::Count(_) => self.figure().and_then(|f| f.gate).map_or("", |g| g.title),
            Metric::Cost => "Cost over the floor",
            Metric::Time => "Time per batch",
        }
    }

    /// The metric a tolerance spec names: its short name or its field.
    pub fn parse(name: &str) -> Option<Metric> {
        Metric::all()
            .iter()
            .copied()
            .find(|m| m.name() == name || m.field() == name)
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Nanoseconds in the most readable unit.
pub fn duration(ns: u64) -> String {
    match ns {
        0..=9_999 => format!("{ns} ns"),
        10_000..=9_999_999 => format!("{:.1} µs", ns as f64 / 1e3),
        _ => format!("{:.1} ms", ns as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_fields_parse_back() {
        for &m in Metric::all() {
            assert_eq!(Metric::parse(m.name()), Some(m));
            assert_eq!(Metric::parse(m.field()), Some(m));
            assert_eq!(m.to_string(), m.name());
        }
        assert_eq!(Metric::parse("speed"), None);
        assert_eq!(
            Metric::all()
                .iter()
                .map(|m| m.deterministic())
                .collect::<Vec<_>>(),
            [true, true, true, true, false, false]
        );
        assert_eq!(
            Metric::all().iter().map(|m| m.title()).collect::<Vec<_>>(),
            [
                "Budget compliance",
                "Retention",
                "Needle survival",
                "Artifact writes",
                "Cost over the floor",
                "Time per batch"
            ]
        );
    }

    #[test]
    fn every_tracked_row_figure_is_a_metric_between_the_needles_and_the_cost() {
        let tracked: Vec<Metric> = FIGURES
            .iter()
            .filter(|f| f.gate.is_some())
            .map(|f| Metric::Count(f.column))
            .collect();
        assert_eq!(tracked, [Metric::WRITES]);
        let all = Metric::all();
        assert_eq!(&all[3..all.len() - 2], tracked.as_slice());
        for (i, &m) in all.iter().enumerate() {
            assert_eq!(m.index(), i);
        }
        // A figure the gate does not track is no metric, whatever its column.
        assert_eq!(Metric::Count("bytes_written").figure().map(|f| f.key), None);
        assert_eq!(Metric::WRITES.figure().map(|f| f.key), Some("writes"));
        assert_eq!(
            Metric::names(),
            "compliance, retention, needles, writes, cost, time"
        );
    }

    #[test]
    fn values_and_changes_read_well() {
        assert_eq!(Metric::Retention.format(0.81234), "81.23%");
        assert_eq!(Metric::Retention.format_change(0.8, 0.7957), "-0.43 pp");
        assert_eq!(Metric::WRITES.format_change(40.0, 42.0), "+2 (+5.0%)");
        assert_eq!(Metric::WRITES.format_change(0.0, 3.0), "+3");
        assert_eq!(Metric::Time.format(12_345.0), "12.3 µs");
        assert_eq!(Metric::Time.format_change(1000.0, 3500.0), "+250.0%");
        assert_eq!(Metric::Cost.format(1.234), "1.23x");
        assert_eq!(Metric::Cost.format_opt(None), "-");
        assert_eq!(Metric::Cost.format_change(1.5, 4.5), "+200.0%");
        assert_eq!(duration(950), "950 ns");
        assert_eq!(duration(12_345), "12.3 µs");
        assert_eq!(duration(45_600_000), "45.6 ms");
    }
}
