//! Token counts against the reference tokenizer. Every expected count here was computed once with OpenAI's own
//! tiktoken (0.14.0, Python) on OpenAI's published rank files, by `tests/oracle/tiktoken_counts.py` (see
//! `tests/vectors/README.md`), and pinned: the strings of `tests/vectors/tokens.json`, and the text of the first
//! batches of every shipped scenario. Both built-in encodings must give them exactly, and so must the same
//! vocabularies written out as rank files and loaded through `--tokenizer FILE`, which budgetlab encodes with its
//! own pre-tokenizer and merge rather than the crate's.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use budgetlab::tokens::{write_rank_file, Encoding, TokenTally};
use budgetlab::{Generator, Scenario, Tokenizer};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

#[derive(Debug, Deserialize)]
struct Vector {
    label: String,
    piece: String,
    repeat: usize,
    o200k_base: usize,
    cl100k_base: usize,
}

fn vectors() -> Vec<Vector> {
    #[derive(Deserialize)]
    struct File {
        vectors: Vec<Vector>,
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/tokens.json");
    let file: File = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    assert!(file.vectors.len() >= 30);
    file.vectors
}

fn expected(v: &Vector, e: Encoding) -> usize {
    match e {
        Encoding::O200kBase => v.o200k_base,
        Encoding::Cl100kBase => v.cl100k_base,
    }
}

/// The folder the built-in vocabularies are written to as rank files, once per test binary.
fn rank_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        for e in Encoding::ALL {
            let mut out = Vec::new();
            write_rank_file(e, &mut out).unwrap();
            std::fs::write(dir.path().join(format!("{}.tiktoken", e.as_str())), out).unwrap();
        }
        dir
    })
    .path()
}

fn rank_file(e: Encoding) -> PathBuf {
    rank_dir().join(format!("{}.tiktoken", e.as_str()))
}

/// The built-in vocabulary of `e` loaded through the rank-file path, once per test binary.
fn from_file(e: Encoding) -> &'static Tokenizer {
    static LOADED: OnceLock<[Tokenizer; 2]> = OnceLock::new();
    let all = LOADED.get_or_init(|| {
        Encoding::ALL.map(|e| Tokenizer::from_rank_file(&rank_file(e), e.pattern()).unwrap())
    });
    &all[Encoding::ALL.iter().position(|x| *x == e).unwrap()]
}

#[test]
fn builtin_encodings_count_what_tiktoken_counts() {
    for e in Encoding::ALL {
        let t = Tokenizer::builtin(e);
        for v in vectors() {
            let text = v.piece.repeat(v.repeat);
            assert_eq!(
                t.count(&text),
                expected(&v, e),
                "{} {}",
                e.as_str(),
                v.label
            );
        }
    }
}

#[test]
fn rank_files_of_the_builtins_count_what_tiktoken_counts() {
    for e in Encoding::ALL {
        let t = from_file(e);
        assert_eq!(t.vocabulary_len(), Tokenizer::builtin(e).vocabulary_len());
        for v in vectors() {
            let text = v.piece.repeat(v.repeat);
            assert_eq!(
                t.count(&text),
                expected(&v, e),
                "{} through its rank file: {}",
                e.as_str(),
                v.label
            );
        }
    }
}

