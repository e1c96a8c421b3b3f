//! `relevance`: the reference allocation and persistence, with previews that keep the lines sharing words with
//! what the runtime knows of the turn (the task, the calls' names and arguments, the assistant's text), in the
//! manner of question-conditioned compression (LongLLMLingua) without a model.
//!
//! Each shortened field gets exactly the reference's allocation, header and artifact. The query is the words of
//! the batch's [`TurnContext`](crate::context::TurnContext), common words left out (`finalize/words.rs`), each
//! weighted by where it was said: 1 in the task or another call, 2 in the assistant's text, 5 in the arguments or
//! name of the call that made this field's entry (so `open Foo.java 400` finds line `400:` of its listing). A line
//! scores the sum, over the distinct query words it holds, of the word's weight times its rarity in the field
//! (`1 + log2((lines + 1) / lines holding it)` bits: a word on every line says little). The lines that score are
//! the hits, best first (earlier first on a tie); the preview is filled as every content-aware strategy fills it
//! (`finalize/line_pick.rs`): a head and tail reserve (`relevance.edge`, split by `head_share`), each hit with
//! up to `relevance.context` lines either side when they fit (else alone), then head and tail lines, every
//! omitted run one marker naming its lines.
//!
//! Without a context, or with one that shares no word with a field, the field is cut as `rarity` cuts it (with
//! `relevance`'s settings): the batch's rarest lines are the next best guess at what the agent will use.

use std::collections::HashMap;

use super::batch_words::BatchWords;
use super::config::{PickConfig, CONTEXT_LINES};
use super::head_share::HeadShare;
use super::line_pick::{fit_picked, LineMap};
use super::param::{Param, Search, Setting, HEAD_SHARE};
use super::rarity::{fill_ranked, plan_of, RankedAhead};
use super::slots::{Slot, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::waterfill::{allocate_and_fit_prepared, slot_lengths};
use super::words::{common, for_each_word, log2_fixed, BucketSet, TextWords, BIT, NUMBER};
use super::{Finalizer, Outcome};
use crate::alloc::water_fill;
use crate::budget::BudgetContext;
use crate::context::{CallContext, TurnContext};
use crate::model::Batch;
use crate::persist::ArtifactStore;

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "relevance",
    description: "reference allocation; previews keep the lines sharing words with the turn's task, call and assistant text (rarity without a context), with omitted line ranges marked",
    family: Family::ContentAware,
    caps: Some(SlotScope::ALL),
    gives_up: &[],
    params: &[
        HEAD_SHARE,
        Param {
            name: "edge",
            key: "relevance.edge",
            description: "the share of each preview reserved for its head and tail before the relevant lines",
            field: Setting::Share(|c| &mut c.relevance.edge),
            search: Search::Shares { steps: 10 },
        },
        Param {
            name: "context",
            key: "relevance.context",
            description: "lines kept on each side of a relevant line when they fit",
            field: Setting::Units(CONTEXT_LINES, |c| &mut c.relevance.context),
            search: Search::Each { low: 0, high: 4 },
        },
    ],
    build: Build::One(|config| {
        Box::new(Relevance {
            head_share: config.head_share,
            settings: config.relevance,
        })
    }),
};

/// The weight of a word of the task or of another call.
const TASK_WEIGHT: u32 = 1;
/// The weight of a word of the assistant's text.
const ASSISTANT_WEIGHT: u32 = 2;
/// The weight of a word of the field's own call.
const OWN_CALL_WEIGHT: u32 = 5;

/// The context-relevance finalizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Relevance {
    /// How the head and tail split what they get.
    pub head_share: HeadShare,
    /// The reserve and the context.
    pub settings: PickConfig,
}

/// What the fits of one batch share.
struct Prepared {
    /// The batch's words, and their counts for `rarity`'s cut.
    words: BatchWords,
    /// The query, when the batch has a context.
    query: Option<Query>,
    /// Each slot's lines, chosen ahead of the fits (on all cores) when its words were read.
    ahead: Vec<Option<Ahead>>,
}

/// A field's lines chosen ahead of its fit.
enum Ahead {
    /// The lines holding query words, best first.
    Hits(Vec<usize>),
    /// No line holds a query word: the rare lines.
    Rare(RankedAhead),
}

/// The words of a turn's context (see the module documentation).
struct Query {
    /// The query's words: the context's and every entry's own call's, common words left out.
    words: QueryWords,
    /// The weight of each query word (in the order of `words`) in the task, the calls and the assistant's text.
    weights: Vec<u32>,
    /// For each entry of the batch, the query words (their places in `words`) of the call that made it.
    own: Vec<Vec<usize>>,
}

