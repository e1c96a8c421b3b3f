//! The typed configuration of the strategies: every parameter a strategy takes, with the defaults the issue and
//! the seeds name. It deserializes (serde, snake_case keys as in scenario files, every key optional, unknown keys rejected) so that
//! scenario files and command-line flags can set it; [`StrategyConfig::validate`] rejects values no strategy
//! can use, naming the key.

use serde::{Deserialize, Serialize};

use super::head_share::HeadShare;
use crate::error::Error;
use crate::model::Field;

/// Parameters of every strategy; [`StrategyName::build_with`](super::StrategyName::build_with) takes the part
/// a strategy needs. `StrategyConfig::default()` is what [`StrategyName::build`](super::StrategyName::build)
/// uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct StrategyConfig {
    /// The head share of previews in the alternatives built on the reference fit (`proportional`, `uniform`,
    /// `greedy`, `weighted`, `line-aware`, `salient`, `window-relative`; `largest-first` takes it for its last
    /// pass, whose cuts never have room for a preview). Default 1/5, the reference's; `reference` and `send-guard` always use 1/5
    /// and `head-tail-<ratio>` its own ratio.
    pub head_share: HeadShare,
    /// The field weights of `weighted`.
    pub weights: FieldWeights,
    /// Tool names whose output is shell output, for `legacy-layers` and `claude-code`.
    pub shell_tools: Vec<String>,
    /// The thresholds of `legacy-layers`.
    pub legacy_layers: LegacyLayersConfig,
    /// The settings of `window-relative`.
    pub window_relative: WindowRelativeConfig,
    /// The settings of `gemini-cli`.
    pub gemini_cli: GeminiCliConfig,
    /// The settings of `claude-code`.
    pub claude_code: ClaudeCodeConfig,
    /// The settings of `salient`.
    pub salient: SalientConfig,
    /// The settings of `relevance`.
    pub relevance: PickConfig,
    /// The settings of `rarity`.
    pub rarity: PickConfig,
    /// The settings of `structure`.
    pub structure: StructureConfig,
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig {
            head_share: HeadShare::DEFAULT,
            weights: FieldWeights::default(),
            shell_tools: DEFAULT_SHELL_TOOLS.iter().map(|s| s.to_string()).collect(),
            legacy_layers: LegacyLayersConfig::default(),
            window_relative: WindowRelativeConfig::default(),
            gemini_cli: GeminiCliConfig::default(),
            claude_code: ClaudeCodeConfig::default(),
            salient: SalientConfig::default(),
            relevance: PickConfig::default(),
            rarity: PickConfig::default(),
            structure: StructureConfig::default(),
        }
    }
}

/// The tool names treated as shell by default.
pub const DEFAULT_SHELL_TOOLS: &[&str] =
    &["shell", "run_shell_command", "bash", "Bash", "exec_command"];

/// Largest field weight of `weighted`.
pub(crate) const MAX_FIELD_WEIGHT: u64 = 1_000;
/// Largest length, threshold or cap a strategy setting may give, in UTF-16 units (and the largest
/// `gemini_cli.prompt_tokens`, in tokens).
pub(crate) const MAX_SETTING_UNITS: u64 = 1_000_000_000_000;

/// The inclusive range a numeric setting must lie in. [`StrategyConfig::validate`] checks every setting against
/// one of the constants below, and the strategies' declared parameters (`finalize/param.rs`) show and check the
/// same constants, so a bound is written once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The smallest value allowed.
    pub low: u64,
    /// The largest value allowed.
    pub high: u64,
}

impl Bounds {
    /// Checks `value` of the setting `key`; the error names the key, the value and the bound it crosses.
    pub fn check(self, key: &str, value: u64) -> Result<(), Error> {
        if value < self.low {
            Err(Error::invalid(
                key,
                value.to_string(),
                format!("must be at least {}", self.low),
            ))
        } else if value > self.high {
            Err(Error::invalid(
                key,
                value.to_string(),
                format!("must be at most {}", self.high),
            ))
        } else {
            Ok(())
        }
    }
}

