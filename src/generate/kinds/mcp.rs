//! MCP tool results: nested JSON as real servers return it (issue lists, database rows, search hits, file
//! trees), pretty-printed or compact, with unicode in the values, and sometimes a non-string `output` (a JSON
//! object) that finalizers must leave alone. The JSON is written straight into the text buffer; every top-level
//! key is planted as a needle (most near the start, a few trailing ones at the end).

use serde_json::json;

use super::Writers;
use crate::generate::buf::TextBuf;
use crate::generate::cjk;
use crate::generate::vocab::{self, MODULES, NOUNS, PEOPLE, PROJECTS, VERBS};
use crate::generate::{Body, Ctx, Draft};
use crate::needles::NeedleKind;
use crate::rng::Stream;

/// A JSON writer over a [`TextBuf`]. Values written with [`Json::str`] must not need escaping (the vocabulary
/// has no quotes, backslashes or control characters; `\n` escapes are written as such on purpose).
pub(crate) struct Json<'a> {
    b: &'a mut TextBuf,
    pretty: bool,
    /// Open containers: the closing byte and whether nothing has been written in it yet.
    stack: Vec<(u8, bool)>,
}

impl<'a> Json<'a> {
    /// A writer appending to `b`.
    pub(super) fn new(b: &'a mut TextBuf, pretty: bool) -> Json<'a> {
        Json {
            b,
            pretty,
            stack: Vec::with_capacity(8),
        }
    }

    /// The buffer's length so far, in UTF-16 units.
    pub(super) fn units(&self) -> usize {
        self.b.units()
    }

    /// How many containers are open.
    pub(super) fn depth(&self) -> usize {
        self.stack.len()
    }

    fn sep(&mut self) {
        if let Some(top) = self.stack.last_mut() {
            if !top.1 {
                self.b.ascii(",");
            }
            top.1 = false;
            if self.pretty {
                self.b.nl();
                self.b.repeat_byte(b' ', 2 * self.stack.len());
            }
        }
    }

    /// Opens an object as the next value.
    pub(super) fn obj(&mut self) {
        self.b.ascii("{");
        self.stack.push((b'}', true));
    }

    /// Opens an array as the next value.
    pub(super) fn arr(&mut self) {
        self.b.ascii("[");
        self.stack.push((b']', true));
    }

    /// Starts the next array element.
    pub(super) fn item(&mut self) {
        self.sep();
    }

    /// Closes the innermost container.
    pub(super) fn close(&mut self) {
        let (c, empty) = self.stack.pop().expect("a container is open");
        if self.pretty && !empty {
            self.b.nl();
            self.b.repeat_byte(b' ', 2 * self.stack.len());
        }
        self.b.ascii(if c == b'}' { "}" } else { "]" });
    }

    /// Closes containers until `depth` remain open.
    pub(super) fn close_to(&mut self, depth: usize) {
        while self.stack.len() > depth {
            self.close();
        }
    }

    /// Writes an object key; top-level keys are planted as needles.
    pub(super) fn key(&mut self, k: &str) {
        self.sep();
        let mark = self.b.mark();
        self.b.ascii("\"");
        self.b.ascii(k);
        self.b.ascii("\"");
        if self.stack.len() == 1 {
            self.b.plant(NeedleKind::JsonKey, mark);
        }
        self.b.ascii(if self.pretty { ": " } else { ":" });
    }

    /// Writes a string value.
    pub(super) fn str(&mut self, v: &str) {
        self.b.ascii("\"");
        self.b.push(v);
        self.b.ascii("\"");
    }

    /// Writes a string value built by `write`.
    pub(super) fn str_with(&mut self, write: impl FnOnce(&mut TextBuf)) {
        self.b.ascii("\"");
        write(self.b);
        self.b.ascii("\"");
    }

    /// Writes a number.
    pub(super) fn num(&mut self, n: u64) {
        self.b.num(n);
    }

    /// Writes a literal (`true`, `null`, a decimal).
    pub(super) fn raw(&mut self, v: &str) {
        self.b.ascii(v);
    }

    /// The underlying buffer.
    pub(super) fn buf(&mut self) -> &mut TextBuf {
        self.b
    }
}

const SERVERS: &[(&str, usize)] = &[
    ("mcp__tracker__list_issues", 0),
    ("mcp__warehouse__run_query", 1),
    ("mcp__docs__search", 2),
    ("mcp__files__tree", 3),
];

const TITLES: &[&str] = &[
    "Export fails for tenants named «Société Générale & Fils»",
    "日本語のファイル名でダウンロードが失敗する",
    "Emoji in invoice memo 🧾 breaks the PDF layout",
    "Ошибка округления в отчёте за март",
    "Webhook retries pile up after a 502 from the gateway",
    "Cursor pagination skips rows when two postings share a timestamp",
    "Currency symbol ₹ rendered as tofu in the summary email",
    "Grüße aus der Buchhaltung: Umlaute im CSV-Export kaputt",
    "Dark mode: contrast of disabled buttons too low",
    "Import of 2024 ledgers times out for large tenants",
    "数据库迁移在只读副本上卡住",
    "Audit log shows 👻 user for deleted accounts",
    "Rate limiter counts OPTIONS preflight requests",
    "Flaky test: journal rollback under concurrent writers",
];

const LABELS: &[(&str, &str)] = &[
    ("bug", "d73a4a"),
    ("enhancement", "a2eeef"),
    ("i18n", "fbca04"),
    ("performance", "5319e7"),
    ("needs-triage", "ededed"),
    ("good first issue", "7057ff"),
    ("área: facturación", "0e8a16"),
];

/// How this kind's outputs are written: [`write`] and, below the scenario's `short_units`, [`short`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: Some(short),
};

