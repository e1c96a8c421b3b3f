//! The parameters a strategy declares: each knob of [`StrategyConfig`] a strategy reads, with its name, its range,
//! its default (the value `StrategyConfig::default()` holds) and what it changes. A strategy's spec lists them in
//! `params` (see `finalize/spec.rs`); `budgetlab strategies` shows them. The bounds are the constants
//! [`StrategyConfig::validate`] checks ([`Bounds`]), so a parameter and the configuration refuse the same values
//! with the same message.

use std::fmt;

use super::config::{Bounds, StrategyConfig};
use super::head_share::HeadShare;
use crate::error::Error;

/// One parameter of a strategy: a field of [`StrategyConfig`] under a short name.
#[derive(Clone, Copy)]
pub struct Param {
    /// The short name, unique within its strategy (`error`, `configured_chars`, `head_share`).
    pub name: &'static str,
    /// The configuration key it sets, as scenario files and error messages spell it (`weights.error`).
    pub key: &'static str,
    /// What the parameter changes, in one line.
    pub description: &'static str,
    /// Its values and where it lives in the configuration.
    pub(super) field: Setting,
    /// The values `budgetlab tune` tries, a grid narrower than the bounds (or none, for a fact of the workload).
    pub search: Search,
}

/// The values `budgetlab tune` tries for a parameter: a grid within its bounds, around its default, wide enough
/// to hold every setting worth trying and small enough that a family's grid can be searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// Shares from 0 to 1 in `steps` equal steps (20 steps: 0, 0.05, ..., 1).
    Shares {
        /// The number of steps.
        steps: u32,
    },
    /// `points` whole numbers from `low` to `high`, spaced evenly on a log scale, those between rounded to two
    /// significant digits so that names stay readable (3200, not 3238), duplicates dropped.
    Log {
        /// The smallest value tried.
        low: u64,
        /// The largest value tried.
        high: u64,
        /// How many values.
        points: u32,
    },
    /// Every whole number from `low` to `high`.
    Each {
        /// The smallest value tried.
        low: u64,
        /// The largest value tried.
        high: u64,
    },
    /// Not searched: the parameter states a fact of the workload (tokens already in the prompt), not a choice.
    Fact,
}

impl Search {
    /// The values tried, ascending, as a configured name writes them (`0.05`, `2000`); empty for a fact.
    pub fn values(self) -> Vec<String> {
        match self {
            Search::Shares { steps } => (0..=steps)
                .map(|i| {
                    HeadShare::new(u64::from(i), u64::from(steps.max(1)))
                        .expect("i <= steps")
                        .to_string()
                })
                .collect(),
            Search::Log { low, high, points } => {
                let (lo, hi) = ((low.max(1)) as f64, high.max(low.max(1)) as f64);
                let n = points.max(2) - 1;
                let mut out: Vec<u64> = (0..=n)
                    .map(|i| match i {
                        0 => lo as u64,
                        i if i == n => hi as u64,
                        i => two_digits(lo * (hi / lo).powf(f64::from(i) / f64::from(n))),
                    })
                    .collect();
                out.dedup();
                out.into_iter().map(|v| v.to_string()).collect()
            }
            Search::Each { low, high } => (low..=high).map(|v| v.to_string()).collect(),
            Search::Fact => Vec::new(),
        }
    }

    /// The grid as listings show it: `0 to 1 in steps of 1/20`, `12 values from 2000 to 400000 (log)`.
    pub fn describe(self) -> String {
        match self {
            Search::Shares { steps } => format!("0 to 1 in {steps} steps"),
            Search::Log { low, high, .. } => {
                format!(
                    "{} values from {low} to {high}, log-spaced",
                    self.values().len()
                )
            }
            Search::Each { low, high } => format!("every whole number from {low} to {high}"),
            Search::Fact => "not searched (a fact of the workload)".to_string(),
        }
    }
}

/// `x` rounded to two significant digits (3238.4 is 3200, 94.6 is 95, 7.4 is 7).
fn two_digits(x: f64) -> u64 {
    if x < 100.0 {
        return x.round() as u64;
    }
    let scale = 10f64.powi(x.log10().floor() as i32 - 1);
    ((x / scale).round() * scale) as u64
}

