//! How far each tracked [`Metric`] may move between a baseline and a current run: the `--tolerance` syntax and
//! its defaults.
//!
//! The gate's `cost` is the strategy's time over the floor's ([`crate::floor`]), measured side by side in one
//! process (see [`crate::run::cost`]), so that load on the machine slows both and cancels out; the absolute time
//! per batch is the `time` metric, reported by `compare --cost` but not checked unless a tolerance is given.
//!
//! A tolerance spec is a comma-separated list of `METRIC=VALUE` items; `--tolerance` may be repeated and a later
//! item wins. `METRIC` is a short name (`compliance`, `retention`, `needles`, `writes`, `cost`) or the results
//! field it stands for (`retention.mean`, ...). `VALUE` is one of:
//! - a number `X`: the metric's own kind of tolerance: absolute for shares (`retention=0.01` allows ±0.01, one
//!   percentage point), relative for counts, ratios and times (`writes=0.05` allows ±5% of the baseline, `cost=3`
//!   ±300%);
//! - `X%`: relative, X percent of the baseline value (`writes=10%`);
//! - `abs:X` or `rel:X`: absolute or relative (a factor) whatever the metric (`writes=abs:3`);
//! - `off`: the metric is not compared.
//!
//! A change passes when it is at most the tolerance, in either direction; a relative tolerance of a baseline of
//! 0 allows no change.

use crate::error::{Error, Result};
use crate::metrics::{Metric, Unit};

/// How far a metric may move from the baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// At most this much either way, in the metric's own unit (0.01 of a share is one percentage point).
    Absolute(f64),
    /// At most this factor of the baseline value either way (0.05 is 5%).
    Relative(f64),
    /// Not compared.
    Off,
}

/// The tolerance of `metric` when none is given: ±0.005 for shares, ±5% for writes, ±100% for the cost ratio
/// (only a strategy that became more than twice as slow against the floor fails; measured, load moves it by less
/// than 1.6 times), and no check of the absolute time, which load alone moves by more than that.
pub fn default_tolerance(metric: Metric) -> Tolerance {
    match metric.unit() {
        Unit::Share => Tolerance::Absolute(0.005),
        Unit::Count => Tolerance::Relative(0.05),
        Unit::Ratio => Tolerance::Relative(1.0),
        Unit::Nanos => Tolerance::Off,
    }
}

/// Slack for the floating-point error of a difference, so that a change of exactly the tolerance passes.
const EPSILON: f64 = 1e-9;

impl Tolerance {
    /// Whether moving from `baseline` to `current` stays within the tolerance.
    pub fn allows(self, baseline: f64, current: f64) -> bool {
        let change = (current - baseline).abs();
        match self {
            Tolerance::Absolute(limit) => change <= limit + EPSILON,
            Tolerance::Relative(factor) => change <= factor * baseline.abs() * (1.0 + EPSILON),
            Tolerance::Off => true,
        }
    }

    /// The tolerance in the unit of `metric`'s changes, for messages: `±0.5 pp`, `±3`, `±5%`, `off`.
    pub fn allowance(self, metric: Metric) -> String {
        match self {
            Tolerance::Absolute(x) if metric.unit() == Unit::Share => {
                format!("±{} pp", trim(x * 100.0))
            }
            other => other.describe(metric),
        }
    }

    /// The tolerance as given and, for shares, in percentage points: `±0.005 (0.5 pp)`, `±5%`, `off`.
    pub fn describe(self, metric: Metric) -> String {
        match self {
            Tolerance::Absolute(x) if metric.unit() == Unit::Share => {
                format!("±{x} ({} pp)", trim(x * 100.0))
            }
            Tolerance::Absolute(x) => format!("±{x}"),
            Tolerance::Relative(x) => format!("±{}%", trim(x * 100.0)),
            Tolerance::Off => "off".into(),
        }
    }
}

