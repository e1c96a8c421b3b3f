//! The answer a report opens with, as text both `summary.md` and `index.html` show: for each scenario and budget,
//! the best strategy that kept the budget in every turn, by how much it leads the next (with its interval, and
//! "tied" where the interval holds zero), and which strategies broke the budget; and the rows of each scenario
//! and budget in ranking order. Pure: results in, strings out.

use crate::metrics::ranking::{self, BudgetRanking, Lead, LeadFigure, Ranked};
use crate::metrics::Aggregate;
use crate::run::RunResults;

use super::export::floor_ratio;

/// At most this many strategies are named in one cell; the rest are counted.
const NAMED: usize = 3;

/// One line of the answer: one scenario at one budget.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AnswerLine {
    /// The scenario.
    pub scenario: String,
    /// The budget in UTF-16 units, and the context window it comes from: `20,000`, `4,800 (16k window)`.
    pub budget: String,
    /// The strategies ranked first (several when tied), or `none kept the budget`.
    pub best: String,
    /// The lead of the last strategy ranked first over the next, with its interval: `+2.1 pp needles over
    /// proportional [+0.8, +3.4]`, or why there is none.
    pub lead: String,
    /// The needle survival of the first of them and the most any allocation could keep: `91.2% of 100%`.
    pub needles: String,
    /// Its retention.
    pub retention: String,
    /// Its time over the floor's.
    pub cost: String,
    /// The strategies over budget with their share of turns over it, or `none`.
    pub broke: String,
    /// Whether no strategy kept the budget.
    pub nobody: bool,
}

/// The answer of `results`: one line per scenario and budget, in the order of the ranking.
pub(crate) fn lines(results: &RunResults) -> Vec<AnswerLine> {
    results.ranking.iter().map(|r| line(results, r)).collect()
}

fn row_of<'a>(results: &'a RunResults, r: &BudgetRanking, strategy: &str) -> Option<&'a Aggregate> {
    results.rows.iter().find(|row| {
        row.scenario == r.scenario
            && row.budget_label == r.budget
            && row.strategy.as_str() == strategy
    })
}

/// `names` joined by `sep`, at most `most` of them, the rest counted as `(+N more)`.
fn named(names: &[String], sep: &str, most: usize) -> String {
    let mut out = names
        .iter()
        .take(most)
        .cloned()
        .collect::<Vec<_>>()
        .join(sep);
    if names.len() > most {
        out.push_str(&format!(" (+{} more)", names.len() - most));
    }
    out
}

/// The budget `label` of `scenario` in UTF-16 units, and the context window it comes from: `20,000`, `4,800 (16k
/// window)`; the label when it has no units.
pub(crate) fn budget_text(
    results: &RunResults,
    scenario: &str,
    label: &crate::scenario::BudgetLabel,
    units: Option<u64>,
) -> String {
    let count = crate::thousands::grouped;
    let window = results
        .inputs
        .scenarios
        .iter()
        .find(|s| s.name == scenario)
        .and_then(|s| s.budgets.iter().find(|b| &b.label == label))
        .and_then(|b| b.window_tokens);
    match (units, window) {
        (Some(units), Some(w)) => format!("{} ({} window)", count(units), tokens_short(w)),
        (Some(units), None) => count(units),
        (None, _) => label.to_string(),
    }
}

