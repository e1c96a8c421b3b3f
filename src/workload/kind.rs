//! The kinds of tool output a workload mixes, each described once in [`KINDS`] (its name, its weight in the
//! mixed-realistic workload, its size model and the tools whose output it is), and the size models' keys: one per
//! kind plus the two shapes that are not kinds (the hook's text parts and the one giant output of a batch).
//!
//! [`Kind`] and [`KINDS`] are made from one list by `kinds!`: an entry there is a variant, its name in scenario
//! files and its [`KindSpec`], so nothing else names a kind's properties. What writes a kind's outputs is the
//! generator's (`generate/kinds/`), which maps every kind to its writers in one exhaustive match.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::size::{SizeModel, DEFAULT_MAX};

/// What a kind is, apart from how its outputs are written: one entry of [`KINDS`].
#[derive(Debug)]
pub struct KindSpec {
    /// The kind described.
    pub kind: Kind,
    /// The kind's name as scenario files spell it (its key in `[kinds]` and `[sizes.*]`).
    pub name: &'static str,
    /// The kind's weight in the mixed-realistic workload (used when a scenario names no weights).
    pub weight: f64,
    /// The built-in model of the kind's main text, calibrated for the mixed-realistic workload (a function: a
    /// model is not a constant).
    pub size: fn() -> SizeModel,
    /// The names of the agents' and the generator's tools whose output is of this kind (see docs/formats).
    pub tools: &'static [&'static str],
    /// A prefix naming every tool of this kind (`mcp__*` is always an MCP server's output).
    pub tool_prefix: Option<&'static str>,
}

/// Makes [`Kind`], with one variant an entry in the entries' order, and [`KINDS`], the entries' specs in the same
/// order, so that `KINDS[kind as usize]` is the kind's spec.
macro_rules! kinds {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident {
            name: $name:literal,
            weight: $weight:expr,
            size: $size:expr,
            tools: [$($tool:literal),* $(,)?]
            $(, tool_prefix: $prefix:expr)? $(,)?
        }
    ),* $(,)?) => {
        /// A kind of tool output, each with its own generator and size model (its [`KindSpec`] in [`KINDS`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum Kind {
            $(
                $(#[doc = $doc])*
                #[serde(rename = $name)]
                $variant,
            )*
        }

        /// Every kind's spec, in [`Kind::ALL`] order (the order of `Kind`'s variants).
        pub static KINDS: [KindSpec; COUNT] = [
            $(
                KindSpec {
                    kind: Kind::$variant,
                    name: $name,
                    weight: $weight,
                    size: || $size,
                    tools: &[$($tool),*],
                    tool_prefix: kinds!(@prefix $($prefix)?),
                },
            )*
        ];

        /// How many kinds there are.
        const COUNT: usize = [$(Kind::$variant),*].len();

        impl Kind {
            /// Every kind, in a fixed order.
            pub const ALL: [Kind; COUNT] = [$(Kind::$variant),*];

            /// The kind's name as scenario files spell it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Kind::$variant => $name,)*
                }
            }
        }
    };
    (@prefix $prefix:expr) => { Some($prefix) };
    (@prefix) => { None };
}

kinds! {
    /// Shell command logs (builds, tests, installs, git), ending with the exit information.
    Shell {
        name: "shell",
        weight: 27.0,
        size: SizeModel::body(650.0, 1.45).with_tail(0.045, 52_000.0, 0.42),
        tools: [
            "bash", "Bash", "BashOutput", "shell", "local_shell", "exec_command", "run_shell_command",
            "execute_bash", "execute_command", "run_command", "terminal", "execute_ipython_cell",
        ],
    },
    /// MCP tool results: nested JSON, pretty or compact, sometimes a non-string object.
    Mcp {
        name: "mcp",
        weight: 9.0,
        size: SizeModel::body(1_400.0, 1.2).with_tail(0.05, 43_000.0, 0.45),
        tools: [],
        tool_prefix: MCP_PREFIX,
    },
    /// Text dense in surrogate pairs: emoji sequences, mathematical alphanumerics, CJK extension B.
    Surrogate {
        name: "surrogate",
        weight: 1.5,
        size: SizeModel::body(1_200.0, 1.1).with_tail(0.03, 31_000.0, 0.45),
        // It borrows other kinds' tools (a file read of an emoji-dense file).
        tools: [],
    },
    /// `enter_plan_mode` responses: the lifecycle reminder, reminder plus hook context, failures, other text.
    PlanMode {
        name: "plan_mode",
        weight: 0.5,
        // The hook context after a plan-mode reminder, or other plan-mode text.
        size: SizeModel::body(300.0, 1.0),
        tools: ["enter_plan_mode"],
    },
    /// File reads: source code, configuration, documentation.
    FileRead {
        name: "file_read",
        weight: 22.0,
        size: SizeModel::body(2_600.0, 1.0).with_tail(0.04, 48_000.0, 0.4),
        tools: [
            "read_file", "Read", "read_many_files", "NotebookRead", "view", "view_file", "open", "goto",
            "scroll_up", "scroll_down",
        ],
    },
    /// Grep/search results.
    Search {
        name: "search",
        weight: 10.0,
        size: SizeModel::body(1_100.0, 1.3).with_tail(0.03, 41_000.0, 0.45),
        tools: ["grep", "Grep", "search_file_content", "search_dir", "search_file", "rg"],
    },
    /// Directory listings.
    Listing {
        name: "listing",
        weight: 6.0,
        size: SizeModel::body(600.0, 1.0),
        tools: ["ls", "LS", "list_directory", "list_dir", "glob", "Glob", "find_file"],
    },
    /// Short success messages of edits, writes and the like.
    ShortSuccess {
        name: "short_success",
        weight: 14.0,
        size: SizeModel::body(70.0, 0.4),
        tools: [
            "write_file", "Write", "replace", "create", "create_file", "create_directory", "write_todos",
            "TodoWrite", "update_plan", "save_memory", "think", "submit", "finish",
        ],
    },
    /// Empty output and empty error strings.
    Empty {
        name: "empty",
        weight: 2.5,
        // Its texts are empty; the model is unused.
        size: SizeModel::body(1.0, 0.0).clamped(0, 0),
        tools: [],
    },
    /// Error fields with stack traces.
    ErrorTrace {
        name: "error_trace",
        weight: 4.0,
        size: SizeModel::body(600.0, 0.8),
        // An error of any tool: its tool is the failing one's.
        tools: [],
    },
    /// Synthetic, skipped and cancelled responses: short error texts.
    Cancelled {
        name: "cancelled",
        weight: 1.5,
        size: SizeModel::body(60.0, 0.3),
        tools: [],
    },
    /// Media: an inlineData (base64) or fileData part beside a short output.
    Media {
        name: "media",
        weight: 2.0,
        // The base64 data of a media part, in bytes (not counted by any budget).
        size: SizeModel::body(6_000.0, 0.9).clamped(64, 400_000),
        tools: [],
    },
    /// Edit results: a confirmation and the edited region of the file, numbered (none in the mixed workload).
    Edit {
        name: "edit",
        weight: 0.0,
        // The edited region an edit result shows.
        size: SizeModel::body(2_400.0, 0.9).with_tail(0.02, 20_000.0, 0.5),
        tools: [
            "edit", "Edit", "MultiEdit", "NotebookEdit", "edit_file", "str_replace_editor",
            "str_replace_based_edit_tool", "apply_patch",
        ],
    },
}

