//! The PostToolBatch hook a scenario asks for (`[hook]`): how much context it appends to each output and whether
//! it rebuilds the responses. What the hook then does to a batch is the simulation's business
//! (`simulate::hook`).

use serde::{Deserialize, Serialize};

/// What the simulated PostToolBatch hook does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct HookConfig {
    /// UTF-16 units of hook context appended (after a blank line) to every string output of the batch.
    pub append_units: usize,
    /// Whether the hook rebuilds the responses, dropping their `persistedOutputFiles`.
    pub rebuild: bool,
}

impl HookConfig {
    /// Whether the hook changes anything.
    pub fn is_active(self) -> bool {
        self.append_units > 0 || self.rebuild
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_hook_is_idle_and_either_setting_activates_it() {
        assert!(!HookConfig::default().is_active());
        let append = HookConfig {
            append_units: 1,
            rebuild: false,
        };
        let rebuild = HookConfig {
            append_units: 0,
            rebuild: true,
        };
        assert!(append.is_active() && rebuild.is_active());
    }
}