/// A number without the noise of binary fractions: `0.5`, `200`, `0.25`.
fn trim(x: f64) -> String {
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The tolerance of every tracked metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Tolerances {
    by_metric: Vec<Tolerance>,
}

impl Default for Tolerances {
    fn default() -> Self {
        Tolerances {
            by_metric: Metric::all()
                .iter()
                .map(|&m| default_tolerance(m))
                .collect(),
        }
    }
}

impl Tolerances {
    /// The defaults overridden by `specs`, in order (see the module documentation for the syntax).
    pub fn from_specs<S: AsRef<str>>(specs: &[S]) -> Result<Tolerances> {
        let mut out = Tolerances::default();
        for spec in specs {
            out.apply(spec.as_ref())?;
        }
        Ok(out)
    }

    /// Every metric at the tolerance `default` gives it (`compare`'s thresholds start from their own defaults).
    pub fn with_defaults(default: impl Fn(Metric) -> Tolerance) -> Tolerances {
        Tolerances {
            by_metric: Metric::all().iter().map(|&m| default(m)).collect(),
        }
    }

    /// Applies one spec, `METRIC=VALUE[,METRIC=VALUE...]`.
    pub fn apply(&mut self, spec: &str) -> Result<()> {
        self.apply_flag("--tolerance", spec)
    }

    /// Applies one spec given with `flag` (named in errors): `--tolerance` of check, `--threshold` of compare.
    pub fn apply_flag(&mut self, flag: &str, spec: &str) -> Result<()> {
        for item in spec.split(',').map(str::trim) {
            let bad = |reason: String| Error::invalid(flag, item, reason);
            if item.is_empty() {
                return Err(Error::invalid(
                    flag,
                    spec,
                    "empty item; expected METRIC=VALUE[,METRIC=VALUE...], e.g. retention=0.01,cost=3",
                ));
            }
            let (name, value) = item.split_once('=').ok_or_else(|| {
                bad("expected METRIC=VALUE, e.g. retention=0.01 or writes=10%".into())
            })?;
            let metric = Metric::parse(name.trim()).ok_or_else(|| {
                bad(format!(
                    "unknown metric {:?}; the tracked metrics are {}",
                    name.trim(),
                    Metric::names()
                ))
            })?;
            let tolerance = parse_value(metric, value.trim()).map_err(bad)?;
            self.by_metric[metric.index()] = tolerance;
        }
        Ok(())
    }

    /// The tolerance of `metric`.
    pub fn get(&self, metric: Metric) -> Tolerance {
        self.by_metric[metric.index()]
    }

    /// Every metric with its tolerance, for reports: `compliance.rate ±0.005 (0.5 pp), ...`.
    pub fn describe(&self) -> String {
        Metric::all()
            .iter()
            .map(|&m| format!("{} {}", m.field(), self.get(m).describe(m)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn parse_value(metric: Metric, value: &str) -> std::result::Result<Tolerance, String> {
    if value == "off" {
        return Ok(Tolerance::Off);
    }
    let number = |text: &str| -> std::result::Result<f64, String> {
        let x: f64 = text
            .parse()
            .map_err(|_| "expected a number, X%, abs:X, rel:X or off".to_string())?;
        if !x.is_finite() || x < 0.0 {
            return Err("a tolerance is a finite number of at least 0".into());
        }
        Ok(x)
    };
    if let Some(x) = value.strip_prefix("abs:") {
        return Ok(Tolerance::Absolute(number(x)?));
    }
    if let Some(x) = value.strip_prefix("rel:") {
        return Ok(Tolerance::Relative(number(x)?));
    }
    if let Some(x) = value.strip_suffix('%') {
        return Ok(Tolerance::Relative(number(x)? / 100.0));
    }
    let x = number(value)?;
    Ok(match metric.unit() {
        Unit::Share => Tolerance::Absolute(x),
        Unit::Count | Unit::Ratio | Unit::Nanos => Tolerance::Relative(x),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let t = Tolerances::default();
        assert_eq!(t.get(Metric::Retention), Tolerance::Absolute(0.005));
        assert_eq!(t.get(Metric::Needles), Tolerance::Absolute(0.005));
        assert_eq!(t.get(Metric::Compliance), Tolerance::Absolute(0.005));
        assert_eq!(t.get(Metric::WRITES), Tolerance::Relative(0.05));
        assert_eq!(t.get(Metric::Cost), Tolerance::Relative(1.0));
        assert_eq!(t.get(Metric::Time), Tolerance::Off);
        assert_eq!(
            t.describe(),
            "compliance.rate ±0.005 (0.5 pp), retention.mean ±0.005 (0.5 pp), needles.survival ±0.005 (0.5 pp), \
             persistence.writes ±5%, cost.floorRatio ±100%, cost.medianNs off"
        );
    }

    #[test]
    fn specs_override_in_order() {
        let t = Tolerances::from_specs(&[
            "retention=0.01,cost=3.0",
            "writes=10%",
            "needles.survival=rel:0.1, persistence.writes=abs:3",
            "compliance=off",
            "time=50%",
        ])
        .unwrap();
        assert_eq!(t.get(Metric::Time), Tolerance::Relative(0.5));
        assert_eq!(t.get(Metric::Retention), Tolerance::Absolute(0.01));
        assert_eq!(t.get(Metric::Cost), Tolerance::Relative(3.0));
        assert_eq!(t.get(Metric::WRITES), Tolerance::Absolute(3.0));
        assert_eq!(t.get(Metric::Needles), Tolerance::Relative(0.1));
        assert_eq!(t.get(Metric::Compliance), Tolerance::Off);
    }

    #[test]
    fn a_zero_tolerance_is_accepted_in_every_form() {
        let t =
            Tolerances::from_specs(&["retention=0,writes=0%,cost=rel:0,needles=abs:0"]).unwrap();
        assert_eq!(t.get(Metric::Retention), Tolerance::Absolute(0.0));
        assert_eq!(t.get(Metric::WRITES), Tolerance::Relative(0.0));
        assert_eq!(t.get(Metric::Cost), Tolerance::Relative(0.0));
        assert_eq!(t.get(Metric::Needles), Tolerance::Absolute(0.0));
    }

    #[test]
    fn bad_specs_name_the_item() {
        for (spec, needle) in [
            ("retention", "expected METRIC=VALUE"),
            (
                "speed=1",
                "unknown metric \"speed\"; the tracked metrics are compliance, retention",
            ),
            ("retention=lots", "expected a number"),
            ("retention=-0.1", "at least 0"),
            ("cost=inf", "finite"),
            ("retention=0.01,", "empty item"),
        ] {
            let err = Tolerances::from_specs(&[spec]).unwrap_err().to_string();
            assert!(err.contains(needle), "{spec}: {err}");
            assert!(err.starts_with("invalid --tolerance"), "{err}");
        }
    }

    #[test]
    fn limits_are_inclusive_and_two_sided() {
        let abs = Tolerance::Absolute(0.005);
        assert!(abs.allows(0.8, 0.805));
        assert!(abs.allows(0.8, 0.795));
        assert!(!abs.allows(0.8, 0.8051));
        let rel = Tolerance::Relative(0.05);
        assert!(rel.allows(100.0, 105.0));
        assert!(rel.allows(100.0, 95.0));
        assert!(!rel.allows(100.0, 106.0));
        assert!(rel.allows(0.0, 0.0));
        assert!(!rel.allows(0.0, 1.0));
        assert!(Tolerance::Off.allows(1.0, 1e12));
        assert_eq!(abs.allowance(Metric::Retention), "±0.5 pp");
        assert_eq!(Tolerance::Absolute(3.0).allowance(Metric::WRITES), "±3");
        assert_eq!(rel.allowance(Metric::WRITES), "±5%");
        // A relative tolerance of 200% never fails a speed-up.
        assert!(Tolerance::Relative(2.0).allows(1000.0, 1.0));
        assert!(!Tolerance::Relative(2.0).allows(1000.0, 3001.0));
    }
}
