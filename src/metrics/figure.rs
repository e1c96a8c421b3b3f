//! The row figures: every count a turn measures that a row sums, declared once in [`figure_list!`]. From that one
//! declaration come the fields of [`BatchMetrics`] (`batches.jsonl`), of [`RowSummary`] and of the row's
//! `persistence` and `integrity` objects (`results.json`), and the [`FIGURES`] table, which the CSV columns, the
//! read-back checks, the summing and merging of rows, the Markdown and HTML columns and the gate's integrity check
//! iterate. Adding a figure is one entry in [`figure_list!`] and its computation in [`super::measure`].
//!
//! Figures that are not plain counts (shares, histograms, needles by kind, the bootstrap resamples) keep their own
//! code in `metrics`.

use super::{Aggregate, BatchMetrics, RowSummary};

/// The one list of row figures, in the order of the turn's fields (`batches.jsonl`, `batches.csv`), grouped by
/// where the row shows their totals ([`Section`]). It hands the list to `$callback`, which makes something of it:
/// the structs that hold the figures and the [`FIGURES`] table.
///
/// An entry is `turn_field => row_field: "rowKey" at N, "label", column, at_most, gate;`:
/// - `turn_field`: the field of [`BatchMetrics`] and the column of `batches.csv`;
/// - `row_field` and `"rowKey"`: the field (and its `results.json` key) of the row's section and of its summary;
/// - `N`: its place in the section of `results.json` (the order the results schema keeps) and, for an integrity
///   figure, its slot in `summary.integrity`;
/// - `"label"`: how it reads in tables and messages;
/// - `column`: its column in the Markdown and HTML tables of rows ([`Column`]);
/// - `at_most`: what it can never exceed, checked when records and results are read back ([`AtMost`]);
/// - `gate`: how the gate tracks it, if it does ([`Tracked`]): it is then a [`Metric`](super::Metric)
///   (`Metric::Count`), which `check` compares with the baseline, `compare` lists and the budget and sweep
///   charts can draw, with no other code.
macro_rules! figure_list {
    ($callback:ident) => {
        $callback! {
            persistence [
                /// Successful writes.
                writes => writes: "writes" at 0, "writes", Column::Count, AtMost::Any,
                    Some(Tracked {
                        title: "Artifact writes",
                        read: "Writes buy recoverability of what was cut; more writes for the same retention is \
wasted I/O.",
                    });
                /// Bytes written.
                bytes_written => bytes: "bytes" at 1, "bytes written", Column::None, AtMost::Any, None;
                /// Writes of an entry that had already been written once in the turn.
                duplicate_writes => duplicate_writes: "duplicateWrites" at 2, "duplicate writes", Column::Issue,
                    AtMost::Figure("writes"), None;
                /// Failed or refused writes.
                failed_writes => failed_writes: "failedWrites" at 4, "failed writes", Column::None, AtMost::Any,
                    None;
                /// Shortened fields whose entry reused artifact paths it came with.
                reused_paths => reused_paths: "reusedPaths" at 3, "reused paths", Column::None,
                    AtMost::ShortenedFields, None;
            ]
            shortened [
                /// Shortened fields whose complete text is recoverable from an artifact.
                recoverable_fields => recoverable_fields: "recoverableFields" at 0, "recoverable fields",
                    Column::None, AtMost::ShortenedFields, None;
            ]
            integrity [
                /// Surrogate pairs a cut broke in shortened fields (see `metrics::broken_surrogates`).
                broken_surrogates => broken_surrogates: "brokenSurrogates" at 0, "broken surrogates", Column::None,
                    AtMost::Any, None;
                /// Entries out of their original order in the model request.
                reordered => reordered: "reordered" at 1, "reordered", Column::None, AtMost::Any, None;
                /// Entries or parts missing from the model request.
                dropped => dropped: "dropped" at 2, "dropped", Column::None, AtMost::Any, None;
                /// Media parts changed.
                media_changed => media_changed: "mediaChanged" at 3, "media changed", Column::None, AtMost::Any,
                    None;
                /// Lifecycle reminders changed.
                reminders_changed => reminders_changed: "remindersChanged" at 4, "reminders changed",
                    Column::None, AtMost::Any, None;
                /// Parts whose non-budgeted content changed.
                non_budgeted_changed => non_budgeted_changed: "nonBudgetedChanged" at 5, "non-budgeted changed",
                    Column::None, AtMost::Any, None;
            ]
            used [
                /// Lines of recorded results the agent went on to use (`budgetlab import`'s used lines; 0 for
                /// generated batches and recorded ones without a used-lines file).
                used_needles => used_needles: "usedNeedles" at 0, "used needles", Column::None, AtMost::Any,
                    None;
                /// Of those, lines still visible in their field of the model request.
                used_survived => used_survived: "usedSurvived" at 1, "used needles kept", Column::None,
                    AtMost::Figure("used_needles"), None;
                /// The most used lines any allocation of the same budget could keep visible
                /// (`metrics::needle_upper_bound` of the used lines alone).
                used_upper_bound => used_upper_bound: "usedUpperBound" at 2, "used needles possible",
                    Column::None, AtMost::Figure("used_needles"), None;
                /// Tokens of recorded results the agent went on to use (`budgetlab import`'s used tokens; 0 for
                /// generated batches and recorded ones without a used-lines file).
                used_tokens => used_tokens: "usedTokens" at 3, "used tokens", Column::None, AtMost::Any, None;
                /// Of those, tokens still visible somewhere in their field of the model request.
                used_tokens_survived => used_tokens_survived: "usedTokensSurvived" at 4, "used tokens kept",
                    Column::None, AtMost::Figure("used_tokens"), None;
                /// The most used tokens any head-and-tail allocation of the same budget could keep visible
                /// (`metrics::token_upper_bound`).
                used_tokens_upper_bound => used_tokens_upper_bound: "usedTokensUpperBound" at 5,
                    "used tokens possible", Column::None, AtMost::Figure("used_tokens"), None;
                /// Results of the turn when its producers' output was longer than the budget (where a policy can
                /// differ), else 0.
                over_budget_results => over_budget_results: "overBudgetResults" at 6, "results over budget",
                    Column::None, AtMost::Any, None;
                /// The detector's needles of a turn longer than the budget (else 0).
                over_budget_needles => over_budget_needles: "overBudgetNeedles" at 7,
                    "needles over budget", Column::None, AtMost::Any, None;
                /// Of those, needles still visible.
                over_budget_needles_survived => over_budget_needles_survived: "overBudgetNeedlesSurvived" at 8,
                    "needles over budget kept", Column::None, AtMost::Figure("over_budget_needles"), None;
                /// Used lines of a turn longer than the budget (else 0).
                over_budget_used_needles => over_budget_used_needles: "overBudgetUsedNeedles" at 9,
                    "used needles over budget", Column::None, AtMost::Figure("used_needles"), None;
                /// Of those, lines still visible.
                over_budget_used_survived => over_budget_used_survived: "overBudgetUsedSurvived" at 10,
                    "used needles over budget kept", Column::None, AtMost::Figure("over_budget_used_needles"),
                    None;
                /// The most of those any allocation could keep visible.
                over_budget_used_upper_bound => over_budget_used_upper_bound: "overBudgetUsedUpperBound" at 11,
                    "used needles over budget possible", Column::None,
                    AtMost::Figure("over_budget_used_needles"), None;
                /// Used tokens of a turn longer than the budget (else 0).
                over_budget_used_tokens => over_budget_used_tokens: "overBudgetUsedTokens" at 12,
                    "used tokens over budget", Column::None, AtMost::Figure("used_tokens"), None;
                /// Of those, tokens still visible.
                over_budget_used_tokens_survived => over_budget_used_tokens_survived:
                    "overBudgetUsedTokensSurvived" at 13, "used tokens over budget kept", Column::None,
                    AtMost::Figure("over_budget_used_tokens"), None;
                /// The most of those any allocation could keep visible.
                over_budget_used_tokens_upper_bound => over_budget_used_tokens_upper_bound:
                    "overBudgetUsedTokensUpperBound" at 14, "used tokens over budget possible", Column::None,
                    AtMost::Figure("over_budget_used_tokens"), None;
            ]
        }
    };
}
pub(crate) use figure_list;

