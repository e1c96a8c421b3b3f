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

use std::borrow::Cow;

use super::batch_words::BatchWords;
use super::config::{PickConfig, CONTEXT_LINES};
use super::head_share::HeadShare;
use super::line_pick::{fit_picked, LineMap, Plan, Selection};
use super::param::{Param, Search, Setting, HEAD_SHARE};
use super::slots::SlotScope;
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::{allocate_and_fit_prepared, slot_lengths};
use super::words::{BucketSet, InfoTable, TextWords, NUMBER};
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
            |batch, slots, allocation| {
                let words = BatchWords::read(batch, slots, allocation);
                let ahead = words.each_cut(batch, allocation, |_, text, text_words, bound| {
                    RankedAhead::new(&LineMap::new(text), text_words, words.infos(), bound)
                });
                (words, ahead)
            },
            |(words, ahead), slot, text, allocation, header| {
                let plan = plan_of(&self.settings, self.head_share);
                fit_picked(text, allocation, header, self.head_share, |map, sel| {
                    let ranked = words.ahead_of(ahead, slot, text);
                    fill_ranked(map, sel, &plan, ranked, || {
                        (words.infos(), words.words_of(slot, text))
                    });
                })
            },
        )
    }
}

/// The plan a `PickConfig` gives.
pub(crate) fn plan_of(settings: &PickConfig, head_share: HeadShare) -> Plan {
    Plan {
        edge: settings.edge,
        head_share,
        context: settings.context.min(CONTEXT_LINES.high) as usize,
    }
}

/// Fills `sel` by `plan` with the rare lines of `map` as hits: those `ranked` ahead when it answers for the
/// content, else ranked now with the self-information and words `read` gives.
pub(crate) fn fill_ranked<'w>(
    map: &LineMap<'_>,
    sel: &mut Selection<'_>,
    plan: &Plan,
    ranked: Option<&RankedAhead>,
    read: impl FnOnce() -> (&'w InfoTable, Cow<'w, TextWords>),
) {
    let content = sel.free();
    let hits = ranked.and_then(|r| r.at(map, content)).unwrap_or_else(|| {
        let (infos, words) = read();
        rare_lines(map, &words, infos, content)
    });
    plan.fill(map, sel, &[], hits);
}

/// A field's rare lines ranked ahead of its fit (on all cores, see `finalize/batch_words.rs`), with its
/// allocation standing for the content, which the fit learns only once it has the header.
#[derive(Debug)]
pub(crate) struct RankedAhead {
    /// The content the lines were ranked for: at least the fit's.
    bound: u64,
    /// [`rare_lines`] for `bound`.
    order: Vec<usize>,
}

impl RankedAhead {
    /// The rare lines of `map` (whose words are `words`) ranked for a content of at most `bound`.
    pub(crate) fn new(map: &LineMap<'_>, words: &TextWords, infos: &InfoTable, bound: u64) -> Self {
        RankedAhead {
            bound,
            order: rare_lines(map, words, infos, bound),
        }
    }

    /// What [`rare_lines`] answers for `content`, or `None` when this ranking cannot tell. Ranking for a smaller
    /// content differs only in where it stops (after the line that takes the units past it) as long as the same
    /// lines can be ranked, which holds unless a line is longer than `content` but not than the bound.
    pub(crate) fn at(&self, map: &LineMap<'_>, content: u64) -> Option<Vec<usize>> {
        let n = map.len();
        if content > self.bound
            || self.order.iter().any(|&i| i >= n)
            || (0..n).any(|i| map.units(i) > content && map.units(i) <= self.bound)
        {
            return None;
        }
        let mut total = 0u64;
        let mut out = Vec::new();
        for &i in &self.order {
            out.push(i);
            total += map.units(i);
            if total > content {
                break;
            }
        }
        Some(out)
    }
}

/// Bits of a ranking key that hold the line (the rest hold its information per unit, under 2^29: see
/// [`rare_lines`]). A field of 2^34 lines would be 16 GiB.
const LINE_BITS: u32 = 34;

