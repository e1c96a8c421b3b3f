//! Tests of the texture: each share drawn as asked, the needles kept in place, the sizes unchanged.

use super::*;
use crate::generate::buf::TextBuf;
use crate::rng::Seed;

fn rng() -> Stream {
    Stream::derive(Seed(3), "texture-test", 0)
}

fn shell(body: &str, exit: &str) -> Written {
    let mut b = TextBuf::with_capacity(64);
    b.ascii("Command: wc -l src/*.rs\nDirectory: tallyhouse\nOutput:\n");
    b.push(body);
    b.needle_line(NeedleKind::SummaryLine, |b| b.ascii("   42 total"));
    b.nl();
    b.needle_line(NeedleKind::ExitInfo, |b| b.ascii(exit));
    b.finish()
}

fn check(w: &Written) {
    assert_eq!(w.units, utf16_len(&w.text));
    for n in &w.needles {
        let from = byte_at(&w.text, n.offset);
        assert!(w.text[from..].starts_with(&n.text), "{n:?} in {:?}", w.text);
    }
}

fn texts(w: &Written) -> Vec<(NeedleKind, &str)> {
    w.needles
        .iter()
        .map(|n| (n.kind, n.text.as_str()))
        .collect()
}

#[test]
fn each_exit_style_frames_the_output_its_way() {
    let cases = [
        (
            ExitStyle::Header,
            "Command: wc -l src/*.rs\nDirectory: tallyhouse\nOutput:\n  40 a.rs\n   42 total\nExit Code: 0",
            Some("Exit Code: 0"),
        ),
        (
            ExitStyle::Returncode,
            "<returncode>0</returncode>\n<output>\n  40 a.rs\n   42 total\n</output>",
            Some("<returncode>0</returncode>"),
        ),
        (
            ExitStyle::Finished,
            "  40 a.rs\n   42 total\n[Command finished with exit code 0]",
            Some("[Command finished with exit code 0]"),
        ),
        (
            ExitStyle::ExitCode,
            "  40 a.rs\n   42 total\nExit code: 0",
            Some("Exit code: 0"),
        ),
        (ExitStyle::None, "  40 a.rs\n   42 total", None),
    ];
    for (style, text, exit) in cases {
        let mut w = shell("  40 a.rs\n", "Exit Code: 0");
        exit_style(&mut w, style, None);
        assert_eq!(w.text, text, "{style}");
        check(&w);
        let found = w
            .needles
            .iter()
            .find(|n| n.kind == NeedleKind::ExitInfo)
            .map(|n| n.text.as_str());
        assert_eq!(found, exit, "{style}");
    }
    // A killed process keeps its code; the signal is the header style's alone.
    let mut w = shell("", "Exit Code: 137 (SIGKILL)");
    exit_style(&mut w, ExitStyle::ExitCode, None);
    assert_eq!(w.text, "   42 total\nExit code: 137");
    // A line of the scenario's own, the status where its N is.
    let mut w = shell("", "Exit Code: 2");
    exit_style(
        &mut w,
        ExitStyle::ExitCode,
        Some("[The command completed with exit code N.]"),
    );
    assert_eq!(
        w.text,
        "   42 total\n[The command completed with exit code 2.]"
    );
    assert_eq!(
        w.needles.last().unwrap().text,
        "[The command completed with exit code 2.]"
    );
}

#[test]
fn a_summary_moves_to_the_start_of_the_output() {
    let mut w = shell("  40 a.rs\n", "Exit Code: 0");
    summary_first(&mut w, false);
    assert_eq!(
        w.text,
        "Command: wc -l src/*.rs\nDirectory: tallyhouse\nOutput:\n   42 total\n  40 a.rs\nExit Code: 0"
    );
    check(&w);
    let mut w = shell("  40 a.rs\n", "Exit Code: 0");
    exit_style(&mut w, ExitStyle::Returncode, None);
    summary_first(&mut w, false);
    assert_eq!(
        w.text,
        "<returncode>0</returncode>\n<output>\n   42 total\n  40 a.rs\n</output>"
    );
    check(&w);
    // A search's footer becomes a `Found` header.
    let mut b = TextBuf::with_capacity(64);
    b.ascii("src/a.rs:3:fn parse_rate()\nsrc/b.rs:9:parse_rate(x)\n");
    b.needle_line(NeedleKind::SummaryLine, |b| b.ascii("2 matches in 2 files"));
    let mut w = b.finish();
    summary_first(&mut w, true);
    assert_eq!(
        w.text,
        "Found 2 matches in 2 files\nsrc/a.rs:3:fn parse_rate()\nsrc/b.rs:9:parse_rate(x)"
    );
    assert_eq!(
        texts(&w),
        [(NeedleKind::SummaryLine, "Found 2 matches in 2 files")]
    );
    assert_eq!(w.needles[0].offset, 0);
}

