//! The origin of each response in a turn: which calls the scheduler executed and which the runtime adds itself
//! (duplicates, synthetic, skipped and cancelled responses).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::model::Entry;

/// Where a response in a turn comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// A call the scheduler executed (successfully or not).
    Executed,
    /// A repeated call answered from an earlier response.
    Duplicate,
    /// A response the runtime made up (e.g. for an unknown tool).
    Synthetic,
    /// A call that was skipped.
    Skipped,
    /// A call that was cancelled.
    Cancelled,
}

impl Origin {
    /// The origin of every entry of a turn: the entry's `status` key when it names one (`duplicate`,
    /// `synthetic`, `skipped`, `cancelled`; anything else means executed), otherwise `duplicate` for a call id
    /// already seen earlier in the turn and `executed` for the rest.
    pub fn of_turn(entries: &[Entry]) -> Vec<Origin> {
        let mut seen = BTreeSet::new();
        entries
            .iter()
            .map(|e| {
                let first = seen.insert(e.call_id.as_str());
                match e.extra.get("status").and_then(|s| s.as_str()) {
                    Some("duplicate") => Origin::Duplicate,
                    Some("synthetic") => Origin::Synthetic,
                    Some("skipped") => Origin::Skipped,
                    Some("cancelled") => Origin::Cancelled,
                    Some(_) => Origin::Executed,
                    None if first => Origin::Executed,
                    None => Origin::Duplicate,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_follow_status_then_repetition() {
        let mut entries: Vec<Entry> = ["a", "b", "a", "c"]
            .iter()
            .map(|id| Entry::new(*id, "t", vec![]))
            .collect();
        entries[3].extra.insert("status".into(), "cancelled".into());
        assert_eq!(
            Origin::of_turn(&entries),
            vec![
                Origin::Executed,
                Origin::Executed,
                Origin::Duplicate,
                Origin::Cancelled
            ]
        );
    }
}
