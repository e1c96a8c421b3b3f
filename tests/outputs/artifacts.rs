//! The artifact folder of `finalize --backend fs` (point 6): resolved once at the start, written only inside,
//! and said.

use super::*;

/// A batch of one 40-unit shell output under `call_id`.
fn batch(call_id: &str) -> String {
    format!(
        r#"[{{"callId":"{call_id}","toolName":"shell","responseParts":[{{"functionResponse":{{"id":"{call_id}","name":"shell","response":{{"output":"0123456789012345678901234567890123456789"}}}}}}]}}]"#
    )
}

fn finalize_fs(artifact_dir: &str, input: &str) -> Output {
    budgetlab()
        .args([
            "finalize",
            "--budget",
            "10",
            "--backend",
            "fs",
            "--artifact-dir",
            artifact_dir,
        ])
        .write_stdin(input)
        .output()
        .unwrap()
}

#[test]
fn an_empty_artifact_dir_is_refused() {
    // A unique id, so that the check below cannot see someone else's file.
    let id = format!("budgetlab-test-{}-{:x}", std::process::id(), rand_suffix());
    let at_root = PathBuf::from(format!("/{id}.txt"));
    let out = finalize_fs("", &batch(&id));
    let wrote_at_root = at_root.exists();
    if wrote_at_root {
        // The old behaviour: budgetlab made this file; take it away again before failing.
        fs::remove_file(&at_root).unwrap();
    }
    assert!(!wrote_at_root, "an artifact was written at the root");
    assert_refused(&out, "--artifact-dir");
    let out = budgetlab()
        .args(["finalize", "--budget", "10", "--artifact-dir", ""])
        .write_stdin(batch("c1"))
        .output()
        .unwrap();
    assert_refused(&out, "--artifact-dir");
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

#[cfg(unix)]
#[test]
fn artifacts_go_where_the_report_says() {
    let root = tempfile::tempdir().unwrap();
    let real = root.path().join("real");
    fs::create_dir(&real).unwrap();
    let link = root.path().join("link");
    std::os::unix::fs::symlink("real", &link).unwrap();
    let out = finalize_fs(link.to_str().unwrap(), &batch("c1"));
    assert_success(&out);
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = format!("{}/c1.txt", real.canonicalize().unwrap().display());
    assert_eq!(got["persisted"][0]["path"], Value::String(path.clone()));
    assert_eq!(
        got["entries"][0]["persistedOutputFiles"][0],
        Value::String(path.clone())
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "0123456789012345678901234567890123456789"
    );
    assert_eq!(names(&real), ["c1.txt"]);
    assert_eq!(names(root.path()), ["link", "real"]);

    // A relative folder is reported as the absolute one it resolved to.
    let out = budgetlab()
        .current_dir(root.path())
        .args([
            "finalize",
            "--budget",
            "10",
            "--backend",
            "fs",
            "--artifact-dir",
            "rel",
        ])
        .write_stdin(batch("c2"))
        .output()
        .unwrap();
    assert_success(&out);
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = format!(
        "{}/c2.txt",
        root.path().canonicalize().unwrap().join("rel").display()
    );
    assert_eq!(got["persisted"][0]["path"], Value::String(path.clone()));
    assert!(Path::new(&path).is_file());
}

#[test]
fn artifact_ids_whose_file_name_fits_persist() {
    let root = tempfile::tempdir().unwrap();
    let art = root.path().join("art");
    for len in [239, 245, 251] {
        let id = "i".repeat(len);
        let out = finalize_fs(art.to_str().unwrap(), &batch(&id));
        assert_success(&out);
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        let path = format!("{}/{id}.txt", art.canonicalize().unwrap().display());
        assert_eq!(
            got["persisted"][0]["path"],
            Value::String(path.clone()),
            "{len}"
        );
        assert!(Path::new(&path).is_file());
    }
    assert_eq!(names(&art).len(), 3, "no temporary file left");
}