/// Distinct words a line holds past which its words are sorted to find the repeated ones, rather than each
/// looked for among those before it.
const SORT_WORDS: usize = 16;

/// The lines of `map` (whose words are `text_words`) in the order the greedy coverage ranks them, until their
/// units pass `content`; lines with nothing new are never ranked.
///
/// The lazy greedy: each line waits under the worth it last had (a bound on its worth now, which only falls as
/// words are covered), the best first; the line on top is taken when its worth now is still the best, else it
/// waits again under that. A key packs the worth (high bits) above the line's complemented index (low
/// [`LINE_BITS`] bits), so one integer orders by worth, then the earlier line. The keys taken off only ever fall,
/// so the queue is a radix heap ([`FallingQueue`]). Each line's words sit together in one list, so weighing a line
/// again reads one place in memory.
pub(crate) fn rare_lines(
    map: &LineMap<'_>,
    text_words: &TextWords,
    infos: &InfoTable,
    content: u64,
) -> Vec<usize> {
    let n = map.len().min((1 << LINE_BITS) - 1);
    // Each line's distinct informative words, one flat list: the number of words, then each word its bucket (the
    // high 16 bits) and its information (the low 16: at most 64 bits of 256ths); a word held twice keeps the lesser
    // information (a number's is capped). A line longer than the content is never ranked: its words are not read.
    let mut words: Vec<u32> = Vec::with_capacity(text_words.all().len() + n);
    // Where each line's list starts (`usize::MAX`: no list).
    let mut at = vec![usize::MAX; n];
    let mut uncovered = 0usize;
    let mut seen = BucketSet::new();
    let mut queue = FallingQueue::new();
    // Information per unit, scaled to keep the integer ratio fine-grained. A line holds at most one word per two
    // units (a word and the byte after it, bar the last) and a word at most 64 bits, so this stays under 2^29.
    let density = |g: u64, i: usize| (g << 16) / (map.units(i) + 8);
    let low = (1u64 << LINE_BITS) - 1;
    let key = |d: u64, i: usize| d << LINE_BITS | (low - i as u64);
    for (i, line_at) in at.iter_mut().enumerate() {
        if map.units(i) > content {
            continue;
        }
        let head = words.len();
        words.push(0);
        let start = head + 1;
        for &w in text_words.line(i) {
            let info = infos.info(w);
            if info == 0 {
                continue;
            }
            let word = (w & (NUMBER - 1)) << 16 | info;
            let line = &mut words[start..];
            if line.len() < SORT_WORDS {
                if let Some(e) = line.iter_mut().find(|e| **e >> 16 == word >> 16) {
                    *e = (*e).min(word);
                    continue;
                }
            }
            words.push(word);
        }
        if words.len() - start > SORT_WORDS {
            words[start..].sort_unstable();
            let mut w = start + 1;
            for r in start + 1..words.len() {
                if words[w - 1] >> 16 != words[r] >> 16 {
                    words[w] = words[r];
                    w += 1;
                }
            }
            words.truncate(w);
        }
        if words.len() == start {
            words.truncate(head);
            continue;
        }
        words[head] = (words.len() - start) as u32;
        *line_at = head;
        let mut g = 0;
        for &w in &words[start..] {
            g += u64::from(w & 0xffff);
            // The distinct words the ranked lines hold: once every one is covered no line can add anything, and
            // the lines still queued would only be taken off one by one, worth nothing (on a repetitive log,
            // nearly all).
            uncovered += usize::from(seen.insert(w >> 16));
        }
        queue.push(key(density(g, i), i));
    }
    let line_words = |i: usize| -> &[u32] {
        let head = at[i];
        &words[head + 1..head + 1 + words[head] as usize]
    };
    let mut covered = BucketSet::new();
    let mut order = Vec::new();
    let mut total = 0u64;
    while let Some(k) = queue.pop() {
        if uncovered == 0 {
            break;
        }
        let i = (low - (k & low)) as usize;
        let line = line_words(i);
        let g: u64 = line
            .iter()
            .filter(|&&w| !covered.contains(w >> 16))
            .map(|&w| u64::from(w & 0xffff))
            .sum();
        if g == 0 {
            continue;
        }
        let now = key(density(g, i), i);
        // Lazy greedy: a line whose worth fell is taken only when nothing above it (ties to the earlier line)
        // could be worth more now.
        if now < k && queue.peek().is_some_and(|top| top > now) {
            queue.push(now);
            continue;
        }
        for &w in line {
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

/// A queue of `u64` keys taken off largest first, where no key pushed is larger than the last one taken off or
/// looked at: a radix heap. Keys are kept complemented (so the largest is the smallest) in 65 bins by the highest
/// bit in which they differ from the last key taken; taking one off empties the lowest bin, and when that is bin
/// 0 already the key is at hand, else the bin's smallest becomes the last key and the others move to lower bins.
/// Each key moves at most 64 times, and a bin is a plain vector.
struct FallingQueue {
    /// The complement of the last key taken off or looked at.
    last: u64,
    /// Complemented keys, bin `k` holding those whose highest bit differing from `last` is bit `k - 1`.
    bins: Vec<Vec<u64>>,
    /// Bit `k` is set when bin `k` holds a key.
    filled: u128,
}

impl FallingQueue {
    fn new() -> Self {
        FallingQueue {
            last: 0,
            bins: (0..65).map(|_| Vec::new()).collect(),
            filled: 0,
        }
    }

    fn put(&mut self, y: u64) {
        let bin = (64 - (y ^ self.last).leading_zeros()) as usize;
        self.bins[bin].push(y);
        self.filled |= 1 << bin;
    }

    /// Adds `key`, at most the last key taken off or looked at.
    fn push(&mut self, key: u64) {
        debug_assert!(!key >= self.last, "a key above the last one taken");
        self.put(!key);
    }

    /// Brings the largest key into bin 0; false when the queue is empty.
    fn settle(&mut self) -> bool {
        if self.filled & 1 != 0 {
            return true;
        }
        if self.filled == 0 {
            return false;
        }
        let k = self.filled.trailing_zeros() as usize;
        let mut moving = std::mem::take(&mut self.bins[k]);
        self.filled &= !(1 << k);
        self.last = moving.iter().copied().min().unwrap_or(self.last);
        for &y in &moving {
            self.put(y);
        }
        // Keep the emptied bin's allocation (the keys all move to lower bins).
        if self.bins[k].is_empty() {
            moving.clear();
            self.bins[k] = moving;
        }
        true
    }

    /// The largest key, left in the queue.
    fn peek(&mut self) -> Option<u64> {
        // Settle first: it moves `last` to the largest key.
        if self.settle() {
            Some(!self.last)
        } else {
            None
        }
    }

    /// Takes the largest key off.
    fn pop(&mut self) -> Option<u64> {
        if !self.settle() {
            return None;
        }
        let y = self.bins[0].pop();
        if self.bins[0].is_empty() {
            self.filled &= !1;
        }
        y.map(|y| !y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::fit::header;
    use crate::finalize::testing::{output_entry, output_of, run};
    use crate::finalize::words::Counts;
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
    fn the_falling_queue_takes_keys_off_as_a_binary_heap_does() {
        let mut queue = FallingQueue::new();
        let mut heap = std::collections::BinaryHeap::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..500 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            queue.push(x >> 3);
            heap.push(x >> 3);
        }
        while let Some(top) = queue.pop() {
            assert_eq!(Some(top), heap.pop());
            // Push back below what was taken, as the lazy greedy does.
            if top % 3 == 0 && top > 10 {
                let lower = top - top / 7 - 1;
                if queue.peek().is_some_and(|t| t > lower) {
                    queue.push(lower);
                    heap.push(lower);
                }
            }
            assert_eq!(queue.peek(), heap.peek().copied());
        }
        assert!(heap.is_empty());
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
        let order = rare_lines(&map, &TextWords::new(&text), &InfoTable::new(&counts), 1000);
        // `quokka_module` once is rarer than `zebra_handler` twice; the second zebra line adds nothing new.
        assert_eq!(order[..2], [25, 5]);
        assert!(!order.contains(&15));
    }
}
