//! The fixed batch shapes the finalize benches and the cost floor are measured on.
//!
//! Three shapes, each a pure function of a fixed seed (through [`Stream::derive`], with the shape's name as the
//! domain and the entry's index as the index) and a `scale` that multiplies the length of every field, so that
//! a bench can double a shape's bytes to check that a finalizer's cost is linear in its input:
//! - [`BenchShape::A`]: 100 shell logs of exactly 50,000 ASCII units each, budget 200,000;
//! - [`BenchShape::B`]: 1,000 chat-style outputs of exactly 5,000 units of mixed ASCII, CJK and emoji (surrogate
//!   pairs) each, budget 100,000;
//! - [`BenchShape::C`]: 10 giant shell logs of exactly 1,000,000 ASCII units each, budget 50,000.
//!
//! Every entry has one function-response part with one string output; the lengths are exact in UTF-16 units.

use serde_json::Value;

use super::buf::TextBuf;
use super::kinds::shell;
use super::{Body, Ctx, Knobs};
use crate::budget::PlanReminders;
use crate::model::{Batch, Entry, Part};
use crate::rng::{Seed, Stream};
use crate::text::head;
use crate::workload::SizeModel;

/// The seed every bench shape is drawn from.
pub const SHAPE_SEED: Seed = Seed(0x6275_6467_6574_6c61);

/// What the text of a shape's fields looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeText {
    /// Shell command logs without colour codes, pure ASCII (one unit per byte).
    AsciiLogs,
    /// Chat-history lines mixing ASCII words, CJK phrases and emoji (some of them surrogate pairs).
    MixedScript,
}

/// One fixed bench batch shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchShape {
    /// The shape's name (`a`, `b`, `c`), as the bench groups `finalize_<name>` use it.
    pub name: &'static str,
    /// Number of entries.
    pub entries: usize,
    /// UTF-16 units of every entry's output at scale 1.
    pub units: usize,
    /// The batch budget, in UTF-16 units (the same at every scale).
    pub budget: u64,
    /// What the text looks like.
    pub text: ShapeText,
}

impl BenchShape {
    /// 100 entries of 50,000 ASCII units, budget 200,000.
    pub const A: BenchShape = BenchShape {
        name: "a",
        entries: 100,
        units: 50_000,
        budget: 200_000,
        text: ShapeText::AsciiLogs,
    };

    /// 1,000 entries of 5,000 units of mixed ASCII, CJK and emoji, budget 100,000.
    pub const B: BenchShape = BenchShape {
        name: "b",
        entries: 1_000,
        units: 5_000,
        budget: 100_000,
        text: ShapeText::MixedScript,
    };

    /// 10 entries of 1,000,000 ASCII units, budget 50,000.
    pub const C: BenchShape = BenchShape {
        name: "c",
        entries: 10,
        units: 1_000_000,
        budget: 50_000,
        text: ShapeText::AsciiLogs,
    };

    /// The three shapes, in order.
    pub const ALL: [BenchShape; 3] = [BenchShape::A, BenchShape::B, BenchShape::C];

    /// The shape named `name` (`a`, `b` or `c`).
    pub fn named(name: &str) -> Option<BenchShape> {
        BenchShape::ALL.into_iter().find(|s| s.name == name)
    }

    /// UTF-16 units of every entry's output at `scale` (`units * scale`).
    pub fn units_at(&self, scale: usize) -> usize {
        self.units * scale
    }

    /// The batch at `scale` (1 is the shape as named; 2 doubles every field). Deterministic.
    pub fn batch(&self, scale: usize) -> Batch {
        let units = self.units_at(scale);
        let domain = format!("bench-shape:{}:x{scale}", self.name);
        let knobs = Knobs {
            ansi_rate: 0.0,
            pretty_json_rate: 0.0,
            object_output_rate: 0.0,
            cjk_share: 0.0,
            file_view_share: 0.0,
            short_units: 0,
            reminders: PlanReminders::default(),
            // Unused: the shapes write no media.
            media: SizeModel::body(1.0, 0.0),
        };
        (0..self.entries)
            .map(|e| {
                let rng = Stream::derive(SHAPE_SEED, &domain, e as u64);
                let (tool, text) = match self.text {
                    ShapeText::AsciiLogs => (shell::TOOL, ascii_logs(rng, &knobs, units)),
                    ShapeText::MixedScript => ("mcp__chat__channel_history", mixed(rng, units)),
                };
                let call_id = format!("call_bench_{}_{e:05}", self.name);
                let part = Part::function_response(&call_id, tool, Some(Value::String(text)), None);
                Entry::new(call_id, tool, vec![part])
            })
            .collect()
    }
}

