//! `largest-first`: persist and replace whole fields, largest first, by a path stub (the reference header:
//! truncation notice, sha256 and artifact paths) until the batch fits; every field it does not replace stays
//! whole. Ties go to the earlier slot. A field no longer than a stub is never replaced, since that saves nothing.
//!
//! Should the stubs and the fields too short to replace still exceed the budget (a budget smaller than a few
//! stubs), a last no-I/O pass water-fills the remaining lengths and cuts each over-long field to its allocation
//! (stubs by their head, other fields by the reference fit), so the batch always fits.
//!
//! Which fields become stubs depends only on lengths (a stub's length does not depend on the digest it names),
//! so they are all chosen and persisted first; then the digests of every field replaced or cut are computed
//! together (on all cores when large, see `cut_digests.rs`), and the stubs and cuts written.

use super::artifacts::{slots_of_entry, EntryWriter};
use super::cut_digests::CutDigests;
use super::fit::{fit, header_units, header_with_digest};
use super::head_share::HeadShare;
use super::slots::{collect_slots, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::{Finalizer, Outcome};
use crate::alloc::water_fill;
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;
use crate::text::head;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "largest-first",
    description:
        "persists whole fields largest first and replaces them by a path stub until the batch fits",
    family: Family::BatchAllocation,
    caps: Some(SlotScope::ALL),
    gives_up: &["names-artifact"],
    // No parameter: the head share it is built with never shows, since a field the last pass cuts is never longer
    // than its header (it was too short to replace by a stub), so the cut is the header's head.
    params: &[],
    build: Build::One(|config| {
        Box::new(LargestFirst {
            head_share: config.head_share,
        })
    }),
};

/// The largest-first finalizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct LargestFirst {
    /// The head share of previews in the fallback pass.
    pub head_share: HeadShare,
}

