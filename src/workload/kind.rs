//! The kinds of tool output a workload mixes, and the size models' keys: one per kind plus the two shapes that are
//! not kinds (the hook's text parts and the one giant output of a batch).

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::size::{SizeModel, DEFAULT_MAX};

/// A kind of tool output, each with its own generator and size model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Shell command logs (builds, tests, installs, git), ending with the exit information.
    Shell,
    /// MCP tool results: nested JSON, pretty or compact, sometimes a non-string object.
    Mcp,
    /// Text dense in surrogate pairs: emoji sequences, mathematical alphanumerics, CJK extension B.
    Surrogate,
    /// `enter_plan_mode` responses: the lifecycle reminder, reminder plus hook context, failures, other text.
    PlanMode,
    /// File reads: source code, configuration, documentation.
    FileRead,
    /// Grep/search results.
    Search,
    /// Directory listings.
    Listing,
    /// Short success messages of edits, writes and the like.
    ShortSuccess,
    /// Empty output and empty error strings.
    Empty,
    /// Error fields with stack traces.
    ErrorTrace,
    /// Synthetic, skipped and cancelled responses: short error texts.
    Cancelled,
    /// Media: an inlineData (base64) or fileData part beside a short output.
    Media,
    /// Edit results: a confirmation and the edited region of the file, numbered (none in the mixed workload).
    Edit,
}

impl Kind {
    /// Every kind, in a fixed order.
    pub const ALL: [Kind; 13] = [
        Kind::Shell,
        Kind::Mcp,
        Kind::Surrogate,
        Kind::PlanMode,
        Kind::FileRead,
        Kind::Search,
        Kind::Listing,
        Kind::ShortSuccess,
        Kind::Empty,
        Kind::ErrorTrace,
        Kind::Cancelled,
        Kind::Media,
        Kind::Edit,
    ];

    /// The kind's name as scenario files spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Shell => "shell",
            Kind::Mcp => "mcp",
            Kind::Surrogate => "surrogate",
            Kind::PlanMode => "plan_mode",
            Kind::FileRead => "file_read",
            Kind::Search => "search",
            Kind::Listing => "listing",
            Kind::ShortSuccess => "short_success",
            Kind::Empty => "empty",
            Kind::ErrorTrace => "error_trace",
            Kind::Cancelled => "cancelled",
            Kind::Media => "media",
            Kind::Edit => "edit",
        }
    }

    /// The weight of the kind in the mixed-realistic workload (used when a scenario names no weights).
    pub fn default_weight(self) -> f64 {
        match self {
            Kind::Shell => 27.0,
            Kind::Mcp => 9.0,
            Kind::Surrogate => 1.5,
            Kind::PlanMode => 0.5,
            Kind::FileRead => 22.0,
            Kind::Search => 10.0,
            Kind::Listing => 6.0,
            Kind::ShortSuccess => 14.0,
            Kind::Empty => 2.5,
            Kind::ErrorTrace => 4.0,
            Kind::Cancelled => 1.5,
            Kind::Media => 2.0,
            Kind::Edit => 0.0,
        }
    }

    /// The built-in model of the kind's main text, calibrated for the mixed-realistic workload.
    fn default_model(self) -> SizeModel {
        match self {
            Kind::Shell => SizeModel::body(650.0, 1.45).with_tail(0.045, 52_000.0, 0.42),
            Kind::Mcp => SizeModel::body(1_400.0, 1.2).with_tail(0.05, 43_000.0, 0.45),
            Kind::Surrogate => SizeModel::body(1_200.0, 1.1).with_tail(0.03, 31_000.0, 0.45),
            // The hook context after a plan-mode reminder, or other plan-mode text.
            Kind::PlanMode => SizeModel::body(300.0, 1.0),
            Kind::FileRead => SizeModel::body(2_600.0, 1.0).with_tail(0.04, 48_000.0, 0.4),
            Kind::Search => SizeModel::body(1_100.0, 1.3).with_tail(0.03, 41_000.0, 0.45),
            Kind::Listing => SizeModel::body(600.0, 1.0),
            Kind::ShortSuccess => SizeModel::body(70.0, 0.4),
            // Its texts are empty; the model is unused.
            Kind::Empty => SizeModel::body(1.0, 0.0).clamped(0, 0),
            Kind::ErrorTrace => SizeModel::body(600.0, 0.8),
            Kind::Cancelled => SizeModel::body(60.0, 0.3),
            // The base64 data of a media part, in bytes (not counted by any budget).
            Kind::Media => SizeModel::body(6_000.0, 0.9).clamped(64, 400_000),
            // The edited region an edit result shows.
            Kind::Edit => SizeModel::body(2_400.0, 0.9).with_tail(0.02, 20_000.0, 0.5),
        }
    }
}

