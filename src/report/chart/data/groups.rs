//! Which strategies share a panel: all of them when they are few, otherwise one panel per family (batch
//! allocations, head shares, replaced and peer policies), each with the reference as its baseline.

use crate::finalize::StrategyName;
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
    const TITLES: [&str; 3] = [
        "Batch allocations",
        "Head shares (the reference keeps 0.2)",
        "Replaced and peer policies",
    ];
    // A name this build does not know (a strategy of another build) is drawn with the policies.
    let family = |s: &StrategyKey| match s.name() {
        Some(
            StrategyName::Reference
            | StrategyName::SendGuard
            | StrategyName::Proportional
            | StrategyName::Uniform
            | StrategyName::Greedy
            | StrategyName::LargestFirst
            | StrategyName::Weighted
            | StrategyName::LineAware,
        ) => 0,
        Some(StrategyName::HeadTail(_)) => 1,
        _ => 2,
    };
    let reference = strategies.iter().find(|s| s.is_reference());
    let mut groups: Vec<StrategyGroup> = TITLES
        .iter()
        .map(|t| StrategyGroup {
            title: (*t).to_string(),
            strategies: reference.into_iter().cloned().collect(),
        })
        .collect();
    for s in strategies.iter().filter(|s| !s.is_reference()) {
        groups[family(s)].strategies.push(s.clone());
    }
    groups.retain(|g| g.strategies.iter().any(|s| !s.is_reference()));
    groups
}
