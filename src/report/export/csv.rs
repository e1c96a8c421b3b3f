//! `batches.csv`: one row per (scenario, budget, strategy, batch) with the main per-batch metrics, for a
//! spreadsheet or a notebook.

use std::fmt::Write as _;

use super::Exporter;
use crate::error::Result;
use crate::run::RunOutput;

/// The per-batch CSV.
pub struct BatchCsv;

const HEADER: &str = "crate_version,seed,scenario_digest,scenario,strategy,budget_label,budget,batch,input_total,final_total,within_budget,overshoot,\
violation_boundary,fields,shortened_fields,original_units,kept_units,mean_kept_share,min_kept_share,fairness,\
needles_planted,needles_survived,needle_upper_bound,writes,bytes_written,duplicate_writes,failed_writes,\
reused_paths,recoverable_fields,broken_surrogates,reordered,dropped,media_changed,reminders_changed,\
non_budgeted_changed,records_differ,cost_ns,strategy_ns,floor_ns";

/// Quotes a CSV field when it needs it.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl Exporter for BatchCsv {
    fn file_name(&self) -> &'static str {
        crate::run::BATCHES_CSV
    }

    fn serialize(&self, run: &RunOutput) -> Result<Vec<u8>> {
        let mut out = String::with_capacity(256 * (run.records.len() + 1));
        out.push_str(HEADER);
        out.push('\n');
        let version = &run.results.crate_version;
        for r in &run.records {
            let m = &r.metrics;
            let scenario = run
                .results
                .inputs
                .scenarios
                .iter()
                .find(|s| s.name == r.scenario);
            let (seed, digest) = scenario.map_or((0, ""), |s| (s.seed, s.digest.as_str()));
            let planted: u64 = m.needles.values().map(|c| c.planted).sum();
            let survived: u64 = m.needles.values().map(|c| c.survived).sum();
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                field(version),
                seed,
                digest,
                field(&r.scenario),
                field(&r.strategy),
                field(&r.budget_label.to_string()),
                m.budget.map_or(String::new(), |b| b.to_string()),
                m.batch,
                m.input_total,
                m.final_total,
                m.within_budget,
                m.overshoot,
                m.violation_boundary.map_or("", |b| b.as_str()),
                m.fields,
                m.shortened_fields,
                m.original_units,
                m.kept_units,
                m.mean_kept_share,
                m.min_kept_share,
                m.fairness,
                planted,
                survived,
                m.needle_upper_bound,
                m.writes,
                m.bytes_written,
                m.duplicate_writes,
                m.failed_writes,
                m.reused_paths,
                m.recoverable_fields,
                m.broken_surrogates,
                m.reordered,
                m.dropped,
                m.media_changed,
                m.reminders_changed,
                m.non_budgeted_changed,
                m.records_differ,
                r.cost_ns,
                r.strategy_ns,
                r.floor_ns,
            );
        }
        Ok(out.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn header_and_rows_have_the_same_width() {
        assert_eq!(HEADER.split(',').count(), 39);
    }
}
