//! The fit: how a shortened field is rewritten to exactly its allocation.
//!
//! A header names the full output's sha256 and any artifact paths; then, as the allocation allows, a blank line
//! and a head-and-tail preview of the original (by default one fifth head, four fifths tail, with `\n...\n`
//! between them). Every cut is surrogate-safe, so a fit never exceeds its allocation.

use super::head_share::HeadShare;
use crate::digest::{push_hex, sha256};
use crate::text::{head, tail, utf16_len};

/// The header's opening line and the label of the digest, which follows it as 64 hex digits.
const NOTICE: &str = "Tool output truncated.\nFull output sha256: ";
/// What precedes the path of a field persisted to one artifact.
const ONE_PATH: &str = "\nPersisted tool-output artifact: ";
/// What precedes the list of a field persisted to several artifacts, and each item of that list.
const MANY_PATHS: &str = "\nPersisted tool-output artifacts:";
const PATH_ITEM: &str = "\n- ";

/// The header of a shortened field: the truncation notice, the full text's sha256 and the artifact paths.
pub fn header(full_text: &str, paths: &[String]) -> String {
    header_with_digest(&sha256(full_text.as_bytes()), paths)
}

/// The header of a shortened field whose full text's sha256 is `digest` (computed ahead, see `cut_digests.rs`).
pub(crate) fn header_with_digest(digest: &[u8; 32], paths: &[String]) -> String {
    let mut h = String::with_capacity(128);
    h.push_str(NOTICE);
    push_hex(&mut h, digest);
    match paths {
        [] => {}
        [one] => {
            h.push_str(ONE_PATH);
            h.push_str(one);
        }
        many => {
            h.push_str(MANY_PATHS);
            for p in many {
                h.push_str(PATH_ITEM);
                h.push_str(p);
            }
        }
    }
    h
}

/// The length in UTF-16 units of any header naming `paths`, whatever the text it digests.
pub(crate) fn header_units(paths: &[String]) -> u64 {
    let units = |s: &str| utf16_len(s) as u64;
    let listed = match paths {
        [] => 0,
        [one] => units(ONE_PATH) + units(one),
        many => {
            units(MANY_PATHS)
                + many
                    .iter()
                    .map(|p| units(PATH_ITEM) + units(p))
                    .sum::<u64>()
        }
    };
    units(NOTICE) + 64 + listed
}

