//! The production finalizer's sample vectors (tests/vectors, copied from shared/vectors): every input batch,
//! run through the real `budgetlab finalize` binary, must print exactly the expected JSON (key order aside).

use assert_cmd::Command;
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors");

#[test]
fn finalize_matches_every_production_vector() {
    let sample = std::fs::read_to_string(format!("{DIR}/finalizer-sample.jsonl")).unwrap();
    let mut checked = 0;
    for line in sample.lines().filter(|l| !l.trim().is_empty()) {
        let vector: Value = serde_json::from_str(line).unwrap();
        let name = vector["name"].as_str().unwrap();
        let budget = match &vector["budget"] {
            Value::String(s) => s.clone(),
            n => n.to_string(),
        };
        let mut cmd = Command::cargo_bin("budgetlab").unwrap();
        cmd.args(["finalize", "--budget", &budget])
            .args(["--artifact-dir", vector["artifactDir"].as_str().unwrap()])
            .args([
                "--plan-reminder-file",
                &format!("{DIR}/plan-reminder-edit.txt"),
            ])
            .args([
                "--plan-reminder-file",
                &format!("{DIR}/plan-reminder-plan-only.txt"),
            ]);
        for id in vector["failPersist"].as_array().unwrap() {
            cmd.args(["--fail-persist", id.as_str().unwrap()]);
        }
        let out = cmd
            .write_stdin(vector["input"].to_string())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(got, vector["expected"], "vector {name}");
        checked += 1;
    }
    assert_eq!(checked, 20);
}
