//! [`StrategyName`]: a strategy as `--strategy`, `--strategies` and the results name it, read from the registered
//! specs, or registered for one command ([`RegisteredStrategy`], an external program). A name is a value: it
//! parses, prints, compares, orders (in listing order) and builds its strategy.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;
use std::sync::Arc;

use super::config::StrategyConfig;
use super::configured::{Configured, Renamed};
use super::head_share::HeadShare;
use super::head_tail;
use super::param::Param;
use super::slots::SlotScope;
use super::spec::{Build, Family, StrategySpec};
use super::{reference, send_guard, Finalizer, STRATEGIES};
use crate::error::Error;

/// A strategy by its stable name.
///
/// Every registered strategy but the head-share family has one fixed name ([`StrategyName::Builtin`]);
/// `head-tail-<ratio>` ([`StrategyName::HeadTail`]) is a family named by its head share (`head-tail-0`,
/// `head-tail-0.5`, `head-tail-1.0`, `head-tail-1/3` all parse; the canonical name prints the ratio in lowest
/// terms, see [`HeadShare`]). [`StrategyName::all`] lists every fixed strategy and a few canonical ratios.
/// Names order by the registry's listing order, a family's members by head share.
///
/// A fixed name with some of its declared parameters set, `NAME(key=value,...)`, is a name too
/// ([`StrategyName::Configured`], see [`Configured`]): printed in canonical form, ordered right after its base.
///
/// A strategy registered for one command (`--external NAME=COMMAND`) is a name too ([`StrategyName::External`]):
/// it prints, compares, orders (after every built-in one, by name) and builds like the others, so that every
/// command, the run's plan and its results take it where they take a built-in name. [`FromStr`] knows only the
/// built-in names; a command resolves its registered ones first (`ExternalRegistry::resolve`).
#[derive(Debug, Clone)]
pub enum StrategyName {
    /// A registered strategy with one fixed name.
    Builtin(Builtin),
    /// The reference with this head share of each preview.
    HeadTail(HeadShare),
    /// A strategy with one fixed name and some of its declared parameters set: `NAME(key=value,...)`.
    Configured(Configured),
    /// A strategy registered for this command, by its registered name.
    External(Registered),
}

/// What a strategy registered at run time (an external program) gives its [`StrategyName`]: its name, a line
/// for listings, and finalizers. Every finalizer one registration builds shares its resources (an external
/// strategy's children), so building one per workload of a run costs nothing and starts nothing.
pub trait RegisteredStrategy: Send + Sync {
    /// The registered name (never a built-in strategy's).
    fn name(&self) -> &str;

    /// A one-line description.
    fn description(&self) -> &str;

    /// A finalizer running the strategy (it takes no [`StrategyConfig`]: its parameters are its own).
    fn build(&self) -> Box<dyn Finalizer>;
}

/// A handle on a [`RegisteredStrategy`]: equal, hashed and ordered by its name.
#[derive(Clone)]
pub struct Registered(Arc<dyn RegisteredStrategy>);

impl Registered {
    /// The handle on `strategy`.
    pub fn new(strategy: Arc<dyn RegisteredStrategy>) -> Registered {
        Registered(strategy)
    }

    /// The registered name.
    pub fn name(&self) -> &str {
        self.0.name()
    }
}

impl fmt::Debug for Registered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Registered").field(&self.0.name()).finish()
    }
}

/// A registered strategy with one fixed name: a handle on its spec, made only from the registry.
#[derive(Clone, Copy)]
pub struct Builtin {
    spec: &'static StrategySpec,
    build: fn(&StrategyConfig) -> Box<dyn Finalizer>,
}

impl Builtin {
    /// The handle on `spec`, if it names one strategy.
    const fn new(spec: &'static StrategySpec) -> Option<Builtin> {
        match spec.build {
            Build::One(build) => Some(Builtin { spec, build }),
            Build::PerHeadShare { .. } => None,
        }
    }