/// The bounds of a field weight of `weighted`.
pub(crate) const WEIGHT_BOUNDS: Bounds = Bounds {
    low: 1,
    high: MAX_FIELD_WEIGHT,
};
/// The bounds of a length a strategy cannot use when zero (a threshold, preview or cap that must keep something).
pub(crate) const POSITIVE_UNITS: Bounds = Bounds {
    low: 1,
    high: MAX_SETTING_UNITS,
};
/// The bounds of `salient.context`: lines kept on each side of a salient line.
pub(crate) const CONTEXT_LINES: Bounds = Bounds { low: 0, high: 20 };
/// The bounds of `salient.lines`: salient lines (or JSON keys) one preview may keep.
pub(crate) const SALIENT_LINES: Bounds = Bounds { low: 1, high: 256 };
/// The bounds of `structure.window`: listing lines kept on each side of the lines a call asked for.
pub(crate) const WINDOW_LINES: Bounds = Bounds { low: 0, high: 500 };
/// The bounds of a length or token count that may be zero.
pub(crate) const UNITS: Bounds = Bounds {
    low: 0,
    high: MAX_SETTING_UNITS,
};

impl StrategyConfig {
    /// Checks every value against its bounds; the error names the offending key (e.g. `weights.error`).
    pub fn validate(&self) -> Result<(), Error> {
        WEIGHT_BOUNDS.check("weights.output", self.weights.output)?;
        WEIGHT_BOUNDS.check("weights.error", self.weights.error)?;
        WEIGHT_BOUNDS.check("weights.text", self.weights.text)?;
        let w = &self.window_relative;
        let l = &self.legacy_layers;
        let units = [
            (
                "window_relative.configured_chars",
                w.configured_chars,
                POSITIVE_UNITS,
            ),
            (
                "window_relative.preview_chars",
                w.preview_chars,
                POSITIVE_UNITS,
            ),
            (
                "claude_code.message_cap_chars",
                self.claude_code.message_cap_chars,
                POSITIVE_UNITS,
            ),
            (
                "gemini_cli.prompt_tokens",
                self.gemini_cli.prompt_tokens,
                UNITS,
            ),
            ("legacy_layers.shell_trigger", l.shell_trigger, UNITS),
            ("legacy_layers.shell_preview", l.shell_preview, UNITS),
            ("legacy_layers.other_trigger", l.other_trigger, UNITS),
            ("legacy_layers.other_preview", l.other_preview, UNITS),
            ("legacy_layers.offload_preview", l.offload_preview, UNITS),
            ("salient.context", self.salient.context, CONTEXT_LINES),
            ("salient.lines", self.salient.lines, SALIENT_LINES),
            ("relevance.context", self.relevance.context, CONTEXT_LINES),
            ("rarity.context", self.rarity.context, CONTEXT_LINES),
            ("structure.context", self.structure.context, CONTEXT_LINES),
            ("structure.window", self.structure.window, WINDOW_LINES),
        ];
        for (key, v, bounds) in units {
            bounds.check(key, v)?;
        }
        for (key, trigger, preview) in [
            (
                "legacy_layers.shell_preview",
                l.shell_trigger,
                l.shell_preview,
            ),
            (
                "legacy_layers.other_preview",
                l.other_trigger,
                l.other_preview,
            ),
        ] {
            if preview > trigger {
                return Err(Error::invalid(
                    key,
                    preview.to_string(),
                    format!("a preview may not be longer than its trigger ({trigger})"),
                ));
            }
        }
        Ok(())
    }

    /// Whether `tool` is a shell tool.
    pub fn is_shell(&self, tool: &str) -> bool {
        self.shell_tools.iter().any(|t| t == tool)
    }
}

