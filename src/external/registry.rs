//! [`ExternalRegistry`]: the external strategies of one command, as strategy names every command takes.
//!
//! Each `--external NAME=COMMAND` becomes a registration that a [`StrategyName::External`] holds. Every finalizer
//! built from it is a handle on one [`ExternalFinalizer`] made at the first build, so a run that builds its
//! strategies once per workload still has one pool of children per strategy for the whole command: a child per
//! worker thread finalizing at once, each started once. The registry decides where the children's stderr logs
//! and a fault's request go ([`ExternalRegistry::set_dir`], before the first build), starts the strategies a
//! command uses before it does any work ([`ExternalRegistry::start`]), and at the end stops every child and says
//! whether one faulted ([`ExternalRegistry::finish`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::budget::BudgetContext;
use crate::error::Error;
use crate::finalize::{Finalizer, Outcome, Registered, RegisteredStrategy, StrategyName};
use crate::model::Batch;
use crate::persist::ArtifactStore;

use super::fault::ExternalFault;
use super::{ExternalFinalizer, ExternalOptions, ExternalStrategies, ExternalStrategy};

/// One registered strategy: its command, its options, and the finalizer (with its children) once built.
struct Registration {
    strategy: ExternalStrategy,
    description: String,
    options: Mutex<ExternalOptions>,
    pool: Mutex<Option<Arc<ExternalFinalizer>>>,
    /// The fault of a pool already stopped, kept for [`ExternalRegistry::finish`].
    fault: Mutex<Option<ExternalFault>>,
}

impl Registration {
    /// The finalizer, made at the first call.
    fn pool(&self) -> Arc<ExternalFinalizer> {
        let mut pool = lock(&self.pool);
        Arc::clone(pool.get_or_insert_with(|| {
            Arc::new(ExternalFinalizer::new(
                self.strategy.clone(),
                lock(&self.options).clone(),
            ))
        }))
    }

    /// Whether the finalizer faulted, stopped or not.
    fn faulted(&self) -> bool {
        lock(&self.fault).is_some() || lock(&self.pool).as_ref().is_some_and(|p| p.faulted())
    }

    /// Stops the children (the pool goes once the last handle on it does) and keeps its fault.
    fn stop(&self) {
        let pool = lock(&self.pool).take();
        if let Some(pool) = pool {
            if let Some(fault) = pool.fault() {
                lock(&self.fault).get_or_insert(fault);
            }
        }
    }
}

impl RegisteredStrategy for Registration {
    fn name(&self) -> &str {
        &self.strategy.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn build(&self) -> Box<dyn Finalizer> {
        Box::new(Handle(self.pool()))
    }
}

/// A finalizer that shares its registration's pool of children.
struct Handle(Arc<ExternalFinalizer>);

impl Finalizer for Handle {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        self.0.finalize(batch, ctx, store)
    }

    fn simulates_persist_faults(&self) -> bool {
        self.0.simulates_persist_faults()
    }
}

/// The external strategies registered for one command, each a [`StrategyName`].
#[derive(Clone, Default)]
pub struct ExternalRegistry {
    registrations: Vec<Arc<Registration>>,
}

impl std::fmt::Debug for ExternalRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.registrations.iter().map(|r| &r.strategy.name))
            .finish()
    }
}

impl ExternalRegistry {
    /// Registers `strategies`, each run with `options` (its folder for logs and faults can still be moved with
    /// [`ExternalRegistry::set_dir`] until a strategy is first built).
    pub fn new(strategies: &ExternalStrategies, options: &ExternalOptions) -> ExternalRegistry {
        ExternalRegistry {
            registrations: strategies
                .iter()
                .map(|s| {
                    Arc::new(Registration {
                        description: format!("external strategy: {}", s.command),
                        strategy: s.clone(),
                        options: Mutex::new(options.clone()),
                        pool: Mutex::new(None),
                        fault: Mutex::new(None),
                    })
                })
                .collect(),
        }
    }

