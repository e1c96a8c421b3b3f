//! Persistence ids: how a batch's call ids become artifact names, unique within the batch.

use std::collections::{BTreeMap, BTreeSet};

/// Assigns persistence ids for one batch, in entry order.
///
/// The id of a call is its call id's last path component (after the last '/', trailing '/' ignored) with NUL
/// replaced by '_'. An id that occurs once among the batch's ids and is not yet used is taken as it is; otherwise
/// `<id>-<k>` with the smallest `k >= 1` that is neither an id of the batch nor already used. An id is used once
/// chosen, whether or not its write then succeeds; `''`, `.` and `..` are invalid and never marked used.
///
/// The batch's ids are kept as one string and a sorted index into it, so preparing a batch takes a fixed number
/// of allocations however many entries it has; only ids actually chosen are stored one by one.
///
/// Assigning is linear in the number of entries, however many share an id: ids only ever become used, so the
/// smallest free suffix of an id never goes down, and each id's search resumes where its last one stopped
/// rather than at 1 (a batch of n entries all with the same call id tries n suffixes in all, not n²/2).
#[derive(Debug, Clone)]
pub struct PersistenceIds {
    /// Every normalised id of the batch, back to back.
    names: String,
    /// The byte range of each id in `names`, sorted by the id's text.
    sorted: Vec<(usize, usize)>,
    used: BTreeSet<String>,
    /// For each id that has needed a suffix: every `k` below this one is taken (a batch id or already used).
    next_suffix: BTreeMap<String, u64>,
    /// Suffixed candidates looked at so far (the tests check that this stays linear in the batch).
    #[cfg(test)]
    tried: u64,
}

/// The normalised id of a call id: last path component, NUL replaced by '_'.
pub fn normalise(call_id: &str) -> String {
    let mut id = String::new();
    push_normalised(&mut id, call_id);
    id
}

/// Appends the normalised id of `call_id` to `out`.
fn push_normalised(out: &mut String, call_id: &str) {
    let trimmed = call_id.trim_end_matches('/');
    let last = trimmed.rsplit('/').next().unwrap_or("");
    for (i, piece) in last.split('\0').enumerate() {
        if i > 0 {
            out.push('_');
        }
        out.push_str(piece);
    }
}

