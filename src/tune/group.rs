//! The groups a workload's batches fall in, and the split of a workload into tuning and validation sets that
//! never puts one group on both sides.
//!
//! Turns of one session, and sessions of one task (the issue an agent worked on), are alike: a split by batch
//! would validate a setting on the sessions it was tuned on. A recorded batch's group is its session and task,
//! where the batches file records them ([`recorded_group`]); a generated workload's groups are blocks of
//! [`BLOCK`] consecutive batches of its scenario. `--group-by` picks session or task; by default the coarsest
//! the input has (task, then session, then the batch itself).
//!
//! The groups are shuffled with the tune's seed and taken into the validation set until it holds its share of
//! the batches; the tuning set's batches are then shuffled one by one, so that the search's nested samples mix
//! the tuning set's groups. The bootstrap resamples draw whole groups ([`super::score::Paired`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rng::{Seed, Stream};
use crate::run::{Workload, WorkloadSource};

/// Consecutive batches of a generated workload that make one group.
pub const BLOCK: u64 = 8;

/// What `--group-by` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum GroupBy {
    /// The session a batch was recorded in.
    Session,
    /// The task (issue) its session worked on.
    Task,
}

impl GroupBy {
    /// Reads `session` or `task`.
    pub fn parse(text: &str) -> Result<GroupBy> {
        match text.trim() {
            "session" => Ok(GroupBy::Session),
            "task" => Ok(GroupBy::Task),
            _ => Err(Error::invalid(
                "--group-by",
                text,
                "must be session or task",
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            GroupBy::Session => "session",
            GroupBy::Task => "task",
        }
    }
}

/// The group of a recorded batch, as far as its batches file records it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchGroup {
    /// The session it was recorded in.
    pub session: Option<String>,
    /// The task (issue) its session worked on.
    pub task: Option<String>,
}

/// The group of batch `index` of a recorded workload: its session and task, as the batch line's `group` records
/// them (`import` fills it; a line in the plain form has none). This is the one place that reads it.
pub fn recorded_group(workload: &Workload, index: u64) -> Option<BatchGroup> {
    workload.group(index).map(|g| BatchGroup {
        session: Some(g.session),
        task: g.task,
    })
}

/// How a workload was split, as `tune.json` says it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SplitReport {
    /// What a group is: `task`, `session`, `batch` (recorded batches without groups), or `block` (generated
    /// batches, [`BLOCK`] consecutive ones a group).
    pub by: String,
    /// Batches a group (1 for `batch`; the block's size for `block`; absent for sessions and tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<u64>,
    /// Groups in all.
    pub groups: u64,
    /// Groups in the tuning set.
    pub tuning_groups: u64,
    /// Groups in the validation set.
    pub validation_groups: u64,
}

/// Each batch's group ordinal (groups numbered in the order of their keys) and what a group is, for batches
/// whose recorded groups are `groups` (one per batch), grouped `by` (default: the coarsest they all have).
/// Asking for a grouping some batch does not record is refused.
pub fn group_keys(
    groups: &[Option<BatchGroup>],
    by: Option<GroupBy>,
) -> Result<(Vec<u64>, String)> {
    let has = |f: fn(&BatchGroup) -> bool| {
        !groups.is_empty() && groups.iter().all(|g| g.as_ref().is_some_and(f))
    };
    let task = |g: &BatchGroup| g.task.is_some();
    let session = |g: &BatchGroup| g.session.is_some();
    let chosen = match by {
        Some(GroupBy::Task) if has(task) => Some(GroupBy::Task),
        Some(GroupBy::Session) if has(session) => Some(GroupBy::Session),
        Some(asked) => {
            return Err(Error::invalid(
                "--group-by",
                asked.name(),
                format!(
                    "the batches do not all record their {} (import records it where the session log has it)",
                    asked.name()
                ),
            ))
        }
        None if has(task) => Some(GroupBy::Task),
        None if has(session) => Some(GroupBy::Session),
        None => None,
    };
    let Some(chosen) = chosen else {
        return Ok(((0..groups.len() as u64).collect(), "batch".into()));
    };
    let key = |g: &Option<BatchGroup>| -> String {
        let g = g.as_ref().expect("checked above");
        match chosen {
            GroupBy::Task => g.task.clone().unwrap_or_default(),
            GroupBy::Session => g.session.clone().unwrap_or_default(),
        }
    };
    let mut ordinals: BTreeMap<String, u64> = BTreeMap::new();
    for g in groups {
        ordinals.entry(key(g)).or_insert(0);
    }
    for (n, v) in ordinals.values_mut().enumerate() {
        *v = n as u64;
    }
    Ok((
        groups.iter().map(|g| ordinals[&key(g)]).collect(),
        chosen.name().into(),
    ))
}

