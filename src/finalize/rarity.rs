//! `rarity`: the reference allocation and persistence, with previews that keep the lines carrying the batch's
//! rarest words, in the manner of Selective Context (keep what carries self-information) without a model.
//!
//! Each shortened field gets exactly the reference's allocation, header and artifact. The words of the whole
//! batch (every budgeted field, before any cut) are counted, and a word's self-information is `log2(total /
//! count)`, common words of code, shells and prose carrying none and numbers at most a bit (`finalize/words.rs`).
//! A line is worth the information of the words it holds that no line picked before it holds (each word counts
//! once: a word survives when any kept line still holds it), per unit of its length; the lines are ranked by
//! that, greedily (the lazy greedy of submodular coverage), until the ranked lines would fill the preview.
//! The preview is then filled as every content-aware strategy fills it (`finalize/line_pick.rs`): a head and tail
//! reserve (`rarity.edge`, split by `head_share`), the ranked lines each with up to `rarity.context` lines either
//! side when they fit (else alone), then head and tail lines; every omitted run is one marker naming its lines.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::config::{PickConfig, CONTEXT_LINES};
use super::head_share::HeadShare;
use super::line_pick::{fit_picked, LineMap, Plan, Selection};
use super::param::{Param, Search, Setting, HEAD_SHARE};
use super::slots::{Slot, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::{allocate_and_fit_prepared, slot_lengths};
use super::words::{for_each_word, BucketSet, Counts};
use super::{Finalizer, Outcome};
use crate::alloc::water_fill;
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "rarity",
    description: "reference allocation; previews keep the lines carrying the batch's rarest words (self-information, no model), with omitted line ranges marked",
    family: Family::ContentAware,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[
        HEAD_SHARE,
        Param {
            name: "edge",
            key: "rarity.edge",
            description: "the share of each preview reserved for its head and tail before the rare lines",
            field: Setting::Share(|c| &mut c.rarity.edge),
            search: Search::Shares { steps: 10 },
        },
        Param {
            name: "context",
            key: "rarity.context",
            description: "lines kept on each side of a rare line when they fit",
            field: Setting::Units(CONTEXT_LINES, |c| &mut c.rarity.context),
            search: Search::Each { low: 0, high: 4 },
        },
    ],
    build: Build::One(|config| {
        Box::new(Rarity {
            head_share: config.head_share,
            settings: config.rarity,
        })
    }),
};

/// The rare-lines finalizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rarity {
    /// How the head and tail split what they get.
    pub head_share: HeadShare,
    /// The reserve and the context.
    pub settings: PickConfig,
}

impl Finalizer for Rarity {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        allocate_and_fit_prepared(
            batch,
            ctx,
            store,
            SlotScope::ALL,
            true,
            |slots, limit| water_fill(&slot_lengths(slots), limit),
            |batch, slots, _| batch_counts(batch, slots),
            |counts, _, text, allocation, header| {
                fit_rare(
                    text,
                    allocation,
                    header,
                    self.head_share,
                    &self.settings,
                    counts,
                )
            },
        )
    }
}

/// The words of every slot of `batch`, counted.
pub(crate) fn batch_counts(batch: &Batch, slots: &[Slot]) -> Counts {
    let mut counts = Counts::new();
    for slot in slots {
        counts.add(slot.text(batch));
    }
    counts
}

/// The plan a `PickConfig` gives.
pub(crate) fn plan_of(settings: &PickConfig, head_share: HeadShare) -> Plan {
    Plan {
        edge: settings.edge,
        head_share,
        context: settings.context.min(CONTEXT_LINES.high) as usize,
    }
}

/// The rarity fit of `text` to at most `allocation` UTF-16 units behind `header` (see the module documentation).
pub(crate) fn fit_rare(
    text: &str,
    allocation: u64,
    header: &str,
    head_share: HeadShare,
    settings: &PickConfig,
    counts: &Counts,
) -> String {
    let plan = plan_of(settings, head_share);
    fit_picked(text, allocation, header, head_share, |map, sel| {
        fill_rare(map, sel, &plan, counts)
    })
}

/// Fills `sel` by `plan` with the rare lines of `map` as hits.
pub(crate) fn fill_rare(map: &LineMap<'_>, sel: &mut Selection<'_>, plan: &Plan, counts: &Counts) {
    let hits = rare_lines(map, counts, sel.free());
    plan.fill(map, sel, &[], hits);
}

