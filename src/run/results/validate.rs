//! The promises of `results.json` and of the per-batch records, checked when they are read: shares within 0..1,
//! rates that agree with their counts, counts within what they count, one row per scenario, budget and strategy
//! of the inputs. Each check's message names the field (and the row), for the error that refuses the file.

use super::{RunResults, ShardInfo};
use crate::metrics::{
    in_section, Aggregate, AtMost, Figure, Section, StrategyKey, FIGURES, MAX_COUNT,
};
use crate::scenario::MAX_BATCHES;

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
            if info.batches == 0 || info.batches > MAX_BATCHES {
                return Err(at(format!(
                    "batches is {}; a run has 1 to {MAX_BATCHES}",
                    info.batches
                )));
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
pub(super) const SLACK: f64 = 1e-9;

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

/// `Err` unless each count is at most [`MAX_COUNT`], and so are their sums where a figure adds them up.
fn counts(counts: impl IntoIterator<Item = (String, u64)>) -> std::result::Result<(), String> {
    for (field, value) in counts {
        if value > MAX_COUNT {
            return Err(format!(
                "{field} is {value}, over {MAX_COUNT} (2^53), the most a count read back may be"
            ));
        }
    }
    Ok(())
}

/// `Err` unless the sum of `values` (each at most [`MAX_COUNT`]) is at most [`MAX_COUNT`]; the sum otherwise.
fn total(field: &str, values: impl IntoIterator<Item = u64>) -> std::result::Result<u64, String> {
    let sum = values.into_iter().try_fold(0u64, |sum, v| {
        sum.checked_add(v).filter(|&s| s <= MAX_COUNT)
    });
    sum.ok_or_else(|| {
        format!("{field} add up to over {MAX_COUNT} (2^53), the most a count read back may be")
    })
}

/// The counts and sizes of a row, figures and summary, each bounded by [`MAX_COUNT`] (and so are the sums the
/// checks after take), so that no figure read back is nonsense such as 2^64 - 1 or wraps when added up.
fn bounded(row: &Aggregate) -> std::result::Result<(), String> {
    let named = |prefix: &str, pairs: &[(&str, u64)]| -> Vec<(String, u64)> {
        pairs
            .iter()
            .map(|&(field, value)| (format!("{prefix}{field}"), value))
            .collect()
    };
    let c = &row.compliance;
    let n = &row.needles;
    let cost = &row.cost;
    let s = &row.summary;
    let mut all = named(
        "",
        &[
            ("compliance.violations", c.violations),
            ("compliance.maxOvershoot", c.max_overshoot),
            ("compliance.p99Overshoot", c.p99_overshoot),
        ],
    );
    for section in [Section::Persistence, Section::Integrity] {
        all.extend(
            in_section(section)
                .into_iter()
                .filter_map(|f| Some((f.field.to_string(), f.row?(row)))),
        );
    }
    all.push((
        "integrity.recordsDiffer".to_string(),
        row.integrity.records_differ,
    ));
    all.extend(named(
        "",
        &[
            ("cost.medianNs", cost.median_ns),
            ("cost.p99Ns", cost.p99_ns),
            ("cost.strategyMedianNs", cost.strategy_median_ns),
            ("cost.floorMedianNs", cost.floor_median_ns),
        ],
    ));
    all.extend(named(
        "summary.",
        &[
            ("violations", s.violations),
            ("maxOvershoot", s.max_overshoot),
            ("fields", s.fields),
            ("originalUnits", s.original_units),
            ("keptUnits", s.kept_units),
            ("fairnessTurns", s.fairness_turns),
            ("budgetUsedTurns", s.budget_used_turns),
            ("firstLine", s.first_line.1),
            ("lastLine", s.last_line.1),
            ("pathVisible", s.path_visible.1),
            ("needleUpperBound", s.needle_upper_bound),
        ],
    ));
    let totals = |section| {
        in_section(section)
            .into_iter()
            .map(|f| (format!("summary.{}", f.key), (f.total)(s)))
    };
    all.extend(totals(Section::Persistence));
    all.push(("summary.shortenedFields".to_string(), s.shortened_fields));
    all.extend(totals(Section::Shortened));
    all.extend(
        s.integrity
            .iter()
            .map(|&v| ("summary.integrity".to_string(), v)),
    );
    all.extend(
        c.violation_boundaries
            .iter()
            .map(|(b, &v)| (format!("compliance.violationBoundaries.{b}"), v)),
    );
    all.extend(
        s.violation_boundaries
            .iter()
            .map(|(b, &v)| (format!("summary.violationBoundaries.{b}"), v)),
    );
    for (kind, k) in &s.needles {
        let kind = serde_json::to_value(kind).unwrap_or_default();
        let kind = kind.as_str().unwrap_or_default();
        all.push((format!("summary.needles.{kind}.planted"), k.planted));
        all.push((format!("summary.needles.{kind}.survived"), k.survived));
    }
    for (kind, k) in &n.by_kind {
        all.push((format!("needles.byKind.{kind}.planted"), k.planted));
        all.push((format!("needles.byKind.{kind}.survived"), k.survived));
    }
    counts(all)?;
    total(
        "compliance.violationBoundaries",
        c.violation_boundaries.values().copied(),
    )?;
    total(
        "needles.byKind's planted",
        n.by_kind.values().map(|k| k.planted),
    )?;
    Ok(())
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
pub(crate) fn validate_row(row: &Aggregate) -> std::result::Result<(), String> {
    bounded(row)?;
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
    share("retention.unitShare", r.unit_share)?;
    for (field, value) in [
        ("retention.mean", r.mean),
        ("retention.minShare", r.min_share),
        ("retention.fairness", r.fairness),
        ("retention.firstLine", r.first_line),
        ("retention.lastLine", r.last_line),
        ("retention.pathVisibility", r.path_visibility),
        ("persistence.recoverable", row.persistence.recoverable),
    ] {
        if let Some(value) = value {
            share(field, value)?;
        }
    }
    if let Some(used) = r.budget_used {
        non_negative("retention.budgetUsed", used)?;
    }
    let has_fields = row.summary.fields > 0;
    for (field, value) in [
        ("retention.mean", r.mean),
        ("retention.minShare", r.min_share),
        ("retention.fairness", r.fairness),
    ] {
        if value.is_some() != has_fields {
            return Err(format!(
                "{field} is {}, but the row's turns had {} fields (summary.fields): null exactly when none",
                value.map_or("null".to_string(), |v| v.to_string()),
                row.summary.fields
            ));
        }
    }
    if let (Some(min), Some(mean)) = (r.min_share, r.mean) {
        if min > mean + SLACK {
            return Err(format!(
                "retention.minShare is {min}, more than retention.mean ({mean})"
            ));
        }
    }

    let n = &row.needles;
    for (field, value) in [
        ("needles.survival", n.survival),
        ("needles.upperBound", n.upper_bound),
        ("needles.ofPossible", n.of_possible),
    ] {
        if let Some(value) = value {
            share(field, value)?;
        }
    }
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
    match (n.survival, n.upper_bound) {
        (None, None) if planted == 0 => {}
        (Some(survival), Some(_)) if planted > 0 => rate_of(
            "needles.survival",
            survival,
            survived,
            planted,
            &format!("needles.byKind's {survived} survived of {planted} planted"),
        )?,
        _ => {
            return Err(format!(
            "needles.survival and needles.upperBound are null exactly when no needle was planted \
                 (needles.byKind plants {planted})"
        ))
        }
    }
    let of_possible = match (n.survival, n.upper_bound) {
        (Some(s), Some(u)) if u > 0.0 => Some((s / u).min(1.0)),
        _ => None,
    };
    let agrees = match (n.of_possible, of_possible) {
        (Some(a), Some(b)) => (a - b).abs() <= SLACK,
        (a, b) => a.is_none() && b.is_none(),
    };
    if !agrees {
        let show = |v: Option<f64>| v.map_or("null".to_string(), |v| v.to_string());
        return Err(format!(
            "needles.ofPossible is {}, but needles.survival {} over needles.upperBound {} gives {}",
            show(n.of_possible),
            show(n.survival),
            show(n.upper_bound),
            show(of_possible)
        ));
    }

    // A figure bounded by another where the row shows both.
    for f in FIGURES {
        if let (AtMost::Figure(other), Some(value)) = (f.at_most, f.row) {
            if let Some((other, whole)) = Figure::named(other).and_then(|o| Some((o, o.row?))) {
                at_most(f.field, value(row), other.field, whole(row))?;
            }
        }
    }
    at_most(
        "integrity.recordsDiffer",
        row.integrity.records_differ,
        "batches",
        row.batches,
    )?;

    validate_summary(row)?;

    let cost = &row.cost;
    at_most("cost.medianNs", cost.median_ns, "cost.p99Ns", cost.p99_ns)?;
    let s = &row.summary;
    for (field, value, by, count) in [
        (
            "retention.budgetUsed",
            r.budget_used,
            "summary.budgetUsedTurns",
            s.budget_used_turns,
        ),
        (
            "retention.firstLine",
            r.first_line,
            "summary.firstLine",
            s.first_line.1,
        ),
        (
            "retention.lastLine",
            r.last_line,
            "summary.lastLine",
            s.last_line.1,
        ),
        (
            "retention.pathVisibility",
            r.path_visibility,
            "summary.pathVisible",
            s.path_visible.1,
        ),
        (
            "persistence.recoverable",
            row.persistence.recoverable,
            "summary.shortenedFields",
            s.shortened_fields,
        ),
        (
            "cost.floorRatio",
            cost.floor_ratio,
            "cost.summary.floorRatio",
            cost.summary.floor_ratio.count(),
        ),
    ] {
        if value.is_some() != (count > 0) {
            return Err(format!(
                "{field} is {}, but {by} counts {count}: null exactly when it counts none",
                value.map_or("null".to_string(), |v| v.to_string()),
            ));
        }
    }
    if let Some(ratio) = cost.floor_ratio {
        non_negative("cost.floorRatio", ratio)?;
    }
    Ok(())
}

/// The promises of a row's summary: it counts the row's batches, each histogram of every turn holds one value a
/// batch, and no part counts more than its whole.
fn validate_summary(row: &Aggregate) -> std::result::Result<(), String> {
    let s = &row.summary;
    if s.batches != row.batches {
        return Err(format!(
            "summary.batches is {}, but the row has {} batches",
            s.batches, row.batches
        ));
    }
    let c = &row.cost.summary;
    for (field, count) in [
        ("summary.overshoot", s.overshoot.count()),
        ("cost.summary.turnNs", c.turn_ns.count()),
        ("cost.summary.strategyNs", c.strategy_ns.count()),
        ("cost.summary.floorNs", c.floor_ns.count()),
    ] {
        if count != s.batches {
            return Err(format!(
                "{field} holds {count} values, but the row has {} batches",
                s.batches
            ));
        }
    }
    at_most(
        "cost.summary.floorRatio",
        c.floor_ratio.count(),
        "batches",
        s.batches,
    )?;
    at_most("summary.violations", s.violations, "batches", s.batches)?;
    at_most(
        "summary.budgetUsedTurns",
        s.budget_used_turns,
        "batches",
        s.batches,
    )?;
    at_most(
        "summary.keptUnits",
        s.kept_units,
        "summary.originalUnits",
        s.original_units,
    )?;
    at_most(
        "summary.shortenedFields",
        s.shortened_fields,
        "summary.fields",
        s.fields,
    )?;
    for f in FIGURES {
        let whole = match f.at_most {
            AtMost::Any => continue,
            AtMost::Figure(other) => {
                let Some(other) = Figure::named(other) else {
                    continue;
                };
                (format!("summary.{}", other.key), (other.total)(s))
            }
            AtMost::ShortenedFields => ("summary.shortenedFields".into(), s.shortened_fields),
        };
        at_most(
            &format!("summary.{}", f.key),
            (f.total)(s),
            &whole.0,
            whole.1,
        )?;
    }
    for (field, (part, whole)) in [
        ("summary.firstLine", s.first_line),
        ("summary.lastLine", s.last_line),
        ("summary.pathVisible", s.path_visible),
    ] {
        at_most(field, part, "the fields it counts", whole)?;
    }
    s.resamples
        .check()
        .map_err(|m| format!("summary.resamples: {m}"))?;
    Ok(())
}

/// Whether `row`'s figures are the ones its summary gives; the message names the first that is not.
pub(crate) fn agrees_with_summary(row: &Aggregate) -> std::result::Result<(), String> {
    let expected = Aggregate::from_summary(
        row.key(),
        row.mode,
        row.legacy,
        row.budget.unwrap_or(0),
        row.summary.clone(),
        row.cost.summary.clone(),
        row.tokens.as_ref().map(|t| t.summary.clone()),
    );
    if expected == *row {
        return Ok(());
    }
    let (a, b) = (
        serde_json::to_value(row).unwrap_or_default(),
        serde_json::to_value(&expected).unwrap_or_default(),
    );
    let field = first_difference(&a, &b, "");
    Err(format!(
        "{field} is not what its summary gives ({}); the file was edited",
        value_at(&b, &field)
    ))
}

fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> String {
    if let (Some(x), Some(y)) = (a.as_object(), b.as_object()) {
        for (k, v) in x {
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            if y.get(k) != Some(v) {
                return first_difference(v, y.get(k).unwrap_or(&serde_json::Value::Null), &path);
            }
        }
    }
    at.to_string()
}

fn value_at(v: &serde_json::Value, path: &str) -> serde_json::Value {
    path.split('.')
        .filter(|p| !p.is_empty())
        .fold(v.clone(), |v, k| v.get(k).cloned().unwrap_or_default())
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
    // The shares are measured when the turn has a field, and absent (null) when it has none.
    for (field, value) in [
        ("meanKeptShare", m.mean_kept_share),
        ("minKeptShare", m.min_kept_share),
        ("fairness", m.fairness),
    ] {
        match value {
            Some(v) if m.fields > 0 => share(field, v)?,
            None if m.fields == 0 => {}
            Some(v) => return Err(format!("{field} is {v}, but the turn has no field")),
            None => {
                return Err(format!(
                    "{field} is null, but the turn has {} fields",
                    m.fields
                ))
            }
        }
    }
    if let (Some(min), Some(mean)) = (m.min_kept_share, m.mean_kept_share) {
        if min > mean + SLACK {
            return Err(format!(
                "minKeptShare is {min}, more than meanKeptShare ({mean})"
            ));
        }
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
    for f in FIGURES {
        let (whole, other) = match f.at_most {
            AtMost::Any => continue,
            AtMost::Figure(other) => {
                let Some(other) = Figure::named(other) else {
                    continue;
                };
                ((other.turn)(m), Some(other))
            }
            AtMost::ShortenedFields => (m.shortened_fields, None),
        };
        let part = (f.turn)(m);
        if part > whole {
            let name = other.map_or("shortenedFields".into(), Figure::turn_key);
            at_most(&f.turn_key(), part, &name, whole)?;
        }
    }
    if let Some(tokens) = &m.tokens {
        tokens.validate(m.final_total)?;
    }
    Ok(())
}

fn kind_name(kind: &crate::needles::NeedleKind) -> String {
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
