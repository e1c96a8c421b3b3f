//! Which of the generator's kinds a corpus's tool stands for. A tool the agents in `../shared/formats` name is
//! mapped by its name (`bash` is shell output, `Read` a file read, `mcp__*` an MCP result); a failed call's
//! error text is an error trace whatever its tool; any other tool goes to the kind whose generated outputs are
//! closest to its own by shape: the share of its outputs that are whole JSON, the share that carry an exit line,
//! the median size and the units per line, each on a 0..1 scale.

use crate::workload::{kind_of_tool, Kind};

/// How a tool was mapped.
#[derive(Debug, Clone, PartialEq)]
pub enum How {
    /// By its name.
    Name,
    /// By shape: the tool's features, and the distance to the kind chosen.
    Shape(Features, f64),
}

/// What a tool's (or a kind's) outputs look like, each on a 0..1 scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Features {
    /// Share of outputs that are whole JSON.
    pub json: f64,
    /// Share of outputs with an exit line.
    pub exit: f64,
    /// The median size, as `ln(1 + units) / ln(1 + 10^6)`.
    pub size: f64,
    /// Units per line, as `ln(1 + units per line) / ln(1 + 1,000)`.
    pub width: f64,
}

impl Features {
    /// The features of outputs given as (units, lines, whole JSON, has an exit line), non-empty ones.
    pub fn of(outputs: &[(u64, u64, bool, bool)]) -> Option<Features> {
        if outputs.is_empty() {
            return None;
        }
        let n = outputs.len() as f64;
        let mut sizes: Vec<u64> = outputs.iter().map(|o| o.0).collect();
        sizes.sort_unstable();
        let median = sizes[(sizes.len() - 1) / 2] as f64;
        let units: u64 = outputs.iter().map(|o| o.0).sum();
        let lines: u64 = outputs.iter().map(|o| o.1.max(1)).sum();
        Some(Features {
            json: outputs.iter().filter(|o| o.2).count() as f64 / n,
            exit: outputs.iter().filter(|o| o.3).count() as f64 / n,
            size: (1.0 + median).ln() / (1.0 + 1e6f64).ln(),
            width: (1.0 + units as f64 / lines as f64).ln() / 1001f64.ln(),
        })
    }

    /// The Euclidean distance between two tools' features.
    pub fn distance(&self, other: &Features) -> f64 {
        let d = [
            self.json - other.json,
            self.exit - other.exit,
            self.size - other.size,
            self.width - other.width,
        ];
        d.iter().map(|x| x * x).sum::<f64>().sqrt()
    }
}

impl std::fmt::Display for Features {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let median = (self.size * (1.0 + 1e6f64).ln()).exp() - 1.0;
        let width = (self.width * 1001f64.ln()).exp() - 1.0;
        write!(
            f,
            "JSON {:.0}%, exit lines {:.0}%, median {:.0} units, {:.0} units a line",
            self.json * 100.0,
            self.exit * 100.0,
            median,
            width
        )
    }
}

/// The kinds a tool of unknown name may be mapped to by shape.
pub(super) const SHAPE_KINDS: [Kind; 7] = [
    Kind::Shell,
    Kind::Mcp,
    Kind::FileRead,
    Kind::Edit,
    Kind::Search,
    Kind::Listing,
    Kind::ShortSuccess,
];

/// The kind a tool name stands for, when the name is known (the crate's one table of tool names).
pub(super) fn by_name(tool: &str) -> Option<Kind> {
    kind_of_tool(tool)
}

/// The kind among `references` (each kind's features) closest to `features`, and the distance; ties go to the
/// first in [`SHAPE_KINDS`] order.
pub(super) fn by_shape(features: &Features, references: &[(Kind, Features)]) -> (Kind, f64) {
    let mut best = (Kind::ShortSuccess, f64::INFINITY);
    for (kind, reference) in references {
        let d = features.distance(reference);
        if d < best.1 {
            best = (*kind, d);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_map_by_name() {
        assert_eq!(by_name("bash"), Some(Kind::Shell));
        assert_eq!(by_name("Read"), Some(Kind::FileRead));
        assert_eq!(by_name("mcp__github__list_issues"), Some(Kind::Mcp));
        assert_eq!(by_name("str_replace_editor"), Some(Kind::Edit));
        assert_eq!(by_name("frobnicate"), None);
    }

    #[test]
    fn features_are_on_a_unit_scale_and_the_nearest_kind_wins() {
        // Two 100-unit JSON outputs of one line each, one with an exit line.
        let f = Features::of(&[(100, 1, true, false), (300, 3, true, true)]).unwrap();
        assert_eq!((f.json, f.exit), (1.0, 0.5));
        assert!((f.size - 101f64.ln() / 1_000_001f64.ln()).abs() < 1e-12);
        assert!((f.width - 101f64.ln() / 1001f64.ln()).abs() < 1e-12);
        assert_eq!(Features::of(&[]), None);
        let json = Features {
            json: 1.0,
            exit: 0.0,
            size: 0.5,
            width: 0.5,
        };
        let logs = Features {
            json: 0.0,
            exit: 1.0,
            ..json
        };
        let refs = [(Kind::Shell, logs), (Kind::Mcp, json)];
        assert_eq!(by_shape(&f, &refs).0, Kind::Mcp);
        let (kind, d) = by_shape(&logs, &refs);
        assert_eq!((kind, d), (Kind::Shell, 0.0));
        assert_eq!(
            f.to_string(),
            "JSON 100%, exit lines 50%, median 100 units, 100 units a line"
        );
    }
}
