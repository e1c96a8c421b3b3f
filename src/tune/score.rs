//! What `tune` measures of a setting: per turn the few sums its objective and constraints are made of, added
//! over batches in batch order (whole numbers, so any order gives the same bytes), and the objective itself.
//!
//! The needle and used objectives are taken over the results longer than the budget (a result whose original
//! field is longer than the budget in UTF-16 units): there a policy has to cut and settings can differ; the pooled
//! figures are kept beside them. What the agent used is counted in used tokens (a distinctive token first seen
//! in the result and reused within the next turns, kept when any kept part of its field still holds it), the
//! unit the report leads with; the used lines are kept beside them. Each turn also counts what breaks the
//! design's contract: a cut output that no artifact holds (and whose write was not even attempted), and anything
//! the design exempts that changed (order, non-text parts, reminders, non-budgeted content, surrogate pairs, the
//! records agreeing).
//!
//! The validation set's gain over the reference gets a paired interval: a Poisson bootstrap whose weights come
//! from the group of the batch alone ([`crate::metrics::resample::weights`], the run's ranking uses the same), so
//! the setting and the reference weigh each batch alike, and the batches of one group together.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::budget::PlanReminders;
use crate::error::{Error, Result};
use crate::finalize::{collect_slots, SlotScope};
use crate::generate::GeneratedBatch;
use crate::metrics::resample::{weights, RESAMPLES};
use crate::metrics::BatchMetrics;
use crate::model::Field;
use crate::needles::NeedleKind;
use crate::simulate::TurnRecord;

/// A turn's mean kept share is summed in millionths.
const SHARE_SCALE: f64 = 1_000_000.0;

/// The sums one turn adds to a setting's tally.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sums {
    /// Turns.
    pub turns: u64,
    /// Turns whose model request went over the budget.
    pub over_budget: u64,
    /// Needles (planted, or found by the detector in recorded batches) still visible.
    pub survived: u64,
    /// Needles.
    pub needles: u64,
    /// Mean kept share of each turn x its fields, in millionths.
    pub kept: u64,
    /// Budgeted fields.
    pub fields: u64,
    /// Lines the agent used (recorded sessions with a used-lines file) still visible.
    pub used_survived: u64,
    /// Lines the agent used.
    pub used: u64,
    /// Successful artifact writes.
    pub writes: u64,
    /// Needles in results longer than the budget, still visible.
    #[serde(default)]
    pub long_survived: u64,
    /// Needles in results longer than the budget.
    #[serde(default)]
    pub long_needles: u64,
    /// Used lines in results longer than the budget, still visible.
    #[serde(default)]
    pub long_used_survived: u64,
    /// Used lines in results longer than the budget.
    #[serde(default)]
    pub long_used: u64,
    /// Used tokens still visible.
    #[serde(default)]
    pub tokens_survived: u64,
    /// Used tokens.
    #[serde(default)]
    pub tokens: u64,
    /// Used tokens in results longer than the budget, still visible.
    #[serde(default)]
    pub long_tokens_survived: u64,
    /// Used tokens in results longer than the budget.
    #[serde(default)]
    pub long_tokens: u64,
    /// Results (budgeted fields) longer than the budget.
    #[serde(default)]
    pub long_results: u64,
    /// Shortened fields no artifact holds whole, of entries that came without one, whose write was not even
    /// attempted (a failed write is the store's fault, not the setting's).
    #[serde(default)]
    pub unrecoverable: u64,
    /// Changes to what the design exempts: entries reordered or dropped, non-text parts, reminders or
    /// non-budgeted content changed, surrogate pairs broken, and turns whose records differ.
    #[serde(default)]
    pub exempt_changed: u64,
}

/// What `tune` measures of a turn beyond its metrics: the needles and used lines in results longer than the
/// budget, and the shortened fields that cannot be read back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnFacts {
    long_survived: u64,
    long_needles: u64,
    long_used_survived: u64,
    long_used: u64,
    long_tokens_survived: u64,
    long_tokens: u64,
    long_results: u64,
    unrecoverable: u64,
}

