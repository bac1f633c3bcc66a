//! Secret masking: the one function every surface uses. The service masks evidence before it
//! stores or sends it, so the window, notifications and audit show the same text.

pub mod stream;

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex::Regex;

/// A secret pattern and how to replace it (`$1` keeps the non-secret prefix).
struct SecretRule {
    pattern: &'static str,
    replacement: &'static str,
    /// Literals of which every match holds one: a text with none of them is left alone
    /// without compiling or running the pattern (compiling all of them costs milliseconds,
    /// which the gate would pay on every edit; running them all on every text of every
    /// decision was a quarter of the service's policy evaluation).
    needles: &'static [&'static str],
    /// The pattern is case-insensitive (`(?i)`): its needles are lowercase and match in any
    /// ASCII case — and the rule always runs on non-ASCII text, since Unicode case folding
    /// matches more (`K`, the Kelvin sign, is a `k`).
    folded: bool,
    /// The credential a match is, where every match is one (a token's shape, a key block, a
    /// URL's password) — what [`credentials`] reports; `None` where a match may be code
    /// (`token = get_token()`).
    kind: Option<&'static str>,
}

const SECRET_RULES: &[SecretRule] = &[
    // https://user:password@host
    SecretRule {
        pattern: r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*:)[^@\s/]+@",
        replacement: "${1}****@",
        needles: &["://"],
        folded: false,
        kind: Some("a connection string with a password"),
    },
    // Authorization: Bearer xyz / Basic xyz
    SecretRule {
        pattern: r"(?i)\b((?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}",
        replacement: "${1}****",
        needles: &["bearer", "basic", "token"],
        folded: true,
        kind: None,
    },
    // PASSWORD=…, --api-key=…, "token": "…" — but not a reference to a secret kept
    // elsewhere (`${{ secrets.NPM_TOKEN }}`, `$TOKEN`, `"$(pass show x)"`): it holds no
    // secret, and masking it would change the text around it.
    SecretRule {
        pattern: r#"(?i)((?:^|[\s;&|"'({,])-{0,2}[a-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential)[a-z0-9_.-]*["']?\s*[=:]\s*)("(?:[^"$]|\$[^"A-Za-z_{(])[^"]*"|'(?:[^'$]|\$[^'{]|\$\{[^'{])[^']*'|(?:[^\s"',;}$]|\$[^\s"',;}A-Za-z_{(])[^\s"',;}]*)"#,
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
        kind: None,
    },
    // --password value, --token value
    SecretRule {
        pattern: r#"(?i)((?:^|\s)--?(?:password|passwd|token|secret|api-key|apikey|auth-token|access-token|private-key)\s+)("(?:[^"$]|\$[^"A-Za-z_{(])[^"]*"|'(?:[^'$]|\$[^'{]|\$\{[^'{])[^']*'|(?:[^\s"'$]|\$[^\sA-Za-z_{(])\S*)"#,
        replacement: "${1}****",
        needles: &["password", "passwd", "token", "secret", "key"],
        folded: true,
        kind: None,
    },
    // Well-known token shapes.
    SecretRule {
        pattern: r"\b(gh[pousr]_)[A-Za-z0-9]{16,}",
        replacement: "${1}****",
        needles: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        folded: false,
        kind: Some("a GitHub token"),
    },
    SecretRule {
        pattern: r"\b(github_pat_)[A-Za-z0-9_]{16,}",
        replacement: "${1}****",
        needles: &["github_pat_"],
        folded: false,
        kind: Some("a GitHub token"),
    },
    SecretRule {
        pattern: r"\b(glpat-)[A-Za-z0-9_-]{16,}",
        replacement: "${1}****",
        needles: &["glpat-"],
        folded: false,
        kind: Some("a GitLab token"),
    },
    SecretRule {
        pattern: r"\b(sk-(?:ant-|proj-)?)[A-Za-z0-9_-]{16,}",
        replacement: "${1}****",
        needles: &["sk-"],
        folded: false,
        kind: Some("an OpenAI or Anthropic API key"),
    },
    SecretRule {
        pattern: r"\b(xox[abprs]-)[A-Za-z0-9-]{10,}",
        replacement: "${1}****",
        needles: &["xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"],
        folded: false,
        kind: Some("a Slack token"),
    },
    SecretRule {
        pattern: r"\b(AKIA)[0-9A-Z]{16}\b",
        replacement: "${1}****",
        needles: &["AKIA"],
        folded: false,
        kind: Some("an AWS access key"),
    },
    SecretRule {
        pattern: r"\b(AIza)[0-9A-Za-z_-]{30,}",
        replacement: "${1}****",
        needles: &["AIza"],
        folded: false,
        kind: Some("a Google API key"),
    },
    SecretRule {
        pattern: r"\b(npm_)[A-Za-z0-9]{30,}",
        replacement: "${1}****",
        needles: &["npm_"],
        folded: false,
        kind: Some("an npm token"),
    },
    SecretRule {
        pattern: r"(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
        replacement: "${1}****",
        needles: &["PRIVATE KEY-----"],
        folded: false,
        kind: Some("a private key"),
    },
];

