//! The persistence chart: artifact writes and bytes per turn, by strategy.

use super::{ratio, rows_of};
use crate::metrics::StrategyKey;
use crate::run::RunResults;

/// Persistence I/O of one strategy, per turn.
#[derive(Debug, Clone, PartialEq)]
pub struct PersistenceRow {
    /// The strategy.
    pub strategy: StrategyKey,
    /// Turns run.
    pub turns: u64,
    /// Successful writes per turn, first writes of an entry.
    pub first_writes: f64,
    /// Writes per turn of an entry already written in the same turn.
    pub duplicate_writes: f64,
    /// Failed or refused writes per turn.
    pub failed_writes: f64,
    /// KiB written per turn.
    pub kib: f64,
}

/// The persistence chart's data.
#[derive(Debug, Clone, PartialEq)]
pub struct PersistenceIo {
    /// One row per strategy, in run order.
    pub rows: Vec<PersistenceRow>,
}

/// Writes and bytes per turn by strategy, over every row.
pub fn persistence_io(results: &RunResults) -> PersistenceIo {
    let rows = results
        .inputs
        .strategies
        .iter()
        .map(|strategy| {
            let (mut turns, mut writes, mut dup, mut failed, mut bytes) = (0, 0, 0, 0, 0);
            for r in rows_of(results, strategy) {
                turns += r.batches;
                writes += r.persistence.writes;
                dup += r.persistence.duplicate_writes;
                failed += r.persistence.failed_writes;
                bytes += r.persistence.bytes;
            }
            let per_turn = |v: u64| ratio(v as f64, turns as f64).unwrap_or(0.0);
            PersistenceRow {
                strategy: strategy.clone(),
                turns,
                first_writes: per_turn(writes - dup.min(writes)),
                duplicate_writes: per_turn(dup),
                failed_writes: per_turn(failed),
                kib: per_turn(bytes) / 1024.0,
            }
        })
        .collect();
    PersistenceIo { rows }
}
