//! The page of a tune's folder: what to paste into `run --strategies`, the charts, and every budget's
//! finalists with how the search went.

use std::fmt::Write as _;

use super::{contents, escape, figures, foot_saying, head, named_once, num, prose};
use crate::report::chart::Rendered;

/// A share as a percentage with one decimal, `–` when absent.
fn share(x: Option<f64>) -> String {
    x.map_or("\u{2013}".into(), |x| format!("{:.1}%", x * 100.0))
}

/// A gain and its interval: `+50.0 pts (95% interval +50.0 to +50.0 pts)`.
fn gain_text(v: &crate::tune::Validated) -> String {
    use crate::tune::signed_points;
    match (v.gain, v.gain_interval) {
        (Some(g), Some([lo, hi])) => format!(
            "{} (95% interval {} to {})",
            signed_points(g),
            signed_points(lo),
            signed_points(hi)
        ),
        (Some(g), None) => signed_points(g),
        _ => "\u{2013}".into(),
    }
}

/// The gain the recommendation rests on: the cross-fitted one ([`crate::tune::CrossFit::summary`]); for a file
/// written before cross-fitting, the chosen setting's gain on the validation set, or nothing.
fn cross_gain_text(c: &crate::tune::CellTune) -> String {
    match &c.cross_fit {
        Some(cross) => cross.summary(),
        None => c
            .finalists
            .iter()
            .find(|v| !v.reference && v.strategy == c.recommendation.strategy)
            .map_or_else(|| "\u{2013}".into(), gain_text),
    }
}

