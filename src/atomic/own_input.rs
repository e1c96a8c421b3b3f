//! No output over the command's own input. Before a command reads anything, each of its outputs is held against
//! each of its inputs: an output file may not be the file an input names (the same path once `..` and the
//! folders' links are resolved, or the same device and inode), and a report folder, which the new report replaces
//! whole, may not hold an input. Both are refused with one line naming the two flags and paths, so that no
//! command destroys what it reads.

use std::fs;
use std::path::{Path, PathBuf};

use super::{identity, is_stdout, same_inode};
use crate::error::{Error, Result};

/// One path a command reads or writes, with the flag (or argument name) that gave it.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    /// The flag, e.g. `--current`, or the argument's name, e.g. `FILE.jsonl`.
    pub flag: &'a str,
    /// The path as given.
    pub path: &'a Path,
}

impl<'a> Named<'a> {
    /// `path`, given with `flag`.
    pub fn new(flag: &'a str, path: &'a Path) -> Self {
        Named { flag, path }
    }
}

/// Refuses the output file `output` when it is the same file as one of `inputs`. Standard output (`-`) is
/// nobody's input, and standard input (`-`) nobody's output. An input folder is compared by the files in it
/// that the command reads: give those, not the folder.
pub fn refuse_same_file(output: Named<'_>, inputs: &[Named<'_>]) -> Result<()> {
    if is_stdout(output.path) {
        return Ok(());
    }
    for input in inputs.iter().filter(|i| !is_stdout(i.path)) {
        if identity(output.path) == identity(input.path) || same_inode(output.path, input.path) {
            return Err(Error::invalid(
                output.flag,
                output.path.display().to_string(),
                format!(
                    "is the same file as {} {:?}, which it would replace; write the output elsewhere",
                    input.flag,
                    input.path.display().to_string()
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses the report folder `folder` when it is, or holds, one of `inside`: a path the command reads (or
/// another of its outputs), which replacing the folder would remove. Paths that do not exist yet are placed by
/// the part of them that does.
pub fn refuse_inside(folder: Named<'_>, inside: &[Named<'_>]) -> Result<()> {
    if is_stdout(folder.path) {
        return Ok(());
    }
    let root = placed(folder.path);
    for held in inside.iter().filter(|i| !is_stdout(i.path)) {
        let at = placed(held.path);
        if at.starts_with(&root) {
            let how = if at == root { "is" } else { "holds" };
            return Err(Error::invalid(
                folder.flag,
                folder.path.display().to_string(),
                format!(
                    "{how} {} {:?}, which the new report would replace; write the report elsewhere",
                    held.flag,
                    held.path.display().to_string()
                ),
            ));
        }
    }
    Ok(())
}

/// Where `path` is: its longest existing ancestor resolved (`..`, links), the rest appended as written, and the
/// whole made absolute.
fn placed(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut at = absolute.as_path();
    loop {
        if let Ok(real) = fs::canonicalize(at) {
            return rest.iter().rev().fold(real, |p: PathBuf, c| p.join(c));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return absolute,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_its_own_input_by_path_by_dotdot_and_by_hard_link() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        fs::write(&file, "x").unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let dotdot = dir.path().join("sub").join("..").join("a.json");
        let hard = dir.path().join("b.json");
        fs::hard_link(&file, &hard).unwrap();
        let other = dir.path().join("c.json");
        fs::write(&other, "x").unwrap();
        for same in [&file, &dotdot, &hard] {
            let err = refuse_same_file(
                Named::new("--junit", same),
                &[Named::new("--current", &file)],
            )
            .unwrap_err()
            .to_string();
            assert_eq!(
                err,
                format!(
                    "invalid --junit {:?}: is the same file as --current {:?}, which it would replace; \
                     write the output elsewhere",
                    same.display().to_string(),
                    file.display().to_string()
                )
            );
        }
        let inputs = [
            Named::new("--current", &file),
            Named::new("-", Path::new("-")),
        ];
        refuse_same_file(Named::new("--junit", &other), &inputs).unwrap();
        refuse_same_file(Named::new("--junit", Path::new("-")), &inputs).unwrap();
    }

    #[test]
    fn a_folder_holds_what_is_in_it_even_before_either_exists() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("report");
        let inside = out.join("deeper").join("batches.jsonl");
        let beside = dir.path().join("reports2").join("batches.jsonl");
        let folder = Named::new("--out", &out);
        assert!(refuse_inside(folder, &[Named::new("--batches-file", &inside)]).is_err());
        assert!(refuse_inside(folder, &[Named::new("SHARD", &out)]).is_err());
        refuse_inside(folder, &[Named::new("--batches-file", &beside)]).unwrap();
        fs::create_dir_all(inside.parent().unwrap()).unwrap();
        fs::write(&inside, "x").unwrap();
        let dotdot = out.join("deeper").join("..");
        let err = refuse_inside(folder, &[Named::new("SHARD", &dotdot)])
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("invalid --out "), "{err}");
        assert!(err.contains(": is SHARD"), "{err}");
        let err = refuse_inside(folder, &[Named::new("--batches-file", &inside)])
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            format!(
                "invalid --out {:?}: holds --batches-file {:?}, which the new report would replace; \
                 write the report elsewhere",
                out.display().to_string(),
                inside.display().to_string()
            )
        );
    }
}