    /// The handle on `spec`, which must name one strategy (checked when the constant is evaluated).
    const fn one(spec: &'static StrategySpec) -> Builtin {
        match Builtin::new(spec) {
            Some(builtin) => builtin,
            None => panic!("the spec names a family, not one strategy"),
        }
    }

    /// The strategy's spec.
    pub fn spec(&self) -> &'static StrategySpec {
        self.spec
    }
}

impl fmt::Debug for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Builtin").field(&self.spec.name).finish()
    }
}

/// Why a `head-tail-` name was rejected.
const HEAD_TAIL_FORMS: &str = concat!(
    "the head-tail ratio must be between 0 and 1, ",
    "as a decimal (head-tail-0.5) or a fraction (head-tail-1/3)"
);

impl StrategyName {
    /// The production finalizer.
    pub const REFERENCE: StrategyName = StrategyName::Builtin(Builtin::one(&reference::SPEC));
    /// The chat send guard.
    pub const SEND_GUARD: StrategyName = StrategyName::Builtin(Builtin::one(&send_guard::SPEC));

    /// Every strategy, in listing order (the `head-tail` family by the canonical ratios its spec lists).
    pub fn all() -> Vec<StrategyName> {
        let mut all = Vec::with_capacity(STRATEGIES.len() + 2);
        for &spec in STRATEGIES {
            match spec.build {
                Build::One(_) => all.extend(Builtin::new(spec).map(StrategyName::Builtin)),
                Build::PerHeadShare { listed, .. } => {
                    all.extend(listed.iter().map(|&share| StrategyName::HeadTail(share)))
                }
            }
        }
        all
    }