/// The cross-fitted check of one budget as a table: per held-out fold, the family its search chose, its setting,
/// what it was measured on and its gain over the reference there. Empty for a file written before cross-fitting.
fn folds_table(c: &crate::tune::CellTune) -> String {
    let Some(cross) = &c.cross_fit else {
        return String::new();
    };
    let mut out = String::from(
        "<div class=\"scroll\"><table class=\"rows tune\">\n<thead><tr><th>held-out fold</th>\
<th class=\"text\">family its search chose</th><th class=\"text\">its setting at this budget</th><th>batches</th>\
<th>groups</th><th>gain over the reference</th><th class=\"text\">contract and constraints</th></tr></thead>\n<tbody>",
    );
    for (k, f) in cross.folds.iter().enumerate() {
        let _ = writeln!(
            out,
            "<tr><td>{}{}</td><td class=\"text\">{}</td><td class=\"text\"><code>{}</code></td>{}{}{}\
<td class=\"text{}\">{}</td></tr>",
            k + 1,
            if k == 0 { " (validation)" } else { "" },
            escape(f.family.as_deref().unwrap_or("none")),
            escape(f.strategy.as_deref().unwrap_or("\u{2013}")),
            num("", &f.batches.to_string(), Some(f.batches as f64)),
            num("", &f.groups.to_string(), Some(f.groups as f64)),
            num(
                "",
                &f.gain.map_or("\u{2013}".into(), crate::tune::signed_points),
                f.gain
            ),
            if f.breaks.is_empty() { "" } else { " bad" },
            escape(&if f.breaks.is_empty() {
                "kept".to_string()
            } else {
                crate::tune::contract(&f.breaks)
            }),
        );
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// The page of a tune's folder: first, per workload and budget, what to paste into `run --strategies`, with the
/// validation figures and the gain's interval, saying plainly when the gain does not hold; then the charts; then
/// every budget's finalists and how the search went.
pub fn tune_page(tune: &crate::tune::TuneResults, charts: &[Rendered]) -> String {
    let mut out = String::with_capacity(32 * 1024);
    head(&mut out, "budgetlab tune");
    out.push_str("<h1>budgetlab tune</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"meta\">budgetlab {} · {} · seed {} · {} settings per budget from {} · {:.0}% of each workload's \
batches held out for validation</p>",
        escape(&tune.crate_version),
        escape(&tune.format),
        tune.seed,
        tune.settings,
        escape(&tune.families.join(", ")),
        tune.validation_share * 100.0
    );
    let mut limits = String::new();
    if let Some(w) = tune.constraints.max_writes_per_turn {
        let _ = write!(limits, ", at most {w} artifact writes per turn");
    }
    if let Some(c) = tune.constraints.max_cost_ratio {
        let _ = write!(limits, ", at most {c}x the floor's time");
    }
    let _ = writeln!(
        out,
        "<p>Objective: maximise <b>{}</b>, with every turn within budget{}.</p>",
        escape(&tune.objective_text),
        escape(&limits)
    );
    contents(
        &mut out,
        &[
            ("paste", "What to run"),
            ("charts", "Charts"),
            ("finalists", "Finalists"),
        ],
        charts,
    );
    out.push_str("<h2 id=\"paste\">What to paste into <code>run --strategies</code></h2>\n");
    // A configured strategy's name has no space to break at: let the text cells of the page's tables break inside
    // one, so that they fit a laptop's width instead of pushing the last columns out of sight.
    out.push_str(
        "<style>table.tune td.text { white-space: normal; overflow-wrap: anywhere; min-width: 6em; }</style>\n",
    );
    out.push_str(
        "<div class=\"scroll\"><table class=\"answer tune\">\n<tr><th>workload</th><th class=\"text\">budget (units)</th>\
<th class=\"text\">paste</th><th class=\"text\">does it beat the reference on held-out batches?</th>\
<th>objective on validation</th><th>the reference's</th><th class=\"text\">gain over the reference on the held-out \
folds (95% interval)</th><th>time / floor</th></tr>\n",
    );
    let mut last = None;
    for w in &tune.workloads {
        for c in &w.cells {
            let rec = &c.recommendation;
            let reference = c.finalists.iter().find(|v| v.reference);
            let chosen = c.finalists.iter().find(|v| v.strategy == rec.strategy);
            let verdict = if rec.beats_reference {
                format!("Yes: {}.", rec.note)
            } else {
                format!("No, keep the reference: {}.", rec.note)
            };
            // Keeping the reference is an answer, not a fault: the cell is styled as text, never as an error.
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"text\">{} ({})</td><td class=\"text best\"><code>{}</code></td>\
<td class=\"text verdict\">{}</td><td>{}</td><td>{}</td><td class=\"text\">{}</td><td>{}</td></tr>",
                named_once(&mut last, &w.name),
                escape(&c.budget),
                c.units,
                escape(&rec.strategy),
                prose(&verdict),
                share(chosen.and_then(|v| v.validation.objective)),
                share(reference.and_then(|v| v.validation.objective)),
                escape(&cross_gain_text(c)),
                escape(&crate::tune::ratio(rec.cost_ratio)),
            );
        }
    }
    out.push_str("</table></div>\n");
    for w in &tune.workloads {
        let mut names: Vec<&str> = vec!["reference"];
        for c in &w.cells {
            if !names.contains(&c.recommendation.strategy.as_str()) {
                names.push(&c.recommendation.strategy);
            }
        }
        let _ = writeln!(
            out,
            "<p>{}: <code>--strategies {}</code> ({} batches: {} tuned on, {} held out; split by {}, {} groups: {} \
tuned on, {} held out, none on both sides)</p>",
            escape(&w.name),
            escape(&names.join(",")),
            w.batches,
            w.tuning,
            w.validation,
            escape(&w.split.by),
            w.split.groups,
            w.split.tuning_groups,
            w.split.validation_groups
        );
    }
    out.push_str(
        "<p class=\"note\">The batches are split by group (a group is never on both sides) into folds; fold 1 is the \
validation set, and for each fold a search on the others chooses a family (the one gaining most over the budgets) and \
its best setting at each budget. A setting is recommended only when it keeps the design's contract (the budget in every \
turn, every cut output recoverable from its artifact, nothing exempt changed) and the constraints on every held-out \
fold, every fold's search chose its family, its gain over the reference is above 0 on every held-out fold, the low \
end of the 95% paired bootstrap interval of the gain pooled over the held-out folds is above 0, and its family wins \
in at least 4 of 5 resamples of the tuning set; otherwise the reference is kept, and the row says why. The \
objective counts needles and used tokens in the results longer than the budget, where a setting can differ. The time \
over the floor's is wall-clock and varies between runs; everything else is the same for the same seed on any number \
of threads.</p>\n",
    );
    out.push_str("<h2 id=\"charts\">Charts</h2>\n");
    figures(&mut out, charts);
    out.push_str("<h2 id=\"finalists\">Finalists</h2>\n");
    for w in &tune.workloads {
        for c in &w.cells {
            let _ = writeln!(
                out,
                "<h3>{} · {} ({} units)</h3>\n<div class=\"scroll\"><table class=\"sortable rows tune\">\n<thead><tr>\
<th class=\"text\">setting</th><th>place on tuning</th><th>objective on tuning</th><th>objective on validation</th>\
<th class=\"text\">gain on validation (95% interval)</th><th>needles, all results</th><th>kept per field</th>\
<th>writes / turn</th><th>time / floor</th><th class=\"text\">contract and constraints</th></tr></thead>\n<tbody>",
                escape(&w.name),
                escape(&c.budget),
                c.units
            );
            for v in &c.finalists {
                let _ = writeln!(
                    out,
                    "<tr{}><td class=\"text\"><code>{}</code>{}</td>{}{}{}<td class=\"text\">{}</td>{}{}{}{}\
<td class=\"text{}\">{}</td></tr>",
                    if v.reference { " class=\"baseline\"" } else { "" },
                    escape(&v.strategy),
                    if v.strategy == c.recommendation.strategy {
                        " (recommended)"
                    } else if v.reference {
                        " (reference)"
                    } else {
                        ""
                    },
                    num(
                        "",
                        &v.tuning_rank.map_or("\u{2013}".into(), |r| (r + 1).to_string()),
                        v.tuning_rank.map(|r| r as f64)
                    ),
                    num("", &share(v.tuning.objective), v.tuning.objective),
                    num("", &share(v.validation.objective), v.validation.objective),
                    escape(&gain_text(v)),
                    num("", &share(v.validation.needles), v.validation.needles),
                    num("", &share(v.validation.retention), v.validation.retention),
                    num(
                        "",
                        &v.validation
                            .writes_per_turn
                            .map_or("\u{2013}".into(), |w| format!("{w:.2}")),
                        v.validation.writes_per_turn
                    ),
                    num(
                        "",
                        &v.cost_ratio.map_or("\u{2013}".into(), |r| format!("{r:.2}x")),
                        v.cost_ratio
                    ),
                    if v.meets_constraints { "" } else { " bad" },
                    escape(&if !v.validation.breaks.is_empty() {
                        crate::tune::contract(&v.validation.breaks)
                    } else if v.meets_constraints {
                        "kept, met".to_string()
                    } else {
                        "kept; constraints not met".to_string()
                    }),
                );
            }
            let steps: Vec<String> = c.rungs.iter().map(|r| r.step_text()).collect();
            let _ = writeln!(
                out,
                "</tbody></table></div>\n<p class=\"note\">The search: {}; {}; then the finalists and the reference on \
the {} validation batches. {}Every setting's figures on every rung are in <code>tune.json</code>.</p>",
                escape(&steps.join(", then ")),
                escape(&c.search.note),
                w.validation,
                crate::tune::validation_n(c).map_or(String::new(), |n| escape(&n) + " ")
            );
            let folds = folds_table(c);
            if !folds.is_empty() {
                let _ = writeln!(
                    out,
                    "<p>The cross-fitted check at this budget: {}.</p>\n{folds}",
                    escape(&cross_gain_text(c))
                );
            }
        }
    }
    foot_saying(
        &mut out,
        &tune.crate_version,
        " <code>tune.json</code> holds every setting evaluated; <code>summary.md</code> the same summary as text.",
    );
    out
}
