//! Exit information: a line that is only a command's exit status, in any of the styles harnesses write, and
//! the style itself (the line with its status replaced by `N`), which is what tells harnesses apart.

use super::{integer_len, strip_prefix_ci};

/// The phrases an exit status follows, lowercase; longer phrases before the shorter ones they contain.
const EXIT_PHRASES: &[&str] = &[
    "command finished with exit code",
    "the command completed with exit code",
    "command exited with code",
    "process finished with exit code",
    "process exited with code",
    "exited with code",
    "exit code",
    "exit status",
    "return code",
    "returncode",
];

/// Exit lines are short: anything longer is prose that mentions an exit code.
const MAX_EXIT_LINE: usize = 80;

/// Where the status is in an exit line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Status {
    /// Byte range of the number (its sign included) in the trimmed line.
    start: usize,
    end: usize,
    /// What closes the line's wrapper (`]`, `</returncode>`), if it has one.
    closing: &'static str,
}

/// Whether `s` (trimmed, ANSI removed) is a line of exit information.
pub(super) fn is_exit_info(s: &str) -> bool {
    status(s).is_some()
}

/// The style of the exit line `s` (trimmed, ANSI removed): the line up to its status, `N`, and its wrapper's
/// closing (`Exit Code: 137 (SIGKILL)` is `Exit Code: N`, `[Command finished with exit code 2]` is
/// `[Command finished with exit code N]`). `None` when `s` is no exit line.
pub(super) fn style(s: &str) -> Option<String> {
    let st = status(s)?;
    Some(format!("{}N{}", &s[..st.start], st.closing))
}

fn status(s: &str) -> Option<Status> {
    if s.len() > MAX_EXIT_LINE {
        return None;
    }
    if let Some(rest) = s.strip_prefix("<returncode>") {
        let n = integer_len(rest)?;
        let start = "<returncode>".len();
        return (rest[n..] == *"</returncode>").then_some(Status {
            start,
            end: start + n,
            closing: "</returncode>",
        });
    }
    let (inner, skip, closing) = match (s.strip_prefix('['), s.strip_suffix(']')) {
        (Some(_), Some(_)) if s.len() >= 2 => (&s[1..s.len() - 1], 1, "]"),
        _ => (s, 0, ""),
    };
    for phrase in EXIT_PHRASES {
        let Some(rest) = strip_prefix_ci(inner, phrase) else {
            continue;
        };
        let rest = rest.trim_start_matches([':', '=', ' ']);
        let n = integer_len(rest)?;
        let after = &rest[n..];
        let after_ok = closing.is_empty() || after.trim_end_matches('.').is_empty();
        let plain = after.len() <= 40
            && after
                .chars()
                .next()
                .is_none_or(|c| matches!(c, ' ' | '.' | ',' | ')' | ';'));
        if !(after_ok && plain) {
            return None;
        }
        let start = skip + (inner.len() - rest.len());
        return Some(Status {
            start,
            end: start + n,
            closing,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_style_is_the_line_with_its_status_as_n() {
        for (line, want) in [
            ("Exit Code: 0", "Exit Code: N"),
            ("Exit Code: 137 (SIGKILL)", "Exit Code: N"),
            ("Exit code: 1", "Exit code: N"),
            ("Exit code 2", "Exit code N"),
            ("<returncode>-1</returncode>", "<returncode>N</returncode>"),
            (
                "[Command finished with exit code 1]",
                "[Command finished with exit code N]",
            ),
            (
                "[The command completed with exit code 0.]",
                "[The command completed with exit code N]",
            ),
            ("Process exited with code 3", "Process exited with code N"),
        ] {
            assert_eq!(style(line).as_deref(), Some(want), "{line}");
        }
        let st = status("[Command finished with exit code 12]").unwrap();
        assert_eq!((st.start, st.end), (33, 35));
        for not in [
            "[Command finished with exit code 1] and more]",
            "Exit code: none",
            "<returncode>0</returncode> ok",
        ] {
            assert_eq!(style(not), None, "{not}");
        }
    }
}