    /// The registered spec: the strategy's own, or the head-share family's; `None` for a strategy registered
    /// for one command, which has none.
    fn spec(&self) -> Option<&'static StrategySpec> {
        match self {
            StrategyName::Builtin(builtin) => Some(builtin.spec),
            StrategyName::HeadTail(_) => Some(&head_tail::SPEC),
            StrategyName::Configured(configured) => Some(configured.spec()),
            StrategyName::External(_) => None,
        }
    }

    /// The stable name (`head-tail-<ratio>` with the ratio in lowest terms; a registered strategy's name as
    /// registered).
    pub fn as_str(&self) -> Cow<'_, str> {
        match self {
            StrategyName::Builtin(builtin) => Cow::Borrowed(builtin.spec.name),
            StrategyName::HeadTail(share) => Cow::Owned(format!("{}{share}", head_tail::PREFIX)),
            StrategyName::Configured(configured) => Cow::Borrowed(configured.name()),
            StrategyName::External(registered) => Cow::Borrowed(registered.name()),
        }
    }

    /// Whether the strategy is registered for this command (an external program) rather than built in.
    pub fn is_external(&self) -> bool {
        matches!(self, StrategyName::External(_))
    }

    /// A one-line description.
    pub fn description(&self) -> &str {
        match (self, self.spec()) {
            (StrategyName::External(registered), _) => registered.0.description(),
            (_, Some(spec)) => spec.description,
            (_, None) => "",
        }
    }

    /// The group the report draws the strategy in ([`Family::External`] for a registered one).
    pub fn family(&self) -> Family {
        self.spec().map_or(Family::External, |spec| spec.family)
    }

    /// The fields whose total the strategy promises to fit a finite budget, if any (none is assumed of a
    /// registered strategy: `budgetlab conform` is how it shows what it keeps).
    pub fn caps(&self) -> Option<SlotScope> {
        self.spec().and_then(|spec| spec.caps)
    }

    /// The checks of `budgetlab conform` the strategy fails by design; `None` for a registered strategy, whose
    /// policy budgetlab does not know.
    pub fn gives_up(&self) -> Option<&'static [&'static str]> {
        self.spec().map(|spec| spec.gives_up)
    }

    /// The parameters the strategy reads from its configuration, in declared order; none for a registered
    /// strategy. For `head-tail-<ratio>` the head share is the ratio its name gives.
    pub fn params(&self) -> &'static [Param] {
        self.spec().map_or(&[], |spec| spec.params)
    }

    /// The value of `param` this strategy uses when nothing configures it: the default configuration's
    /// ([`Param::default_value`]), but for a member of the head-share family the ratio of its name.
    pub fn param_default(&self, param: &Param) -> String {
        match self {
            StrategyName::HeadTail(share) if param.key == head_tail::SPEC.params[0].key => {
                share.to_string()
            }
            StrategyName::Configured(configured) => configured
                .settings()
                .find(|(p, _)| p.name == param.name)
                .map_or_else(|| param.default_value(), |(_, v)| v.to_string()),
            _ => param.default_value(),
        }
    }

    /// Whether the strategy promises that the budgeted total (output, error and text) fits a finite budget.
    pub fn caps_batch(&self) -> bool {
        self.caps() == Some(SlotScope::ALL)
    }

    /// Builds the strategy with its default configuration.
    pub fn build(&self) -> Box<dyn Finalizer> {
        self.build_with(&StrategyConfig::default())
    }

    /// Builds the strategy with the parameters `config` gives it (a registered strategy takes none).
    pub fn build_with(&self, config: &StrategyConfig) -> Box<dyn Finalizer> {
        match self {
            StrategyName::Builtin(builtin) => (builtin.build)(config),
            StrategyName::HeadTail(share) => Box::new(head_tail::HeadTail::new(*share)),
            StrategyName::Configured(configured) => {
                let Build::One(build) = configured.spec().build else {
                    unreachable!("a configured strategy has one fixed name")
                };
                Box::new(Renamed {
                    name: configured.name().to_string(),
                    inner: build(&configured.apply(config)),
                })
            }
            StrategyName::External(registered) => registered.0.build(),
        }
    }

    /// Position in the registry (registered strategies after every built-in one), then head share, then the
    /// configured or registered name (a strategy before its configured forms): the listing order.
    fn order_key(&self) -> (usize, Option<HeadShare>, &str) {
        let position = self.spec().map_or(STRATEGIES.len(), |spec| {
            STRATEGIES
                .iter()
                .position(|s| s.name == spec.name)
                .unwrap_or(STRATEGIES.len())
        });
        match self {
            StrategyName::Builtin(_) => (position, None, ""),
            StrategyName::HeadTail(share) => (position, Some(*share), ""),
            StrategyName::Configured(configured) => (position, None, configured.name()),
            StrategyName::External(registered) => (position, None, registered.name()),
        }
    }
}

impl PartialEq for StrategyName {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (StrategyName::Builtin(a), StrategyName::Builtin(b)) => a.spec.name == b.spec.name,
            (StrategyName::HeadTail(a), StrategyName::HeadTail(b)) => a == b,
            (StrategyName::Configured(a), StrategyName::Configured(b)) => a.name() == b.name(),
            (StrategyName::External(a), StrategyName::External(b)) => a.name() == b.name(),
            _ => false,
        }
    }
}

impl Eq for StrategyName {}

impl Hash for StrategyName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            StrategyName::Builtin(builtin) => (0u8, builtin.spec.name).hash(state),
            StrategyName::HeadTail(share) => (1u8, share).hash(state),
            StrategyName::External(registered) => (2u8, registered.name()).hash(state),
            StrategyName::Configured(configured) => (3u8, configured.name()).hash(state),
        }
    }
}

impl PartialOrd for StrategyName {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for StrategyName {
    /// Listing order: by the registry's order, members of the head-share family by head share, registered
    /// strategies last, by name.
    fn cmp(&self, other: &Self) -> Ordering {
        self.order_key().cmp(&other.order_key())
    }
}

impl fmt::Display for StrategyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

impl FromStr for StrategyName {
    type Err = Error;