impl TurnFacts {
    /// Measures `record`, the turn of `generated` at a budget of `units`.
    pub fn of(
        generated: &GeneratedBatch,
        record: &TurnRecord,
        reminders: &PlanReminders,
        units: u64,
    ) -> TurnFacts {
        let input = &generated.batch;
        let output = &record.model_request;
        let mut position: BTreeMap<usize, usize> = BTreeMap::new();
        for (j, &ordinal) in record.ordinals.iter().enumerate() {
            position.entry(ordinal).or_insert(j);
        }
        let shown = |entry: usize, part: usize, field: Field| -> Option<&str> {
            output
                .get(*position.get(&entry)?)?
                .response_parts
                .get(part)?
                .field(field)
        };
        let mut facts = TurnFacts::default();
        let mut long: BTreeMap<(usize, usize, Field), bool> = BTreeMap::new();
        for slot in collect_slots(input, reminders, SlotScope::ALL) {
            let original = slot.text(input);
            long.insert((slot.entry, slot.part, slot.field), slot.len > units);
            facts.long_results += u64::from(slot.len > units);
            let Some(after) = shown(slot.entry, slot.part, slot.field) else {
                continue;
            };
            let after = after.get(slot.protected..).unwrap_or(after);
            if after == original {
                continue;
            }
            let came_with_paths = !input[slot.entry].artifact_paths().is_empty();
            let attempted = record.writes.iter().any(|w| {
                let content: &str = &w.attempt.content;
                w.ordinal == slot.entry && content.contains(original)
            });
            facts.unrecoverable += u64::from(!(came_with_paths || attempted));
        }
        // A used token is recorded at each place it occurs; it is counted once per field and text.
        let mut tokens: BTreeSet<(usize, usize, Field, &str)> = BTreeSet::new();
        for needle in &generated.needles {
            if !long
                .get(&(needle.entry, needle.part, needle.field))
                .copied()
                .unwrap_or(false)
            {
                continue;
            }
            let visible = shown(needle.entry, needle.part, needle.field)
                .is_some_and(|t| t.contains(needle.text.as_str()));
            if needle.kind == NeedleKind::UsedToken {
                let key = (
                    needle.entry,
                    needle.part,
                    needle.field,
                    needle.text.as_str(),
                );
                if tokens.insert(key) {
                    facts.long_tokens += 1;
                    facts.long_tokens_survived += u64::from(visible);
                }
            } else if needle.kind == NeedleKind::Used {
                facts.long_used += 1;
                facts.long_used_survived += u64::from(visible);
            } else {
                facts.long_needles += 1;
                facts.long_survived += u64::from(visible);
            }
        }
        facts
    }
}

impl Sums {
    /// One turn's sums: its metrics and what tune measured of it beside them.
    pub fn of(m: &BatchMetrics, facts: &TurnFacts) -> Sums {
        let (survived, needles) = m
            .needles
            .values()
            .fold((0, 0), |(s, p), c| (s + c.survived, p + c.planted));
        Sums {
            turns: 1,
            over_budget: u64::from(!m.within_budget),
            survived,
            needles,
            kept: m
                .mean_kept_share
                .map_or(0, |share| (share * SHARE_SCALE).round() as u64 * m.fields),
            fields: m.fields,
            used_survived: m.used_survived,
            used: m.used_needles,
            tokens_survived: m.used_tokens_survived,
            tokens: m.used_tokens,
            long_tokens_survived: facts.long_tokens_survived,
            long_tokens: facts.long_tokens,
            long_results: facts.long_results,
            writes: m.writes,
            long_survived: facts.long_survived,
            long_needles: facts.long_needles,
            long_used_survived: facts.long_used_survived,
            long_used: facts.long_used,
            unrecoverable: facts.unrecoverable,
            exempt_changed: m.broken_surrogates
                + m.reordered
                + m.dropped
                + m.media_changed
                + m.reminders_changed
                + m.non_budgeted_changed
                + u64::from(m.records_differ),
        }
    }

    /// Adds `other`, weighted `w` times.
    pub fn add(&mut self, other: &Sums, w: u64) {
        let add = |a: &mut u64, b: u64| *a = a.saturating_add(b.saturating_mul(w));
        add(&mut self.turns, other.turns);
        add(&mut self.over_budget, other.over_budget);
        add(&mut self.survived, other.survived);
        add(&mut self.needles, other.needles);
        add(&mut self.kept, other.kept);
        add(&mut self.fields, other.fields);
        add(&mut self.used_survived, other.used_survived);
        add(&mut self.used, other.used);
        add(&mut self.writes, other.writes);
        add(&mut self.long_survived, other.long_survived);
        add(&mut self.long_needles, other.long_needles);
        add(&mut self.long_used_survived, other.long_used_survived);
        add(&mut self.long_used, other.long_used);
        add(&mut self.tokens_survived, other.tokens_survived);
        add(&mut self.tokens, other.tokens);
        add(&mut self.long_tokens_survived, other.long_tokens_survived);
        add(&mut self.long_tokens, other.long_tokens);
        add(&mut self.long_results, other.long_results);
        add(&mut self.unrecoverable, other.unrecoverable);
        add(&mut self.exempt_changed, other.exempt_changed);
    }

