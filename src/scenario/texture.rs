//! The texture of a scenario's outputs (`[texture]`): how the text looks as an agent harness records it, beside
//! what the kinds write. Shares of outputs with an astral character, with any non-ASCII character, with CRLF line
//! ends, with ANSI escapes, empty, and re-sent from an earlier turn; the style of the shell exit line (and the
//! command header that goes with the generator's own style); whether summary lines come first; windowed file
//! views; and the tool names each kind is recorded under. These are the features real session logs were
//! measured on (issue 12), so `budgetlab calibrate` fits them, and the shipped scenarios set them from the
//! evidence.
//!
//! Every key is optional and a file that leaves the table out gets outputs exactly as before: the table is then
//! left out of the scenario's serialization (and so of its digest), and the generator draws nothing for it. This
//! file holds the schema, its bounds and their check; `generate::texture` applies it.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::validate::{FieldError, FieldPath};
use crate::workload::Kind;

/// Largest weight of an exit-line style.
pub const MAX_STYLE_WEIGHT: f64 = 1e6;

/// Longest tool name a scenario may give a kind, in bytes.
pub const MAX_TOOL_NAME_BYTES: usize = 128;

/// How a shell output carries its command and exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitStyle {
    /// The generator's own: a `Command:` / `Output:` header and `Exit Code: N` as the last line.
    Header,
    /// `<returncode>N</returncode>` as the first line, the output between `<output>` tags.
    Returncode,
    /// `[Command finished with exit code N]` as the last line.
    Finished,
    /// `Exit code: N` as the last line.
    ExitCode,
    /// The output alone, no exit information.
    None,
}

impl ExitStyle {
    /// Every style, in a fixed order.
    pub const ALL: [ExitStyle; 5] = [
        ExitStyle::Header,
        ExitStyle::Returncode,
        ExitStyle::Finished,
        ExitStyle::ExitCode,
        ExitStyle::None,
    ];

    /// The style's name as scenario files spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            ExitStyle::Header => "header",
            ExitStyle::Returncode => "returncode",
            ExitStyle::Finished => "finished",
            ExitStyle::ExitCode => "exit_code",
            ExitStyle::None => "none",
        }
    }
}

