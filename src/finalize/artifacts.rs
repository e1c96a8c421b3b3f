//! At-most-once persistence of entries, shared by every strategy that writes complete outputs.
//!
//! An entry is written at most once per finalization, and only when it has no persistence decision yet
//! (`persistedOutputFiles` absent); an entry that already has one keeps it and reuses its paths. The content
//! written is the entry's budgeted slot texts joined by blank lines. After a write the entry's
//! `persistedOutputFiles` is `[path]`, or `[]` when the write failed or its id was refused.

use super::slots::Slot;
use super::PersistAttempt;
use crate::model::Batch;
use crate::persist::{ArtifactStore, Content, PersistenceIds};

/// Persists entries of one batch, one at a time and in any order, never the same entry twice.
#[derive(Debug, Clone)]
pub(crate) struct EntryWriter {
    ids: PersistenceIds,
    attempts: Vec<PersistAttempt>,
}

impl EntryWriter {
    /// A writer for `batch` (persistence ids are assigned against all of its call ids).
    pub(crate) fn new(batch: &Batch) -> Self {
        EntryWriter {
            ids: PersistenceIds::new(batch.iter().map(|e| e.call_id.as_str())),
            attempts: Vec::new(),
        }
    }

    /// Writes entry `e` (whose slots are `entry_slots`) unless it already has a persistence decision, and records
    /// the attempt. Returns whether a write was attempted.
    pub(crate) fn persist(
        &mut self,
        batch: &mut Batch,
        e: usize,
        entry_slots: &[Slot],
        store: &mut dyn ArtifactStore,
    ) -> bool {
        if batch[e].persisted_output_files.is_some() {
            return false;
        }
        let content = join_slot_texts(batch, entry_slots);
        self.write(batch, e, content, store);
        true
    }

    /// Like [`EntryWriter::persist`], for a caller that replaces every slot of the entry right after: when the
    /// entry is one slot with no protected prefix, its text is moved out of the batch into the artifact rather
    /// than copied (the field is left empty until the caller replaces it). Returns the content written, from
    /// which the caller then reads the slot's original text, or `None` when no write was attempted.
    pub(crate) fn persist_moving(
        &mut self,
        batch: &mut Batch,
        e: usize,
        entry_slots: &[Slot],
        store: &mut dyn ArtifactStore,
    ) -> Option<Content> {
        if batch[e].persisted_output_files.is_some() {
            return None;
        }
        let content = match entry_slots {
            [only] if only.protected == 0 => Content::from(only.take(batch)),
            _ => join_slot_texts(batch, entry_slots),
        };
        self.write(batch, e, content.clone(), store);
        Some(content)
    }

    /// Writes `content` as entry `e`'s artifact, records the attempt and sets the entry's persistence decision.
    fn write(
        &mut self,
        batch: &mut Batch,
        e: usize,
        content: Content,
        store: &mut dyn ArtifactStore,
    ) {
        let entry = &batch[e];
        let (call_id, path) = match self.ids.assign(&entry.call_id) {
            None => (entry.call_id.clone(), None),
            Some(id) => {
                let path = store.write(&id, &entry.tool_name, &content).ok();
                (id, path)
            }
        };
        self.attempts.push(PersistAttempt {
            call_id,
            tool_name: entry.tool_name.clone(),
            content,
            path: path.clone(),
            entry: e,
        });
        batch[e].persisted_output_files = Some(path.into_iter().collect());
    }

    /// Every attempt made, in order.
    pub(crate) fn into_attempts(self) -> Vec<PersistAttempt> {
        self.attempts
    }
}

/// The slots of entry `e` within `slots` (which are in slot order, so an entry's slots are contiguous).
pub(crate) fn slots_of_entry(slots: &[Slot], e: usize) -> &[Slot] {
    let start = slots.partition_point(|s| s.entry < e);
    let end = slots.partition_point(|s| s.entry <= e);
    &slots[start..end]
}

