//! Runtime modes: which runtime collects a turn's tool responses and sends them to the model. A scenario names
//! one (`mode = "headless"`); the simulation follows that mode's boundaries.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_by_name() {
        for m in Mode::ALL {
            assert_eq!(m.as_str().parse::<Mode>().unwrap(), m);
        }
        assert!("batch".parse::<Mode>().is_err());
    }
}
