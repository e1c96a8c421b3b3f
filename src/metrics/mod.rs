//! Metrics: pure computation of what one simulated turn did, for one strategy, and their aggregation per
//! scenario, strategy and mode. No I/O and no clock here; the cost figures are measured by the runner and kept
//! apart from everything else, which is a deterministic function of the inputs.

mod aggregate;
mod bound;
mod figure;
mod key;
mod metric;
pub mod pareto;
pub mod ranking;
pub mod resample;
mod retention;
mod summary;
mod surrogates;
pub mod tokens;
pub mod used_ranking;

pub use aggregate::{
    percentile, Aggregate, ComplianceSummary, CostSummary, IntegritySummary, KindSurvival,
    NeedleSummary, OverBudgetSummary, PersistenceSummary, RetentionSummary, UsedNeedleSummary,
};
pub use bound::{needle_upper_bound, token_upper_bound};
pub use figure::{in_section, in_tables, AtMost, Column, Figure, Section, Tracked, FIGURES};
pub use key::{RowKey, StrategyKey};
pub use metric::{duration, Metric, Unit};
use retention::Compared;
pub use retention::{first_line, jain_index, kept_units, last_line};
pub use summary::{
    CostTally, LogHistogram, RowSummary, TimeHistogram, TurnCost, FIXED_ONE, MAX_COUNT,
};
pub use surrogates::broken_surrogates;
pub use tokens::{TokenBudget, TokenSettings, TokenSummary, TokenTally, TurnTokens};

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::budget::{PlanReminders, PLAN_MODE_TOOL};
use crate::finalize::{collect_slots, SlotScope};
use crate::model::{Entry, Field};
use crate::needles::{Needle, NeedleKind};
use crate::simulate::{Boundary, TurnRecord};
use crate::text::contains;

/// Planted and surviving needles of one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeedleCount {
    /// Needles planted.
    pub planted: u64,
    /// Needles still visible in the model request.
    pub survived: u64,
}