    /// Whether no strategy is registered.
    pub fn is_empty(&self) -> bool {
        self.registrations.is_empty()
    }

    /// Every registered strategy's name, in the order registered.
    pub fn names(&self) -> Vec<StrategyName> {
        self.registrations.iter().map(name_of).collect()
    }

    /// The strategy `name` names: a registered one, else a built-in one. An unknown name is refused, the
    /// registered names listed after the built-in ones.
    pub fn resolve(&self, name: &str) -> Result<StrategyName, Error> {
        if let Some(r) = self.registrations.iter().find(|r| r.strategy.name == name) {
            return Ok(name_of(r));
        }
        name.parse::<StrategyName>().map_err(|e| match e {
            Error::InvalidValue {
                what,
                value,
                reason,
            } if !self.is_empty() && !value.starts_with("head-tail-") => {
                let registered: Vec<&str> = self
                    .registrations
                    .iter()
                    .map(|r| r.strategy.name.as_str())
                    .collect();
                Error::InvalidValue {
                    what,
                    value,
                    reason: format!(
                        "{reason}; registered with --external: {}",
                        registered.join(", ")
                    ),
                }
            }
            other => other,
        })
    }

    /// Resolves every name of `names` (see [`ExternalRegistry::resolve`]).
    pub fn resolve_all<S: AsRef<str>>(&self, names: &[S]) -> Result<Vec<StrategyName>, Error> {
        let resolved = names
            .iter()
            .map(|n| self.resolve(n.as_ref()))
            .collect::<Result<Vec<_>, Error>>()?;
        // A strategy run twice would double its rows' batches, and the report would be one budgetlab refuses:
        // names are compared as resolved, so `head-tail-1/2` is `head-tail-0.5`.
        if let Some(twice) = resolved
            .iter()
            .enumerate()
            .find_map(|(i, s)| resolved[..i].contains(s).then_some(s))
        {
            let list: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
            return Err(Error::invalid(
                "--strategies",
                list.join(","),
                format!("{twice} is named twice"),
            ));
        }
        Ok(resolved)
    }

    /// The command line that registers `name` again, for a command that replays it (`--external NAME=COMMAND`);
    /// `None` for a built-in strategy.
    pub fn flags_for(&self, name: &StrategyName) -> Option<Vec<String>> {
        let r = self.find(name)?;
        let mut flags = vec![
            "--external".to_string(),
            format!("{}={}", r.strategy.name, r.strategy.command),
        ];
        let options = lock(&r.options);
        if options.timeout != super::DEFAULT_TIMEOUT {
            flags.extend(["--external-timeout".to_string(), seconds(options.timeout)]);
        }
        if options.lone_surrogates == super::LoneSurrogatePolicy::Replace {
            // conform sees a split pair as U+FFFD; its replay commands show the same output.
            flags.extend([
                "--external-lone-surrogates".to_string(),
                "replace".to_string(),
            ]);
        }
        Some(flags)
    }

    /// The folder of the logs and of a fault's request.
    pub fn dir(&self) -> Option<PathBuf> {
        self.registrations
            .first()
            .map(|r| lock(&r.options).dir.clone())
    }

    /// Puts the logs and a fault's request in `dir` from now on (a strategy already built keeps its folder).
    pub fn set_dir(&self, dir: &Path) {
        for r in &self.registrations {
            lock(&r.options).dir = dir.to_path_buf();
        }
    }

    /// Changes the options of every registration (a strategy already built keeps its own).
    pub fn configure(&self, change: impl Fn(&mut ExternalOptions)) {
        for r in &self.registrations {
            change(&mut lock(&r.options));
        }
    }

    /// Starts one child of each registered strategy among `used` now, with its handshake, so that a command whose
    /// program cannot start fails before any work. The first fault is the error (a fault before any request
    /// has no request to save).
    pub fn start(&self, used: &[StrategyName]) -> Result<(), Error> {
        for r in &self.registrations {
            if used.iter().any(|n| n.as_str() == r.strategy.name) {
                r.pool().start()?;
            }
        }
        Ok(())
    }