fn line(results: &RunResults, r: &BudgetRanking) -> AnswerLine {
    let budget = budget_text(results, &r.scenario, &r.budget, r.units);
    let broke = if r.broke.is_empty() {
        "none".to_string()
    } else {
        let names: Vec<String> = r
            .broke
            .iter()
            .map(|b| format!("{} {}", b.strategy, over_share(b.violation_rate)))
            .collect();
        named(&names, ", ", NAMED)
    };
    let first: Vec<&Ranked> = r.kept.iter().filter(|k| k.rank == 1).collect();
    let Some(top) = first.first() else {
        return AnswerLine {
            scenario: r.scenario.clone(),
            budget,
            best: "none kept the budget".into(),
            lead: "–".into(),
            needles: "–".into(),
            retention: "–".into(),
            cost: "–".into(),
            broke,
            nobody: true,
        };
    };
    let row = row_of(results, r, top.strategy.as_str());
    let names: Vec<String> = first.iter().map(|k| k.strategy.to_string()).collect();
    let best = match names.len() {
        1 => names[0].clone(),
        2 => format!("{} = {} (tied)", names[0], names[1]),
        n => format!("{} = {} (+{} more tied)", names[0], names[1], n - 2),
    };
    // The lead that sets the first apart from the next: of the first of them that leads it for real (ties never
    // chain, so one does), named when it is not the first.
    let lead = match r.kept.get(first.len()) {
        Some(next) => {
            let next_row = row_of(results, r, next.strategy.as_str());
            let leads = first.iter().filter_map(|k| {
                let lead = ranking::lead(row_of(results, r, k.strategy.as_str())?, next_row?);
                Some((k, lead))
            });
            let chosen: Vec<(&&Ranked, Lead)> = leads.collect();
            match chosen.iter().find(|(_, l)| l.real).or(chosen.last()) {
                Some((k, l)) if k.strategy == top.strategy => lead_text(l),
                Some((k, l)) => format!("{}: {}", k.strategy, lead_text(l)),
                None => first[first.len() - 1]
                    .lead
                    .as_ref()
                    .map_or_else(|| "–".into(), lead_text),
            }
        }
        None if r.kept.len() == 1 => "– (the only one in budget)".into(),
        None => "– (all in budget tied)".into(),
    };
    AnswerLine {
        scenario: r.scenario.clone(),
        budget,
        best,
        lead,
        needles: match row {
            Some(row) => needles_words(row.needles.survival, row.needles.upper_bound),
            _ => "–".into(),
        },
        retention: share(top.retention),
        cost: row.map_or_else(|| "–".into(), cost_words),
        broke,
        nobody: false,
    }
}

/// Needles kept against the most any allocation could keep, in plain words: `all kept` (not `100% of 100%`),
/// `90% (all any allocation keeps)`, `91.2% (95% possible)`; `–` where none was planted.
fn needles_words(survival: Option<f64>, bound: Option<f64>) -> String {
    match (survival, bound) {
        (None, _) => "–".into(),
        (Some(s), _) if s >= 1.0 => "all kept".into(),
        (Some(s), Some(b)) if s >= b => format!("{} (all any allocation keeps)", share(Some(s))),
        (Some(s), Some(b)) => format!("{} ({} possible)", share(Some(s)), share(Some(b))),
        (Some(s), None) => share(Some(s)),
    }
}

/// The time over the floor's in plain words: `1.80x`; under 1, what that means rather than a bare ratio. The
/// floor is the least work an exact fit must do, timed beside the strategy: a little under it is the noise of
/// timing (`0.97x, about the floor's`), well under it a strategy that skips work an exact fit does.
fn cost_words(row: &Aggregate) -> String {
    match row.cost.floor_ratio {
        Some(x) if x < 0.9 => format!("{x:.2}x, under the floor: skips work"),
        Some(x) if x < 1.0 => format!("{x:.2}x, about the floor's"),
        _ => floor_ratio(row),
    }
}

/// A context window in tokens, short: `16k`, `200k`, `1M`, `1.5M`.
fn tokens_short(n: u64) -> String {
    let trim = |x: f64| {
        let t = format!("{x:.1}");
        t.strip_suffix(".0").map_or(t.clone(), str::to_string)
    };
    match n {
        n if n >= 1_000_000 => format!("{}M", trim(n as f64 / 1e6)),
        n if n >= 1_000 => format!("{}k", trim(n as f64 / 1e3)),
        n => n.to_string(),
    }
}

