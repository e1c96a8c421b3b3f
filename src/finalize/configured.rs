//! A configured strategy: a built-in strategy with some of its declared parameters set, named
//! `NAME(key=value,...)` (`window-relative(configured_chars=8000)`, `weighted(error=5,head_share=1/3)`).
//!
//! The name is canonical: keys in the order the strategy declares them (see `finalize/param.rs`), each value in its
//! canonical form (`1/2` is `0.5`, `02000` is `2000`), no spaces. Every key given is kept, a default value too: a
//! configured value replaces the scenario's configuration for that key, so `window-relative(configured_chars=100000)`
//! differs from `window-relative` under a scenario that sets another threshold. It parses back to itself, compares
//! and hashes by that text, orders after its base strategy, and builds the base with the values applied over the
//! configuration it is given. The head-share family keeps its own form: `head-tail-<ratio>` names its head share.

use super::config::StrategyConfig;
use super::param::Param;
use super::spec::StrategySpec;
use super::{Finalizer, Outcome};
use crate::budget::BudgetContext;
use crate::model::Batch;
use crate::persist::ArtifactStore;

/// A built-in strategy with some parameters set: what [`StrategyName::Configured`](super::StrategyName) holds.
#[derive(Debug, Clone)]
pub struct Configured {
    /// The base strategy's spec (a strategy with one fixed name).
    spec: &'static StrategySpec,
    /// Each parameter set and its canonical value, in declared order.
    settings: Vec<(&'static Param, String)>,
    /// The canonical name.
    name: String,
}

impl Configured {
    /// Reads the parameters of `args` (the text between the parentheses) for the strategy of `spec`, checking each
    /// value and then the whole configuration they make from the default one; the reason a name is refused, one
    /// line naming the key and its range.
    pub(super) fn new(spec: &'static StrategySpec, args: &str) -> Result<Configured, String> {
        let known = || -> String {
            if spec.params.is_empty() {
                format!("{} takes no parameters", spec.name)
            } else {
                let list: Vec<String> = spec
                    .params
                    .iter()
                    .map(|p| format!("{} ({})", p.name, p.range()))
                    .collect();
                format!("{} takes {}", spec.name, list.join(", "))
            }
        };
        if args.trim().is_empty() {
            return Err(format!("no parameter between the parentheses; {}", known()));
        }
        let mut settings: Vec<(&'static Param, String)> = Vec::new();
        for item in args.split(',') {
            let Some((key, value)) = item.split_once('=') else {
                return Err(format!("{:?} is not key=value; {}", item.trim(), known()));
            };
            let (key, value) = (key.trim(), value.trim());
            let Some(param) = spec.params.iter().find(|p| p.name == key) else {
                return Err(format!("unknown parameter {key:?}; {}", known()));
            };
            if settings.iter().any(|(p, _)| p.name == key) {
                return Err(format!("{key} is given twice"));
            }
            let canonical = param.check(value).map_err(|reason| {
                format!("{key}={value}: {reason} ({key} takes {})", param.range())
            })?;
            settings.push((param, canonical));
        }
        let position = |p: &Param| spec.params.iter().position(|q| q.name == p.name);
        settings.sort_by_key(|(p, _)| position(p));
        let configured = Configured {
            spec,
            name: format!(
                "{}({})",
                spec.name,
                settings
                    .iter()
                    .map(|(p, v)| format!("{}={v}", p.name))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            settings,
        };
        configured
            .apply(&StrategyConfig::default())
            .validate()
            .map_err(|e| e.to_string())?;
        Ok(configured)
    }

    /// The base strategy's spec.
    pub(super) fn spec(&self) -> &'static StrategySpec {
        self.spec
    }

    /// The canonical name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Each parameter set and its canonical value, in declared order.
    pub fn settings(&self) -> impl Iterator<Item = (&'static Param, &str)> + '_ {
        self.settings.iter().map(|(p, v)| (*p, v.as_str()))
    }

    /// `config` with the configured values in place of its own.
    pub fn apply(&self, config: &StrategyConfig) -> StrategyConfig {
        let mut config = config.clone();
        for (param, value) in &self.settings {
            param
                .apply(&mut config, value)
                .expect("a configured value is checked when the name is read");
        }
        config
    }
}

/// A finalizer under another name: a configured strategy's base finalizer, named as configured.
pub(super) struct Renamed {
    /// The configured name.
    pub(super) name: String,
    /// The base strategy, built with the configured values.
    pub(super) inner: Box<dyn Finalizer>,
}

impl Finalizer for Renamed {
    fn name(&self) -> &str {
        &self.name
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        self.inner.finalize(batch, ctx, store)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    use crate::finalize::testing::{output_entry, output_error_entry, output_of, run};
    use crate::finalize::{StrategyConfig, StrategyName};

    fn name(s: &str) -> StrategyName {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn refused(s: &str) -> String {
        s.parse::<StrategyName>().unwrap_err().to_string()
    }

    #[test]
    fn a_configured_name_prints_keys_in_declared_order_and_values_canonical() {
        let w = name("weighted( head_share = 2/4 , error=05)");
        assert_eq!(w.as_str(), "weighted(error=5,head_share=0.5)");
        assert_eq!(name(&w.as_str()), w);
        assert_eq!(w.to_string(), w.as_str());
        let StrategyName::Configured(c) = &w else {
            panic!("{w:?}")
        };
        let set: Vec<(&str, &str)> = c.settings().map(|(p, v)| (p.name, v)).collect();
        assert_eq!(set, [("error", "5"), ("head_share", "0.5")]);
        // A default value is kept: it replaces the scenario's value for that key.
        let r = name("window-relative(configured_chars=100000)");
        assert_eq!(r.as_str(), "window-relative(configured_chars=100000)");
        assert_ne!(r, name("window-relative"));
        // The base's spec: family, caps, checks given up, parameters; the value it uses unconfigured.
        let base = name("weighted");
        assert_eq!(
            (w.family(), w.caps(), w.gives_up(), w.description()),
            (
                base.family(),
                base.caps(),
                base.gives_up(),
                base.description()
            )
        );
        let defaults: Vec<String> = w.params().iter().map(|p| w.param_default(p)).collect();
        assert_eq!(defaults, ["1", "5", "2", "0.5"]);
    }

    #[test]
    fn configured_names_compare_hash_and_order_by_their_canonical_text() {
        let hash = |n: &StrategyName| {
            let mut h = DefaultHasher::new();
            n.hash(&mut h);
            h.finish()
        };
        let a = name("weighted(head_share=1/2,error=5)");
        let b = name("weighted(error=5,head_share=0.5)");
        assert_eq!(a, b);
        assert_eq!(hash(&a), hash(&b));
        assert_ne!(a, name("weighted(error=5)"));
        assert_ne!(hash(&a), hash(&name("weighted(error=5)")));
        let mut names = [
            name("window-relative"),
            name("weighted(text=3)"),
            name("line-aware"),
            name("weighted(error=5)"),
            name("weighted"),
            name("window-relative(preview_chars=500)"),
        ];
        names.sort();
        let sorted: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        assert_eq!(
            sorted,
            [
                "weighted",
                "weighted(error=5)",
                "weighted(text=3)",
                "line-aware",
                "window-relative",
                "window-relative(preview_chars=500)",
            ]
        );
    }

    #[test]
    fn bad_configured_names_are_refused_with_one_line_naming_the_key_and_its_range() {
        assert_eq!(
            refused("window-relative(fraction=0.05)"),
            "invalid strategy \"window-relative(fraction=0.05)\": unknown parameter \"fraction\"; window-relative \
             takes configured_chars (1 to 1000000000000), preview_chars (1 to 1000000000000), head_share (0 to 1)"
        );
        assert_eq!(
            refused("window-relative(preview_chars=0)"),
            "invalid strategy \"window-relative(preview_chars=0)\": preview_chars=0: must be at least 1 \
             (preview_chars takes 1 to 1000000000000)"
        );
        assert_eq!(
            refused("weighted(error=1001)"),
            "invalid strategy \"weighted(error=1001)\": error=1001: must be at most 1000 (error takes 1 to 1000)"
        );
        assert_eq!(
            refused("weighted(error=x)"),
            "invalid strategy \"weighted(error=x)\": error=x: must be a whole number from 1 to 1000 \
             (error takes 1 to 1000)"
        );
        assert_eq!(
            refused("weighted(head_share=1.5)"),
            "invalid strategy \"weighted(head_share=1.5)\": head_share=1.5: must be a ratio between 0 and 1, as a \
             decimal (0.5) or a fraction (1/3) (head_share takes 0 to 1)"
        );
        assert_eq!(
            refused("weighted(error=2,error=3)"),
            "invalid strategy \"weighted(error=2,error=3)\": error is given twice"
        );
        assert_eq!(
            refused("weighted(error)"),
            "invalid strategy \"weighted(error)\": \"error\" is not key=value; weighted takes output (1 to 1000), \
             error (1 to 1000), text (1 to 1000), head_share (0 to 1)"
        );
        assert_eq!(
            refused("weighted()"),
            "invalid strategy \"weighted()\": no parameter between the parentheses; weighted takes output \
             (1 to 1000), error (1 to 1000), text (1 to 1000), head_share (0 to 1)"
        );
        assert_eq!(
            refused("codex(x=1)"),
            "invalid strategy \"codex(x=1)\": unknown parameter \"x\"; codex takes no parameters"
        );
        assert_eq!(
            refused("legacy-layers(shell_preview=40000)"),
            "invalid strategy \"legacy-layers(shell_preview=40000)\": invalid legacy_layers.shell_preview \
             \"40000\": a preview may not be longer than its trigger (30000)"
        );
        assert_eq!(
            refused("head-tail-0.5(head_share=0.3)"),
            "invalid strategy \"head-tail-0.5(head_share=0.3)\": head-tail-<ratio> takes no parameters: its ratio \
             is its head share (head-tail-0.5)"
        );
        assert!(refused("fancy(x=1)").starts_with(
            "invalid strategy \"fancy(x=1)\": known strategies: reference, send-guard, "
        ));
        name("legacy-layers(shell_trigger=50000,shell_preview=40000)");
    }

    /// Batches that reach the parameters of `weighted` and `window-relative`.
    fn batch() -> Vec<crate::model::Entry> {
        vec![
            output_error_entry("a", "shell", &"o".repeat(1_000), &"e".repeat(1_000)),
            output_entry("b", "read_file", &"x".repeat(3_001)),
        ]
    }

    #[test]
    fn a_configured_strategy_builds_its_base_with_the_values_applied() {
        let configured = name("window-relative(configured_chars=3000,preview_chars=500)");
        let finalizer = configured.build();
        assert_eq!(
            finalizer.name(),
            "window-relative(configured_chars=3000,preview_chars=500)"
        );
        let (out, _) = run(&*finalizer, batch(), 1_000_000, None);
        assert_eq!(output_of(&out, 0), "o".repeat(1_000));
        assert_eq!(crate::utf16_len(output_of(&out, 1)), 500);
        // The values replace the configuration's own; the rest of it stays.
        let mut scenario = StrategyConfig::default();
        scenario.window_relative.configured_chars = 500;
        scenario.window_relative.preview_chars = 100;
        let threshold_only = name("window-relative(configured_chars=3000)");
        let (out, _) = run(
            &*threshold_only.build_with(&scenario),
            batch(),
            1_000_000,
            None,
        );
        assert_eq!(output_of(&out, 0), "o".repeat(1_000));
        assert_eq!(crate::utf16_len(output_of(&out, 1)), 100);
        let (base, _) = run(
            &*name("window-relative").build_with(&scenario),
            batch(),
            1_000_000,
            None,
        );
        assert_eq!(crate::utf16_len(output_of(&base, 0)), 100);
    }

    #[test]
    fn a_configured_strategy_with_default_values_finalizes_as_its_base() {
        for (configured, base) in [
            (
                "weighted(output=1,error=2,text=2,head_share=0.2)",
                "weighted",
            ),
            (
                "window-relative(configured_chars=100000,preview_chars=2000,head_share=1/5)",
                "window-relative",
            ),
            ("legacy-layers(offload_preview=2000)", "legacy-layers"),
            ("claude-code(message_cap_chars=200000)", "claude-code"),
            ("gemini-cli(prompt_tokens=0)", "gemini-cli"),
            ("proportional(head_share=0.2)", "proportional"),
        ] {
            let configured = name(configured).build();
            let base = name(base).build();
            for budget in [500, 2_000, 1_000_000] {
                for window in [None, Some(2_000)] {
                    let (a, store_a) = run(&*configured, batch(), budget, window);
                    let (b, store_b) = run(&*base, batch(), budget, window);
                    assert_eq!(a, b, "{} at {budget}", configured.name());
                    assert_eq!(store_a.artifacts(), store_b.artifacts());
                }
            }
        }
        // And a value that differs changes what it finalizes.
        let (a, _) = run(&*name("weighted(error=1)").build(), batch(), 1_000, None);
        let (b, _) = run(&*name("weighted").build(), batch(), 1_000, None);
        assert_ne!(a, b);
    }
}
