//! Tests of loading scenario files: defaults, budgets, every bound, and errors placed at the right line and
//! field however the file is written.

use super::*;
use crate::workload::Mode;

const MINIMAL: &str = "name = \"t\"\ndescription = \"d\"\nseed = 7\nbatches = 3\n";

fn parse_err(src: &str) -> (usize, String, String) {
    match Scenario::parse(src, "bad.toml").unwrap_err() {
        Error::Scenario {
            path,
            line,
            field,
            message,
        } => {
            assert_eq!(path, "bad.toml");
            (line, field, message)
        }
        other => panic!("{other}"),
    }
}

#[test]
fn minimal_file_takes_defaults() {
    let s = Scenario::parse(MINIMAL, "t.toml").unwrap();
    assert_eq!(s.mode, Mode::Interactive);
    assert!(!s.legacy);
    assert_eq!(s.batch_size, BatchSize::default());
    assert_eq!(
        s.kind_weights()[0],
        (Kind::Shell, Kind::Shell.default_weight())
    );
    assert_eq!(
        s.budgets(),
        vec![ScenarioBudget {
            label: BudgetLabel::Absolute(100_000),
            units: 100_000,
            window_tokens: None
        }]
    );
}

#[test]
fn budgets_list_absolute_then_windows() {
    let src = format!(
        "{MINIMAL}[budgets]\nabsolute = [8000]\nconfigured = 100000\nwindows = [16000, 200000, 1000000, 4000]\n"
    );
    let s = Scenario::parse(&src, "t.toml").unwrap();
    let units: Vec<u64> = s.budgets().iter().map(|b| b.units).collect();
    // 10% of the window x 3 chars/token, capped by the configured 100,000 and floored at 2,000
    assert_eq!(units, [8_000, 4_800, 60_000, 100_000, 2_000]);
    assert_eq!(s.budgets()[1].label, "window-16000");
}

#[test]
fn errors_name_line_and_field() {
    let (line, field, msg) = parse_err(&format!("{MINIMAL}[shape]\nansi_rate = 0.5\ncolour = 1\n"));
    assert_eq!((line, field.as_str()), (7, "shape.colour"));
    assert!(msg.contains("unknown field `colour`"), "{msg}");

    let (line, field, _) = parse_err(&format!("{MINIMAL}[shape]\nansi_rate = \"lots\"\n"));
    assert_eq!((line, field.as_str()), (6, "shape.ansi_rate"));

    let (line, field, _) = parse_err(&format!("{MINIMAL}[sizes.shel]\nmedian = 4\n"));
    assert_eq!((line, field.as_str()), (5, "sizes.shel"));

    let (line, field, msg) = parse_err("name = \"t\"\ndescription = \"d\"\nbatches = 1\n");
    assert_eq!((line, field.as_str()), (1, "seed"));
    assert!(msg.contains("missing field"));

    let (line, field, _) = parse_err(&format!("{MINIMAL}mode = \"turbo\"\n"));
    assert_eq!((line, field.as_str()), (5, "mode"));
}

#[test]
fn validation_errors_name_line_and_field() {
    let (line, field, msg) = parse_err(&format!(
        "{MINIMAL}\n[sizes.shell]\nmedian = 10\nmin = 50\nmax = 5\n"
    ));
    assert_eq!((line, field.as_str()), (8, "sizes.shell.min"));
    assert!(msg.contains("above max"), "{msg}");

    let (line, field, _) = parse_err(&format!("{MINIMAL}[shape]\ngiant_rate = 1.5\n"));
    assert_eq!((line, field.as_str()), (6, "shape.giant_rate"));

    let (line, field, _) = parse_err(&format!("{MINIMAL}[kinds]\nshell = 0\n"));
    assert_eq!((line, field.as_str()), (5, "kinds"));

    let (line, field, _) = parse_err(&MINIMAL.replace("batches = 3", "batches = 0"));
    assert_eq!((line, field.as_str()), (4, "batches"));

    let (line, field, msg) = parse_err(&format!("{MINIMAL}[strategy.weights]\nerror = 0\n"));
    assert_eq!((line, field.as_str()), (6, "strategy.weights.error"));
    assert!(msg.contains("at least 1"), "{msg}");
}