impl PersistenceIds {
    /// Prepares ids for a batch whose entries have these call ids (every entry, shortened or not).
    pub fn new<'a>(call_ids: impl IntoIterator<Item = &'a str>) -> Self {
        let call_ids: Vec<&str> = call_ids.into_iter().collect();
        // A normalised id is never longer than its call id.
        let mut names = String::with_capacity(call_ids.iter().map(|c| c.len()).sum());
        let mut sorted = Vec::with_capacity(call_ids.len());
        for call_id in call_ids {
            let start = names.len();
            push_normalised(&mut names, call_id);
            sorted.push((start, names.len()));
        }
        sorted.sort_unstable_by(|a, b| names[a.0..a.1].cmp(&names[b.0..b.1]));
        PersistenceIds {
            names,
            sorted,
            used: BTreeSet::new(),
            next_suffix: BTreeMap::new(),
            #[cfg(test)]
            tried: 0,
        }
    }

    /// How many of the batch's entries normalise to `id`.
    fn count(&self, id: &str) -> usize {
        let name = |r: &(usize, usize)| &self.names[r.0..r.1];
        let start = self.sorted.partition_point(|r| name(r) < id);
        let end = self.sorted.partition_point(|r| name(r) <= id);
        end - start
    }

    /// The id to persist `call_id` under, or `None` when its normalised id is invalid.
    pub fn assign(&mut self, call_id: &str) -> Option<String> {
        let id = normalise(call_id);
        if !super::is_valid_id(&id) {
            return None;
        }
        let chosen = if self.count(&id) == 1 && !self.used.contains(&id) {
            id
        } else {
            // Every suffix below `from` was taken when this id last searched, and taken ids stay taken.
            let from = self.next_suffix.get(&id).copied().unwrap_or(1);
            let (k, candidate) = (from..)
                .map(|k| (k, format!("{id}-{k}")))
                .find(|(_, candidate)| {
                    #[cfg(test)]
                    {
                        self.tried += 1;
                    }
                    self.count(candidate) == 0 && !self.used.contains(candidate)
                })
                .expect("an unbounded range always yields a free suffix");
            self.next_suffix.insert(id, k + 1);
            candidate
        };
        self.used.insert(chosen.clone());
        Some(chosen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assign_all(ids: &[&str]) -> Vec<Option<String>> {
        let mut p = PersistenceIds::new(ids.iter().copied());
        ids.iter().map(|id| p.assign(id)).collect()
    }

    fn some(ids: &[&str]) -> Vec<Option<String>> {
        ids.iter().map(|s| Some(s.to_string())).collect()
    }

    #[test]
    fn normalises_to_the_last_component() {
        assert_eq!(normalise("dir/call"), "call");
        assert_eq!(normalise("a/b/c/"), "c");
        assert_eq!(normalise("plain"), "plain");
        assert_eq!(normalise("a\0b"), "a_b");
        assert_eq!(normalise("/"), "");
        assert_eq!(normalise("x/.."), "..");
        assert_eq!(normalise("\0a\0\0"), "_a__");
    }

    #[test]
    fn duplicates_get_suffixes() {
        assert_eq!(
            assign_all(&["duplicate", "duplicate"]),
            some(&["duplicate-1", "duplicate-2"])
        );
        assert_eq!(
            assign_all(&["call", "call", "call-1"]),
            some(&["call-2", "call-3", "call-1"])
        );
        assert_eq!(
            assign_all(&["dir/call", "call"]),
            some(&["call-1", "call-2"])
        );
    }

    /// The suffix rule as written, searching from 1 for every id (quadratic): what the cursor must reproduce.
    fn by_the_rule(ids: &[&str]) -> Vec<Option<String>> {
        let batch: Vec<String> = ids.iter().map(|c| normalise(c)).collect();
        let count = |id: &str| batch.iter().filter(|b| b.as_str() == id).count();
        let mut used = BTreeSet::new();
        ids.iter()
            .map(|call_id| {
                let id = normalise(call_id);
                if !crate::persist::is_valid_id(&id) {
                    return None;
                }
                let chosen = if count(&id) == 1 && !used.contains(&id) {
                    id
                } else {
                    (1u64..)
                        .map(|k| format!("{id}-{k}"))
                        .find(|c| count(c) == 0 && !used.contains(c))
                        .unwrap()
                };
                used.insert(chosen.clone());
                Some(chosen)
            })
            .collect()
    }

    #[test]
    fn duplicate_patterns_keep_the_suffix_rule() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["d", "d-2", "d"], &["d-1", "d-2", "d-3"]),
            (&["d", "d", "d-1", "d"], &["d-2", "d-3", "d-1", "d-4"]),
            (&["d-1", "d", "d"], &["d-1", "d-2", "d-3"]),
            (&["d-1", "d-1", "d", "d"], &["d-1-1", "d-1-2", "d-2", "d-3"]),
            (
                &["d", "x/d", "d-3", "d", "d-2"],
                &["d-1", "d-4", "d-3", "d-5", "d-2"],
            ),
            (
                &["d", "e", "d", "e", "d"],
                &["d-1", "e-1", "d-2", "e-2", "d-3"],
            ),
        ];
        for (ids, expected) in cases {
            assert_eq!(assign_all(ids), some(expected), "{ids:?}");
            assert_eq!(by_the_rule(ids), some(expected), "{ids:?}");
        }
        // A thousand copies of one id, with some of its suffixes taken as call ids of their own.
        let mut many = vec!["d"; 1_000];
        many[10] = "d-5";
        many[500] = "d-700";
        let got = assign_all(&many);
        assert_eq!(got, by_the_rule(&many));
        assert_eq!(got[0].as_deref(), Some("d-1"));
        assert_eq!(got[10].as_deref(), Some("d-5"));
        assert_eq!(got[4].as_deref(), Some("d-6"));
        assert_eq!(got[999].as_deref(), Some("d-1000"));
    }

    #[test]
    fn duplicates_cost_linear_work() {
        // 20,000 entries with one call id, a few of its suffixes taken by other entries: each candidate suffix
        // is looked at once in all, so about one try per entry (the search from 1 each time tried 200 million).
        let mut ids = vec!["d"; 20_000];
        ids[3] = "d-7";
        ids[9_000] = "d-15000";
        let mut p = PersistenceIds::new(ids.iter().copied());
        let got: Vec<Option<String>> = ids.iter().map(|id| p.assign(id)).collect();
        assert_eq!(got[19_999].as_deref(), Some("d-20000"));
        assert_eq!(p.tried, 20_000);
    }

    proptest::proptest! {
        #[test]
        fn assigning_matches_the_rule_on_colliding_ids(
            picks in proptest::collection::vec(0usize..12, 0..40)
        ) {
            const VOCABULARY: [&str; 12] =
                ["d", "d-1", "d-2", "d-3", "d-1-1", "a/d", "d/", "e", "e-1", ".", "", "d\0"];
            let ids: Vec<&str> = picks.iter().map(|&i| VOCABULARY[i]).collect();
            proptest::prop_assert_eq!(assign_all(&ids), by_the_rule(&ids));
        }
    }

    #[test]
    fn invalid_ids_are_refused_and_never_used() {
        assert_eq!(
            assign_all(&[".", "..", "", "a/"]),
            vec![None, None, None, Some("a".into())]
        );
    }
}