/// `1` for any token: counts the entries of a group in a constant.
macro_rules! one {
    ($x:tt) => {
        1
    };
}
pub(crate) use one;

/// Where a row shows a figure's total in `results.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// In the row's `persistence` and in its summary (`summary.<key>`).
    Persistence,
    /// In the row's summary only, after `summary.shortenedFields`: a count of shortened fields, which the row
    /// shows as a share of them.
    Shortened,
    /// In the row's `integrity` and in a slot of `summary.integrity`; the row's integrity issues add them up.
    Integrity,
    /// In the row's summary only, last (`summary.usedNeedles`, ...); the row shows them as shares in its
    /// `usedNeedles` object, apart from the detector's needles and never pooled with them.
    Used,
}

/// What a figure can never exceed, checked in each turn, in each row's summary and, where both are in the row's
/// sections, in the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtMost {
    /// Any count up to [`super::MAX_COUNT`].
    Any,
    /// The figure of this column.
    Figure(&'static str),
    /// The turn's shortened fields.
    ShortenedFields,
}

/// A figure's column in the Markdown and HTML tables of rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// None.
    None,
    /// The row's total.
    Count,
    /// The row's total, marked on the page when it is not 0 (an issue).
    Issue,
}

/// How the gate tracks a row figure: the words its reports and charts use for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tracked {
    /// Its title in reports and charts (`Artifact writes`); its axis reads `artifact writes per turn`.
    pub title: &'static str,
    /// How to read its chart against a budget or a swept parameter, after `<title> per turn.`.
    pub read: &'static str,
}