/// The groups of `workload`'s batches, grouped `by` (see the module).
pub fn workload_groups(
    workload: &Workload,
    by: Option<GroupBy>,
) -> Result<(Vec<u64>, SplitReport)> {
    let n = workload.info.batches;
    if workload.info.source == WorkloadSource::Generated {
        return Ok((
            (0..n).map(|i| i / BLOCK).collect(),
            SplitReport {
                by: "block".into(),
                block: Some(BLOCK),
                ..SplitReport::default()
            },
        ));
    }
    let recorded: Vec<Option<BatchGroup>> = (0..n).map(|i| recorded_group(workload, i)).collect();
    let (keys, by) = group_keys(&recorded, by)?;
    let block = (by == "batch").then_some(1);
    Ok((
        keys,
        SplitReport {
            by,
            block,
            ..SplitReport::default()
        },
    ))
}

/// The batch indices of a workload whose batch `i` is in group `groups[i]`, split into (tuning, validation): the
/// groups in a seeded order go to the validation set until it holds `share` of the batches (rounded; at least
/// one group on each side when there are two), and the tuning batches are then shuffled one by one. `report`
/// gets the group counts.
pub fn split(
    groups: &[u64],
    share: f64,
    seed: Seed,
    workload: &str,
    report: &mut SplitReport,
) -> (Vec<u64>, Vec<u64>) {
    let mut members: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for (i, &g) in groups.iter().enumerate() {
        members.entry(g).or_default().push(i as u64);
    }
    let mut order: Vec<u64> = members.keys().copied().collect();
    let mut stream = Stream::keyed(seed, "tune/split", workload.as_bytes());
    shuffle(&mut order, &mut stream);
    let n = groups.len();
    let target = ((n as f64) * share).round() as usize;
    let mut validation: Vec<u64> = Vec::new();
    let mut taken = 0usize;
    if order.len() >= 2 {
        for &g in &order[..order.len() - 1] {
            if taken > 0 && validation.len() >= target {
                break;
            }
            validation.extend(&members[&g]);
            taken += 1;
        }
    }
    let mut tuning: Vec<u64> = order[taken..]
        .iter()
        .flat_map(|g| members[g].iter().copied())
        .collect();
    tuning.sort_unstable();
    shuffle(&mut tuning, &mut stream);
    report.groups = order.len() as u64;
    report.validation_groups = taken as u64;
    report.tuning_groups = (order.len() - taken) as u64;
    (tuning, validation)
}

/// The most folds of a cross-fitted tune ([`folds`]).
pub const MAX_FOLDS: usize = 5;

/// The folds of a cross-fitted tune of a workload whose batch `i` is in group `groups[i]`: fold 0 is the
/// validation set of [`split`] (same seed, same batches), and the groups [`split`] left for tuning are dealt, in
/// their seeded order, into `round(1 / share) - 1` more folds (at least 1, at most [`MAX_FOLDS`] - 1) of about equal
/// batches. Each fold is a list of batch indices; no group is in two folds. Fold `k`'s tuning set is every batch
/// of the other folds ([`fold_tuning`]).
pub fn folds(groups: &[u64], share: f64, seed: Seed, workload: &str) -> Vec<Vec<u64>> {
    let mut report = SplitReport::default();
    let (tuning, validation) = split(groups, share, seed, workload, &mut report);
    let mut out = vec![validation];
    // The tuning groups in the split's seeded order (the order their first batch takes in the shuffled tuning
    // set), so that the folds are as seeded as the split.
    let mut order: Vec<u64> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for &b in &tuning {
        if seen.insert(groups[b as usize]) {
            order.push(groups[b as usize]);
        }
    }
    let k = ((1.0 / share).round() as usize).clamp(2, MAX_FOLDS) - 1;
    let k = k.min(order.len());
    if k == 0 {
        return out;
    }
    let mut members: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &b in &tuning {
        members.entry(groups[b as usize]).or_default().push(b);
    }
    let mut rest: Vec<Vec<u64>> = vec![Vec::new(); k];
    let mut left = tuning.len();
    let mut fold = 0usize;
    for (i, g) in order.iter().enumerate() {
        let folds_left = k - fold;
        let target = left.div_ceil(folds_left);
        rest[fold].extend(&members[g]);
        // Move on once this fold holds its share of what is left, keeping a group for every later fold.
        if fold + 1 < k && (rest[fold].len() >= target || order.len() - i - 1 == k - fold - 1) {
            left -= rest[fold].len();
            fold += 1;
        }
    }
    for f in &mut rest {
        f.sort_unstable();
    }
    out.extend(rest);
    out
}

/// The tuning set of fold `k` of `folds`: every batch of the other folds, shuffled one by one with a stream
/// of its own (fold 0's is [`split`]'s tuning set itself).
pub fn fold_tuning(
    groups: &[u64],
    share: f64,
    seed: Seed,
    workload: &str,
    folds: &[Vec<u64>],
    k: usize,
) -> Vec<u64> {
    if k == 0 {
        return split(groups, share, seed, workload, &mut SplitReport::default()).0;
    }
    let mut tuning: Vec<u64> = folds
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != k)
        .flat_map(|(_, f)| f.iter().copied())
        .collect();
    tuning.sort_unstable();
    let mut stream = Stream::derive(seed, "tune/fold", k as u64);
    shuffle(&mut tuning, &mut stream);
    tuning
}

