//! The boundaries a turn passes on its way to the model, as one enum: what the simulation records a total at,
//! what metrics name as the boundary that let a violation through. Each has a stable name (`scheduler-pre-hook`,
//! `headless-turn`), the one results, tables and JSON show.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::workload::Mode;

/// A boundary of a simulated turn. Which ones a turn passes, and in which order, depends on its mode and form
/// (see the simulation's module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Boundary {
    /// The producers' own output, before any finalization.
    Producers,
    /// The core scheduler's finalization before the PostToolBatch hook.
    SchedulerPreHook,
    /// The PostToolBatch hook.
    PostToolBatchHook,
    /// The core scheduler's finalization after the hook.
    SchedulerPostHook,
    /// The runtime's own aggregation of the turn, in this mode.
    Aggregation(Mode),
    /// The runtime's outer finalization of the aggregate, in this mode.
    OuterFinalize(Mode),
    /// The chat send guard.
    SendGuard,
    /// What the model receives.
    ModelRequest,
}

impl Boundary {
    /// Every boundary: those of every turn, then each mode's aggregation and outer finalization.
    pub const ALL: [Boundary; 6 + 2 * Mode::ALL.len()] = {
        let mut all = [Boundary::Producers; 6 + 2 * Mode::ALL.len()];
        let fixed = [
            Boundary::Producers,
            Boundary::SchedulerPreHook,
            Boundary::PostToolBatchHook,
            Boundary::SchedulerPostHook,
            Boundary::SendGuard,
            Boundary::ModelRequest,
        ];
        let mut i = 0;
        while i < fixed.len() {
            all[i] = fixed[i];
            i += 1;
        }
        let mut m = 0;
        while m < Mode::ALL.len() {
            all[6 + 2 * m] = Boundary::Aggregation(Mode::ALL[m]);
            all[7 + 2 * m] = Boundary::OuterFinalize(Mode::ALL[m]);
            m += 1;
        }
        all
    };

    /// The boundary's stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Boundary::Producers => "producers",
            Boundary::SchedulerPreHook => "scheduler-pre-hook",
            Boundary::PostToolBatchHook => "post-tool-batch-hook",
            Boundary::SchedulerPostHook => "scheduler-post-hook",
            Boundary::Aggregation(mode) => match mode {
                Mode::Interactive => "interactive-merge",
                Mode::Headless => "headless-turn",
                Mode::Acp => "acp-turn",
                Mode::Agent => "agent-aggregate",
                Mode::Speculative => "speculative-aggregate",
            },
            Boundary::OuterFinalize(mode) => match mode {
                Mode::Interactive => "interactive-outer-finalize",
                Mode::Headless => "headless-finalize",
                Mode::Acp => "acp-finalize",
                Mode::Agent => "agent-finalize",
                Mode::Speculative => "speculative-finalize",
            },
            Boundary::SendGuard => "send-guard",
            Boundary::ModelRequest => "model-request",
        }
    }

    /// The boundary of this name.
    pub fn from_name(name: &str) -> Option<Boundary> {
        Boundary::ALL.into_iter().find(|b| b.as_str() == name)
    }
}

impl fmt::Display for Boundary {
    /// The name, padded as the format asks (`{:<28}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for Boundary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Boundary {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Boundary, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Boundary;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the name of a boundary")
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<Boundary, E> {
                Boundary::from_name(name)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(name), &self))
            }
        }
        deserializer.deserialize_str(Name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_boundary_has_its_own_name_and_reads_back_from_it() {
        let mut names: Vec<&str> = Boundary::ALL.iter().map(|b| b.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Boundary::ALL.len());
        for b in Boundary::ALL {
            assert_eq!(Boundary::from_name(b.as_str()), Some(b));
            let json = serde_json::to_string(&b).unwrap();
            assert_eq!(json, format!("\"{}\"", b.as_str()));
            assert_eq!(serde_json::from_str::<Boundary>(&json).unwrap(), b);
        }
        assert_eq!(Boundary::from_name("turn"), None);
        assert!(serde_json::from_str::<Boundary>("\"turn\"").is_err());
        assert_eq!(
            Boundary::Aggregation(Mode::Headless).as_str(),
            "headless-turn"
        );
        assert_eq!(format!("[{:<12}]", Boundary::SendGuard), "[send-guard  ]");
    }
}
