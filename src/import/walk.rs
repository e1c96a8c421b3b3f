//! From the paths a user gives to the sessions to read, in a deterministic order: paths in the order given,
//! each folder walked depth first with its entries sorted by name (byte order).
//!
//! A walk picks up files whose names the format wants (by extension), skips hidden entries (names starting
//! with `.`, such as budgetlab's own temporary files) and the output file itself, does not follow symbolic
//! links to folders (so a link cannot make it loop), and refuses folders nested deeper than [`MAX_WALK_DEPTH`].
//! A folder holding files named `<number>.json` may be an OpenHands event stream: those files become one
//! candidate, in numeric order, which detection confirms or splits back into single files.

use std::path::{Path, PathBuf};

use super::read::Source;
use crate::error::{Error, Result};

/// The deepest folder nesting a walk enters below a given folder.
pub const MAX_WALK_DEPTH: usize = 64;

/// A session to read: the source, and whether the user named it directly (then it is read whatever its name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Candidate {
    /// The file, or a folder of numbered event files.
    pub source: Source,
    /// Given on the command line rather than found in a folder.
    pub given: bool,
}

/// The candidates under `paths`, in order. `wants` says which file names a walk picks up; `exclude` (canonical
/// paths) are never picked up.
pub(super) fn collect(
    paths: &[PathBuf],
    wants: &dyn Fn(&str) -> bool,
    exclude: &[PathBuf],
) -> Result<Vec<Candidate>> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            walk(path, 0, wants, exclude, &mut out)?;
        } else {
            out.push(Candidate {
                source: Source::file(path),
                given: true,
            });
        }
    }
    Ok(out)
}

/// The number of an event file name (`12.json` -> 12).
fn event_number(name: &str) -> Option<u64> {
    let stem = name.strip_suffix(".json")?;
    if stem.is_empty() || stem.len() > 18 || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

fn walk(
    dir: &Path,
    depth: usize,
    wants: &dyn Fn(&str) -> bool,
    exclude: &[PathBuf],
    out: &mut Vec<Candidate>,
) -> Result<()> {
    if depth > MAX_WALK_DEPTH {
        return Err(Error::invalid(
            "PATH",
            dir.display().to_string(),
            format!("folders nested deeper than {MAX_WALK_DEPTH} levels"),
        ));
    }
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        entries.push((entry.file_name(), entry.path()));
    }
    entries.sort();
    let mut events: Vec<(u64, PathBuf)> = Vec::new();
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for (name, path) in entries {
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let link = std::fs::symlink_metadata(&path)
            .map_err(|e| Error::io(&path, e))?
            .file_type()
            .is_symlink();
        let Ok(meta) = std::fs::metadata(&path) else {
            continue; // a dangling link
        };
        if meta.is_dir() {
            if !link {
                dirs.push(path);
            }
            continue;
        }
        if !meta.is_file() {
            continue;
        }
        if !exclude.is_empty()
            && path
                .canonicalize()
                .is_ok_and(|real| exclude.contains(&real))
        {
            continue;
        }
        if let Some(n) = event_number(&name) {
            events.push((n, path));
        } else if wants(&name) {
            files.push(path);
        }
    }
    if !events.is_empty() {
        events.sort();
        if wants("0.json") {
            out.push(Candidate {
                source: Source {
                    path: dir.to_path_buf(),
                    events: Some(events.into_iter().map(|(_, p)| p).collect()),
                },
                given: false,
            });
        }
    }
    for path in files {
        out.push(Candidate {
            source: Source::file(path),
            given: false,
        });
    }
    for sub in dirs {
        walk(&sub, depth + 1, wants, exclude, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_sorted_skips_hidden_and_groups_numbered_events() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for p in [
            "b/2.jsonl",
            "b/10.jsonl",
            "a.jsonl",
            ".hidden.jsonl",
            "notes.txt",
            "s/events/10.json",
            "s/events/2.json",
            "s/events/0.json",
            "s/meta.json",
            "out.jsonl",
        ] {
            let path = root.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "{}").unwrap();
        }
        let wants = |n: &str| n.ends_with(".jsonl") || n.ends_with(".json");
        let exclude = root.join("out.jsonl").canonicalize().unwrap();
        let found = collect(
            &[root.to_path_buf()],
            &wants,
            std::slice::from_ref(&exclude),
        )
        .unwrap();
        let rel = |p: &Path| p.strip_prefix(root).unwrap().display().to_string();
        let names: Vec<String> = found
            .iter()
            .map(|c| match &c.source.events {
                Some(ev) => format!(
                    "{} {:?}",
                    rel(&c.source.path),
                    ev.iter().map(|p| rel(p)).collect::<Vec<_>>()
                ),
                None => rel(&c.source.path),
            })
            .collect();
        assert_eq!(
            names,
            [
                "a.jsonl",
                "b/10.jsonl",
                "b/2.jsonl",
                "s/meta.json",
                "s/events [\"s/events/0.json\", \"s/events/2.json\", \"s/events/10.json\"]",
            ]
        );
        assert!(found.iter().all(|c| !c.given));
        let given = collect(&[root.join("notes.txt")], &wants, &[]).unwrap();
        assert!(given[0].given);
        let e = collect(&[root.join("missing")], &wants, &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing"), "{e}");
    }
}