fn draft(text: &str) -> Draft {
    let mut b = TextBuf::with_capacity(64);
    b.push(text);
    b.nl();
    b.needle_line(NeedleKind::ExitInfo, |b| b.ascii("Exit Code: 1"));
    Draft::output("run_shell_command", Body::Text(b.finish()))
}

fn output(d: &Draft) -> &Written {
    match &d.output {
        Some(Body::Text(w)) => w,
        _ => panic!("text output"),
    }
}

#[test]
fn shares_of_one_and_zero_add_and_remove_each_feature() {
    let all = Texture {
        astral_share: Some(1.0),
        non_ascii_share: Some(1.0),
        crlf_share: Some(1.0),
        ansi_share: Some(1.0),
        ..Texture::default()
    };
    let mut d = draft("plain line\nanother");
    let mut hook = None;
    surface(&mut rng(), &all, &mut d, &mut hook);
    let w = output(&d);
    check(w);
    assert!(w.text.contains("\r\n") && !w.text.replace("\r\n", "").contains('\n'));
    assert!(w.text.contains("\x1b[1m") && is_astral(&w.text));
    assert_eq!(texts(w), [(NeedleKind::ExitInfo, "Exit Code: 1")]);

    let none = Texture {
        astral_share: Some(0.0),
        non_ascii_share: Some(0.0),
        crlf_share: Some(0.0),
        ansi_share: Some(0.0),
        ..Texture::default()
    };
    let mut d = draft("\x1b[31mcafé 😀\x1b[0m\r\nok");
    let mut hook = Some(Written::plain("naïve\r\n".into()));
    let units = (output(&d).units, hook.as_ref().unwrap().units);
    surface(&mut rng(), &none, &mut d, &mut hook);
    let w = output(&d);
    check(w);
    assert_eq!(w.text, "cafe ??\nok\nExit Code: 1");
    assert_eq!(
        w.units,
        units.0 - 9 - 1,
        "escapes and a CR gone, the rest the same length"
    );
    assert_eq!(hook.as_ref().unwrap().text, "naive\n");
    assert_eq!(hook.unwrap().units, units.1 - 1);

    // Astral characters alone go, keeping the BMP ones and the length.
    let no_astral = Texture {
        astral_share: Some(0.0),
        ..Texture::default()
    };
    let mut d = draft("café 😀");
    surface(&mut rng(), &no_astral, &mut d, &mut None);
    assert_eq!(output(&d).text, "café \u{25a1}\u{25a1}\nExit Code: 1");
}

#[test]
fn words_go_into_json_string_values_and_nothing_else_changes() {
    let mut b = TextBuf::with_capacity(64);
    b.ascii("{\n  ");
    b.needle_line(NeedleKind::JsonKey, |b| b.ascii("\"title\""));
    b.ascii(": \"Rates\",\n  ");
    b.needle_line(NeedleKind::JsonKey, |b| b.ascii("\"ok\""));
    b.ascii(": true\n}");
    let mut w = b.finish();
    assert!(insert_word(&mut rng(), &mut w, &["😀"]));
    assert_eq!(w.text, "{\n  \"title\": \"😀 Rates\",\n  \"ok\": true\n}");
    check(&w);
    serde_json::from_str::<serde_json::Value>(&w.text).unwrap();
    assert!(is_json(" [\n  {\"a\": 1}]") && is_json("[]") && is_json("{}"));
    assert!(!is_json("[File: /repo/a.py (3 lines total)]") && !is_json("plain"));
    // No line without a needle: the word goes after the last needle line, which stays whole.
    let mut w = Written {
        needles: vec![crate::generate::buf::Planted {
            kind: NeedleKind::SummaryLine,
            offset: 0,
            text: "Found 0 matches in 0 files".into(),
        }],
        ..Written::plain("Found 0 matches in 0 files".into())
    };
    assert!(insert_word(&mut rng(), &mut w, &["…"]));
    assert_eq!(w.text, "Found 0 matches in 0 files …");
    check(&w);
    // Nothing to put it after: nothing changes.
    let mut w = Written::default();
    assert!(!insert_word(&mut rng(), &mut w, BMP_WORDS));
    assert_eq!(w, Written::default());
}

#[test]
fn an_emptied_result_has_no_text_left() {
    let t = Texture {
        empty_share: Some(1.0),
        crlf_share: Some(1.0),
        ..Texture::default()
    };
    let mut d = draft("something");
    d.error = Some(Written::plain("oops".into()));
    let mut hook = Some(Written::plain("ctx".into()));
    surface(&mut rng(), &t, &mut d, &mut hook);
    assert_eq!(output(&d), &Written::default());
    assert_eq!(d.error, Some(Written::default()));
    assert!(hook.is_none());
}
