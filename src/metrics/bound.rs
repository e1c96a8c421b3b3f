//! The upper bound of needle survival: the most needles any allocation of the same budget could keep visible
//! if it knew where they are.
//!
//! The model is the one every preview in the harness shares: a shortened field shows a contiguous head and a
//! contiguous tail of its text. A needle costs nothing where its field fits whole; otherwise keeping it costs
//! the units of head (up to its end) or of tail (from its start) that reach it, and needles of one field share
//! that head and tail. No header, marker or path is charged, so the bound is generous: a strategy reaches it
//! only by spending its whole budget on exactly the right heads and tails. Within one field the options are
//! "the first `i` and the last `j` needles"; across fields the best choice is a small knapsack over needle
//! counts (minimum cost per count), solved exactly.

use std::collections::BTreeMap;

use crate::budget::PlanReminders;
use crate::finalize::{collect_slots, SlotScope};
use crate::model::{Entry, Field};
use crate::needles::Needle;
use crate::text::utf16_len;

/// The most needles of `needles` that any head-and-tail allocation of `limit` units over `input` keeps visible.
pub fn needle_upper_bound(
    input: &[Entry],
    needles: &[Needle],
    reminders: &PlanReminders,
    limit: Option<u64>,
) -> u64 {
    let all = needles.len() as u64;
    let Some(limit) = limit else { return all };
    let slots = collect_slots(input, reminders, SlotScope::ALL);
    if slots.iter().map(|s| s.len).sum::<u64>() <= limit {
        return all;
    }
    // Needles by field, as (start, end) in units of the budgeted text (after any protected prefix).
    let mut by_field: BTreeMap<(usize, usize, Field), Vec<(u64, u64)>> = BTreeMap::new();
    let mut free = 0u64;
    for n in needles {
        let slot = slots
            .iter()
            .find(|s| (s.entry, s.part, s.field) == (n.entry, n.part, n.field));
        let Some(slot) = slot else {
            free += 1; // not in a budgeted field: shown whatever the allocation
            continue;
        };
        let full = input[slot.entry].response_parts[slot.part]
            .field(slot.field)
            .unwrap_or("");
        let protected = utf16_len(&full[..slot.protected]) as u64;
        let start = (n.offset as u64).saturating_sub(protected);
        let end = (n.offset as u64 + utf16_len(&n.text) as u64).saturating_sub(protected);
        if end == 0 {
            free += 1; // inside the protected reminder
            continue;
        }
        by_field
            .entry((n.entry, n.part, n.field))
            .or_default()
            .push((start, end.min(slot.len)));
    }
    let mut options = Vec::with_capacity(by_field.len());
    for ((entry, part, field), mut spans) in by_field {
        let len = slots
            .iter()
            .find(|s| (s.entry, s.part, s.field) == (entry, part, field))
            .map_or(0, |s| s.len);
        spans.sort_unstable();
        options.push(field_options(&spans, len));
    }
    free + best_count(&options, limit)
}

/// A budgeted field: (entry, part, field).
type FieldKey = (usize, usize, Field);