/// What a size model is for: a kind's main text, or one of the shapes that are not kinds. Ordered as
/// [`SizeKey::ALL`] lists them (the kinds in [`Kind::ALL`] order, then the hook text, then the giant), and spelt
/// in scenario files as the kind's name, `hook_text` or `giant`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SizeKey {
    /// A kind's main text (for [`Kind::Media`], the base64 data of the media part, in bytes).
    Kind(Kind),
    /// Top-level text parts (hook context) added to entries.
    HookText,
    /// The one giant output of a batch that has one.
    Giant,
}

impl From<Kind> for SizeKey {
    fn from(kind: Kind) -> SizeKey {
        SizeKey::Kind(kind)
    }
}

impl SizeKey {
    /// Every size key, in a fixed order: the kinds', then the hook text's, then the giant's.
    pub const ALL: [SizeKey; Kind::ALL.len() + 2] = {
        let mut all = [SizeKey::Giant; Kind::ALL.len() + 2];
        let mut i = 0;
        while i < Kind::ALL.len() {
            all[i] = SizeKey::Kind(Kind::ALL[i]);
            i += 1;
        }
        all[Kind::ALL.len()] = SizeKey::HookText;
        all
    };

    /// Every key's name, in [`SizeKey::ALL`] order.
    const NAMES: [&'static str; SizeKey::ALL.len()] = {
        let mut names = [""; SizeKey::ALL.len()];
        let mut i = 0;
        while i < SizeKey::ALL.len() {
            names[i] = SizeKey::ALL[i].as_str();
            i += 1;
        }
        names
    };

    /// The key's name as scenario files spell it (`[sizes.shell]`, `[sizes.hook_text]`, `[sizes.giant]`).
    pub const fn as_str(self) -> &'static str {
        match self {
            SizeKey::Kind(kind) => kind.as_str(),
            SizeKey::HookText => "hook_text",
            SizeKey::Giant => "giant",
        }
    }

    /// The built-in size model, calibrated for the mixed-realistic workload.
    pub fn default_model(self) -> SizeModel {
        match self {
            SizeKey::Kind(kind) => kind.default_model(),
            SizeKey::HookText => SizeModel::body(250.0, 0.9),
            SizeKey::Giant => SizeModel::body(350_000.0, 0.5).clamped(120_000, DEFAULT_MAX),
        }
    }
}

impl fmt::Display for SizeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for SizeKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SizeKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SizeKey, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = SizeKey;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the name of a size model")
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<SizeKey, E> {
                SizeKey::ALL
                    .into_iter()
                    .find(|k| k.as_str() == name)
                    .ok_or_else(|| E::unknown_variant(name, &SizeKey::NAMES))
            }
        }
        deserializer.deserialize_str(Name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_keys_are_the_kinds_then_hook_text_then_giant_in_order() {
        assert_eq!(SizeKey::ALL.len(), 15);
        for (key, kind) in SizeKey::ALL.iter().zip(Kind::ALL) {
            assert_eq!(*key, SizeKey::from(kind));
            assert_eq!(key.as_str(), kind.as_str());
        }
        assert_eq!(SizeKey::ALL[13..], [SizeKey::HookText, SizeKey::Giant]);
        let mut sorted = SizeKey::ALL;
        sorted.sort();
        assert_eq!(
            sorted,
            SizeKey::ALL,
            "Ord follows ALL (maps of sizes serialize in it)"
        );
    }

    #[test]
    fn names_round_trip_through_serde_and_a_wrong_one_lists_them_all() {
        for key in SizeKey::ALL {
            let json = serde_json::to_string(&key).unwrap();
            assert_eq!(json, format!("\"{key}\""));
            assert_eq!(serde_json::from_str::<SizeKey>(&json).unwrap(), key);
        }
        let kind_names: Vec<String> = Kind::ALL
            .iter()
            .map(|k| serde_json::to_string(k).unwrap())
            .collect();
        let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(
            kind_names,
            kinds.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>()
        );
        let err = serde_json::from_str::<SizeKey>("\"shel\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "unknown variant `shel`, expected one of `shell`, `mcp`, `surrogate`, `plan_mode`, \
                 `file_read`, `search`, `listing`, `short_success`, `empty`, `error_trace`, `cancelled`, \
                 `media`, `edit`, `hook_text`, `giant`"
            ),
            "{err}"
        );
    }

    #[test]
    fn every_default_model_is_valid() {
        for key in SizeKey::ALL {
            assert_eq!(key.default_model().validate(), Ok(()), "{key}");
        }
    }
}