/// The lines of `map` in the order the greedy coverage ranks them, until their units pass `content`; lines with
/// nothing new are never ranked.
pub(crate) fn rare_lines(map: &LineMap<'_>, counts: &Counts, content: u64) -> Vec<usize> {
    let n = map.len();
    let infos = counts.infos();
    // Each line's distinct informative words, one flat list, each word its bucket (the high 16 bits) and its
    // information (the low 16: at most 64 bits of 256ths), so that sorting them sorts by bucket, then information.
    // A line longer than the content is never ranked: its words are not read.
    let mut words: Vec<u32> = Vec::with_capacity(map.len() * 4);
    let mut bounds = Vec::with_capacity(n + 1);
    bounds.push(0);
    for i in 0..n {
        let start = words.len();
        if map.units(i) <= content {
            for_each_word(map.body(i).as_bytes(), |b, number| {
                let info = infos.info(b, number);
                if info > 0 {
                    words.push(b << 16 | info);
                }
            });
            words[start..].sort_unstable();
            let mut w = start;
            for r in start..words.len() {
                if w == start || words[w - 1] >> 16 != words[r] >> 16 {
                    words[w] = words[r];
                    w += 1;
                }
            }
            words.truncate(w);
        }
        bounds.push(words.len());
    }
    let covered = BucketSet::new();
    let gain = |covered: &BucketSet, i: usize| -> u64 {
        words[bounds[i]..bounds[i + 1]]
            .iter()
            .filter(|&&w| !covered.contains(w >> 16))
            .map(|&w| u64::from(w & 0xffff))
            .sum()
    };
    // Information per unit, scaled to keep the integer ratio fine-grained.
    let density = |g: u64, i: usize| (g << 16) / (map.units(i) + 8);
    let mut heap: BinaryHeap<(u64, Reverse<usize>)> = (0..n)
        .filter(|&i| map.units(i) <= content)
        .filter_map(|i| {
            let g = gain(&covered, i);
            (g > 0).then(|| (density(g, i), Reverse(i)))
        })
        .collect();
    // The distinct words the ranked lines hold: once every one is covered no line can add anything, and the
    // lines still queued would only be taken off one by one, worth nothing (on a repetitive log, nearly all).
    let mut uncovered = {
        let mut seen = BucketSet::new();
        words.iter().filter(|&&w| seen.insert(w >> 16)).count()
    };
    let mut covered = covered;
    let mut order = Vec::new();
    let mut total = 0u64;
    while let Some((d, Reverse(i))) = heap.pop() {
        if uncovered == 0 {
            break;
        }
        let g = gain(&covered, i);
        if g == 0 {
            continue;
        }
        let now = density(g, i);
        // Lazy greedy: a line whose worth fell is taken only when nothing above it (ties to the earlier line)
        // could be worth more now.
        if now < d && heap.peek().is_some_and(|&top| top > (now, Reverse(i))) {
            heap.push((now, Reverse(i)));
            continue;
        }
        for &w in &words[bounds[i]..bounds[i + 1]] {
            uncovered -= usize::from(covered.insert(w >> 16));
        }
        order.push(i);
        total += map.units(i);
        if total > content {
            break;
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::fit::header;
    use crate::finalize::testing::{output_entry, output_of, run};
    use crate::text::utf16_len;

    /// Forty lines of the same words, with one line of rare identifiers at line 25 (index 24).
    fn log() -> String {
        let mut s = String::new();
        for i in 0..40 {
            if i == 24 {
                s.push_str("NullPointerException at FooWidget.frobnicate\n");
            } else {
                s.push_str("checking the build cache entry ok\n");
            }
        }
        s
    }

    #[test]
    fn the_line_of_rare_words_is_kept_with_its_neighbours_and_the_cut_is_marked() {
        let text = log();
        let batch = vec![output_entry("c", "shell", &text)];
        let (out, store) = run(&Rarity::default(), batch, 420, None);
        let got = output_of(&out, 0);
        assert!(utf16_len(got) <= 420);
        let h = header(&text, &["/tmp/c.txt".into()]);
        let plain = "checking the build cache entry ok\n";
        // Content 420 - 142 - 2 = 276, marker bound 36: the reserve of 1/5 of the free 240 (head 9: no line; tail
        // 39: one line), then the rare line with a line on each side and a second marker, then one head line.
        assert_eq!(
            got,
            format!(
                "{h}\n\n{plain}[... lines 2-23 of 40 omitted ...]\n{plain}NullPointerException at FooWidget.frobnicate\n{plain}[... lines 27-39 of 40 omitted ...]\n{plain}"
            )
        );
        // The artifact holds the whole text.
        assert_eq!(store.artifacts().len(), 1);
        assert_eq!(out.persisted[0].content.as_str(), text);
    }

    #[test]
    fn each_word_counts_once() {
        let mut text = String::new();
        for i in 0..30 {
            match i {
                5 | 15 => text.push_str("zebra_handler failed\n"),
                25 => text.push_str("quokka_module failed\n"),
                _ => text.push_str("common line of text\n"),
            }
        }
        let mut counts = Counts::new();
        counts.add(&text);
        let map = LineMap::new(&text);
        let order = rare_lines(&map, &counts, 1000);
        // `quokka_module` once is rarer than `zebra_handler` twice; the second zebra line adds nothing new.
        assert_eq!(order[..2], [25, 5]);
        assert!(!order.contains(&15));
    }
}