/// The most used tokens any head-and-tail allocation of `limit` units over `input` keeps visible. Each token is
/// the list of its places (needles of one field, holding the same text): a head keeps it when it reaches the end
/// of its first place, a tail when it reaches the start of its last. Same model as [`needle_upper_bound`].
pub fn token_upper_bound(
    input: &[Entry],
    tokens: &[Vec<&Needle>],
    reminders: &PlanReminders,
    limit: Option<u64>,
) -> u64 {
    let all = tokens.len() as u64;
    let Some(limit) = limit else { return all };
    let slots = collect_slots(input, reminders, SlotScope::ALL);
    if slots.iter().map(|s| s.len).sum::<u64>() <= limit {
        return all;
    }
    // Tokens by field, as (head needed, tail needed) in units of the budgeted text.
    let mut by_field: BTreeMap<FieldKey, (u64, Vec<(u64, u64)>)> = BTreeMap::new();
    let mut free = 0u64;
    for places in tokens {
        let (Some(first), Some(last)) = (places.first(), places.last()) else {
            continue;
        };
        let key = (first.entry, first.part, first.field);
        let Some(slot) = slots.iter().find(|s| (s.entry, s.part, s.field) == key) else {
            free += 1;
            continue;
        };
        let full = input[slot.entry].response_parts[slot.part]
            .field(slot.field)
            .unwrap_or("");
        let protected = utf16_len(&full[..slot.protected]) as u64;
        let end = (first.offset as u64 + utf16_len(&first.text) as u64).saturating_sub(protected);
        if end == 0 {
            free += 1;
            continue;
        }
        let start = (last.offset as u64).saturating_sub(protected).min(slot.len);
        let field = by_field.entry(key).or_insert((slot.len, Vec::new()));
        field.1.push((end.min(slot.len), slot.len - start));
    }
    let options: Vec<Vec<u64>> = by_field
        .into_values()
        .map(|(len, items)| item_options(&items, len))
        .collect();
    free + best_count(&options, limit)
}

/// The most items kept within `limit` units, given for each field the least cost of keeping `c` of its items
/// for every `c` (a knapsack over counts, solved exactly).
fn best_count(fields: &[Vec<u64>], limit: u64) -> u64 {
    // min_cost[c]: the fewest units that keep c items visible.
    let total: usize = fields.iter().map(|o| o.len().saturating_sub(1)).sum();
    let mut min_cost = vec![u64::MAX; total + 1];
    min_cost[0] = 0;
    let mut reach = 0;
    for options in fields {
        let mut next = min_cost.clone();
        for c in 0..=reach {
            if min_cost[c] == u64::MAX {
                continue;
            }
            for (count, cost) in options.iter().enumerate() {
                let slot = &mut next[c + count];
                *slot = (*slot).min(min_cost[c].saturating_add(*cost));
            }
        }
        reach += options.len().saturating_sub(1);
        min_cost = next;
    }
    min_cost.iter().rposition(|&c| c <= limit).unwrap_or(0) as u64
}

/// For one field of `len` units with items given as (units of head that show it, units of tail that show it):
/// the least cost of keeping `c` of them, for every `c` from 0 to all (a head of one item's need and the cheapest
/// tails for the rest, or the field whole).
fn item_options(items: &[(u64, u64)], len: u64) -> Vec<u64> {
    let k = items.len();
    let mut best = vec![u64::MAX; k + 1];
    let mut heads: Vec<u64> = items.iter().map(|i| i.0).collect();
    heads.push(0);
    heads.sort_unstable();
    heads.dedup();
    for &head in &heads {
        let covered = items.iter().filter(|i| i.0 <= head).count();
        let mut tails: Vec<u64> = items.iter().filter(|i| i.0 > head).map(|i| i.1).collect();
        tails.sort_unstable();
        best[covered] = best[covered].min(head.min(len));
        for (j, tail) in tails.iter().enumerate() {
            let cost = (head + tail).min(len);
            best[covered + j + 1] = best[covered + j + 1].min(cost);
        }
    }
    best[k] = best[k].min(len);
    for c in (0..k).rev() {
        best[c] = best[c].min(best[c + 1]);
    }
    best
}

