//! Mutants and their outcomes, and the record that keeps the latest outcome of each: one mutant a line, so that
//! the scores outlive the machine whose runs measured them. It lives out of the repository's history (a CI
//! artifact, or the `mutants-record` branch) and is read and written at `--record-file`.
//!
//! A header line, then eleven cells a line, separated by tabs: the mutant's name (cargo-mutants' FILE:LINE:COLUMN:
//! CHANGE), the first line and column and the last line and column of its span (lines counted from its
//! function's first line; four "-" for a mutant of no function), its outcome, its build and test seconds, when
//! its run began (RFC 3339), what was tested ("commit 1a2b3c4d5e6f") and the fingerprint of its function's code
//! as tested ("-" where it is not known: uncommitted changes). Everything read is checked, and a row is written
//! only if it reads back as what was meant.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// An input that is not what it should be: one line naming the problem (exit status 2).
#[derive(Debug, PartialEq)]
pub struct Bad(pub String);

/// A `Bad` from anything printable.
pub fn bad<T>(what: impl Into<String>) -> Result<T, Bad> {
    Err(Bad(what.into()))
}

const HEADER: &str = "# cargo xtask mutants --record: name, start line in function, start column, end line in \
                      function, end column, outcome, build s, test s, run began, tested, function's fingerprint";
/// The header `.ci/mutants` wrote, before the xtask: the same rows.
const OLD_HEADER: &str = "# .ci/mutants --record: name, start line in function, start column, end line in \
                          function, end column, outcome, build s, test s, run began, tested, function's fingerprint";

/// A mutant's outcome, as cargo-mutants names it (its "Failure", no verdict, is none of these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Caught,
    Missed,
    Unviable,
    Timeout,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Caught, Kind::Missed, Kind::Unviable, Kind::Timeout];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Caught => "CaughtMutant",
            Kind::Missed => "MissedMutant",
            Kind::Unviable => "Unviable",
            Kind::Timeout => "Timeout",
        }
    }

    pub fn parse(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == text)
    }

    /// Between the passes of one run: caught beats a timeout, which beats the rest.
    pub fn rank(self) -> u8 {
        match self {
            Kind::Caught => 2,
            Kind::Timeout => 1,
            _ => 0,
        }
    }
}

/// One mutant, from cargo-mutants' JSON of it.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub name: String,
    pub file: String,
    /// Its span's first line and column and last line and column, lines counted from its function's first line.
    pub places: Option<[i64; 4]>,
    /// The first and last line (from 1) of its function (or of itself, for a mutant of no function).
    pub lines: (usize, usize),
}

impl Mutant {
    pub fn from_json(m: &Value) -> Result<Mutant, Bad> {
        let text = |v: &Value| v.as_str().map(str::to_owned);
        let (Some(name), Some(file)) = (text(&m["name"]), text(&m["file"])) else {
            let shown: String = m.to_string().chars().take(80).collect();
            return bad(format!(
                "not a cargo-mutants mutant (no name and file): {shown}"
            ));
        };
        let line = |v: &Value, end: &str, what: &str| v[end][what].as_i64();
        let function = &m["function"]["span"];
        let span = &m["span"];
        let unreadable = || Bad(format!("mutant {name:?} has no readable span"));
        let whole = if function.is_object() { function } else { span };
        let (first, last) = (line(whole, "start", "line"), line(whole, "end", "line"));
        let (Some(first), Some(last)) = (first, last) else {
            return Err(unreadable());
        };
        let places = if function.is_object() && span.is_object() {
            let read = |end, what| line(span, end, what).ok_or_else(unreadable);
            let (a, b, c, d) = (
                read("start", "line")?,
                read("start", "column")?,
                read("end", "line")?,
                read("end", "column")?,
            );
            Some([a - first, b, c - first, d])
        } else {
            None
        };
        let lines = (first.max(0) as usize, last.max(0) as usize);
        Ok(Mutant {
            name,
            file,
            places,
            lines,
        })
    }