/// Each rule's compiled pattern, built the first time a text might match it.
static SECRETS: [OnceLock<Option<Regex>>; SECRET_RULES.len()] =
    [const { OnceLock::new() }; SECRET_RULES.len()];

/// Every rule's needles in one automaton (ASCII case-insensitive), so a text is scanned once
/// for all of them; `patterns[pattern]` is the rule a needle belongs to and the needle.
struct Needles {
    automaton: Option<AhoCorasick>,
    patterns: Vec<(usize, &'static str)>,
}

const _: () = assert!(
    SECRET_RULES.len() <= 32,
    "candidates() keeps a bit per rule"
);

/// Texts searched one needle at a time before the automaton is built. In a fresh process,
/// building it costs many times what searching a short text for each needle alone does: a
/// gate (a process per tool call) masks one to a few texts and never builds it; a service has
/// built it by its second decision.
const TEXTS_BEFORE_AUTOMATON: usize = 16;

/// Texts searched so far (counts only up to [`TEXTS_BEFORE_AUTOMATON`] matters).
static TEXTS_SEARCHED: AtomicUsize = AtomicUsize::new(0);

static NEEDLES: OnceLock<Needles> = OnceLock::new();

fn needles() -> &'static Needles {
    NEEDLES.get_or_init(|| {
        let patterns: Vec<(usize, &'static str)> = SECRET_RULES
            .iter()
            .enumerate()
            .flat_map(|(i, rule)| rule.needles.iter().map(move |n| (i, *n)))
            .collect();
        // A contiguous NFA, not the DFA the builder would pick for so few needles: it builds
        // in about half the time, while its slower scan of a short text is noise next to a
        // decision (`crates/assent-core/bench/automata` times both).
        let automaton = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .ascii_case_insensitive(true)
            .build(patterns.iter().map(|(_, needle)| needle))
            .ok();
        Needles {
            automaton,
            patterns,
        }
    })
}

/// The rules that could match `text`, as a bit per rule. A case-sensitive rule's needle must
/// be there in its exact case; a case-insensitive rule's in any ASCII case, and in non-ASCII
/// text it always could match. The first texts a process masks are searched needle by
/// needle, the rest with the automaton; both answer alike
/// (`both_searches_find_the_same_rules`).
fn candidates(text: &str) -> u32 {
    if NEEDLES.get().is_none()
        && TEXTS_SEARCHED.fetch_add(1, Ordering::Relaxed) < TEXTS_BEFORE_AUTOMATON
    {
        candidates_one_by_one(text)
    } else {
        candidates_at_once(text)
    }
}

/// [`candidates`] by searching for each needle alone (`memmem`), in a lowercase copy of an
/// ASCII text for the case-insensitive rules (whose needles are lowercase).
fn candidates_one_by_one(text: &str) -> u32 {
    let lower = text.is_ascii().then(|| text.to_ascii_lowercase());
    let any_in = |haystack: &str, needles: &[&str]| {
        needles
            .iter()
            .any(|needle| memchr::memmem::find(haystack.as_bytes(), needle.as_bytes()).is_some())
    };
    let mut rules = 0u32;
    for (i, rule) in SECRET_RULES.iter().enumerate() {
        let could = match (rule.folded, &lower) {
            (false, _) => any_in(text, rule.needles),
            (true, Some(lower)) => any_in(lower, rule.needles),
            // Unicode case folding matches more than the needles.
            (true, None) => true,
        };
        if could {
            rules |= 1 << i;
        }
    }
    rules
}

/// [`candidates`] in one scan of the automaton. Without the automaton (it cannot fail to
/// build from these needles) every rule could match.
fn candidates_at_once(text: &str) -> u32 {
    let needles = needles();
    let Some(automaton) = &needles.automaton else {
        return u32::MAX;
    };
    let ascii = text.is_ascii();
    if ascii && !automaton.is_match(text) {
        return 0; // the common case, found with the automaton's prefilter
    }
    let mut rules = 0u32;
    if !ascii {
        for (i, rule) in SECRET_RULES.iter().enumerate() {
            if rule.folded {
                rules |= 1 << i;
            }
        }
    }
    for found in automaton.find_overlapping_iter(text) {
        let Some(&(i, needle)) = needles.patterns.get(found.pattern().as_usize()) else {
            continue;
        };
        let folded = SECRET_RULES.get(i).is_some_and(|rule| rule.folded);
        if folded || text.get(found.range()) == Some(needle) {
            rules |= 1 << i;
        }
    }
    rules
}

/// Masks tokens, keys and passwords (in URLs, assignments, flags and known token shapes).
pub fn mask_secrets(text: &str) -> String {
    masked(text).into_owned()
}

/// Masks `text` where it stands; a text with nothing to mask is left as it is, not copied.
pub fn mask_in_place(text: &mut String) {
    if let Cow::Owned(replaced) = masked(text) {
        *text = replaced;
    }
}

/// [`mask_secrets`], borrowing `text` when there is nothing to mask (the common case: no
/// rule's needle is in it, found in one scan).
pub fn masked(text: &str) -> Cow<'_, str> {
    let rules = candidates(text);
    let mut out = Cow::Borrowed(text);
    for (i, (rule, compiled)) in SECRET_RULES.iter().zip(&SECRETS).enumerate() {
        if rules & (1 << i) == 0 {
            continue;
        }
        if let Some(re) = compiled.get_or_init(|| Regex::new(rule.pattern).ok()) {
            if let Cow::Owned(replaced) = re.replace_all(&out, rule.replacement) {
                out = Cow::Owned(replaced);
            }
        }
    }
    out
}