/// For one field of `len` units with needle spans sorted by start: the least cost of keeping `c` of them, for
/// every `c` from 0 to all (keeping the first `i` by a head and the last `j` by a tail, or the field whole).
fn field_options(spans: &[(u64, u64)], len: u64) -> Vec<u64> {
    let k = spans.len();
    // head[i]: units of head that show the first i needles; tail[j]: units of tail that show the last j.
    let mut head = vec![0u64; k + 1];
    for i in 1..=k {
        head[i] = head[i - 1].max(spans[i - 1].1);
    }
    let mut tail = vec![0u64; k + 1];
    for j in 1..=k {
        tail[j] = tail[j - 1].max(len.saturating_sub(spans[k - j].0));
    }
    let mut best = vec![u64::MAX; k + 1];
    for i in 0..=k {
        for j in 0..=k - i {
            let cost = (head[i] + tail[j]).min(len);
            best[i + j] = best[i + j].min(cost);
        }
    }
    // Keeping more never costs less than keeping fewer.
    for c in (0..k).rev() {
        best[c] = best[c].min(best[c + 1]);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Part;
    use crate::needles::NeedleKind;
    use serde_json::json;

    fn needle(entry: usize, offset: usize, text: &str) -> Needle {
        Needle {
            kind: NeedleKind::SummaryLine,
            text: text.into(),
            entry,
            part: 0,
            field: Field::Output,
            offset,
        }
    }

    fn entry(text: &str) -> Entry {
        Entry::new(
            "c",
            "shell",
            vec![Part::function_response(
                "c",
                "shell",
                Some(json!(text)),
                None,
            )],
        )
    }

    #[test]
    fn heads_and_tails_are_shared_within_a_field() {
        assert_eq!(field_options(&[(0, 10), (90, 100)], 100), vec![0, 10, 20]);
        // Three needles: the first two by a 30-unit head, all three by head 30 + tail 10.
        assert_eq!(
            field_options(&[(0, 10), (20, 30), (95, 100)], 100),
            vec![0, 5, 15, 35]
        );
        // A needle in the middle costs half the field from either side, and never more than the field.
        assert_eq!(field_options(&[(45, 55)], 100), vec![0, 55]);
        // A needle inside another: the head that shows the outer one shows both.
        assert_eq!(field_options(&[(0, 50), (10, 20)], 100), vec![0, 50, 50]);
    }

    #[test]
    fn the_bound_spends_the_budget_where_needles_are_cheapest() {
        let a = "x".repeat(1000);
        let b = "y".repeat(1000);
        let batch = vec![entry(&a), entry(&b)];
        let needles = vec![
            needle(0, 990, "xxxxxxxxxx"),
            needle(1, 500, "yyyyyyyyyy"),
            needle(1, 0, "yyyyy"),
        ];
        let r = PlanReminders::default();
        // 15 units: the tail needle of entry 0 (10) and the head needle of entry 1 (5).
        assert_eq!(needle_upper_bound(&batch, &needles, &r, Some(15)), 2);
        assert_eq!(needle_upper_bound(&batch, &needles, &r, Some(14)), 1);
        // The middle needle of entry 1 costs 500 more.
        assert_eq!(needle_upper_bound(&batch, &needles, &r, Some(520)), 3);
        assert_eq!(needle_upper_bound(&batch, &needles, &r, Some(2000)), 3);
        assert_eq!(needle_upper_bound(&batch, &needles, &r, None), 3);
        assert_eq!(needle_upper_bound(&batch, &needles, &r, Some(4)), 0);
    }

    #[test]
    fn needles_outside_the_budgeted_text_are_kept_whatever_the_limit() {
        let plan = Entry::new(
            "p",
            crate::budget::PLAN_MODE_TOOL,
            vec![Part::function_response(
                "p",
                crate::budget::PLAN_MODE_TOOL,
                Some(json!(format!("R1\n\n{}", "z".repeat(100)))),
                None,
            )],
        );
        let batch = vec![entry(&"x".repeat(1000)), plan];
        let r = PlanReminders::new(vec!["R1".into()]);
        let in_error = Needle {
            field: Field::Error,
            ..needle(0, 0, "nowhere")
        };
        // The reminder's text, protected, and a field the entry does not have: neither costs a unit.
        let needles = [needle(1, 0, "R1"), in_error, needle(0, 0, "xxxxx")];
        assert_eq!(needle_upper_bound(&batch, &needles, &r, Some(0)), 2);
        assert_eq!(needle_upper_bound(&batch, &needles, &r, Some(4)), 2);
        assert_eq!(needle_upper_bound(&batch, &needles, &r, Some(5)), 3);
        assert_eq!(needle_upper_bound(&batch, &needles[..1], &r, Some(0)), 1);
        assert_eq!(needle_upper_bound(&batch, &needles[1..2], &r, Some(0)), 1);
    }
}
