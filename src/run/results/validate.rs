//! The promises of `results.json` and of the per-batch records, checked when they are read: shares within 0..1,
//! rates that agree with their counts, counts within what they count, one row per scenario, budget and strategy
//! of the inputs. Each check's message names the field (and the row), for the error that refuses the file.

use super::{RunResults, ShardInfo};
use crate::metrics::{Aggregate, StrategyKey};

impl RunResults {
    /// Whether the schema's promises hold; the message names the first that does not, with its field and row.
    pub(super) fn validate(&self) -> std::result::Result<(), String> {
        let inputs = &self.inputs;
        if let Some(shard) = inputs.shard {
            if shard.count == 0 || shard.index >= shard.count {
                return Err(format!(
                    "inputs.shard: shard {}/{} does not exist (the index must be below the count, which is at \
                     least 1)",
                    shard.index, shard.count
                ));
            }
        }
        if inputs.strategies.is_empty() {
            return Err("inputs.strategies: no strategy".into());
        }
        if let Some(tokens) = &inputs.tokens {
            tokens
                .validate()
                .map_err(|m| format!("inputs.tokens.{m}"))?;
        }
        if let Some(name) = first_repeat(inputs.strategies.iter().map(StrategyKey::as_str)) {
            return Err(format!("inputs.strategies: {name} is listed twice"));
        }
        if let Some(name) = first_repeat(inputs.scenarios.iter().map(|s| s.name.as_str())) {
            return Err(format!("inputs.scenarios: {name} is listed twice"));
        }
        for info in &inputs.scenarios {
            let at = |m: String| format!("inputs.scenarios ({}): {m}", info.name);
            if info.batches == 0 {
                return Err(at("batches is 0; a run has at least 1".into()));
            }
            if info.budgets.is_empty() {
                return Err(at("budgets: no budget".into()));
            }
            if let Some(label) = first_repeat(info.budgets.iter().map(|b| b.label)) {
                return Err(at(format!("budgets: {label} is listed twice")));
            }
            if let Some(b) = info.budgets.iter().find(|b| b.units == 0) {
                return Err(at(format!("budgets: {} has 0 units", b.label)));
            }
            if info.digest.len() != 64 || !info.digest.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(at(format!(
                    "digest: {:?} is not a sha256 (64 hex digits)",
                    info.digest
                )));
            }
        }
        let mut seen = std::collections::BTreeMap::new();
        for (i, row) in self.rows.iter().enumerate() {
            let at = |m: String| {
                format!(
                    "row {} (scenario {}, budget {}, strategy {}): {m}",
                    i + 1,
                    row.scenario,
                    row.budget_label,
                    row.strategy
                )
            };
            if let Some(first) = seen.insert(row.key(), i) {
                return Err(at(format!(
                    "the row is there twice (also row {}); a run has one row per scenario, budget and strategy",
                    first + 1
                )));
            }
            let info = inputs
                .scenarios
                .iter()
                .find(|s| s.name == row.scenario)
                .ok_or_else(|| at("scenario: not one of inputs.scenarios".into()))?;
            let budget = info
                .budgets
                .iter()
                .find(|b| b.label == row.budget_label)
                .ok_or_else(|| {
                    at(format!(
                        "budgetLabel: not a budget of scenario {}",
                        info.name
                    ))
                })?;
            if !inputs.strategies.contains(&row.strategy) {
                return Err(at("strategy: not one of inputs.strategies".into()));
            }
            if row.budget != Some(budget.units) {
                return Err(at(format!(
                    "budget is {}, but budget {} of the inputs is {} units",
                    row.budget.map_or("null".into(), |b| b.to_string()),
                    budget.label,
                    budget.units
                )));
            }
            if row.mode != info.mode || row.legacy != info.legacy {
                return Err(at(format!(
                    "mode {}{} differs from the scenario's {}{}",
                    row.mode,
                    if row.legacy { " (legacy)" } else { "" },
                    info.mode,
                    if info.legacy { " (legacy)" } else { "" }
                )));
            }
            let shard = inputs.shard.unwrap_or(ShardInfo { index: 0, count: 1 });
            let expected = crate::generate::Shard {
                index: shard.index,
                count: shard.count,
            }
            .batches(info.batches)
            .count() as u64;
            if row.batches != expected || expected == 0 {
                return Err(at(format!(
                    "batches is {}, but the run made {expected} batches of scenario {}{}",
                    row.batches,
                    info.name,
                    inputs.shard.map_or(String::new(), |s| format!(
                        " in shard {}/{}",
                        s.index, s.count
                    ))
                )));
            }
            validate_row(row).map_err(at)?;
            match (&inputs.tokens, &row.tokens) {
                (Some(settings), Some(t)) => {
                    t.validate(row.batches).map_err(at)?;
                    let token_budget = settings
                        .token_budget
                        .and_then(|b| b.tokens(budget.window_tokens));
                    let leak_window = budget
                        .window_tokens
                        .filter(|_| row.strategy.as_str() == crate::run::WINDOW_RELATIVE);
                    t.validate_settings(token_budget, leak_window).map_err(at)?;
                }
                (None, None) => {}
                (Some(_), None) => {
                    return Err(at(
                        "tokens: absent, but the run counted tokens (inputs.tokens)".into(),
                    ))
                }
                (None, Some(_)) => {
                    return Err(at(
                        "tokens: present, but the run counted none (no inputs.tokens)".into(),
                    ))
                }
            }
        }
        Ok(())
    }
}

