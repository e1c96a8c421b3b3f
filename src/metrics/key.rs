//! What identifies a row of results: its scenario, its budget ([`BudgetLabel`]) and its strategy
//! ([`StrategyKey`]), together a [`RowKey`]. Rows are matched by these keys (two runs by the gate and `compare`,
//! rows and records when aggregating and merging), never by comparing their text.

use std::borrow::Borrow;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::finalize::StrategyName;
use crate::scenario::BudgetLabel;

/// A strategy as results name it: the stable name of the [`StrategyName`] that ran. It is kept as the name
/// rather than parsed back, so that the results of another build (with strategies this one lacks) still read.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StrategyKey(String);

impl fmt::Debug for StrategyKey {
    /// As the name's text, quoted: what messages showed when names were strings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl StrategyKey {
    /// The key of `name`.
    pub fn of(name: &StrategyName) -> StrategyKey {
        StrategyKey(name.as_str().into_owned())
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the reference finalizer, the baseline every chart and the gate compare with.
    pub fn is_reference(&self) -> bool {
        self.0 == StrategyName::REFERENCE.as_str()
    }

    /// The strategy of this build it names, if any.
    pub fn name(&self) -> Option<StrategyName> {
        self.0.parse().ok()
    }
}

impl fmt::Display for StrategyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for StrategyKey {
    fn from(name: &str) -> StrategyKey {
        StrategyKey(name.to_string())
    }
}

impl From<String> for StrategyKey {
    fn from(name: String) -> StrategyKey {
        StrategyKey(name)
    }
}

impl From<&StrategyName> for StrategyKey {
    fn from(name: &StrategyName) -> StrategyKey {
        StrategyKey::of(name)
    }
}

impl AsRef<str> for StrategyKey {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for StrategyKey {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for StrategyKey {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for StrategyKey {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for StrategyKey {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for StrategyKey {
    fn eq(&self, other: &String) -> bool {
        self.0 == *other
    }
}

/// What identifies a row of results (or a per-batch record's row): scenario, budget and strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RowKey<'a> {
    /// The scenario's name.
    pub scenario: &'a str,
    /// The budget.
    pub budget: BudgetLabel,
    /// The strategy.
    pub strategy: &'a StrategyKey,
}

impl fmt::Display for RowKey<'_> {
    /// `scenario · budget · strategy`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} · {} · {}", self.scenario, self.budget, self.strategy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_its_name_and_knows_the_reference() {
        let reference = StrategyKey::of(&StrategyName::REFERENCE);
        assert!(reference.is_reference());
        assert_eq!(reference, "reference");
        assert_eq!(serde_json::to_string(&reference).unwrap(), "\"reference\"");
        let greedy: StrategyKey = serde_json::from_str("\"greedy\"").unwrap();
        assert!(!greedy.is_reference());
        assert_eq!(
            greedy.name().map(|n| n.as_str().into_owned()).as_deref(),
            Some("greedy")
        );
        let other = StrategyKey::from("someone-elses");
        assert_eq!(other.name().map(|n| n.as_str().into_owned()), None);
        assert!(!other.is_reference());
        let key = RowKey {
            scenario: "many-small",
            budget: BudgetLabel::Absolute(1000),
            strategy: &other,
        };
        assert_eq!(key.to_string(), "many-small · abs-1000 · someone-elses");
    }

    #[test]
    fn a_key_reads_as_its_name_wherever_a_str_is_wanted() {
        let key = StrategyKey::from("greedy");
        let as_ref: &str = key.as_ref();
        let borrowed: &str = key.borrow();
        assert_eq!((as_ref, borrowed, &*key), ("greedy", "greedy", "greedy"));
        assert!(key == *"greedy" && key != *"reference");
        assert!(key == "greedy" && key != "reference");
        let (greedy, reference) = (String::from("greedy"), String::from("reference"));
        assert!(key == greedy && key != reference);
        // A map of keys is searched by the name's text.
        let map = std::collections::BTreeMap::from([(key.clone(), 1)]);
        assert_eq!((map.get("greedy"), map.get("reference")), (Some(&1), None));
    }
}