/// Fisher-Yates with `stream`.
fn shuffle(items: &mut [u64], stream: &mut Stream) {
    for i in (1..items.len()).rev() {
        let j = stream.below(i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(session: &str, task: Option<&str>) -> Option<BatchGroup> {
        Some(BatchGroup {
            session: Some(session.into()),
            task: task.map(String::from),
        })
    }

    #[test]
    fn the_split_never_puts_a_group_on_both_sides() {
        // 30 batches in sessions of 1 to 4 turns, 3 sessions a task.
        let mut groups = Vec::new();
        for s in 0..12 {
            for _ in 0..(s % 4 + 1) {
                groups.push(group(&format!("s{s}"), Some(&format!("t{}", s / 3))));
            }
        }
        for (by, expected, count) in [
            (None, "task", 4),
            (Some(GroupBy::Task), "task", 4),
            (Some(GroupBy::Session), "session", 12),
        ] {
            let (keys, name) = group_keys(&groups, by).unwrap();
            assert_eq!(name, expected);
            assert_eq!(*keys.iter().max().unwrap() + 1, count);
            for seed in 0..20 {
                let mut report = SplitReport::default();
                let (t, v) = split(&keys, 0.3, Seed(seed), "w", &mut report);
                let side = |i: &u64| keys[*i as usize];
                let tg: std::collections::BTreeSet<u64> = t.iter().map(side).collect();
                let vg: std::collections::BTreeSet<u64> = v.iter().map(side).collect();
                assert!(tg.is_disjoint(&vg), "{by:?} seed {seed}");
                assert!(!t.is_empty() && !v.is_empty());
                assert_eq!(t.len() + v.len(), groups.len());
                assert_eq!(
                    (
                        report.tuning_groups + report.validation_groups,
                        report.groups
                    ),
                    (count, count)
                );
                assert_eq!(report.tuning_groups as usize, tg.len());
            }
        }
    }

    #[test]
    fn without_recorded_groups_each_batch_is_its_own_and_asking_for_one_is_refused() {
        let none = vec![None; 5];
        assert_eq!(
            group_keys(&none, None).unwrap(),
            ((0..5).collect(), "batch".to_string())
        );
        let e = group_keys(&none, Some(GroupBy::Task))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--group-by") && e.contains("task"), "{e}");
        // Sessions everywhere, a task on some: the default is the session.
        let mixed = vec![group("a", Some("t")), group("b", None)];
        assert_eq!(group_keys(&mixed, None).unwrap().1, "session");
        assert!(GroupBy::parse("turn").is_err());
    }

    #[test]
    fn a_batch_split_is_seeded_and_whole() {
        let keys: Vec<u64> = (0..100).collect();
        let mut r = SplitReport::default();
        let (t, v) = split(&keys, 0.3, Seed(1), "w", &mut r);
        assert_eq!((t.len(), v.len()), (70, 30));
        let mut all: Vec<u64> = t.iter().chain(&v).copied().collect();
        all.sort();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
        assert_eq!(
            split(&keys, 0.3, Seed(1), "w", &mut r),
            (t.clone(), v.clone())
        );
        assert_ne!(split(&keys, 0.3, Seed(2), "w", &mut r).1, v);
        assert_eq!(split(&[0], 0.3, Seed(1), "w", &mut r), (vec![0], vec![]));
        assert_eq!(split(&[0, 1], 0.01, Seed(1), "w", &mut r).1.len(), 1);
    }
    #[test]
    fn the_folds_are_the_split_then_the_rest_in_whole_groups() {
        let keys: Vec<u64> = (0..60).map(|b| b / 3).collect();
        for (share, count) in [(0.3, 3), (0.5, 2), (0.05, 5), (0.2, 5)] {
            let f = folds(&keys, share, Seed(4), "w");
            assert_eq!(f.len(), count, "{share}");
            let mut r = SplitReport::default();
            assert_eq!(f[0], split(&keys, share, Seed(4), "w", &mut r).1);
            let mut all: Vec<u64> = f.iter().flatten().copied().collect();
            all.sort();
            assert_eq!(all, (0..60).collect::<Vec<_>>());
            for (i, a) in f.iter().enumerate() {
                assert!(!a.is_empty());
                for b in &f[i + 1..] {
                    assert!(a
                        .iter()
                        .all(|x| b.iter().all(|y| keys[*x as usize] != keys[*y as usize])));
                }
                let t = fold_tuning(&keys, share, Seed(4), "w", &f, i);
                assert_eq!(t.len() + a.len(), 60);
                assert!(t.iter().all(|x| !a.contains(x)));
            }
        }
        // 0.3: the split's 18 batches, then the other 42 in two folds of 21.
        let f = folds(&keys, 0.3, Seed(4), "w");
        assert_eq!(f.iter().map(Vec::len).collect::<Vec<_>>(), [18, 21, 21]);
    }
}