impl Finalizer for LargestFirst {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn finalize(
        &self,
        mut batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        let Some(limit) = ctx.budget.limit() else {
            return Outcome::unchanged(batch);
        };
        let slots = collect_slots(&batch, &ctx.reminders, SlotScope::ALL);
        let mut lengths: Vec<u64> = slots.iter().map(|s| s.len).collect();
        let mut total: u64 = lengths.iter().sum();
        if total <= limit {
            return Outcome::unchanged(batch);
        }
        // No stub is shorter than the header without any path.
        let shortest_stub = header_units(&[]);
        let mut order: Vec<usize> = (0..slots.len()).collect();
        order.sort_by(|&a, &b| lengths[b].cmp(&lengths[a]).then(a.cmp(&b)));
        let mut writer = EntryWriter::new(&batch);
        let mut replaced = vec![false; slots.len()];
        // The slots to replace by their stub, in the order chosen; each entry is persisted at its first.
        let mut stubbed = Vec::new();
        for i in order {
            if total <= limit {
                break;
            }
            let slot = &slots[i];
            if slot.len <= shortest_stub {
                continue;
            }
            writer.persist(
                &mut batch,
                slot.entry,
                slots_of_entry(&slots, slot.entry),
                store,
            );
            let stub_len = header_units(batch[slot.entry].artifact_paths());
            if stub_len >= slot.len {
                continue;
            }
            total -= slot.len - stub_len;
            lengths[i] = stub_len;
            replaced[i] = true;
            stubbed.push(i);
        }
        // What the last pass cuts: every slot still over its share of a water-fill of the remaining lengths.
        let allocation = (total > limit).then(|| water_fill(&lengths, limit));
        let cut = |i: usize| allocation.as_ref().is_some_and(|a| lengths[i] > a[i]);
        // Each replaced or cut field's digest, taken in that order below; no text has changed yet.
        let mut digests = CutDigests::new(
            stubbed
                .iter()
                .copied()
                .chain((0..slots.len()).filter(|&i| !replaced[i] && cut(i)))
                .map(|i| slots[i].text(&batch)),
            ctx.known_digests.as_deref(),
        );
        for &i in &stubbed {
            let slot = &slots[i];
            let digest = digests.next(slot.text(&batch));
            let stub = header_with_digest(&digest, batch[slot.entry].artifact_paths());
            slot.replace(&mut batch, &stub);
        }
        if let Some(allocation) = &allocation {
            for (i, slot) in slots.iter().enumerate() {
                let a = allocation[i];
                if lengths[i] <= a {
                    continue;
                }
                let text = slot.text(&batch);
                let cut = if replaced[i] {
                    head(text, a as usize).to_string()
                } else {
                    let digest = digests.next(text);
                    let header = header_with_digest(&digest, batch[slot.entry].artifact_paths());
                    fit(text, a, &header, self.head_share)
                };
                slot.replace(&mut batch, &cut);
            }
        }
        Outcome {
            batch,
            persisted: writer.into_attempts(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::fit::header;
    use crate::finalize::slots::budgeted_total;
    use crate::finalize::testing::{output_entry, output_of, run};
    use crate::PlanReminders;

    #[test]
    fn replaces_the_largest_fields_and_keeps_small_ones_whole() {
        let small = "s".repeat(50);
        let medium = "m".repeat(300);
        let big = "b".repeat(5000);
        let huge = "h".repeat(8000);
        let batch = vec![
            output_entry("c1", "shell", &small),
            output_entry("c2", "shell", &big),
            output_entry("c3", "shell", &medium),
            output_entry("c4", "shell", &huge),
        ];
        let (out, store) = run(&LargestFirst::default(), batch, 1000, None);
        assert_eq!(output_of(&out, 0), small);
        assert_eq!(output_of(&out, 2), medium);
        assert_eq!(output_of(&out, 1), header(&big, &["/tmp/c2.txt".into()]));
        assert_eq!(output_of(&out, 3), header(&huge, &["/tmp/c4.txt".into()]));
        // Largest first: c4 is written before c2.
        let ids: Vec<&str> = store.artifacts().iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["c4", "c2"]);
        // Each stub is the 107-unit header plus a 33 + 11 unit path line.
        let total = budgeted_total(&out.batch, &PlanReminders::default(), SlotScope::ALL);
        assert_eq!(total, 50 + 300 + 2 * 151);
    }

    #[test]
    fn stops_as_soon_as_the_batch_fits() {
        let batch = vec![
            output_entry("a", "shell", &"a".repeat(600)),
            output_entry("b", "shell", &"b".repeat(700)),
        ];
        let (out, store) = run(&LargestFirst::default(), batch, 1000, None);
        assert_eq!(output_of(&out, 0), "a".repeat(600));
        assert_eq!(store.artifacts().len(), 1);
        assert_eq!(store.artifacts()[0].id, "b");
    }

    #[test]
    fn the_last_pass_hashes_its_cuts_ahead_in_the_order_it_takes_them() {
        use crate::finalize::cut_digests::with_threshold;
        // Two fields no longer than a stub (never replaced) and a short one under the water level: a budget of
        // 130 leaves 10 + 60 + 60, and each cut keeps the first 60 units of its header, digest included.
        let stub = header_units(&[]) as usize;
        let (c, d) = ("c".repeat(stub), "d".repeat(stub));
        let batch = vec![
            output_entry("s", "shell", &"s".repeat(10)),
            output_entry("c", "shell", &c),
            output_entry("d", "shell", &d),
        ];
        let finalize = |threshold| {
            with_threshold(threshold, || {
                let (out, _) = run(&LargestFirst::default(), batch.clone(), 130, None);
                (0..3)
                    .map(|e| output_of(&out, e).to_string())
                    .collect::<Vec<_>>()
            })
        };
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (ahead, runs) = two.install(|| finalize(0));
        let (on_demand, none) = finalize(u64::MAX);
        assert_eq!((runs, none), (1, 0));
        assert_eq!(
            on_demand,
            [
                "s".repeat(10),
                header(&c, &[])[..60].to_string(),
                header(&d, &[])[..60].to_string()
            ]
        );
        assert_eq!(ahead, on_demand);
    }

    #[test]
    fn a_budget_smaller_than_the_stubs_still_fits() {
        let batch = vec![
            output_entry("a", "shell", &"a".repeat(600)),
            output_entry("b", "shell", &"b".repeat(700)),
        ];
        let (out, _) = run(&LargestFirst::default(), batch.clone(), 100, None);
        let stub_a = header(&"a".repeat(600), &["/tmp/a.txt".into()]);
        let stub_b = header(&"b".repeat(700), &["/tmp/b.txt".into()]);
        assert_eq!(output_of(&out, 0), &stub_a[..50]);
        assert_eq!(output_of(&out, 1), &stub_b[..50]);
    }
}
