//! Command-line splitting: the COMMAND of `--external NAME=COMMAND` cut into a program and its arguments as a
//! POSIX shell would cut it, without running a shell.
//!
//! Words are separated by unquoted blanks (space, tab, and a newline before the first word or after the last: a
//! newline between two words ends a shell's command, so it is refused). Single quotes keep everything up to the next
//! single quote literally; double quotes keep everything but `\\`, `\"`, `\$`, `` \` `` and a backslash-newline,
//! which they unescape; outside quotes a backslash keeps the next character literally (a backslash-newline
//! disappears). Quotes join with what touches them (`a'b c'd` is one word), and `''` is an empty word.
//!
//! Nothing is expanded, so anything a shell would treat specially is refused rather than passed on with another
//! meaning: outside quotes the operators `| & ; < > ( )`, `$` and `` ` `` (expansions), `* ? [` (globs), and `#`
//! or `~` at the start of a word (a comment, a home folder); inside double quotes an unescaped `$` or `` ` ``. Every command this accepts therefore gives the
//! program exactly the words a shell would give it; for pipes or variables, run a shell explicitly
//! (`sh -c '...'`).

/// Splits `command` into words; the error says what is wrong and at which character (1-based).
pub fn split_command(command: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    // Whether a word has started (so that `''` gives an empty word).
    let mut started = false;
    let mut chars = command.chars().enumerate().peekable();
    while let Some((i, c)) = chars.next() {
        let at = i + 1;
        match c {
            '\n' if (started || !words.is_empty())
                && chars
                    .clone()
                    .any(|(_, ch)| !matches!(ch, ' ' | '\t' | '\n')) =>
            {
                return Err(refused(at, c, "a shell command separator"));
            }
            ' ' | '\t' | '\n' => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            '\'' => {
                started = true;
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, ch)) => word.push(ch),
                        None => {
                            return Err(format!(
                                "the single quote at character {at} is never closed"
                            ))
                        }
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.peek().map(|&(_, ch)| ch) {
                            Some('\n') => {
                                chars.next();
                            }
                            Some(ch @ ('\\' | '"' | '$' | '`')) => {
                                chars.next();
                                word.push(ch);
                            }
                            _ => word.push('\\'),
                        },
                        Some((j, ch @ ('$' | '`'))) => {
                            return Err(refused(
                                j + 1,
                                ch,
                                "a shell expansion, even inside double quotes",
                            ));
                        }
                        Some((_, ch)) => word.push(ch),
                        None => {
                            return Err(format!(
                                "the double quote at character {at} is never closed"
                            ))
                        }
                    }
                }
            }
            '\\' => match chars.next() {
                Some((_, '\n')) => {}
                Some((_, ch)) => {
                    started = true;
                    word.push(ch);
                }
                None => return Err(format!("the backslash at character {at} escapes nothing")),
            },
            '|' | '&' | ';' | '<' | '>' | '(' | ')' => {
                return Err(refused(at, c, "a shell operator"));
            }
            '$' | '`' => return Err(refused(at, c, "a shell expansion")),
            '*' | '?' | '[' => return Err(refused(at, c, "a shell glob")),
            '#' if !started => return Err(refused(at, c, "a shell comment")),
            '~' if !started => return Err(refused(at, c, "a home-folder expansion")),
            _ => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        words.push(word);
    }
    if words.is_empty() {
        return Err("the command is empty".into());
    }
    Ok(words)
}