    /// Which mutant this is, whatever its lines: its file, its change and its place in its function. So a run
    /// and its rerun on a later commit, where lines were added above the function, count one mutant once.
    pub fn key(&self) -> String {
        key_of(&self.name, &self.file, self.places)
    }
}

fn key_of(name: &str, file: &str, places: Option<[i64; 4]>) -> String {
    match places {
        None => name.to_owned(),
        Some([a, b, c, d]) => format!("{file}\t{}\t{a}\t{b}\t{c}\t{d}", unplaced(name)),
    }
}

/// A name without its line and column: "src/x.rs:12:5: replace ..." -> "src/x.rs: replace ...".
pub fn unplaced(name: &str) -> String {
    let mut parts = name.splitn(4, ':');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(file), Some(line), Some(column), Some(rest))
            if digits(line) && digits(column) && rest.starts_with(' ') =>
        {
            format!("{file}:{rest}")
        }
        _ => name.to_owned(),
    }
}

fn digits(text: &str) -> bool {
    (1..=7).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit())
}

/// What a function's code is: 16 hex digits of the SHA-256 of lines `first` to `last` (from 1) of `text`. A
/// function moved by lines added above it keeps its fingerprint; one whose code changed gets another.
pub fn fingerprint(text: &str, (first, last): (usize, usize)) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let (from, to) = (
        first.saturating_sub(1).min(lines.len()),
        last.min(lines.len()),
    );
    let digest = Sha256::digest(lines[from..to.max(from)].join("\n").as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// When a run began, as a value that sorts in time, from cargo-mutants' start_time (RFC 3339 in UTC, such as
/// 2026-12-02T07:30:25.250825963Z): its date and time, then its nanoseconds. As text, "07:30:25.25Z" would sort
/// after "07:30:25.250825963Z".
pub fn began(text: &str) -> Result<(String, u32), Bad> {
    let refuse = || {
        Bad(format!(
            "{:?} is not a time in UTC (such as 2026-12-02T07:30:00Z)",
            clip(text, 40)
        ))
    };
    let stem = text.strip_suffix(['Z', 'z']).ok_or_else(refuse)?;
    let (stamp, fraction) = stem.split_once('.').unwrap_or((stem, "0"));
    let shaped = stamp.len() == 19
        && stamp.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            10 => b == b'T' || b == b't',
            13 | 16 => b == b':',
            _ => b.is_ascii_digit(),
        });
    let field = |at: usize| stamp[at..at + 2].parse::<u32>().unwrap_or(99);
    let ranges = [
        (5, 1, 12),
        (8, 1, 31),
        (11, 0, 23),
        (14, 0, 59),
        (17, 0, 60),
    ];
    if !shaped
        || !ranges
            .iter()
            .all(|&(at, low, high)| (low..=high).contains(&field(at)))
    {
        return Err(refuse());
    }
    if !(1..=9).contains(&fraction.len()) || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return Err(refuse());
    }
    let nanos = format!("{fraction:0<9}").parse().map_err(|_| refuse())?;
    Ok((format!("{}T{}", &stamp[..10], &stamp[11..]), nanos))
}

fn clip(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

/// The latest outcome of one mutant.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// When its run began (RFC 3339, checked).
    pub began: String,
    pub name: String,
    pub file: String,
    pub places: Option<[i64; 4]>,
    pub kind: Kind,
    pub build: f64,
    pub test: f64,
    /// What was tested: "commit 1a2b3c4d5e6f", maybe "with uncommitted changes".
    pub tested: String,
    /// The fingerprint of its function as tested, where that code is known.
    pub print: Option<String>,
}

impl Outcome {
    pub fn key(&self) -> String {
        key_of(&self.name, &self.file, self.places)
    }

    /// When its run began, as a value that sorts in time.
    pub fn when(&self) -> (String, u32) {
        began(&self.began).expect("checked when read")
    }
}

