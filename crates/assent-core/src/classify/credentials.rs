//! Credentials a program prints rather than a file holds: the cloud and forge CLIs' token
//! commands, keychains and password stores, a cluster's secrets, git's credential helper, and
//! the cloud instance-metadata endpoint. All are blocks that point at the credential
//! capability to ask for instead: the agent never holds a raw secret.

use crate::classify::known_programs::{self as c, is};
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{Facts, Verdict};
use crate::types::CredentialRisk;

pub(crate) const RULE: &str = "block.secret_store";

/// What to do instead, appended to every such block.
pub(crate) const INSTEAD: &str = "an agent never holds a raw secret: ask for a credential \
     capability instead (`assent exec --capability NAME --run RUN -- COMMAND` runs the command \
     with the secret in its environment, the output masked)";

/// The block for a credential `what` prints.
pub(crate) fn block(what: &str, facts: &mut Facts) -> Verdict {
    facts.credential(CredentialRisk::Write);
    Verdict::block(RULE, format!("{what}; {INSTEAD}"))
}

/// `(program, words)`: the command prints a credential when its positionals start with the
/// words (`*` matches any one word).
const PRINTS: &[(&str, &[&str])] = &[
    ("gh", &["auth", "token"]),
    ("glab", &["auth", "token"]),
    ("aws", &["configure", "export-credentials"]),
    ("aws", &["sts", "get-session-token"]),
    ("aws", &["sts", "assume-role"]),
    ("aws", &["sts", "assume-role-with-saml"]),
    ("aws", &["sts", "assume-role-with-web-identity"]),
    ("aws", &["sts", "get-federation-token"]),
    ("aws", &["ecr", "get-login-password"]),
    ("aws", &["ecr-public", "get-login-password"]),
    ("aws", &["codeartifact", "get-authorization-token"]),
    ("aws", &["secretsmanager", "get-secret-value"]),
    ("aws", &["iam", "create-access-key"]),
    ("aws", &["sso", "get-role-credentials"]),
    ("aws", &["eks", "get-token"]),
    ("aws", &["rds", "generate-db-auth-token"]),
    ("gcloud", &["auth", "print-access-token"]),
    ("gcloud", &["auth", "print-identity-token"]),
    (
        "gcloud",
        &["auth", "application-default", "print-access-token"],
    ),
    ("gcloud", &["secrets", "versions", "access"]),
    ("gcloud", &["sql", "generate-login-token"]),
    ("az", &["account", "get-access-token"]),
    ("az", &["keyvault", "secret", "show"]),
    ("az", &["keyvault", "secret", "download"]),
    ("az", &["storage", "account", "keys", "list"]),
    ("az", &["acr", "credential", "show"]),
    ("heroku", &["auth:token"]),
    ("doctl", &["auth", "token"]),
    ("npm", &["token", "create"]),
    ("pnpm", &["token", "create"]),
    ("kubectl", &["create", "token"]),
    ("oc", &["whoami", "--show-token"]),
    ("oc", &["create", "token"]),
    ("git", &["credential", "fill"]),
    ("git", &["credential-manager", "get"]),
    ("doppler", &["secrets", "get"]),
    ("infisical", &["secrets", "get"]),
    ("ansible-vault", &["view"]),
    ("ansible-vault", &["decrypt"]),
    ("keyring", &["get"]),
    ("chamber", &["read"]),
];