fn refused(at: usize, c: char, what: &str) -> String {
    let quoted = if what.contains("double quotes") {
        ""
    } else {
        "unquoted "
    };
    let shown = if c == '`' {
        "`` ` ``".to_string()
    } else if c == '\n' {
        "newline".to_string()
    } else {
        format!("`{c}`")
    };
    format!(
        "{quoted}{shown} at character {at} is {what}; no shell runs the command, so quote it, or run a shell \
         explicitly (sh -c '...')"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        split_command(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    #[test]
    fn blanks_separate_and_quotes_join() {
        assert_eq!(
            words("python3  fin.py\t--x 1\n"),
            ["python3", "fin.py", "--x", "1"]
        );
        assert_eq!(words("a'b c'd"), ["ab cd"]);
        assert_eq!(words("a\"b c\"d e"), ["ab cd", "e"]);
        assert_eq!(words("x '' \"\" y"), ["x", "", "", "y"]);
        assert_eq!(words("'it'\\''s'"), ["it's"]);
        assert_eq!(words("ünïcode 'é 😀'"), ["ünïcode", "é 😀"]);
    }

    #[test]
    fn quoted_specials_are_literal() {
        assert_eq!(
            words("sh -c 'echo $HOME | cat; ls *.txt'"),
            ["sh", "-c", "echo $HOME | cat; ls *.txt"]
        );
        assert_eq!(words("a\\ b \\$x \\*"), ["a b", "$x", "*"]);
        assert_eq!(words("x#y a~b"), ["x#y", "a~b"]);
        assert_eq!(words("'#c' '~/p'"), ["#c", "~/p"]);
    }

    #[test]
    fn double_quotes_unescape_only_their_four_characters() {
        assert_eq!(words(r#""a\"b\\c\$d\`e\nf""#), ["a\"b\\c$d`e\\nf"]);
        assert_eq!(words("\"line\\\ncontinued\""), ["linecontinued"]);
        assert_eq!(words("one\\\ntwo"), ["onetwo"]);
        // Single quotes keep a backslash as it is.
        assert_eq!(words(r"'a\b'"), [r"a\b"]);
    }

    #[test]
    fn errors_name_the_character() {
        let err = |s: &str| split_command(s).unwrap_err();
        assert_eq!(
            err("a 'b"),
            "the single quote at character 3 is never closed"
        );
        assert_eq!(
            err("\"b"),
            "the double quote at character 1 is never closed"
        );
        assert_eq!(err("a\\"), "the backslash at character 2 escapes nothing");
        assert_eq!(err(""), "the command is empty");
        assert_eq!(err(" \t\n"), "the command is empty");
        assert!(err("a | b").starts_with("unquoted `|` at character 3 is a shell operator"));
        assert!(err("a $HOME").contains("`$` at character 3 is a shell expansion"));
        assert!(err("ls *.txt").contains("`*` at character 4 is a shell glob"));
        assert!(err("a #c").contains("`#` at character 3 is a shell comment"));
        assert!(err("a\nb")
            .starts_with("unquoted newline at character 2 is a shell command separator; "));
        assert!(err("a 'x'\n\tb").contains("newline at character 6 is a shell command separator"));
        assert_eq!(words("\n a b \n\t"), ["a", "b"]);
        assert_eq!(words("a 'x\ny'"), ["a", "x\ny"]);
        assert!(err("~/bin/f").contains("`~` at character 1 is a home-folder expansion"));
        assert!(err("echo \"$HOME\"")
            .contains("`$` at character 7 is a shell expansion, even inside double quotes"));
        assert!(err("echo \"`x`\"")
            .contains("at character 7 is a shell expansion, even inside double quotes"));
        for op in ["a&", "a;b", "a<b", "a>b", "(a)", "`a`", "a?", "a[b]"] {
            assert!(split_command(op).is_err(), "{op}");
        }
    }

    #[test]
    fn agrees_with_sh_on_what_it_accepts() {
        // Every accepted command gives the words `sh` gives it (checked where a POSIX sh is installed).
        let cases = [
            "prog a b",
            "a'b c'd",
            "x '' \"\" y",
            r#""a\"b\\c\$d\`e\nf""#,
            "a\\ b \\$x \\*",
            "'it'\\''s' x#y a~b",
            "one\\\ntwo \"l\\\nm\"",
        ];
        let Ok(probe) = std::process::Command::new("sh")
            .arg("-c")
            .arg("true")
            .status()
        else {
            eprintln!("skipped: no sh");
            return;
        };
        assert!(probe.success());
        for case in cases {
            let script = format!("for w in {case}; do printf '%s\\0' \"$w\"; done");
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(&script)
                .output()
                .unwrap();
            let from_sh: Vec<String> = String::from_utf8(out.stdout)
                .unwrap()
                .split_terminator('\0')
                .map(String::from)
                .collect();
            assert_eq!(words(case), from_sh, "{case}");
        }
    }
}
