//! Which strategies share a panel: all of them when they are few, otherwise one panel per family (batch
//! allocations, head shares, replaced and peer policies), each with the reference as its baseline.

use std::collections::BTreeMap;

use crate::finalize::Family;
use crate::metrics::StrategyKey;

/// At most this many strategies share one panel before they are split into families.
pub const MAX_SERIES_PER_PANEL: usize = 9;

/// A family of strategies drawn in one panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrategyGroup {
    /// The panel title (empty when every strategy fits one panel).
    pub title: String,
    /// The strategies, the reference first when present.
    pub strategies: Vec<StrategyKey>,
}

/// Splits `strategies` into panels: all of them in one when there are few, otherwise by family (batch
/// allocations, head shares, replaced and peer policies), the reference in every panel as the baseline.
pub fn strategy_groups(strategies: &[StrategyKey]) -> Vec<StrategyGroup> {
    if strategies.len() <= MAX_SERIES_PER_PANEL {
        return vec![StrategyGroup {
            title: String::new(),
            strategies: strategies.to_vec(),
        }];
    }
    // A name that is no built-in strategy's is an external strategy's (or one of another build): drawn apart.
    let family = |s: &StrategyKey| s.name().map_or(Family::External, |name| name.family());
    let title = |family: Family| match family {
        Family::BatchAllocation => "Batch allocations",
        Family::HeadShare => "Head shares (the reference keeps 0.2)",
        Family::ContentAware => "Content-aware allocations",
        Family::Policy => "Replaced and peer policies",
        Family::External => "External and other strategies",
    };
    let reference = strategies.iter().find(|s| s.is_reference());
    let mut groups: BTreeMap<Family, StrategyGroup> = BTreeMap::new();
    for s in strategies.iter().filter(|s| !s.is_reference()) {
        groups
            .entry(family(s))
            .or_insert_with_key(|&f| StrategyGroup {
                title: title(f).to_string(),
                strategies: reference.into_iter().cloned().collect(),
            })
            .strategies
            .push(s.clone());
    }
    groups.into_values().collect()
}
