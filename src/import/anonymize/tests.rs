//! Tests of anonymization: class-preserving replacement, lengths in UTF-16 units, kept structure and needles.

use super::*;
use crate::text::utf16_len;
use proptest::prelude::*;

/// The class a character must keep: `None` for characters that must stay exactly as they are.
fn class(c: char) -> Option<(u8, usize)> {
    if !c.is_alphanumeric() {
        return None;
    }
    let kind = match c {
        'a'..='z' => 0,
        'A'..='Z' => 1,
        '0'..='9' => 2,
        _ if c.is_numeric() => 3,
        _ => 4,
    };
    Some((kind, c.len_utf16()))
}

/// Every character keeps its class, every other character stays, so lengths and lines stay.
fn assert_same_shape(a: &str, b: &str) {
    assert_eq!(utf16_len(a), utf16_len(b), "{a:?} -> {b:?}");
    assert_eq!(a.chars().count(), b.chars().count(), "{a:?} -> {b:?}");
    for (x, y) in a.chars().zip(b.chars()) {
        match class(x) {
            None => assert_eq!(x, y, "{a:?} -> {b:?}"),
            Some((kind, len)) => {
                assert!(y.is_alphanumeric(), "{x:?} -> {y:?}");
                assert_eq!(y.len_utf16(), len, "{x:?} -> {y:?}");
                if kind <= 2 {
                    assert_eq!(class(y).unwrap().0, kind, "{x:?} -> {y:?}");
                } else {
                    assert!(!y.is_ascii(), "{x:?} -> {y:?}");
                }
            }
        }
    }
}

#[test]
fn keeps_classes_lengths_and_everything_that_is_not_a_letter_or_digit() {
    let mut a = Anonymizer::new(Seed(7));
    let text = "Secret sk-ABC123xyz at /home/alice/ \r\n\tüber Straße ΑΒΓ 中文 𠀀𠀁 𝟏 ٣ 😀!\n";
    let out = a.plain(text);
    assert_same_shape(text, &out);
    assert_ne!(out, text);
    assert!(
        !out.contains("ABC123xyz") && !out.contains("alice"),
        "{out}"
    );
}

#[test]
fn keeps_keywords_suffixes_and_ansi_sequences() {
    let mut a = Anonymizer::new(Seed(1));
    let all = KEYWORDS.join(" ");
    assert_eq!(a.plain(&all), all);
    let text = "\u{1b}[31mFAILED\u{1b}[0m tests/x.py::t - ZeroDivisionError: boom\nnpm ERR! code E404\n\
                Found 12 matches\n 3 files changed, 4 insertions(+)\nthread 'main' panicked at src/a.rs:1:5\n\
                Traceback (most recent call last):\n<returncode>1</returncode>\nExit code: 2\n\
                [Command finished with exit code 1]\n\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7}";
    let out = a.plain(text);
    assert_same_shape(text, &out);
    for kept in [
        "\u{1b}[31mFAILED\u{1b}[0m",
        "Error: ",
        "npm ERR! code ",
        "Found ",
        " matches\n ",
        " files changed, ",
        " insertions(+)\nthread '",
        "main' panicked at ",
        "Traceback (most recent call last):\n<returncode>",
        "</returncode>\nExit code: ",
        "[Command finished with exit code ",
        "\u{1b}]8;;http://x\u{7}",
    ] {
        assert!(out.contains(kept), "{kept:?} lost in {out:?}");
    }
    assert!(!out.contains("ZeroDivision"), "{out}");
}