    /// Needle survival over every result (pooled); `None` without needles.
    pub fn needle_share(&self) -> Option<f64> {
        (self.needles > 0).then(|| self.survived as f64 / self.needles as f64)
    }

    /// Needle survival over the results longer than the budget; `None` without needles there.
    pub fn long_needle_share(&self) -> Option<f64> {
        (self.long_needles > 0).then(|| self.long_survived as f64 / self.long_needles as f64)
    }

    /// Mean kept share per field; `None` without fields.
    pub fn retention(&self) -> Option<f64> {
        (self.fields > 0).then(|| self.kept as f64 / SHARE_SCALE / self.fields as f64)
    }

    /// Survival of the lines the agent used, over every result (pooled); `None` without any.
    pub fn used_share(&self) -> Option<f64> {
        (self.used > 0).then(|| self.used_survived as f64 / self.used as f64)
    }

    /// Survival of the lines the agent used, over the results longer than the budget; `None` without any there.
    pub fn long_used_share(&self) -> Option<f64> {
        (self.long_used > 0).then(|| self.long_used_survived as f64 / self.long_used as f64)
    }

    /// Survival of the tokens the agent used, over every result (pooled); `None` without any.
    pub fn token_share(&self) -> Option<f64> {
        (self.tokens > 0).then(|| self.tokens_survived as f64 / self.tokens as f64)
    }

    /// Survival of the tokens the agent used, over the results longer than the budget; `None` without any there.
    pub fn long_token_share(&self) -> Option<f64> {
        (self.long_tokens > 0).then(|| self.long_tokens_survived as f64 / self.long_tokens as f64)
    }

    /// Artifact writes per turn; `None` without turns.
    pub fn writes_per_turn(&self) -> Option<f64> {
        (self.turns > 0).then(|| self.writes as f64 / self.turns as f64)
    }

    /// Whether every turn kept the budget.
    pub fn kept_budget(&self) -> bool {
        self.over_budget == 0
    }

    /// What of the design's contract these turns broke, in words (empty: none): the budget, a cut output that
    /// cannot be read back, something exempt changed.
    pub fn contract_breaks(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.over_budget > 0 {
            out.push("over budget");
        }
        if self.unrecoverable > 0 {
            out.push("cut output not recoverable");
        }
        if self.exempt_changed > 0 {
            out.push("exempt content changed");
        }
        out
    }
}

/// What `tune` maximises: one figure, or a stated weighted mix of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Objective {
    /// Weight of needle survival.
    pub needles: f64,
    /// Weight of retention (mean kept share per field).
    pub retention: f64,
    /// Weight of the survival of the tokens the agent used.
    pub used: f64,
}

impl Objective {
    /// Needle survival alone (the default).
    pub const NEEDLES: Objective = Objective {
        needles: 1.0,
        retention: 0.0,
        used: 0.0,
    };

    /// Reads `needles`, `retention`, `used`, or a weighted mix `needles=0.7,retention=0.3` (weights positive,
    /// made to sum to 1).
    pub fn parse(text: &str) -> Result<Objective> {
        let bad = |reason: &str| Error::invalid("--objective", text, reason.to_string());
        let mut o = Objective {
            needles: 0.0,
            retention: 0.0,
            used: 0.0,
        };
        for item in text.split(',') {
            let (name, weight) = match item.split_once('=') {
                Some((n, w)) => {
                    let w: f64 = w
                        .trim()
                        .parse()
                        .map_err(|_| bad("a weight must be a number"))?;
                    (n.trim(), w)
                }
                None => (item.trim(), 1.0),
            };
            if !(weight.is_finite() && weight > 0.0 && weight <= 1e6) {
                return Err(bad("a weight must be above 0 and at most 1000000"));
            }
            let slot = match name {
                "needles" => &mut o.needles,
                "retention" => &mut o.retention,
                "used" => &mut o.used,
                _ => return Err(bad("objectives: needles, retention, used, or a mix such as needles=0.7,retention=0.3")),
            };
            if *slot > 0.0 {
                return Err(bad("a figure is named twice"));
            }
            *slot = weight;
        }
        let total = o.needles + o.retention + o.used;
        o.needles /= total;
        o.retention /= total;
        o.used /= total;
        Ok(o)
    }

    /// The objective's value on `sums` (needle and used-token survival over the results longer than the
    /// budget); `None` when a figure it weighs has nothing to measure there.
    pub fn value(&self, sums: &Sums) -> Option<f64> {
        let mut v = 0.0;
        for (weight, figure) in [
            (self.needles, sums.long_needle_share()),
            (self.retention, sums.retention()),
            (self.used, sums.long_token_share()),
        ] {
            if weight > 0.0 {
                v += weight * figure?;
            }
        }
        Some(v)
    }

