//! Hostile spellings: obfuscation, compound commands, odd paths, huge and malformed input.

use crate::common::*;
use assent_core::{evaluate, Action, ActionKind, Decision, EvaluateError, Policy};

fn decision(line: &str) -> (Decision, String) {
    let e = eval_default(&shell(line));
    (e.decision.decision, e.decision.rule)
}

#[test]
fn obfuscated_secret_reads_are_still_blocked() {
    let cases = [
        ("escaped program name", r"c\at ~/.ssh/id_rsa"),
        ("quoted program name", r#""cat" '/home/dev/.ssh/id_rsa'"#),
        ("split quotes", r#"c"a"t ~/.s's'h/id_rsa"#),
        ("ansi-c quoting", r"$'\x63\x61\x74' ~/.ssh/id_rsa"),
        ("$HOME braces", r#"cat "${HOME}/.ssh/id_rsa""#),
        ("dot-dot path", "cat /home/dev/shop/../.ssh/id_rsa"),
        ("double slashes", "cat //home//dev//.ssh//id_rsa"),
        ("relative climb", "cat ../.ssh/id_rsa"),
        ("cd then relative", "cd ~/.ssh && cat id_rsa"),
        ("inside subshell", "(cat ~/.ssh/id_rsa)"),
        ("inside $(...)", "echo $(cat ~/.ssh/id_rsa)"),
        ("inside backticks", "echo `cat ~/.ssh/id_rsa`"),
        ("behind sudo", "sudo -u root cat ~/.ssh/id_rsa"),
        ("behind env", "env FOO=1 cat ~/.ssh/id_rsa"),
        ("behind timeout nohup", "timeout 5 nohup cat ~/.ssh/id_rsa"),
        ("bash -c string", "bash -c 'cat ~/.ssh/id_rsa'"),
        ("nested sh -c", r#"sh -c "bash -c 'cat ~/.ssh/id_rsa'""#),
        ("eval", "eval cat ~/.ssh/id_rsa"),
        ("xargs", "echo ~/.ssh/id_rsa | xargs cat"),
        ("in if", "if true; then cat ~/.ssh/id_rsa; fi"),
        ("in for loop", "for f in a; do cat ~/.ssh/id_rsa; done"),
        ("redirect input", "wc -l < ~/.ssh/id_rsa"),
        ("after ||", "false || cat ~/.ssh/id_rsa"),
        ("background", "cat ~/.ssh/id_rsa &"),
        ("system path program", "/bin/cat ~/.ssh/id_rsa"),
        ("python -m wrapper", "python3 -m base64 ~/.ssh/id_rsa"),
    ];
    for (name, line) in cases {
        assert_eq!(
            decision(line).0,
            Decision::Block,
            "[{name}] `{line}` reads a private key however it is spelled"
        );
    }
}

#[test]
fn compound_commands_take_the_riskiest_part() {
    let cases = [
        ("safe && destructive", "ls && rm -rf /", Decision::Block),
        ("safe ; publish", "git status; git push", Decision::Ask),
        ("safe | unknown", "cat README.md | frob", Decision::Ask),
        ("auto and auto", "ls; pwd; echo ok", Decision::Auto),
        ("profile then push", "cargo test && git push", Decision::Ask),
        (
            "cloud in substitution",
            "echo $(aws sts get-caller-identity)",
            Decision::Escalate,
        ),
        (
            "block in heredoc substitution",
            "cat <<EOF\n$(cat ~/.aws/credentials)\nEOF",
            Decision::Block,
        ),
    ];
    for (name, line, want) in cases {
        assert_eq!(
            decision(line).0,
            want,
            "[{name}] `{line}`: the riskiest part decides"
        );
    }
    let mixed = eval_default(&shell("cargo test && curl https://x.example"));
    assert_eq!(mixed.decision.profile, None, "a profile is only kept when every risky part is that profile, so a run grant never covers the curl");
}

#[test]
fn program_tricks_are_not_trusted() {
    let cases = [
        ("dynamic program", "$CMD --all", "ask.dynamic_command"),
        (
            "substituted program",
            "$(echo rm) -rf build",
            "ask.dynamic_command",
        ),
        ("local script named ls", "./ls", "ask.unknown"),
        ("LD_PRELOAD", "LD_PRELOAD=/tmp/x.so ls", "ask.env_override"),
        (
            "PATH override",
            "PATH=/tmp/evil:$PATH cargo test",
            "ask.env_override",
        ),
        (
            "git -c",
            "git -c core.pager='sh -c id' log",
            "ask.env_override",
        ),
        (
            "awk system",
            "awk 'BEGIN{system(\"id\")}'",
            "ask.interpreter",
        ),
        (
            "find -exec",
            "find . -name '*.rs' -exec sh -c 'id' \\;",
            "ask.interpreter",
        ),
        (
            "interpreter on stdin",
            "echo 'print(1)' | python3",
            "ask.interpreter",
        ),
        ("sudo", "sudo ls", "ask.privileged"),
    ];
    for (name, line, rule) in cases {
        let (d, r) = decision(line);
        assert_ne!(d, Decision::Auto, "[{name}] `{line}` must not be auto");
        assert_eq!(r, rule, "[{name}] `{line}` fires {rule}");
    }
}

#[test]
fn hidden_characters_are_flagged() {
    for (name, line) in [
        ("bidi override", "ls \u{202E}txt.exe"),
        ("zero width", "ls fi\u{200B}le"),
        ("escape char", "echo \u{1b}[2J"),
        ("ansi-c NUL", "echo $'a\\x00b'"),
        ("ansi-c bidi", "echo $'\\u202e'"),
        // "cat notes" with "; rm -rf ~" spelled in tag characters, which show as nothing.
        ("tag characters", "cat notes\u{E003B}\u{E0072}\u{E006D}"),
        ("variation selector supplement", "ls re\u{E0101}port"),
        ("soft hyphen", "ls pass\u{AD}wd"),
    ] {
        let e = eval_default(&shell(line));
        assert!(
            e.evidence.suspicious_text,
            "[{name}] the evidence must flag hidden characters"
        );
        assert_ne!(
            e.decision.decision,
            Decision::Auto,
            "[{name}] hidden characters are never auto"
        );
    }
    assert!(
        !eval_default(&shell("ls -la")).evidence.suspicious_text,
        "plain text is not suspicious"
    );
    assert!(
        !eval_default(&shell("git commit -m '✅ done: café ü 日本 ✨'"))
            .evidence
            .suspicious_text,
        "emoji and non-ASCII letters are ordinary text"
    );
}

#[test]
fn unparseable_lines_ask_or_block() {
    let (d, r) = decision("echo 'unterminated");
    assert_eq!(
        (d, r.as_str()),
        (Decision::Ask, "ask.unparsed"),
        "a line that does not parse is asked, not an error"
    );
    let (d, _) = decision("cat ~/.ssh/id_rsa; echo 'unterminated");
    assert_eq!(
        d,
        Decision::Block,
        "what could be seen in a broken line is still blocked"
    );
    let deep = format!("{}ls{}", "$(".repeat(200), ")".repeat(200));
    assert_eq!(
        decision(&deep).1,
        "ask.unparsed",
        "absurd nesting is refused without recursing"
    );
    let nested = (0..10).fold("ls".to_owned(), |acc, _| {
        format!("bash -c {}", shell_quote(&acc))
    });
    assert_ne!(
        decision(&nested).0,
        Decision::Auto,
        "scripts nested beyond the limit are not auto"
    );
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[test]
fn huge_and_malformed_requests() {
    let policy = Policy::default();
    let huge = shell(&"a".repeat(200_000));
    assert!(
        matches!(
            evaluate(&policy, &huge, &env()),
            Err(EvaluateError::Canon(_))
        ),
        "a 200 kB command is refused as too large"
    );
    let many_paths = request(Action {
        paths: vec!["x".into(); 10_000],
        ..action(ActionKind::FileRead)
    });
    assert!(
        evaluate(&policy, &many_paths, &env()).is_err(),
        "10,000 paths are refused"
    );
    let relative = request(Action {
        cwd: "shop".into(),
        command: Some("ls".into()),
        ..action(ActionKind::Shell)
    });
    assert!(
        evaluate(&policy, &relative, &env()).is_err(),
        "a relative cwd is structurally invalid"
    );
    let empty = request(action(ActionKind::Shell));
    assert!(
        evaluate(&policy, &empty, &env()).is_err(),
        "a shell action without a command is invalid"
    );
    let long_line = format!("ls {}", "x ".repeat(20_000));
    assert!(
        evaluate(&policy, &shell(&long_line), &env()).is_ok(),
        "a long but bounded line still evaluates"
    );
}

#[test]
fn odd_paths_are_normalised_before_judging() {
    let cases = [
        (
            "src/../ci",
            "/home/dev/shop/src/../.github/workflows/x.yml",
            "ask.ci_config",
        ),
        (
            "dot segments",
            "/home/dev/shop/./.github/./workflows/x.yml",
            "ask.ci_config",
        ),
        (
            "escape the repo",
            "/home/dev/shop/../other/file.rs",
            "ask.outside_repo",
        ),
        ("tilde", "~/shop/src/main.rs", "auto.edit"),
        ("relative", "src/main.rs", "auto.edit"),
    ];
    for (name, path, rule) in cases {
        let e = eval_default(&file(ActionKind::FileWrite, path));
        assert_eq!(
            e.decision.rule, rule,
            "[{name}] {path} is judged where it really is"
        );
    }
}