/// Persists, in entry order, every entry that owns a marked slot (`marked[i]` for `slots[i]`) and has no
/// persistence decision yet.
pub(crate) fn persist_marked(
    batch: &mut Batch,
    slots: &[Slot],
    marked: &[bool],
    store: &mut dyn ArtifactStore,
) -> Vec<PersistAttempt> {
    let mut writer = EntryWriter::new(batch);
    let mut start = 0;
    while start < slots.len() {
        let e = slots[start].entry;
        let end = start + slots[start..].iter().take_while(|s| s.entry == e).count();
        if marked[start..end].iter().any(|&m| m) {
            writer.persist(batch, e, &slots[start..end], store);
        }
        start = end;
    }
    writer.into_attempts()
}

/// The slot texts of one entry joined by blank lines: the complete output that persistence writes.
fn join_slot_texts(batch: &Batch, slots: &[Slot]) -> Content {
    if let [only] = slots {
        return Content::from(only.text(batch));
    }
    joined(slots.iter().map(|s| s.text(batch))).into()
}

/// `texts` joined by blank lines, in one allocation of exactly the joined length.
fn joined<'a>(texts: impl Iterator<Item = &'a str> + Clone) -> String {
    let separators = 2 * texts.clone().count().saturating_sub(1);
    let mut out = String::with_capacity(texts.clone().map(str::len).sum::<usize>() + separators);
    for (i, text) in texts.enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str(text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::slots::{collect_slots, SlotScope};
    use super::{slots_of_entry, EntryWriter};
    use crate::budget::PlanReminders;
    use crate::model::{Entry, Field, Part};
    use crate::persist::MemoryStore;
    use serde_json::Value;

    fn entry(id: &str, output: &str, error: Option<&str>) -> Entry {
        let error = error.map(|e| Value::String(e.into()));
        let part = Part::function_response(id, "shell", Some(Value::String(output.into())), error);
        Entry::new(id, "shell", vec![part])
    }

    #[test]
    fn an_entry_of_one_slot_is_moved_out_of_the_batch_and_one_of_several_is_copied_once() {
        let mut batch = vec![
            entry("a", "first", None),
            entry("b", "second", Some("boom")),
        ];
        let slots = collect_slots(&batch, &PlanReminders::default(), SlotScope::ALL);
        let mut store = MemoryStore::new("/artifacts");
        let mut writer = EntryWriter::new(&batch);
        let field = |batch: &Vec<Entry>, e: usize, f: Field| {
            batch[e].response_parts[0].field(f).map(str::to_string)
        };

        let moved = writer.persist_moving(&mut batch, 0, slots_of_entry(&slots, 0), &mut store);
        assert_eq!(moved.as_deref(), Some("first"));
        // Moved, not copied: the field is left empty for the caller to replace.
        assert_eq!(field(&batch, 0, Field::Output).as_deref(), Some(""));

        let joined = writer.persist_moving(&mut batch, 1, slots_of_entry(&slots, 1), &mut store);
        assert_eq!(joined.as_deref(), Some("second\n\nboom"));
        assert_eq!(field(&batch, 1, Field::Output).as_deref(), Some("second"));
        assert_eq!(field(&batch, 1, Field::Error).as_deref(), Some("boom"));

        // Each entry has its decision now: no second write.
        assert!(writer
            .persist_moving(&mut batch, 0, slots_of_entry(&slots, 0), &mut store)
            .is_none());
        assert_eq!(store.artifacts().len(), 2);
        assert_eq!(writer.into_attempts().len(), 2);
    }

    #[test]
    fn texts_are_joined_by_blank_lines_in_one_allocation_of_their_length() {
        for texts in [vec![], vec!["a"], vec!["ab", "", "cde"], vec!["x\n"; 5]] {
            let out = super::joined(texts.iter().copied());
            assert_eq!(out, texts.join("\n\n"));
            // `String::with_capacity` allocates exactly what it is asked for: more would be memory held for
            // nothing, less a reallocation and a copy of the text.
            assert_eq!(out.capacity(), out.len(), "{texts:?}");
        }
    }
}