/// One row figure: what [`figure_list!`] declares of it, and how to read it at each level.
#[derive(Debug, Clone, Copy)]
pub struct Figure {
    /// The field of the turn's metrics and the column of `batches.csv` (`bytes_written`).
    pub column: &'static str,
    /// Its key in the row's section and summary in `results.json` (`bytes`).
    pub key: &'static str,
    /// Its field in a row of `results.json` (`persistence.bytes`, `integrity.dropped`,
    /// `summary.recoverableFields`).
    pub field: &'static str,
    /// Where the row shows its total.
    pub section: Section,
    /// Its place in its section of `results.json`, and for an integrity figure its slot in `summary.integrity`.
    pub order: usize,
    /// How it reads in tables and messages (`duplicate writes`).
    pub label: &'static str,
    /// Its column in the Markdown and HTML tables of rows.
    pub table: Column,
    /// What it can never exceed.
    pub at_most: AtMost,
    /// How the gate tracks it, if it does.
    pub gate: Option<Tracked>,
    /// Its value in a turn.
    pub turn: fn(&BatchMetrics) -> u64,
    /// Its total in a row's summary.
    pub total: fn(&RowSummary) -> u64,
    /// Its total in a row's summary, to add to.
    pub total_mut: fn(&mut RowSummary) -> &mut u64,
    /// Its total as the row shows it (`None` for a figure shown in the summary only).
    pub row: Option<fn(&Aggregate) -> u64>,
}