/// Writes one MCP result of about `target` UTF-16 units.
pub(crate) fn write(c: &mut Ctx, target: usize) -> Draft {
    let (tool, shape) = c.rng.pick(SERVERS);
    if c.rng.unit() < c.knobs.object_output_rate {
        return object_output(&mut c.rng, tool);
    }
    if c.rng.below(40) == 0 {
        let mut b = TextBuf::with_capacity(200);
        b.needle_line(NeedleKind::FirstError, |b| {
            b.ascii("MCP error -32603: upstream server returned 502 Bad Gateway after ");
            b.num(c.rng.range(1, 30));
            b.ascii("s");
        });
        b.ascii("\nThe tool call was not retried. Check the server's logs or try again later.");
        return Draft::error(tool, b.finish());
    }
    let pretty = c.rng.unit() < c.knobs.pretty_json_rate;
    let mut b = TextBuf::with_capacity(target + 256);
    {
        let mut j = Json::new(&mut b, pretty);
        let rng = &mut c.rng;
        let zh = c.knobs.cjk_share;
        match shape {
            0 => issues(rng, &mut j, target, zh),
            1 => rows(rng, &mut j, target),
            2 => hits(rng, &mut j, target, zh),
            _ => tree(rng, &mut j, target),
        }
    }
    Draft::output(tool, Body::Text(b.finish()))
}

/// A small JSON object, its keys planted.
fn short(c: &mut Ctx, target: usize) -> Draft {
    let rng = &mut c.rng;
    let mut b = TextBuf::with_capacity(target + 96);
    b.ascii("{");
    let keys = ["id", "state", "updated_at", "title", "owner", "count"];
    for (i, key) in keys.iter().enumerate() {
        if i > 0 {
            b.ascii(", ");
        }
        b.needle_line(NeedleKind::JsonKey, |b| {
            b.ascii("\"");
            b.ascii(key);
            b.ascii("\"");
        });
        b.ascii(": ");
        match i {
            0 | 5 => b.num(rng.range(1, 100_000)),
            2 => {
                b.ascii("\"");
                vocab::iso_time(&mut b, rng);
                b.ascii("\"");
            }
            _ => {
                b.ascii("\"");
                b.ascii(rng.pick(NOUNS));
                b.ascii("_");
                b.ascii(rng.pick(VERBS));
                b.ascii("\"");
            }
        }
        if i >= 1 && b.units() + 24 >= target {
            break;
        }
    }
    b.ascii("}");
    Draft::output("mcp__tracker__get_issue", Body::Text(b.finish()))
}