    /// A fixed name, `head-tail-<ratio>` with a ratio [`HeadShare`] parses, or a fixed name with parameters,
    /// `NAME(key=value,...)` (see [`Configured`]); never a registered strategy's name: those a command resolves
    /// through its registry.
    fn from_str(s: &str) -> Result<Self, Error> {
        if let Some((base, args)) = s.strip_suffix(')').and_then(|s| s.split_once('(')) {
            if base.starts_with(head_tail::PREFIX) {
                return Err(Error::invalid(
                    "strategy",
                    s,
                    "head-tail-<ratio> takes no parameters: its ratio is its head share (head-tail-0.5)",
                ));
            }
            let base: StrategyName = base.parse().map_err(|e| match e {
                Error::InvalidValue { what, reason, .. } => Error::InvalidValue {
                    what,
                    value: s.to_string(),
                    reason,
                },
                other => other,
            })?;
            let StrategyName::Builtin(builtin) = base else {
                unreachable!("a name without parentheses is fixed or head-tail")
            };
            return Configured::new(builtin.spec, args)
                .map(StrategyName::Configured)
                .map_err(|reason| Error::invalid("strategy", s, reason));
        }
        if let Some(ratio) = s.strip_prefix(head_tail::PREFIX) {
            return ratio
                .parse()
                .map(StrategyName::HeadTail)
                .map_err(|_| Error::invalid("strategy", s, HEAD_TAIL_FORMS));
        }
        let fixed = || STRATEGIES.iter().filter_map(|&spec| Builtin::new(spec));
        if let Some(builtin) = fixed().find(|b| b.spec.name == s) {
            return Ok(StrategyName::Builtin(builtin));
        }
        let families = STRATEGIES
            .iter()
            .filter(|spec| Builtin::new(spec).is_none())
            .map(|spec| spec.name);
        let known: Vec<&str> = fixed().map(|b| b.spec.name).chain(families).collect();
        let guess = crate::error::did_you_mean(s, known.iter().copied())
            .map(|name| format!("did you mean {name:?}? "))
            .unwrap_or_default();
        Err(Error::invalid(
            "strategy",
            s,
            format!("{guess}known strategies: {}", known.join(", ")),
        ))
    }
}

/// The names of a comma-separated list (`--strategies a,b`), split at the commas outside parentheses, so that a
/// configured name keeps its own (`reference,weighted(error=5,text=3)` is two names); each name trimmed.
pub fn split_strategy_list(list: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                names.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    names.push(list[start..].trim());
    names
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::budget::BudgetContext;
    use crate::finalize::testing;
    use crate::finalize::{Outcome, STRATEGY_MODULES};

    /// A strategy registered for one command, which runs the reference.
    struct Mine;

    impl RegisteredStrategy for Mine {
        fn name(&self) -> &str {
            "mine"
        }

        fn description(&self) -> &str {
            "the reference, registered"
        }

        fn build(&self) -> Box<dyn Finalizer> {
            StrategyName::REFERENCE.build()
        }
    }

    #[test]
    fn only_a_registered_name_is_external_and_debug_shows_the_name() {
        let mine = StrategyName::External(Registered::new(Arc::new(Mine)));
        assert!(mine.is_external());
        assert_eq!(mine.as_str(), "mine");
        assert_eq!(mine.description(), "the reference, registered");
        assert_eq!(format!("{mine:?}"), r#"External(Registered("mine"))"#);
        for name in StrategyName::all() {
            assert!(!name.is_external(), "{name}");
        }
        assert_eq!(
            format!("{:?}", StrategyName::REFERENCE),
            r#"Builtin(Builtin("reference"))"#
        );
        assert_eq!(
            format!("{:?}", StrategyName::SEND_GUARD),
            r#"Builtin(Builtin("send-guard"))"#
        );
        assert_eq!(
            format!("{:?}", reference::SPEC),
            r#"StrategySpec { name: "reference", family: BatchAllocation, caps: Some(SlotScope { text: true }), gives_up: [], params: [], .. }"#
        );
    }

    #[test]
    fn equal_names_hash_alike_and_different_names_apart() {
        use std::collections::hash_map::DefaultHasher;
        let hash = |name: &StrategyName| {
            let mut h = DefaultHasher::new();
            name.hash(&mut h);
            h.finish()
        };
        let half: StrategyName = "head-tail-0.5".parse().unwrap();
        let also_half: StrategyName = "head-tail-1/2".parse().unwrap();
        assert_eq!(half, also_half);
        assert_eq!(hash(&half), hash(&also_half));
        let mut names = StrategyName::all();
        names.push(StrategyName::External(Registered::new(Arc::new(Mine))));
        let hashes: BTreeSet<u64> = names.iter().map(hash).collect();
        assert_eq!(hashes.len(), names.len(), "two different names hash alike");
    }

    /// The declaration, at the start of a line, that makes a file in `src/finalize/` a strategy.
    const SPEC_DECLARATION: &str = "pub(super) const SPEC: StrategySpec";

    #[test]
    fn every_strategy_file_is_registered_once_and_every_registered_module_is_a_strategy_file() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/finalize");
        let mut declaring = BTreeSet::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "rs")
                && std::fs::read_to_string(&path)
                    .unwrap()
                    .lines()
                    .any(|line| line.starts_with(SPEC_DECLARATION))
            {
                declaring.insert(path.file_stem().unwrap().to_str().unwrap().to_string());
            }
        }
        let registered: BTreeSet<String> = STRATEGY_MODULES.iter().map(|m| m.to_string()).collect();
        assert_eq!(
            registered.len(),
            STRATEGY_MODULES.len(),
            "a module registered twice"
        );
        assert_eq!(
            declaring, registered,
            "files declaring `{SPEC_DECLARATION}` vs the `register!` list in finalize/mod.rs"
        );
        assert!(!registered.is_empty());
    }

    #[test]
    fn the_strategies_tests_know_by_name_are_registered_in_registry_order() {
        let registered: Vec<&str> = STRATEGIES
            .iter()
            .map(|s| s.name)
            .filter(|n| testing::KNOWN_STRATEGIES.contains(n))
            .collect();
        assert_eq!(registered, testing::KNOWN_STRATEGIES);
    }

    #[test]
    fn names_are_unique_and_only_head_tail_is_a_family() {
        let names: BTreeSet<&str> = STRATEGIES.iter().map(|s| s.name).collect();
        assert_eq!(names.len(), STRATEGIES.len());
        let families: Vec<&str> = STRATEGIES
            .iter()
            .filter(|s| matches!(s.build, Build::PerHeadShare { .. }))
            .map(|s| s.name)
            .collect();
        assert_eq!(families, [head_tail::SPEC.name]);
        assert_eq!(
            head_tail::SPEC.name,
            format!("{}<ratio>", head_tail::PREFIX)
        );
        assert!(names
            .iter()
            .all(|n| *n == head_tail::SPEC.name || !n.starts_with(head_tail::PREFIX)));
    }

    #[test]
    fn every_listed_name_round_trips_and_builds_under_its_name() {
        let all = StrategyName::all();
        for s in &all {
            let name = s.as_str();
            assert_eq!(&name.parse::<StrategyName>().unwrap(), s, "{name}");
            assert_eq!(s.build().name(), name);
            assert!(!s.description().is_empty());
        }
        // The registry's order, each family spread into its listed members; the production reference first.
        let names: Vec<String> = all.iter().map(|s| s.to_string()).collect();
        let expected: Vec<String> = STRATEGIES
            .iter()
            .flat_map(|spec| match spec.build {
                Build::One(_) => vec![spec.name.to_string()],
                Build::PerHeadShare { listed, .. } => listed
                    .iter()
                    .map(|share| StrategyName::HeadTail(*share).to_string())
                    .collect(),
            })
            .collect();
        assert_eq!(names, expected);
        assert_eq!(names[..2], ["reference", "send-guard"]);
        let unique: BTreeSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        let mut sorted = all.clone();
        sorted.reverse();
        sorted.sort();
        assert_eq!(sorted, all, "names order in listing order");
        assert!(
            "head-tail-1/3".parse::<StrategyName>().unwrap()
                < StrategyName::HeadTail(HeadShare::new(1, 2).unwrap())
        );
    }

    #[test]
    fn families_and_caps_come_from_the_specs() {
        let by = |f: Family| -> Vec<String> {
            StrategyName::all()
                .iter()
                .filter(|s| s.family() == f)
                .map(|s| s.to_string())
                .collect()
        };
        // Each listed name has its spec's family and cap, and the families keep their promises: a batch
        // allocation caps the whole batch (the send guard its tool fields), a head share too, a policy never.
        for name in StrategyName::all() {
            let spec = name.spec().unwrap();
            assert_eq!(name.family(), spec.family, "{name}");
            assert_eq!(name.caps(), spec.caps, "{name}");
            let promised = match spec.family {
                Family::BatchAllocation if name == StrategyName::SEND_GUARD => {
                    Some(SlotScope::TOOL_FIELDS)
                }
                Family::BatchAllocation | Family::HeadShare | Family::ContentAware => {
                    Some(SlotScope::ALL)
                }
                Family::Policy | Family::External => None,
            };
            assert_eq!(name.caps(), promised, "{name}");
            assert_eq!(
                name.caps_batch(),
                promised == Some(SlotScope::ALL),
                "{name}"
            );
        }
        assert_eq!(
            by(Family::HeadShare),
            ["head-tail-0", "head-tail-0.5", "head-tail-1"]
        );
        assert!(!by(Family::Policy).is_empty());
        assert_eq!(
            by(Family::ContentAware),
            ["line-aware", "salient", "relevance", "rarity", "structure"]
        );
        assert_eq!(
            StrategyName::SEND_GUARD.caps(),
            Some(SlotScope::TOOL_FIELDS)
        );
        assert_eq!("codex".parse::<StrategyName>().unwrap().caps(), None);
    }

    #[test]
    fn head_tail_names_parse_exact_ratios() {
        let ratio = |s: &str| match s.parse::<StrategyName>().unwrap() {
            StrategyName::HeadTail(r) => (r.num, r.den),
            other => panic!("{other}"),
        };
        assert_eq!(ratio("head-tail-0"), (0, 1));
        assert_eq!(ratio("head-tail-0.5"), (1, 2));
        assert_eq!(ratio("head-tail-1.0"), (1, 1));
        assert_eq!(ratio("head-tail-0.25"), (1, 4));
        assert_eq!(ratio("head-tail-1/3"), (1, 3));
        assert_eq!(
            "head-tail-1.0".parse::<StrategyName>().unwrap(),
            "head-tail-1".parse::<StrategyName>().unwrap()
        );
        assert_eq!(
            "head-tail-0.20"
                .parse::<StrategyName>()
                .unwrap()
                .build()
                .name(),
            "head-tail-0.2"
        );
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let e = "fancy".parse::<StrategyName>().unwrap_err().to_string();
        // Every registered name, the head-share family last as its pattern.
        let mut known: Vec<&str> = STRATEGIES
            .iter()
            .map(|s| s.name)
            .filter(|n| *n != head_tail::SPEC.name)
            .collect();
        known.push(head_tail::SPEC.name);
        assert_eq!(
            e,
            format!(
                "invalid strategy \"fancy\": known strategies: {}",
                known.join(", ")
            )
        );
        assert!(e.contains("reference, send-guard, ") && e.ends_with(", head-tail-<ratio>"));
        let e = "head-tail-2"
            .parse::<StrategyName>()
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "invalid strategy \"head-tail-2\": the head-tail ratio must be between 0 and 1, as a decimal \
             (head-tail-0.5) or a fraction (head-tail-1/3)"
        );
        assert!("head-tail-".parse::<StrategyName>().is_err());
    }

    #[test]
    fn params_come_from_the_spec_and_a_head_tail_member_uses_its_ratio() {
        let params =
            |name: &StrategyName| -> Vec<&str> { name.params().iter().map(|p| p.name).collect() };
        let weighted: StrategyName = "weighted".parse().unwrap();
        assert_eq!(params(&weighted), ["output", "error", "text", "head_share"]);
        let defaults: Vec<String> = weighted
            .params()
            .iter()
            .map(|p| weighted.param_default(p))
            .collect();
        assert_eq!(defaults, ["1", "2", "2", "0.2"]);
        assert!(StrategyName::REFERENCE.params().is_empty());
        let mine = StrategyName::External(Registered::new(Arc::new(Mine)));
        assert!(mine.params().is_empty());
        let third: StrategyName = "head-tail-2/6".parse().unwrap();
        assert_eq!(params(&third), ["head_share"]);
        assert_eq!(third.param_default(&third.params()[0]), "1/3");
        assert_eq!(third.params()[0].default_value(), "0.2");
    }

    #[test]
    fn a_list_splits_at_the_commas_outside_parentheses() {
        assert_eq!(
            split_strategy_list(
                "reference, weighted(error=5,text=3),window-relative(preview_chars=500)"
            ),
            [
                "reference",
                "weighted(error=5,text=3)",
                "window-relative(preview_chars=500)"
            ]
        );
        assert_eq!(split_strategy_list("a"), ["a"]);
        assert_eq!(split_strategy_list("a,,b"), ["a", "", "b"]);
        assert_eq!(split_strategy_list(""), [""]);
    }

    #[test]
    fn build_with_passes_the_weights() {
        let config: StrategyConfig =
            serde_json::from_str(r#"{"weights": {"output": 3, "error": 1}}"#).unwrap();
        let mut store = crate::persist::MemoryStore::new("/tmp");
        let batch = vec![testing::output_error_entry(
            "c",
            "shell",
            &"o".repeat(1_000),
            &"e".repeat(1_000),
        )];
        let ctx = BudgetContext::new(crate::Budget::Units(400));
        let lengths = |out: &Outcome| {
            let part = &out.batch[0].response_parts[0];
            [crate::model::Field::Output, crate::model::Field::Error]
                .map(|f| crate::utf16_len(part.field(f).unwrap()))
        };
        let weighted: StrategyName = "weighted".parse().unwrap();
        let out = weighted
            .build_with(&config)
            .finalize(batch.clone(), &ctx, &mut store);
        assert_eq!(lengths(&out), [300, 100]);
        let out = weighted.build().finalize(batch, &ctx, &mut store);
        assert_eq!(lengths(&out), [134, 266]);
    }

    #[test]
    fn build_with_passes_the_parameters() {
        let config: StrategyConfig =
            serde_json::from_str(r#"{"window_relative": {"configured_chars": 3000}}"#).unwrap();
        let mut store = crate::persist::MemoryStore::new("/tmp");
        let batch = vec![testing::output_entry("c", "shell", &"x".repeat(3_001))];
        let ctx = BudgetContext::new(crate::Budget::Unlimited);
        let window_relative: StrategyName = "window-relative".parse().unwrap();
        let out = window_relative
            .build_with(&config)
            .finalize(batch.clone(), &ctx, &mut store);
        assert_eq!(crate::utf16_len(testing::output_of(&out, 0)), 2_000);
        let out = window_relative.build().finalize(batch, &ctx, &mut store);
        assert_eq!(testing::output_of(&out, 0), "x".repeat(3_001));
    }
}