/// A share with one decimal, a whole one without: `91.2%`, `100%`; `–` for none.
pub(crate) fn share(x: Option<f64>) -> String {
    match x {
        Some(x) => {
            let t = format!("{:.1}", x * 100.0);
            format!("{}%", t.strip_suffix(".0").unwrap_or(&t))
        }
        None => "–".into(),
    }
}

/// A share of turns over budget: `13%`, `0.4%`, `<0.1%`.
pub(crate) fn over_share(rate: f64) -> String {
    let pct = rate * 100.0;
    if pct >= 10.0 {
        format!("{pct:.0}%")
    } else if pct >= 0.1 {
        format!("{pct:.1}%")
    } else {
        "<0.1%".into()
    }
}

/// A difference of shares in percentage points, signed: `+2.1`, and as many decimals as a small one needs to
/// show it is not zero (`+0.03`, `+0.004`); `+0.0` only for nothing.
fn points(x: f64) -> String {
    let p = x * 100.0;
    // Differences of rounding (below a billionth of a point) are nothing; a small one keeps one significant digit.
    if p.abs() < 1e-9 {
        return "+0.0".into();
    }
    let decimals = (-p.abs().log10().floor()).max(1.0) as usize;
    format!("{p:+.decimals$}")
}

/// A lead and its interval: `+2.1 pp needles over next [+0.8, +3.4]`; `tied: +0.3 pp needles over next [-0.2,
/// +0.9]` when the interval holds zero.
pub(crate) fn lead_text(lead: &Lead) -> String {
    let figure = match lead.figure {
        LeadFigure::Needles => "needles",
        LeadFigure::Retention => "kept per field",
    };
    let interval = lead.interval.map_or_else(
        || " (no interval)".to_string(),
        |[lo, hi]| format!(" [{}, {}]", points(lo), points(hi)),
    );
    format!(
        "{}{} pp {figure} over {}{interval}",
        if lead.real { "" } else { "tied: " },
        points(lead.difference),
        lead.over
    )
}

/// A row of a scenario and budget in ranking order: its rank (`None` over budget) and lead over the next.
pub(crate) struct Placed<'a> {
    /// The rank, from 1; `None` for a strategy over budget.
    pub rank: Option<usize>,
    /// The row.
    pub row: &'a Aggregate,
    /// Its lead over the next strategy ranked.
    pub lead: Option<&'a Lead>,
}

/// The rows of `scenario` at the budget `label`: those that kept the budget in ranking order, then those that
/// broke it, fewest violations first.
pub(crate) fn placed<'a>(
    results: &'a RunResults,
    scenario: &str,
    label: &crate::scenario::BudgetLabel,
) -> Vec<Placed<'a>> {
    let Some(r) = results
        .ranking
        .iter()
        .find(|r| r.scenario == scenario && &r.budget == label)
    else {
        return Vec::new();
    };
    let kept = r.kept.iter().filter_map(|k| {
        row_of(results, r, k.strategy.as_str()).map(|row| Placed {
            rank: Some(k.rank),
            row,
            lead: k.lead.as_ref(),
        })
    });
    let broke = r.broke.iter().filter_map(|b| {
        row_of(results, r, b.strategy.as_str()).map(|row| Placed {
            rank: None,
            row,
            lead: None,
        })
    });
    kept.chain(broke).collect()
}