/// Slack for the rounding of a computed share or rate.
const SLACK: f64 = 1e-9;

/// `Err` unless `value` is a finite share, 0..1 (with rounding slack).
fn share(field: &str, value: f64) -> std::result::Result<(), String> {
    if value.is_finite() && (-SLACK..=1.0 + SLACK).contains(&value) {
        Ok(())
    } else {
        Err(format!("{field} is {value}, outside 0..1"))
    }
}

/// `Err` unless `value` is finite and at least 0.
fn non_negative(field: &str, value: f64) -> std::result::Result<(), String> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{field} is {value}; it is a finite number of at least 0"
        ))
    }
}

/// `Err` unless `part <= whole`.
fn at_most(field: &str, part: u64, other: &str, whole: u64) -> std::result::Result<(), String> {
    if part <= whole {
        Ok(())
    } else {
        Err(format!("{field} is {part}, more than {other} ({whole})"))
    }
}

/// `Err` unless `value` is `num / den` (1 when `den` is 0), as the aggregation computes it.
fn rate_of(
    field: &str,
    value: f64,
    num: u64,
    den: u64,
    what: &str,
) -> std::result::Result<(), String> {
    let expected = if den == 0 {
        1.0
    } else {
        num as f64 / den as f64
    };
    if (value - expected).abs() <= SLACK {
        Ok(())
    } else {
        Err(format!("{field} is {value}, but {what} give {expected}"))
    }
}

/// The promises of one row of `results.json`; the message names the field.
fn validate_row(row: &Aggregate) -> std::result::Result<(), String> {
    let c = &row.compliance;
    at_most(
        "compliance.violations",
        c.violations,
        "batches",
        row.batches,
    )?;
    share("compliance.rate", c.rate)?;
    rate_of(
        "compliance.rate",
        c.rate,
        row.batches - c.violations,
        row.batches,
        &format!("{} violations in {} batches", c.violations, row.batches),
    )?;
    at_most(
        "compliance.p99Overshoot",
        c.p99_overshoot,
        "compliance.maxOvershoot",
        c.max_overshoot,
    )?;
    if (c.violations == 0) != (c.max_overshoot == 0) {
        return Err(format!(
            "compliance.maxOvershoot is {} with {} violations; a batch over budget overshoots and no other does",
            c.max_overshoot, c.violations
        ));
    }
    at_most(
        "compliance.violationBoundaries",
        c.violation_boundaries.values().sum(),
        "compliance.violations",
        c.violations,
    )?;

    let r = &row.retention;
    for (field, value) in [
        ("retention.mean", r.mean),
        ("retention.unitShare", r.unit_share),
        ("retention.minShare", r.min_share),
        ("retention.fairness", r.fairness),
        ("retention.firstLine", r.first_line),
        ("retention.lastLine", r.last_line),
        ("retention.pathVisibility", r.path_visibility),
    ] {
        share(field, value)?;
    }
    non_negative("retention.budgetUsed", r.budget_used)?;
    if r.min_share > r.mean + SLACK {
        return Err(format!(
            "retention.minShare is {}, more than retention.mean ({})",
            r.min_share, r.mean
        ));
    }

    let n = &row.needles;
    share("needles.survival", n.survival)?;
    share("needles.upperBound", n.upper_bound)?;
    share("needles.ofPossible", n.of_possible)?;
    for (kind, k) in &n.by_kind {
        let field = format!("needles.byKind.{kind}");
        at_most(
            &format!("{field}.survived"),
            k.survived,
            "planted",
            k.planted,
        )?;
        rate_of(
            &format!("{field}.rate"),
            k.rate,
            k.survived,
            k.planted,
            &format!("{} survived of {} planted", k.survived, k.planted),
        )?;
    }
    let planted: u64 = n.by_kind.values().map(|k| k.planted).sum();
    let survived: u64 = n.by_kind.values().map(|k| k.survived).sum();
    rate_of(
        "needles.survival",
        n.survival,
        survived,
        planted,
        &format!("needles.byKind's {survived} survived of {planted} planted"),
    )?;
    let of_possible = if n.upper_bound > 0.0 {
        (n.survival / n.upper_bound).min(1.0)
    } else {
        1.0
    };
    if (n.of_possible - of_possible).abs() > SLACK {
        return Err(format!(
            "needles.ofPossible is {}, but needles.survival {} over needles.upperBound {} gives {of_possible}",
            n.of_possible, n.survival, n.upper_bound
        ));
    }

    let p = &row.persistence;
    at_most(
        "persistence.duplicateWrites",
        p.duplicate_writes,
        "persistence.writes",
        p.writes,
    )?;
    share("persistence.recoverable", p.recoverable)?;
    at_most(
        "integrity.recordsDiffer",
        row.integrity.records_differ,
        "batches",
        row.batches,
    )?;

    let cost = &row.cost;
    at_most("cost.medianNs", cost.median_ns, "cost.p99Ns", cost.p99_ns)?;
    if let Some(ratio) = cost.floor_ratio {
        non_negative("cost.floorRatio", ratio)?;
    }
    Ok(())
}

