//! Secret masking: the one function every surface uses. The service masks evidence before it
//! stores or sends it, so the window, notifications and audit show the same text.

use std::sync::LazyLock;

use regex::Regex;

/// A secret pattern and how to replace it (`$1` keeps the non-secret prefix).
struct SecretRule {
    pattern: &'static str,
    replacement: &'static str,
}

const SECRET_RULES: &[SecretRule] = &[
    // https://user:password@host
    SecretRule {
        pattern: r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*:)[^@\s/]+@",
        replacement: "${1}****@",
    },
    // Authorization: Bearer xyz / Basic xyz
    SecretRule {
        pattern: r"(?i)\b((?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}",
        replacement: "${1}****",
    },
    // PASSWORD=…, --api-key=…, "token": "…"
    SecretRule {
        pattern: r#"(?i)((?:^|[\s;&|"'({,])-{0,2}[a-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential)[a-z0-9_.-]*["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s"',;}]+)"#,
        replacement: "${1}****",
    },
    // --password value, --token value
    SecretRule {
        pattern: r"(?i)((?:^|\s)--?(?:password|passwd|token|secret|api-key|apikey|auth-token|access-token|private-key)\s+)(\S+)",
        replacement: "${1}****",
    },
    // Well-known token shapes.
    SecretRule {
        pattern: r"\b(gh[pousr]_)[A-Za-z0-9]{16,}",
        replacement: "${1}****",
    },
    SecretRule {
        pattern: r"\b(github_pat_)[A-Za-z0-9_]{16,}",
        replacement: "${1}****",
    },
    SecretRule {
        pattern: r"\b(glpat-)[A-Za-z0-9_-]{16,}",
        replacement: "${1}****",
    },
    SecretRule {
        pattern: r"\b(sk-(?:ant-|proj-)?)[A-Za-z0-9_-]{16,}",
        replacement: "${1}****",
    },
    SecretRule {
        pattern: r"\b(xox[abprs]-)[A-Za-z0-9-]{10,}",
        replacement: "${1}****",
    },
    SecretRule {
        pattern: r"\b(AKIA)[0-9A-Z]{16}\b",
        replacement: "${1}****",
    },
    SecretRule {
        pattern: r"\b(AIza)[0-9A-Za-z_-]{30,}",
        replacement: "${1}****",
    },
    SecretRule {
        pattern: r"\b(npm_)[A-Za-z0-9]{30,}",
        replacement: "${1}****",
    },
    SecretRule {
        pattern: r"(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
        replacement: "${1}****",
    },
];

static SECRETS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    SECRET_RULES
        .iter()
        .filter_map(|rule| {
            Regex::new(rule.pattern)
                .ok()
                .map(|re| (re, rule.replacement))
        })
        .collect()
});

/// Masks tokens, keys and passwords (in URLs, assignments, flags and known token shapes).
pub fn mask_secrets(text: &str) -> String {
    SECRETS
        .iter()
        .fold(text.to_owned(), |acc, (re, replacement)| {
            re.replace_all(&acc, *replacement).into_owned()
        })
}