/// The values a parameter takes and the configuration field that holds it.
#[derive(Clone, Copy)]
pub(super) enum Setting {
    /// A whole number within bounds (UTF-16 units, tokens or a weight).
    Units(Bounds, fn(&mut StrategyConfig) -> &mut u64),
    /// A head share: an exact ratio from 0 to 1 ([`HeadShare`]).
    Share(fn(&mut StrategyConfig) -> &mut HeadShare),
}

/// The kind of values a parameter takes, as listings show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A whole number from `low` to `high`, inclusive.
    Units(Bounds),
    /// An exact ratio from 0 to 1, as a decimal (`0.25`) or a fraction (`1/3`).
    Share,
}

/// Why a head share was refused.
const SHARE_FORMS: &str = "must be a ratio between 0 and 1, as a decimal (0.5) or a fraction (1/3)";

impl Param {
    /// The kind of values it takes, with the bounds.
    pub fn kind(&self) -> ParamKind {
        match self.field {
            Setting::Units(bounds, _) => ParamKind::Units(bounds),
            Setting::Share(_) => ParamKind::Share,
        }
    }

    /// Its value in `config`, as a configured name writes it (`2`, `0.2`, `1/3`).
    pub fn value(&self, config: &StrategyConfig) -> String {
        let mut config = config.clone();
        match self.field {
            Setting::Units(_, field) => field(&mut config).to_string(),
            Setting::Share(field) => field(&mut config).to_string(),
        }
    }

    /// Its value in `StrategyConfig::default()`.
    pub fn default_value(&self) -> String {
        self.value(&StrategyConfig::default())
    }

    /// Its range as listings show it: `1 to 1000`, `0 to 1`.
    pub fn range(&self) -> String {
        match self.kind() {
            ParamKind::Units(b) => format!("{} to {}", b.low, b.high),
            ParamKind::Share => "0 to 1".to_string(),
        }
    }

    /// Checks `value` (text as a configured name writes it) against the parameter's kind and bounds; its canonical
    /// text (`0.5` for `1/2`, `2000` for `02000`), or why it was refused (`must be at most 1000`).
    pub fn check(&self, value: &str) -> Result<String, String> {
        match self.field {
            Setting::Units(bounds, _) => {
                let v: u64 = value.parse().map_err(|_| {
                    format!(
                        "must be a whole number from {} to {}",
                        bounds.low, bounds.high
                    )
                })?;
                match bounds.check(self.key, v) {
                    Ok(()) => Ok(v.to_string()),
                    Err(Error::InvalidValue { reason, .. }) => Err(reason),
                    Err(other) => Err(other.to_string()),
                }
            }
            Setting::Share(_) => value
                .parse::<HeadShare>()
                .map(|share| share.to_string())
                .map_err(|_| SHARE_FORMS.to_string()),
        }
    }

    /// Sets the parameter in `config` to `value` (text as a configured name writes it), after checking it against
    /// its bounds; the error names [`Param::key`], the value and the bound. Only this field changes. Settings that
    /// depend on each other (a legacy preview no longer than its trigger) are for [`StrategyConfig::validate`] to
    /// check once every parameter is applied.
    pub fn apply(&self, config: &mut StrategyConfig, value: &str) -> Result<(), Error> {
        let canonical = self
            .check(value)
            .map_err(|reason| Error::invalid(self.key, value, reason))?;
        match self.field {
            Setting::Units(_, field) => *field(config) = canonical.parse().expect("checked"),
            Setting::Share(field) => *field(config) = canonical.parse().expect("checked"),
        }
        Ok(())
    }
}

impl fmt::Debug for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Param")
            .field("name", &self.name)
            .field("key", &self.key)
            .field("kind", &self.kind())
            .finish_non_exhaustive()
    }
}

