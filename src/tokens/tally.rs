//! What `budgetlab tokens` reports: the UTF-16 units, the tokens and the units per token of every text field of
//! a file of batches, by tool and by kind of output.
//!
//! Every text field (a `text` part, a string `functionResponse.response.output` or `.error`) is counted on its
//! own, as the model receives it, and every total is a sum over fields. The kind of a field is read from the
//! batch, since a recorded batch does not say which generator wrote it ([`TextKind::of`]): empty texts are
//! `empty`, entries the runtime answered for (a `status` of cancelled, skipped, synthetic or duplicate) are
//! `cancelled`, text parts are `hook_text`, `enter_plan_mode` responses `plan_mode`, other error fields
//! `error_trace`, and outputs take the kind of their tool's name by the crate's one table of tool names
//! ([`crate::workload::KINDS`]: `run_shell_command`, `Bash` and the other shell tools are `shell`, `mcp__*`
//! is `mcp`, `read_file` is `file_read`, `Edit` is `edit`, ...), or `other` for a tool the table does not name.
//! The generator's `surrogate` and `media` outputs come from tools of other kinds and are counted under those.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::PathBuf;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use super::Tokenizer;
use crate::batch_line::batch_line_from_value;
use crate::budget::PLAN_MODE_TOOL;
use crate::error::{Error, Result};
use crate::model::{Batch, Entry, Field};
use crate::text::utf16_len;
use crate::workload::{kind_of_tool, Kind};

/// The kind of one text field, as far as the batch tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TextKind {
    /// One of the generator's kinds.
    Kind(Kind),
    /// A top-level `text` part: the context a hook added.
    HookText,
    /// The output of a tool none of the generator's kinds is named after.
    Other,
}

/// The `status` values of entries the runtime answered for rather than the tool.
const RUNTIME_STATUSES: &[&str] = &["cancelled", "skipped", "synthetic", "duplicate"];

impl TextKind {
    /// The kind's name: a [`Kind`]'s as scenario files spell it, `hook_text` or `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            TextKind::Kind(k) => k.as_str(),
            TextKind::HookText => "hook_text",
            TextKind::Other => "other",
        }
    }

    /// The kind of the text `text` at `field` of one of `entry`'s parts (see the module documentation).
    pub fn of(entry: &Entry, field: Field, text: &str) -> TextKind {
        let status = entry.extra.get("status").and_then(Value::as_str);
        let tool = entry.tool_name.as_str();
        if text.is_empty() {
            TextKind::Kind(Kind::Empty)
        } else if status.is_some_and(|s| RUNTIME_STATUSES.contains(&s)) {
            TextKind::Kind(Kind::Cancelled)
        } else if field == Field::Text {
            TextKind::HookText
        } else if tool == PLAN_MODE_TOOL {
            TextKind::Kind(Kind::PlanMode)
        } else if field == Field::Error {
            TextKind::Kind(Kind::ErrorTrace)
        } else {
            kind_of_tool(tool).map_or(TextKind::Other, TextKind::Kind)
        }
    }
}

/// Text fields, UTF-16 units and tokens of some part of a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Text fields counted.
    pub fields: u64,
    /// Their UTF-16 code units.
    pub units: u64,
    /// Their tokens (each field encoded on its own).
    pub tokens: u64,
}

impl Counts {
    /// Units per token; `None` when there are no tokens (nothing to measure).
    pub fn units_per_token(&self) -> Option<f64> {
        (self.tokens > 0).then(|| self.units as f64 / self.tokens as f64)
    }

    fn add(&mut self, units: usize, tokens: usize) {
        self.fields += 1;
        self.units += units as u64;
        self.tokens += tokens as u64;
    }
}

/// One row of a table: a tool or a kind and its counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// The tool name, or the kind.
    pub name: String,
    /// For a tool: the kinds of its fields, in kind order; for a kind: empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<&'static str>,
    /// The counts.
    #[serde(flatten)]
    pub counts: Counts,
    /// Units per token; null when there are no tokens.
    pub units_per_token: Option<f64>,
}

/// The report of `budgetlab tokens`: totals, by tool and by kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenTally {
    /// The tokenizer's name (a built-in encoding's, or the rank file's path).
    pub tokenizer: String,
    /// Where the batches came from.
    pub source: String,
    /// budgetlab's version.
    pub version: String,
    /// Batches read.
    pub batches: u64,
    /// Entries in them.
    pub entries: u64,
    /// Every text field together.
    pub total: Row,
    /// One row per tool name, sorted by name.
    pub by_tool: Vec<Row>,
    /// One row per kind of text, in kind order (the generator's kinds, then `hook_text`, then `other`).
    pub by_kind: Vec<Row>,
}