    /// The mean of the figures the objective gives no weight (retention, for needle survival alone), which
    /// ranks settings equal on the objective; `None` when it weighs them all or none of them has anything to
    /// measure.
    pub fn rest(&self, sums: &Sums) -> Option<f64> {
        let rest: Vec<f64> = [
            (self.needles, sums.long_needle_share()),
            (self.retention, sums.retention()),
            (self.used, sums.long_token_share()),
        ]
        .into_iter()
        .filter(|(weight, _)| *weight == 0.0)
        .filter_map(|(_, figure)| figure)
        .collect();
        (!rest.is_empty()).then(|| rest.iter().sum::<f64>() / rest.len() as f64)
    }

    /// The objective's value of `sums` measured against the denominators of `totals` (the same needles, used
    /// lines and fields: they belong to the batches, not to the setting), which is linear in `sums`: the sum of
    /// the batches' values is the value of their sum. `None` when a figure it weighs has nothing to measure in
    /// `totals`.
    pub fn linear(&self, sums: &Sums, totals: &Sums) -> Option<f64> {
        let mut v = 0.0;
        for (weight, numerator, denominator) in [
            (
                self.needles,
                sums.long_survived as f64,
                totals.long_needles as f64,
            ),
            (
                self.retention,
                sums.kept as f64 / SHARE_SCALE,
                totals.fields as f64,
            ),
            (
                self.used,
                sums.long_tokens_survived as f64,
                totals.long_tokens as f64,
            ),
        ] {
            if weight > 0.0 {
                if denominator == 0.0 {
                    return None;
                }
                v += weight * numerator / denominator;
            }
        }
        Some(v)
    }

    /// The events the objective is measured on in `sums`: needles and used tokens in results longer than the
    /// budget, fields, each counted when the objective weighs it. A rung's sample is sized by them.
    pub fn events(&self, sums: &Sums) -> u64 {
        let mut n = 0u64;
        if self.needles > 0.0 {
            n += sums.long_needles;
        }
        if self.retention > 0.0 {
            n += sums.fields;
        }
        if self.used > 0.0 {
            n += sums.long_tokens;
        }
        n
    }

