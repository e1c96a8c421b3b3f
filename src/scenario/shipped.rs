//! The scenarios shipped in `scenarios/`, compiled into the binary so that `--scenario mixed-realistic` works from
//! any directory. A test checks that this list and the folder hold the same scenarios.

use super::Scenario;

/// The scenarios shipped in `scenarios/`, compiled in: (name, TOML source).
pub const SHIPPED: &[(&str, &str)] = &[
    ("cjk-heavy", include_str!("../../scenarios/cjk-heavy.toml")),
    (
        "large-window",
        include_str!("../../scenarios/large-window.toml"),
    ),
    (
        "many-small",
        include_str!("../../scenarios/many-small.toml"),
    ),
    ("mcp-heavy", include_str!("../../scenarios/mcp-heavy.toml")),
    (
        "mixed-realistic",
        include_str!("../../scenarios/mixed-realistic.toml"),
    ),
    ("one-giant", include_str!("../../scenarios/one-giant.toml")),
    (
        "persist-failures",
        include_str!("../../scenarios/persist-failures.toml"),
    ),
    ("plan-mode", include_str!("../../scenarios/plan-mode.toml")),
    (
        "pre-persisted",
        include_str!("../../scenarios/pre-persisted.toml"),
    ),
    (
        "shell-heavy",
        include_str!("../../scenarios/shell-heavy.toml"),
    ),
    (
        "small-window",
        include_str!("../../scenarios/small-window.toml"),
    ),
    (
        "surrogate-storm",
        include_str!("../../scenarios/surrogate-storm.toml"),
    ),
    (
        "swe-agent-recorded",
        include_str!("../../scenarios/swe-agent-recorded.toml"),
    ),
];

impl Scenario {
    /// A shipped scenario by name.
    pub fn shipped(name: &str) -> Option<Scenario> {
        SHIPPED.iter().find(|(n, _)| *n == name).map(|(n, src)| {
            Scenario::parse(src, &format!("scenarios/{n}.toml"))
                .expect("shipped scenarios are valid")
        })
    }

    /// Every shipped scenario, sorted by name.
    pub fn all_shipped() -> Vec<Scenario> {
        SHIPPED
            .iter()
            .filter_map(|(n, _)| Scenario::shipped(n))
            .collect()
    }
}
