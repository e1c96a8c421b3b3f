//! The history database's schema and its migrations: the list of steps that take a database from one version to
//! the next, numbered by SQLite's `PRAGMA user_version`. A new version is one more [`Migration`] at the end of
//! [`MIGRATIONS`]; an older database is brought up to date, step by step, in the transaction that opens it for
//! writing, and a newer one (made by a later budgetlab) is refused.

/// One step of the schema: the SQL that takes a database of version `version - 1` to `version`.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// The version the database has after this step.
    pub version: u32,
    /// What the step does, recorded in the `migrations` table.
    pub description: &'static str,
    /// The statements, run in the transaction that applies the step.
    pub sql: &'static str,
}

/// Every step, in order; the last one's version is [`SCHEMA_VERSION`].
pub const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    description: "runs, their inputs and every row's tracked figures",
    sql: "
CREATE TABLE migrations (
    version INTEGER PRIMARY KEY,
    description TEXT NOT NULL
);
-- One recorded run (a night). results_sha256 is the sha256 of the results.json bytes: the same run twice is
-- refused by its uniqueness.
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    results_sha256 TEXT NOT NULL UNIQUE,
    inputs_sha256 TEXT NOT NULL,
    commit_sha TEXT,
    date TEXT NOT NULL,
    label TEXT,
    crate_version TEXT NOT NULL,
    results_schema INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    source TEXT NOT NULL
);
-- The run's workloads, in run order, with the digest of each.
CREATE TABLE inputs (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    position INTEGER NOT NULL,
    scenario TEXT NOT NULL,
    digest TEXT NOT NULL,
    origin TEXT NOT NULL,
    seed INTEGER NOT NULL,
    batches INTEGER NOT NULL,
    mode TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);
-- What a figure is of: a tracked figure (metric) of one results row; ids in the order first recorded.
CREATE TABLE series (
    id INTEGER PRIMARY KEY,
    scenario TEXT NOT NULL,
    budget TEXT NOT NULL,
    strategy TEXT NOT NULL,
    metric TEXT NOT NULL,
    UNIQUE (scenario, budget, strategy, metric)
);
-- One figure of one run; value is NULL when the row had nothing to measure it by.
CREATE TABLE figures (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    series_id INTEGER NOT NULL REFERENCES series(id),
    value REAL,
    PRIMARY KEY (run_id, series_id)
) WITHOUT ROWID;
",
}];

/// The version this budgetlab writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_are_numbered_one_by_one_up_to_the_version() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version as usize, i + 1);
        }
        assert_eq!(MIGRATIONS.last().map(|m| m.version), Some(SCHEMA_VERSION));
    }
}