/// Exactly `units` ASCII units of shell logs: whole logs from the shell generator, back to back, the last one cut.
fn ascii_logs(rng: Stream, knobs: &Knobs, units: usize) -> String {
    let mut out = String::with_capacity(units + 4096);
    let mut c = Ctx { rng, knobs };
    while out.len() < units {
        // Ask for a little more than is missing, so the log's own ending is usually what gets cut.
        let target = units - out.len() + 512;
        let draft = shell::write(&mut c, target);
        let Some(Body::Text(written)) = draft.output else {
            continue;
        };
        // A few logs name people with accented names: the shape is ASCII, so those are skipped.
        if written.text.is_ascii() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&written.text);
        }
    }
    out.truncate(units);
    out
}

const WORDS: &[&str] = &[
    "deploy", "finished", "the", "build", "is", "green", "again", "can", "someone", "review", "PR",
    "#4182", "please", "rollback", "done", "staging", "looks", "fine", "thanks", "ok", "merged",
    "lgtm", "retrying", "flaky", "test", "on", "main", "ETA", "10min",
];

const CJK: &[&str] = &[
    "部署完成",
    "请帮忙看一下",
    "测试通过了",
    "レビューお願いします",
    "本番環境",
    "確認しました",
    "배포 완료",
    "검토 부탁드립니다",
    "已合并",
    "回滚",
    "𠀀𠀁",
    "野家",
];

const EMOJI: &[&str] = &[
    "😀",
    "🎉",
    "🚀",
    "👍",
    "🔥",
    "✅",
    "❌",
    "👀",
    "🙏",
    "💯",
    "🐛",
    "⚠️",
    "👨‍💻",
    "🇯🇵",
];

const NAMES: &[&str] = &[
    "mia", "tomás", "李娜", "佐藤", "kenji", "ana", "정민", "olu",
];

/// Exactly `units` units of chat-history lines mixing ASCII words, CJK phrases and emoji.
fn mixed(mut rng: Stream, units: usize) -> String {
    let mut b = TextBuf::with_capacity(units * 2 + 64);
    let mut minute = rng.below(24 * 60);
    while b.units() < units {
        minute = (minute + 1 + rng.below(7)) % (24 * 60);
        b.ascii("[");
        b.num_pad(minute / 60, 2);
        b.ascii(":");
        b.num_pad(minute % 60, 2);
        b.ascii("] ");
        b.push(rng.pick(NAMES));
        b.ascii(": ");
        let words = 3 + rng.below(10);
        for w in 0..words {
            if w > 0 {
                b.ascii(" ");
            }
            match rng.below(10) {
                0..=4 => b.ascii(rng.pick(WORDS)),
                5..=7 => b.push(rng.pick(CJK)),
                _ => b.push(rng.pick(EMOJI)),
            }
        }
        b.nl();
    }
    let text = b.finish().text;
    let mut cut = head(&text, units).to_string();
    // A cut that would split a surrogate pair ends one unit early; an ASCII dot makes the length exact.
    if crate::text::utf16_len(&cut) < units {
        cut.push('.');
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Field;
    use crate::text::utf16_len;

    fn outputs(batch: &Batch) -> Vec<&str> {
        batch
            .iter()
            .map(|e| e.response_parts[0].field(Field::Output).unwrap())
            .collect()
    }

    #[test]
    fn shapes_have_exact_unit_counts() {
        for shape in [BenchShape::A, BenchShape::B] {
            for scale in [1, 2] {
                let batch = shape.batch(scale);
                assert_eq!(batch.len(), shape.entries, "{}", shape.name);
                for text in outputs(&batch) {
                    assert_eq!(
                        utf16_len(text),
                        shape.units * scale,
                        "{} x{scale}",
                        shape.name
                    );
                }
            }
        }
    }

    #[test]
    fn shape_c_is_ten_ascii_megaunit_logs() {
        let batch = BenchShape::C.batch(1);
        assert_eq!(batch.len(), 10);
        for text in outputs(&batch) {
            assert_eq!(utf16_len(text), 1_000_000);
            assert!(text.is_ascii());
            assert!(text.lines().count() > 1_000, "log-like lines");
        }
    }

    #[test]
    fn text_kinds_are_as_named() {
        let a = BenchShape::A.batch(1);
        assert!(outputs(&a).iter().all(|t| t.is_ascii()));
        let b = BenchShape::B.batch(1);
        let texts = outputs(&b);
        let all = texts.concat();
        assert!(all.chars().any(|c| c.is_ascii_alphabetic()));
        assert!(all.contains("部署完成") || all.contains("本番環境"));
        assert!(all.chars().any(|c| c.len_utf16() == 2), "surrogate pairs");
        assert!(
            texts.iter().all(|t| t.len() > t.chars().count()),
            "non-ASCII in every entry"
        );
    }

    #[test]
    fn shapes_are_deterministic_and_named() {
        assert_eq!(BenchShape::A.batch(1), BenchShape::A.batch(1));
        assert_eq!(BenchShape::named("b"), Some(BenchShape::B));
        assert_eq!(BenchShape::named("z"), None);
        assert_eq!(BenchShape::C.units_at(2), 2_000_000);
    }
}
