//! The words of a batch's budgeted fields, read once a batch for the content-aware strategies that read them
//! (`rarity`, `relevance`): every field's [`TextWords`] on all cores, and the self-information the batch's
//! [`Counts`] give ([`InfoTable`]), made from them when a fit first asks.
//!
//! A fit reads the words of the field it cuts from here instead of hashing the text a second time. Nothing is read
//! when no shortened field can hold a preview of picked lines: a preview needs an allocation past the shortest
//! header and its blank line ([`MIN_PICK_ALLOCATION`]), so a batch whose cut fields all get less (many small
//! allocations) costs these strategies nothing beyond the reference's work.

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use rayon::prelude::*;

use super::fit::header_units;
use super::slots::Slot;
use super::words::{Counts, InfoTable, TextWords};
use crate::model::Batch;

/// The smallest allocation at which a fit can pick lines: past the shortest header (no artifact path) and the
/// blank line after it, the content is empty below it (`finalize/line_pick.rs` asks for more still).
pub(crate) fn min_pick_allocation() -> u64 {
    header_units(&[]) + 2
}

/// The words of a batch's fields (see the module documentation).
#[derive(Debug)]
pub(crate) struct BatchWords {
    /// The batch's slots, in the order of `texts`.
    slots: Vec<Slot>,
    /// Each slot's words, or none when no field needs them.
    texts: Vec<TextWords>,
    /// The self-information the batch's counts give, made when first asked.
    infos: OnceLock<InfoTable>,
    /// Where the last slot asked for was found: fits ask in slot order.
    cursor: AtomicUsize,
}

impl BatchWords {
    /// The words of every slot of `batch`, read on all cores when some slot is cut to an allocation a preview of
    /// picked lines fits in (`allocation` is the slots' own, in their order).
    pub(crate) fn read(batch: &Batch, slots: &[Slot], allocation: &[u64]) -> Self {
        let needed = slots
            .iter()
            .zip(allocation)
            .any(|(s, &a)| s.len > a && a > min_pick_allocation());
        let texts = if needed {
            slots
                .par_iter()
                .map(|s| TextWords::new(s.text(batch)))
                .collect()
        } else {
            Vec::new()
        };
        BatchWords {
            slots: slots.to_vec(),
            texts,
            infos: OnceLock::new(),
            cursor: AtomicUsize::new(0),
        }
    }

    /// Where `slot` is among the batch's slots.
    pub(crate) fn place_of(&self, slot: &Slot) -> Option<usize> {
        let from = self.cursor.load(Ordering::Relaxed).min(self.slots.len());
        let found = self.slots[from..]
            .iter()
            .position(|s| s == slot)
            .map(|k| from + k)
            .or_else(|| self.slots[..from].iter().position(|s| s == slot));
        if let Some(k) = found {
            self.cursor.store(k, Ordering::Relaxed);
        }
        found
    }

    /// The words of `slot`, whose text is `text`: those read, or `text`'s read now when they were not (or are not
    /// its words).
    pub(crate) fn words_of(&self, slot: &Slot, text: &str) -> Cow<'_, TextWords> {
        match self.place_of(slot).and_then(|k| self.texts.get(k)) {
            Some(words) if words.is_of_len(text.len()) => Cow::Borrowed(words),
            _ => Cow::Owned(TextWords::new(text)),
        }
    }

    /// What `each_cut` made for `slot`, whose text is `text`, if it made anything for it.
    pub(crate) fn ahead_of<'a, R>(
        &self,
        ahead: &'a [Option<R>],
        slot: &Slot,
        text: &str,
    ) -> Option<&'a R> {
        let k = self.place_of(slot)?;
        if !self.texts.get(k)?.is_of_len(text.len()) {
            return None;
        }
        ahead.get(k)?.as_ref()
    }

    /// `f(slot, text, words, allocation)` for every slot of `batch` cut to an allocation a preview of picked lines fits
    /// in, on all cores; `None` for the others. `allocation` is the slots' own, in their order. A strategy ranks its
    /// lines here ahead of the fits, which run one after the other.
    pub(crate) fn each_cut<R: Send>(
        &self,
        batch: &Batch,
        allocation: &[u64],
        f: impl Fn(&Slot, &str, &TextWords, u64) -> R + Sync,
    ) -> Vec<Option<R>> {
        if self.texts.len() != self.slots.len() {
            return Vec::new();
        }
        self.slots
            .par_iter()
            .zip(&self.texts)
            .zip(allocation)
            .map(|((s, words), &a)| {
                (s.len > a && a > min_pick_allocation()).then(|| f(s, s.text(batch), words, a))
            })
            .collect()
    }

    /// The self-information of words under the counts of every slot's words. Only a fit that picks lines asks,
    /// and then the words were read (see [`min_pick_allocation`]); were they not, the counts are empty and every
    /// word carries the same information.
    pub(crate) fn infos(&self) -> &InfoTable {
        self.infos.get_or_init(|| {
            debug_assert!(
                self.texts.len() == self.slots.len(),
                "counts asked of a batch whose words were not read"
            );
            let mut counts = Counts::new();
            for words in &self.texts {
                counts.add_words(words);
            }
            InfoTable::new(&counts)
        })
    }
}