/// One row of the record.
fn parse_row(line: &str) -> Result<Outcome, Bad> {
    let cells: Vec<&str> = line.split('\t').collect();
    let [name, a, b, c, d, kind, build, test, run_began, tested, print] = cells[..] else {
        return bad(format!(
            "expected 11 tab-separated cells, got {}",
            cells.len()
        ));
    };
    let file = name.split(':').next().unwrap_or_default();
    let clean = |t: &str| !t.is_empty() && !t.contains(['\t', '\r', '\n']);
    if unplaced(name) == name || !clean(file) || !clean(name.split(": ").nth(1).unwrap_or_default())
    {
        return bad(format!(
            "{:?} is not a mutant's name (FILE:LINE:COLUMN: CHANGE)",
            clip(name, 80)
        ));
    }
    let places = if [a, b, c, d] == ["-"; 4] {
        None
    } else {
        let place = |p: &str| {
            (digits(p.strip_prefix('-').unwrap_or(p)))
                .then(|| p.parse().ok())
                .flatten()
        };
        match (place(a), place(b), place(c), place(d)) {
            (Some(a), Some(b), Some(c), Some(d)) => Some([a, b, c, d]),
            _ => {
                return bad(format!(
                    "expected four line and column numbers or four '-', got {:?}",
                    [a, b, c, d]
                ))
            }
        }
    };
    let Some(kind) = Kind::parse(kind) else {
        return bad(format!(
            "unknown outcome {:?} (one of CaughtMutant, MissedMutant, Unviable, Timeout)",
            clip(kind, 40)
        ));
    };
    let seconds = |cell: &str| {
        let (whole, tenths) = cell.split_once('.').unwrap_or((cell, "0"));
        (digits(whole) && tenths.len() <= 3 && digits(tenths))
            .then(|| cell.parse().ok())
            .flatten()
    };
    let (Some(build), Some(test)) = (seconds(build), seconds(test)) else {
        return bad(format!(
            "{:?} or {:?} is not a number of seconds",
            clip(build, 20),
            clip(test, 20)
        ));
    };
    began(run_began)?;
    if tested.chars().count() > 200 || tested.is_empty() || tested.chars().any(char::is_control) {
        return bad(format!(
            "{:?} does not say what was tested (up to 200 characters)",
            clip(tested, 40)
        ));
    }
    let hex16 = print.len() == 16
        && print
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if print != "-" && !hex16 {
        return bad(format!(
            "{:?} is not a fingerprint (16 hex digits, or '-')",
            clip(print, 40)
        ));
    }
    Ok(Outcome {
        began: run_began.to_owned(),
        name: name.to_owned(),
        file: file.to_owned(),
        places,
        kind,
        build,
        test,
        tested: tested.to_owned(),
        print: (print != "-").then(|| print.to_owned()),
    })
}

/// The row of one outcome, checked to read back as the same mutant and outcome.
fn format_row(o: &Outcome) -> Result<String, Bad> {
    let places = match o.places {
        None => [
            "-".to_owned(),
            "-".to_owned(),
            "-".to_owned(),
            "-".to_owned(),
        ],
        Some(p) => p.map(|n| n.to_string()),
    };
    let print = o.print.as_deref().unwrap_or("-");
    let row = format!(
        "{}\t{}\t{}\t{:.1}\t{:.1}\t{}\t{}\t{print}",
        o.name,
        places.join("\t"),
        o.kind.name(),
        o.build,
        o.test,
        o.began,
        o.tested
    );
    let cannot = |why: String| Bad(format!("cannot record {:?}: {why}", clip(&o.name, 80)));
    let read = parse_row(&row).map_err(|Bad(e)| cannot(e))?;
    if read.key() != o.key() || read.kind != o.kind || read.print != o.print || read.file != o.file
    {
        return Err(cannot("its row would read back as another mutant".into()));
    }
    Ok(row)
}

/// The record at `path` ({} when there is none), by mutant.
pub fn read(path: &Path) -> Result<BTreeMap<String, Outcome>, Bad> {
    if fs::symlink_metadata(path).is_err() {
        return Ok(BTreeMap::new());
    }
    let shown = path.display();
    let text = fs::read(path).map_err(|e| Bad(format!("{shown}: unreadable ({e})")))?;
    let text = String::from_utf8(text).map_err(|_| Bad(format!("{shown}: not UTF-8")))?;
    parse(&text).map_err(|(n, Bad(e))| Bad(format!("{shown}:{n}: {e}")))
}