impl fmt::Display for ExitStyle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The texture of the outputs (see the module documentation). Shares are of results (entries), in `[0, 1]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Texture {
    /// Share of results with at least one astral character (a surrogate pair): the others lose theirs (each
    /// becomes two BMP symbols, the same length), the chosen ones without one get one. Left out: as generated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub astral_share: Option<f64>,
    /// Share of results with any non-ASCII character (at least `astral_share`): the others are folded to ASCII
    /// of the same length, the chosen ones without one get a word with one. Left out: as generated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_ascii_share: Option<f64>,
    /// Share of results whose line ends are CRLF (the others LF). Left out: as generated (LF).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crlf_share: Option<f64>,
    /// Share of results with ANSI escape sequences: the others lose theirs, the chosen ones without any get a
    /// coloured line. Left out: as generated (`shape.ansi_rate` of the coloured shell logs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ansi_share: Option<f64>,
    /// Share of results emptied (every text field an empty string, no hook text), on top of the `empty` kind.
    /// Left out: only the `empty` kind's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty_share: Option<f64>,
    /// Share of results that re-send the result of an earlier call (one of the eight batches before) word for
    /// word, as an agent re-reading a file gets the same view again.
    #[serde(skip_serializing_if = "is_zero")]
    pub repeat_share: f64,
    /// Share of results with a summary line (a match count, test totals, a `wc` total) that carry it as their
    /// first line (search results as a `Found N matches in M files` header) rather than their last.
    #[serde(skip_serializing_if = "is_zero")]
    pub summary_start_share: f64,
    /// Share of file reads and edits written as windowed views: a `[File: PATH (N lines total)]` header,
    /// numbered lines, and a closing `(N more lines below)` marker.
    #[serde(skip_serializing_if = "is_zero")]
    pub file_view_share: f64,
    /// Relative weights of the shell exit-line styles; left out (empty, and no `exit_lines`): the generator's own
    /// (`header`) alone.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub exit_styles: BTreeMap<ExitStyle, f64>,
    /// More exit-line styles, each a last line with `N` where the status goes (`"Exit code N"`,
    /// `"[The command completed with exit code N]"`), and its weight beside `exit_styles`' weights.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub exit_lines: BTreeMap<String, f64>,
    /// Results drawn shorter than this many units are written as short outputs that say something of their own
    /// (a command's value, a one-line error, a match or two, a few settings or names, a small JSON object)
    /// rather than as their kind's long form cut down; 0: the kinds' own forms.
    #[serde(skip_serializing_if = "is_zero_units")]
    pub short_units: u64,
    /// The tool name every result of a kind is recorded under (`shell = "bash"`); kinds left out keep the
    /// generator's names.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tool_names: BTreeMap<Kind, String>,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

fn is_zero_units(v: &u64) -> bool {
    *v == 0
}

/// Largest `short_units`.
pub const MAX_SHORT_UNITS: u64 = 100_000;

/// Longest exit line of `exit_lines`, in bytes.
pub const MAX_EXIT_LINE_BYTES: usize = 200;

impl Texture {
    /// Whether this is the default texture (outputs exactly as the kinds write them).
    pub fn is_default(&self) -> bool {
        *self == Texture::default()
    }

    /// The shares in the order [`Texture::validate`] checks them: (key, value).
    fn shares(&self) -> [(&'static str, Option<f64>); 8] {
        [
            ("astral_share", self.astral_share),
            ("non_ascii_share", self.non_ascii_share),
            ("crlf_share", self.crlf_share),
            ("ansi_share", self.ansi_share),
            ("empty_share", self.empty_share),
            ("repeat_share", Some(self.repeat_share)),
            ("summary_start_share", Some(self.summary_start_share)),
            ("file_view_share", Some(self.file_view_share)),
        ]
    }

    /// Checks the texture against its bounds (scenarios/README.md): shares in `[0, 1]`, `non_ascii_share` at
    /// least `astral_share` (an astral character is not ASCII), style weights in `[0, 1,000,000]` with one
    /// positive, tool names of 1 to 128 bytes without control characters. The error's path starts at
    /// `texture`.
    pub fn validate(&self) -> Result<(), FieldError> {
        let err = |keys: &[&str], message: String| {
            let mut field = FieldPath::of(&["texture"]);
            for k in keys {
                field = field.join(k);
            }
            Err(FieldError { field, message })
        };
        for (key, v) in self.shares() {
            if let Some(v) = v {
                if !(0.0..=1.0).contains(&v) {
                    return err(&[key], format!("must be a share in [0, 1], got {v}"));
                }
            }
        }
        if let (Some(astral), Some(non_ascii)) = (self.astral_share, self.non_ascii_share) {
            if non_ascii < astral {
                return err(
                    &["non_ascii_share"],
                    format!(
                        "must be at least astral_share ({astral}): an astral character is not ASCII, got \
                         {non_ascii}"
                    ),
                );
            }
        }
        for (style, w) in &self.exit_styles {
            if !(w.is_finite() && (0.0..=MAX_STYLE_WEIGHT).contains(w)) {
                return err(
                    &["exit_styles", style.as_str()],
                    format!("weight must be a number in [0, {MAX_STYLE_WEIGHT}], got {w}"),
                );
            }
        }
        for (line, w) in &self.exit_lines {
            if line.is_empty()
                || line.len() > MAX_EXIT_LINE_BYTES
                || !line.contains('N')
                || line.chars().any(char::is_control)
            {
                return err(
                    &["exit_lines", line],
                    format!(
                        "must be a line of 1 to {MAX_EXIT_LINE_BYTES} bytes with an N where the status goes and \
                         no control characters"
                    ),
                );
            }
            if !(w.is_finite() && (0.0..=MAX_STYLE_WEIGHT).contains(w)) {
                return err(
                    &["exit_lines", line],
                    format!("weight must be a number in [0, {MAX_STYLE_WEIGHT}], got {w}"),
                );
            }
        }
        let named = !self.exit_styles.is_empty() || !self.exit_lines.is_empty();
        let total = self.exit_styles.values().sum::<f64>() + self.exit_lines.values().sum::<f64>();
        if named && total <= 0.0 {
            return err(
                &["exit_styles"],
                "at least one style needs a positive weight".into(),
            );
        }
        if self.short_units > MAX_SHORT_UNITS {
            return err(
                &["short_units"],
                format!(
                    "must be at most {MAX_SHORT_UNITS}, got {}",
                    self.short_units
                ),
            );
        }
        for (kind, name) in &self.tool_names {
            if name.is_empty() || name.len() > MAX_TOOL_NAME_BYTES {
                return err(
                    &["tool_names", kind.as_str()],
                    format!(
                        "must be 1 to {MAX_TOOL_NAME_BYTES} bytes long, got {}",
                        name.len()
                    ),
                );
            }
            if name.chars().any(char::is_control) {
                return err(
                    &["tool_names", kind.as_str()],
                    format!("must not hold control characters, got {name:?}"),
                );
            }
        }
        Ok(())
    }

    /// Whether shell outputs are reframed: the scenario names exit styles or exit lines.
    pub fn reframes(&self) -> bool {
        !self.exit_styles.is_empty() || !self.exit_lines.is_empty()
    }

    /// The exit styles' weights in [`ExitStyle::ALL`] order; `header` alone when no style or line is named.
    pub fn exit_style_weights(&self) -> Vec<(ExitStyle, f64)> {
        ExitStyle::ALL
            .into_iter()
            .map(|s| {
                let w = if !self.reframes() {
                    f64::from(u8::from(s == ExitStyle::Header))
                } else {
                    self.exit_styles.get(&s).copied().unwrap_or(0.0)
                };
                (s, w)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_empty_and_serializes_to_nothing() {
        let t = Texture::default();
        assert!(t.is_default());
        assert_eq!(serde_json::to_string(&t).unwrap(), "{}");
        assert_eq!(t.validate(), Ok(()));
        assert_eq!(
            t.exit_style_weights(),
            vec![
                (ExitStyle::Header, 1.0),
                (ExitStyle::Returncode, 0.0),
                (ExitStyle::Finished, 0.0),
                (ExitStyle::ExitCode, 0.0),
                (ExitStyle::None, 0.0),
            ]
        );
    }

    #[test]
    fn style_names_round_trip() {
        for s in ExitStyle::ALL {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{s}\""));
            assert_eq!(serde_json::from_str::<ExitStyle>(&json).unwrap(), s);
        }
    }

    #[test]
    fn every_bound_names_its_field() {
        let path = |t: &Texture| t.validate().unwrap_err().field.to_string();
        let t = Texture {
            crlf_share: Some(1.5),
            ..Texture::default()
        };
        assert_eq!(path(&t), "texture.crlf_share");
        let t = Texture {
            repeat_share: -0.1,
            ..Texture::default()
        };
        assert_eq!(path(&t), "texture.repeat_share");
        let t = Texture {
            astral_share: Some(0.2),
            non_ascii_share: Some(0.1),
            ..Texture::default()
        };
        assert_eq!(path(&t), "texture.non_ascii_share");
        let t = Texture {
            exit_styles: BTreeMap::from([(ExitStyle::None, 0.0)]),
            ..Texture::default()
        };
        assert_eq!(path(&t), "texture.exit_styles");
        let t = Texture {
            exit_styles: BTreeMap::from([(ExitStyle::Finished, f64::NAN)]),
            ..Texture::default()
        };
        assert_eq!(path(&t), "texture.exit_styles.finished");
        for bad in ["", "bash\n", &"x".repeat(129)] {
            let t = Texture {
                tool_names: BTreeMap::from([(Kind::Shell, bad.to_string())]),
                ..Texture::default()
            };
            assert_eq!(path(&t), "texture.tool_names.shell", "{bad:?}");
        }
        for bad in ["", "Exit code", "Exit\ncode N"] {
            let t = Texture {
                exit_lines: BTreeMap::from([(bad.to_string(), 1.0)]),
                ..Texture::default()
            };
            assert_eq!(path(&t), format!("texture.exit_lines.{bad}"), "{bad:?}");
        }
        let t = Texture {
            exit_lines: BTreeMap::from([("Exit code N".to_string(), 0.0)]),
            ..Texture::default()
        };
        assert_eq!(path(&t), "texture.exit_styles");
        let t = Texture {
            short_units: 100_001,
            ..Texture::default()
        };
        assert_eq!(path(&t), "texture.short_units");
        let ok = Texture {
            astral_share: Some(0.0),
            non_ascii_share: Some(0.0),
            exit_styles: BTreeMap::from([(ExitStyle::None, 1.0), (ExitStyle::Header, 0.0)]),
            tool_names: BTreeMap::from([(Kind::Shell, "x".repeat(128))]),
            ..Texture::default()
        };
        assert_eq!(ok.validate(), Ok(()));
    }

    const MINIMAL: &str = "name = \"t\"\ndescription = \"d\"\nseed = 7\nbatches = 3\n";

    fn located(src: &str) -> (usize, String, String) {
        match super::super::Scenario::parse(src, "t.toml").unwrap_err() {
            crate::error::Error::Scenario {
                line,
                field,
                message,
                ..
            } => (line, field, message),
            other => panic!("{other}"),
        }
    }

    #[test]
    fn a_file_without_a_texture_keeps_its_digest_and_a_bad_key_is_placed() {
        use super::super::Scenario;
        let plain = Scenario::parse(MINIMAL, "t").unwrap();
        let empty = Scenario::parse(&format!("{MINIMAL}[texture]\n"), "t").unwrap();
        assert_eq!(plain.digest(), empty.digest());
        assert!(!serde_json::to_string(&plain).unwrap().contains("texture"));
        let some = Scenario::parse(
            &format!("{MINIMAL}[texture]\ncrlf_share = 0.01\nexit_styles = {{ none = 1 }}\n"),
            "t",
        )
        .unwrap();
        assert_ne!(some.digest(), plain.digest());
        assert_eq!(some.texture.crlf_share, Some(0.01));

        let (line, field, msg) = located(&format!("{MINIMAL}[texture]\nrepeat_share = 2\n"));
        assert_eq!((line, field.as_str()), (6, "texture.repeat_share"));
        assert_eq!(msg, "must be a share in [0, 1], got 2");
        let (line, field, _) = located(&format!(
            "{MINIMAL}[texture]\nastral_share = 0.5\nnon_ascii_share = 0.1\n"
        ));
        assert_eq!((line, field.as_str()), (7, "texture.non_ascii_share"));
        let (line, field, _) = located(&format!(
            "{MINIMAL}[texture.exit_styles]\nheader = 1\nnone = -1\n"
        ));
        assert_eq!((line, field.as_str()), (7, "texture.exit_styles.none"));
        let (line, field, msg) = located(&format!("{MINIMAL}[texture.exit_styles]\nloud = 1\n"));
        assert_eq!((line, field.as_str()), (6, "texture.exit_styles.loud"));
        assert!(msg.contains("unknown variant `loud`"), "{msg}");
        let (line, field, _) = located(&format!(
            "{MINIMAL}[texture]\ntool_names = {{ shell = \"\" }}\n"
        ));
        assert_eq!((line, field.as_str()), (6, "texture.tool_names.shell"));
        let (line, field, msg) = located(&format!("{MINIMAL}texture.colour = 1\n"));
        assert_eq!((line, field.as_str()), (5, "texture.colour"));
        assert!(msg.starts_with("unknown field `colour`"), "{msg}");
    }
}
