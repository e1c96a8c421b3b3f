//! Property tests over random batches: the design's invariants 2 (fits the budget), 3 (persists at most once and
//! reuses paths), 5 (preserves order and non-text parts) and 7 (display independence is structural here: only
//! slot texts change), plus surrogate safety of every cut, for the reference and the send guard.

use budgetlab::conform::{check_budget, check_integrity};
use budgetlab::finalize::{collect_slots, SlotScope};
use budgetlab::{
    Budget, BudgetContext, Entry, Field, MemoryStore, Part, PlanReminders, StrategyName,
};
use proptest::prelude::*;
use serde_json::json;

const PIECES: &[&str] = &[
    "a",
    "line\n",
    "é",
    "中",
    "😀",
    "👩‍👩‍👧",
    "𝔘",
    "\u{1F1EB}\u{1F1F7}",
    " ",
    "{\"k\":1}",
];

fn text(max_pieces: usize) -> impl proptest::strategy::Strategy<Value = String> {
    (
        proptest::collection::vec(0..PIECES.len(), 0..max_pieces),
        1usize..40,
    )
        .prop_map(|(idx, rep)| idx.iter().map(|&i| PIECES[i].repeat(rep)).collect())
}

fn part() -> impl proptest::strategy::Strategy<Value = Part> {
    prop_oneof![
        3 => (text(60), proptest::option::of(text(10))).prop_map(|(o, e)| {
            Part::function_response("id", "shell", Some(json!(o)), e.map(|e| json!(e)))
        }),
        1 => text(40).prop_map(Part::text),
        1 => Just(Part::function_response("id", "mcp", Some(json!({"rows": [1, 2, 3]})), None)),
        1 => Just(Part(json!({"inlineData": {"mimeType": "image/png", "data": "AAAA"}}).as_object().unwrap().clone())),
        1 => (0usize..2, proptest::option::of(text(30))).prop_map(|(r, hook)| {
            let reminder = PlanReminders::default().texts()[r].clone();
            let output = match hook {
                Some(h) => format!("{reminder}\n\n{h}"),
                None => reminder,
            };
            Part::function_response("p", "enter_plan_mode", Some(json!(output)), None)
        }),
    ]
}

fn entry() -> impl proptest::strategy::Strategy<Value = Entry> {
    let ids = prop_oneof![
        Just("c1"),
        Just("c1"),
        Just("c2"),
        Just("dir/c1"),
        Just("."),
        Just("c1-1"),
        Just("x/")
    ];
    let paths = prop_oneof![
        2 => Just(None),
        1 => Just(Some(vec![])),
        1 => Just(Some(vec!["/prior/a.output".to_string()])),
        1 => Just(Some(vec!["/prior/a".to_string(), "/prior/b".to_string()])),
    ];
    (ids, proptest::collection::vec(part(), 0..4), paths).prop_map(|(id, parts, paths)| {
        let mut e = Entry::new(id, "shell", parts);
        e.persisted_output_files = paths;
        e
    })
}

