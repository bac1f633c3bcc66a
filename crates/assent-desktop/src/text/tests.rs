#![allow(clippy::indexing_slicing, reason = "tests")]

use super::*;

#[test]
fn markup_is_escaped_so_links_and_images_stay_text() {
    let cases = [
        (
            r#"<a href="https://evil.example">click</a>"#,
            "&lt;a href=&quot;https://evil.example&quot;&gt;click&lt;/a&gt;",
        ),
        (
            r#"<img src="x" onerror=1>"#,
            "&lt;img src=&quot;x&quot; onerror=1&gt;",
        ),
        ("fish & chips", "fish &amp; chips"),
        ("&amp; already", "&amp;amp; already"),
        ("<b>bold</b>", "&lt;b&gt;bold&lt;/b&gt;"),
    ];
    for (input, want) in cases {
        assert_eq!(
            untrusted(input, 500),
            want,
            "agent markup must reach the notification server as inert text: {input:?}"
        );
    }
}

#[test]
fn control_and_bidi_characters_become_visible_escapes() {
    let cases = [
        ("rm -rf /\nls", "rm -rf /\\nls"),
        ("bell\x07", "bell\\x07"),
        ("nul\0byte", "nul\\x00byte"),
        ("del\x7f", "del\\x7f"),
        ("c1\u{85}next", "c1\\u{0085}next"),
        ("safe\u{202e}txt.exe", "safe\\u{202e}txt.exe"),
        ("iso\u{2066}late\u{2069}", "iso\\u{2066}late\\u{2069}"),
        ("zero\u{200b}width", "zero\\u{200b}width"),
        ("joiner\u{200d}", "joiner\\u{200d}"),
        ("bom\u{feff}", "bom\\u{feff}"),
        ("mark\u{200f}", "mark\\u{200f}"),
        ("tag\u{e0041}", "tag\\u{e0041}"),
        ("selector\u{e0101}", "selector\\u{e0101}"),
        ("soft\u{ad}hyphen", "soft\\u{00ad}hyphen"),
    ];
    for (input, want) in cases {
        assert_eq!(
            untrusted(input, 500),
            want,
            "a hidden character must be shown, never interpreted: {input:?}"
        );
        assert!(
            has_hidden_chars(input),
            "{input:?} carries a hidden character and must be detected"
        );
    }
    assert!(
        !has_hidden_chars("cargo test --all -- --nocapture é ü 日本"),
        "ordinary text, including non-ASCII letters, is not hidden"
    );
}

#[test]
fn ansi_sequences_are_stripped() {
    let cases = [
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b[1;32;40mgreen", "green"),
        ("\x1b]0;title\x07after", "after"),
        ("\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("\x1b[2Jclear", "clear"),
        ("\u{9b}31mc1csi", "c1csi"),
        ("lone\x1bMesc", "loneesc"),
    ];
    for (input, want) in cases {
        assert_eq!(
            untrusted(input, 500),
            want,
            "terminal escapes must not reach the desktop: {input:?}"
        );
    }
}

#[test]
fn secrets_are_masked() {
    let cases = [
        (
            "git clone https://alice:hunter2@github.com/org/repo",
            "git clone https://alice:****@github.com/org/repo",
        ),
        (
            "curl -H 'Authorization: Bearer abcdefghijklmnop' https://api",
            "curl -H 'Authorization: Bearer ****' https://api",
        ),
        ("PASSWORD=s3cr3t ./deploy", "PASSWORD=**** ./deploy"),
        (
            "AWS_SECRET_ACCESS_KEY=abc123 aws s3 ls",
            "AWS_SECRET_ACCESS_KEY=**** aws s3 ls",
        ),
        ("mysql --password=pw123 db", "mysql --password=**** db"),
        ("tool --token abc123def", "tool --token ****"),
        ("echo ghp_abcdefghijklmnopqrstuvwxyz0123", "echo ghp_****"),
        (
            "x github_pat_11ABCDEFG0123456789_abcdef",
            "x github_pat_****",
        ),
        ("glpat-abcdefghijklmnopqrst", "glpat-****"),
        ("sk-ant-abcdefghijklmnopqrstuvwx", "sk-ant-****"),
        ("xoxb-1234567890-abcdef", "xoxb-****"),
        ("AKIAABCDEFGHIJKLMNOP", "AKIA****"),
        ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_****"),
        (r#"{"api_key": "abc"}"#, r#"{"api_key": ****}"#),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----****",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(
            mask_secrets(input),
            want,
            "a secret in agent text must never be shown: {input:?}"
        );
    }
    let harmless = "cargo test --workspace && npm run build";
    assert_eq!(
        mask_secrets(harmless),
        harmless,
        "text without secrets must pass unchanged"
    );
}

#[test]
fn truncation_counts_characters_and_marks_the_cut() {
    assert_eq!(
        truncate("abcdef", 6),
        "abcdef",
        "text at the limit is kept whole"
    );
    assert_eq!(
        truncate("abcdefg", 6),
        "abcde…",
        "a cut ends with an ellipsis"
    );
    assert_eq!(
        truncate("日本語のテキスト", 4),
        "日本語…",
        "multi-byte text is cut on characters"
    );
    assert_eq!(truncate("abc", 0), "", "a zero budget yields nothing");
    let huge = "x".repeat(1_000_000);
    assert_eq!(
        untrusted(&huge, 120).chars().count(),
        120,
        "a megabyte of agent text is bounded"
    );
}

#[test]
fn escaping_happens_after_truncation_so_entities_are_never_cut() {
    let text = format!("{}&", "a".repeat(9));
    assert_eq!(
        untrusted(&text, 10),
        "aaaaaaaaa&amp;",
        "an ampersand at the limit is escaped whole"
    );
    let cut = untrusted(&"<".repeat(50), 5);
    assert_eq!(
        cut, "&lt;&lt;&lt;&lt;…",
        "entities are never split by a cut"
    );
}

#[test]
fn plain_variant_does_not_escape_markup_but_still_cleans() {
    assert_eq!(
        untrusted_plain("<b>\x1b[1mx\u{202e}</b> PASSWORD=abc", 100),
        "<b>x\\u{202e}</b> PASSWORD=****",
        "menus render plain text: no entities, but escapes and masks still apply"
    );
}

#[test]
fn a_fitted_title_is_cut_between_words_and_never_inside_brackets() {
    let rows = [
        (
            "Change GitHub (repo edit acme/shop --visibility public)",
            30,
            "Change GitHub…",
            "a cut inside the brackets drops the open bracket",
        ),
        (
            "Install left-pad and chalk with npm",
            22,
            "Install left-pad and…",
            "a cut falls between words, not inside one",
        ),
        (
            "Push main to origin",
            64,
            "Push main to origin",
            "a title that fits is whole",
        ),
    ];
    for (text, max, want, why) in rows {
        let got = fit_words(text, max);
        assert_eq!(got, want, "{why}");
        assert!(got.chars().count() <= max, "{why}: it fits in {max}");
    }
}
