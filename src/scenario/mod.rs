//! Scenario files: the named workloads an engineer tunes against, as TOML in `scenarios/`.
//!
//! A scenario names its seed and number of batches, the batch-size distribution, the weights of the kinds of
//! output, overrides of the kinds' size models, the shape switches (duplicate and awkward call ids, hook text,
//! one giant output, ANSI colour, pretty JSON, object outputs), the producer previews, the persistence fault
//! rates, the budgets to run at (absolute, and relative to context windows by the rule of
//! [`window_relative_threshold`](crate::finalize::window_relative_threshold)) and the runtime mode. Unknown
//! keys are errors, and every error names the file, the line and the field. The shipped scenarios are also
//! compiled into the binary ([`SHIPPED`]), so `--scenario mixed-realistic` works from any directory.
//!
//! `schema` holds the types a file deserializes into, `budget` the budgets a scenario runs at and their
//! labels, `shipped` the compiled-in scenarios, `validate` the bounds and the check against them (its errors
//! are values: a field's path and a message), and `spans` finds where a field or an error is in the file from
//! the toml parser's spans. This file loads a scenario (parse, deserialize, validate, each error placed at its
//! line) and derives what the generator and the runner read from one.

mod budget;
mod empirical;
mod schema;
mod shipped;
mod spans;
mod texture;
mod validate;

pub use budget::{BudgetLabel, ScenarioBudget};
pub use empirical::{Empirical, Quantiles, MAX_EMPIRICAL_POINTS};
pub use schema::{BatchSize, Budgets, Focus, Persistence, Producer, Scenario, Shape, REQUIRED};
pub use shipped::SHIPPED;
pub use texture::{
    ExitStyle, Texture, MAX_EXIT_LINE_BYTES, MAX_SHORT_UNITS, MAX_STYLE_WEIGHT, MAX_TOOL_NAME_BYTES,
};
pub use validate::{
    check_batches, FieldError, FieldPath, ENTRY_OVERHEAD_UNITS, MAX_APPEND_UNITS, MAX_BATCHES,
    MAX_BATCH_UNITS, MAX_BATCH_WIDTH, MAX_BUDGETS, MAX_BUDGET_UNITS, MAX_KIND_WEIGHT,
    MAX_WINDOW_TOKENS,
};

use std::path::Path;

use crate::error::{Error, Result};
use crate::workload::{Kind, SizeKey, SizeModel};
use spans::{Document, Located};

impl Scenario {
    /// Parses and validates a scenario from TOML; `source_name` (a path) is named in errors, with the line and
    /// the field.
    pub fn parse(source: &str, source_name: &str) -> Result<Scenario> {
        let error = |located: Located| Error::Scenario {
            path: source_name.to_string(),
            line: located.line,
            field: located.field.to_string(),
            message: located.message,
        };
        let document = Document::parse(source).map_err(error)?;
        let scenario: Scenario = document.deserialize().map_err(|mut located| {
            // An error of the root table itself is a missing key: serde names the first one the schema needs.
            if located.field.is_root() {
                if let Some(key) = REQUIRED.iter().find(|k| !document.has_key(k)) {
                    located.field = FieldPath::of(&[key]);
                }
            }
            error(located)
        })?;
        scenario.validate().map_err(|invalid| {
            error(Located {
                line: document.line_of(&invalid.field),
                field: invalid.field,
                message: invalid.message,
            })
        })?;
        Ok(scenario)
    }

    /// Reads and parses a scenario file.
    pub fn load(path: &Path) -> Result<Scenario> {
        let source = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Scenario::parse(&source, &path.display().to_string())
    }

    /// A scenario given on the command line: a file if `arg` names one, otherwise a shipped scenario's name.
    pub fn resolve(arg: &str) -> Result<Scenario> {
        let path = Path::new(arg);
        if path.exists() || arg.ends_with(".toml") || arg.contains('/') {
            return Scenario::load(path);
        }
        Scenario::shipped(arg).ok_or_else(|| {
            let names: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
            let guess = crate::error::did_you_mean(arg, names.iter().copied())
                .map(|name| format!("; did you mean {name:?}?"))
                .unwrap_or_default();
            Error::invalid(
                "--scenario",
                arg,
                format!(
                    "no such file, and not a shipped scenario{guess} (shipped: {})",
                    names.join(", ")
                ),
            )
        })
    }