/// A set of word buckets, each with its place: a bit set to pass over the words outside it at one look-up each,
/// and the buckets in order for the place of those inside.
struct QueryWords {
    set: BucketSet,
    sorted: Vec<u32>,
}

impl QueryWords {
    fn new(mut buckets: Vec<u32>) -> Self {
        buckets.sort_unstable();
        buckets.dedup();
        let mut set = BucketSet::new();
        for &b in &buckets {
            set.insert(b);
        }
        QueryWords {
            set,
            sorted: buckets,
        }
    }

    fn len(&self) -> usize {
        self.sorted.len()
    }

    /// The place of bucket `b`, if it is a query word.
    #[inline]
    fn place(&self, b: u32) -> Option<usize> {
        if !self.set.contains(b) {
            return None;
        }
        self.sorted.binary_search(&b).ok()
    }
}

impl Finalizer for Relevance {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        let turn = ctx.turn.as_deref().filter(|t| !t.is_empty());
        allocate_and_fit_prepared(
            batch,
            ctx,
            store,
            SlotScope::ALL,
            true,
            |slots, limit| water_fill(&slot_lengths(slots), limit),
            |batch, slots, allocation| {
                let words = BatchWords::read(batch, slots, allocation);
                let query = turn.map(|turn| Query::new(batch, turn));
                let ahead = words.each_cut(batch, allocation, |slot, text, text_words, bound| {
                    let map = LineMap::new(text);
                    let hits = match &query {
                        Some(query) => relevant_lines(&map, text_words, query, slot.entry),
                        None => Vec::new(),
                    };
                    if hits.is_empty() {
                        Ahead::Rare(RankedAhead::new(&map, text_words, words.infos(), bound))
                    } else {
                        Ahead::Hits(hits)
                    }
                });
                Prepared {
                    words,
                    query,
                    ahead,
                }
            },
            |prepared, slot, text, allocation, header| {
                self.fit(prepared, slot, text, allocation, header)
            },
        )
    }
}

impl Relevance {
    fn fit(&self, prepared: &Prepared, slot: &Slot, text: &str, a: u64, header: &str) -> String {
        let plan = plan_of(&self.settings, self.head_share);
        let words = &prepared.words;
        fit_picked(text, a, header, self.head_share, |map, sel| {
            let read = || (words.infos(), words.words_of(slot, text));
            match words.ahead_of(&prepared.ahead, slot, text) {
                Some(Ahead::Hits(hits)) => plan.fill(map, sel, &[], hits.iter().copied()),
                Some(Ahead::Rare(ranked)) => fill_ranked(map, sel, &plan, Some(ranked), read),
                None => {
                    let text_words = words.words_of(slot, text);
                    let hits = match &prepared.query {
                        Some(query) => relevant_lines(map, &text_words, query, slot.entry),
                        None => Vec::new(),
                    };
                    if hits.is_empty() {
                        fill_ranked(map, sel, &plan, None, read);
                    } else {
                        plan.fill(map, sel, &[], hits);
                    }
                }
            }
        })
    }
}

/// The words of `text`, common words left out, each added to `weights` with `weight`.
fn add_words(weights: &mut HashMap<u32, u32>, text: &str, weight: u32) {
    let common = common();
    for_each_word(text.as_bytes(), |b, _| {
        if !common.contains(b) {
            let w = weights.entry(b).or_insert(0);
            *w = (*w).max(weight);
        }
    });
}

impl Query {
    /// The query of `turn` for `batch`.
    fn new(batch: &Batch, turn: &TurnContext) -> Self {
        let mut weights = HashMap::new();
        if let Some(task) = &turn.task {
            add_words(&mut weights, task, TASK_WEIGHT);
        }
        for call in &turn.calls {
            add_words(&mut weights, &call.name, TASK_WEIGHT);
            add_words(&mut weights, &call.arguments, TASK_WEIGHT);
        }
        if let Some(text) = &turn.assistant {
            add_words(&mut weights, text, ASSISTANT_WEIGHT);
        }
        // The first call with each id, as `TurnContext::call` finds it, looked up once an entry.
        let mut calls: HashMap<&str, &CallContext> = HashMap::new();
        for call in &turn.calls {
            calls.entry(call.call_id.as_str()).or_insert(call);
        }
        let own_buckets: Vec<Vec<u32>> = batch
            .iter()
            .map(|entry| {
                let mut words = HashMap::new();
                if let Some(call) = calls.get(entry.call_id.as_str()) {
                    add_words(&mut words, &call.name, OWN_CALL_WEIGHT);
                    add_words(&mut words, &call.arguments, OWN_CALL_WEIGHT);
                }
                words.into_keys().collect()
            })
            .collect();
        let words = QueryWords::new(
            weights
                .keys()
                .copied()
                .chain(own_buckets.iter().flatten().copied())
                .collect(),
        );
        let weights = words
            .sorted
            .iter()
            .map(|b| weights.get(b).copied().unwrap_or(0))
            .collect();
        let own = own_buckets
            .iter()
            .map(|buckets| buckets.iter().filter_map(|&b| words.place(b)).collect())
            .collect();
        Query {
            words,
            weights,
            own,
        }
    }
}

