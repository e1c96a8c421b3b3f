//! Python literals (what `str(dict)` and `repr(list)` print) read into JSON values, for the old SWE-agent and
//! OpenHands exports that stored some fields that way (`"['call_x']"`, `"{'tool_call_id': 'toolu_1', ...}"`).
//!
//! The grammar is the subset `repr` produces: dicts with string keys, lists, tuples (as arrays), strings in
//! single or double quotes with Python escapes (optionally prefixed `u`/`r`/`b`), integers, floats, `True`,
//! `False` and `None`. Nesting is bounded by [`MAX_DEPTH`]; anything else is an error that gives its byte offset.

use serde_json::{Map, Number, Value};

/// The deepest nesting of lists, tuples and dicts accepted (serde_json's own default limit).
pub(super) const MAX_DEPTH: usize = 128;

/// Parses one Python literal. `Err` says what was expected at which byte offset.
pub(super) fn parse(text: &str) -> Result<Value, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        at: 0,
    };
    let v = p.value(0)?;
    p.space();
    if p.at != p.s.len() {
        return Err(format!("unexpected text at byte {}", p.at));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn space(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn expected(&self, what: &str) -> String {
        format!("expected {what} at byte {}", self.at)
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        self.space();
        match self.peek() {
            Some(b'[') => self.sequence(b']', depth),
            Some(b'(') => self.sequence(b')', depth),
            Some(b'{') => self.dict(depth),
            Some(b'\'' | b'"') => self.string().map(Value::String),
            Some(b'u' | b'U' | b'r' | b'R' | b'b' | b'B')
                if matches!(self.s.get(self.at + 1), Some(b'\'' | b'"')) =>
            {
                let raw = matches!(self.peek(), Some(b'r' | b'R'));
                self.at += 1;
                if raw {
                    self.raw_string().map(Value::String)
                } else {
                    self.string().map(Value::String)
                }
            }
            Some(b'-' | b'+' | b'0'..=b'9' | b'.') => self.number(),
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.at;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    self.at += 1;
                }
                match &self.text[start..self.at] {
                    "True" => Ok(Value::Bool(true)),
                    "False" => Ok(Value::Bool(false)),
                    "None" => Ok(Value::Null),
                    other => Err(format!("unknown name {other:?} at byte {start}")),
                }
            }
            _ => Err(self.expected("a value")),
        }
    }

    fn sequence(&mut self, close: u8, depth: usize) -> Result<Value, String> {
        if depth >= MAX_DEPTH {
            return Err(format!(
                "nested deeper than {MAX_DEPTH} at byte {}",
                self.at
            ));
        }
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.space();
            if self.peek() == Some(close) {
                self.at += 1;
                return Ok(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
            self.space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(c) if c == close => {}
                _ => return Err(self.expected("',' or the closing bracket")),
            }
        }
    }

    fn dict(&mut self, depth: usize) -> Result<Value, String> {
        if depth >= MAX_DEPTH {
            return Err(format!(
                "nested deeper than {MAX_DEPTH} at byte {}",
                self.at
            ));
        }
        self.at += 1;
        let mut map = Map::new();
        loop {
            self.space();
            if self.peek() == Some(b'}') {
                self.at += 1;
                return Ok(Value::Object(map));
            }
            let key = match self.value(depth + 1)? {
                Value::String(k) => k,
                Value::Number(n) => n.to_string(),
                _ => return Err(self.expected("a string or number key")),
            };
            self.space();
            if self.peek() != Some(b':') {
                return Err(self.expected("':'"));
            }
            self.at += 1;
            let value = self.value(depth + 1)?;
            map.insert(key, value);
            self.space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {}
                _ => return Err(self.expected("',' or '}'")),
            }
        }
    }

    fn raw_string(&mut self) -> Result<String, String> {
        let quote = self.s[self.at];
        self.at += 1;
        let start = self.at;
        while let Some(c) = self.peek() {
            if c == b'\\' {
                self.at += 2;
                continue;
            }
            if c == quote {
                let s = self.text[start..self.at].to_string();
                self.at += 1;
                return Ok(s);
            }
            self.at += 1;
        }
        Err(format!(
            "unterminated string starting at byte {}",
            start - 1
        ))
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = self.s[self.at];
        let start = self.at;
        self.at += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(format!("unterminated string starting at byte {start}"));
            };
            if c == quote {
                self.at += 1;
                return Ok(out);
            }
            if c != b'\\' {
                // Copy a run of plain text at once (it is valid UTF-8: it came from a &str).
                let run = self.at;
                while self.peek().is_some_and(|c| c != quote && c != b'\\') {
                    self.at += 1;
                }
                out.push_str(&self.text[run..self.at]);
                continue;
            }
            let escape_at = self.at;
            self.at += 1;
            let Some(e) = self.peek() else {
                return Err(format!("unterminated string starting at byte {start}"));
            };
            self.at += 1;
            match e {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'r' => out.push('\r'),
                b'0' => out.push('\0'),
                b'a' => out.push('\u{7}'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'v' => out.push('\u{b}'),
                b'\\' | b'\'' | b'"' => out.push(e as char),
                b'\n' => {} // a line continuation
                b'x' | b'u' | b'U' => {
                    let n = match e {
                        b'x' => 2,
                        b'u' => 4,
                        _ => 8,
                    };
                    let hex = self
                        .text
                        .get(self.at..self.at + n)
                        .ok_or_else(|| format!("short escape at byte {escape_at}"))?;
                    let code = u32::from_str_radix(hex, 16)
                        .map_err(|_| format!("bad escape at byte {escape_at}"))?;
                    // A lone surrogate cannot be held in a Rust string: it becomes U+FFFD.
                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                    self.at += n;
                }
                _ => {
                    // Python keeps an unknown escape as written, backslash included.
                    out.push('\\');
                    self.at -= 1;
                }
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.at;
        while self.peek().is_some_and(|c| {
            c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'_')
        }) {
            self.at += 1;
        }
        let literal: String = self.text[start..self.at]
            .chars()
            .filter(|&c| c != '_')
            .collect();
        let literal = literal.strip_prefix('+').unwrap_or(&literal);
        if let Ok(i) = literal.parse::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        literal
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("bad number at byte {start}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_what_repr_prints() {
        assert_eq!(parse("['call_x']").unwrap(), json!(["call_x"]));
        assert_eq!(
            parse(r#"{'id': 'call_1', 'type': 'function', 'function': {'name': 'bash', 'arguments': '{"command": "ls -la"}'}, 'n': -3, 'f': 1.5, 'ok': True, 'x': None, 't': (1, 2,)}"#)
                .unwrap(),
            json!({"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\": \"ls -la\"}"},
                   "n":-3,"f":1.5,"ok":true,"x":null,"t":[1,2]})
        );
        assert_eq!(
            parse(r#""it's \\ a \"q\" \n \x41\u00e9\U0001F600 \d""#).unwrap(),
            json!("it's \\ a \"q\" \n Aé😀 \\d")
        );
        assert_eq!(parse(r"'don\'t'").unwrap(), json!("don't"));
        assert_eq!(parse("[]").unwrap(), json!([]));
    }

    #[test]
    fn refuses_what_is_not_a_literal_with_its_offset() {
        assert_eq!(
            parse("['a' 'b']").unwrap_err(),
            "expected ',' or the closing bracket at byte 5"
        );
        assert_eq!(
            parse("[open(1)]").unwrap_err(),
            "unknown name \"open\" at byte 1"
        );
        assert_eq!(
            parse("'abc").unwrap_err(),
            "unterminated string starting at byte 0"
        );
        assert_eq!(parse("[1] x").unwrap_err(), "unexpected text at byte 4");
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(parse(&deep)
            .unwrap_err()
            .starts_with("nested deeper than 128"));
    }
}