/// What the answer's columns mean, for the note under it.
pub(crate) const NOTE: &str = "Only strategies that kept the budget in every turn are ranked: by needles kept \
(planted exit lines, first errors, summary lines and JSON keys still visible; the most any allocation of the same \
budget could keep beside it), then by the mean share of each field kept. The lead is the best strategy's figure \
minus the next one's, in percentage points, with its 95% interval from a paired bootstrap over the batches (200 \
resamples, the same batches weighed alike for every strategy). A difference smaller than 0.1 pp counts as no \
difference, and so does one whose interval holds zero: the two are tied and share a rank. Ties do not chain: a \
strategy shares the first rank only when it is tied with every strategy ranked first. Cost / floor: the strategy's own time over the least work any exact finalizer does on the same \
input, timed beside it (the only figure that differs between runs). Strategies over budget are never ranked; the \
share of turns each let over the budget follows its name.";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::StrategyKey;

    fn lead(difference: f64, interval: Option<[f64; 2]>, real: bool) -> Lead {
        Lead {
            over: StrategyKey::from("next"),
            figure: LeadFigure::Needles,
            difference,
            interval,
            real,
        }
    }

    #[test]
    fn leads_read_in_signed_points_and_a_tie_says_so() {
        assert_eq!(
            lead_text(&lead(0.021, Some([0.008, 0.034]), true)),
            "+2.1 pp needles over next [+0.8, +3.4]"
        );
        assert_eq!(
            lead_text(&lead(0.003, Some([-0.002, 0.009]), false)),
            "tied: +0.3 pp needles over next [-0.2, +0.9]"
        );
        assert_eq!(
            lead_text(&lead(0.0, Some([-0.0, 0.0]), false)),
            "tied: +0.0 pp needles over next [+0.0, +0.0]"
        );
        assert_eq!(
            lead_text(&lead(0.01, None, false)),
            "tied: +1.0 pp needles over next (no interval)"
        );
        // A small real lead shows as much as it needs to be seen.
        assert_eq!(
            lead_text(&lead(0.0003, Some([0.00004, 0.0006]), true)),
            "+0.03 pp needles over next [+0.004, +0.06]"
        );
        assert_eq!(
            lead_text(&lead(0.00002, Some([0.0000004, 0.00004]), true)),
            "+0.002 pp needles over next [+0.00004, +0.004]"
        );
        assert_eq!(points(-1e-13), "+0.0");
        assert_eq!(points(-0.0000001), "-0.00001");
    }

    #[test]
    fn needles_and_a_cost_under_the_floor_read_in_plain_words() {
        assert_eq!(needles_words(Some(1.0), Some(1.0)), "all kept");
        assert_eq!(
            needles_words(Some(0.9), Some(0.9)),
            "90% (all any allocation keeps)"
        );
        assert_eq!(
            needles_words(Some(0.912), Some(0.95)),
            "91.2% (95% possible)"
        );
        assert_eq!(needles_words(None, Some(1.0)), "–");
        let strategy = StrategyKey::from("s");
        let key = crate::metrics::RowKey {
            scenario: "s",
            budget: crate::scenario::BudgetLabel::Absolute(1000),
            strategy: &strategy,
        };
        let mut row = Aggregate::from_summary(
            key,
            crate::workload::Mode::Interactive,
            false,
            1000,
            crate::metrics::RowSummary::default(),
            crate::metrics::CostTally::default(),
            None,
        );
        row.cost.floor_ratio = Some(0.85);
        assert_eq!(cost_words(&row), "0.85x, under the floor: skips work");
        row.cost.floor_ratio = Some(0.97);
        assert_eq!(cost_words(&row), "0.97x, about the floor's");
        row.cost.floor_ratio = Some(1.8);
        assert_eq!(cost_words(&row), "1.80x");
        assert!(NOTE.contains("smaller than 0.1 pp"));
        assert_eq!(crate::metrics::ranking::SMALLEST_LEAD, 0.001);
    }

    #[test]
    fn windows_and_shares_read_short() {
        assert_eq!(
            [950, 16_000, 200_000, 1_000_000, 1_500_000].map(tokens_short),
            ["950", "16k", "200k", "1M", "1.5M"]
        );
        assert_eq!(
            [Some(1.0), Some(0.912), Some(0.0), None].map(share),
            ["100%", "91.2%", "0%", "–"]
        );
    }

    #[test]
    fn shares_over_budget_and_long_lists_stay_short() {
        assert_eq!(
            [0.13, 0.04, 0.001, 0.0004].map(over_share),
            ["13%", "4.0%", "0.1%", "<0.1%"]
        );
        let names: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
        assert_eq!(named(&names, ", ", 3), "a, b, c (+2 more)");
        assert_eq!(named(&names[..2], " = ", 2), "a = b");
    }
}