macro_rules! figure_table {
    (
        persistence [ $(
            $(#[doc = $pd:literal])* $pf:ident => $pr:ident : $pk:literal at $po:literal, $pl:literal,
                $pc:expr, $pm:expr, $pg:expr;
        )* ]
        shortened [ $(
            $(#[doc = $sd:literal])* $sf:ident => $sr:ident : $sk:literal at $so:literal, $sl:literal,
                $sc:expr, $sm:expr, $sg:expr;
        )* ]
        integrity [ $(
            $(#[doc = $id:literal])* $if:ident => $ir:ident : $ik:literal at $io:literal, $il:literal,
                $ic:expr, $im:expr, $ig:expr;
        )* ]
        used [ $(
            $(#[doc = $ud:literal])* $uf:ident => $ur:ident : $uk:literal at $uo:literal, $ul:literal,
                $uc:expr, $um:expr, $ug:expr;
        )* ]
    ) => {
        /// Every row figure, in the order of the turn's fields.
        pub static FIGURES: &[Figure] = &[
            $(Figure {
                column: stringify!($pf),
                key: $pk,
                field: concat!("persistence.", $pk),
                section: Section::Persistence,
                order: $po,
                label: $pl,
                table: $pc,
                at_most: $pm,
                gate: $pg,
                turn: |m| m.$pf,
                total: |s| s.$pr,
                total_mut: |s| &mut s.$pr,
                row: Some(|a| a.persistence.$pr),
            },)*
            $(Figure {
                column: stringify!($sf),
                key: $sk,
                field: concat!("summary.", $sk),
                section: Section::Shortened,
                order: $so,
                label: $sl,
                table: $sc,
                at_most: $sm,
                gate: $sg,
                turn: |m| m.$sf,
                total: |s| s.$sr,
                total_mut: |s| &mut s.$sr,
                row: None,
            },)*
            $(Figure {
                column: stringify!($if),
                key: $ik,
                field: concat!("integrity.", $ik),
                section: Section::Integrity,
                order: $io,
                label: $il,
                table: $ic,
                at_most: $im,
                gate: $ig,
                turn: |m| m.$if,
                total: |s| s.integrity[$io],
                total_mut: |s| &mut s.integrity[$io],
                row: Some(|a| a.integrity.$ir),
            },)*
            $(Figure {
                column: stringify!($uf),
                key: $uk,
                field: concat!("summary.", $uk),
                section: Section::Used,
                order: $uo,
                label: $ul,
                table: $uc,
                at_most: $um,
                gate: $ug,
                turn: |m| m.$uf,
                total: |s| s.$ur,
                total_mut: |s| &mut s.$ur,
                row: None,
            },)*
        ];
    };
}
figure_list!(figure_table);

impl Figure {
    /// Its key in `batches.jsonl` (`bytesWritten`), as the turn's metrics are named there.
    pub fn turn_key(&self) -> String {
        camel(self.column)
    }

    /// The figure of `column`.
    pub fn named(column: &str) -> Option<&'static Figure> {
        FIGURES.iter().find(|f| f.column == column)
    }
}

/// The figures of `section`, in their order in `results.json`.
pub fn in_section(section: Section) -> Vec<&'static Figure> {
    let mut figures: Vec<&Figure> = FIGURES.iter().filter(|f| f.section == section).collect();
    figures.sort_by_key(|f| f.order);
    figures
}

/// The figures with a column in the Markdown and HTML tables of rows, in order.
pub fn in_tables() -> impl Iterator<Item = &'static Figure> {
    FIGURES.iter().filter(|f| f.table != Column::None)
}

/// `snake_case` as `camelCase`.
fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_camel_case_of_the_fields_and_places_are_distinct() {
        assert_eq!(camel("non_budgeted_changed"), "nonBudgetedChanged");
        for section in [
            Section::Persistence,
            Section::Shortened,
            Section::Integrity,
            Section::Used,
        ] {
            let places: Vec<usize> = in_section(section).iter().map(|f| f.order).collect();
            assert_eq!(places, (0..places.len()).collect::<Vec<_>>(), "{section:?}");
        }
        let mut columns: Vec<&str> = FIGURES.iter().map(|f| f.column).collect();
        columns.sort_unstable();
        columns.dedup();
        assert_eq!(columns.len(), FIGURES.len());
        for f in FIGURES {
            if let AtMost::Figure(other) = f.at_most {
                assert!(Figure::named(other).is_some(), "{}", f.column);
            }
        }
        // Integrity figures fill the slots of `summary.integrity` in the order of the turn's fields.
        let integrity: Vec<usize> = FIGURES
            .iter()
            .filter(|f| f.section == Section::Integrity)
            .map(|f| f.order)
            .collect();
        assert_eq!(integrity, (0..integrity.len()).collect::<Vec<_>>());
    }

    #[test]
    fn a_figure_reads_at_every_level() {
        let f = Figure::named("bytes_written").unwrap();
        assert_eq!(f.turn_key(), "bytesWritten");
        assert_eq!(f.field, "persistence.bytes");
        assert_eq!(
            Figure::named("recoverable_fields").unwrap().field,
            "summary.recoverableFields"
        );
        assert_eq!(Figure::named("dropped").unwrap().field, "integrity.dropped");
        // A tracked metric that is a row figure reads it from the table.
        for f in FIGURES {
            if f.gate.is_some() {
                let metric = super::super::Metric::Count(f.column);
                assert_eq!(metric.field(), f.field);
                assert_eq!(metric.figure().map(|m| m.column), Some(f.column));
                assert_eq!(metric.unit(), super::super::Unit::Count);
            }
        }
    }
}
