//! `batches.csv`: one row per (scenario, budget, strategy, batch) with the main per-batch metrics, for a
//! spreadsheet or a notebook. Written by the `csv` crate from one [`Row`] a record (the columns of [`Head`], a
//! column a row figure of [`FIGURES`] and those of [`Tail`], in order; quoting is the crate's: only a field holding
//! a comma, a quote or a line break is quoted), with the header written first so that a run without records
//! still has one. A run given `--tokenizer` has the columns of [`TOKEN_HEADER`] after those (a [`TokenRow`] a record); a run without one has none of them. A cell with
//! nothing to measure is empty, never a perfect score: `budget` when the budget is disabled, and the three kept-
//! share columns (`mean_kept_share`, `min_kept_share`, `fairness`) for a turn without a field.

use serde::{Serialize, Serializer};

use super::RecordExporter;
use crate::error::{Error, Result};
use crate::metrics::{BatchMetrics, FIGURES};
use crate::run::{BatchRecord, RunInputs};

/// The per-batch CSV.
pub struct BatchCsv;

/// The columns before the row figures, in order: [`Head`]'s fields.
const HEAD: [&str; 23] = [
    "crate_version",
    "seed",
    "scenario_digest",
    "scenario",
    "strategy",
    "budget_label",
    "budget",
    "batch",
    "input_total",
    "final_total",
    "within_budget",
    "overshoot",
    "violation_boundary",
    "fields",
    "shortened_fields",
    "original_units",
    "kept_units",
    "mean_kept_share",
    "min_kept_share",
    "fairness",
    "needles_planted",
    "needles_survived",
    "needle_upper_bound",
];

/// The columns after the row figures, in order: [`Tail`]'s fields.
const TAIL: [&str; 4] = ["records_differ", "cost_ns", "strategy_ns", "floor_ns"];

/// Every column of a run without `--tokenizer`, in order: [`HEAD`], the row figures' columns ([`FIGURES`]) and
/// [`TAIL`].
fn header() -> Vec<&'static str> {
    HEAD.iter()
        .copied()
        .chain(FIGURES.iter().map(|f| f.column))
        .chain(TAIL)
        .collect()
}

/// The columns a run given `--tokenizer` adds, in order: [`TokenRow`]'s fields. `token_budget`,
/// `within_token_budget` and `token_overshoot` are empty where the row has no token budget (no `--token-budget`, or
/// a share of the window at a budget without one).
const TOKEN_HEADER: [&str; 5] = [
    "tokens",
    "units_per_token",
    "token_budget",
    "within_token_budget",
    "token_overshoot",
];

/// A share written with six decimals.
struct Share(f64);

impl Serialize for Share {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{:.6}", self.0))
    }
}

/// The columns of a record before its row figures; the fields are the columns of [`HEAD`], in its order.
#[derive(Serialize)]
struct Head<'a> {
    crate_version: &'a str,
    seed: u64,
    scenario_digest: &'a str,
    scenario: &'a str,
    strategy: &'a str,
    budget_label: String,
    budget: Option<u64>,
    batch: usize,
    input_total: u64,
    final_total: u64,
    within_budget: bool,
    overshoot: u64,
    violation_boundary: &'a str,
    fields: u64,
    shortened_fields: u64,
    original_units: u64,
    kept_units: u64,
    mean_kept_share: Option<Share>,
    min_kept_share: Option<Share>,
    fairness: Option<Share>,
    needles_planted: u64,
    needles_survived: u64,
    needle_upper_bound: u64,
}

/// The row figures of a record, in the order of [`FIGURES`].
struct Figures<'a>(&'a BatchMetrics);

impl Serialize for Figures<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(FIGURES.iter().map(|f| (f.turn)(self.0)))
    }
}

/// The columns of a record after its row figures; the fields are the columns of [`TAIL`], in its order.
#[derive(Serialize)]
struct Tail {
    records_differ: bool,
    cost_ns: u64,
    strategy_ns: u64,
    floor_ns: u64,
}

/// One record of the CSV: the columns of [`header`], in its order.
type Row<'a> = (Head<'a>, Figures<'a>, Tail);