fn row(name: String, kinds: Vec<&'static str>, counts: Counts) -> Row {
    Row {
        name,
        kinds,
        units_per_token: counts.units_per_token(),
        counts,
    }
}

impl TokenTally {
    /// Counts every text field of `batches` with `tokenizer` (in parallel; the result does not depend on the
    /// thread count). `source` names the input in the report.
    pub fn new(batches: &[Batch], tokenizer: &Tokenizer, source: &str) -> TokenTally {
        let fields: Vec<(&str, TextKind, &str)> = batches
            .iter()
            .flatten()
            .flat_map(|entry| {
                entry.response_parts.iter().flat_map(move |part| {
                    Field::ALL.into_iter().filter_map(move |field| {
                        let text = part.field(field)?;
                        Some((
                            entry.tool_name.as_str(),
                            TextKind::of(entry, field, text),
                            text,
                        ))
                    })
                })
            })
            .collect();
        let measured: Vec<(usize, usize)> = fields
            .par_iter()
            .map(|&(_, _, text)| (utf16_len(text), tokenizer.count(text)))
            .collect();
        let mut total = Counts::default();
        let mut by_tool: BTreeMap<&str, (Counts, BTreeSet<TextKind>)> = BTreeMap::new();
        let mut by_kind: BTreeMap<TextKind, Counts> = BTreeMap::new();
        for (&(tool, kind, _), &(units, tokens)) in fields.iter().zip(&measured) {
            total.add(units, tokens);
            let t = by_tool.entry(tool).or_default();
            t.0.add(units, tokens);
            t.1.insert(kind);
            by_kind.entry(kind).or_default().add(units, tokens);
        }
        TokenTally {
            tokenizer: tokenizer.name().to_string(),
            source: source.to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            batches: batches.len() as u64,
            entries: batches.iter().map(|b| b.len() as u64).sum(),
            total: row("total".into(), Vec::new(), total),
            by_tool: by_tool
                .into_iter()
                .map(|(tool, (counts, kinds))| {
                    row(
                        tool.to_string(),
                        kinds.into_iter().map(TextKind::as_str).collect(),
                        counts,
                    )
                })
                .collect(),
            by_kind: by_kind
                .into_iter()
                .map(|(kind, counts)| row(kind.as_str().to_string(), Vec::new(), counts))
                .collect(),
        }
    }

    /// The report as one pretty-printed JSON object and a newline.
    pub fn json(&self) -> String {
        let mut out = serde_json::to_string_pretty(self).expect("a tally serializes");
        out.push('\n');
        out
    }

    /// The report as Markdown: a summary line, the table by kind with the total, and the table by tool.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "Tokens of {} by {}: {} batches, {} entries, {} text fields.\n\n",
            cell(&self.source),
            self.tokenizer,
            self.batches,
            self.entries,
            self.total.counts.fields
        );
        out.push_str(
            "| kind | fields | units | tokens | units/token |\n|---|---:|---:|---:|---:|\n",
        );
        for r in self.by_kind.iter().chain([&self.total]) {
            out.push_str(&format!("| {} |{}\n", r.name, numbers(r)));
        }
        out.push_str(
            "\n| tool | kinds | fields | units | tokens | units/token |\n|---|---|---:|---:|---:|---:|\n",
        );
        for r in &self.by_tool {
            out.push_str(&format!(
                "| {} | {} |{}\n",
                cell(&r.name),
                r.kinds.join(", "),
                numbers(r)
            ));
        }
        out
    }
}

/// The numeric cells of a row: fields, units, tokens and units per token (`-` when there are no tokens).
fn numbers(r: &Row) -> String {
    let upt = r
        .units_per_token
        .map_or_else(|| "-".to_string(), |v| format!("{v:.2}"));
    format!(
        " {} | {} | {} | {} |",
        r.counts.fields, r.counts.units, r.counts.tokens, upt
    )
}