/// The promises of one per-batch record's metrics; the message names the field.
pub(super) fn validate_metrics(
    m: &crate::metrics::BatchMetrics,
) -> std::result::Result<(), String> {
    if m.within_budget != (m.overshoot == 0) {
        return Err(format!(
            "withinBudget is {} with an overshoot of {}",
            m.within_budget, m.overshoot
        ));
    }
    if let Some(limit) = m.budget {
        let expected = m.final_total.saturating_sub(limit);
        if m.overshoot != expected {
            return Err(format!(
                "overshoot is {}, but finalTotal {} at budget {limit} overshoots by {expected}",
                m.overshoot, m.final_total
            ));
        }
    }
    at_most("shortenedFields", m.shortened_fields, "fields", m.fields)?;
    at_most("keptUnits", m.kept_units, "originalUnits", m.original_units)?;
    share("meanKeptShare", m.mean_kept_share)?;
    share("minKeptShare", m.min_kept_share)?;
    share("fairness", m.fairness)?;
    if m.min_kept_share > m.mean_kept_share + SLACK {
        return Err(format!(
            "minKeptShare is {}, more than meanKeptShare ({})",
            m.min_kept_share, m.mean_kept_share
        ));
    }
    if let Some(used) = m.budget_used {
        non_negative("budgetUsed", used)?;
    }
    for (field, (part, whole)) in [
        ("firstLineKept", m.first_line_kept),
        ("lastLineKept", m.last_line_kept),
        ("pathVisible", m.path_visible),
    ] {
        at_most(field, part, "the fields it counts", whole)?;
    }
    for (kind, c) in &m.needles {
        at_most(
            &format!("needles.{}.survived", kind_name(kind)),
            c.survived,
            "planted",
            c.planted,
        )?;
    }
    let planted: u64 = m.needles.values().map(|c| c.planted).sum();
    at_most(
        "needleUpperBound",
        m.needle_upper_bound,
        "the needles planted",
        planted,
    )?;
    at_most("duplicateWrites", m.duplicate_writes, "writes", m.writes)?;
    at_most(
        "recoverableFields",
        m.recoverable_fields,
        "shortenedFields",
        m.shortened_fields,
    )?;
    at_most(
        "reusedPaths",
        m.reused_paths,
        "shortenedFields",
        m.shortened_fields,
    )?;
    if let Some(tokens) = &m.tokens {
        tokens.validate(m.final_total)?;
    }
    Ok(())
}

fn kind_name(kind: &crate::generate::NeedleKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// The first item that occurs twice.
fn first_repeat<T: Ord + Copy>(items: impl Iterator<Item = T>) -> Option<T> {
    let mut seen = std::collections::BTreeSet::new();
    items.into_iter().find(|&i| !seen.insert(i))
}
