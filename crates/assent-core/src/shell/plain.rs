//! The fast path for plain command lines: `cargo test --workspace`, `git status`, `ls -la src`.
//!
//! A line made only of words of letters, digits and `_ . / : = @ % + , -`, separated by spaces
//! or tabs, with a first word that is neither an assignment nor a reserved word, has nothing
//! for the shell to parse: no quoting, expansion, redirection, globbing or operators. Its
//! words are split exactly as the shell splits them, without the parser (which is about a
//! third of an evaluation). Equivalence with the parser is a property test below.

/// Words the shell reads specially at the start of a command.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "in", "function", "select", "time", "coproc",
];

fn is_plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'_' | b'.' | b'/' | b':' | b'=' | b'@' | b'%' | b'+' | b',' | b'-'
        )
}

/// The words of `line` when it is plain; `None` when the parser must read it.
pub(crate) fn plain_words(line: &str) -> Option<Vec<String>> {
    if !line
        .bytes()
        .all(|b| is_plain_byte(b) || b == b' ' || b == b'\t')
    {
        return None;
    }
    let words: Vec<String> = line
        .split([' ', '\t'])
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    let first = words.first()?;
    if first.contains('=') || RESERVED.contains(&first.as_str()) {
        return None;
    }
    Some(words)
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
mod tests {
    use proptest::prelude::*;

    use super::plain_words;
    use crate::shell::{parse_script, parse_with_parser};

    #[test]
    fn plain_lines_skip_the_parser_and_others_do_not() {
        for line in [
            "cargo test --workspace",
            "git status --short",
            "ls\t-la  src ",
            "git diff HEAD~1",
        ] {
            let fast = plain_words(line).is_some();
            assert_eq!(fast, !line.contains('~'), "{line:?}: plain unless it has ~");
        }
        for line in [
            "X=1 cargo test",
            "if true",
            "time make",
            "a | b",
            "echo $HOME",
            "echo 'x'",
            "rm *",
            "",
            "   ",
            "cat a>b",
            "ls # comment",
        ] {
            assert!(plain_words(line).is_none(), "{line:?} needs the parser");
        }
    }

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-zA-Z0-9_./:=@%+,-]{1,8}",
            prop::sample::select(vec![
                "if", "then", "fi", "time", "for", "in", "do", "done", "case", "esac", "function",
                "cd", "bash", "-c", "sh", "sudo", "env", "X=1", "git", "rm", "-rf", "2", "1", "..",
                "/", "--", "-", "=", "%1", "@", "select", "coproc", "while", "until",
            ])
            .prop_map(str::to_owned),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The fast path sees exactly what the parser sees.
        #[test]
        fn the_fast_path_agrees_with_the_parser(
            words in prop::collection::vec(word(), 1..7),
            seps in prop::collection::vec(prop::sample::select(vec![" ", "  ", "\t", " \t "]), 7),
            lead in prop::sample::select(vec!["", " ", "\t"]),
        ) {
            let mut line = lead.to_owned();
            for (w, s) in words.iter().zip(seps.iter()) {
                line.push_str(w);
                line.push_str(s);
            }
            let fast = parse_script(&line, "/home/dev/shop", "/home/dev");
            let slow = parse_with_parser(&line, "/home/dev/shop", "/home/dev");
            prop_assert_eq!(fast, slow, "{:?} must read the same both ways", line);
        }
    }
}