#[test]
fn json_keeps_keys_structure_and_validity() {
    let mut a = Anonymizer::new(Seed(3));
    let text = "{\n  \"total_count\": 1204,\n  \"items\": [{\"login\": \"alice\", \"score\": -0.5e3, \"ok\": true,\
                \"note\": \"l1\\nl2 \\u00e9 \\\"q\\\" \\u001b[1mB\\u001b[0m\", \"n\": null, \"z\": 0}],\n  \"error\": \"None\"\n}";
    let out = a.text(text);
    assert_same_shape(text, &out);
    let (x, y): (Value, Value) = (
        serde_json::from_str(text).unwrap(),
        serde_json::from_str(&out).unwrap(),
    );
    fn skeleton(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), skeleton(v))).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(skeleton).collect()),
            Value::String(_) => Value::String("s".into()),
            Value::Number(_) => Value::String("n".into()),
            other => other.clone(),
        }
    }
    assert_eq!(skeleton(&x), skeleton(&y));
    assert_ne!(x["items"][0]["login"], y["items"][0]["login"]);
    assert!(out.contains("\\u001b[1m") && out.contains("\\n"), "{out}");
}

#[test]
fn same_seed_same_text_other_seed_other_text_and_repeats_stay_repeats() {
    let text = "deploy token 8f3a9c2e for service billing-api on host db17";
    let a = Anonymizer::new(Seed(11)).plain(text);
    assert_eq!(Anonymizer::new(Seed(11)).plain(text), a);
    assert_ne!(Anonymizer::new(Seed(12)).plain(text), a);
    let mut one = Anonymizer::new(Seed(11));
    let twice = one.plain(&format!("{text}\n{text}"));
    assert_eq!(twice, format!("{a}\n{a}"));
}

proptest! {
    #[test]
    fn any_text_keeps_its_shape(text in "\\PC{0,80}", json in proptest::bool::ANY, seed in 0u64..4) {
        let mut a = Anonymizer::new(Seed(seed));
        let out = if json { a.text(&text) } else { a.plain(&text) };
        assert_same_shape(&text, &out);
    }

    #[test]
    fn any_json_text_stays_json_with_the_same_keys(
        keys in proptest::collection::vec("[a-zé_]{1,8}", 1..5),
        values in proptest::collection::vec(proptest::prop_oneof![
            "\\PC{0,20}".prop_map(Value::String),
            (-100000i64..100000).prop_map(|n| Value::Number(n.into())),
            Just(Value::Bool(true)),
            Just(Value::Null),
        ], 1..5),
        seed in 0u64..4,
    ) {
        let map: serde_json::Map<String, Value> = keys.into_iter().zip(values).collect();
        let text = serde_json::to_string_pretty(&Value::Object(map.clone())).unwrap();
        let out = Anonymizer::new(Seed(seed)).text(&text);
        assert_same_shape(&text, &out);
        let back: serde_json::Map<String, Value> = serde_json::from_str(&out).unwrap();
        prop_assert_eq!(back.keys().collect::<Vec<_>>(), map.keys().collect::<Vec<_>>());
    }
}

#[test]
fn anonymized_needles_stay_needles_of_their_kind() {
    // Every example line of the detector's tests, anonymized with three seeds, is still one needle of its
    // kind, the whole line: an anonymized corpus has the same needles.
    use crate::needles::tests::{ERROR_LINES, EXIT_LINES, SUMMARY_LINES};
    use crate::needles::NeedleKind;
    let mut failures = Vec::new();
    for seed in [1, 7, 2026] {
        let mut anonymizer = Anonymizer::new(Seed(seed));
        for (lines, kind) in [
            (EXIT_LINES, NeedleKind::ExitInfo),
            (SUMMARY_LINES, NeedleKind::SummaryLine),
            (ERROR_LINES, NeedleKind::FirstError),
        ] {
            for line in lines {
                let anonymized = anonymizer.plain(line);
                let found: Vec<(NeedleKind, usize, usize)> = crate::needles::detect(&anonymized)
                    .into_iter()
                    .map(|n| (n.kind, n.offset, n.len))
                    .collect();
                if found != [(kind, 0, utf16_len(&anonymized))] {
                    failures.push(format!("seed {seed}: {line:?} became {anonymized:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