#[test]
fn the_embedded_vocabularies_are_openais_published_files() {
    // The SHA-256 tiktoken checks its downloads against: the rank files byte for byte.
    for (e, sha) in [
        (
            Encoding::O200kBase,
            "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        ),
        (
            Encoding::Cl100kBase,
            "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        ),
    ] {
        let digest = Sha256::digest(std::fs::read(rank_file(e)).unwrap());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, sha, "{}", e.as_str());
    }
}

/// (scenario, text fields, UTF-16 units, o200k_base tokens, cl100k_base tokens) of batches 0..8, by tiktoken.
const SCENARIO_COUNTS: &[(&str, u64, u64, u64, u64)] = &[
    ("cjk-heavy", 34, 148_601, 67_129, 77_490),
    ("context-focus", 23, 917_185, 250_939, 251_146),
    ("large-window", 51, 156_073, 38_785, 38_778),
    ("many-small", 383, 140_543, 36_708, 36_664),
    ("mcp-heavy", 54, 755_197, 222_056, 227_219),
    ("mixed-realistic", 29, 58_603, 13_457, 13_466),
    ("one-giant", 179, 2_669_752, 765_632, 763_239),
    ("persist-failures", 38, 210_794, 56_104, 55_634),
    ("plan-mode", 41, 139_126, 33_844, 33_853),
    ("pre-persisted", 61, 300_450, 83_869, 83_085),
    ("shell-heavy", 44, 430_852, 130_241, 125_346),
    ("small-window", 45, 101_250, 28_041, 27_949),
    ("surrogate-storm", 34, 371_800, 295_108, 350_224),
    ("swe-agent-recorded", 8, 7_527, 2_048, 2_035),
];

#[test]
fn every_shipped_scenario_counts_what_tiktoken_counts() {
    let names: Vec<String> = Scenario::all_shipped()
        .into_iter()
        .map(|s| s.name)
        .collect();
    let pinned: Vec<&str> = SCENARIO_COUNTS.iter().map(|c| c.0).collect();
    assert_eq!(
        names, pinned,
        "pin the counts of a new scenario with tests/oracle/tiktoken_counts.py"
    );
    for &(name, fields, units, o200k, cl100k) in SCENARIO_COUNTS {
        let g = Generator::new(&Scenario::shipped(name).unwrap());
        let batches: Vec<_> = (0..8).map(|i| g.batch(i).batch).collect();
        for (e, tokens) in [(Encoding::O200kBase, o200k), (Encoding::Cl100kBase, cl100k)] {
            for (how, t) in [
                ("built in", Tokenizer::builtin(e)),
                ("rank file", from_file(e).clone()),
            ] {
                let tally = TokenTally::new(&batches, &t, name);
                assert_eq!(
                    (
                        tally.total.counts.fields,
                        tally.total.counts.units,
                        tally.total.counts.tokens
                    ),
                    (fields, units, tokens),
                    "{name}, {} {how}",
                    e.as_str()
                );
            }
        }
    }
}

fn bin() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/turn.json")
}

fn json_of(args: &[&str], input: &Path) -> Value {
    let out = bin()
        .arg("tokens")
        .arg(input)
        .args(args)
        .arg("--json")
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn tokens_reports_the_example_turn_with_tiktokens_counts() {
    // examples/turn.json by tiktoken: 5 text fields, 24,231 units, 7,315 o200k_base and 7,307 cl100k_base tokens.
    let o200k = json_of(&[], &example());
    assert_eq!(o200k["tokenizer"], "o200k_base");
    assert_eq!(o200k["batches"], 1);
    assert_eq!(o200k["entries"], 4);
    assert_eq!(o200k["total"]["fields"], 5);
    assert_eq!(o200k["total"]["units"], 24_231);
    assert_eq!(o200k["total"]["tokens"], 7_315);
    let cl100k = json_of(&["--tokenizer", "cl100k_base"], &example());
    assert_eq!(cl100k["total"]["tokens"], 7_307);
    let kinds: Vec<(&str, u64)> = o200k["byKind"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["tokens"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("shell", 3_803),
            ("short_success", 14),
            ("empty", 0),
            ("error_trace", 114),
            ("other", 3_384)
        ]
    );
    let out = bin().arg("tokens").arg(example()).assert().success();
    let md = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(md.contains("| total | 5 | 24231 | 7315 | 3.31 |\n"), "{md}");
    assert!(
        md.contains(
            "| run_shell_command | shell, empty, error_trace | 3 | 13401 | 3917 | 3.42 |\n"
        ),
        "{md}"
    );
}

#[test]
fn a_rank_file_on_the_command_line_counts_as_the_builtin() {
    let builtin = json_of(&[], &example());
    let file = rank_file(Encoding::O200kBase);
    let loaded = json_of(&["--tokenizer", file.to_str().unwrap()], &example());
    assert_eq!(loaded["tokenizer"], file.to_str().unwrap());
    for key in ["total", "byTool", "byKind"] {
        assert_eq!(loaded[key], builtin[key], "{key}");
    }
    let cl100k_file = rank_file(Encoding::Cl100kBase);
    let with_pattern = json_of(
        &[
            "--tokenizer",
            cl100k_file.to_str().unwrap(),
            "--tokenizer-pattern",
            "cl100k",
        ],
        &example(),
    );
    assert_eq!(with_pattern["total"]["tokens"], 7_307);
}

#[test]
fn generated_batches_read_from_standard_input() {
    let generated = bin()
        .args(["generate", "--scenario", "cjk-heavy", "--batches", "8"])
        .assert()
        .success();
    let out = bin()
        .args(["tokens", "-", "--json"])
        .write_stdin(generated.get_output().stdout.clone())
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["source"], "<stdin>");
    assert_eq!(v["batches"], 8);
    assert_eq!(v["total"]["units"], 148_601);
    assert_eq!(v["total"]["tokens"], 67_129);
}