/// Rewrites `text` to at most `allocation` UTF-16 units behind `header`.
///
/// With `A = allocation` and `H = len(header)`: `A = 0` gives the empty string; `H >= A` or `A - H - 2 <= 0`
/// gives the header cut to `A`; else `preview = A - H - 2`, and `preview <= 5` gives header, blank line and the
/// first `preview` units; otherwise `content = preview - 5` is split into head and tail by `share` and the fit
/// is header, blank line, head, `\n...\n`, tail.
pub(crate) fn fit(text: &str, allocation: u64, header: &str, share: HeadShare) -> String {
    if allocation == 0 {
        return String::new();
    }
    let h = utf16_len(header) as u64;
    if h + 2 >= allocation {
        return head(header, allocation as usize).to_string();
    }
    let preview = allocation - h - 2;
    let mut out = String::with_capacity(header.len() + 2 + 4 * preview as usize);
    out.push_str(header);
    out.push_str("\n\n");
    if preview <= 5 {
        out.push_str(head(text, preview as usize));
        return out;
    }
    let content = preview - 5;
    let head_units = share.head_units(content);
    out.push_str(head(text, head_units as usize));
    out.push_str("\n...\n");
    out.push_str(tail(text, (content - head_units) as usize));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha256_hex;

    const TEXT: &str = "0123456789abcdefghijklmnopqrstuvwxyz";

    #[test]
    fn header_forms() {
        let sha = sha256_hex("abc");
        assert_eq!(
            sha,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            header("abc", &[]),
            format!("Tool output truncated.\nFull output sha256: {sha}")
        );
        assert_eq!(
            header("abc", &["/a".into()]),
            format!("Tool output truncated.\nFull output sha256: {sha}\nPersisted tool-output artifact: /a")
        );
        assert_eq!(
            header("abc", &["/a".into(), "/b".into()]),
            format!("Tool output truncated.\nFull output sha256: {sha}\nPersisted tool-output artifacts:\n- /a\n- /b")
        );
        assert_eq!(
            header_with_digest(&sha256(b"abc"), &["/a".into()]),
            header("abc", &["/a".into()])
        );
    }

    #[test]
    fn header_units_are_the_length_of_every_header() {
        let path_lists: [&[&str]; 5] = [
            &[],
            &["/a"],
            &["/tmp/x.txt", "/b"],
            &["/é/😀.txt"],
            &["", "", ""],
        ];
        for paths in path_lists {
            let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
            for text in ["", "abc", "😀 text"] {
                assert_eq!(
                    header_units(&paths),
                    utf16_len(&header(text, &paths)) as u64,
                    "{paths:?}"
                );
            }
        }
        assert_eq!(header_units(&[]), 107);
        assert_eq!(header_units(&["/é/😀.txt".into()]), 107 + 33 + 9);
    }

    #[test]
    fn fits_at_every_boundary() {
        let h = "HEADER"; // len(H) = 6
        let f = |a: u64| fit(TEXT, a, h, HeadShare::DEFAULT);
        assert_eq!(f(0), "");
        assert_eq!(f(1), "H");
        assert_eq!(f(5), "HEADE"); // len(H) - 1
        assert_eq!(f(6), "HEADER"); // len(H)
        assert_eq!(f(7), "HEADER"); // len(H) + 1: no room for the blank line
        assert_eq!(f(8), "HEADER"); // len(H) + 2: preview 0 is not > 0
        assert_eq!(f(9), "HEADER\n\n0"); // len(H) + 3: one unit of preview
        assert_eq!(f(13), "HEADER\n\n01234"); // len(H) + 7: preview 5, head only
        assert_eq!(f(14), "HEADER\n\n\n...\nz"); // len(H) + 8: content 1, head 0, tail 1
        assert_eq!(f(19), "HEADER\n\n0\n...\nvwxyz"); // content 6: head 1, tail 5
        for a in 0..40 {
            assert!(utf16_len(&f(a)) as u64 <= a, "allocation {a}");
        }
        assert_eq!(utf16_len(&f(19)), 19);
    }

    #[test]
    fn head_share_moves_the_split() {
        let all_head = HeadShare { num: 1, den: 1 };
        assert_eq!(fit(TEXT, 19, "HEADER", all_head), "HEADER\n\n012345\n...\n");
        let all_tail = HeadShare { num: 0, den: 1 };
        assert_eq!(fit(TEXT, 19, "HEADER", all_tail), "HEADER\n\n\n...\nuvwxyz");
    }

    #[test]
    fn cuts_never_split_pairs() {
        let emoji = "😀".repeat(50);
        // header 2 units, preview 17 → content 12: head 2 (one emoji), tail 10 (five emoji)
        assert_eq!(
            fit(&emoji, 21, "HH", HeadShare::DEFAULT),
            format!("HH\n\n😀\n...\n{}", "😀".repeat(5))
        );
        // content 13: head 2, tail 11 → the tail may not start on a low surrogate: five emoji (10 units)
        assert_eq!(
            fit(&emoji, 22, "HH", HeadShare::DEFAULT),
            format!("HH\n\n😀\n...\n{}", "😀".repeat(5))
        );
        // content 15: head 3 → one emoji; a header cut through a pair drops it
        assert_eq!(
            fit(&emoji, 24, "HH", HeadShare::DEFAULT)
                .matches('😀')
                .count(),
            1 + 6
        );
        assert_eq!(fit("x", 3, "ab😀", HeadShare::DEFAULT), "ab");
    }
}
