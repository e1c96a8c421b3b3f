//! Tests of atomic files and report folders: exclusive temporary names, cleanup, special files, swaps.

use super::*;

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Whether the file system under `dir` can exchange two paths (the probe files are removed).
fn exchange_works(dir: &Path) -> bool {
    let probe = tempfile::tempdir_in(dir).unwrap();
    let (x, y) = (probe.path().join("x"), probe.path().join("y"));
    fs::write(&x, "x").unwrap();
    fs::write(&y, "y").unwrap();
    exchange(&x, &y).is_ok()
}

#[test]
fn commit_renames_and_drop_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("out.jsonl");
    let mut f = AtomicFile::create(&dest).unwrap();
    f.write_all(b"one\n").unwrap();
    assert!(!dest.exists());
    f.commit().unwrap();
    assert_eq!(fs::read(&dest).unwrap(), b"one\n");

    let mut g = AtomicFile::create(&dest).unwrap();
    g.write_all(b"half").unwrap();
    drop(g);
    assert_eq!(fs::read(&dest).unwrap(), b"one\n");
    assert_eq!(names(dir.path()), ["out.jsonl"]);
}

#[test]
fn a_failed_commit_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("out.jsonl");
    let mut f = AtomicFile::create(&dest).unwrap();
    f.write_all(b"one\n").unwrap();
    // The destination becomes a folder with something in it before the commit.
    fs::create_dir(&dest).unwrap();
    fs::write(dest.join("mine.txt"), "keep").unwrap();
    assert!(f.commit().is_err());
    assert_eq!(names(dir.path()), ["out.jsonl"]);
    assert_eq!(names(&dest), ["mine.txt"]);
}

#[test]
fn temporary_names_are_short_and_unpredictable() {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("x".repeat(255));
    let a = AtomicFile::create(&dest).unwrap();
    let b = AtomicFile::create(&dest).unwrap();
    let temps = names(dir.path());
    assert_eq!(temps.len(), 2);
    assert_ne!(temps[0], temps[1]);
    for t in &temps {
        assert!(t.starts_with(TEMP_PREFIX) && t.len() < 32, "{t}");
    }
    a.commit().unwrap();
    drop(b);
    assert_eq!(names(dir.path()), ["x".repeat(255)]);
}

#[test]
fn files_committed_together_are_all_put_back_when_one_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    fs::write(&a, "old a").unwrap();
    let mut files = Vec::new();
    for path in [&a, &b, &c] {
        let mut f = AtomicFile::create(path).unwrap();
        f.write_all(b"new").unwrap();
        files.push(f);
    }
    // `c` cannot be committed: a folder with something in it took its place.
    fs::create_dir(&c).unwrap();
    fs::write(c.join("mine.txt"), "keep").unwrap();
    assert!(commit_all(files).is_err());
    assert_eq!(names(&c), ["mine.txt"]);
    assert!(!b.exists(), "b was created and then taken back");
    if exchange_works(dir.path()) {
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
    } else {
        // Without an exchange a replaced file cannot come back; the others still do.
        assert_eq!(fs::read_to_string(&a).unwrap(), "new");
    }
    assert_eq!(names(dir.path()), ["a", "c"]);
}

#[test]
fn files_committed_together_all_arrive() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    fs::write(&a, "old a").unwrap();
    let mut files = Vec::new();
    for (path, text) in [(&a, "new a"), (&b, "new b")] {
        let mut f = AtomicFile::create(path).unwrap();
        f.write_all(text.as_bytes()).unwrap();
        files.push(f);
    }
    commit_all(files).unwrap();
    assert_eq!(fs::read_to_string(&a).unwrap(), "new a");
    assert_eq!(fs::read_to_string(&b).unwrap(), "new b");
    assert_eq!(names(dir.path()), ["a", "b"]);
}

#[test]
fn destinations() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        Destination::resolve(Path::new("-")).unwrap(),
        Destination::Stdout
    );
    for folder in [
        dir.path().to_path_buf(),
        dir.path().join("new/"),
        dir.path().join("."),
        dir.path().join(".."),
    ] {
        assert!(Destination::resolve(&folder).is_err(), "{folder:?}");
    }
    let file = dir.path().join("f");
    assert_eq!(
        Destination::resolve(&file).unwrap(),
        Destination::Replace(file.clone())
    );
    fs::create_dir(dir.path().join("sub")).unwrap();
    let other = Destination::resolve(&dir.path().join("sub/../f")).unwrap();
    assert!(other.same_as(&Destination::Replace(file.clone())));
    assert!(!Destination::Stdout.same_as(&other));
}