    /// Loads every `*.toml` file of `dir`, sorted by file name.
    pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>> {
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let path = entry.map_err(|e| Error::io(dir, e))?.path();
            if path.extension().is_some_and(|x| x == "toml") && path.is_file() {
                paths.push(path);
            }
        }
        paths.sort();
        paths.iter().map(|p| Scenario::load(p)).collect()
    }

    /// SHA-256 (hex) of the scenario's canonical JSON form: what reports cite as the scenario's hash.
    pub fn digest(&self) -> String {
        let json = serde_json::to_string(self).expect("a scenario serializes");
        crate::digest::sha256_hex(&json)
    }

    /// The kinds' weights in [`Kind::ALL`] order.
    pub fn kind_weights(&self) -> Vec<(Kind, f64)> {
        Kind::ALL
            .into_iter()
            .map(|k| {
                let w = match &self.kinds {
                    None => k.default_weight(),
                    Some(map) => map.get(&k).copied().unwrap_or(0.0),
                };
                (k, w)
            })
            .collect()
    }

    /// The size model for `key`: the built-in model with this scenario's overrides applied.
    pub fn size_model(&self, key: SizeKey) -> SizeModel {
        let base = key.default_model();
        match self.sizes.get(&key) {
            Some(o) => base.apply(o),
            None => base,
        }
    }

    /// What `budgetlab scenarios --json` lists of the scenario: its name, description, mode, seed, batches, the
    /// budgets it runs at (label, UTF-16 units, and the context window a window budget comes from) and its digest.
    pub fn summary(&self) -> serde_json::Value {
        let budgets: Vec<serde_json::Value> = self
            .budgets()
            .iter()
            .map(|b| {
                serde_json::json!({
                    "label": b.label.to_string(),
                    "units": b.units,
                    "windowTokens": b.window_tokens,
                })
            })
            .collect();
        serde_json::json!({
            "name": self.name,
            "description": self.description,
            "mode": self.mode.as_str(),
            "seed": self.seed.0,
            "batches": self.batches,
            "budgets": budgets,
            "digest": self.digest(),
        })
    }

    /// The budgets to run at: the absolute ones, then one per context window; just the configured budget when
    /// the scenario names neither.
    pub fn budgets(&self) -> Vec<ScenarioBudget> {
        let b = &self.budgets;
        let mut out: Vec<ScenarioBudget> = b
            .absolute
            .iter()
            .map(|&units| ScenarioBudget::absolute(units))
            .collect();
        out.extend(
            b.windows
                .iter()
                .map(|&w| ScenarioBudget::window(b.configured, w)),
        );
        if out.is_empty() {
            out.push(ScenarioBudget::absolute(b.configured));
        }
        out
    }

    /// The scenario with its seed replaced by `seed` when one is given (`--seed`): the one place a command's seed
    /// overrides a scenario's.
    pub fn with_seed(mut self, seed: Option<u64>) -> Scenario {
        if let Some(seed) = seed {
            self.seed = crate::rng::Seed(seed);
        }
        self
    }

    /// The scenario run at `budgets` (absolute, in UTF-16 units) in place of its own, its window budgets dropped,
    /// when any are given (`run --scenarios ... --budgets`): the one place a command's budgets override a
    /// scenario's. The budgets are checked by the caller (the run's plan).
    pub fn with_budgets(mut self, budgets: &[u64]) -> Scenario {
        if !budgets.is_empty() {
            self.budgets.absolute = budgets.to_vec();
            self.budgets.windows.clear();
        }
        self
    }

    /// The size models generation can draw from: those of the kinds with a positive weight, the giant's when
    /// `giant_rate > 0` and the hook text's when `hook_text_rate > 0`, in [`SizeKey::ALL`] order.
    pub fn sizes_in_use(&self) -> Vec<SizeKey> {
        let weights = self.kind_weights();
        SizeKey::ALL
            .into_iter()
            .filter(|&key| match key {
                SizeKey::Giant => self.shape.giant_rate > 0.0,
                SizeKey::HookText => self.shape.hook_text_rate > 0.0,
                SizeKey::Kind(kind) => weights.iter().any(|&(k, w)| k == kind && w > 0.0),
            })
            .collect()
    }

    /// The most UTF-16 units of text one batch can hold: `batch_size.max` entries, each at the largest size its
    /// kinds (or the giant) can draw, with the largest hook text part and media data the scenario can add, the
    /// appended hook context and [`ENTRY_OVERHEAD_UNITS`]. Loading refuses a scenario where this is above
    /// [`MAX_BATCH_UNITS`], so what generating or simulating one batch allocates is bounded.
    pub fn max_batch_units(&self) -> u64 {
        let in_use = self.sizes_in_use();
        let max_of = |keys: &mut dyn Iterator<Item = &SizeKey>| {
            keys.map(|&k| match k {
                SizeKey::Kind(kind) => self
                    .empirical
                    .get(&kind)
                    .map_or(0, Empirical::max)
                    .max(self.size_model(k).max),
                _ => self.size_model(k).max,
            })
            .max()
            .unwrap_or(0)
        };
        let body = max_of(
            &mut in_use
                .iter()
                .filter(|k| !matches!(k, SizeKey::Kind(Kind::Media) | SizeKey::HookText)),
        );
        let media = max_of(&mut in_use.iter().filter(|k| **k == SizeKey::Kind(Kind::Media)));
        let hook_text = max_of(&mut in_use.iter().filter(|k| **k == SizeKey::HookText));
        let entry = u128::from(body)
            + u128::from(media)
            + u128::from(hook_text)
            + self.hook.append_units as u128
            + u128::from(ENTRY_OVERHEAD_UNITS);
        u64::try_from(u128::from(self.batch_size.max) * entry).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests;
