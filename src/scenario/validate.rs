//! Validation: the bounds a scenario's values must keep (what scenarios/README.md documents) and the check of a
//! [`Scenario`] against them. A failed check is a value, a [`FieldError`] (the field's path and what is wrong),
//! with no position in it: the loader finds where the field is written from the parser's spans.

use std::fmt;

use super::Scenario;
use crate::error::{Error, Result};
use crate::workload::{SizeKey, MAX_SIZE};

/// Most batches a scenario (or `--batches`) may ask for.
pub const MAX_BATCHES: u64 = 1_000_000;
/// Most entries in one batch (`batch_size.max`).
pub const MAX_BATCH_WIDTH: u64 = 4_096;
/// Largest relative weight of a kind.
pub const MAX_KIND_WEIGHT: f64 = 1e6;
/// Largest budget (absolute or configured), in UTF-16 units.
pub const MAX_BUDGET_UNITS: u64 = 1_000_000_000_000;
/// Largest context window, in tokens.
pub const MAX_WINDOW_TOKENS: u64 = 1_000_000_000_000;
/// Most budgets a scenario lists in `budgets.absolute`, and most context windows in `budgets.windows`.
pub const MAX_BUDGETS: usize = 64;
/// Most units of hook context appended to one output (`hook.append_units`).
pub const MAX_APPEND_UNITS: usize = 1_000_000;
/// Most UTF-16 units of text one batch of a scenario may hold, as [`Scenario::max_batch_units`] counts them.
pub const MAX_BATCH_UNITS: u64 = 1 << 30;
/// What [`Scenario::max_batch_units`] allows each entry beyond its drawn sizes: call id, tool name, the lines a
/// generator writes around the drawn length, a plan-mode reminder, a producer preview's marker.
pub const ENTRY_OVERHEAD_UNITS: u64 = 4_096;

/// Checks a number of batches given on the command line (`what`, e.g. `--batches`): `1..=MAX_BATCHES`.
pub fn check_batches(what: &str, batches: u64) -> Result<u64> {
    if (1..=MAX_BATCHES).contains(&batches) {
        Ok(batches)
    } else {
        Err(Error::invalid(
            what,
            batches.to_string(),
            format!("must be between 1 and {MAX_BATCHES}"),
        ))
    }
}

/// The dotted path of a field in a scenario file, one key a segment (`sizes.shell.median`); the root table's path
/// has no segment.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FieldPath(Vec<String>);

impl FieldPath {
    /// The path of these keys, outermost first.
    pub fn of(keys: &[&str]) -> FieldPath {
        FieldPath(keys.iter().map(|k| k.to_string()).collect())
    }

    /// This path with `key` appended.
    pub fn join(mut self, key: &str) -> FieldPath {
        self.0.push(key.to_string());
        self
    }

    /// The keys, outermost first.
    pub fn keys(&self) -> &[String] {
        &self.0
    }

    /// Whether this is the root table's path.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("."))
    }
}

/// A field of a scenario whose value breaks its bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field.
    pub field: FieldPath,
    /// What is wrong with its value, and what is accepted.
    pub message: String,
}

