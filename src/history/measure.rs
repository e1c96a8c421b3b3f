//! How well [`RankTest`] finds cost regressions: simulated histories of a cost series (log-normal noise of a
//! given spread around 1, seeded), some with a regression by a factor injected half-way, measured for the
//! delay from the first regressed night to the alarm and for the false alarms on histories with no change.
//! `cargo run --release --example history_detection` prints the table the README gives.

use serde::Serialize;

use super::changepoint::RankTest;
use crate::rng::{Seed, Stream};

/// What to simulate.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// Nights in each history.
    pub nights: usize,
    /// The first regressed night (0-based) of a history with a regression.
    pub change_at: usize,
    /// Histories per factor.
    pub histories: usize,
    /// The log-space standard deviation of a night's cost.
    pub sigma: f64,
    /// The seed of the noise.
    pub seed: Seed,
}

/// The detection of one regression factor.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Detection {
    /// The factor the cost is multiplied by from the change on.
    pub factor: f64,
    /// Histories whose regression raised an alarm by the last night.
    pub detected: usize,
    /// Histories simulated.
    pub histories: usize,
    /// The median delay, in nights from the first regressed night to the first alarm on or after it (0: the
    /// same night); `None` when none was detected.
    pub median_delay: Option<usize>,
    /// The 90th percentile of the delay (nearest rank, of the detected).
    pub p90_delay: Option<usize>,
    /// The longest delay of the detected.
    pub max_delay: Option<usize>,
}

/// The whole measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Measurement {
    /// The log-space spread simulated.
    pub sigma: f64,
    /// Nights in each history.
    pub nights: usize,
    /// The first regressed night (0-based).
    pub change_at: usize,
    /// Histories per factor.
    pub histories: usize,
    /// Alarm nights per 100 tested nights on histories with no change (a night is tested once it has two
    /// windows of history).
    pub false_alarms_per_100_nights: f64,
    /// One a factor.
    pub detections: Vec<Detection>,
}

/// History `index` of `factor`: `nights` log-normal costs of median 1 and spread `sigma`, multiplied by
/// `factor` from night `change_at` on. The noise of a history depends on (seed, index) only, so the histories
/// of every factor share it.
pub fn history(sim: &Simulation, index: u64, factor: f64) -> Vec<f64> {
    let mut stream = Stream::derive(sim.seed, "history/measure", index);
    (0..sim.nights)
        .map(|night| {
            let noise = stream.lognormal(1.0, sim.sigma);
            if night >= sim.change_at {
                noise * factor
            } else {
                noise
            }
        })
        .collect()
}

/// The nights (0-based) of `values` on which `test` raises an alarm.
pub fn alarm_nights(test: &RankTest, values: &[f64]) -> Vec<usize> {
    (1..=values.len())
        .filter(|&end| test.at_end(&values[..end]).is_some_and(|s| s.alarm))
        .map(|end| end - 1)
        .collect()
}

/// Measures `test` on `sim`'s histories: false alarms on histories without a change, and the delay for each
/// of `factors`.
pub fn measure(test: &RankTest, sim: &Simulation, factors: &[f64]) -> Measurement {
    let tested_per_history = sim.nights.saturating_sub(2 * test.window() - 1);
    let mut false_alarms = 0usize;
    for i in 0..sim.histories as u64 {
        false_alarms += alarm_nights(test, &history(sim, i, 1.0)).len();
    }
    let tested = tested_per_history * sim.histories;
    let detections = factors
        .iter()
        .map(|&factor| {
            let mut delays: Vec<usize> = (0..sim.histories as u64)
                .filter_map(|i| {
                    alarm_nights(test, &history(sim, i, factor))
                        .into_iter()
                        .find(|&n| n >= sim.change_at)
                        .map(|n| n - sim.change_at)
                })
                .collect();
            delays.sort_unstable();
            let rank = |p: f64| {
                (!delays.is_empty()).then(|| {
                    let r = ((p * delays.len() as f64).ceil() as usize).clamp(1, delays.len());
                    delays[r - 1]
                })
            };
            Detection {
                factor,
                detected: delays.len(),
                histories: sim.histories,
                median_delay: rank(0.5),
                p90_delay: rank(0.9),
                max_delay: delays.last().copied(),
            }
        })
        .collect();
    Measurement {
        sigma: sim.sigma,
        nights: sim.nights,
        change_at: sim.change_at,
        histories: sim.histories,
        false_alarms_per_100_nights: if tested == 0 {
            0.0
        } else {
            false_alarms as f64 / tested as f64 * 100.0
        },
        detections,
    }
}