/// The record's text, by mutant; an error with its line number.
pub fn parse(text: &str) -> Result<BTreeMap<String, Outcome>, (usize, Bad)> {
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    if !matches!(lines.next(), Some(HEADER | OLD_HEADER)) {
        return Err((
            1,
            Bad("not a mutants record (its first line is not the record's header)".into()),
        ));
    }
    let (mut rows, mut first) = (BTreeMap::new(), BTreeMap::new());
    for (n, line) in lines
        .enumerate()
        .map(|(i, l)| (i + 2, l))
        .filter(|(_, l)| !l.is_empty())
    {
        let outcome = parse_row(line).map_err(|e| (n, e))?;
        if let Some(before) = first.insert(outcome.key(), n) {
            return Err((n, Bad(format!("the mutant of line {before} again"))));
        }
        rows.insert(outcome.key(), outcome);
    }
    Ok(rows)
}

/// The record's text of `outcomes`: rows sorted, so that a change of the record reads as the mutants whose
/// outcome changed.
pub fn format(outcomes: &BTreeMap<String, Outcome>) -> Result<String, Bad> {
    let mut rows = outcomes
        .values()
        .map(format_row)
        .collect::<Result<Vec<_>, _>>()?;
    rows.sort();
    Ok(format!(
        "{HEADER}\n{}",
        rows.iter().map(|r| format!("{r}\n")).collect::<String>()
    ))
}

/// One writer of the record at a time: a lock on its folder, held until the value is dropped (two runs ending
/// together would otherwise each write the record without the other's outcomes).
pub fn lock(path: &Path) -> Result<File, Bad> {
    let folder = real(path)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let held = File::open(&folder).and_then(|f| f.lock().map(|()| f));
    held.map_err(|e| {
        Bad(format!(
            "{}: cannot hold the record ({e})",
            folder.display()
        ))
    })
}

/// The file a path names, through symbolic links (the path itself when it does not exist yet).
fn real(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| {
        let parent = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        fs::canonicalize(parent)
            .unwrap_or(parent.to_path_buf())
            .join(path.file_name().unwrap_or_default())
    })
}