/// The token columns of one record; the fields are the columns of [`TOKEN_HEADER`], in its order.
#[derive(Serialize)]
struct TokenRow {
    tokens: u64,
    units_per_token: Option<Share>,
    token_budget: Option<u64>,
    within_token_budget: Option<bool>,
    token_overshoot: Option<u64>,
}

impl TokenRow {
    /// The token columns of `r`, a batch of a run of `inputs`; `None` when the run counted no tokens.
    fn of(inputs: &RunInputs, r: &BatchRecord) -> Option<TokenRow> {
        let settings = inputs.tokens.as_ref()?;
        let t = r.metrics.tokens.as_ref()?;
        let window = inputs
            .scenarios
            .iter()
            .find(|s| s.name == r.scenario)
            .and_then(|s| s.budgets.iter().find(|b| b.label == r.budget_label))
            .and_then(|b| b.window_tokens);
        let budget = settings.token_budget.and_then(|b| b.tokens(window));
        Some(TokenRow {
            tokens: t.tokens,
            units_per_token: (t.tokens > 0).then(|| Share(t.units as f64 / t.tokens as f64)),
            token_budget: budget,
            within_token_budget: budget.map(|b| t.tokens <= b),
            token_overshoot: budget.map(|b| t.tokens.saturating_sub(b)),
        })
    }
}

/// The record of `r`, a batch of a run of `inputs` made by this version of budgetlab.
fn row<'a>(inputs: &'a RunInputs, r: &'a BatchRecord) -> Row<'a> {
    let m = &r.metrics;
    let scenario = inputs.scenarios.iter().find(|s| s.name == r.scenario);
    let (seed, digest) = scenario.map_or((0, ""), |s| (s.seed, s.digest.as_str()));
    let head = Head {
        crate_version: env!("CARGO_PKG_VERSION"),
        seed,
        scenario_digest: digest,
        scenario: &r.scenario,
        strategy: &r.strategy,
        budget_label: r.budget_label.to_string(),
        budget: m.budget,
        batch: m.batch,
        input_total: m.input_total,
        final_total: m.final_total,
        within_budget: m.within_budget,
        overshoot: m.overshoot,
        violation_boundary: m.violation_boundary.map_or("", |b| b.as_str()),
        fields: m.fields,
        shortened_fields: m.shortened_fields,
        original_units: m.original_units,
        kept_units: m.kept_units,
        mean_kept_share: m.mean_kept_share.map(Share),
        min_kept_share: m.min_kept_share.map(Share),
        fairness: m.fairness.map(Share),
        needles_planted: m.needles.values().map(|c| c.planted).sum(),
        needles_survived: m.needles.values().map(|c| c.survived).sum(),
        needle_upper_bound: m.needle_upper_bound,
    };
    let tail = Tail {
        records_differ: m.records_differ,
        cost_ns: r.cost_ns,
        strategy_ns: r.strategy_ns,
        floor_ns: r.floor_ns,
    };
    (head, Figures(m), tail)
}

/// A CSV error, which only a bug can cause when writing to memory.
fn failed(e: csv::Error) -> Error {
    Error::report(crate::run::BATCHES_CSV, e.to_string())
}

