//! Secrets named beyond the policy's globs: a directory whose every file is a secret
//! (`~/.aws`, read by a search or a listing) and a glob that names secret files (`.env*`,
//! `*.pem`) rather than files at large.

use crate::classify::ctx::Ctx;

/// Whether `path` is a directory whose every file is a secret (`~/.aws`, `~/.gnupg`):
/// a search or listing of it reads them. Only hidden directories and those under
/// `.config`, `.local/share` or `Library` are tried (one more match, for few paths).
pub(crate) fn holds_secrets(ctx: &Ctx<'_>, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let candidate = name.starts_with('.')
        || ["/.config/", "/.local/share/", "/Library/"]
            .iter()
            .any(|d| path.contains(d));
    candidate && path != "/" && ctx.is_sensitive(&format!("{path}/x"))
}

/// Whether `path` ends in a glob that names secret files (`.env*`, `*.pem`, `id_*`)
/// rather than files at large (`*`, `*.json`): it can name one of the usual secret names
/// there and none of a few ordinary ones.
pub(crate) fn glob_names_secret(ctx: &Ctx<'_>, path: &str) -> bool {
    let Some((dir, name)) = path.rsplit_once('/') else {
        return false;
    };
    if !crate::own::places::has_glob(name) {
        return false;
    }
    let Ok(glob) = globset::GlobBuilder::new(name)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
    else {
        return false;
    };
    let matcher = glob.compile_matcher();
    // As the shell expands it: a hidden name only by a pattern that starts with `.`.
    let names = |literal: &str| {
        (!literal.starts_with('.') || name.starts_with(['.', '{'])) && matcher.is_match(literal)
    };
    let secret_there = |literal: &str| ctx.is_sensitive(&format!("{dir}/{literal}"));
    SECRET_NAMES.iter().any(|n| names(n) && secret_there(n))
        && !ORDINARY_NAMES.iter().any(|n| names(n) && !secret_there(n))
}

/// The usual names of secret files, which a glob is tried against.
const SECRET_NAMES: &[&str] = &[
    ".env",
    ".env.local",
    ".env.production",
    "x.env",
    ".envrc",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "x.pem",
    "x.key",
    "x.p12",
    "x.pfx",
    "x.jks",
    "x.keystore",
    "credentials",
    "credentials.json",
    "config",
    "hosts.yml",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".htpasswd",
    "authorized_keys",
    "service-account.json",
];

/// Ordinary names: a glob that can name one of them where it is no secret names files at
/// large, not secrets (`*`, `*.json`, `*.yml`).
const ORDINARY_NAMES: &[&str] = &[
    "x",
    "main.rs",
    "README.md",
    "x.txt",
    "package.json",
    "Cargo.toml",
    "ci.yml",
    "index.js",
    "x.py",
    "Makefile",
];