/// Every preview in a shortened field is a head of the original and a tail of it, never a broken cut.
fn previews_are_whole_cuts(
    input: &[Entry],
    output: &[Entry],
    reminders: &PlanReminders,
) -> Result<(), String> {
    for slot in collect_slots(input, reminders, SlotScope::ALL) {
        let before = slot.text(input).to_string();
        let after_full = output[slot.entry].response_parts[slot.part]
            .field(slot.field)
            .unwrap();
        let after = &after_full[slot.protected.min(after_full.len())..];
        if after == before {
            continue;
        }
        let Some((_, preview)) = after.split_once("\n\n") else {
            continue;
        };
        let ok = preview
            .match_indices("\n...\n")
            .any(|(i, _)| before.starts_with(&preview[..i]) && before.ends_with(&preview[i + 5..]))
            || before.starts_with(preview);
        if !ok {
            return Err(format!(
                "preview of entry {} is not a head/tail cut: {preview:?}",
                slot.entry
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn reference_keeps_every_invariant(batch in proptest::collection::vec(entry(), 0..8), budget in 1i64..4000) {
        let reminders = PlanReminders::default();
        let mut store = MemoryStore::new("/art");
        let ctx = BudgetContext::new(Budget::Units(budget));
        let out = StrategyName::REFERENCE.build().finalize(batch.clone(), &ctx, &mut store);
        prop_assert_eq!(check_integrity(&batch, &out, &reminders), Ok(()));
        prop_assert_eq!(check_budget(&out, &reminders, SlotScope::ALL, budget as u64), Ok(()));
        prop_assert_eq!(previews_are_whole_cuts(&batch, &out.batch, &reminders), Ok(()));
        // Persistence: one attempt per shortened, undecided entry; each with the entry's full slot texts.
        for attempt in &out.persisted {
            let e = attempt.entry;
            prop_assert!(batch[e].persisted_output_files.is_none());
            let slots = collect_slots(std::slice::from_ref(&batch[e]), &reminders, SlotScope::ALL);
            let joined: Vec<&str> = slots.iter().map(|s| s.text(std::slice::from_ref(&batch[e]))).collect();
            let joined = joined.join("\n\n");
            prop_assert_eq!(&*attempt.content, joined.as_str());
            let expected: Vec<String> = attempt.path.iter().cloned().collect();
            prop_assert_eq!(out.batch[e].persisted_output_files.as_ref(), Some(&expected));
        }
        prop_assert_eq!(store.artifacts().len(), out.persisted.iter().filter(|a| a.path.is_some()).count());
        // Finalizing again is a no-op: the result already fits and nothing more is written.
        let again = StrategyName::REFERENCE.build().finalize(out.batch.clone(), &ctx, &mut store);
        prop_assert!(again.persisted.is_empty());
        prop_assert_eq!(again.batch, out.batch);
    }

    #[test]
    fn send_guard_bounds_tool_fields_without_io(batch in proptest::collection::vec(entry(), 0..8), budget in 1i64..4000) {
        let reminders = PlanReminders::default();
        let mut store = MemoryStore::new("/art");
        let ctx = BudgetContext::new(Budget::Units(budget));
        let out = StrategyName::SEND_GUARD.build().finalize(batch.clone(), &ctx, &mut store);
        prop_assert_eq!(check_integrity(&batch, &out, &reminders), Ok(()));
        prop_assert_eq!(check_budget(&out, &reminders, SlotScope::TOOL_FIELDS, budget as u64), Ok(()));
        prop_assert!(out.persisted.is_empty() && store.artifacts().is_empty());
        for (a, b) in batch.iter().zip(&out.batch) {
            prop_assert_eq!(&a.persisted_output_files, &b.persisted_output_files);
            for (pa, pb) in a.response_parts.iter().zip(&b.response_parts) {
                prop_assert_eq!(pa.field(Field::Text), pb.field(Field::Text));
            }
        }
    }

    #[test]
    fn batches_round_trip_through_json(batch in proptest::collection::vec(entry(), 0..6)) {
        let json = serde_json::to_vec(&batch).unwrap();
        prop_assert_eq!(budgetlab::parse_batch(&json, "prop").unwrap(), batch);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever a call id holds, the filesystem backend writes only inside the artifact directory.
    #[test]
    fn fs_backend_never_leaves_the_artifact_directory(
        ids in proptest::collection::vec("[a-z./\\\\\u{0}😀-]{0,12}", 1..6),
    ) {
        use budgetlab::persist::PersistenceIds;
        use budgetlab::{ArtifactStore, FsStore};
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("art");
        let mut store = FsStore::new(dir.to_str().unwrap());
        let mut assigner = PersistenceIds::new(ids.iter().map(String::as_str));
        for call_id in &ids {
            if let Some(id) = assigner.assign(call_id) {
                let path = store.write(&id, "t", &"content".into()).unwrap();
                let written = std::path::Path::new(&path).canonicalize().unwrap();
                prop_assert_eq!(written.parent().unwrap(), dir.canonicalize().unwrap());
            }
        }
        // Nothing but the artifact directory appeared under the root.
        let top: Vec<_> = std::fs::read_dir(root.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        prop_assert!(top.len() <= 1);
    }
}