impl RecordExporter for BatchCsv {
    fn file_name(&self) -> &'static str {
        crate::run::BATCHES_CSV
    }

    fn header(&self, inputs: &RunInputs) -> Result<Vec<u8>> {
        let mut out = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        let mut columns = header();
        if inputs.tokens.is_some() {
            columns.extend(TOKEN_HEADER);
        }
        out.write_record(columns).map_err(failed)?;
        out.into_inner().map_err(|e| failed(e.into_error().into()))
    }

    fn records(
        &self,
        inputs: &RunInputs,
        records: &[BatchRecord],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let mut writer = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(std::mem::take(out));
        for r in records {
            match TokenRow::of(inputs, r) {
                Some(tokens) => writer.serialize((row(inputs, r), tokens)),
                None => writer.serialize(row(inputs, r)),
            }
            .map_err(failed)?;
        }
        *out = writer
            .into_inner()
            .map_err(|e| failed(e.into_error().into()))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::one_batch;
    use super::*;
    use crate::metrics::{TokenBudget, TokenSettings, TurnTokens};
    use crate::scenario::BudgetLabel;

    /// The cells of the one row `records` writes in a run of `inputs`, by column name.
    fn cells(inputs: &RunInputs, record: &BatchRecord) -> Vec<(String, String)> {
        let mut bytes = BatchCsv.header(inputs).unwrap();
        BatchCsv
            .records(inputs, std::slice::from_ref(record), &mut bytes)
            .unwrap();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let header = reader.headers().unwrap().clone();
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(rows.len(), 1);
        header
            .iter()
            .zip(rows[0].iter())
            .map(|(h, c)| (h.to_string(), c.to_string()))
            .collect()
    }

    fn cell<'a>(cells: &'a [(String, String)], column: &str) -> &'a str {
        &cells.iter().find(|(h, _)| h == column).unwrap().1
    }

    #[test]
    fn token_cells_follow_the_record_and_the_window_of_its_own_scenario_and_budget() {
        let run = one_batch();
        let mut record = run.records[0].clone();
        let mut inputs = run.results.inputs.clone();
        // The record's budget has a window of 10,000 tokens; another budget of its scenario and another scenario
        // with the same budget label have other windows, seeds and digests, and come first.
        let own = inputs.scenarios[0].clone();
        let mut decoy = own.clone();
        decoy.name = "another".into();
        decoy.seed = own.seed + 1;
        decoy.digest = "0".repeat(64);
        for b in &mut decoy.budgets {
            b.window_tokens = Some(1);
        }
        let mut other_budget = own.budgets[0].clone();
        other_budget.label = BudgetLabel::Absolute(7);
        other_budget.window_tokens = Some(2);
        let mut scenario = own.clone();
        scenario.budgets = vec![other_budget, own.budgets[0].clone()];
        scenario.budgets[1].window_tokens = Some(10_000);
        record.budget_label = scenario.budgets[1].label;
        inputs.scenarios = vec![decoy, scenario.clone()];
        inputs.tokens = Some(TokenSettings {
            tokenizer: "o200k_base".into(),
            token_budget: Some(TokenBudget::WindowPercent(10)),
        });
        let tokens = |tokens, units| TurnTokens {
            tokens,
            units,
            max_field_tokens: 0,
            by_kind: Default::default(),
        };
        let token_cells = |inputs: &RunInputs, record: &BatchRecord| -> Vec<String> {
            let all = cells(inputs, record);
            assert_eq!(cell(&all, "seed"), scenario.seed.to_string());
            assert_eq!(cell(&all, "scenario_digest"), scenario.digest);
            TOKEN_HEADER
                .iter()
                .map(|c| cell(&all, c).to_string())
                .collect()
        };
        // Exactly at the budget (10% of 10,000), just over it, and a turn of no tokens.
        record.metrics.tokens = Some(tokens(1_000, 3_000));
        assert_eq!(
            token_cells(&inputs, &record),
            ["1000", "3.000000", "1000", "true", "0"]
        );
        record.metrics.tokens = Some(tokens(1_001, 3_003));
        assert_eq!(
            token_cells(&inputs, &record),
            ["1001", "3.000000", "1000", "false", "1"]
        );
        record.metrics.tokens = Some(tokens(0, 0));
        assert_eq!(
            token_cells(&inputs, &record),
            ["0", "", "1000", "true", "0"]
        );
        // Without a token budget the budget cells are empty; without a tokenizer there are no token columns.
        inputs.tokens.as_mut().unwrap().token_budget = None;
        record.metrics.tokens = Some(tokens(5, 12));
        assert_eq!(token_cells(&inputs, &record), ["5", "2.400000", "", "", ""]);
        inputs.tokens = None;
        assert_eq!(cells(&inputs, &record).len(), header().len());
    }

    #[test]
    fn the_file_is_batches_csv() {
        assert_eq!(BatchCsv.file_name(), "batches.csv");
    }

    fn written(fields: &[&str]) -> String {
        let mut out = csv::Writer::from_writer(Vec::new());
        out.write_record(fields).unwrap();
        String::from_utf8(out.into_inner().unwrap()).unwrap()
    }

    #[test]
    fn fields_are_quoted_only_when_needed() {
        assert_eq!(
            written(&["plain", "a,b", "say \"hi\"", "two\nlines", "cr\r", ""]),
            "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",\n"
        );
    }

    #[test]
    fn the_header_names_every_cell_of_a_record_in_order() {
        let run = one_batch();
        let inputs = &run.results.inputs;
        // The columns of schema 8, the row figures' columns in the order of the turn's fields.
        assert_eq!(
            header().join(","),
            "crate_version,seed,scenario_digest,scenario,strategy,budget_label,budget,batch,input_total,\
final_total,within_budget,overshoot,violation_boundary,fields,shortened_fields,original_units,kept_units,\
mean_kept_share,min_kept_share,fairness,needles_planted,needles_survived,needle_upper_bound,writes,\
bytes_written,duplicate_writes,failed_writes,reused_paths,recoverable_fields,broken_surrogates,reordered,\
dropped,media_changed,reminders_changed,non_budgeted_changed,used_needles,used_survived,used_upper_bound,\
used_tokens,used_tokens_survived,used_tokens_upper_bound,over_budget_results,over_budget_needles,\
over_budget_needles_survived,over_budget_used_needles,over_budget_used_survived,over_budget_used_upper_bound,\
over_budget_used_tokens,over_budget_used_tokens_survived,over_budget_used_tokens_upper_bound,\
records_differ,cost_ns,strategy_ns,floor_ns"
        );
        let mut bytes = BatchCsv.header(inputs).unwrap();
        BatchCsv.records(inputs, &run.records, &mut bytes).unwrap();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        assert_eq!(
            reader.headers().unwrap().iter().collect::<Vec<_>>(),
            header()
        );
        let records: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(records.len(), run.records.len());
        let m = &run.records[0].metrics;
        for f in FIGURES {
            let at = header().iter().position(|c| *c == f.column).unwrap();
            assert_eq!(records[0][at], (f.turn)(m).to_string(), "{}", f.column);
        }
    }

    #[test]
    fn shares_have_six_decimals_and_missing_figures_are_empty() {
        let mut out = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        out.serialize((Share(0.5), Share(1.0 / 3.0), None::<u64>, "", true))
            .unwrap();
        let text = String::from_utf8(out.into_inner().unwrap()).unwrap();
        assert_eq!(text, "0.500000,0.333333,,,true\n");
    }

    #[test]
    fn a_turn_without_a_field_has_empty_share_cells() {
        let mut run = one_batch();
        run.records.truncate(1);
        let cells = |run: &crate::run::RunOutput| -> Vec<String> {
            let inputs = &run.results.inputs;
            let mut bytes = BatchCsv.header(inputs).unwrap();
            BatchCsv.records(inputs, &run.records, &mut bytes).unwrap();
            let text = String::from_utf8(bytes).unwrap();
            let row: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
            ["mean_kept_share", "min_kept_share", "fairness"]
                .iter()
                .map(|c| row[header().iter().position(|h| h == c).unwrap()].to_string())
                .collect()
        };
        assert!(
            cells(&run).iter().all(|c| c.len() == 8),
            "{:?}",
            cells(&run)
        );
        let m = &mut run.records[0].metrics;
        (m.mean_kept_share, m.min_kept_share, m.fairness) = (None, None, None);
        assert_eq!(cells(&run), ["", "", ""]);
    }

    #[test]
    fn a_run_without_records_still_has_its_header() {
        let run = one_batch();
        let inputs = &run.results.inputs;
        let mut bytes = BatchCsv.header(inputs).unwrap();
        BatchCsv.records(inputs, &[], &mut bytes).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(text, format!("{}\n", header().join(",")));
        // Records a few at a time make the same bytes as all at once.
        let mut once = Vec::new();
        BatchCsv.records(inputs, &run.records, &mut once).unwrap();
        let mut piecewise = Vec::new();
        for r in &run.records {
            BatchCsv
                .records(inputs, std::slice::from_ref(r), &mut piecewise)
                .unwrap();
        }
        assert_eq!(once, piecewise);
    }
}