/// The lines of `map` (whose words are `text_words`) holding a query word, best score first (earlier first on a
/// tie), for the field of entry `entry`.
fn relevant_lines(
    map: &LineMap<'_>,
    text_words: &TextWords,
    query: &Query,
    entry: usize,
) -> Vec<usize> {
    // Each query word's weight in this field: its own call's words weigh the most.
    let mut weight = query.weights.clone();
    for &q in query.own.get(entry).map_or(&[][..], Vec::as_slice) {
        weight[q] = weight[q].max(OWN_CALL_WEIGHT);
    }
    // Each line's distinct query words, and how many lines hold each.
    let mut found: Vec<(usize, usize)> = Vec::new();
    let mut df = vec![0u32; query.words.len()];
    let mut last_line = vec![usize::MAX; query.words.len()];
    for i in 0..map.len() {
        for &w in text_words.line(i) {
            let Some(q) = query.words.place(w & (NUMBER - 1)) else {
                continue;
            };
            if weight[q] == 0 || last_line[q] == i {
                continue;
            }
            last_line[q] = i;
            df[q] += 1;
            found.push((i, q));
        }
    }
    let lines = log2_fixed(map.len() as u64 + 1);
    let mut scores: Vec<(u64, usize)> = Vec::new();
    for (i, q) in found {
        let idf = BIT + lines.saturating_sub(log2_fixed(u64::from(df[q])));
        let score = u64::from(weight[q]) * u64::from(idf);
        match scores.last_mut() {
            Some((s, line)) if *line == i => *s += score,
            _ => scores.push((score, i)),
        }
    }
    scores.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scores.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::budget::Budget;
    use crate::context::CallContext;
    use crate::finalize::fit::header;
    use crate::finalize::rarity::Rarity;
    use crate::finalize::testing::output_entry;
    use crate::persist::MemoryStore;
    use crate::text::utf16_len;

    /// A 60-line listing of a Java file, numbered as SWE-agent's viewer numbers it.
    fn listing() -> String {
        let mut s = String::from("[File: /repo/src/Widget.java (60 lines total)]\n");
        for i in 1..=60 {
            let body = match i {
                42 => "    int frobnicate(int depth) {".to_string(),
                _ => format!("    // filler comment {}", i % 7),
            };
            s.push_str(&format!("{i}:{body}\n"));
        }
        s
    }

    fn finalize_with(
        finalizer: &dyn Finalizer,
        text: &str,
        budget: i64,
        turn: Option<TurnContext>,
    ) -> String {
        let mut ctx = BudgetContext::new(Budget::Units(budget));
        ctx.turn = turn.map(Arc::new);
        let mut store = MemoryStore::new("/tmp");
        let out = finalizer.finalize(vec![output_entry("c1", "open", text)], &ctx, &mut store);
        out.batch[0].response_parts[0]
            .field(crate::model::Field::Output)
            .unwrap()
            .to_string()
    }

    #[test]
    fn the_line_the_assistant_names_is_kept_with_its_neighbours() {
        let text = listing();
        let turn = TurnContext {
            task: Some("Widget crashes on deep trees".into()),
            calls: vec![CallContext {
                call_id: "c1".into(),
                name: "search_file".into(),
                arguments: "frobnicate".into(),
            }],
            assistant: Some("Let me look at frobnicate.".into()),
        };
        let out = finalize_with(&Relevance::default(), &text, 400, Some(turn));
        assert!(utf16_len(&out) <= 400);
        let h = header(&text, &["/tmp/c1.txt".into()]);
        assert!(out.starts_with(&format!("{h}\n\n")), "{out}");
        assert!(
            out.contains("\n41:    // filler comment 6\n42:    int frobnicate(int depth) {\n43:    // filler comment 1\n"),
            "{out}"
        );
        assert!(out.contains("[... lines "), "{out}");
    }

    #[test]
    fn without_a_context_relevance_is_rarity() {
        let text = listing();
        for budget in [300, 500, 900] {
            assert_eq!(
                finalize_with(&Relevance::default(), &text, budget, None),
                finalize_with(&Rarity::default(), &text, budget, None)
            );
        }
    }
}
