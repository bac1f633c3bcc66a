//! Secret masking: the one function every surface uses. The service masks evidence before it
//! stores or sends it, so the window, notifications and audit show the same text.

use std::sync::OnceLock;

use regex::Regex;

/// A secret pattern and how to replace it (`$1` keeps the non-secret prefix).
struct SecretRule {
    pattern: &'static str,
    replacement: &'static str,
    /// Literals of which every match holds one: a text with none of them is left alone
    /// without compiling the pattern (compiling all of them costs milliseconds, which the
    /// gate would pay on every edit).
    needles: &'static [&'static str],
    /// The pattern is case-insensitive (`(?i)`): the needles are lowercase and looked for in
    /// the lowercased text — only in ASCII text, since Unicode case folding matches more
    /// (`K`, the Kelvin sign, is a `k`).
    folded: bool,
}

impl SecretRule {
    /// Whether the pattern could match `text` (`lower`: its ASCII lowercase, when ASCII).
    fn may_match(&self, text: &str, lower: Option<&str>) -> bool {
        let haystack = match (self.folded, lower) {
            (false, _) => text,
            (true, Some(lower)) => lower,
            (true, None) => return true,
        };
        self.needles.iter().any(|needle| haystack.contains(needle))
    }
}

const SECRET_RULES: &[SecretRule] = &[
    // https://user:password@host
    SecretRule {
        pattern: r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*:)[^@\s/]+@",
        replacement: "${1}****@",
        needles: &["://"],
        folded: false,
    },
    // Authorization: Bearer xyz / Basic xyz
    SecretRule {
        pattern: r"(?i)\b((?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}",
        replacement: "${1}****",
        needles: &["bearer", "basic", "token"],
        folded: true,
    },
    // PASSWORD=…, --api-key=…, "token": "…"
    SecretRule {
        pattern: r#"(?i)((?:^|[\s;&|"'({,])-{0,2}[a-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential)[a-z0-9_.-]*["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s"',;}]+)"#,
        replacement: "${1}****",
        needles: &[
            "password",
            "passwd",
            "pwd",
            "secret",
            "token",
            "key",
            "credential",
        ],
        folded: true,
    },
    // --password value, --token value
    SecretRule {
        pattern: r"(?i)((?:^|\s)--?(?:password|passwd|token|secret|api-key|apikey|auth-token|access-token|private-key)\s+)(\S+)",
        replacement: "${1}****",
        needles: &["password", "passwd", "token", "secret", "key"],
        folded: true,
    },
    // Well-known token shapes.
    SecretRule {
        pattern: r"\b(gh[pousr]_)[A-Za-z0-9]{16,}",
        replacement: "${1}****",
        needles: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        folded: false,
    },
    SecretRule {
        pattern: r"\b(github_pat_)[A-Za-z0-9_]{16,}",
        replacement: "${1}****",
        needles: &["github_pat_"],
        folded: false,
    },
    SecretRule {
        pattern: r"\b(glpat-)[A-Za-z0-9_-]{16,}",
        replacement: "${1}****",
        needles: &["glpat-"],
        folded: false,
    },
    SecretRule {
        pattern: r"\b(sk-(?:ant-|proj-)?)[A-Za-z0-9_-]{16,}",
        replacement: "${1}****",
        needles: &["sk-"],
        folded: false,
    },
    SecretRule {
        pattern: r"\b(xox[abprs]-)[A-Za-z0-9-]{10,}",
        replacement: "${1}****",
        needles: &["xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"],
        folded: false,
    },
    SecretRule {
        pattern: r"\b(AKIA)[0-9A-Z]{16}\b",
        replacement: "${1}****",
        needles: &["AKIA"],
        folded: false,
    },
    SecretRule {
        pattern: r"\b(AIza)[0-9A-Za-z_-]{30,}",
        replacement: "${1}****",
        needles: &["AIza"],
        folded: false,
    },
    SecretRule {
        pattern: r"\b(npm_)[A-Za-z0-9]{30,}",
        replacement: "${1}****",
        needles: &["npm_"],
        folded: false,
    },
    SecretRule {
        pattern: r"(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
        replacement: "${1}****",
        needles: &["PRIVATE KEY-----"],
        folded: false,
    },
];

/// Each rule's compiled pattern, built the first time a text might match it.
static SECRETS: [OnceLock<Option<Regex>>; SECRET_RULES.len()] =
    [const { OnceLock::new() }; SECRET_RULES.len()];

/// Masks tokens, keys and passwords (in URLs, assignments, flags and known token shapes).
pub fn mask_secrets(text: &str) -> String {
    let lower = text.is_ascii().then(|| text.to_ascii_lowercase());
    SECRET_RULES
        .iter()
        .zip(&SECRETS)
        .filter(|(rule, _)| rule.may_match(text, lower.as_deref()))
        .fold(text.to_owned(), |acc, (rule, compiled)| {
            match compiled.get_or_init(|| Regex::new(rule.pattern).ok()) {
                Some(re) => re.replace_all(&acc, rule.replacement).into_owned(),
                None => acc,
            }
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    /// Every rule applied, none skipped: what `mask_secrets` must equal.
    fn mask_unfiltered(text: &str) -> String {
        SECRET_RULES.iter().fold(text.to_owned(), |acc, rule| {
            Regex::new(rule.pattern)
                .unwrap()
                .replace_all(&acc, rule.replacement)
                .into_owned()
        })
    }

    #[test]
    fn skipping_rules_that_cannot_match_changes_nothing() {
        let texts = [
            "plain code: fn add(a: i32) -> i32 { a + 1 }",
            "https://user:hunter2@example.com/x",
            "Authorization: Bearer abcdefghijklmnop",
            "DB_PASSWORD=hunter2 API_KEY: 'xyz' \"token\": \"t0k3n\"",
            "run --password hunter2 --api-key k3y",
            "ghp_abcdefghijklmnopqrstuvwxyz012345 github_pat_abcdefghijklmnopqrst",
            "glpat-abcdefghijklmnopqrst sk-ant-abcdefghijklmnopqrst xoxb-1234567890-abc",
            "AKIAABCDEFGHIJKLMNOP AIzaabcdefghijklmnopqrstuvwxyz0123456 npm_abcdefghijklmnopqrstuvwxyz0123456",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----",
            "PASSWORD = Secret1 (upper case)",
            "to\u{212a}en = kelvin-sign-secret",
            "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-let key = 1;\n+let key = 2;\n",
            "git clone https://alice:hunter2@github.com/org/repo",
            "curl -H 'Authorization: Bearer abcdefghijklmnop' https://api",
            "PASSWORD=s3cr3t ./deploy",
            "AWS_SECRET_ACCESS_KEY=abc123 aws s3 ls",
            "mysql --password=pw123 db",
            "tool --token abc123def",
            "echo ghp_abcdefghijklmnopqrstuvwxyz0123",
            "x github_pat_11ABCDEFG0123456789_abcdef",
            "AKIAABCDEFGHIJKLMNOP",
            r#"{"api_key": "abc"}"#,
            "cargo test --workspace && npm run build",
        ];
        for text in texts {
            assert_eq!(
                mask_secrets(text),
                mask_unfiltered(text),
                "the prefilter only skips rules that cannot match: {text}"
            );
        }
        assert!(
            !mask_secrets("DB_PASSWORD=hunter2").contains("hunter2"),
            "and secrets are still masked"
        );
    }
}