/// An issue list; each issue's title and body are Chinese with probability `zh`.
fn issues(rng: &mut Stream, j: &mut Json, target: usize, zh: f64) {
    let (project, _) = rng.pick(PROJECTS);
    j.obj();
    j.key("total_count");
    j.num(rng.range(40, 4000));
    j.key("page");
    j.num(1);
    j.key("per_page");
    j.num(100);
    j.key("items");
    j.arr();
    let mut number = rng.range(100, 3000);
    while j.units() + 120 < target {
        let chinese = cjk::chosen(rng, zh);
        j.item();
        j.obj();
        j.key("id");
        j.num(rng.range(1_000_000, 9_000_000));
        j.key("number");
        j.num(number);
        j.key("title");
        let title = if chinese {
            cjk::title(rng)
        } else {
            rng.pick(TITLES)
        };
        j.str(title);
        j.key("state");
        j.str(if rng.below(4) == 0 { "closed" } else { "open" });
        j.key("labels");
        j.arr();
        for _ in 0..rng.below(3) {
            let (name, color) = rng.pick(LABELS);
            j.item();
            j.obj();
            j.key("name");
            j.str(name);
            j.key("color");
            j.str(color);
            j.close();
        }
        j.close();
        j.key("assignee");
        if rng.below(3) == 0 {
            j.raw("null");
        } else {
            let (name, handle) = rng.pick(PEOPLE);
            j.obj();
            j.key("login");
            j.str(handle);
            j.key("display_name");
            j.str(name);
            j.close();
        }
        j.key("comments");
        j.num(rng.below(40));
        j.key("created_at");
        j.str_with(|b| vocab::iso_time(b, rng));
        j.key("updated_at");
        j.str_with(|b| vocab::iso_time(b, rng));
        j.key("url");
        j.str_with(|b| {
            b.ascii("https://tracker.example.dev/");
            b.ascii(project);
            b.ascii("/issues/");
            b.num(number);
        });
        j.key("body");
        j.str_with(|b| {
            if chinese {
                b.push("### 复现步骤\\n1. ");
                cjk::sentence(b, rng, 9);
                b.push("。\\n2. ");
                cjk::sentence(b, rng, 7);
                b.push("。\\n\\n### 期望结果\\n");
                cjk::sentence(b, rng, 12);
                b.push("。");
                return;
            }
            b.ascii("### Steps to reproduce\\n1. ");
            vocab::sentence(b, rng, 9);
            b.ascii("\\n2. ");
            vocab::sentence(b, rng, 7);
            b.ascii("\\n\\n### Expected\\n");
            vocab::sentence(b, rng, 12);
        });
        j.close();
        number = number.saturating_sub(1 + rng.below(3));
    }
    j.close();
    j.key("next_cursor");
    j.str_with(|b| {
        b.ascii("eyJwYWdlIjoy");
        vocab::hex_id(b, rng, 12);
    });
    j.close();
}

fn rows(rng: &mut Stream, j: &mut Json, target: usize) {
    const TENANTS: &[&str] = &[
        "acme-gmbh",
        "nordlicht",
        "café-lumière",
        "東京商事",
        "blue-harbor",
        "kiwi-labs",
        "Żabka Sp.",
    ];
    const CURRENCIES: &[&str] = &["EUR", "USD", "JPY", "GBP", "INR", "PLN"];
    const MEMOS: &[&str] = &[
        "Monthly subscription",
        "Refund – duplicate charge",
        "Überweisung Rechnung 2025-031",
        "請求書 #4471 の支払い",
        "Adjustment after audit 🔍",
        "Card payment",
        "Frais de service",
    ];
    j.obj();
    j.key("columns");
    j.arr();
    for col in [
        "id",
        "tenant",
        "amount_cents",
        "currency",
        "posted_at",
        "memo",
    ] {
        j.item();
        j.str(col);
    }
    j.close();
    j.key("rows");
    j.arr();
    let mut count = 0u64;
    let mut id = rng.range(10_000, 900_000);
    while j.units() + 90 < target {
        j.item();
        j.arr();
        j.item();
        j.num(id);
        id += rng.range(1, 9);
        j.item();
        j.str(rng.pick(TENANTS));
        j.item();
        j.num(rng.range(50, 2_000_000));
        j.item();
        j.str(rng.pick(CURRENCIES));
        j.item();
        j.str_with(|b| vocab::iso_time(b, rng));
        j.item();
        if rng.below(6) == 0 {
            j.raw("null");
        } else {
            j.str(rng.pick(MEMOS));
        }
        j.close();
        count += 1;
    }
    j.close();
    j.key("row_count");
    j.num(count);
    j.key("truncated");
    j.raw("false");
    j.key("elapsed_ms");
    j.num(rng.range(2, 4000));
    j.close();
}

