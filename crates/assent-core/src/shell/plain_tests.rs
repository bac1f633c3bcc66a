#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

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