impl Scenario {
    /// Checks the values serde cannot against the bounds above, in a fixed order; the first field out of bounds
    /// is the error.
    pub fn validate(&self) -> std::result::Result<(), FieldError> {
        let err = |path: &[&str], message: String| {
            Err(FieldError {
                field: FieldPath::of(path),
                message,
            })
        };
        if self.name.trim().is_empty() {
            return err(&["name"], "must not be empty".into());
        }
        if self.name.chars().any(char::is_control) {
            return err(
                &["name"],
                format!(
                    "must not hold control characters (it is printed to the terminal), got {:?}",
                    self.name
                ),
            );
        }
        if !(1..=MAX_BATCHES).contains(&self.batches) {
            return err(
                &["batches"],
                format!("must be between 1 and {MAX_BATCHES}, got {}", self.batches),
            );
        }
        let bs = &self.batch_size;
        if !(bs.median.is_finite() && bs.median > 0.0 && bs.median <= MAX_BATCH_WIDTH as f64) {
            return err(
                &["batch_size", "median"],
                format!(
                    "must be a positive number of at most {MAX_BATCH_WIDTH}, got {}",
                    bs.median
                ),
            );
        }
        if !(bs.sigma.is_finite() && (0.0..=10.0).contains(&bs.sigma)) {
            return err(
                &["batch_size", "sigma"],
                format!("must be in [0, 10], got {}", bs.sigma),
            );
        }
        if bs.min == 0 {
            return err(&["batch_size", "min"], "must be at least 1".into());
        }
        if bs.max < bs.min || bs.max > MAX_BATCH_WIDTH {
            return err(
                &["batch_size", "max"],
                format!("must be in [min, {MAX_BATCH_WIDTH}], got {}", bs.max),
            );
        }
        if let Some(kinds) = &self.kinds {
            for (k, w) in kinds {
                if !(w.is_finite() && (0.0..=MAX_KIND_WEIGHT).contains(w)) {
                    return err(
                        &["kinds", k.as_str()],
                        format!("weight must be a number in [0, {MAX_KIND_WEIGHT}], got {w}"),
                    );
                }
            }
            if kinds.values().sum::<f64>() <= 0.0 {
                return err(
                    &["kinds"],
                    "at least one kind needs a positive weight".into(),
                );
            }
        }
        for key in SizeKey::ALL {
            if let Err((field, message)) = self.size_model(key).validate() {
                return err(&["sizes", key.as_str(), field], message);
            }
        }
        for (kind, table) in &self.empirical {
            if let Err(message) = table.validate() {
                return err(&["empirical", kind.as_str(), "quantiles"], message);
            }
        }
        let s = &self.shape;
        for (key, v) in [
            ("duplicate_rate", s.duplicate_rate),
            ("awkward_id_rate", s.awkward_id_rate),
            ("hook_text_rate", s.hook_text_rate),
            ("giant_rate", s.giant_rate),
            ("ansi_rate", s.ansi_rate),
            ("pretty_json_rate", s.pretty_json_rate),
            ("object_output_rate", s.object_output_rate),
            ("cjk_share", s.cjk_share),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return err(
                    &["shape", key],
                    format!("must be a share in [0, 1], got {v}"),
                );
            }
        }
        self.texture.validate()?;
        let focus = self.focus.share;
        if !(0.0..=1.0).contains(&focus) {
            return err(
                &["focus", "share"],
                format!("must be a share in [0, 1], got {focus}"),
            );
        }
        let p = &self.persistence;
        for (key, v) in [
            ("producer_fault_rate", p.producer_fault_rate),
            ("finalizer_fault_rate", p.finalizer_fault_rate),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return err(
                    &["persistence", key],
                    format!("must be a share in [0, 1], got {v}"),
                );
            }
        }
        let pr = &self.producer;
        for (key, v) in [
            ("shell_trigger", pr.shell_trigger),
            ("mcp_trigger", pr.mcp_trigger),
        ] {
            if v > MAX_SIZE {
                return err(
                    &["producer", key],
                    format!("must be at most {MAX_SIZE} (no output is longer), got {v}"),
                );
            }
        }
        if pr.shell_preview < 200 || pr.shell_preview >= pr.shell_trigger {
            return err(
                &["producer", "shell_preview"],
                "must be at least 200 and below shell_trigger".into(),
            );
        }
        if pr.mcp_preview < 200 || pr.mcp_preview >= pr.mcp_trigger {
            return err(
                &["producer", "mcp_preview"],
                "must be at least 200 and below mcp_trigger".into(),
            );
        }
        let b = &self.budgets;
        for (key, list, bound, what) in [
            ("absolute", &b.absolute, MAX_BUDGET_UNITS, "budgets"),
            ("windows", &b.windows, MAX_WINDOW_TOKENS, "context windows"),
        ] {
            if list.len() > MAX_BUDGETS {
                return err(
                    &["budgets", key],
                    format!("at most {MAX_BUDGETS} {what}, got {}", list.len()),
                );
            }
            if let Some(v) = list.iter().find(|&&v| v == 0 || v > bound) {
                return err(
                    &["budgets", key],
                    format!("{what} must be between 1 and {bound}, got {v}"),
                );
            }
        }
        if !(1..=MAX_BUDGET_UNITS).contains(&b.configured) {
            return err(
                &["budgets", "configured"],
                format!(
                    "must be between 1 and {MAX_BUDGET_UNITS}, got {}",
                    b.configured
                ),
            );
        }
        if self.hook.append_units > MAX_APPEND_UNITS {
            return err(
                &["hook", "append_units"],
                format!(
                    "must be at most {MAX_APPEND_UNITS}, got {}",
                    self.hook.append_units
                ),
            );
        }
        match self.strategy.validate() {
            Ok(()) => {}
            Err(Error::InvalidValue {
                what,
                value,
                reason,
            }) => {
                // `what` is the setting's dotted path within `[strategy]`, e.g. `weights.error`.
                let mut path = vec!["strategy"];
                path.extend(what.split('.'));
                return err(&path, format!("{reason}, got {value}"));
            }
            Err(other) => return err(&["strategy"], other.to_string()),
        }
        let units = self.max_batch_units();
        if units > MAX_BATCH_UNITS {
            return err(&["batch_size", "max"],
                format!(
                    "a batch of up to {} entries could hold {units} UTF-16 units of text, above the bound of \
                     {MAX_BATCH_UNITS}: lower batch_size.max, the sizes' max or hook.append_units",
                    self.batch_size.max
                ),
            );
        }
        Ok(())
    }
}