/// A credential found in a text by the masking rules that name one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Credential {
    /// What it is: "a GitHub token", "a private key".
    pub kind: &'static str,
    /// The text it was found as, unmasked (to tell whether another text holds it too).
    pub found: String,
    /// It as every surface shows it: masked (`ghp_****`).
    pub shown: String,
}

/// The credentials in `text`, found by the same rules that mask it: only those whose every
/// match is a credential (a token's shape, a private key block, a URL's password that is
/// not a reference like `${DB_PASSWORD}` or a placeholder like `<password>`).
pub(crate) fn credentials(text: &str) -> Vec<Credential> {
    let rules = candidates(text);
    let mut out = Vec::new();
    for (i, (rule, compiled)) in SECRET_RULES.iter().zip(&SECRETS).enumerate() {
        let Some(kind) = rule.kind else { continue };
        if rules & (1 << i) == 0 {
            continue;
        }
        let Some(re) = compiled.get_or_init(|| Regex::new(rule.pattern).ok()) else {
            continue;
        };
        for caps in re.captures_iter(text) {
            let (Some(whole), Some(kept)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            let secret = text
                .get(kept.end()..whole.end())
                .unwrap_or_default()
                .trim_end_matches('@');
            let block = kept.as_str().ends_with("-----");
            if !holds_a_value(secret, block) {
                continue;
            }
            let mut shown = String::new();
            caps.expand(rule.replacement, &mut shown);
            out.push(Credential {
                kind,
                found: whole.as_str().to_owned(),
                shown,
            });
        }
    }
    out
}

/// Whether a matched secret is a value rather than a reference to one kept elsewhere
/// (`$DB_PASSWORD`, `${DB_PASSWORD}`, `{{ password }}`, `%(password)s`, `<password>`), a
/// masked one (`****`), AWS's documented example key (`AKIAIOSFODNN7EXAMPLE`), or (for a
/// key `block`) a header alone: code that looks for one; a key has a body of base64 lines.
fn holds_a_value(secret: &str, block: bool) -> bool {
    // A key in a JSON string (a service account's) has its line breaks escaped.
    let key_body = |body: &str| {
        body.replace("\\n", "\n").lines().any(|line| {
            let line = line.trim();
            line.len() >= 32
                && line
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
        })
    };
    !secret.is_empty()
        && !secret.starts_with(['$', '{', '%', '<', '['])
        && !secret.chars().all(|c| c == '*')
        && !secret.ends_with("EXAMPLE")
        && (!block || key_body(secret))
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

    #[test]
    fn needles_are_found_in_their_case_only_where_the_rule_ignores_case() {
        // `AKIA` is case-sensitive: `akia…` holds its needle only in another case.
        let lower = "akiaabcdefghijklmnop";
        assert!(
            matches!(masked(lower), Cow::Borrowed(_)),
            "a case-sensitive rule does not run on its needle in another case"
        );
        assert_eq!(mask_secrets(lower), mask_unfiltered(lower));
        // `bearer` ignores case: `BEARER` in any case runs it.
        let upper = "Authorization: BEARER abcdefghijklmnop";
        assert_eq!(mask_secrets(upper), "Authorization: BEARER ****");
        // Non-ASCII text runs every case-insensitive rule (Unicode folding matches more).
        let kelvin = "to\u{212a}en abcdefghijkl";
        assert_eq!(mask_secrets(kelvin), mask_unfiltered(kelvin));
    }

    #[test]
    fn a_reference_to_a_secret_is_shown_as_written_and_a_value_is_masked_alone() {
        let rows = [
            // (text, shown, why)
            (
                "+          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
                "+          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
                "a workflow's reference holds no secret: the diff shown is the diff",
            ),
            (
                "curl -d \"token=${{ secrets.NPM_TOKEN }}\" https://x",
                "curl -d \"token=${{ secrets.NPM_TOKEN }}\" https://x",
                "a reference inside a value is no value either",
            ),
            (
                "TOKEN=$GITHUB_TOKEN gh api x",
                "TOKEN=$GITHUB_TOKEN gh api x",
                "a shell variable names the secret, it does not hold it",
            ),
            (
                "tool --token \"$(pass show npm)\"",
                "tool --token \"$(pass show npm)\"",
                "a command that fetches it shows what it runs",
            ),
            (
                "NPM_TOKEN: s3cr3t-value # set by hand",
                "NPM_TOKEN: **** # set by hand",
                "a value is masked, and only the value: the text around it stays",
            ),
            (
                "PASSWORD='$ecret1' ./deploy",
                "PASSWORD=**** ./deploy",
                "in single quotes `$` is a character of the value, which is masked",
            ),
        ];
        for (text, shown, why) in rows {
            assert_eq!(mask_secrets(text), shown, "{why}");
            assert_eq!(mask_unfiltered(text), shown, "{why} (every rule applied)");
        }
    }

    #[test]
    fn text_without_a_needle_is_borrowed_not_copied() {
        let plain = "Run `ls -la src` in shop";
        assert!(
            matches!(masked(plain), Cow::Borrowed(s) if s == plain),
            "nothing to mask: the text is returned as it was, without an allocation"
        );
        assert!(
            matches!(masked("PASSWORD=x"), Cow::Owned(_)),
            "a masked text is a new string"
        );
    }

    #[test]
    fn a_case_insensitive_rules_needles_are_lowercase() {
        for rule in SECRET_RULES.iter().filter(|rule| rule.folded) {
            for needle in rule.needles {
                assert_eq!(
                    *needle,
                    needle.to_ascii_lowercase(),
                    "the one-by-one search looks for a folded rule's needles in a lowercased text"
                );
            }
        }
    }

    #[test]
    fn credentials_are_what_the_masking_finds_and_names() {
        let found = credentials(
            "url = \"https://app:Tr0ub4dor@db.example/shop\"\ntoken = \"ghp_abcdefghijklmnopqrstuvwxyz0123\"",
        );
        let kinds: Vec<(&str, &str)> = found.iter().map(|c| (c.kind, c.shown.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                ("a connection string with a password", "https://app:****@"),
                ("a GitHub token", "ghp_****"),
            ],
            "each credential is named and shown as the masking shows it"
        );
        for text in [
            "password = request.form[\"password\"]",
            "url = \"https://app:${DB_PASSWORD}@db.example/shop\"",
            "Authorization: Bearer abcdefghijklmnop",
            "key = AKIAIOSFODNN7EXAMPLE",
            "if line == \"-----BEGIN RSA PRIVATE KEY-----\":",
        ] {
            assert_eq!(
                credentials(text),
                Vec::new(),
                "masked or not, this is no credential written down: {text}"
            );
        }
    }

    use proptest::strategy::Strategy;

    proptest::proptest! {
        /// Texts built from needles (in mixed case), secret shapes, separators and non-ASCII
        /// letters mask exactly as with every rule applied: the prefilter never skips a rule
        /// that would have changed the text.
        #[test]
        fn prefilter_matches_every_rule_applied(
            parts in proptest::collection::vec(proptest::prop_oneof![
                proptest::sample::select(vec![
                    "password", "PassWord", "passwd", "pwd", "secret", "token", "TOKEN",
                    "api_key", "Api-Key", "key", "credential", "bearer", "Basic", "://",
                    "ghp_", "GHP_", "gho_", "github_pat_", "glpat-", "sk-", "sk-ant-", "SK-",
                    "xoxb-", "AKIA", "akia", "AIza", "npm_", "-----BEGIN RSA PRIVATE KEY-----",
                    "PRIVATE KEY-----", "user:pw@", "=", ": ", " ", "--", "\"", "'", "\n",
                    "\u{212a}", "é", "abcdefghijklmnopqrstuvwxyz0123456789", "ABCDEFGHIJKLMNOP",
                ]).prop_map(str::to_owned),
                "[a-zA-Z0-9_=:/@ -]{0,12}",
            ], 0..12)
        ) {
            let text = parts.concat();
            proptest::prop_assert_eq!(mask_secrets(&text), mask_unfiltered(&text));
        }

        /// A gate searches needle by needle, a service with the automaton: for every text
        /// both find the same rules, so a text masks alike in either.
        #[test]
        fn both_searches_find_the_same_rules(
            parts in proptest::collection::vec(proptest::prop_oneof![
                proptest::sample::select(SECRET_RULES.iter().flat_map(|rule| rule.needles.iter().copied()).collect::<Vec<_>>())
                    .prop_map(str::to_owned),
                proptest::sample::select(vec!["PASSWORD", "Bearer", "Token", "KEY", "GHP_", "akia",
                    "Github_Pat_", "\u{212a}", "é", " ", "\n"]).prop_map(str::to_owned),
                "[a-zA-Z0-9_=:/@ -]{0,12}",
            ], 0..12)
        ) {
            let text = parts.concat();
            proptest::prop_assert_eq!(candidates_one_by_one(&text), candidates_at_once(&text), "{:?}", text);
        }
    }
}
