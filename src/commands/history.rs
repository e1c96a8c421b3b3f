//! `budgetlab history`: the nightly history in a SQLite database. `add` records a run, `show` prints the series,
//! `check` gives the verdict for the newest night against the whole history (exit 1 when it fails).

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};

use budgetlab::history::{self, Filter, History, Night, RankTest, RunRecord, TrackedFigure};

use super::output::emit;
use super::Status;

/// Examples shown after `budgetlab history --help`; `tests/examples.rs` runs them.
pub(crate) const EXAMPLES: &str = "Examples:
  budgetlab run --quick
  budgetlab history add reports/latest --commit 0123abcd
  budgetlab history show --metric cost --strategy reference --last 14
  budgetlab history check";

/// Flags of `budgetlab history`.
#[derive(Debug, Args)]
pub(crate) struct HistoryArgs {
    /// What to do with the history.
    #[command(subcommand)]
    pub(crate) action: HistoryAction,
}

/// The database flag every action shares.
#[derive(Debug, Args)]
pub(crate) struct DbArg {
    /// The history database (default reports/history.sqlite; its folder `reports` is made when missing). A
    /// symbolic link or a file that is not a SQLite database is refused, never overwritten; no folder is made
    /// for a path given here.
    #[arg(long, value_name = "PATH")]
    pub(crate) db: Option<PathBuf>,
}

impl DbArg {
    fn path(&self) -> PathBuf {
        self.db
            .clone()
            .unwrap_or_else(|| PathBuf::from(history::DEFAULT_DB))
    }
}

/// `budgetlab history`'s actions.
#[derive(Debug, Subcommand)]
pub(crate) enum HistoryAction {
    /// Record a run (a report folder or its results.json) as a night, in one transaction. The same run twice
    /// (the same results.json, by its sha256) is refused; two runs of one commit are two nights.
    #[command(
        after_help = "Examples:\n  budgetlab run --quick\n  budgetlab history add reports/latest --commit 0123abcd --label nightly"
    )]
    Add(AddArgs),
    /// Print the series of the tracked figures: a table a figure, nights as rows, a column a results row.
    #[command(
        after_help = "Examples:\n  budgetlab run --quick\n  budgetlab history add reports/latest --commit 0123abcd\n  budgetlab history show --metric needles --scenario shell-heavy --json"
    )]
    Show(ShowArgs),
    /// The verdict for the newest night against the history: exit 1 when a deterministic figure moved on it
    /// (compliance, retention, needles, writes, used lines) or the cost over the floor rose (a one-sided
    /// Mann-Whitney test of the last --window nights against the --window before: at most alpha x 100 false
    /// alarms per 100 nights a row), 0 otherwise, 2 on bad input.
    #[command(
        after_help = "Examples:\n  budgetlab run --quick\n  budgetlab history add reports/latest --commit 0123abcd\n  budgetlab history check --window 5 --alpha 0.01"
    )]
    Check(HistoryCheckArgs),
    /// Write the trend charts of the history into a report folder: a chart a tracked figure (nights on the x
    /// axis, a panel a scenario and budget, a line a strategy, each night a deterministic figure moved marked
    /// with its commit), index.html (the verdict for the newest night, the nights and the charts) and
    /// history.json. The folder is replaced only when budgetlab made it.
    #[command(
        after_help = "Examples:\n  budgetlab run --quick\n  budgetlab history add reports/latest --commit 0123abcd\n  budgetlab history report --out reports/trends"
    )]
    Report(HistoryReportArgs),
}