fn fails(args: &[&str]) -> String {
    let out = bin().args(args).assert().code(2);
    assert!(out.get_output().stdout.is_empty());
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn bad_tokenizers_and_inputs_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let example = example();
    let example = example.to_str().unwrap();
    // A rank file with a bad line 258: named with its file and line.
    let mut text = std::fs::read_to_string(rank_file(Encoding::O200kBase)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let broken = lines[..257].join("\n") + "\nnot-base64! 257\n" + &lines[258..].join("\n");
    let path = dir.path().join("broken.tiktoken");
    std::fs::write(&path, broken).unwrap();
    let p = path.to_str().unwrap();
    assert_eq!(
        fails(&["tokens", example, "--tokenizer", p]),
        format!("budgetlab: {p}:258: the token `not-base64!` is not standard base64: its length is not a multiple of 4\n")
    );
    text.push_str("IQ== 5\n");
    std::fs::write(&path, &text).unwrap();
    assert_eq!(
        fails(&["tokens", example, "--tokenizer", p]),
        format!("budgetlab: {p}:199999: rank 5 is already the rank of the token on line 6\n")
    );
    assert_eq!(
        fails(&["tokens", example, "--tokenizer", "p50k_base"]),
        "budgetlab: invalid --tokenizer \"p50k_base\": not o200k_base, not cl100k_base, and no such file\n"
    );
    assert_eq!(
        fails(&["tokens", example, "--tokenizer-pattern", "cl100k"]),
        "budgetlab: invalid --tokenizer-pattern \"cl100k\": o200k_base has its own pre-tokenization; the pattern \
         applies to a rank file only\n"
    );
    assert_eq!(
        fails(&[
            "tokens",
            example,
            "--tokenizer",
            p,
            "--tokenizer-pattern",
            "gpt2"
        ]),
        "budgetlab: invalid --tokenizer-pattern \"gpt2\": expected o200k or cl100k\n"
    );
    let batches = dir.path().join("b.jsonl");
    std::fs::write(&batches, "[]\n[{\"callId\":\"a\",\"responseParts\":[]}]\n").unwrap();
    let b = batches.to_str().unwrap();
    assert_eq!(
        fails(&["tokens", b]),
        format!("budgetlab: {b}:2: entry 0: missing \"toolName\"\n")
    );
    let missing = dir.path().join("missing.jsonl");
    assert!(fails(&["tokens", missing.to_str().unwrap()]).contains("missing.jsonl: No such file"));
}

mod random_text {
    //! The two implementations against each other on random text made of the characters that decide the
    //! pre-tokenization: letters of every case, digits, apostrophes, punctuation, every kind of whitespace,
    //! CJK, emoji with joiners and modifiers, combining marks.

    use super::*;
    use proptest::prelude::*;

    const ALPHABET: &[&str] = &[
        "a",
        "Z",
        "é",
        "ǅ",
        "ß",
        "'",
        "'s",
        "'LL",
        "0",
        "7",
        "٣",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\u{a0}",
        "\u{3000}",
        "\u{85}",
        "\u{2028}",
        ".",
        "/",
        "\\",
        "-",
        "_",
        "{",
        "\"",
        "中",
        "文",
        "。",
        "ー",
        "한",
        "😀",
        "👍🏽",
        "\u{200d}",
        "🇯🇵",
        "\u{301}",
        "\u{93f}",
        "\x1b[",
        "<|endoftext|>",
        "ab",
        "the",
        "The",
    ];

    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(ALPHABET), 0..60)
            .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn the_rank_file_path_counts_as_the_builtin(text in text()) {
            for e in Encoding::ALL {
                prop_assert_eq!(from_file(e).count(&text), Tokenizer::builtin(e).count(&text), "{}", e.as_str());
            }
        }
    }
}
