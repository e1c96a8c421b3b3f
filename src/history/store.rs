//! Opening the history database: the path checked before SQLite touches it, the lock wait, and the schema
//! brought up to date or refused.
//!
//! A path given for the database is refused, never overwritten or followed, when it is a symbolic link, not a
//! regular file, or a file that is not a SQLite database (its first 16 bytes are not SQLite's header; an empty
//! file is an empty database, as SQLite reads it). No folder is made for it: the folder must exist. Opening for
//! writing takes SQLite's write lock at once (`BEGIN IMMEDIATE`) and waits up to [`BUSY_TIMEOUT`] for another
//! writer, so two `history add` at once both land, one after the other; every change is one transaction, so a
//! killed writer leaves the database as it was (SQLite's rollback journal puts it back on the next open).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use super::schema::{MIGRATIONS, SCHEMA_VERSION};
use crate::error::{Error, Result};

/// How long a writer waits for another to finish before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// The first 16 bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// An open history database.
#[derive(Debug)]
pub struct History {
    pub(super) conn: Connection,
    path: PathBuf,
}

impl History {
    /// Opens the database at `path` for adding runs, making an empty one when there is no file there (its
    /// folder must exist), and brings its schema up to date. Refused: the path checks of this module's
    /// description, a SQLite database that is not a budgetlab history, and a history of a newer schema.
    pub fn open_for_writing(path: &Path) -> Result<History> {
        check_path(path, true)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NOFOLLOW
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut history = History::connect(path, flags)?;
        history.migrate()?;
        Ok(history)
    }

    /// Opens an existing history at `path` for reading. Refused: no file there, the path checks of this
    /// module's description, and a database that is not a budgetlab history of this schema version.
    pub fn open(path: &Path) -> Result<History> {
        check_path(path, false)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NOFOLLOW
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let history = History::connect(path, flags)?;
        let version = history.version()?;
        if version == 0 {
            return Err(history.refused("is an empty database, not a budgetlab history yet"));
        }
        history.refuse_newer(version)?;
        if version < SCHEMA_VERSION {
            return Err(history.refused(format!(
                "is a history of schema version {version}; `budgetlab history add` brings it to version \
                 {SCHEMA_VERSION}"
            )));
        }
        Ok(history)
    }

    /// The database's path, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version the database records (`PRAGMA user_version`; 0 for a new one).
    pub fn version(&self) -> Result<u32> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.sql(e))
    }

    /// An error about this database from SQLite's `e`.
    pub(super) fn sql(&self, e: rusqlite::Error) -> Error {
        sql_error(&self.path, e)
    }

    /// A refusal naming this database.
    pub(super) fn refused(&self, reason: impl Into<String>) -> Error {
        Error::refused(&self.path, reason)
    }

    fn connect(path: &Path, flags: OpenFlags) -> Result<History> {
        let conn = Connection::open_with_flags(path, flags).map_err(|e| sql_error(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| sql_error(path, e))?;
        conn.execute_batch("PRAGMA foreign_keys = ON")
            .map_err(|e| sql_error(path, e))?;
        Ok(History {
            conn,
            path: path.to_path_buf(),
        })
    }

    fn refuse_newer(&self, version: u32) -> Result<()> {
        if version > SCHEMA_VERSION {
            return Err(self.refused(format!(
                "is a history of schema version {version}, written by a newer budgetlab; this one reads \
                 version {SCHEMA_VERSION}"
            )));
        }
        Ok(())
    }

    /// Applies the migrations the database lacks, in one transaction that holds the write lock, so that two
    /// writers opening a new database at once apply them once.
    fn migrate(&mut self) -> Result<()> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql_error(&path, e))?;
        let version: u32 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| sql_error(&path, e))?;
        if version > SCHEMA_VERSION {
            drop(tx);
            return self.refuse_newer(version);
        }
        if version == 0 {
            let objects: i64 = tx
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                .map_err(|e| sql_error(&path, e))?;
            if objects > 0 {
                return Err(Error::refused(
                    &path,
                    "is a SQLite database but not a budgetlab history (it has tables and no schema version)",
                ));
            }
        }
        for step in MIGRATIONS.iter().filter(|m| m.version > version) {
            tx.execute_batch(step.sql)
                .map_err(|e| sql_error(&path, e))?;
            tx.execute(
                "INSERT INTO migrations (version, description) VALUES (?1, ?2)",
                rusqlite::params![step.version, step.description],
            )
            .map_err(|e| sql_error(&path, e))?;
            tx.pragma_update(None, "user_version", step.version)
                .map_err(|e| sql_error(&path, e))?;
        }
        tx.commit().map_err(|e| sql_error(&path, e))
    }
}

/// An error about the database at `path` from SQLite's `e`.
fn sql_error(path: &Path, e: rusqlite::Error) -> Error {
    if let rusqlite::Error::SqliteFailure(code, _) = &e {
        if code.code == rusqlite::ErrorCode::NotADatabase {
            return Error::refused(
                path,
                "is not a SQLite database; budgetlab never overwrites it",
            );
        }
    }
    Error::report(path.display().to_string(), format!("database: {e}"))
}

/// Refuses a path that is a symbolic link, not a regular file, or a file that is not a SQLite database; with
/// `may_create`, a missing file whose folder exists passes, otherwise a missing file is refused.
fn check_path(path: &Path, may_create: bool) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Error::refused(
            path,
            "is a symbolic link; give the database's own path",
        )),
        Ok(meta) if !meta.is_file() => Err(Error::refused(path, "is not a regular file")),
        Ok(meta) => {
            if meta.len() == 0 {
                return Ok(());
            }
            let mut header = [0u8; 16];
            let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
            let read = file.read(&mut header).map_err(|e| Error::io(path, e))?;
            // A file shorter than the header cannot be a database either.
            if read < header.len() || &header != SQLITE_HEADER {
                return Err(Error::refused(
                    path,
                    "is not a SQLite database; budgetlab never overwrites it",
                ));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !may_create {
                return Err(Error::refused(
                    path,
                    "is no history database (there is no such file; `budgetlab history add` makes one)",
                ));
            }
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            if !parent.is_dir() {
                return Err(Error::refused(
                    path,
                    format!(
                        "is in a folder that does not exist ({}); budgetlab makes no folder for the database",
                        parent.display()
                    ),
                ));
            }
            Ok(())
        }
        Err(e) => Err(Error::io(path, e)),
    }
}