macro_rules! batch_metrics {
    ($( $section:ident [ $(
        $(#[doc = $doc:literal])* $field:ident => $row:ident : $key:literal at $order:literal, $label:literal,
            $column:expr, $at_most:expr, $gate:expr;
    )* ] )*) => {
        /// Everything measured of one turn under one strategy.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(test, derive(Default))]
        #[serde(rename_all = "camelCase")]
        pub struct BatchMetrics {
            /// The batch index within the scenario.
            pub batch: usize,
            /// The effective budget (`None` when disabled).
            pub budget: Option<u64>,
            /// Budgeted total of the producers' output.
            pub input_total: u64,
            /// Budgeted total of the model request.
            pub final_total: u64,
            /// Whether the model request is within the budget.
            pub within_budget: bool,
            /// Units over the budget (0 when within).
            pub overshoot: u64,
            /// The boundary from which the turn stayed over budget up to the model request.
            pub violation_boundary: Option<Boundary>,
            /// Budgeted fields of the producers' output.
            pub fields: u64,
            /// Fields the model request shows shortened.
            pub shortened_fields: u64,
            /// UTF-16 units of original text over all fields.
            pub original_units: u64,
            /// Of those, units still shown.
            pub kept_units: u64,
            /// Kept share per field, averaged over fields (`None` for a turn without fields: nothing to measure).
            pub mean_kept_share: Option<f64>,
            /// The smallest kept share of any field (`None` without fields).
            pub min_kept_share: Option<f64>,
            /// Jain's index of the fields' kept shares (`None` without fields).
            pub fairness: Option<f64>,
            /// Share of the budget the model request uses, when the producers' output was over budget.
            pub budget_used: Option<f64>,
            /// Shortened fields whose first line survived / whose first line could be checked.
            pub first_line_kept: (u64, u64),
            /// Shortened fields whose last non-blank line survived / that have one.
            pub last_line_kept: (u64, u64),
            /// Shortened fields that name an artifact path / shortened fields whose entry has one.
            pub path_visible: (u64, u64),
            /// Needles by kind.
            pub needles: BTreeMap<NeedleKind, NeedleCount>,
            /// The most needles any allocation of the same budget could keep visible.
            pub needle_upper_bound: u64,
            $($(
                $(#[doc = $doc])*
                pub $field: u64,
            )*)*
            /// Whether the model request, the transcript and the tool-result record differ.
            pub records_differ: bool,
            /// The model request's tokens (`--tokenizer` only; absent otherwise).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub tokens: Option<TurnTokens>,
        }
    };
}
figure::figure_list!(batch_metrics);

/// Measures one simulated turn. `input` is the producers' turn, `needles` the needles planted in it.
pub fn measure(
    batch: usize,
    input: &[Entry],
    needles: &[Needle],
    record: &TurnRecord,
    limit: Option<u64>,
    reminders: &PlanReminders,
) -> BatchMetrics {
    let output = &record.model_request;
    // Where each input entry ended up in the model request.
    let mut position: BTreeMap<usize, usize> = BTreeMap::new();
    for (j, &ordinal) in record.ordinals.iter().enumerate() {
        position.entry(ordinal).or_insert(j);
    }
    let shown = |entry: usize, part: usize, field: Field, protected: usize| -> Option<&str> {
        let text = output
            .get(*position.get(&entry)?)?
            .response_parts
            .get(part)?
            .field(field)?;
        Some(text.get(protected..).unwrap_or(text))
    };

    // The input's slots, measured once for its total and its fields.
    let input_slots = collect_slots(input, reminders, SlotScope::ALL);
    let input_total: u64 = input_slots.iter().map(|s| s.len).sum();
    let final_total = record.boundaries.last().map_or(0, |b| b.total);
    let overshoot = limit.map_or(0, |l| final_total.saturating_sub(l));
    let violation_boundary = if overshoot > 0 {
        let limit = limit.unwrap_or(u64::MAX);
        let trailing = record
            .boundaries
            .iter()
            .rev()
            .take_while(|b| b.total > limit)
            .count();
        record
            .boundaries
            .iter()
            .skip(record.boundaries.len() - trailing)
            .find(|b| b.boundary != Boundary::Producers)
            .map(|b| b.boundary)
    } else {
        None
    };

    // Field by field retention, paths and recoverability.
    let written: BTreeMap<usize, Vec<&str>> = record
        .writes
        .iter()
        .filter(|w| w.attempt.path.is_some())
        .fold(BTreeMap::new(), |mut m, w| {
            m.entry(w.ordinal)
                .or_insert_with(Vec::new)
                .push(&*w.attempt.content);
            m
        });
    let mut m = FieldTally::default();
    for slot in input_slots {
        let original = slot.text(input);
        let len = slot.len;
        let after = shown(slot.entry, slot.part, slot.field, slot.protected);
        // A shown text that differs is compared with its original once, for retention and broken pairs alike.
        let compared = after
            .filter(|&a| a != original)
            .map(|a| Compared::of(original, a));
        let kept = match (after, &compared) {
            (None, _) => 0,
            (Some(_), None) => len,
            (Some(_), Some(c)) => c.kept_units(len),
        };
        m.original += len;
        m.kept += kept;
        m.shares.push(if len == 0 {
            1.0
        } else {
            kept as f64 / len as f64
        });
        let (Some(after), Some(compared)) = (after, compared) else {
            continue;
        };
        m.shortened += 1;
        m.broken += surrogates::broken_in(original, &compared);
        if let Some(line) = first_line(original) {
            m.first.1 += 1;
            m.first.0 += u64::from(contains(after, line));
        }
        if let Some(line) = last_line(original) {
            m.last.1 += 1;
            m.last.0 += u64::from(contains(after, line));
        }
        let final_entry = &output[position[&slot.entry]];
        let paths = final_entry.artifact_paths();
        if !paths.is_empty() {
            m.paths.1 += 1;
            m.paths.0 += u64::from(paths.iter().any(|p| contains(after, p)));
        }
        let came_with_paths = !input[slot.entry].artifact_paths().is_empty();
        m.reused += u64::from(came_with_paths);
        // An artifact holds its entry's fields joined by blank lines: the original is most often at its start or its
        // end (or all of it), which are compared before anything is searched.
        let in_artifact = written.get(&slot.entry).is_some_and(|contents| {
            contents
                .iter()
                .any(|c| c.starts_with(original) || c.ends_with(original) || contains(c, original))
        });
        m.recoverable += u64::from(came_with_paths || in_artifact);
    }

    // Needles: visible anywhere in their field of the model request. The lines the agent used are measured
    // apart and never pooled with the others.
    let visible = |needle: &Needle| {
        shown(needle.entry, needle.part, needle.field, 0).is_some_and(|t| contains(t, &needle.text))
    };
    let (used_places, needles): (Vec<&Needle>, Vec<&Needle>) = needles
        .iter()
        .partition(|n| n.kind == NeedleKind::UsedToken);
    let (used, detected): (Vec<Needle>, Vec<Needle>) = needles
        .into_iter()
        .cloned()
        .partition(|n| n.kind == NeedleKind::Used);
    let mut by_kind: BTreeMap<NeedleKind, NeedleCount> = BTreeMap::new();
    for needle in &detected {
        let count = by_kind.entry(needle.kind).or_default();
        count.planted += 1;
        count.survived += u64::from(visible(needle));
    }
    let needle_upper_bound = needle_upper_bound(input, &detected, reminders, limit);
    let used_survived = used.iter().filter(|n| visible(n)).count() as u64;
    let used_upper_bound = if used.is_empty() {
        0
    } else {
        bound::needle_upper_bound(input, &used, reminders, limit)
    };
    // Used tokens: the places of one token share its field and text; it survives when its text is visible
    // anywhere in its field.
    let mut tokens: BTreeMap<(usize, usize, Field, &str), Vec<&Needle>> = BTreeMap::new();
    for n in used_places {
        tokens
            .entry((n.entry, n.part, n.field, n.text.as_str()))
            .or_default()
            .push(n);
    }
    let tokens: Vec<Vec<&Needle>> = tokens.into_values().collect();
    let used_tokens_survived = tokens.iter().filter(|places| visible(places[0])).count() as u64;
    let used_tokens_upper_bound = if tokens.is_empty() {
        0
    } else {
        bound::token_upper_bound(input, &tokens, reminders, limit)
    };
    // Where a policy can differ: the turns whose producers' output is longer than the budget.
    let over = limit.is_some_and(|l| input_total > l);
    let when_over = |n: u64| if over { n } else { 0 };
    let detected_survived: u64 = by_kind.values().map(|c| c.survived).sum();

    // Persistence I/O.
    let mut seen = BTreeSet::new();
    let (mut writes, mut bytes, mut duplicates, mut failed) = (0, 0, 0, 0);
    for w in &record.writes {
        match &w.attempt.path {
            Some(_) => {
                writes += 1;
                bytes += w.attempt.content.len() as u64;
                duplicates += u64::from(!seen.insert(w.ordinal));
            }
            None => failed += 1,
        }
    }

    let integrity = integrity(input, record, reminders);
    let shares = &m.shares;
    BatchMetrics {
        batch,
        budget: limit,
        input_total,
        final_total,
        within_budget: overshoot == 0,
        overshoot,
        violation_boundary,
        fields: shares.len() as u64,
        shortened_fields: m.shortened,
        original_units: m.original,
        kept_units: m.kept,
        mean_kept_share: (!shares.is_empty())
            .then(|| shares.iter().sum::<f64>() / shares.len() as f64),
        min_kept_share: shares.iter().copied().reduce(f64::min),
        fairness: (!shares.is_empty()).then(|| jain_index(shares)),
        budget_used: limit
            .filter(|&l| input_total > l)
            .map(|l| final_total as f64 / l as f64),
        first_line_kept: m.first,
        last_line_kept: m.last,
        path_visible: m.paths,
        needles: by_kind,
        needle_upper_bound,
        writes,
        bytes_written: bytes,
        duplicate_writes: duplicates,
        failed_writes: failed,
        reused_paths: m.reused,
        recoverable_fields: m.recoverable,
        broken_surrogates: m.broken,
        reordered: integrity.reordered,
        dropped: integrity.dropped,
        media_changed: integrity.media_changed,
        reminders_changed: integrity.reminders_changed,
        non_budgeted_changed: integrity.non_budgeted_changed,
        used_needles: used.len() as u64,
        used_survived,
        used_upper_bound,
        used_tokens: tokens.len() as u64,
        used_tokens_survived,
        used_tokens_upper_bound,
        over_budget_results: when_over(input.len() as u64),
        over_budget_needles: when_over(detected.len() as u64),
        over_budget_needles_survived: when_over(detected_survived),
        over_budget_used_needles: when_over(used.len() as u64),
        over_budget_used_survived: when_over(used_survived),
        over_budget_used_upper_bound: when_over(used_upper_bound),
        over_budget_used_tokens: when_over(tokens.len() as u64),
        over_budget_used_tokens_survived: when_over(used_tokens_survived),
        over_budget_used_tokens_upper_bound: when_over(used_tokens_upper_bound),
        records_differ: !record.records_identical,
        tokens: None,
    }
}

#[derive(Default)]
struct FieldTally {
    original: u64,
    kept: u64,
    shares: Vec<f64>,
    shortened: u64,
    broken: u64,
    first: (u64, u64),
    last: (u64, u64),
    paths: (u64, u64),
    reused: u64,
    recoverable: u64,
}

#[derive(Default)]
struct Integrity {
    reordered: u64,
    dropped: u64,
    media_changed: u64,
    reminders_changed: u64,
    non_budgeted_changed: u64,
}

fn integrity(input: &[Entry], record: &TurnRecord, reminders: &PlanReminders) -> Integrity {
    let mut out = Integrity::default();
    let ordinals = &record.ordinals;
    out.reordered = ordinals.windows(2).filter(|w| w[0] > w[1]).count() as u64;
    let present: BTreeSet<usize> = ordinals.iter().copied().collect();
    out.dropped = (0..input.len()).filter(|i| !present.contains(i)).count() as u64;
    for (entry, &ordinal) in record.model_request.iter().zip(ordinals) {
        let Some(before) = input.get(ordinal) else {
            continue;
        };
        out.dropped += before
            .response_parts
            .len()
            .saturating_sub(entry.response_parts.len()) as u64;
        for (pa, pb) in before.response_parts.iter().zip(&entry.response_parts) {
            if pa.is_media() && pa != pb {
                out.media_changed += 1;
            } else if !pa.same_but_budgeted_text(pb) {
                out.non_budgeted_changed += 1;
            }
            if let (Some(a), Some(b)) = (pa.field(Field::Output), pb.field(Field::Output)) {
                if pa.function_name(&before.tool_name) == Some(PLAN_MODE_TOOL) {
                    let keep = reminders.protected_prefix(a);
                    out.reminders_changed += u64::from(keep > 0 && !b.starts_with(&a[..keep]));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