/// A name as a table cell: `|` escaped and control characters shown as escapes, so no name breaks the table.
fn cell(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '|' => out.push_str("\\|"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// What `budgetlab tokens` runs: a file of batches counted with a tokenizer.
#[derive(Debug, Clone)]
pub struct TallyJob {
    /// The file of batches (see [`read_batches`]); `-` is standard input.
    pub input: PathBuf,
    /// `--tokenizer`: a built-in encoding's name or a rank file's path (see [`Tokenizer::resolve`]).
    pub tokenizer: String,
    /// `--tokenizer-pattern`, for a rank file.
    pub pattern: Option<String>,
}

impl TallyJob {
    /// Resolves the tokenizer, reads the batches and counts them.
    pub fn run(&self) -> Result<TokenTally> {
        let tokenizer = Tokenizer::resolve(&self.tokenizer, self.pattern.as_deref())?;
        let (bytes, source) = if self.input.as_os_str() == "-" {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| Error::io("<stdin>", e))?;
            (buf, "<stdin>".to_string())
        } else {
            let bytes = std::fs::read(&self.input).map_err(|e| Error::io(&self.input, e))?;
            (bytes, self.input.display().to_string())
        };
        let batches = read_batches(&bytes, &source)?;
        drop(bytes); // the batches own their text now
        Ok(TokenTally::new(&batches, &tokenizer, &source))
    }
}

/// Reads a file of batches: JSON Lines with one batch (a JSON array of entries) a line, as `generate` writes
/// them, or one batch over any number of lines, as `finalize` reads it; any sequence of batches separated by
/// whitespace, after a UTF-8 byte order mark as every reader skips. Errors name the line: of the malformed JSON,
/// or of the batch whose shape is wrong.
pub fn read_batches(bytes: &[u8], source_name: &str) -> Result<Vec<Batch>> {
    let bytes = crate::model::without_bom(bytes);
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    let mut batches = Vec::new();
    let (mut line, mut counted) = (1usize, 0usize);
    loop {
        let before = stream.byte_offset();
        let value = match stream.next() {
            None => break,
            Some(Err(e)) => return Err(Error::json(source_name, &e)),
            Some(Ok(value)) => value,
        };
        let start = before
            + bytes[before..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        line += bytes[counted..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = start;
        batches.push(batch_line_from_value(value, &format!("{source_name}:{line}"))?.entries);
    }
    Ok(batches)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{parse_batch, Part};
    use crate::tokens::Encoding;

    fn entry(tool: &str, parts: Vec<Part>) -> Entry {
        Entry::new("c", tool, parts)
    }

    fn out(text: &str) -> Part {
        Part::function_response("c", "x", Some(Value::String(text.into())), None)
    }

    #[test]
    fn kinds_follow_the_documented_rules() {
        let kind = |e: &Entry, f: Field, t: &str| TextKind::of(e, f, t).as_str();
        let shell = entry("run_shell_command", vec![]);
        assert_eq!(kind(&shell, Field::Output, "ok"), "shell");
        assert_eq!(kind(&shell, Field::Output, ""), "empty");
        assert_eq!(kind(&shell, Field::Error, "boom"), "error_trace");
        assert_eq!(kind(&shell, Field::Text, "ctx"), "hook_text");
        assert_eq!(kind(&entry("bash", vec![]), Field::Output, "x"), "shell");
        assert_eq!(kind(&entry("mcp__a__b", vec![]), Field::Output, "x"), "mcp");
        assert_eq!(
            kind(&entry("read_file", vec![]), Field::Output, "x"),
            "file_read"
        );
        assert_eq!(
            kind(&entry("search_file_content", vec![]), Field::Output, "x"),
            "search"
        );
        assert_eq!(
            kind(&entry("list_directory", vec![]), Field::Output, "x"),
            "listing"
        );
        assert_eq!(
            kind(&entry("replace", vec![]), Field::Output, "x"),
            "short_success"
        );
        assert_eq!(
            kind(&entry("enter_plan_mode", vec![]), Field::Error, "x"),
            "plan_mode"
        );
        assert_eq!(
            kind(&entry("web_fetch", vec![]), Field::Output, "x"),
            "other"
        );
        let mut cancelled = entry("replace", vec![]);
        cancelled
            .extra
            .insert("status".into(), Value::String("skipped".into()));
        assert_eq!(kind(&cancelled, Field::Error, "Skipped."), "cancelled");
        assert_eq!(kind(&cancelled, Field::Error, ""), "empty");
    }

    #[test]
    fn every_field_is_counted_on_its_own_and_totals_are_sums() {
        let t = Tokenizer::builtin(Encoding::O200kBase);
        // "hello world" is 2 tokens and 11 units; "日志" 1 token (pinned in tests/tokens.rs) and 2 units.
        let batch = vec![
            entry(
                "run_shell_command",
                vec![
                    Part::function_response(
                        "c",
                        "run_shell_command",
                        Some(Value::String("hello world".into())),
                        Some(Value::String("hello world".into())),
                    ),
                    Part::text("hello world"),
                ],
            ),
            entry("mcp__x__y", vec![out("hello world"), out("")]),
            entry(
                "read_file",
                vec![Part::function_response(
                    "c",
                    "read_file",
                    Some(serde_json::json!({"not": "text"})),
                    None,
                )],
            ),
        ];
        let tally = TokenTally::new(&[batch.clone(), batch], &t, "in.jsonl");
        assert_eq!(tally.batches, 2);
        assert_eq!(tally.entries, 6);
        // Per batch: five string fields (one empty); the object output is not a text field.
        assert_eq!(
            tally.total.counts,
            Counts {
                fields: 10,
                units: 88,
                tokens: 16
            }
        );
        assert_eq!(tally.total.units_per_token, Some(5.5));
        let names: Vec<(&str, u64, u64, u64)> = tally
            .by_kind
            .iter()
            .map(|r| {
                (
                    r.name.as_str(),
                    r.counts.fields,
                    r.counts.units,
                    r.counts.tokens,
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("shell", 2, 22, 4),
                ("mcp", 2, 22, 4),
                ("empty", 2, 0, 0),
                ("error_trace", 2, 22, 4),
                ("hook_text", 2, 22, 4),
            ]
        );
        assert_eq!(tally.by_kind[2].units_per_token, None);
        let tools: Vec<(&str, &[&str], u64)> = tally
            .by_tool
            .iter()
            .map(|r| (r.name.as_str(), r.kinds.as_slice(), r.counts.tokens))
            .collect();
        assert_eq!(
            tools,
            [
                ("mcp__x__y", &["mcp", "empty"][..], 4),
                (
                    "run_shell_command",
                    &["shell", "error_trace", "hook_text"][..],
                    12
                ),
            ]
        );
    }

    #[test]
    fn markdown_and_json_render_the_same_numbers() {
        let t = Tokenizer::builtin(Encoding::O200kBase);
        let batch = vec![
            entry("a|b", vec![out("hello world")]),
            entry("read_file", vec![out("")]),
        ];
        let tally = TokenTally::new(&[batch], &t, "x.jsonl");
        assert_eq!(
            tally.markdown(),
            "Tokens of x.jsonl by o200k_base: 1 batches, 2 entries, 2 text fields.\n\n\
             | kind | fields | units | tokens | units/token |\n|---|---:|---:|---:|---:|\n\
             | empty | 1 | 0 | 0 | - |\n\
             | other | 1 | 11 | 2 | 5.50 |\n\
             | total | 2 | 11 | 2 | 5.50 |\n\n\
             | tool | kinds | fields | units | tokens | units/token |\n|---|---|---:|---:|---:|---:|\n\
             | a\\|b | other | 1 | 11 | 2 | 5.50 |\n\
             | read_file | empty | 1 | 0 | 0 | - |\n"
        );
        let json = serde_json::to_value(&tally).unwrap();
        assert_eq!(
            json["total"],
            serde_json::json!({"name": "total", "fields": 2, "units": 11, "tokens": 2, "unitsPerToken": 5.5})
        );
        assert_eq!(json["byTool"][1]["unitsPerToken"], Value::Null);
        assert_eq!(json["byTool"][1]["kinds"], serde_json::json!(["empty"]));
    }

    #[test]
    fn reads_json_lines_and_multi_line_batches_naming_lines() {
        let line = r#"[{"callId":"a","toolName":"t","responseParts":[{"text":"x"}]}]"#;
        let text = format!("{line}\n\n{line}\n[\n  {{\"callId\": \"b\", \"toolName\": \"t\", \"responseParts\": []}}\n]\n");
        let batches = read_batches(text.as_bytes(), "f.jsonl").unwrap();
        assert_eq!(batches.len(), 3);
        assert_eq!(batches[0], parse_batch(line.as_bytes(), "x").unwrap());
        assert_eq!(batches[2][0].call_id, "b");
        let bad = format!("{line}\n\n[{{\"callId\":\"a\",\"responseParts\":[]}}]\n");
        assert_eq!(
            read_batches(bad.as_bytes(), "f.jsonl")
                .unwrap_err()
                .to_string(),
            "f.jsonl:3: entry 0: missing \"toolName\""
        );
        let bad = format!("{line}\n{{\"needles\": []}}\n");
        assert_eq!(
            read_batches(bad.as_bytes(), "f.jsonl")
                .unwrap_err()
                .to_string(),
            "f.jsonl:2: a batch must be a JSON array of entries (or an object holding \"entries\"), found an object with \"needles\""
        );
        let e = read_batches(format!("{line}\n[{{]\n").as_bytes(), "f.jsonl")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("f.jsonl: invalid JSON at line 2, column 3"),
            "{e}"
        );
        assert!(read_batches(b"  \n", "f").unwrap().is_empty());
    }
}
