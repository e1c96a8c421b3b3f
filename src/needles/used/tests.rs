//! The rules of used content: what a token is, first appearance, the window of turns, every line holding a used
//! token, positions, stop lists, path tails, line ends and ANSI text.

use super::*;
use crate::needles::slice_units;
use proptest::prelude::*;
use Utterance::{Context, Result as Res, Said};

/// The used lines of the results of `session` as (line index, needle text, tokens), one list a result.
fn found(session: &[Utterance<'_>], rules: UsedRules) -> Vec<Vec<(usize, String, Vec<String>)>> {
    let texts: Vec<&str> = session
        .iter()
        .filter_map(|u| match u {
            Res { text, .. } => Some(*text),
            _ => None,
        })
        .collect();
    used_content(session, &rules)
        .into_iter()
        .zip(texts)
        .map(|(used, text)| {
            used.lines
                .into_iter()
                .map(|l| {
                    (
                        l.line,
                        slice_units(text, l.offset, l.len).to_string(),
                        l.tokens,
                    )
                })
                .collect()
        })
        .collect()
}

fn lines_of(session: &[Utterance<'_>]) -> Vec<Vec<usize>> {
    found(session, UsedRules::default())
        .into_iter()
        .map(|r| r.into_iter().map(|(l, _, _)| l).collect())
        .collect()
}

#[test]
fn the_path_find_printed_and_the_next_call_opens_is_used() {
    let result = "Found 1 matches for \"parse_date\" in /repo:\n/repo/src/dates.py\nEnd of matches for \"parse_date\" in /repo\n";
    let session = [
        Context("Dates before 1970 are parsed wrong. Fix parse_date."),
        Said {
            turn: 0,
            text: "find_file parse_date",
        },
        Res {
            turn: 0,
            text: result,
        },
        Said {
            turn: 1,
            text: "Let me open it.\nopen /repo/src/dates.py",
        },
    ];
    assert_eq!(
        found(&session, UsedRules::default()),
        vec![vec![(
            1,
            "/repo/src/dates.py".to_string(),
            vec!["repo/src/dates.py".to_string()]
        )]]
    );
}

#[test]
fn a_used_line_in_the_middle_of_a_long_output_is_found_there() {
    let mut text = String::new();
    for i in 0..400 {
        if i == 217 {
            text.push_str("FAILED tests/test_money.py::test_round_half_even - AssertionError\n");
        } else {
            text.push_str(&format!("tests/test_money.py::test_case_{i} PASSED\n"));
        }
    }
    let session = [
        Said {
            turn: 0,
            text: "pytest -q tests",
        },
        Res {
            turn: 0,
            text: &text,
        },
        Said {
            turn: 1,
            text: "pytest tests/test_money.py::test_round_half_even -x",
        },
    ];
    let got = found(&session, UsedRules::default());
    // `tests/test_money.py` is on every line, and the agent wrote it: every line is used; the failing test's name
    // is on line 217 alone.
    assert_eq!(got[0].len(), 400);
    assert_eq!(got[0][0].0, 0);
    assert_eq!(got[0][0].2, vec!["tests/test_money.py"]);
    assert_eq!(got[0][217].0, 217);
    assert_eq!(
        got[0][217].1,
        "FAILED tests/test_money.py::test_round_half_even - AssertionError"
    );
    assert_eq!(
        got[0][217].2,
        vec!["tests/test_money.py", "test_round_half_even"]
    );
    let tokens = &used_content(&session, &UsedRules::default())[0].tokens;
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens[1].text, "test_round_half_even");
    assert_eq!(tokens[1].lines, vec![217]);
    assert_eq!(tokens[0].lines.len(), 400);
}

#[test]
fn a_token_the_task_or_an_earlier_call_named_is_not_used() {
    let session = [
        Context("The bug is in src/ledger/posting.py"),
        Said {
            turn: 0,
            text: "grep -rn balance_after src",
        },
        Res {
            turn: 0,
            text: "src/ledger/posting.py:88: def balance_after(self):\nsrc/ledger/report.py:12: total = balance_after()",
        },
        Said {
            turn: 1,
            text: "sed -n 80,100p src/ledger/posting.py && cat src/ledger/report.py",
        },
    ];
    // posting.py came from the task, balance_after from the call itself; report.py is new and used.
    assert_eq!(lines_of(&session), vec![vec![1]]);
}

#[test]
fn an_earlier_result_holding_the_token_makes_a_later_one_not_new() {
    let session = [
        Said {
            turn: 0,
            text: "ls",
        },
        Res {
            turn: 0,
            text: "Makefile\nsettlement.rs",
        },
        Said {
            turn: 1,
            text: "wc -l src",
        },
        Res {
            turn: 1,
            text: "12 settlement.rs",
        },
        Said {
            turn: 2,
            text: "cat settlement.rs",
        },
    ];
    // The first result holds settlement.rs first; the second does not.
    assert_eq!(lines_of(&session), vec![vec![1], Vec::<usize>::new()]);
}

#[test]
fn a_use_after_the_window_of_turns_does_not_count() {
    let session = [
        Said {
            turn: 0,
            text: "ls",
        },
        Res {
            turn: 0,
            text: "reconcile.py\nREADME",
        },
        Said {
            turn: 1,
            text: "cat README",
        },
        Said {
            turn: 2,
            text: "git status",
        },
        Said {
            turn: 3,
            text: "git log",
        },
        Said {
            turn: 4,
            text: "cat reconcile.py",
        },
    ];
    let rules = |turns| UsedRules::new(turns, DEFAULT_MIN_TOKEN_LEN).unwrap();
    // README is first used in turn 1; reconcile.py only in the 4th turn after the result.
    let lines = |r| {
        found(&session, r)
            .into_iter()
            .map(|x| x.into_iter().map(|(l, _, _)| l).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    assert_eq!(lines(rules(3)), vec![vec![1]]);
    assert_eq!(lines(rules(4)), vec![vec![0, 1]]);
    assert_eq!(lines(rules(1)), vec![vec![1]]);
}

#[test]
fn the_calls_own_turn_does_not_count_and_several_texts_of_one_turn_are_one_turn() {
    let session = [
        Said {
            turn: 7,
            text: "cat a.txt",
        },
        Res {
            turn: 7,
            text: "alpha-token-one",
        },
        // A call of the same turn recorded after the first result (a sequential record of parallel calls).
        Said {
            turn: 7,
            text: "echo alpha-token-one",
        },
        Res {
            turn: 7,
            text: "beta-token-two",
        },
        Said {
            turn: 8,
            text: "thinking about it",
        },
        Said {
            turn: 8,
            text: "echo beta-token-two",
        },
        Said { turn: 9, text: "x" },
        Said {
            turn: 10,
            text: "y",
        },
        Said {
            turn: 11,
            text: "alpha-token-one",
        },
    ];
    // Turn 8 (two texts) is one turn: beta's use counts. Alpha is used only in its own turn, then in the 4th.
    assert_eq!(lines_of(&session), vec![Vec::<usize>::new(), vec![0]]);
}

#[test]
fn short_tokens_and_stop_words_are_not_distinctive() {
    let session = [
        Said {
            turn: 0,
            text: "ls",
        },
        Res {
            turn: 0,
            text: "abc\nwhere\nWHERE\nab12\n...\n----",
        },
        Said {
            turn: 1,
            text: "cat abc where WHERE ab12 ... ----",
        },
    ];
    assert_eq!(lines_of(&session), vec![vec![3]]);
    let two = UsedRules::new(3, 2).unwrap();
    let got: Vec<usize> = found(&session, two)[0].iter().map(|x| x.0).collect();
    assert_eq!(got, vec![0, 3]);
}

#[test]
fn tokens_are_compared_with_their_case() {
    let session = [
        Said {
            turn: 0,
            text: "ls",
        },
        Res {
            turn: 0,
            text: "Settlement\n",
        },
        Said {
            turn: 1,
            text: "grep settlement",
        },
    ];
    assert_eq!(lines_of(&session), vec![Vec::<usize>::new()]);
}

#[test]
fn crlf_line_ends_are_not_part_of_the_needle() {
    let text = "total 2\r\nledger_main.c\r\nnotes.md\r\n";
    let session = [
        Said {
            turn: 0,
            text: "dir",
        },
        Res { turn: 0, text },
        Said {
            turn: 1,
            text: "type ledger_main.c",
        },
    ];
    let got = used_content(&session, &UsedRules::default());
    assert_eq!(got[0].lines.len(), 1);
    let line = &got[0].lines[0];
    assert_eq!((line.line, line.offset, line.len), (1, 9, 13));
    assert_eq!(got[0].tokens[0].offsets, vec![9]);
}

#[test]
fn ansi_sequences_are_looked_through_and_the_needle_is_the_raw_line() {
    let text = "\x1b[32mok\x1b[0m\n\x1b[31mFAILED\x1b[0m tests/\x1b[1mtest_fx.py\x1b[0m::test_rate_rounding\n";
    let session = [
        Said {
            turn: 0,
            text: "pytest",
        },
        Res { turn: 0, text },
        Said {
            turn: 1,
            text: "pytest -k test_rate_rounding",
        },
    ];
    let got = found(&session, UsedRules::default());
    assert_eq!(got[0].len(), 1);
    assert_eq!(got[0][0].0, 1);
    assert_eq!(
        got[0][0].1,
        "\x1b[31mFAILED\x1b[0m tests/\x1b[1mtest_fx.py\x1b[0m::test_rate_rounding"
    );
    assert_eq!(got[0][0].2, vec!["test_rate_rounding"]);
    // No token is glued to an escape sequence's parameters.
    let tokens: Vec<&str> = line_tokens("\x1b[31mFAILED\x1b[0m", 2, RuleParts::default())
        .iter()
        .map(|t| t.text)
        .collect();
    assert_eq!(tokens, vec!["FAILED"]);
}

#[test]
fn on_a_long_line_the_needle_is_the_token() {
    let long = format!(
        "{{\"items\": [{}], \"next\": \"cursor_7f3a9\"}}",
        "1, ".repeat(400)
    );
    let session = [
        Said {
            turn: 0,
            text: "curl api",
        },
        Res {
            turn: 0,
            text: &long,
        },
        Said {
            turn: 1,
            text: "curl api?cursor=cursor_7f3a9",
        },
    ];
    assert_eq!(
        found(&session, UsedRules::default()),
        vec![vec![(
            0,
            "cursor_7f3a9".to_string(),
            vec!["cursor_7f3a9".to_string()]
        )]]
    );
}

#[test]
fn a_quoted_phrase_counts_when_it_holds_a_new_word() {
    let session = [
        Context("Amounts must be positive."),
        Said {
            turn: 0,
            text: "python run.py",
        },
        Res {
            turn: 0,
            text: "ValueError: 'amounts must be positive'\nwarning: \"quorum lost on shard\"",
        },
        Said {
            turn: 1,
            text: "grep -rn 'amounts must be positive' . ; grep -rn \"quorum lost on shard\" .",
        },
    ];
    // A line's tokens in their order on it (a phrase where it starts). The first phrase's words all came before (`Amounts` in another case is another token, `amounts` is new
    // though: the phrase counts); the second is new.
    let got = found(&session, UsedRules::default());
    let tokens: Vec<Vec<String>> = got[0].iter().map(|x| x.2.clone()).collect();
    assert_eq!(
        tokens,
        vec![
            vec![
                "amounts".to_string(),
                "amounts must be positive".to_string()
            ],
            vec![
                "quorum".to_string(),
                "quorum lost on shard".to_string(),
                "lost".to_string(),
                "shard".to_string()
            ]
        ]
    );
    let session = [
        Context("'must be positive' is raised"),
        Said {
            turn: 0,
            text: "run",
        },
        Res {
            turn: 0,
            text: "ValueError: \"must be positive\"",
        },
        Said {
            turn: 1,
            text: "grep -rn \"must be positive\" .",
        },
    ];
    assert_eq!(lines_of(&session), vec![Vec::<usize>::new()]);
}

#[test]
fn results_the_agent_never_answered_have_no_used_lines() {
    let session = [
        Said {
            turn: 0,
            text: "cat notes",
        },
        Res {
            turn: 0,
            text: "deadline friday",
        },
    ];
    assert_eq!(lines_of(&session), vec![Vec::<usize>::new()]);
}

#[test]
fn the_rules_are_bounded() {
    assert!(UsedRules::new(0, 4).is_err());
    assert!(UsedRules::new(MAX_USED_TURNS + 1, 4).is_err());
    assert!(UsedRules::new(3, 1).is_err());
    assert!(UsedRules::new(3, 65).is_err());
    assert_eq!(UsedRules::new(3, 4).unwrap(), UsedRules::default());
    let e = UsedRules::new(0, 4).unwrap_err().to_string();
    assert!(e.contains("--used-turns"), "{e}");
}

fn text_strategy() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("\x1b[31m".to_string()),
        Just("\x1b[0m".to_string()),
        Just(" ".to_string()),
        Just("'".to_string()),
        Just("\"".to_string()),
        Just("/".to_string()),
        Just("é".to_string()),
        Just("😀".to_string()),
        "[a-d]{1,6}",
        "[a-c/._-]{1,12}",
        "[0-9]{1,5}",
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn a_used_needle_always_lies_inside_its_results_text(
        task in text_strategy(),
        texts in prop::collection::vec((0usize..3, any::<bool>(), text_strategy()), 1..12),
        min in 2usize..6,
        turns in 1usize..4,
    ) {
        let mut session = vec![Context(&task)];
        let mut turn = 0;
        for (step, result, text) in &texts {
            turn += step;
            session.push(if *result {
                Res { turn, text }
            } else {
                Said { turn, text }
            });
        }
        let rules = UsedRules::new(turns, min).unwrap();
        let results: Vec<&str> = session
            .iter()
            .filter_map(|u| match u { Res { text, .. } => Some(*text), _ => None })
            .collect();
        let got = used_content(&session, &rules);
        prop_assert_eq!(got.len(), results.len());
        for (used, text) in got.iter().zip(&results) {
            // Every place of a token holds its text, and every line holding it is a used line.
            let used_lines: Vec<usize> = used.lines.iter().map(|l| l.line).collect();
            for t in &used.tokens {
                prop_assert!(!t.offsets.is_empty());
                for &o in &t.offsets {
                    prop_assert_eq!(slice_units(text, o, t.len), t.text.as_str());
                }
                for l in &t.lines {
                    prop_assert!(used_lines.contains(l));
                }
            }
            let mut last = None;
            for l in &used.lines {
                prop_assert!(l.offset + l.len <= utf16_len(text));
                prop_assert!(l.len > 0);
                let needle = slice_units(text, l.offset, l.len);
                prop_assert_eq!(utf16_len(needle), l.len);
                prop_assert_eq!(utf16_len(crate::text::head(text, l.offset)), l.offset);
                // The needle is the whole line, without its line end.
                let line = text.split_inclusive('\n').nth(l.line).unwrap();
                prop_assert_eq!(needle, trim_line_end(line));
                prop_assert!(!l.tokens.is_empty());
                prop_assert!(last < Some(l.line));
                last = Some(l.line);
            }
        }
    }
}

/// The used tokens of the first result of `session` under `rules`, with the lines holding each.
fn tokens_of(session: &[Utterance<'_>], rules: UsedRules) -> Vec<(String, Vec<usize>)> {
    used_content(session, &rules)[0]
        .tokens
        .iter()
        .map(|t| (t.text.clone(), t.lines.clone()))
        .collect()
}

/// The rules with some parts off (today's rule before issue 47, part by part).
fn without(parts: &[&str]) -> UsedRules {
    UsedRules {
        parts: RuleParts::without(parts).unwrap(),
        ..UsedRules::default()
    }
}

#[test]
fn every_line_holding_a_used_token_is_used_not_only_the_first() {
    let session = [
        Said {
            turn: 0,
            text: "search_file parseLenient",
        },
        Res {
            turn: 0,
            text: "Found 2 matches:\nLine 88: JsonReaderLenient r = new JsonReaderLenient(in);\nLine 412: return JsonReaderLenient.wrap(x);\n",
        },
        Said {
            turn: 1,
            text: "search_dir JsonReaderLenient src",
        },
    ];
    assert_eq!(
        tokens_of(&session, UsedRules::default()),
        vec![("JsonReaderLenient".to_string(), vec![1, 2])]
    );
    assert_eq!(lines_of(&session), vec![vec![1, 2]]);
    // Before: only the first line holding it.
    let first: Vec<usize> = found(&session, without(&["every-line"]))[0]
        .iter()
        .map(|x| x.0)
        .collect();
    assert_eq!(first, vec![1]);
}

#[test]
fn numbers_of_three_digits_count_when_a_later_call_uses_them_as_a_position() {
    let view = "[File: /repo/src/Parser.java (900 lines total)]\n(119 more lines above)\n120:    int depth = 0;\n121:    while (depth < limit) {\n880:    }\n";
    for call in [
        "edit 120:121",
        "goto 880",
        "open /repo/src/Parser.java 880",
        "sed -n 120,121p /repo/src/Parser.java",
        "str_replace_editor view /repo/src/Parser.java --view_range 120 121",
    ] {
        let session = [
            Said {
                turn: 0,
                text: "open /repo/src/Parser.java",
            },
            Res {
                turn: 0,
                text: view,
            },
            Said {
                turn: 1,
                text: call,
            },
        ];
        let used: Vec<String> = tokens_of(&session, UsedRules::default())
            .into_iter()
            .map(|(t, _)| t)
            .filter(|t| t.bytes().all(|b| b.is_ascii_digit()))
            .collect();
        let expected: Vec<&str> = if call.contains("880") {
            vec!["880"]
        } else {
            vec!["120", "121"]
        };
        assert_eq!(used, expected, "{call}");
        // Before: numbers under 4 characters were never distinctive.
        assert!(
            tokens_of(&session, without(&["positions"]))
                .iter()
                .all(|(t, _)| !t.starts_with(['1', '8'])),
            "{call}"
        );
    }
    // A number written as a count, not a position, does not make it used.
    let session = [
        Said {
            turn: 0,
            text: "ls",
        },
        Res {
            turn: 0,
            text: "total 120\nnotes.txt\n",
        },
        Said {
            turn: 1,
            text: "head -n 120 notes.txt",
        },
    ];
    assert_eq!(
        tokens_of(&session, UsedRules::default()),
        vec![("notes.txt".to_string(), vec![1])]
    );
}

#[test]
fn a_position_is_read_from_the_call_forms_agents_write() {
    assert_eq!(position_numbers("goto 1474"), vec!["1474"]);
    assert_eq!(position_numbers("edit 120:130"), vec!["120", "130"]);
    assert_eq!(position_numbers("open file.py 880"), vec!["880"]);
    assert_eq!(
        position_numbers("sed -n '120,130p' a.txt"),
        vec!["120", "130"]
    );
    assert_eq!(position_numbers("sed -n 455p a.txt"), vec!["455"]);
    assert_eq!(
        position_numbers("look at lines 300-310"),
        vec!["300", "310"]
    );
    assert_eq!(
        position_numbers("{\"view_range\": [120, 130]}"),
        vec!["120", "130"]
    );
    assert_eq!(
        position_numbers("head -n 120 a.txt; echo 4040"),
        Vec::<&str>::new()
    );
    assert_eq!(position_numbers("goto 88"), Vec::<&str>::new());
}

#[test]
fn language_keywords_and_shell_words_are_not_distinctive() {
    let session = [
        Said {
            turn: 0,
            text: "open Limits.java",
        },
        Res {
            turn: 0,
            text: "public static final int MAX_DEPTH_GUARD = 64;\nfunc visit() { defer close() }\n",
        },
        Said {
            turn: 1,
            text: "edit: private static final int MAX_DEPTH_GUARD = 128; also public, func, defer, export, done",
        },
    ];
    assert_eq!(
        tokens_of(&session, UsedRules::default()),
        vec![("MAX_DEPTH_GUARD".to_string(), vec![0])]
    );
    // Before: `public`, `static`, `final`, `func` and `defer` counted as distinctive.
    let before: Vec<String> = tokens_of(&session, without(&["keywords"]))
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    assert_eq!(
        before,
        vec![
            "public",
            "static",
            "final",
            "MAX_DEPTH_GUARD",
            "func",
            "defer"
        ]
    );
    for word in [
        "public",
        "Static",
        "FINAL",
        "impl",
        "nullptr",
        "esac",
        "xargs",
        "instanceof",
    ] {
        assert!(!distinctive(word, 4, RuleParts::default()), "{word}");
    }
}

#[test]
fn a_later_relative_path_that_is_a_tail_of_a_new_absolute_path_makes_it_used() {
    let session = [
        Context("fields.Nested ignores only= in src/marshmallow/fields.py"),
        Said {
            turn: 0,
            text: "find_file fields.py",
        },
        Res {
            turn: 0,
            text: "Found 1 matches for \"fields.py\" in /testbed:\n/testbed/src/marshmallow/fields.py\n",
        },
        Said {
            turn: 1,
            text: "open \"src/marshmallow/fields.py\"",
        },
    ];
    assert_eq!(
        tokens_of(&session, UsedRules::default()),
        vec![("testbed/src/marshmallow/fields.py".to_string(), vec![1])]
    );
    // Before: every tail the agent wrote had been seen in the task, so nothing was used.
    assert_eq!(tokens_of(&session, without(&["path-suffix"])), vec![]);
    // A tail without a `/` is not a path: a bare name seen before does not make the path used.
    let session = [
        Context("fields.py is wrong"),
        Said {
            turn: 0,
            text: "find_file fields.py",
        },
        Res {
            turn: 0,
            text: "/testbed/src/marshmallow/fields.py\n",
        },
        Said {
            turn: 1,
            text: "open fields.py",
        },
    ];
    assert_eq!(tokens_of(&session, UsedRules::default()), vec![]);
}