#[test]
fn every_bound_is_checked_at_load_naming_line_and_field() {
    // (text after MINIMAL, line, field, part of the message): each one just past its documented bound.
    let cases: &[(&str, usize, &str, &str)] = &[
        (
            "[sizes.shell]\nmedian = 1e12\nmin = 1000000000000\nmax = 1000000000000\n",
            7,
            "sizes.shell.median",
            "at most 16000000",
        ),
        (
            "[sizes.giant]\nmax = 16000001\n",
            7,
            "sizes.giant.max",
            "at most 16000000",
        ),
        (
            "[sizes.media]\ntail_median = inf\n",
            7,
            "sizes.media.tail_median",
            "[0, 16000000]",
        ),
        (
            "[hook]\nappend_units = 18446744073709551615\n",
            7,
            "hook.append_units",
            "at most 1000000",
        ),
        (
            "[batch_size]\nmedian = 5000\n",
            7,
            "batch_size.median",
            "at most 4096",
        ),
        (
            "[batch_size]\nmax = 4097\n",
            7,
            "batch_size.max",
            "[min, 4096]",
        ),
        ("[kinds]\nshell = 1e7\n", 7, "kinds.shell", "[0, 1000000]"),
        (
            "[producer]\nshell_trigger = 16000001\n",
            7,
            "producer.shell_trigger",
            "at most 16000000",
        ),
        (
            "[budgets]\nabsolute = [1000000000001]\n",
            7,
            "budgets.absolute",
            "between 1 and 1000000000000",
        ),
        (
            "[budgets]\nwindows = [0]\n",
            7,
            "budgets.windows",
            "between 1 and 1000000000000",
        ),
        (
            "[budgets]\nconfigured = 1000000000001\n",
            7,
            "budgets.configured",
            "between 1 and 1000000000000",
        ),
        (
            "[strategy.gemini_cli]\nprompt_tokens = 1000000000001\n",
            7,
            "strategy.gemini_cli.prompt_tokens",
            "at most 1000000000000",
        ),
        (
            "[strategy.weights]\ntext = 1001\n",
            7,
            "strategy.weights.text",
            "at most 1000",
        ),
    ];
    for (extra, line, field, message) in cases {
        let (l, f, m) = parse_err(&format!("{MINIMAL}\n{extra}"));
        assert_eq!((l, f.as_str()), (*line, *field), "{extra}");
        assert!(m.contains(message), "{extra}: {m}");
    }
    let (l, f, m) = parse_err(&MINIMAL.replace("batches = 3", "batches = 1000001"));
    assert_eq!((l, f.as_str()), (4, "batches"));
    assert!(m.contains("between 1 and 1000000"), "{m}");
    let many = vec!["1000"; MAX_BUDGETS + 1].join(", ");
    let (_, f, m) = parse_err(&format!("{MINIMAL}[budgets]\nabsolute = [{many}]\n"));
    assert_eq!(f, "budgets.absolute");
    assert!(m.contains("at most 64 budgets"), "{m}");

    // Each field alone may sit at its bound; together they may not exceed the batch bound.
    let at_bounds = format!(
        "{MINIMAL}[batch_size]\nmedian = 4096\nmin = 1\nmax = 1\n[sizes.giant]\nmedian = 16000000\n\
         min = 16000000\nmax = 16000000\n[shape]\ngiant_rate = 1.0\n[hook]\nappend_units = 1000000\n\
         [budgets]\nabsolute = [1000000000000]\nwindows = [1000000000000]\nconfigured = 1000000000000\n"
    );
    let s = Scenario::parse(&at_bounds, "t.toml").unwrap();
    assert!(s.max_batch_units() <= MAX_BATCH_UNITS);
    let too_wide = at_bounds.replace("max = 1\n", "max = 64\n");
    let (l, f, m) = parse_err(&too_wide);
    assert_eq!((l, f.as_str()), (8, "batch_size.max"));
    assert!(m.contains("above the bound of 1073741824"), "{m}");
}

#[test]
fn check_batches_takes_1_to_the_bound() {
    assert_eq!(check_batches("--batches", 1).unwrap(), 1);
    assert_eq!(
        check_batches("--batches", MAX_BATCHES).unwrap(),
        MAX_BATCHES
    );
    for bad in [0, MAX_BATCHES + 1, u64::MAX] {
        assert_eq!(
            check_batches("--batches", bad).unwrap_err().to_string(),
            format!("invalid --batches \"{bad}\": must be between 1 and 1000000")
        );
    }
}

