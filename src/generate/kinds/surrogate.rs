//! Text dense in surrogate pairs: chat exports full of emoji (ZWJ sequences, skin tones, flags), locale files,
//! maths notes in mathematical alphanumerics, name lists with CJK extension B characters, mixed with BMP CJK,
//! Cyrillic, Greek, Arabic and Devanagari. Over a third of the UTF-16 units are surrogate halves, so a random
//! cut point lands inside a pair often.

use super::shell::{exit_info, Exit};
use super::Writers;
use crate::generate::buf::TextBuf;
use crate::generate::vocab::PEOPLE;
use crate::generate::{Body, Ctx, Draft};
use crate::needles::NeedleKind;
use crate::rng::Stream;

/// Emoji, including ZWJ sequences, skin-tone modifiers, flags and keycaps.
const EMOJI: &[&str] = &[
    "😀",
    "🎉",
    "👍🏽",
    "👩‍💻",
    "👨‍👩‍👧‍👦",
    "🏳️‍🌈",
    "🇯🇵",
    "🇧🇷",
    "🇩🇪",
    "🇰🇷",
    "🇮🇳",
    "🚀",
    "🔥",
    "🙏🏻",
    "🤷‍♀️",
    "😅",
    "🐛",
    "📦",
    "🦀",
    "🧑🏿‍🔬",
    "👋🏾",
    "💯",
    "🫠",
    "🧾",
    "🥳",
    "🤖",
    "1️⃣",
    "❤️‍🔥",
];

/// Mathematical alphanumeric symbols and other astral symbols.
const MATH: &[&str] = &[
    "𝑓", "𝑥", "𝛼", "𝛽", "𝔽", "𝕄", "𝒜", "𝐯", "𝜆", "𝟙", "𝑛", "𝒪", "𝔼", "ℝ", "𝜎", "𝜇", "𝕜", "𝖃",
];

/// CJK unified ideographs extension B (astral) in names and words.
const CJK_B: &[&str] = &[
    "𠮷", "𩸽", "𠀋", "𡈽", "𢌞", "𣘺", "𤭢", "𥔎", "𦥑", "𧘱", "𨑕", "𪚲", "𠂉", "𡚴",
];

/// BMP CJK and other scripts.
const WORDS: &[&str] = &[
    "今日のデプロイは完了しました",
    "確認お願いします",
    "数据库迁移成功",
    "검토 부탁드립니다",
    "배포 완료",
    "проверка прошла",
    "δοκιμή ολοκληρώθηκε",
    "اختبار ناجح",
    "परीक्षण सफल",
    "ทดสอบผ่านแล้ว",
    "ok",
    "merci à tous",
    "Grüße",
    "see the thread",
    "レビュー済み",
    "已合并",
    "롤백했습니다",
    "野家",
];

/// How this kind's outputs are written: [`write`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: None,
};

/// Writes one surrogate-heavy output of about `target` UTF-16 units.
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target * 2 + 256);
    match rng.below(4) {
        0 => {
            chat(rng, &mut b, target);
            Draft::output("mcp__chat__channel_history", Body::Text(b.finish()))
        }
        1 => {
            locale(rng, &mut b, target);
            Draft::output("read_file", Body::Text(b.finish()))
        }
        2 => {
            math(rng, &mut b, target);
            Draft::output("read_file", Body::Text(b.finish()))
        }
        _ => {
            b.ascii("Command: cat data/customers_jp.tsv\nOutput:\n");
            names(rng, &mut b, target.saturating_sub(20));
            exit_info(&mut b, Exit(0, None));
            Draft::output(super::shell::TOOL, Body::Text(b.finish()))
        }
    }
}

fn chat(rng: &mut Stream, b: &mut TextBuf, target: usize) {
    let mut messages = 0u64;
    let mut reactions = 0u64;
    while b.units() + 60 < target {
        let (name, _) = rng.pick(PEOPLE);
        let r = rng.next_u64();
        b.ascii("[");
        b.num_pad((r >> 8) % 24, 2);
        b.ascii(":");
        b.num_pad((r >> 16) % 60, 2);
        b.ascii("] ");
        b.push(name);
        b.ascii(": ");
        for k in 0..3 + (r % 6) {
            match (r >> (24 + 2 * k)) & 3 {
                0 | 1 => b.push(rng.pick(EMOJI)),
                2 => {
                    b.push(rng.pick(WORDS));
                    b.push(rng.pick(MATH));
                }
                _ => {
                    b.push(rng.pick(CJK_B));
                    b.push(rng.pick(WORDS));
                }
            }
            b.ascii(" ");
        }
        if r & 1 == 0 {
            b.ascii("  ");
            for _ in 0..1 + (r >> 40) % 4 {
                b.push(rng.pick(EMOJI));
                b.push("×");
                b.num(1 + rng.below(9));
                b.ascii(" ");
                reactions += 1;
            }
        }
        b.nl();
        messages += 1;
    }
    b.needle_line(NeedleKind::SummaryLine, |b| {
        b.push("— ");
        b.num_grouped(messages);
        b.ascii(" messages, ");
        b.num_grouped(reactions);
        b.push(" reactions —");
    });
    b.nl();
}

