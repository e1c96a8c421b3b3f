//! The settings `tune` tries: for each tunable family (a built-in strategy with a searched parameter, see
//! [`Search`](crate::finalize::Search)), points of the grid its parameters' search values span, named as a
//! strategy `run --strategies` takes (`weighted(output=1,error=4,text=2,head_share=0.3)`, `head-tail-0.65`).
//!
//! A family whose grid is small gets every point; a larger one a seeded sample of distinct points. Every family
//! gets its unconfigured form (its defaults, under its plain name), and the reference is always the first
//! candidate: what every gain is measured against, and what is left when nothing beats it.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::finalize::{Search, StrategyName};
use crate::rng::{Seed, Stream};

/// How many settings `tune` tries when not told.
pub const DEFAULT_SETTINGS: usize = 240;

/// The most settings `tune` may be asked to try.
pub const MAX_SETTINGS: usize = 20_000;

/// The head-share family's name: its settings are spelled `head-tail-<ratio>`, not `name(key=value)`.
const HEAD_TAIL: &str = "head-tail-<ratio>";

/// One setting to try.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The strategy, configured.
    pub name: StrategyName,
    /// Its family: the base strategy's name (`head-tail-<ratio>` for the head-share family).
    pub family: String,
}

/// A tunable family: the strategy its unconfigured form is, and each searched parameter's name and values.
#[derive(Debug, Clone)]
pub struct Family {
    /// The family's name as `strategies` lists it.
    pub name: String,
    /// The plain strategy (its default settings).
    pub plain: StrategyName,
    /// Each searched parameter: its name and the values tried.
    pub params: Vec<(&'static str, Vec<String>)>,
}

impl Family {
    /// How many points the grid has (saturating).
    pub fn grid_size(&self) -> u64 {
        self.params
            .iter()
            .fold(1u64, |n, (_, values)| n.saturating_mul(values.len() as u64))
    }