#[test]
fn the_documented_file_format_parses() {
    let readme = include_str!("../../scenarios/README.md");
    let start = readme.find("```toml\n").expect("a TOML example") + "```toml\n".len();
    let end = start + readme[start..].find("```").expect("the example ends");
    let s = Scenario::parse(&readme[start..end], "scenarios/README.md").unwrap();
    assert_eq!(s.hook.append_units, 0);
    assert_eq!(s.strategy, crate::finalize::StrategyConfig::default());
}

#[test]
fn shipped_scenarios_parse_and_match_the_directory() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let from_dir = Scenario::load_dir(&dir).unwrap();
    let shipped = Scenario::all_shipped();
    assert_eq!(from_dir, shipped, "scenarios/ and SHIPPED differ");
    for (s, (name, _)) in shipped.iter().zip(SHIPPED) {
        assert_eq!(&s.name, name);
    }
    assert!(shipped.len() >= 11);
}

#[test]
fn a_zero_cjk_share_is_left_out_of_the_digest_and_a_bad_one_is_named() {
    let plain = Scenario::parse(MINIMAL, "t").unwrap();
    let zero = Scenario::parse(&format!("{MINIMAL}[shape]\ncjk_share = 0.0\n"), "t").unwrap();
    assert_eq!(plain.digest(), zero.digest());
    assert!(!serde_json::to_string(&plain).unwrap().contains("cjk_share"));
    let some = Scenario::parse(&format!("{MINIMAL}[shape]\ncjk_share = 0.5\n"), "t").unwrap();
    assert_eq!(some.shape.cjk_share, 0.5);
    assert_ne!(some.digest(), plain.digest());
    let (line, field, msg) = parse_err(&format!("{MINIMAL}[shape]\ncjk_share = 1.5\n"));
    assert_eq!((line, field.as_str()), (6, "shape.cjk_share"));
    assert_eq!(msg, "must be a share in [0, 1], got 1.5");
}

#[test]
fn digest_is_stable_and_sensitive() {
    let a = Scenario::parse(MINIMAL, "t").unwrap();
    let mut b = a.clone();
    assert_eq!(a.digest(), b.digest());
    b.shape.giant_rate = 0.5;
    assert_ne!(a.digest(), b.digest());
    assert_eq!(a.digest().len(), 64);
}

#[test]
fn a_dotted_key_is_placed_on_its_own_line() {
    // Issue 11: the text-scanning locator put these at line 1 (validation) or named the wrong table.
    let (line, field, msg) = parse_err(&format!("{MINIMAL}shape.giant_rate = 1.5\n"));
    assert_eq!((line, field.as_str()), (5, "shape.giant_rate"));
    assert_eq!(msg, "must be a share in [0, 1], got 1.5");
    let (line, field, _) = parse_err(&format!(
        "{MINIMAL}[sizes]\nshell.min = 50\nshell.max = 5\n"
    ));
    assert_eq!((line, field.as_str()), (6, "sizes.shell.min"));
    let (line, field, msg) = parse_err(&format!("{MINIMAL}\n\nshape.colour = 1\n"));
    assert_eq!((line, field.as_str()), (7, "shape.colour"));
    assert!(msg.starts_with("unknown field `colour`"), "{msg}");
    let (line, field, _) = parse_err(&format!("{MINIMAL}[strategy]\nweights.error = 0\n"));
    assert_eq!((line, field.as_str()), (6, "strategy.weights.error"));
}

#[test]
fn an_inline_table_is_placed_on_its_own_line() {
    let (line, field, msg) = parse_err(&format!("{MINIMAL}\nshape = {{ giant_rate = 1.5 }}\n"));
    assert_eq!((line, field.as_str()), (6, "shape.giant_rate"));
    assert_eq!(msg, "must be a share in [0, 1], got 1.5");
    let (line, field, _) = parse_err(&format!(
        "{MINIMAL}sizes.shell = {{ median = 10, min = 50, max = 5 }}\n"
    ));
    assert_eq!((line, field.as_str()), (5, "sizes.shell.min"));
    // serde's errors inside one name the key in the table, not the table.
    let (line, field, msg) = parse_err(&format!("{MINIMAL}shape = {{ colour = 1 }}\n"));
    assert_eq!((line, field.as_str()), (5, "shape.colour"));
    assert!(msg.starts_with("unknown field `colour`"), "{msg}");
    let (line, field, _) = parse_err(&format!(
        "{MINIMAL}budgets = {{ absolute = [\n  1000,\n  \"x\",\n] }}\n"
    ));
    assert_eq!((line, field.as_str()), (7, "budgets.absolute"));
}