fn locale(rng: &mut Stream, b: &mut TextBuf, target: usize) {
    const KEYS: &[&str] = &[
        "checkout",
        "invoice",
        "profile",
        "errors",
        "onboarding",
        "reports",
        "settings",
    ];
    b.ascii("{\n");
    let mut first = true;
    while b.units() + 60 < target {
        if !first {
            b.ascii(",\n");
        }
        first = false;
        b.ascii("  \"");
        b.ascii(rng.pick(KEYS));
        b.ascii(".");
        b.ascii(rng.pick(crate::generate::vocab::NOUNS));
        b.ascii("_");
        b.num(rng.below(100));
        b.ascii("\": \"");
        b.push(rng.pick(CJK_B));
        b.push(rng.pick(WORDS));
        b.ascii(" ");
        b.push(rng.pick(EMOJI));
        b.push(rng.pick(CJK_B));
        b.push(rng.pick(EMOJI));
        b.push(rng.pick(MATH));
        b.ascii(" {n}");
        b.push(rng.pick(EMOJI));
        b.ascii("\"");
    }
    b.ascii("\n}\n");
}

fn math(rng: &mut Stream, b: &mut TextBuf, target: usize) {
    b.ascii("# Notes on the rounding proof\n\n");
    while b.units() + 80 < target {
        let m = |rng: &mut Stream| rng.pick(MATH);
        b.ascii("- ");
        match rng.below(4) {
            0 => {
                for s in [
                    m(rng),
                    "(",
                    m(rng),
                    ") = ",
                    m(rng),
                    "·",
                    m(rng),
                    "² + ",
                    m(rng),
                    " for all ",
                    m(rng),
                ] {
                    b.push(s);
                }
                b.push(" ∈ ℝ ");
            }
            1 => {
                for s in [
                    "𝔼[",
                    m(rng),
                    "] ≤ ",
                    m(rng),
                    " + ",
                    m(rng),
                    "·𝒪(",
                    m(rng),
                    "⁻¹) when ",
                    m(rng),
                    " → ∞ ",
                ] {
                    b.push(s);
                }
            }
            2 => {
                for s in [
                    "∑ ",
                    m(rng),
                    "ᵢ over ",
                    m(rng),
                    " ∈ ",
                    m(rng),
                    " equals ",
                    m(rng),
                    "(",
                    m(rng),
                    ", ",
                    m(rng),
                    ") ",
                ] {
                    b.push(s);
                }
            }
            _ => {
                for s in [
                    "let ",
                    m(rng),
                    " = ",
                    m(rng),
                    " mod ",
                    m(rng),
                    "; then ",
                    m(rng),
                    " ≡ ",
                    m(rng),
                    " (rounding to ",
                    m(rng),
                    ") ",
                ] {
                    b.push(s);
                }
            }
        }
        b.push(rng.pick(EMOJI));
        b.nl();
    }
}

fn names(rng: &mut Stream, b: &mut TextBuf, target: usize) {
    b.ascii("id\tname\tcity\tnote\n");
    let mut id = rng.range(1000, 9000);
    while b.units() + 50 < target {
        b.num(id);
        id += 1;
        b.ascii("\t");
        b.push(rng.pick(CJK_B));
        b.push(rng.pick(&["田", "野", "山", "川", "本"]));
        b.push(rng.pick(CJK_B));
        b.push(rng.pick(&["太郎", "花子", "健", "美咲"]));
        b.ascii("\t");
        b.push(rng.pick(&["東京都", "大阪府", "福岡県", "札幌市"]));
        b.ascii("\t");
        b.push(rng.pick(EMOJI));
        b.push(rng.pick(EMOJI));
        b.nl();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_ctx;

    #[test]
    fn dense_in_surrogate_pairs() {
        let mut c = test_ctx(5);
        for _ in 0..40 {
            let d = write(&mut c, 5_000);
            let Some(Body::Text(w)) = d.output else {
                panic!("text")
            };
            assert_eq!(w.units, w.text.encode_utf16().count());
            let astral = w.text.chars().filter(|ch| ch.len_utf16() == 2).count() * 2;
            assert!(
                astral * 100 / w.units >= 20,
                "only {astral} of {} units in pairs",
                w.units
            );
            assert!(w.units + 200 >= 5_000 && w.units <= 5_200, "{}", w.units);
        }
    }
}
