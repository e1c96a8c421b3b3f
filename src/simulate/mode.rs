//! Runtime modes and the origin of each response in a turn: which calls the scheduler executed and which the
//! runtime adds itself (duplicates, synthetic, skipped and cancelled responses).

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::model::Entry;

/// The runtime that collects a turn's tool responses and sends them to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The interactive UI: executable, duplicate and synthetic responses merged in ordinal order.
    Interactive,
    /// Non-interactive runs: the whole turn collected, then finalized once.
    Headless,
    /// The Agent Client Protocol server: the complete turn finalized before transcript recording.
    Acp,
    /// A sub-agent runtime: the aggregate finalized before results are emitted.
    Agent,
    /// Speculative follow-up execution: the aggregate finalized before history is appended.
    Speculative,
}

impl Mode {
    /// Every mode, in listing order.
    pub const ALL: [Mode; 5] = [
        Mode::Interactive,
        Mode::Headless,
        Mode::Acp,
        Mode::Agent,
        Mode::Speculative,
    ];

    /// The stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Interactive => "interactive",
            Mode::Headless => "headless",
            Mode::Acp => "acp",
            Mode::Agent => "agent",
            Mode::Speculative => "speculative",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Mode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Mode::ALL
            .iter()
            .copied()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| {
                Error::invalid(
                    "mode",
                    s,
                    "known modes: interactive, headless, acp, agent, speculative",
                )
            })
    }
}

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

    #[test]
    fn modes_parse_by_name() {
        for m in Mode::ALL {
            assert_eq!(m.as_str().parse::<Mode>().unwrap(), m);
        }
        assert!("batch".parse::<Mode>().is_err());
    }
}