    /// The setting at grid point `index` (each parameter's value chosen by one mixed-radix digit of `index`).
    fn point(&self, index: u64) -> Result<StrategyName> {
        let mut rest = index;
        let mut set = Vec::with_capacity(self.params.len());
        for (name, values) in &self.params {
            let n = values.len() as u64;
            set.push((*name, values[(rest % n) as usize].as_str()));
            rest /= n;
        }
        let text = match self.name.as_str() {
            HEAD_TAIL => format!("head-tail-{}", set[0].1),
            _ => format!(
                "{}({})",
                self.name,
                set.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        };
        text.parse()
    }
}

/// Every tunable family, in listing order: each built-in strategy with at least one searched parameter.
pub fn tunable() -> Vec<Family> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for strategy in StrategyName::all() {
        let name = match &strategy {
            StrategyName::HeadTail(_) => HEAD_TAIL.to_string(),
            other => other.as_str().into_owned(),
        };
        if !seen.insert(name.clone()) {
            continue;
        }
        let params: Vec<(&'static str, Vec<String>)> = strategy
            .params()
            .iter()
            .filter(|p| !matches!(p.search, Search::Fact))
            .map(|p| (p.name, p.search.values()))
            .filter(|(_, values)| !values.is_empty())
            .collect();
        if params.is_empty() {
            continue;
        }
        let plain = match strategy {
            StrategyName::HeadTail(_) => StrategyName::REFERENCE,
            other => other,
        };
        out.push(Family {
            name,
            plain,
            params,
        });
    }
    out
}

/// The families named in `wanted` (all tunable ones when empty); an unknown or untunable name is refused,
/// naming the tunable ones.
pub fn families(wanted: &[String]) -> Result<Vec<Family>> {
    let all = tunable();
    if wanted.is_empty() {
        return Ok(all);
    }
    let names = || {
        all.iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out: Vec<Family> = Vec::new();
    for w in wanted {
        let w = w.trim();
        let key = if w == "head-tail" { HEAD_TAIL } else { w };
        match all.iter().find(|f| f.name == key) {
            Some(f) if !out.iter().any(|o| o.name == f.name) => out.push(f.clone()),
            Some(_) => {}
            None => {
                return Err(Error::invalid(
                    "--families",
                    w,
                    format!("not a tunable family; tunable: {}", names()),
                ))
            }
        }
    }
    Ok(out)
}

/// The candidates: the reference first, then for each family its plain form and grid points, `settings` in all
/// (at least one per family and the reference), shared as evenly as the grids allow; a grid with fewer points
/// than its share gives the rest to the others. Sampled points come from `seed`, so the same request tries the
/// same settings.
pub fn candidates(families: &[Family], settings: usize, seed: Seed) -> Result<Vec<Candidate>> {
    if settings < 1 + families.len() || settings > MAX_SETTINGS {
        return Err(Error::invalid(
            "--settings",
            settings.to_string(),
            format!(
                "must be from {} (the reference and one per family) to {MAX_SETTINGS}",
                1 + families.len()
            ),
        ));
    }
    // Shares: the smallest grids first take what they hold, the rest is split among the larger ones.
    let mut order: Vec<usize> = (0..families.len()).collect();
    order.sort_by_key(|&i| (families[i].grid_size(), i));
    let mut left = settings - 1;
    let mut share = vec![0usize; families.len()];
    for (k, &i) in order.iter().enumerate() {
        let even = left / (families.len() - k);
        // The plain form is one of the family's settings, beside its grid's points.
        let plain = u64::from(families[i].plain.as_str() != StrategyName::REFERENCE.as_str());
        let take = (families[i].grid_size().saturating_add(plain)).min(even as u64) as usize;
        share[i] = take.max(1);
        left = left.saturating_sub(share[i]);
    }
    let mut out = vec![Candidate {
        name: StrategyName::REFERENCE,
        family: "reference".into(),
    }];
    let mut seen: BTreeSet<String> = BTreeSet::new();
    seen.insert(StrategyName::REFERENCE.as_str().into_owned());
    for (i, family) in families.iter().enumerate() {
        // The head-share family's plain form is the reference itself, already first.
        let mut names: Vec<StrategyName> = Vec::new();
        if seen.insert(family.plain.as_str().into_owned()) {
            names.push(family.plain.clone());
        }
        let grid = family.grid_size();
        // Grid points in a seeded order: every point when the grid is no larger than the share, else
        // distinct points drawn until the share is filled. A point whose values contradict each other (a
        // preview longer than its trigger) is not a setting and is passed over.
        let mut stream = Stream::keyed(seed, "tune/space", family.name.as_bytes());
        let mut picked = BTreeSet::new();
        let mut next = 0u64;
        while names.len() < share[i] && (picked.len() as u64) < grid {
            let p = if (share[i] as u64) >= grid {
                next += 1;
                next - 1
            } else {
                stream.below(grid)
            };
            if !picked.insert(p) {
                continue;
            }
            let Ok(name) = family.point(p) else { continue };
            if seen.insert(name.as_str().into_owned()) {
                names.push(name);
            }
        }
        out.extend(names.into_iter().map(|name| Candidate {
            name,
            family: family.name.clone(),
        }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tunable_families_are_the_strategies_with_searched_parameters() {
        // The strategies registered when this was written; one registered since is held by the others' rules.
        let names: Vec<String> = tunable()
            .into_iter()
            .map(|f| f.name)
            .filter(|n| crate::finalize::KNOWN_STRATEGIES.contains(&n.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                "proportional",
                "uniform",
                "greedy",
                "weighted",
                "line-aware",
                "head-tail-<ratio>",
                "legacy-layers",
                "window-relative",
                "claude-code",
                "salient",
                "relevance",
                "rarity",
                "structure"
            ]
        );
    }

    #[test]
    fn candidates_are_distinct_seeded_and_hold_every_plain_form() {
        let fams = families(&[]).unwrap();
        let a = candidates(&fams, 240, Seed(7)).unwrap();
        let b = candidates(&fams, 240, Seed(7)).unwrap();
        let names = |c: &[Candidate]| -> Vec<String> {
            c.iter().map(|c| c.name.as_str().into_owned()).collect()
        };
        assert_eq!(names(&a), names(&b));
        assert_eq!(a.len(), 240);
        let distinct: BTreeSet<String> = names(&a).into_iter().collect();
        assert_eq!(distinct.len(), 240);
        assert_eq!(a[0].name.as_str(), "reference");
        for f in &fams {
            assert!(
                a.iter().any(|c| c.name.as_str() == f.plain.as_str()),
                "{}",
                f.name
            );
        }
        // With room for every family's even share, the head-share family's 21 shares fit within its share: every
        // one is tried (its plain form is the reference, first).
        let wide = candidates(&fams, 30 * fams.len(), Seed(7)).unwrap();
        let head: Vec<_> = wide
            .iter()
            .filter(|c| c.family == "head-tail-<ratio>")
            .collect();
        assert_eq!(head.len(), 21);
        let other = candidates(&fams, 240, Seed(8)).unwrap();
        assert_ne!(
            names(&a),
            names(&other),
            "another seed samples other points"
        );
    }

    #[test]
    fn a_bad_family_or_count_is_refused_with_the_choices() {
        let e = families(&["nope".into()]).unwrap_err().to_string();
        assert!(e.contains("tunable: proportional, uniform"), "{e}");
        let e = families(&["gemini-cli".into()]).unwrap_err().to_string();
        assert!(e.contains("not a tunable family"), "{e}");
        let fams = families(&["weighted".into(), "head-tail".into()]).unwrap();
        assert_eq!(fams.len(), 2);
        let e = candidates(&fams, 2, Seed(0)).unwrap_err().to_string();
        assert!(e.contains("must be from 3"), "{e}");
        let c = candidates(&fams, 3, Seed(0)).unwrap();
        let names: Vec<_> = c.iter().map(|c| c.name.as_str().into_owned()).collect();
        assert_eq!(names.len(), 3);
        assert_eq!(names[..2], ["reference", "weighted"]);
        assert!(names[2].starts_with("head-tail-"), "{names:?}");
    }
}
