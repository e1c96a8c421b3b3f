//! Reading a tokenizer's vocabulary in the tiktoken rank-file format: one token a line, its bytes in standard
//! base64, one space, its rank as a decimal integer (`IQ== 0`). Every size is checked against a documented bound
//! before anything is allocated from it, and every problem is reported with the file and the line.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};

/// The largest rank file read, in bytes (64 MiB; OpenAI's `o200k_base` is 3.6 MB).
pub const MAX_RANK_FILE_BYTES: u64 = 64 << 20;

/// The longest line of a rank file, in bytes (a token of up to 1,500 bytes and its rank).
pub const MAX_LINE_BYTES: usize = 2_048;

/// The largest rank a token may have (2^24 - 1; the largest published vocabularies hold about 1 million tokens).
pub const MAX_RANK: u32 = (1 << 24) - 1;

/// One token of a vocabulary: its bytes and its rank (lower ranks merge first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RankedToken {
    /// The token's bytes.
    pub bytes: Vec<u8>,
    /// Its rank.
    pub rank: u32,
}

/// Reads and parses the rank file at `path`, refusing a file larger than [`MAX_RANK_FILE_BYTES`] before reading it.
pub(crate) fn read(path: &Path) -> Result<Vec<RankedToken>> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len > MAX_RANK_FILE_BYTES {
        return Err(too_large(&name, len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // The file may grow between the size check and the read: read one byte past the bound at most.
    file.take(MAX_RANK_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_RANK_FILE_BYTES {
        return Err(too_large(&name, bytes.len() as u64));
    }
    parse(&bytes, &name)
}

fn too_large(name: &str, len: u64) -> Error {
    Error::rank_file(
        name,
        None,
        format!(
            "{len} bytes is larger than a rank file may be ({MAX_RANK_FILE_BYTES} bytes, 64 MiB)"
        ),
    )
}

/// Parses a rank file's bytes. Blank lines are skipped (as tiktoken does) and a line may end in `\r\n`. Every
/// byte value must have a token of its own, since any text can hold any byte; no token or rank may appear twice.
pub(crate) fn parse(bytes: &[u8], source_name: &str) -> Result<Vec<RankedToken>> {
    if bytes.len() as u64 > MAX_RANK_FILE_BYTES {
        return Err(too_large(source_name, bytes.len() as u64));
    }
    let err = |line: usize, message: String| Error::rank_file(source_name, Some(line), message);
    let mut tokens: Vec<RankedToken> = Vec::new();
    // Where each token and each rank was first seen, to name both lines of a duplicate.
    let mut token_line: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut rank_line: HashMap<u32, usize> = HashMap::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = i + 1;
        if raw.len() > MAX_LINE_BYTES {
            return Err(err(
                line_no,
                format!(
                    "the line is {} bytes long, more than the {MAX_LINE_BYTES} a rank file line may have",
                    raw.len()
                ),
            ));
        }
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&[u8]> = line
            .split(|&b| b == b' ' || b == b'\t')
            .filter(|f| !f.is_empty())
            .collect();
        let [token, rank] = fields[..] else {
            return Err(err(
                line_no,
                format!(
                    "expected `<base64 token> <rank>`, found {} field{}: {}",
                    fields.len(),
                    if fields.len() == 1 { "" } else { "s" },
                    shown(line)
                ),
            ));
        };
        let decoded = decode_base64(token).map_err(|why| {
            err(
                line_no,
                format!("the token {} is not standard base64: {why}", shown(token)),
            )
        })?;
        if decoded.is_empty() {
            return Err(err(line_no, "the token is empty".into()));
        }
        let rank = parse_rank(rank).map_err(|why| err(line_no, why))?;
        if let Some(first) = rank_line.insert(rank, line_no) {
            return Err(err(
                line_no,
                format!("rank {rank} is already the rank of the token on line {first}"),
            ));
        }
        if let Some(first) = token_line.insert(decoded.clone(), line_no) {
            return Err(err(
                line_no,
                format!(
                    "the token {} already has a rank, on line {first}",
                    shown(&decoded)
                ),
            ));
        }
        tokens.push(RankedToken {
            bytes: decoded,
            rank,
        });
    }
    if tokens.is_empty() {
        return Err(Error::rank_file(
            source_name,
            None,
            "no tokens: a rank file has one `<base64 token> <rank>` a line",
        ));
    }
    for byte in 0..=255u8 {
        if !token_line.contains_key([byte].as_slice()) {
            return Err(Error::rank_file(
                source_name,
                None,
                format!(
                    "no token for the single byte 0x{byte:02x}: a rank file must give every byte a rank of its \
                     own, or some texts could not be encoded"
                ),
            ));
        }
    }
    Ok(tokens)
}

fn parse_rank(field: &[u8]) -> std::result::Result<u32, String> {
    if field.is_empty() || field.len() > 10 || !field.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "the rank {} is not a decimal integer",
            shown(field)
        ));
    }
    let value: u64 = field
        .iter()
        .fold(0, |acc, &d| acc * 10 + u64::from(d - b'0'));
    if value > u64::from(MAX_RANK) {
        return Err(format!(
            "the rank {value} is larger than the largest allowed, {MAX_RANK}"
        ));
    }
    Ok(value as u32)
}

/// A field as shown in an error: at most 40 characters of it, non-printable bytes escaped.
fn shown(field: &[u8]) -> String {
    let text: String = field
        .iter()
        .take(40)
        .flat_map(|&b| std::ascii::escape_default(b))
        .map(char::from)
        .collect();
    let more = if field.len() > 40 { "..." } else { "" };
    format!("`{text}{more}`")
}