/// Weights per field kind for `weighted`: a field's fair share is proportional to its weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct FieldWeights {
    /// `functionResponse.response.output`. Default 1.
    pub output: u64,
    /// `functionResponse.response.error`. Default 2: failures are what the model must read.
    pub error: u64,
    /// Top-level text parts (hook context). Default 2.
    pub text: u64,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            output: 1,
            error: 2,
            text: 2,
        }
    }
}

impl FieldWeights {
    /// The weight of `field`.
    pub fn of(&self, field: Field) -> u64 {
        match field {
            Field::Output => self.output,
            Field::Error => self.error,
            Field::Text => self.text,
        }
    }
}

/// The layers `legacy-layers` models, in UTF-16 units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct LegacyLayersConfig {
    /// Shell output longer than this is shortened by its producer. Default 30,000.
    pub shell_trigger: u64,
    /// The length of the shell producer's marked head-and-tail preview. Default 30,000.
    pub shell_preview: u64,
    /// Other tools' output longer than this is shortened by its producer. Default 25,000.
    pub other_trigger: u64,
    /// The length of the other producers' marked preview. Default 2,000.
    pub other_preview: u64,
    /// The length of the marked preview the batch scheduler offloads a result to. Default 2,000.
    pub offload_preview: u64,
}

impl Default for LegacyLayersConfig {
    fn default() -> Self {
        LegacyLayersConfig {
            shell_trigger: 30_000,
            shell_preview: 30_000,
            other_trigger: 25_000,
            other_preview: 2_000,
            offload_preview: 2_000,
        }
    }
}

/// The settings of `window-relative`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct WindowRelativeConfig {
    /// The configured tool-output threshold in characters (UTF-16 units), the upper bound of the
    /// window-relative one. Default 100,000.
    pub configured_chars: u64,
    /// The length of the preview a trimmed result is replaced by. Default 2,000.
    pub preview_chars: u64,
}

impl Default for WindowRelativeConfig {
    fn default() -> Self {
        WindowRelativeConfig {
            configured_chars: 100_000,
            preview_chars: 2_000,
        }
    }
}

/// The settings of `gemini-cli`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct GeminiCliConfig {
    /// Tokens already in the prompt, subtracted from the context window. Default 0.
    pub prompt_tokens: u64,
}

/// The settings of `claude-code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct ClaudeCodeConfig {
    /// The message-level cap on all tool results together, in characters (UTF-16 units). Default 200,000.
    pub message_cap_chars: u64,
}

impl Default for ClaudeCodeConfig {
    fn default() -> Self {
        ClaudeCodeConfig {
            message_cap_chars: 200_000,
        }
    }
}

/// The settings of `salient`: how much of each preview goes to the lines it picks from the middle of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct SalientConfig {
    /// The most of each preview's content the picked lines may take (with their markers); what they leave goes
    /// to the head and the tail. Default 1/2; 0 gives `line-aware`'s fit.
    pub share: HeadShare,
    /// Lines kept on each side of a picked line when the share holds them, 0 to 20. Default 1.
    pub context: u64,
    /// The most lines (or JSON keys) one preview picks, 1 to 256. Default 16.
    pub lines: u64,
}

impl Default for SalientConfig {
    fn default() -> Self {
        SalientConfig {
            share: HeadShare { num: 1, den: 2 },
            context: 1,
            lines: 16,
        }
    }
}

impl SalientConfig {
    /// Whether every setting is the default (a scenario leaves it out of its digest then).
    pub fn is_default(&self) -> bool {
        *self == SalientConfig::default()
    }
}

/// The settings of `relevance` and `rarity`: how much of a preview goes to its head and tail before the lines
/// the strategy picks, and how many lines of context a picked line brings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct PickConfig {
    /// The share of each preview's content reserved for its head and tail (split by `head_share`) before any
    /// picked line. Default 1/5.
    pub edge: HeadShare,
    /// Lines kept on each side of a picked line when they fit, 0 to 20. Default 1.
    pub context: u64,
}

impl Default for PickConfig {
    fn default() -> Self {
        PickConfig {
            edge: HeadShare { num: 1, den: 5 },
            context: 1,
        }
    }
}