/// The measurement as a Markdown table, one row a factor.
pub fn markdown(test: &RankTest, m: &Measurement) -> String {
    let opt = |v: Option<usize>| v.map_or("-".to_string(), |v| v.to_string());
    let mut out = format!(
        "{} histories of {} nights a factor, log-normal noise of spread {:.3}, regression from night {}; \
         window {}, alpha {}, rise of at least {:.0}%. False alarms: {:.2} per 100 nights.\n\n\
         | regression | detected | median delay | p90 delay | longest delay |\n|---:|---:|---:|---:|---:|\n",
        m.histories,
        m.nights,
        m.sigma,
        m.change_at + 1,
        test.window(),
        test.alpha(),
        (test.min_ratio() - 1.0) * 100.0,
        m.false_alarms_per_100_nights
    );
    for d in &m.detections {
        out.push_str(&format!(
            "| {:.1}x | {}/{} | {} | {} | {} |\n",
            d.factor,
            d.detected,
            d.histories,
            opt(d.median_delay),
            opt(d.p90_delay),
            opt(d.max_delay)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table: `cargo run --release --example history_detection` prints it.
    fn table(sigma: f64) -> String {
        let test = RankTest::default_test();
        let sim = Simulation {
            nights: 60,
            change_at: 30,
            histories: 500,
            sigma,
            seed: Seed(1),
        };
        markdown(&test, &measure(&test, &sim, &[1.2, 1.5, 2.0]))
    }

    #[test]
    fn the_readme_table_is_what_the_simulation_gives() {
        let head = |sigma: &str, false_alarms: &str| {
            format!(
                "500 histories of 60 nights a factor, log-normal noise of spread {sigma}, regression from night \
                 31; window 5, alpha 0.01, rise of at least 10%. False alarms: {false_alarms} per 100 nights.\n\n\
                 | regression | detected | median delay | p90 delay | longest delay |\n|---:|---:|---:|---:|---:|\n"
            )
        };
        assert_eq!(
            table(0.018),
            head("0.018", "0.00")
                + "| 1.2x | 500/500 | 4 | 4 | 4 |\n| 1.5x | 500/500 | 4 | 4 | 4 |\n| 2.0x | 500/500 | 4 | 4 | 4 |\n"
        );
        assert_eq!(
            table(0.045),
            head("0.045", "0.04")
                + "| 1.2x | 493/500 | 4 | 4 | 6 |\n| 1.5x | 500/500 | 4 | 4 | 4 |\n| 2.0x | 500/500 | 4 | 4 | 4 |\n"
        );
        assert_eq!(
            table(0.18),
            head("0.180", "0.80")
                + "| 1.2x | 204/500 | 5 | 24 | 29 |\n| 1.5x | 416/500 | 4 | 5 | 29 |\n| 2.0x | 497/500 | 4 | 4 | 7 |\n"
        );
    }

    #[test]
    fn false_alarms_stay_under_the_stated_bound_and_the_noise_is_seeded() {
        let test = RankTest::default_test();
        // Without the effect floor, the rank test alone: at most alpha of the nights, whatever the spread.
        let ranks_only = RankTest::new(5, 0.01, 1.0).unwrap();
        let sim = Simulation {
            nights: 60,
            change_at: 30,
            histories: 300,
            sigma: 0.5,
            seed: Seed(7),
        };
        let m = measure(&ranks_only, &sim, &[]);
        assert!(
            m.false_alarms_per_100_nights <= 1.0,
            "{}",
            m.false_alarms_per_100_nights
        );
        assert!(m.false_alarms_per_100_nights > 0.0);
        assert!(
            measure(&test, &sim, &[]).false_alarms_per_100_nights <= m.false_alarms_per_100_nights
        );
        assert_eq!(history(&sim, 3, 2.0), history(&sim, 3, 2.0));
        let (flat, risen) = (history(&sim, 3, 1.0), history(&sim, 3, 2.0));
        assert_eq!(flat[..30], risen[..30]);
        assert!(flat[30..]
            .iter()
            .zip(&risen[30..])
            .all(|(a, b)| *b == 2.0 * a));
    }
}