/// Decodes standard base64 (`A-Z a-z 0-9 + /`, padded with `=` to a multiple of 4 characters).
pub(crate) fn decode_base64(text: &[u8]) -> std::result::Result<Vec<u8>, &'static str> {
    fn value(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    }
    if !text.len().is_multiple_of(4) {
        return Err("its length is not a multiple of 4");
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let groups = text.len() / 4;
    for (g, chunk) in text.chunks_exact(4).enumerate() {
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && g + 1 != groups) {
            return Err("`=` padding in the wrong place");
        }
        let mut v = 0u32;
        for &c in &chunk[..4 - pad] {
            v = (v << 6) | value(c).ok_or("a character outside the base64 alphabet")?;
        }
        v <<= 6 * pad as u32;
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        // Bits of a padded group that fall past its last byte must be zero (canonical base64).
        let keep = 3 - pad;
        if bytes[keep..].iter().any(|&b| b != 0) {
            return Err("non-zero bits after the last byte");
        }
        out.extend_from_slice(&bytes[..keep]);
    }
    Ok(out)
}

/// Encodes bytes as standard, padded base64 (to write rank files).
pub fn encode_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let mut group = [0u8; 3];
        group[..chunk.len()].copy_from_slice(chunk);
        let v = (u32::from(group[0]) << 16) | (u32::from(group[1]) << 8) | u32::from(group[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((v >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal valid rank file: every single byte, then the given extra lines.
    fn file(extra: &str) -> String {
        let mut s = String::new();
        for b in 0..=255u8 {
            s.push_str(&format!("{} {b}\n", encode_base64(&[b])));
        }
        s.push_str(extra);
        s
    }

    fn error(text: &str) -> String {
        parse(text.as_bytes(), "v.tiktoken")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn base64_round_trips_and_rejects_what_is_not_canonical() {
        for len in 0..10 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 200) as u8).collect();
            let text = encode_base64(&bytes);
            assert_eq!(decode_base64(text.as_bytes()).unwrap(), bytes);
        }
        assert_eq!(encode_base64(b"hello"), "aGVsbG8=");
        assert_eq!(decode_base64(b"IQ==").unwrap(), b"!");
        assert!(decode_base64(b"IQ=").is_err());
        assert!(decode_base64(b"I===").is_err());
        assert!(decode_base64(b"IQ==IQ==").is_err());
        assert!(decode_base64(b"IR==").is_err(), "stray bits after the byte");
        assert!(decode_base64(b"I-==").is_err());
    }

    #[test]
    fn parses_tokens_and_ranks_skipping_blank_lines_and_crlf() {
        let text = file("\r\naGVsbG8= 256\r\n\nIGE= 300\n");
        let tokens = parse(text.as_bytes(), "v").unwrap();
        assert_eq!(tokens.len(), 258);
        assert_eq!(tokens[0].bytes, [0u8]);
        assert_eq!(
            tokens[256],
            RankedToken {
                bytes: b"hello".to_vec(),
                rank: 256
            }
        );
        assert_eq!(tokens[257].rank, 300);
    }

    #[test]
    fn malformed_lines_are_named() {
        assert_eq!(
            error(&file("aGVsbG8=\n")),
            "v.tiktoken:257: expected `<base64 token> <rank>`, found 1 field: `aGVsbG8=`"
        );
        assert_eq!(
            error(&file("aGVsbG8= 1 2\n")),
            "v.tiktoken:257: expected `<base64 token> <rank>`, found 3 fields: `aGVsbG8= 1 2`"
        );
        assert_eq!(
            error(&file("aGVsbG8 256\n")),
            "v.tiktoken:257: the token `aGVsbG8` is not standard base64: its length is not a multiple of 4"
        );
        assert_eq!(
            error(&file("aGVs*G8= 256\n")),
            "v.tiktoken:257: the token `aGVs*G8=` is not standard base64: a character outside the base64 alphabet"
        );
        assert_eq!(
            error(&file("aGVsbG8= -1\n")),
            "v.tiktoken:257: the rank `-1` is not a decimal integer"
        );
        assert_eq!(
            error(&file("aGVsbG8= 16777216\n")),
            "v.tiktoken:257: the rank 16777216 is larger than the largest allowed, 16777215"
        );
        assert_eq!(
            error(&file("aGVsbG8= 99999999999\n")),
            "v.tiktoken:257: the rank `99999999999` is not a decimal integer"
        );
        assert_eq!(
            error(&file("aGVsbG8= 7\n")),
            "v.tiktoken:257: rank 7 is already the rank of the token on line 8"
        );
        assert_eq!(
            error(&file("aGVsbG8= 300\naGVsbG8= 301\n")),
            "v.tiktoken:258: the token `hello` already has a rank, on line 257"
        );
        let long = format!("{} 300\n", "QUFB".repeat(600));
        assert_eq!(
            error(&file(&long)),
            "v.tiktoken:257: the line is 2404 bytes long, more than the 2048 a rank file line may have"
        );
    }

    #[test]
    fn whole_file_problems_name_the_file() {
        assert_eq!(
            error(""),
            "v.tiktoken: no tokens: a rank file has one `<base64 token> <rank>` a line"
        );
        let without_newline: String = file("")
            .lines()
            .filter(|l| !l.starts_with("Cg=="))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(
            error(&without_newline).starts_with("v.tiktoken: no token for the single byte 0x0a")
        );
    }

    #[test]
    fn an_oversized_file_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.tiktoken");
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(MAX_RANK_FILE_BYTES + 1).unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "{}: 67108865 bytes is larger than a rank file may be (67108864 bytes, 64 MiB)",
                path.display()
            )
        );
    }
}