/// The settings of `structure`: the head and tail reserve, the window around the lines a call asked for, and the
/// context of search hits and diff lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "snake_case")]
pub struct StructureConfig {
    /// The share of each preview's content reserved for its head and tail (split by `head_share`) after the
    /// asked window and before the hits. Default 1/10.
    pub edge: HeadShare,
    /// Numbered lines kept on each side of the lines the call asked for (`open f 400`, `goto 400`, `edit
    /// 120:130`, `sed -n 400,420p`), 0 to 500. Default 100.
    pub window: u64,
    /// The share of the window's lines taken above the asked lines; the rest is read downward from them, as an
    /// agent reads a file. Default 1/10.
    pub above: HeadShare,
    /// Lines kept on each side of a search hit or a changed diff line when they fit, 0 to 20. Default 1.
    pub context: u64,
}

impl Default for StructureConfig {
    fn default() -> Self {
        StructureConfig {
            edge: HeadShare { num: 1, den: 10 },
            window: 100,
            above: HeadShare { num: 1, den: 10 },
            context: 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_optional_and_snake_case() {
        let c: StrategyConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(c, StrategyConfig::default());
        let c: StrategyConfig = serde_json::from_str(
            r#"{"head_share": "0.5", "weights": {"error": 5}, "window_relative": {"configured_chars": 8000},
                "gemini_cli": {"prompt_tokens": 1000}, "claude_code": {"message_cap_chars": 50000},
                "shell_tools": ["sh"]}"#,
        )
        .unwrap();
        assert_eq!(c.head_share, HeadShare { num: 1, den: 2 });
        assert_eq!(
            c.weights,
            FieldWeights {
                output: 1,
                error: 5,
                text: 2
            }
        );
        assert_eq!(c.window_relative.configured_chars, 8000);
        assert_eq!(c.window_relative.preview_chars, 2000);
        assert_eq!(c.gemini_cli.prompt_tokens, 1000);
        assert_eq!(c.claude_code.message_cap_chars, 50_000);
        assert!(c.is_shell("sh") && !c.is_shell("shell"));
    }

    #[test]
    fn unknown_keys_and_bad_values_are_rejected() {
        let e = serde_json::from_str::<StrategyConfig>(r#"{"wieghts": {}}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `wieghts`"), "{e}");
        let e = serde_json::from_str::<StrategyConfig>(r#"{"head_share": "1.5"}"#).unwrap_err();
        assert!(e.to_string().contains("invalid head share \"1.5\""), "{e}");
        let mut c = StrategyConfig::default();
        c.weights.text = 0;
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "invalid weights.text \"0\": must be at least 1"
        );
        c.weights.text = MAX_FIELD_WEIGHT + 1;
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "invalid weights.text \"1001\": must be at most 1000"
        );
        let mut c = StrategyConfig::default();
        c.gemini_cli.prompt_tokens = u64::MAX;
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "invalid gemini_cli.prompt_tokens \"18446744073709551615\": must be at most 1000000000000"
        );
        let mut c = StrategyConfig::default();
        c.legacy_layers.other_preview = 30_000;
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "invalid legacy_layers.other_preview \"30000\": a preview may not be longer than its trigger (25000)"
        );
        assert!(StrategyConfig::default().validate().is_ok());
    }

    #[test]
    fn values_exactly_at_their_bounds_are_accepted() {
        let mut c = StrategyConfig::default();
        (c.weights.output, c.weights.error, c.weights.text) = (1, MAX_FIELD_WEIGHT, 1);
        c.gemini_cli.prompt_tokens = 0;
        c.window_relative.configured_chars = MAX_SETTING_UNITS;
        c.window_relative.preview_chars = 1;
        c.validate().unwrap();
        c.weights.output = MAX_FIELD_WEIGHT;
        c.gemini_cli.prompt_tokens = MAX_SETTING_UNITS;
        c.validate().unwrap();
    }
}
