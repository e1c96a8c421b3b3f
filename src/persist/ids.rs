//! Persistence ids: how a batch's call ids become artifact names, unique within the batch.

use std::collections::BTreeSet;

/// Assigns persistence ids for one batch, in entry order.
///
/// The id of a call is its call id's last path component (after the last '/', trailing '/' ignored) with NUL
/// replaced by '_'. An id that occurs once among the batch's ids and is not yet used is taken as it is; otherwise
/// `<id>-<k>` with the smallest `k >= 1` that is neither an id of the batch nor already used. An id is used once
/// chosen, whether or not its write then succeeds; `''`, `.` and `..` are invalid and never marked used.
///
/// The batch's ids are kept as one string and a sorted index into it, so preparing a batch takes a fixed number
/// of allocations however many entries it has; only ids actually chosen are stored one by one.
#[derive(Debug, Clone)]
pub struct PersistenceIds {
    /// Every normalised id of the batch, back to back.
    names: String,
    /// The byte range of each id in `names`, sorted by the id's text.
    sorted: Vec<(usize, usize)>,
    used: BTreeSet<String>,
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
            (1u64..)
                .map(|k| format!("{id}-{k}"))
                .find(|candidate| self.count(candidate) == 0 && !self.used.contains(candidate))
                .expect("an unbounded range always yields a free suffix")
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

    #[test]
    fn invalid_ids_are_refused_and_never_used() {
        assert_eq!(
            assign_all(&[".", "..", "", "a/"]),
            vec![None, None, None, Some("a".into())]
        );
    }
}