    /// Whether any registered strategy has faulted: its results from then on are not its own, so the command
    /// may stop early.
    pub fn faulted(&self) -> bool {
        self.registrations.iter().any(|r| r.faulted())
    }

    /// Stops every child (end of input, a grace period, then a kill; each process group killed and reaped) once
    /// no finalizer built from the registry is left, and returns the first fault of the strategies, in the order
    /// registered, if one faulted. Its request is not saved yet: see [`ExternalFault::save`].
    pub fn finish(&self) -> Option<ExternalFault> {
        for r in &self.registrations {
            r.stop();
        }
        self.registrations
            .iter()
            .find_map(|r| lock(&r.fault).clone())
    }

    /// [`ExternalRegistry::finish`], and a fault as the error after saving its request in the registry's folder.
    pub fn finish_saved(&self) -> Result<(), Error> {
        match self.finish() {
            None => Ok(()),
            Some(fault) => Err(save_and_describe(&fault, &self.dir().unwrap_or_default())),
        }
    }

    fn find(&self, name: &StrategyName) -> Option<&Arc<Registration>> {
        match name {
            StrategyName::External(registered) => self
                .registrations
                .iter()
                .find(|r| r.strategy.name == registered.name()),
            _ => None,
        }
    }
}

/// A fault as the error: its request saved in `dir` first (a failure to save is said in the same line).
pub fn save_and_describe(fault: &ExternalFault, dir: &Path) -> Error {
    match fault.save(dir) {
        Ok(saved) => fault.to_error(saved.as_ref()),
        Err(e) => Error::External {
            strategy: fault.strategy.clone(),
            at: fault.at(),
            problem: format!(
                "{}; the request could not be saved: {e}",
                fault.describe(None)
            ),
        },
    }
}

fn name_of(r: &Arc<Registration>) -> StrategyName {
    StrategyName::External(Registered::new(Arc::clone(r) as Arc<dyn RegisteredStrategy>))
}