impl Kind {
    /// The kind's entry in [`KINDS`].
    pub fn spec(self) -> &'static KindSpec {
        &KINDS[self as usize]
    }

    /// The weight of the kind in the mixed-realistic workload (used when a scenario names no weights).
    pub fn default_weight(self) -> f64 {
        self.spec().weight
    }
}

/// The prefix of every MCP tool's name.
pub const MCP_PREFIX: &str = "mcp__";

/// The kind of output the tool `name` gives, when the name is known: the one lookup of tool names that `calibrate`
/// (mapping a recorded tool to a kind), `tokens` (tallying recorded fields by kind) and the generator's test (whose
/// tool names are among these) use. A kind's prefix ([`KindSpec::tool_prefix`]) goes before any listed name.
pub fn kind_of_tool(name: &str) -> Option<Kind> {
    KINDS
        .iter()
        .find(|s| s.tool_prefix.is_some_and(|p| name.starts_with(p)))
        .or_else(|| KINDS.iter().find(|s| s.tools.contains(&name)))
        .map(|s| s.kind)
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
            SizeKey::Kind(kind) => (kind.spec().size)(),
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
        assert_eq!(SizeKey::ALL.len(), Kind::ALL.len() + 2);
        for (key, kind) in SizeKey::ALL.iter().zip(Kind::ALL) {
            assert_eq!(*key, SizeKey::from(kind));
            assert_eq!(key.as_str(), kind.as_str());
        }
        assert_eq!(
            SizeKey::ALL[Kind::ALL.len()..],
            [SizeKey::HookText, SizeKey::Giant]
        );
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
        let names: Vec<String> = KINDS
            .iter()
            .map(|s| s.name)
            .chain(["hook_text", "giant"])
            .map(|n| format!("`{n}`"))
            .collect();
        let listed = format!(
            "unknown variant `shel`, expected one of {}",
            names.join(", ")
        );
        assert!(err.starts_with(&listed), "{err}");
    }

    #[test]
    fn kinds_are_their_specs_in_order() {
        assert_eq!(KINDS.len(), Kind::ALL.len());
        for (i, (spec, kind)) in KINDS.iter().zip(Kind::ALL).enumerate() {
            assert_eq!((spec.kind, kind as usize), (kind, i));
            assert_eq!(spec.name, kind.as_str());
            assert!(spec.weight >= 0.0, "{}", spec.name);
        }
    }

    #[test]
    fn every_tool_name_is_listed_once_and_maps_to_its_kind() {
        let mut names: Vec<&str> = KINDS.iter().flat_map(|s| s.tools.iter().copied()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a tool name listed twice");
        for spec in &KINDS {
            for tool in spec.tools {
                assert_eq!(kind_of_tool(tool), Some(spec.kind), "{tool}");
            }
        }
        assert_eq!(kind_of_tool("bash"), Some(Kind::Shell));
        assert_eq!(kind_of_tool("Read"), Some(Kind::FileRead));
        assert_eq!(kind_of_tool("Edit"), Some(Kind::Edit));
        assert_eq!(kind_of_tool("edit"), Some(Kind::Edit));
        assert_eq!(kind_of_tool("Glob"), Some(Kind::Listing));
        assert_eq!(kind_of_tool("mcp__github__list_issues"), Some(Kind::Mcp));
        assert_eq!(kind_of_tool("mcp__"), Some(Kind::Mcp));
        assert_eq!(kind_of_tool("mcp_x"), None);
        assert_eq!(kind_of_tool("enter_plan_mode"), Some(Kind::PlanMode));
        assert_eq!(kind_of_tool("frobnicate"), None);
    }

    #[test]
    fn every_default_model_is_valid() {
        for key in SizeKey::ALL {
            assert_eq!(key.default_model().validate(), Ok(()), "{key}");
        }
    }
}