#[test]
fn a_syntax_error_is_placed_by_the_parser_and_named_alone_outside_a_field() {
    let (line, field, msg) = parse_err(&format!("{MINIMAL}[shape]\ngiant_rate = 0.5.5\n"));
    assert_eq!((line, field.as_str()), (6, "shape.giant_rate"));
    assert!(msg.starts_with("invalid float"), "{msg}");
    let err = Scenario::parse(&format!("{MINIMAL}\nseed = 8\n"), "bad.toml").unwrap_err();
    assert_eq!(err.to_string(), "bad.toml:6: duplicate key");
    let err =
        Scenario::parse(&format!("{MINIMAL}[shape\ngiant_rate = 0.5\n"), "bad.toml").unwrap_err();
    assert_eq!(err.to_string(), "bad.toml:5: unclosed table, expected `]`");
    let (line, field, _) = parse_err(&format!("{MINIMAL}[shape"));
    assert_eq!((line, field.as_str()), (5, "shape"));
}

#[test]
fn a_missing_key_is_the_first_the_schema_requires() {
    // MINIMAL has exactly the required keys, so each one is needed and none else is.
    let keys: Vec<&str> = MINIMAL
        .lines()
        .map(|l| l.split(" = ").next().unwrap())
        .collect();
    assert_eq!(keys, REQUIRED);
    for (i, key) in REQUIRED.iter().enumerate() {
        let without: String = MINIMAL
            .lines()
            .filter(|l| !l.starts_with(key))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(toml::from_str::<Scenario>(&without).is_err(), "{key}");
        let err = Scenario::parse(&without, "bad.toml").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("bad.toml:1: field `{key}`: missing field `{key}`")
        );
        // With two missing, serde reports the first in declaration order.
        if let Some(next) = REQUIRED.get(i + 1) {
            let fewer: String = without
                .lines()
                .filter(|l| !l.starts_with(next))
                .map(|l| format!("{l}\n"))
                .collect();
            let (_, field, _) = parse_err(&fewer);
            assert_eq!(field, *key);
        }
    }
    // Another error found while reading the file comes first, as serde finds it first.
    let (line, field, _) = parse_err("name = \"t\"\nmode = \"turbo\"\n");
    assert_eq!((line, field.as_str()), (2, "mode"));
}

#[test]
fn validation_errors_are_values_with_a_field_path_and_no_position() {
    let mut s = Scenario::parse(MINIMAL, "t.toml").unwrap();
    assert_eq!(s.validate(), Ok(()));
    s.shape.giant_rate = 2.0;
    assert_eq!(
        s.validate(),
        Err(FieldError {
            field: FieldPath::of(&["shape", "giant_rate"]),
            message: "must be a share in [0, 1], got 2".into(),
        })
    );
    s.shape.giant_rate = 0.0;
    s.strategy.weights.error = 0;
    let err = s.validate().unwrap_err();
    assert_eq!(err.field.keys(), ["strategy", "weights", "error"]);
    assert_eq!(err.field.to_string(), "strategy.weights.error");
    s.strategy.weights.error = 1;
    s.kinds = Some(std::collections::BTreeMap::from([(Kind::Shell, 0.0)]));
    assert_eq!(s.validate().unwrap_err().field, FieldPath::of(&["kinds"]));
}

#[test]
fn a_default_salient_table_is_left_out_of_the_digest_and_another_is_not() {
    let plain = Scenario::parse(MINIMAL, "t").unwrap();
    let explicit = Scenario::parse(
        &format!("{MINIMAL}[strategy.salient]\nshare = 0.5\ncontext = 1\nlines = 16\n"),
        "t",
    )
    .unwrap();
    assert_eq!(plain.digest(), explicit.digest());
    assert!(!serde_json::to_string(&plain).unwrap().contains("salient"));
    let other =
        Scenario::parse(&format!("{MINIMAL}[strategy.salient]\ncontext = 0\n"), "t").unwrap();
    assert_eq!(other.strategy.salient.context, 0);
    assert_ne!(other.digest(), plain.digest());
    assert!(serde_json::to_string(&other)
        .unwrap()
        .contains(r#""salient":{"share":"0.5","context":0,"lines":16}"#));
}