/// Writes `text` as the record at `path`, whole or not at all: into a new file beside it, then renamed over it
/// (over the file a symbolic link names, keeping its permissions).
pub fn write(path: &Path, text: &str) -> Result<(), Bad> {
    let target = real(path);
    let temporary = target.with_file_name(format!(".mutants-record.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        if let Ok(before) = fs::metadata(&target) {
            fs::set_permissions(&temporary, before.permissions())?;
        }
        fs::rename(&temporary, &target)
    })();
    written.map_err(|e| {
        let _ = fs::remove_file(&temporary);
        Bad(format!(
            "{}: could not write the record ({e})",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ROW: &str = "src/alloc.rs:13:5: replace water_fill -> Vec<u64> with vec![0]\t6\t5\t6\t47\tCaughtMutant\t\
                       8.3\t0.5\t2026-12-02T10:47:08.371438829Z\tcommit d819c744b915\tc80756d267c1c0ed";

    #[test]
    fn times_sort_by_when_not_by_text() {
        let a = began("2026-12-02T07:30:25.25Z").unwrap();
        let b = began("2026-12-02T07:30:25.250825963Z").unwrap();
        assert!(a < b, "{a:?} {b:?}");
        assert!(began("2026-12-02t07:30:26Z").unwrap() > b);
        assert_eq!(
            began("2026-12-02T07:30:00Z").unwrap(),
            ("2026-12-02T07:30:00".into(), 0)
        );
        for wrong in [
            "yesterday",
            "2026-13-02T00:00:00Z",
            "2026-12-02T07:30:00",
            "2026-12-02T24:00:00Z",
            "2026-12-02T08:30:00+01:00",
            "2026-12-02T07:30:00.Z",
        ] {
            assert!(began(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn a_mutant_is_known_by_its_place_in_its_function() {
        let at = |first: i64, line: i64| {
            Mutant::from_json(&json!({"name": format!("src/x.rs:{line}:9: replace f -> bool with true"),
                "file": "src/x.rs",
                "function": {"span": {"start": {"line": first, "column": 5}, "end": {"line": first + 4, "column": 6}}},
                "span": {"start": {"line": line, "column": 9}, "end": {"line": line, "column": 13}}}))
            .unwrap()
        };
        assert_eq!(at(80, 82).key(), at(83, 85).key());
        assert_ne!(at(80, 82).key(), at(80, 83).key());
        assert_eq!(at(80, 82).lines, (80, 84));
        assert_eq!(
            unplaced(&at(80, 82).name),
            "src/x.rs: replace f -> bool with true"
        );
        assert!(Mutant::from_json(&json!({"name": "x"})).is_err());
    }

    #[test]
    fn a_fingerprint_is_of_the_function_lines_only() {
        let text = "a\nfn f() {\n    1\n}\nb";
        let moved = "new\na\nfn f() {\n    1\n}\nb";
        assert_eq!(fingerprint(text, (2, 4)), fingerprint(moved, (3, 5)));
        assert_ne!(
            fingerprint(text, (2, 4)),
            fingerprint("a\nfn f() {\n    2\n}\nb", (2, 4))
        );
        assert_eq!(fingerprint(text, (2, 4)).len(), 16);
        // The SHA-256 of "x", its first 8 bytes.
        assert_eq!(fingerprint("x", (1, 1)), "2d711642b726b044");
    }

    #[test]
    fn the_record_reads_back_as_written_and_refuses_what_it_cannot_read() {
        let text = format!("{OLD_HEADER}\n{ROW}\n");
        let rows = parse(&text).unwrap();
        let only = rows.values().next().unwrap();
        assert_eq!(
            (only.kind, only.places, only.build),
            (Kind::Caught, Some([6, 5, 6, 47]), 8.3)
        );
        let written = format(&rows).unwrap();
        assert_eq!(written, format!("{HEADER}\n{ROW}\n"));
        assert_eq!(parse(&written).unwrap(), rows);
        let refused = |row: &str| parse(&format!("{HEADER}\n{row}\n")).unwrap_err();
        assert_eq!(
            refused(&format!("{ROW}\n{ROW}")),
            (3, Bad("the mutant of line 2 again".into()))
        );
        assert_eq!(refused(&ROW.replace("CaughtMutant", "Failure")).0, 2);
        assert_eq!(refused(&ROW.replace("2026-12-02T", "2026-13-02T")).0, 2);
        assert_eq!(refused(&ROW.replace("c80756d267c1c0ed", "xyz")).0, 2);
        assert_eq!(
            refused(&ROW.replace("src/alloc.rs:13:5:", "src/alloc.rs:")).0,
            2
        );
        assert_eq!(refused(&ROW.replace("\t6\t5\t", "\t6\t")).0, 2);
        assert_eq!(parse("name\n").unwrap_err().0, 1);
        // A cell that would not read back (a tab in what was tested) is not written.
        let mut odd = only.clone();
        odd.tested = "commit\tx".into();
        assert!(format(&BTreeMap::from([(odd.key(), odd)])).is_err());
    }

    #[test]
    fn the_record_is_written_whole_through_a_link_keeping_its_mode() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let dir = std::env::temp_dir().join(format!("xtask-record-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (file, link) = (dir.join("record.tsv"), dir.join("link.tsv"));
        fs::write(&file, "old").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
        let _ = fs::remove_file(&link);
        symlink(&file, &link).unwrap();
        let rows = parse(&format!("{HEADER}\n{ROW}\n")).unwrap();
        let _held = lock(&link).unwrap();
        write(&link, &format(&rows).unwrap()).unwrap();
        assert_eq!(read(&link).unwrap(), rows);
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
        assert!(read(&dir.join("none.tsv")).unwrap().is_empty());
        fs::write(&file, "not a record").unwrap();
        assert_eq!(
            read(&file).unwrap_err().0,
            format!(
                "{}:1: not a mutants record (its first line is not the record's header)",
                file.display()
            )
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