/// Flags of `history report`.
#[derive(Debug, Args)]
pub(crate) struct HistoryReportArgs {
    #[command(flatten)]
    pub(crate) db: DbArg,
    /// The report folder to write (new, empty, or one budgetlab made).
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,
    /// Only this scenario.
    #[arg(long, value_name = "S")]
    pub(crate) scenario: Option<String>,
    /// Only this strategy.
    #[arg(long, value_name = "X")]
    pub(crate) strategy: Option<String>,
    /// Only this budget (its label).
    #[arg(long, value_name = "B")]
    pub(crate) budget: Option<String>,
    /// Only the last N nights on the charts (the verdict always reads every night).
    #[arg(long, value_name = "N")]
    pub(crate) last: Option<usize>,
    /// Print what was written as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Flags of `history add`.
#[derive(Debug, Args)]
pub(crate) struct AddArgs {
    /// The run: a report folder, or its results.json (a whole run; merge shards first).
    #[arg(value_name = "DIR")]
    pub(crate) dir: PathBuf,
    #[command(flatten)]
    pub(crate) db: DbArg,
    /// The commit the run measured (4 to 64 lowercase hexadecimal digits).
    #[arg(long, value_name = "SHA")]
    pub(crate) commit: Option<String>,
    /// The night's date, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (default: now, UTC); nights are ordered by it.
    #[arg(long, value_name = "ISO")]
    pub(crate) date: Option<String>,
    /// A free label for the night.
    #[arg(long, value_name = "L")]
    pub(crate) label: Option<String>,
    /// Print what was recorded as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Flags of `history show`.
#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    #[command(flatten)]
    pub(crate) db: DbArg,
    /// Only these figures (repeatable): compliance, retention, needles, writes, cost, time, used, usedBound,
    /// strategyTime, floorTime.
    #[arg(long, value_name = "M")]
    pub(crate) metric: Vec<String>,
    /// Only this scenario.
    #[arg(long, value_name = "S")]
    pub(crate) scenario: Option<String>,
    /// Only this strategy.
    #[arg(long, value_name = "X")]
    pub(crate) strategy: Option<String>,
    /// Only this budget (its label: abs-20000, window-16000).
    #[arg(long, value_name = "B")]
    pub(crate) budget: Option<String>,
    /// Only the last N nights.
    #[arg(long, value_name = "N")]
    pub(crate) last: Option<usize>,
    /// Print the series as JSON instead of Markdown.
    #[arg(long)]
    pub(crate) json: bool,
    /// List every series chosen in the summary, not only those that moved.
    #[arg(long, conflicts_with = "nights")]
    pub(crate) all: bool,
    /// Print the chosen series night by night (a column a series), however wide. By default this table is
    /// printed when it fits 120 columns, else a summary of what moved.
    #[arg(long)]
    pub(crate) nights: bool,
}

/// Flags of `history check`.
#[derive(Debug, Args)]
pub(crate) struct HistoryCheckArgs {
    #[command(flatten)]
    pub(crate) db: DbArg,
    /// Nights in each half of the cost test.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub(crate) window: usize,
    /// The largest p-value of the cost test that raises an alarm (the false alarms a night a row, at most).
    #[arg(long, default_value_t = 0.01, value_name = "P")]
    pub(crate) alpha: f64,
    /// The smallest rise of the median cost that raises an alarm (1.1: 10%).
    #[arg(long, default_value_t = 1.1, value_name = "R")]
    pub(crate) min_ratio: f64,
    /// Print the verdict as JSON instead of Markdown.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Runs the action.
pub(crate) fn execute(args: HistoryArgs) -> anyhow::Result<Status> {
    match args.action {
        HistoryAction::Add(args) => add(args),
        HistoryAction::Show(args) => show(args),
        HistoryAction::Check(args) => check(args),
        HistoryAction::Report(args) => report(args),
    }
}

fn add(args: AddArgs) -> anyhow::Result<Status> {
    let date = match args.date {
        Some(date) => date,
        None => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            history::iso_date(now)
        }
    };
    let night = Night::new(args.commit, date, args.label)?;
    let run = RunRecord::load(&args.dir)?;
    if args.db.db.is_none() {
        if let Some(folder) = std::path::Path::new(history::DEFAULT_DB).parent() {
            match std::fs::create_dir(folder) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                    return Err(budgetlab::Error::io(folder, e).into())
                }
                _ => {}
            }
        }
    }
    let path = args.db.path();
    let mut history = History::open_for_writing(&path)?;
    let added = history.add(&run, &night, &args.dir.display().to_string())?;
    if args.json {
        let json = serde_json::json!({
            "database": path.display().to_string(),
            "night": added.night,
            "nights": added.nights,
            "figures": added.figures,
            "resultsSha256": run.results_sha256,
            "inputsSha256": run.inputs_sha256,
            "commit": night.commit,
            "date": night.date,
        });
        emit(format!("{json:#}\n").as_bytes())?;
    } else {
        emit(
            format!(
                "added {} as night {} of {} ({} figures) to {}\n",
                args.dir.display(),
                added.night,
                added.nights,
                added.figures,
                path.display()
            )
            .as_bytes(),
        )?;
    }
    Ok(Status::Done)
}

fn show(args: ShowArgs) -> anyhow::Result<Status> {
    let figures = args
        .metric
        .iter()
        .map(|m| {
            TrackedFigure::parse(m).ok_or_else(|| {
                budgetlab::Error::invalid(
                    "--metric",
                    m,
                    format!("the figures are {}", TrackedFigure::names()),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let filter = Filter {
        figures,
        scenario: args.scenario,
        budget: args.budget,
        strategy: args.strategy,
        last: args.last,
    };
    let history = History::open(&args.db.path())?;
    let table = history.series(&filter)?;
    if args.json {
        emit(format!("{:#}\n", history::show::json(&table)).as_bytes())?;
    } else if args.nights {
        emit(history::show::markdown(&table).as_bytes())?;
    } else if args.all {
        emit(history::show::summary(&table, true).as_bytes())?;
    } else {
        emit(history::show::default_markdown(&table).as_bytes())?;
    }
    Ok(Status::Done)
}

fn check(args: HistoryCheckArgs) -> anyhow::Result<Status> {
    let test = RankTest::new(args.window, args.alpha, args.min_ratio)?;
    let history = History::open(&args.db.path())?;
    let verdict = history.check(&test)?;
    if args.json {
        emit(format!("{:#}\n", history::check::json(&verdict)).as_bytes())?;
    } else {
        emit(history::check::markdown(&verdict).as_bytes())?;
    }
    Ok(Status::of_checks(verdict.passed()))
}

fn report(args: HistoryReportArgs) -> anyhow::Result<Status> {
    let db = args.db.path();
    budgetlab::atomic::refuse_inside(
        budgetlab::atomic::Named::new("--out", &args.out),
        &[budgetlab::atomic::Named::new("--db", &db)],
    )?;
    let history = History::open(&db)?;
    let test = RankTest::new(5, 0.01, 1.1)?;
    let verdict = history.check(&test)?;
    let table = history.series(&Filter {
        figures: Vec::new(),
        scenario: args.scenario,
        budget: args.budget,
        strategy: args.strategy,
        last: args.last,
    })?;
    let writer = budgetlab::report::ReportWriter::new(&args.out);
    writer.check().context("--out")?;
    let charts = writer.history(&table, &verdict)?;
    if args.json {
        let json = serde_json::json!({
            "out": args.out.display().to_string(),
            "nights": table.nights.len(),
            "series": table.series.len(),
            "charts": charts,
            "passed": verdict.passed(),
        });
        emit(format!("{json:#}\n").as_bytes())?;
    } else {
        emit(
            format!(
                "wrote {} trend charts of {} nights and index.html to {}\n",
                charts.len(),
                table.nights.len(),
                args.out.display()
            )
            .as_bytes(),
        )?;
    }
    Ok(Status::Done)
}
