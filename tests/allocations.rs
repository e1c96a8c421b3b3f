//! What finalizing costs in memory: no allocation per unchanged field, and no copy of unchanged text.
//!
//! This binary's global allocator counts the allocations (and reallocations) of the current thread, so a test
//! can count exactly what one `finalize` call allocates while other tests run on other threads. The counts are
//! compared between a batch and the same batch with a hundred times more unchanged fields: they must be equal.
//! Text that a finalizer leaves as it is must come out in the very same buffer (moved, not copied), and the text
//! of a shortened single-field entry is moved into its artifact.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use budgetlab::{Batch, Budget, BudgetContext, Entry, Field, MemoryStore, Outcome, StrategyName};

use crate::support::{output_part, shell_entry};

/// The system allocator, counting this thread's allocations.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    // During thread teardown the counter may be gone; those allocations are nobody's to count.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every method forwards to the system allocator unchanged; counting touches only a thread-local `Cell`
// that is const-initialised and has no destructor, so it never allocates or re-enters the allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Finalizes `batch` with `strategy` at `budget`; returns the outcome, the backend and how many allocations the
/// `finalize` call itself made (building the finalizer and the backend is not counted, nor what the process
/// allocates once on its first finalization: a first call on a copy of the batch is made uncounted, so the count
/// is the same whether this test runs alone, in its own process, or after others).
fn finalize_counting(
    strategy: &StrategyName,
    batch: Batch,
    budget: i64,
) -> (Outcome, MemoryStore, u64) {
    let finalizer = strategy.build();
    let ctx = BudgetContext::new(Budget::Units(budget));
    finalizer.finalize(batch.clone(), &ctx, &mut MemoryStore::new("tool-results"));
    let mut store = MemoryStore::new("tool-results");
    let before = allocations();
    let outcome = finalizer.finalize(batch, &ctx, &mut store);
    let made = allocations() - before;
    (outcome, store, made)
}

/// `n` entries whose short outputs fit any budget used here.
fn small_entries(n: usize) -> Batch {
    (0..n)
        .map(|i| shell_entry(&format!("call_{i:05}"), &format!("ok: step {i} done\n")))
        .collect()
}

fn output(entry: &Entry) -> &str {
    entry.response_parts[0].field(Field::Output).unwrap()
}

#[test]
fn a_batch_that_fits_allocates_the_same_for_10_or_1000_fields() {
    for strategy in [StrategyName::REFERENCE, StrategyName::SEND_GUARD] {
        let (_, _, few) = finalize_counting(&strategy, small_entries(10), 1_000_000);
        let (_, _, many) = finalize_counting(&strategy, small_entries(1_000), 1_000_000);
        assert_eq!(
            few, many,
            "{strategy}: {few} allocations for 10 fields, {many} for 1,000"
        );
        assert!(
            many <= 2,
            "{strategy}: {many} allocations for a batch that fits"
        );
    }
}

#[test]
fn unchanged_fields_beside_a_shortened_one_allocate_nothing_each() {
    let with_giant = |n: usize| {
        let mut batch = small_entries(n);
        batch.insert(
            n / 2,
            shell_entry("call_giant", &"log line\n".repeat(20_000)),
        );
        batch
    };
    // Every small output fits its share of 50,000; only the giant one is cut.
    for strategy in [StrategyName::REFERENCE, StrategyName::SEND_GUARD] {
        let (few_out, _, few) = finalize_counting(&strategy, with_giant(10), 50_000);
        let (many_out, _, many) = finalize_counting(&strategy, with_giant(1_000), 50_000);
        assert_ne!(output(&few_out.batch[5]), "log line\n".repeat(20_000));
        assert_ne!(output(&many_out.batch[500]), "log line\n".repeat(20_000));
        assert_eq!(
            few, many,
            "{strategy}: {few} allocations beside 10 fields, {many} beside 1,000"
        );
    }
}

#[test]
fn unchanged_text_is_moved_not_copied_by_every_strategy() {
    let mut batch = small_entries(20);
    batch.push(shell_entry("call_big", &"x".repeat(300_000)));
    batch.push(Entry::new(
        "call_two",
        "shell",
        vec![
            output_part("call_two", "shell", "short"),
            output_part("call_two", "shell", "also short"),
        ],
    ));
    let buffers = |batch: &Batch| -> Vec<(String, *const u8)> {
        batch
            .iter()
            .flat_map(|e| &e.response_parts)
            .filter_map(|p| p.field(Field::Output))
            .map(|t| (t.to_string(), t.as_ptr()))
            .collect()
    };
    for strategy in StrategyName::all() {
        let input = batch.clone();
        let before = buffers(&input);
        let (outcome, _, _) = finalize_counting(&strategy, input, 20_000);
        let after = buffers(&outcome.batch);
        assert_eq!(before.len(), after.len());
        for ((text_in, ptr_in), (text_out, ptr_out)) in before.iter().zip(&after) {
            if text_in == text_out {
                assert_eq!(ptr_in, ptr_out, "{strategy}: an unchanged field was copied");
            }
        }
    }
}

#[test]
fn the_reference_moves_a_shortened_field_into_its_artifact() {
    let giant = "log line\n".repeat(20_000);
    let batch = vec![
        shell_entry("call_a", "short"),
        shell_entry("call_b", &giant),
    ];
    let original = output(&batch[1]).as_ptr();
    let (outcome, store, _) = finalize_counting(&StrategyName::REFERENCE, batch, 10_000);
    let artifact = &store.artifacts()[0].content;
    assert_eq!(&**artifact, giant.as_str());
    assert_eq!(
        artifact.as_ptr(),
        original,
        "the artifact is the field's own buffer"
    );
    assert_eq!(outcome.persisted[0].content.as_ptr(), original);
}
