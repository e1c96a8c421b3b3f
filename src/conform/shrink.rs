//! Shrinking: a failing case is cut down to a small counterexample that fails the same check.
//!
//! A delta-debugging loop over the case's parts, each step kept only when the check still fails: drop entries
//! (halves, then quarters, ..., then one at a time), drop parts, shorten each text (to nothing, to either half,
//! to the shortest head and tail that still fail, found by bisection, then by ever smaller runs of characters,
//! always at character boundaries), lower the budget (by halves, then by
//! smaller steps), drop failing writes, the context window and unknown keys, and shorten call ids. It repeats
//! until a whole round changes nothing or the evaluation allowance is spent. Every step makes the case strictly
//! smaller and the order of the steps is fixed, so shrinking terminates and the same case always shrinks to the
//! same counterexample.

use serde::Serialize;

use super::case::Case;
use crate::budget::Budget;
use crate::model::Field;

/// How many times a shrink may evaluate the check, at most.
pub const MAX_EVALUATIONS: usize = 4_000;

/// Texts longer than this many characters are shortened by halves and bisection only, not run by run.
const MAX_RUN_TEXT: usize = 2_048;

/// The size of a case, as reported before and after shrinking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseSize {
    /// Entries of the batch.
    pub entries: usize,
    /// Parts, over all entries.
    pub parts: usize,
    /// UTF-16 units of every text, output and error string.
    pub text_units: u64,
    /// The budget, as `--budget` takes it.
    pub budget: String,
}

impl CaseSize {
    /// The size of `case`.
    pub fn of(case: &Case) -> CaseSize {
        CaseSize {
            entries: case.batch.len(),
            parts: case.batch.iter().map(|e| e.response_parts.len()).sum(),
            text_units: case.text_units(),
            budget: case.budget.to_string(),
        }
    }
}

/// A shrunk case and what it took.
#[derive(Debug, Clone)]
pub struct Shrunk {
    /// The smallest failing case found.
    pub case: Case,
    /// How many times the check was evaluated.
    pub evaluations: usize,
}

/// Shrinks `case`, which `fails`, to a smaller case that still `fails`, evaluating `fails` at most `max` times.
pub fn shrink(case: Case, fails: &dyn Fn(&Case) -> bool, max: usize) -> Shrunk {
    let mut s = Shrinker {
        best: case,
        fails,
        evaluations: 0,
        max,
    };
    loop {
        let before = s.evaluations;
        let mut progress = false;
        progress |= s.drop_entries();
        progress |= s.drop_parts();
        progress |= s.shorten_texts();
        progress |= s.lower_budget();
        progress |= s.simplify();
        if !progress || s.spent() || s.evaluations == before {
            break;
        }
    }
    Shrunk {
        case: s.best,
        evaluations: s.evaluations,
    }
}

struct Shrinker<'a> {
    best: Case,
    fails: &'a dyn Fn(&Case) -> bool,
    evaluations: usize,
    max: usize,
}