    /// How it reads: `needle survival`, `0.7 needle survival + 0.3 retention`.
    pub fn describe(&self) -> String {
        let parts: Vec<(f64, &str)> = [
            (
                self.needles,
                "needle survival (results longer than the budget)",
            ),
            (self.retention, "retention"),
            (
                self.used,
                "used-token survival (results longer than the budget)",
            ),
        ]
        .into_iter()
        .filter(|(w, _)| *w > 0.0)
        .collect();
        if parts.len() == 1 {
            return parts[0].1.to_string();
        }
        parts
            .iter()
            .map(|(w, name)| format!("{} {name}", super::round3(*w)))
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

/// A setting's and the reference's sums over the same batches, in every bootstrap resample.
#[derive(Debug, Clone)]
pub struct Paired {
    setting: Vec<Sums>,
    reference: Vec<Sums>,
}

impl Default for Paired {
    fn default() -> Self {
        Paired {
            setting: vec![Sums::default(); RESAMPLES],
            reference: vec![Sums::default(); RESAMPLES],
        }
    }
}

impl Paired {
    /// Adds a turn under the setting and under the reference, weighed by the resample weights of its batch's
    /// group (`group`: the batches of a group are drawn together).
    pub fn add(&mut self, group: u64, setting: &Sums, reference: &Sums) {
        for ((s, r), w) in self
            .setting
            .iter_mut()
            .zip(self.reference.iter_mut())
            .zip(weights(group))
        {
            s.add(setting, u64::from(w));
            r.add(reference, u64::from(w));
        }
    }

    /// The 95% percentile-bootstrap interval of the setting's objective minus the reference's; `None` when the
    /// objective has nothing to measure in some resample.
    pub fn interval(&self, objective: &Objective) -> Option<(f64, f64)> {
        let mut diffs = Vec::with_capacity(RESAMPLES);
        for (s, r) in self.setting.iter().zip(&self.reference) {
            diffs.push(objective.value(s)? - objective.value(r)?);
        }
        diffs.sort_by(f64::total_cmp);
        let lo = (RESAMPLES as f64 * 0.025).ceil() as usize;
        let hi = (RESAMPLES as f64 * 0.975).ceil() as usize;
        Some((diffs[lo - 1], diffs[hi - 1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entry, Part};
    use crate::needles::Needle;

    /// A one-result turn: `original` in the producers' output, `shown` in the model request, nothing written.
    fn one_result_turn(
        original: &str,
        shown: &str,
        needles: Vec<Needle>,
    ) -> (GeneratedBatch, TurnRecord) {
        let entry = |text: &str| {
            let output = Some(serde_json::Value::String(text.into()));
            Entry::new(
                "c1",
                "shell",
                vec![Part::function_response("c1", "shell", output, None)],
            )
        };
        let generated = GeneratedBatch {
            index: 0,
            batch: vec![entry(original)],
            needles,
            context: None,
            group: None,
        };
        let record = TurnRecord {
            boundaries: Vec::new(),
            model_request: vec![entry(shown)],
            ordinals: vec![0],
            transcript: vec![entry(shown)],
            tool_results: vec![entry(shown)],
            display: vec![entry(original)],
            writes: Vec::new(),
            within_budget: true,
            records_identical: true,
        };
        (generated, record)
    }

    fn token(text: &str, offset: usize) -> Needle {
        Needle {
            kind: NeedleKind::UsedToken,
            text: text.into(),
            entry: 0,
            part: 0,
            field: Field::Output,
            offset,
        }
    }

    /// Used tokens are counted once per field and text (a token recorded at two places is one), kept when the
    /// shown field still holds it anywhere, and only in results longer than the budget; the result is counted.
    #[test]
    fn used_tokens_count_once_per_field_over_the_results_longer_than_the_budget() {
        let original = "alpha beta\nmiddle gamma\nalpha end";
        let needles = vec![token("alpha", 0), token("alpha", 24), token("gamma", 18)];
        let (generated, record) = one_result_turn(original, "alpha beta\n[cut]", needles);
        let reminders = PlanReminders::default();
        let facts = TurnFacts::of(&generated, &record, &reminders, 10);
        assert_eq!(
            (
                facts.long_results,
                facts.long_tokens,
                facts.long_tokens_survived
            ),
            (1, 2, 1)
        );
        // The same result within the budget: nothing counted as long.
        let facts = TurnFacts::of(&generated, &record, &reminders, 1_000);
        assert_eq!((facts.long_results, facts.long_tokens), (0, 0));
        // The objective weighs the tokens.
        let sums = Sums {
            long_tokens: 2,
            long_tokens_survived: 1,
            long_used: 5,
            long_used_survived: 5,
            ..Sums::default()
        };
        assert_eq!(Objective::parse("used").unwrap().value(&sums), Some(0.5));
    }

    fn sums(survived: u64, needles: u64, kept_share: f64, fields: u64) -> Sums {
        Sums {
            turns: 1,
            survived,
            needles,
            long_survived: survived,
            long_needles: needles,
            kept: (kept_share * SHARE_SCALE) as u64 * fields,
            fields,
            ..Sums::default()
        }
    }

    #[test]
    fn objectives_parse_and_weigh() {
        assert_eq!(Objective::parse("needles").unwrap(), Objective::NEEDLES);
        let mix = Objective::parse("needles=3,retention=1").unwrap();
        assert_eq!((mix.needles, mix.retention, mix.used), (0.75, 0.25, 0.0));
        assert_eq!(
            mix.describe(),
            "0.75 needle survival (results longer than the budget) + 0.25 retention"
        );
        let s = sums(1, 2, 0.5, 4);
        assert_eq!(mix.value(&s), Some(0.75 * 0.5 + 0.25 * 0.5));
        assert_eq!(mix.linear(&s, &s), mix.value(&s));
        assert_eq!(
            Objective::parse("used").unwrap().value(&s),
            None,
            "nothing to measure"
        );
        for bad in [
            "",
            "speed",
            "needles=0",
            "needles=x",
            "needles,needles",
            "needles=inf",
        ] {
            assert!(Objective::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_paired_interval_is_zero_for_equal_turns_and_positive_for_a_sure_gain() {
        let mut same = Paired::default();
        let mut better = Paired::default();
        for b in 0..50 {
            same.add(b, &sums(1, 2, 0.5, 1), &sums(1, 2, 0.5, 1));
            better.add(b, &sums(2, 2, 0.5, 1), &sums(1, 2, 0.5, 1));
        }
        assert_eq!(same.interval(&Objective::NEEDLES), Some((0.0, 0.0)));
        let (lo, hi) = better.interval(&Objective::NEEDLES).unwrap();
        assert_eq!((lo, hi), (0.5, 0.5));
        assert_eq!(Paired::default().interval(&Objective::NEEDLES), None);
    }
}