/// A duration as `--external-timeout` takes it.
fn seconds(d: std::time::Duration) -> String {
    let text = format!("{}.{:09}", d.as_secs(), d.subsec_nanos());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persist::MemoryStore;
    use crate::Budget;

    fn registry(specs: &[&str], dir: &Path) -> ExternalRegistry {
        ExternalRegistry::new(
            &ExternalStrategies::from_specs(specs).unwrap(),
            &ExternalOptions::new(dir),
        )
    }

    #[test]
    fn registered_names_are_strategy_names() {
        let dir = tempfile::tempdir().unwrap();
        let r = registry(&["mine=cat", "alpha=cat"], dir.path());
        let mine = r.resolve("mine").unwrap();
        assert!(mine.is_external());
        assert_eq!(mine.to_string(), "mine");
        assert_eq!(mine.as_str(), "mine");
        assert_eq!(mine, r.resolve("mine").unwrap());
        assert_ne!(mine, r.resolve("alpha").unwrap());
        assert_eq!(mine.description(), "external strategy: cat");
        assert_eq!(mine.family(), crate::finalize::Family::External);
        assert_eq!(mine.caps(), None);
        assert!(!mine.caps_batch());
        // Registered strategies order after every built-in one, by name; in the order registered they list.
        let mut names = [
            mine.clone(),
            r.resolve("swe-agent").unwrap(),
            r.resolve("alpha").unwrap(),
            StrategyName::REFERENCE,
        ];
        names.sort();
        let printed: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        assert_eq!(printed, ["reference", "swe-agent", "alpha", "mine"]);
        let listed: Vec<String> = r.names().iter().map(|n| n.to_string()).collect();
        assert_eq!(listed, ["mine", "alpha"]);
        let hash = |n: &StrategyName| {
            use std::hash::{BuildHasher, BuildHasherDefault};
            BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(n)
        };
        assert_eq!(hash(&mine), hash(&r.resolve("mine").unwrap()));
        // The same name registered by another registry is the same name.
        let other = registry(&["mine=sh -c cat"], dir.path());
        assert_eq!(other.resolve("mine").unwrap(), mine);
        // Built-in names resolve as they parse; an unknown one lists the registered ones too.
        assert_eq!(r.resolve("reference").unwrap(), StrategyName::REFERENCE);
        let err = r.resolve("nope").unwrap_err().to_string();
        assert!(
            err.starts_with("invalid strategy \"nope\": known strategies: reference, ")
                && err.ends_with("head-tail-<ratio>; registered with --external: mine, alpha"),
            "{err}"
        );
        let err = r.resolve("head-tail-7").unwrap_err().to_string();
        assert!(!err.contains("registered"), "{err}");
        assert_eq!(
            registry(&[], dir.path())
                .resolve("nope")
                .unwrap_err()
                .to_string(),
            "nope".parse::<StrategyName>().unwrap_err().to_string()
        );
        assert_eq!(r.flags_for(&StrategyName::REFERENCE), None);
        assert_eq!(r.flags_for(&mine).unwrap(), ["--external", "mine=cat"]);
        r.configure(|o| o.timeout = std::time::Duration::from_millis(1_500));
        assert_eq!(
            r.flags_for(&mine).unwrap(),
            ["--external", "mine=cat", "--external-timeout", "1.5"]
        );
        r.configure(|o| o.lone_surrogates = super::super::LoneSurrogatePolicy::Replace);
        assert_eq!(
            r.flags_for(&mine).unwrap(),
            [
                "--external",
                "mine=cat",
                "--external-timeout",
                "1.5",
                "--external-lone-surrogates",
                "replace"
            ]
        );
    }

    #[test]
    fn every_build_shares_one_pool_for_the_whole_command() {
        let dir = tempfile::tempdir().unwrap();
        let serve = "n=0; read -r hello; echo '{\"protocol\":\"budgetlab-finalizer\",\"version\":1,\"name\":\"t\"}'; \
                     while read -r req; do n=$((n+1)); echo \"{\\\"id\\\":$n,\\\"entries\\\":[],\\\"persisted\\\":[]}\"; \
                     done";
        let strategy = ExternalStrategy {
            name: "t".into(),
            command: serve.into(),
            argv: vec!["sh".into(), "-c".into(), serve.into()],
        };
        let r = ExternalRegistry::new(
            &ExternalStrategies(vec![strategy]),
            &ExternalOptions::new(dir.path().join("elsewhere")),
        );
        r.set_dir(&dir.path().join("logs"));
        let name = r.resolve("t").unwrap();
        r.start(std::slice::from_ref(&name)).unwrap();
        let ctx = BudgetContext::new(Budget::Units(10));
        for _ in 0..3 {
            let f = name.build();
            assert_eq!(f.name(), "t");
            let out = f.finalize(Vec::new(), &ctx, &mut MemoryStore::new("d"));
            assert_eq!(out, Outcome::unchanged(Vec::new()));
        }
        let pool = r.find(&name).unwrap().pool();
        assert_eq!(pool.children_started(), 1, "one child, started once, kept");
        assert_eq!(pool.options().dir, dir.path().join("logs"));
        drop(pool);
        assert!(!r.faulted());
        assert!(r.finish().is_none());
        assert!(r.finish_saved().is_ok());
    }

    #[test]
    fn a_program_that_cannot_start_fails_the_start_and_the_finish() {
        let dir = tempfile::tempdir().unwrap();
        let r = registry(
            &["gone=/nonexistent/fin", "unused=/nonexistent/too"],
            dir.path(),
        );
        let gone = r.resolve("gone").unwrap();
        let err = r.start(&[gone, StrategyName::REFERENCE]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "external strategy gone: start: the child could not be started: /nonexistent/fin: No such file or \
             directory (os error 2)"
        );
        assert!(r.faulted());
        let fault = r.finish().unwrap();
        assert_eq!(fault.strategy, "gone");
        // Nothing was asked of the unused one, and no request was made to save.
        assert!(r.finish_saved().is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