/// The block when `cmd` prints a credential; `None` otherwise.
pub(crate) fn printed(cmd: &Cmd<'_>, facts: &mut Facts) -> Option<Verdict> {
    let p = cmd.program;
    if is(c::SECRET_STORES, p) {
        return Some(block(
            &format!("reads a password store or keychain ({p})"),
            facts,
        ));
    }
    if p.starts_with("docker-credential-") {
        return Some(block(&format!("`{p}` prints a registry credential"), facts));
    }
    // Most commands are none of these: no words are gathered for them.
    let known = PRINTS.iter().any(|(q, _)| *q == p)
        || matches!(
            p,
            "gh" | "glab" | "aws" | "npm" | "pnpm" | "yarn" | "az" | "sops"
        );
    if !known {
        return None;
    }
    let words = words(cmd);
    let starts = |prefix: &[&str]| {
        prefix.len() <= words.len()
            && prefix
                .iter()
                .zip(&words)
                .all(|(want, got)| *want == "*" || want == got)
    };
    if let Some((_, prefix)) = PRINTS.iter().find(|(q, prefix)| *q == p && starts(prefix)) {
        return Some(block(
            &format!("`{p} {}` prints a credential", prefix.join(" ")),
            facts,
        ));
    }
    let flag = |f: &[&str]| cmd.has_flag(f);
    let hit = match (p, words.first().copied(), words.get(1).copied()) {
        ("gh" | "glab", Some("auth"), Some("status")) => flag(&["--show-token", "-t"]),
        ("aws", Some("configure"), Some("get")) => words
            .get(2)
            .is_some_and(|key| names_secret(key.rsplit('.').next().unwrap_or(key))),
        ("aws", Some("ssm"), Some("get-parameter" | "get-parameters")) => {
            flag(&["--with-decryption"])
        }
        ("npm" | "pnpm" | "yarn", Some("config"), Some("get")) => {
            words.get(2).is_some_and(|key| names_secret(key))
        }
        ("az", Some("acr"), Some("login")) => flag(&["--expose-token"]),
        ("kubectl" | "oc", Some("config"), Some("view")) => {
            flag(&["--raw"]) || cmd.args.iter().any(|a| a == "--flatten")
        }
        ("kubectl" | "oc", Some("get"), Some(object)) => secret_data(cmd, object),
        ("sops", _, _) => flag(&["-d", "--decrypt"]),
        _ => false,
    };
    hit.then(|| {
        let shown: Vec<&str> = std::iter::once(p)
            .chain(words.iter().copied().take(3))
            .collect();
        block(&format!("`{}` prints a credential", shown.join(" ")), facts)
    })
}

/// `echo $GITHUB_TOKEN`, `printf %s "${AWS_SECRET_ACCESS_KEY}"`, `printenv NPM_TOKEN`: a
/// secret the environment holds, printed. Names are judged strictly (`$AUTHOR` is no secret).
/// `injected`, the variable of the credential capability the request asks for, is the
/// approved command's own: `assent exec` masks it in what the agent sees.
pub(crate) fn printed_variable(
    cmd: &Cmd<'_>,
    injected: Option<&str>,
    facts: &mut Facts,
) -> Option<Verdict> {
    let secret = |name: &str| strict_secret_name(name) && Some(name) != injected;
    let name = match cmd.program {
        "echo" | "printf" => cmd.args.iter().find_map(|a| secret_reference(a, &secret))?,
        "printenv" => cmd
            .args
            .iter()
            .find(|a| !a.starts_with('-') && secret(a))?
            .clone(),
        _ => return None,
    };
    Some(block(
        &format!("prints the secret environment variable {name}"),
        facts,
    ))
}

/// The first `$NAME` / `${NAME}` in `word` whose name says it holds a secret.
fn secret_reference(word: &str, secret: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        let after = rest.get(at + 1..).unwrap_or_default();
        let name: String = after
            .trim_start_matches('{')
            .chars()
            .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
            .collect();
        if secret(&name) {
            return Some(name);
        }
        rest = after;
    }
    None
}

fn strict_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    // Where a secret is, or what it is called, is no secret (`NPM_TOKEN_FILE`, `VAULT_ADDR`).
    let pointer = [
        "_FILE", "_PATH", "_DIR", "_URL", "_URI", "_HOST", "_ADDR", "_NAME", "_ID",
    ]
    .iter()
    .any(|suffix| upper.ends_with(suffix));
    !pointer
        && [
            "TOKEN",
            "SECRET",
            "PASSWORD",
            "PASSWD",
            "API_KEY",
            "APIKEY",
            "PRIVATE_KEY",
            "ACCESS_KEY",
            "CREDENTIAL",
        ]
        .iter()
        .any(|needle| upper.contains(needle))
}