/// Documentation search hits; each snippet is Chinese with probability `zh`.
fn hits(rng: &mut Stream, j: &mut Json, target: usize, zh: f64) {
    j.obj();
    j.key("query");
    j.str_with(|b| {
        b.ascii(rng.pick(NOUNS));
        b.ascii(" ");
        b.ascii(rng.pick(vocab::VERBS));
    });
    j.key("took_ms");
    j.num(rng.range(1, 300));
    j.key("hits");
    j.arr();
    let mut n = 0u64;
    let mut score = 9_900u64;
    while j.units() + 60 < target {
        j.item();
        j.obj();
        j.key("path");
        j.str_with(|b| vocab::src_path(b, rng, "docs/", ".md"));
        j.key("line");
        j.num(rng.range(1, 900));
        j.key("score");
        j.buf().fixed(score, 4);
        score = score.saturating_sub(rng.range(0, 40));
        j.key("snippet");
        j.str_with(|b| {
            b.push("… ");
            if cjk::chosen(rng, zh) {
                cjk::sentence(b, rng, 10);
                b.push("。 …");
                return;
            }
            vocab::sentence(b, rng, 10);
            if rng.below(5) == 0 {
                b.push(" — siehe Abschnitt «Währungen» ");
            }
            b.push(" …");
        });
        j.close();
        n += 1;
    }
    j.close();
    j.key("total_hits");
    j.num(n + rng.below(50));
    j.close();
}

fn tree(rng: &mut Stream, j: &mut Json, target: usize) {
    const FILES: &[&str] = &[
        "mod.rs",
        "lib.rs",
        "README.md",
        "config.toml",
        "index.ts",
        "schema.sql",
        "Makefile",
        "logo.svg",
        "テスト.md",
        "données.csv",
        "notes 📝.txt",
    ];
    let (project, _) = rng.pick(PROJECTS);
    j.obj();
    j.key("root");
    j.str_with(|b| vocab::project_root(b, project));
    j.key("entries");
    j.arr();
    let base = j.depth();
    let mut files = 0u64;
    while j.units() + 80 < target {
        let depth = (j.depth() - base) / 2;
        let r = rng.below(10);
        if r < 2 && depth < 5 {
            j.item();
            j.obj();
            j.key("name");
            j.str(rng.pick(MODULES));
            j.key("type");
            j.str("dir");
            j.key("children");
            j.arr();
        } else if r < 4 && depth > 0 {
            j.close();
            j.close();
        } else {
            j.item();
            j.obj();
            j.key("name");
            j.str(rng.pick(FILES));
            j.key("type");
            j.str("file");
            j.key("size");
            j.num(rng.range(0, 90_000));
            j.close();
            files += 1;
        }
    }
    j.close_to(base);
    j.close();
    j.key("file_count");
    j.num(files);
    j.key("truncated");
    j.raw("false");
    j.close();
}

fn object_output(rng: &mut Stream, tool: &str) -> Draft {
    let (project, _) = rng.pick(PROJECTS);
    let number = rng.range(100, 3000);
    let value = json!({
        "content": [{
            "type": "text",
            "text": format!("Created issue #{number} in {project}"),
        }],
        "structuredContent": {
            "number": number,
            "url": format!("https://tracker.example.dev/{project}/issues/{number}"),
            "labels": ["needs-triage"],
            "title": TITLES[rng.index(TITLES.len())],
        },
        "isError": false,
    });
    Draft::output(tool, Body::Json(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_ctx;

    #[test]
    fn results_are_valid_json_with_keys_as_needles() {
        let mut c = test_ctx(3);
        let mut objects = 0;
        for target in [100usize, 1_000, 10_000, 50_000] {
            for _ in 0..30 {
                let d = write(&mut c, target);
                match d.output {
                    Some(Body::Text(w)) => {
                        let v: serde_json::Value =
                            serde_json::from_str(&w.text).unwrap_or_else(|e| {
                                panic!("{e}: {}", &w.text[..w.text.len().min(400)])
                            });
                        let keys: Vec<String> = v
                            .as_object()
                            .unwrap()
                            .keys()
                            .map(|k| format!("\"{k}\""))
                            .collect();
                        let planted: Vec<String> =
                            w.needles.iter().map(|n| n.text.clone()).collect();
                        assert_eq!(keys, planted);
                        for n in &w.needles {
                            let start = crate::text::head(&w.text, n.offset).len();
                            assert!(w.text[start..].starts_with(&n.text));
                        }
                        if target >= 10_000 {
                            assert!(
                                w.units + 400 >= target && w.units < target + 1_000,
                                "{}",
                                w.units
                            );
                        }
                    }
                    Some(Body::Json(v)) => {
                        assert!(v.is_object());
                        objects += 1;
                    }
                    None => assert!(d.error.is_some()),
                }
            }
        }
        assert!(objects > 0);
    }
}