impl Shrinker<'_> {
    fn spent(&self) -> bool {
        self.evaluations >= self.max
    }

    /// Keeps `candidate` when it still fails.
    fn try_keep(&mut self, candidate: Case) -> bool {
        if self.spent() {
            return false;
        }
        self.evaluations += 1;
        if (self.fails)(&candidate) {
            self.best = candidate;
            return true;
        }
        false
    }

    /// Drops runs of entries: halves first, then smaller runs, down to single entries.
    fn drop_entries(&mut self) -> bool {
        let mut progress = false;
        let mut chunk = self.best.batch.len().div_ceil(2).max(1);
        loop {
            let mut start = 0;
            while start < self.best.batch.len() && !self.spent() {
                let mut candidate = self.best.clone();
                let end = (start + chunk).min(candidate.batch.len());
                candidate.batch.drain(start..end);
                if self.try_keep(candidate) {
                    progress = true;
                } else {
                    start += chunk;
                }
            }
            if chunk == 1 || self.spent() {
                return progress;
            }
            chunk = chunk.div_ceil(2);
        }
    }

    /// Drops parts one at a time.
    fn drop_parts(&mut self) -> bool {
        let mut progress = false;
        for e in 0..self.best.batch.len() {
            let mut p = 0;
            while e < self.best.batch.len()
                && p < self.best.batch[e].response_parts.len()
                && !self.spent()
            {
                let mut candidate = self.best.clone();
                candidate.batch[e].response_parts.remove(p);
                if self.try_keep(candidate) {
                    progress = true;
                } else {
                    p += 1;
                }
            }
        }
        progress
    }

    /// Shortens every string field: to nothing, to its first or last half, then by dropping ever smaller runs of
    /// characters.
    fn shorten_texts(&mut self) -> bool {
        let mut progress = false;
        let sites: Vec<(usize, usize, Field)> = self
            .best
            .batch
            .iter()
            .enumerate()
            .flat_map(|(e, entry)| {
                entry
                    .response_parts
                    .iter()
                    .enumerate()
                    .flat_map(move |(p, part)| {
                        Field::ALL
                            .into_iter()
                            .filter(|&f| part.field(f).is_some_and(|t| !t.is_empty()))
                            .map(move |f| (e, p, f))
                    })
            })
            .collect();
        for (e, p, field) in sites {
            progress |= self.shorten_text(e, p, field);
        }
        progress
    }

    fn text(&self, e: usize, p: usize, field: Field) -> Vec<char> {
        self.best.batch[e].response_parts[p]
            .field(field)
            .unwrap_or("")
            .chars()
            .collect()
    }

    fn with_text(&self, e: usize, p: usize, field: Field, chars: &[char]) -> Case {
        let mut candidate = self.best.clone();
        if let Some(s) = candidate.batch[e].response_parts[p].field_mut(field) {
            *s = chars.iter().collect();
        }
        candidate
    }

    fn shorten_text(&mut self, e: usize, p: usize, field: Field) -> bool {
        let mut progress = false;
        // Whole halves first: each keeps at most half of what is there.
        loop {
            let chars = self.text(e, p, field);
            let n = chars.len();
            if n == 0 || self.spent() {
                return progress;
            }
            let candidates = [Vec::new(), chars[..n / 2].to_vec(), chars[n / 2..].to_vec()];
            let mut kept = false;
            for c in candidates {
                if c.len() < n && self.try_keep(self.with_text(e, p, field, &c)) {
                    kept = true;
                    progress = true;
                    break;
                }
            }
            if !kept {
                break;
            }
        }
        // Then the shortest head, and the shortest tail, that still fail, found by bisection.
        progress |= self.bisect(e, p, field, true);
        progress |= self.bisect(e, p, field, false);
        // Then runs of characters, from a quarter of the text down to one character, in a text short enough for
        // that to be worth its evaluations.
        let n = self.text(e, p, field).len();
        if n > MAX_RUN_TEXT {
            return progress;
        }
        let mut chunk = (n / 4).max(1);
        loop {
            let mut start = 0;
            while !self.spent() {
                let chars = self.text(e, p, field);
                if start >= chars.len() {
                    break;
                }
                let end = (start + chunk).min(chars.len());
                let candidate: Vec<char> = chars[..start]
                    .iter()
                    .chain(&chars[end..])
                    .copied()
                    .collect();
                if self.try_keep(self.with_text(e, p, field, &candidate)) {
                    progress = true;
                } else {
                    start += chunk;
                }
            }
            if chunk == 1 || self.spent() {
                return progress;
            }
            chunk = chunk.div_ceil(2);
        }
    }

    /// Keeps the shortest head (or tail) of the text that still fails, by bisection over its length in
    /// characters.
    fn bisect(&mut self, e: usize, p: usize, field: Field, head: bool) -> bool {
        let chars = self.text(e, p, field);
        let cut = |len: usize| -> Vec<char> {
            if head {
                chars[..len].to_vec()
            } else {
                chars[chars.len() - len..].to_vec()
            }
        };
        // `hi` characters are known to fail; `lo` characters are not.
        let (mut lo, mut hi) = (0, chars.len());
        let mut progress = false;
        while hi - lo > 1 && !self.spent() {
            let mid = lo + (hi - lo) / 2;
            if self.try_keep(self.with_text(e, p, field, &cut(mid))) {
                hi = mid;
                progress = true;
            } else {
                lo = mid;
            }
        }
        if progress {
            // The kept candidate is the last that failed, which holds `hi` characters.
            debug_assert_eq!(self.text(e, p, field).len(), hi);
        }
        progress
    }

    /// Lowers a finite budget: halves, then smaller and smaller steps down to one unit.
    fn lower_budget(&mut self) -> bool {
        let mut progress = false;
        loop {
            let Budget::Units(b) = self.best.budget else {
                return progress;
            };
            if b <= 1 || self.spent() {
                return progress;
            }
            let mut step = b / 2;
            let mut kept = false;
            while step >= 1 && !self.spent() {
                let mut candidate = self.best.clone();
                candidate.budget = Budget::Units(b - step);
                if self.try_keep(candidate) {
                    kept = true;
                    progress = true;
                    break;
                }
                step /= 2;
            }
            if !kept {
                return progress;
            }
        }
    }

    /// Drops failing writes, the context window and unknown entry keys, and shortens call ids to `c<entry>`.
    fn simplify(&mut self) -> bool {
        let mut progress = false;
        let mut i = 0;
        while i < self.best.fail_ids.len() && !self.spent() {
            let mut candidate = self.best.clone();
            candidate.fail_ids.remove(i);
            if self.try_keep(candidate) {
                progress = true;
            } else {
                i += 1;
            }
        }
        if self.best.context_window_tokens.is_some() {
            let mut candidate = self.best.clone();
            candidate.context_window_tokens = None;
            progress |= self.try_keep(candidate);
        }
        for e in 0..self.best.batch.len() {
            if !self.best.batch[e].extra.is_empty() {
                let mut candidate = self.best.clone();
                candidate.batch[e].extra.clear();
                progress |= self.try_keep(candidate);
            }
            let short = format!("c{e}");
            if self.best.batch[e].call_id.chars().count() > short.len() {
                let mut candidate = self.best.clone();
                candidate.batch[e].call_id = short;
                progress |= self.try_keep(candidate);
            }
        }
        progress
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entry, Part};
    use serde_json::json;

    fn entry(id: &str, output: &str) -> Entry {
        Entry::new(
            id,
            "shell",
            vec![
                Part::text("hook"),
                Part::function_response(id, "shell", Some(json!(output)), None),
            ],
        )
    }

    #[test]
    fn shrinks_to_the_one_entry_and_the_few_characters_that_matter() {
        // Fails while some output holds "XY" and the budget is below 40.
        let batch: Vec<Entry> = (0..12)
            .map(|i| {
                let text = if i == 7 {
                    format!("{}XY{}", "a".repeat(3_000), "b".repeat(2_000))
                } else {
                    "z".repeat(500)
                };
                entry(&format!("call-number-{i}"), &text)
            })
            .collect();
        let case = Case::new("big", batch, Budget::Units(35));
        let fails = |c: &Case| {
            matches!(c.budget, Budget::Units(b) if b < 40)
                && c.batch.iter().any(|e| {
                    e.response_parts
                        .iter()
                        .any(|p| p.field(Field::Output).is_some_and(|o| o.contains("XY")))
                })
        };
        let shrunk = shrink(case, &fails, MAX_EVALUATIONS);
        let size = CaseSize::of(&shrunk.case);
        assert_eq!(
            size,
            CaseSize {
                entries: 1,
                parts: 1,
                text_units: 2,
                budget: "1".into()
            }
        );
        assert_eq!(shrunk.case.batch[0].call_id, "c0");
        assert!(shrunk.evaluations < MAX_EVALUATIONS);
        // The same case shrinks the same way.
        let again = shrink(
            Case::new("big", shrunk.case.batch.clone(), Budget::Units(1)),
            &fails,
            10,
        );
        assert_eq!(again.case.batch, shrunk.case.batch);
    }

    #[test]
    fn the_allowance_bounds_the_work() {
        let batch = vec![entry("c", &"q".repeat(10_000))];
        let case = Case::new("any", batch, Budget::Units(5));
        let count = std::cell::Cell::new(0);
        let fails = |_: &Case| {
            count.set(count.get() + 1);
            false
        };
        let shrunk = shrink(case.clone(), &fails, 25);
        assert!(shrunk.evaluations <= 25 && count.get() == shrunk.evaluations);
        assert_eq!(shrunk.case, case, "nothing kept when nothing fails");
    }
}
