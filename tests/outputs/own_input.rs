//! No output over the command's own input (issue 29, point 5): an output file that is the same file as an input
//! of the same command (by path, through `..`, or by device and inode), and a report folder that is or holds an
//! input of the command (or its JUnit file), are refused with exit 2 and one line naming both, and nothing is
//! read, written or removed.

use super::links::{playground, snapshot};
use super::*;

/// A run of `args` (`D/` standing for the playground's path) refused with one line holding every one of
/// `needles`, the playground left exactly as it was.
fn refused_over_input(d: &Path, args: &[&str], needles: &[&str]) {
    let before = snapshot(d);
    let root = format!("{}/", d.display());
    let args: Vec<String> = args.iter().map(|a| a.replace("D/", &root)).collect();
    let out = budgetlab().args(&args).output().unwrap();
    for needle in needles {
        assert_refused(&out, &needle.replace("D/", &root));
    }
    assert_eq!(snapshot(d), before, "{}", args.join(" "));
}

#[test]
fn an_output_file_that_is_its_own_input_is_refused() {
    let dir = playground();
    let d = dir.path();
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/many-small.toml");
    fs::copy(scenario, d.join("s.toml")).unwrap();
    fs::hard_link(d.join("corpus.jsonl"), d.join("hard.jsonl")).unwrap();
    fs::create_dir(d.join("sub")).unwrap();
    let same = "is the same file as";
    // The JUnit file over the results.json that --baseline or --current reads (a folder is read by its
    // results.json).
    refused_over_input(
        d,
        &[
            "check",
            "--baseline",
            "D/base",
            "--current",
            "D/base/results.json",
            "--junit",
            "D/base/results.json",
        ],
        &[
            "budgetlab: invalid --junit \"D/base/results.json\"",
            &format!("{same} --baseline \"D/base/results.json\""),
        ],
    );
    refused_over_input(
        d,
        &[
            "check",
            "--baseline",
            "D/base/results.json",
            "--current",
            "D/base/sub/../results.json",
            "--junit",
            "D/sub/../base/results.json",
        ],
        &["is the same file as --baseline"],
    );
    // calibrate's scenario over its corpus, by path and by a hard link to it.
    refused_over_input(
        d,
        &["calibrate", "D/corpus.jsonl", "--out", "D/corpus.jsonl"],
        &[&format!(
            "invalid --out \"D/corpus.jsonl\": {same} FILE.jsonl \"D/corpus.jsonl\""
        )],
    );
    refused_over_input(
        d,
        &["calibrate", "D/hard.jsonl", "--out", "D/corpus.jsonl"],
        &[&format!("{same} FILE.jsonl \"D/hard.jsonl\"")],
    );
    // import's batches over a log it reads.
    refused_over_input(
        d,
        &[
            "import",
            "--format",
            "auto",
            "D/corpus.jsonl",
            "--out",
            "D/sub/../corpus.jsonl",
        ],
        &[&format!("{same} PATH \"D/corpus.jsonl\"")],
    );
    // generate's batches or needles over the scenario file it generates from.
    for flag in ["--out", "--needles"] {
        refused_over_input(
            d,
            &["generate", "--scenario", "D/s.toml", flag, "D/s.toml"],
            &[&format!(
                "invalid {flag} \"D/s.toml\": {same} --scenario \"D/s.toml\""
            )],
        );
    }
}

#[test]
fn a_report_folder_holding_its_own_input_is_refused() {
    let dir = playground();
    let d = dir.path();
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/many-small.toml");
    fs::copy(scenario, d.join("base/s.toml")).unwrap();
    fs::copy(d.join("corpus.jsonl"), d.join("base/b.jsonl")).unwrap();
    let holds = "which the new report would replace";
    refused_over_input(
        d,
        &["merge", "D/base", "--out", "D/base"],
        &[&format!(
            "invalid --out \"D/base\": is DIR \"D/base\", {holds}"
        )],
    );
    refused_over_input(
        d,
        &[
            "run",
            "--batches-file",
            "D/base/b.jsonl",
            "--strategies",
            "reference",
            "--out",
            "D/base",
        ],
        &[&format!(
            "invalid --out \"D/base\": holds --batches-file \"D/base/b.jsonl\", {holds}"
        )],
    );
    refused_over_input(
        d,
        &[
            "run",
            "--scenarios",
            "D/base/s.toml",
            "--strategies",
            "reference",
            "--batches",
            "2",
            "--out",
            "D/base",
        ],
        &[&format!("holds --scenarios \"D/base/s.toml\", {holds}")],
    );
    refused_over_input(
        d,
        &[
            "sweep",
            "--scenario",
            "D/base/s.toml",
            "--budgets",
            "1000..2000",
            "--steps",
            "2",
            "--strategies",
            "reference",
            "--batches",
            "2",
            "--out",
            "D/base/../base",
        ],
        &[&format!("holds --scenario \"D/base/s.toml\", {holds}")],
    );
    refused_over_input(
        d,
        &["profile", "D/base/b.jsonl", "--out", "D/base"],
        &[&format!("holds SOURCE \"D/base/b.jsonl\", {holds}")],
    );
    refused_over_input(
        d,
        &[
            "conform",
            "--strategy",
            "reference",
            "--cases",
            "2",
            "--out",
            "D/conform",
            "--junit",
            "D/conform/junit.xml",
        ],
        &[&format!(
            "invalid --out \"D/conform\": holds --junit \"D/conform/junit.xml\", {holds}"
        )],
    );
}

#[test]
fn outputs_beside_their_inputs_are_written() {
    let dir = playground();
    let d = dir.path();
    // A JUnit file inside the report folder it checks is not its input: the results.json there is.
    let out = budgetlab()
        .args(["check", "--baseline"])
        .arg(d.join("base"))
        .arg("--current")
        .arg(d.join("base"))
        .arg("--junit")
        .arg(d.join("base/junit.xml"))
        .output()
        .unwrap();
    assert_success(&out);
    assert!(d.join("base/junit.xml").is_file());
    // A run's report beside (not around) its batches file.
    let out = budgetlab()
        .args(["run", "--strategies", "reference", "--batches", "2"])
        .arg("--batches-file")
        .arg(d.join("corpus.jsonl"))
        .arg("--out")
        .arg(d.join("corpus"))
        .output()
        .unwrap();
    assert_success(&out);
}

#[test]
fn finalize_never_persists_over_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("arts")).unwrap();
    let batch = r#"[{"callId":"c1","toolName":"shell","responseParts":[{"functionResponse":{"id":"c1","name":"shell","response":{"output":"0123456789"}}}]}]"#;
    fs::write(d.join("arts/batch.txt"), batch).unwrap();
    fs::write(d.join("arts/batch.json"), batch).unwrap();
    let finalize = |input: &str| {
        budgetlab()
            .current_dir(d)
            .args(["finalize", "--budget", "5", "--backend", "fs"])
            .args(["--artifact-dir", "arts", "--input", input])
            .output()
            .unwrap()
    };
    let before = snapshot(d);
    let out = finalize("arts/batch.txt");
    assert_refused(
        &out,
        "holds --input \"arts/batch.txt\", which an artifact (<id>.txt) may replace",
    );
    assert_eq!(snapshot(d), before);
    // Beside the artifacts under another name, or elsewhere, the input is read.
    assert_success(&finalize("arts/batch.json"));
    assert_eq!(fs::read_to_string(d.join("arts/batch.txt")).unwrap(), batch);
}
