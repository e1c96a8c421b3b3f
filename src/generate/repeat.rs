//! Repeated outputs (`texture.repeat_share`): a result that re-sends, word for word, the result of a call from
//! one of the [`LOOKBACK`] batches before, as an agent that reads the same file again gets the same view again.
//!
//! A batch stays a pure function of (scenario, seed, index): whether each of its entries is a repeat, and of
//! what, is drawn from the batch's own repeat stream, and the earlier result is found by generating that batch
//! again, following its own repeats back (so a file view re-read many times is the same text every time, and
//! every repeat is the text of a result that is really there, earlier in the run). Only entries whose call id
//! is theirs alone in the batch are replaced or copied, so a duplicate call id always answers with its twin's
//! response. A repeat keeps its own call id; the tool name, the parts, the persistence metadata and the
//! needles are the earlier result's.

use serde_json::Value;

use super::{GeneratedBatch, Generator};
use crate::model::Entry;
use crate::needles::Needle;
use crate::rng::Stream;

/// How many batches back a repeat may reach.
pub const LOOKBACK: u64 = 8;

/// Where a repeated entry comes from: the batch, and a word that picks one of its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Source {
    batch: u64,
    pick: u64,
}

/// The entries of `batch` whose call id no other entry of the batch has, in order.
fn single_ids(batch: &[Entry]) -> Vec<usize> {
    (0..batch.len())
        .filter(|&e| {
            batch
                .iter()
                .filter(|o| o.call_id == batch[e].call_id)
                .count()
                == 1
        })
        .collect()
}

impl Generator {
    /// Batch `index` with its repeats in place.
    pub(super) fn with_repeats(&self, fresh: GeneratedBatch) -> GeneratedBatch {
        let plan = self.repeat_plan(&fresh);
        if plan.iter().all(Option::is_none) {
            return fresh;
        }
        let GeneratedBatch {
            index,
            mut batch,
            needles,
            context,
            group,
        } = fresh;
        let mut by_entry: Vec<Vec<Needle>> = vec![Vec::new(); batch.len()];
        for n in needles {
            by_entry[n.entry].push(n);
        }
        for (e, source) in plan.into_iter().enumerate() {
            let Some((entry, copied)) = source.and_then(|s| self.resolve(s)) else {
                continue;
            };
            batch[e] = recall(entry, &batch[e].call_id);
            by_entry[e] = copied
                .into_iter()
                .map(|n| Needle { entry: e, ..n })
                .collect();
        }
        GeneratedBatch {
            index,
            batch,
            needles: by_entry.into_iter().flatten().collect(),
            context,
            group,
        }
    }

    /// For each entry of a freshly generated batch, the earlier result it repeats, if it is a repeat.
    fn repeat_plan(&self, fresh: &GeneratedBatch) -> Vec<Option<Source>> {
        let share = self.scenario.texture.repeat_share;
        let mut plan = vec![None; fresh.batch.len()];
        if share <= 0.0 || fresh.index == 0 {
            return plan;
        }
        let mut rng = Stream::derive(self.seed, &format!("repeat:{}", self.name), fresh.index);
        let back = fresh.index.min(LOOKBACK);
        for e in single_ids(&fresh.batch) {
            if rng.chance(share) {
                let batch = fresh.index - 1 - rng.below(back);
                plan[e] = Some(Source {
                    batch,
                    pick: rng.next_u64(),
                });
            }
        }
        plan
    }

    /// The result a repeat re-sends, followed back through the repeats it may itself be; `None` when the batch
    /// it lands on has no entry of its own call id.
    fn resolve(&self, mut source: Source) -> Option<(Entry, Vec<Needle>)> {
        loop {
            let fresh = self.fresh_batch(source.batch);
            let candidates = single_ids(&fresh.batch);
            if candidates.is_empty() {
                return None;
            }
            let e = candidates[(source.pick % candidates.len() as u64) as usize];
            match self.repeat_plan(&fresh)[e] {
                Some(earlier) => source = earlier,
                None => {
                    let needles = fresh.needles.into_iter().filter(|n| n.entry == e).collect();
                    return Some((fresh.batch[e].clone(), needles));
                }
            }
        }
    }
}

/// `entry` answering the call `call_id`: its function responses carry that id.
fn recall(mut entry: Entry, call_id: &str) -> Entry {
    entry.call_id = call_id.to_string();
    for part in &mut entry.response_parts {
        if let Some(Value::Object(fr)) = part.0.get_mut("functionResponse") {
            fr.insert("id".into(), Value::String(call_id.to_string()));
        }
    }
    entry
}