/// Global options that take a value (`--profile prod`, `-C dir`): skipped with it.
const VALUE_OPTIONS: &[&str] = &[
    "--profile",
    "--region",
    "--output",
    "--endpoint-url",
    "--query",
    "--project",
    "--account",
    "--configuration",
    "--subscription",
    "--context",
    "--namespace",
    "-n",
    "--kubeconfig",
    "--cluster",
    "--hostname",
    "-R",
    "--repo",
    "-C",
    "-c",
    "--resource",
];

/// The words that name what the command does: positionals (option values skipped), and
/// `--show-token` kept for `oc whoami --show-token`.
fn words<'a>(cmd: &'a Cmd<'_>) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut args = cmd.args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        if VALUE_OPTIONS.contains(&arg) {
            args.next();
        } else if !arg.starts_with('-') || arg == "--show-token" {
            out.push(arg);
        }
    }
    out
}

/// `kubectl get secret NAME -o yaml|json|jsonpath=…|go-template=…`: the data, base64-encoded,
/// which is the secret.
fn secret_data(cmd: &Cmd<'_>, object: &str) -> bool {
    let kind = object.split('/').next().unwrap_or(object);
    if !matches!(kind, "secret" | "secrets") && !kind.starts_with("secret.") {
        return false;
    }
    let mut output = None;
    let mut args = cmd.args.iter();
    while let Some(arg) = args.next() {
        if arg == "-o" || arg == "--output" {
            output = args.next().map(String::as_str);
        } else if let Some(v) = arg
            .strip_prefix("--output=")
            .or_else(|| arg.strip_prefix("-o").filter(|v| !v.is_empty()))
        {
            output = Some(v.trim_start_matches('='));
        }
    }
    output.is_some_and(|o| !matches!(o, "wide" | "name"))
}

/// Whether a setting's name says it holds a secret (`aws_secret_access_key`, `_authToken`).
fn names_secret(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    ["secret", "token", "password", "access_key", "_auth"]
        .iter()
        .any(|n| lower.contains(n))
}

/// Hosts of the cloud instance-metadata endpoints (AWS, Azure, GCP, OpenStack, DigitalOcean:
/// 169.254.169.254; ECS task credentials; Alibaba; GCE by name; AWS on IPv6).
const METADATA_HOSTS: &[&str] = &[
    "169.254.169.254",
    "169.254.170.2",
    "100.100.100.200",
    "fd00:ec2::254",
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    // 169.254.169.254 written as one number, in decimal and hex.
    "2852039166",
    "0xa9fea9fe",
];

/// The block when `target` (a URL or host) is a cloud instance-metadata endpoint.
pub(crate) fn metadata(target: &str, facts: &mut Facts) -> Option<Verdict> {
    let host = crate::classify::verdict::host_of(target);
    let host = host.trim_end_matches('.');
    METADATA_HOSTS.contains(&host).then(|| {
        facts.credential(CredentialRisk::Cloud);
        block(
            &format!("reaches the cloud instance-metadata endpoint ({host}), which hands out this machine's cloud credentials"),
            facts,
        )
    })
}

/// The block when a word (inline code, an argument) names a metadata endpoint's URL.
pub(crate) fn metadata_in_text(text: &str, facts: &mut Facts) -> Option<Verdict> {
    let lower = text.to_ascii_lowercase();
    let mut rest = lower.as_str();
    while let Some(at) = rest.find("://") {
        let after = rest.get(at + 3..).unwrap_or_default();
        let end = after
            .find(|ch: char| ch.is_whitespace() || matches!(ch, '\'' | '"' | ')' | '`'))
            .unwrap_or(after.len());
        if let Some(v) = metadata(
            &format!("http://{}", after.get(..end).unwrap_or_default()),
            facts,
        ) {
            return Some(v);
        }
        rest = after;
    }
    None
}