/// The head share of the previews a strategy built on the reference fit writes.
pub(super) const HEAD_SHARE: Param = Param {
    name: "head_share",
    key: "head_share",
    description: "the share of each preview kept from the start of the text; the rest is its end",
    field: Setting::Share(|c| &mut c.head_share),
    search: Search::Shares { steps: 20 },
};

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::finalize::spec::{Build, StrategySpec};
    use std::sync::Arc;

    use crate::context::{CallContext, TurnContext};
    use crate::finalize::testing::{output_entry, output_error_entry, run_in_turn};
    use crate::finalize::{KNOWN_STRATEGIES, STRATEGIES};
    use crate::model::{Entry, Part};

    /// Every leaf of `config` as JSON, by dotted key (`weights.error`), in key order.
    fn leaves(config: &StrategyConfig) -> Vec<(String, Value)> {
        fn walk(prefix: &str, value: &Value, out: &mut Vec<(String, Value)>) {
            match value {
                Value::Object(map) => {
                    for (k, v) in map {
                        let key = if prefix.is_empty() {
                            k.clone()
                        } else {
                            format!("{prefix}.{k}")
                        };
                        walk(&key, v, out);
                    }
                }
                leaf => out.push((prefix.to_string(), leaf.clone())),
            }
        }
        let mut out = Vec::new();
        walk("", &serde_json::to_value(config).unwrap(), &mut out);
        out
    }

    /// A leaf as a configured name writes it: a number's digits, a string's text.
    fn text(value: &Value) -> String {
        match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }

    /// Every declared parameter with its strategy's name.
    fn declared() -> Vec<(&'static StrategySpec, &'static Param)> {
        STRATEGIES
            .iter()
            .flat_map(|&spec| spec.params.iter().map(move |p| (spec, p)))
            .collect()
    }

    #[test]
    fn the_declared_parameters_with_their_ranges_and_defaults() {
        // What this test was written for; a strategy registered since (a copy of one, say) is held by the
        // other tests of this module, which read every declared parameter.
        let listed: Vec<String> = declared()
            .iter()
            .filter(|(spec, _)| KNOWN_STRATEGIES.contains(&spec.name))
            .map(|(spec, p)| {
                format!(
                    "{} {} {} [{}] {}",
                    spec.name,
                    p.name,
                    p.key,
                    p.range(),
                    p.default_value()
                )
            })
            .collect();
        let share = |s: &str| format!("{s} head_share head_share [0 to 1] 0.2");
        let expected = [
            share("proportional"),
            share("uniform"),
            share("greedy"),
            "weighted output weights.output [1 to 1000] 1".to_string(),
            "weighted error weights.error [1 to 1000] 2".to_string(),
            "weighted text weights.text [1 to 1000] 2".to_string(),
            share("weighted"),
            share("line-aware"),
            share("head-tail-<ratio>"),
            "legacy-layers shell_trigger legacy_layers.shell_trigger [0 to 1000000000000] 30000".to_string(),
            "legacy-layers shell_preview legacy_layers.shell_preview [0 to 1000000000000] 30000".to_string(),
            "legacy-layers other_trigger legacy_layers.other_trigger [0 to 1000000000000] 25000".to_string(),
            "legacy-layers other_preview legacy_layers.other_preview [0 to 1000000000000] 2000".to_string(),
            "legacy-layers offload_preview legacy_layers.offload_preview [0 to 1000000000000] 2000"
                .to_string(),
            "window-relative configured_chars window_relative.configured_chars [1 to 1000000000000] 100000"
                .to_string(),
            "window-relative preview_chars window_relative.preview_chars [1 to 1000000000000] 2000"
                .to_string(),
            share("window-relative"),
            "gemini-cli prompt_tokens gemini_cli.prompt_tokens [0 to 1000000000000] 0".to_string(),
            "claude-code message_cap_chars claude_code.message_cap_chars [1 to 1000000000000] 200000"
                .to_string(),
            share("salient"),
            "salient share salient.share [0 to 1] 0.5".to_string(),
            "salient context salient.context [0 to 20] 1".to_string(),
            "salient lines salient.lines [1 to 256] 16".to_string(),
            share("relevance"),
            "relevance edge relevance.edge [0 to 1] 0.2".to_string(),
            "relevance context relevance.context [0 to 20] 1".to_string(),
            share("rarity"),
            "rarity edge rarity.edge [0 to 1] 0.2".to_string(),
            "rarity context rarity.context [0 to 20] 1".to_string(),
            share("structure"),
            "structure edge structure.edge [0 to 1] 0.1".to_string(),
            "structure window structure.window [0 to 500] 100".to_string(),
            "structure above structure.above [0 to 1] 0.1".to_string(),
            "structure context structure.context [0 to 20] 1".to_string(),
        ];
        assert_eq!(listed, expected);
    }

    #[test]
    fn every_default_is_the_default_configurations_value_and_names_are_unique() {
        let defaults = leaves(&StrategyConfig::default());
        for (spec, p) in declared() {
            let (_, value) = defaults
                .iter()
                .find(|(key, _)| key == p.key)
                .unwrap_or_else(|| panic!("{}: no configuration key {}", spec.name, p.key));
            assert_eq!(p.default_value(), text(value), "{} {}", spec.name, p.key);
            let same = spec.params.iter().filter(|q| q.name == p.name).count();
            assert_eq!(same, 1, "{}: {} declared twice", spec.name, p.name);
        }
    }

    /// A valid value other than the default, as text.
    fn other_value(p: &Param) -> String {
        match p.kind() {
            ParamKind::Share => "1/3".to_string(),
            ParamKind::Units(_) => {
                let default: u64 = p.default_value().parse().unwrap();
                match default {
                    0 => 10_000,
                    1..=100 => default + 5,
                    _ => default / 2,
                }
                .to_string()
            }
        }
    }

    #[test]
    fn applying_a_value_changes_exactly_its_field() {
        let before = leaves(&StrategyConfig::default());
        for (spec, p) in declared() {
            let mut config = StrategyConfig::default();
            let value = other_value(p);
            p.apply(&mut config, &value).unwrap();
            let changed: Vec<(String, String)> = leaves(&config)
                .into_iter()
                .zip(&before)
                .filter(|((_, new), (_, old))| new != old)
                .map(|((key, new), _)| (key, text(&new)))
                .collect();
            assert_eq!(
                changed,
                [(p.key.to_string(), value.clone())],
                "{}",
                spec.name
            );
            assert_eq!(p.value(&config), value);
        }
        let mut config = StrategyConfig::default();
        HEAD_SHARE.apply(&mut config, "0.50").unwrap();
        assert_eq!(config.head_share, HeadShare { num: 1, den: 2 });
        assert_eq!(HEAD_SHARE.value(&config), "0.5");
    }

    #[test]
    fn out_of_range_values_are_refused_with_the_bound_validate_uses() {
        for (spec, p) in declared() {
            let ParamKind::Units(b) = p.kind() else {
                continue;
            };
            let Setting::Units(_, field) = p.field else {
                unreachable!()
            };
            let mut config = StrategyConfig::default();
            let over = (b.high + 1).to_string();
            let message = format!("invalid {} \"{over}\": must be at most {}", p.key, b.high);
            assert_eq!(
                p.apply(&mut config, &over).unwrap_err().to_string(),
                message
            );
            assert_eq!(
                config,
                StrategyConfig::default(),
                "a refused value changed it"
            );
            // The configuration refuses the same value with the same message: one bound, written once.
            *field(&mut config) = b.high + 1;
            assert_eq!(
                config.validate().unwrap_err().to_string(),
                message,
                "{}",
                spec.name
            );
            if b.low > 0 {
                let mut config = StrategyConfig::default();
                let under = (b.low - 1).to_string();
                let message = format!("invalid {} \"{under}\": must be at least {}", p.key, b.low);
                assert_eq!(
                    p.apply(&mut config, &under).unwrap_err().to_string(),
                    message
                );
                *field(&mut config) = b.low - 1;
                assert_eq!(config.validate().unwrap_err().to_string(), message);
            }
            for edge in [b.low, b.high] {
                let mut config = StrategyConfig::default();
                p.apply(&mut config, &edge.to_string()).unwrap();
                assert_eq!(p.value(&config), edge.to_string());
            }
        }
        let p = &crate::finalize::weighted::SPEC.params[1];
        let mut config = StrategyConfig::default();
        assert_eq!(
            p.apply(&mut config, "1001").unwrap_err().to_string(),
            "invalid weights.error \"1001\": must be at most 1000"
        );
        assert_eq!(
            p.apply(&mut config, "two").unwrap_err().to_string(),
            "invalid weights.error \"two\": must be a whole number from 1 to 1000"
        );
        assert_eq!(
            p.apply(&mut config, "-1").unwrap_err().to_string(),
            "invalid weights.error \"-1\": must be a whole number from 1 to 1000"
        );
        assert_eq!(
            HEAD_SHARE.apply(&mut config, "1.5").unwrap_err().to_string(),
            "invalid head_share \"1.5\": must be a ratio between 0 and 1, as a decimal (0.5) or a fraction (1/3)"
        );
        assert_eq!(config, StrategyConfig::default());
    }

    /// Batches and contexts that reach every knob: shell and other outputs over every default threshold, errors,
    /// hook text, tight and loose budgets, with and without a context window, many short fields, and a log with
    /// many error lines.
    /// A batch, its budget, its window and its turn's context.
    type Case = (Vec<Entry>, i64, Option<u64>, Option<Arc<TurnContext>>);

    fn cases() -> Vec<Case> {
        let lines = |n: usize, tag: &str| -> String {
            (0..n).map(|i| format!("{tag} line {i:05}\n")).collect()
        };
        let mut batch = vec![
            output_entry("a", "shell", &lines(3_000, "shell")),
            output_error_entry(
                "b",
                "read_file",
                &lines(2_500, "read"),
                &lines(400, "error"),
            ),
            output_entry("c", "grep", &lines(6_000, "grep")),
            output_entry("d", "ls", &lines(50, "small")),
            output_entry("f", "shell", &lines(1_300, "build")),
            output_entry("g", "glob", &lines(1_000, "glob")),
        ];
        batch.push(Entry::new(
            "e",
            "hook",
            vec![Part::text(lines(800, "hook"))],
        ));
        let mut cases = Vec::new();
        for budget in [3_000, 40_000, 1_000_000] {
            for window in [None, Some(16_000), Some(1_000_000)] {
                cases.push((batch.clone(), budget, window, None));
            }
        }
        // Many fields about as long as a path stub, at budgets a few stubs exceed: `largest-first`'s last pass.
        let small: Vec<Entry> = (0..12)
            .map(|i| output_entry(&format!("s{i}"), "ls", &lines(12, "entry")))
            .collect();
        for budget in [600, 1_200] {
            cases.push((small.clone(), budget, None, None));
        }
        // A long log with an error line every tenth line: more picked lines than `salient` takes by default.
        let log: String = (0..3_000)
            .map(|i| match i % 10 {
                5 => format!("error: step {i:05} failed\n"),
                _ => format!("build line {i:05}\n"),
            })
            .collect();
        cases.push((vec![output_entry("l", "shell", &log)], 20_000, None, None));
        // A file viewer's window of 200 numbered lines: `structure` keeps its focus.
        let mut view =
            String::from("[File: /r/A.java (900 lines total)]\n(299 more lines above)\n");
        for n in 300..500 {
            view.push_str(&format!("{n}:        statement_{n}();\n"));
        }
        view.push_str("(400 more lines below)\n");
        cases.push((vec![output_entry("v", "open", &view)], 4_000, None, None));
        // The same window after `goto 420`: `structure` reads it down from 420, its share `above` above.
        let goto = TurnContext {
            calls: vec![CallContext {
                call_id: "v".into(),
                name: "goto".into(),
                arguments: "goto 420".into(),
            }],
            ..TurnContext::default()
        };
        cases.push((
            vec![output_entry("v", "goto", &view)],
            2_000,
            None,
            Some(Arc::new(goto)),
        ));
        // Alike lines with one of rare words in the middle: `rarity` and `relevance` keep it with its context.
        let rare: String = (0..400)
            .map(|i| match i {
                200 => "panic: quokka_module exploded\n".to_string(),
                _ => format!("build line {i:05}\n"),
            })
            .collect();
        cases.push((vec![output_entry("r", "shell", &rare)], 2_000, None, None));
        // A search output with two hits among its context lines: `structure` keeps them with theirs.
        let grep: String = (0..300)
            .map(|i| match i {
                100 | 200 => format!("src/a.rs:{i}:    frob({i});\n"),
                _ => format!("src/a.rs-{i}-    other({i});\n"),
            })
            .collect();
        cases.push((vec![output_entry("s", "grep", &grep)], 2_000, None, None));
        cases
    }

    #[test]
    fn a_strategy_reads_the_parameters_it_declares_and_no_other() {
        let cases = cases();
        let default = StrategyConfig::default();
        for &spec in STRATEGIES {
            let Build::One(build) = spec.build else {
                continue;
            };
            let base = build(&default);
            let outcomes = |config: &StrategyConfig| {
                let finalizer = build(config);
                cases
                    .iter()
                    .map(|(batch, budget, window, turn)| {
                        run_in_turn(&*finalizer, batch.clone(), *budget, *window, turn.clone()).0
                    })
                    .collect::<Vec<_>>()
            };
            let expected = outcomes(&default);
            assert_eq!(base.name(), spec.name);
            for (key, value) in leaves(&default) {
                // The shell tools name the workload's tools, not a setting of a strategy: never a parameter.
                if key.starts_with("shell_tools") {
                    continue;
                }
                let declared = spec.params.iter().find(|p| p.key == key);
                let mut config = default.clone();
                let changed = match declared {
                    Some(p) => {
                        p.apply(&mut config, &other_value(p)).unwrap();
                        true
                    }
                    None => {
                        // Change the undeclared key through the configuration's own serde form.
                        let mut json = serde_json::to_value(&config).unwrap();
                        let leaf = key.split('.').fold(&mut json, |v, k| &mut v[k]);
                        *leaf = match value {
                            Value::String(_) => Value::from("1/3"),
                            Value::Number(n) => Value::from(n.as_u64().unwrap() / 2 + 7),
                            other => panic!("{key}: {other}"),
                        };
                        config = serde_json::from_value(json).unwrap();
                        false
                    }
                };
                let differs = outcomes(&config) != expected;
                assert_eq!(
                    differs,
                    changed,
                    "{}: changing {key} {} the outcome",
                    spec.name,
                    if differs {
                        "changes"
                    } else {
                        "does not change"
                    }
                );
            }
        }
    }

    #[test]
    fn every_value_tune_tries_is_valid_and_the_grid_holds_the_default() {
        for (spec, p) in declared() {
            let values = p.search.values();
            if p.search == Search::Fact {
                assert!(values.is_empty());
                continue;
            }
            assert!(values.len() >= 2, "{} {}: {values:?}", spec.name, p.name);
            for v in &values {
                assert_eq!(p.check(v).as_ref(), Ok(v), "{} {} {v}", spec.name, p.name);
            }
            let number = |v: &str| v.parse::<f64>().unwrap();
            let (lo, hi) = (number(&values[0]), number(values.last().unwrap()));
            let default = number(&p.default_value());
            assert!(
                lo <= default && default <= hi,
                "{} {}: {default} outside {lo}..{hi}",
                spec.name,
                p.name
            );
        }
    }

    #[test]
    fn the_grids_are_the_declared_steps() {
        assert_eq!(
            Search::Shares { steps: 4 }.values(),
            ["0", "0.25", "0.5", "0.75", "1"]
        );
        assert_eq!(
            Search::Log {
                low: 10,
                high: 1000,
                points: 3
            }
            .values(),
            ["10", "100", "1000"]
        );
        assert_eq!(
            Search::Log {
                low: 1,
                high: 2,
                points: 5
            }
            .values(),
            ["1", "2"]
        );
        assert_eq!(Search::Each { low: 1, high: 3 }.values(), ["1", "2", "3"]);
        assert_eq!(
            Search::Log {
                low: 2000,
                high: 400_000,
                points: 12
            }
            .values(),
            [
                "2000", "3200", "5200", "8500", "14000", "22000", "36000", "58000", "94000",
                "150000", "250000", "400000"
            ],
            "the values between the ends have two significant digits"
        );
        assert_eq!(
            Search::Log {
                low: 500,
                high: 20_000,
                points: 10
            }
            .describe(),
            "10 values from 500 to 20000, log-spaced"
        );
    }
}
