//! Error lines: compiler and tool errors, exceptions, panics, failed tests, package-manager and shell
//! complaints, and log lines at level ERROR or FATAL. Only the first of a text is a needle.

/// Whether `line` (untrimmed at its start: most error lines begin in the first column) is an error line.
pub(super) fn is_error(line: &str) -> bool {
    let s = line.trim_end();
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if first == b' ' || first == b'\t' {
        // Indented lines are code, stack frames or context, but for a few messages that are errors anywhere.
        let t = s.trim_start();
        return t.starts_with("panicked at ") || t.contains("' panicked at ");
    }
    // error[E0308]: ..., error: ..., Error: ..., ERROR: ..., ERROR ...; not a path (`Error::Io`) and not an
    // empty error slot (gemini-cli's shell output says `Error: (none)`).
    for word in ["error", "Error", "ERROR"] {
        if let Some(rest) = s.strip_prefix(word) {
            if rest.starts_with("::") || rest.trim_start_matches(':').trim() == "(none)" {
                return false;
            }
            let next = rest.bytes().next();
            let ok = match word {
                "error" => matches!(next, Some(b':' | b'[')),
                "Error" => matches!(next, None | Some(b':' | b'[' | b'!')),
                _ => matches!(next, None | Some(b':' | b'[' | b' ' | b']' | b'!')),
            };
            if ok {
                return true;
            }
        }
    }
    if s.starts_with("npm ERR!")
        || s.starts_with("npm error")
        || s.starts_with("fatal: ")
        || s.starts_with("Fatal error")
        || s.starts_with("FATAL")
        || s.starts_with("panic: ")
        || s.starts_with("Exception in thread ")
        || s.starts_with("Uncaught ")
        || s.starts_with("FAIL ")
        || s.starts_with("--- FAIL: ")
        || (s.starts_with("FAILED ") && s.contains("::"))
        || s.strip_prefix("error ").is_some_and(is_coded)
        || s.starts_with("Unhandled exception")
        || s.starts_with("[Error occurred")
        || s.contains("undefined reference to ")
        || s.starts_with("[ERROR]")
        || s.starts_with("[FATAL]")
        || s.starts_with("Segmentation fault")
        || s.contains("' panicked at ")
        || s.starts_with("panicked at ")
    {
        return true;
    }
    // `src/a.c:3:5: error: ...`, `x.py:3: error: ...`.
    if !s.starts_with('/') || s.contains(": ") {
        for marker in [": error:", ": error[", ": fatal error:", ": Error:"] {
            if s.contains(marker) {
                return true;
            }
        }
        // `src/a.ts(3,5): error TS2345: ...`
        if s.split_once(": error ")
            .is_some_and(|(_, rest)| is_coded(rest))
        {
            return true;
        }
    }
    // The shell's own complaints.
    if [
        ": No such file or directory",
        ": Permission denied",
        ": command not found",
    ]
    .iter()
    .any(|tail| s.ends_with(tail) && s.len() > tail.len())
    {
        return true;
    }
    if ["sh: ", "bash: ", "zsh: "]
        .iter()
        .any(|shell| s.starts_with(shell))
        && s.ends_with(": not found")
    {
        return true;
    }
    // Log lines at level ERROR or FATAL: a timestamp or bracket first, the level as a word early on.
    if first.is_ascii_digit() || first == b'[' {
        let head = &s[..floor_char_boundary(s, 48)];
        for level in [
            " ERROR ",
            " FATAL ",
            " CRITICAL ",
            "[ERROR]",
            "[FATAL]",
            " E ",
        ] {
            if head.contains(level) {
                return true;
            }
        }
    }
    is_exception_line(s)
}

/// Whether `rest` starts with an error code and a colon: capital letters, then digits (`TS2345: ...`,
/// `CS0103: ...`).
fn is_coded(rest: &str) -> bool {
    let b = rest.as_bytes();
    let letters = b.iter().take_while(|c| c.is_ascii_uppercase()).count();
    let digits = b[letters..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    letters > 0 && digits > 0 && b.get(letters + digits) == Some(&b':')
}

/// The largest char boundary of `s` at or below `i`.
fn floor_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `ValueError: ...`, `E       KeyError: 'EUR'`, `java.lang.IllegalStateException: ...`, `AssertionError`,
/// `E   assert 1 == 2`.
fn is_exception_line(s: &str) -> bool {
    let mut t = s;
    if let Some(rest) = s.strip_prefix('E') {
        if rest.starts_with("   ") {
            let body = rest.trim_start();
            if !body.is_empty() {
                // pytest's explanation lines: the first one is the error.
                return true;
            }
        }
        if rest.starts_with(' ') {
            t = rest.trim_start();
        }
    }
    let name_len = t
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.' || *c == b'$')
        .count();
    if name_len == 0 || !t.as_bytes()[0].is_ascii_alphabetic() {
        return false;
    }
    let name = &t[..name_len];
    let rest = &t[name_len..];
    let named = [
        "Error",
        "Exception",
        "Exit",
        "Interrupt",
        "Fault",
        "Failure",
    ]
    .iter()
    .any(|end| name.ends_with(end));
    named && (rest.is_empty() || rest.starts_with(": ") || rest == ":")
}
