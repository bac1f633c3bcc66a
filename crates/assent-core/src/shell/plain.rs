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
#[path = "plain_tests.rs"]
mod tests;
