//! Credential capabilities: named uses of a secret the policy declares
//! (`[capabilities."registry.maven.readonly"]`). A person approves the capability — its
//! hosts, methods and TTL — never the secret; the service resolves the secret from its
//! `source` and hands it to one approved child process only.

pub(crate) mod eval;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::policy::error::{line_of, PolicyError};
use crate::types::Role;

/// The longest a capability grant may last, whatever the policy's lifetimes say.
pub const MAX_TTL_SECONDS: i64 = 7 * 24 * 3600;

/// The largest secret a source may hold (bytes).
pub const MAX_SECRET_BYTES: usize = 64 * 1024;

/// One declared capability, as the policy file writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capability {
    /// Where the secret lives: `env:NAME`, `file:PATH` or `keyring:SERVICE/ACCOUNT`.
    pub source: SecretSource,
    /// The environment variable the approved child process gets it as.
    pub inject_as: String,
    /// How long an approval of it lasts at most ("15m", "1h", "3600s", "1d").
    pub ttl: Ttl,
    /// The network hosts it is for (shown to the person).
    #[serde(default)]
    pub hosts: Vec<String>,
    /// The HTTP methods it is for (`GET`, `HEAD`…; shown to the person).
    #[serde(default)]
    pub methods: Vec<String>,
    /// Who must approve it; without a role any person with a role may.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
}

/// Where a capability's secret lives. Only the service reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum SecretSource {
    /// An environment variable of the service's process.
    Env(String),
    /// A file the service can read (absolute, or `~/…` in the service user's home).
    File(String),
    /// The desktop keyring (Secret Service), `SERVICE/ACCOUNT`.
    Keyring(String),
}

impl SecretSource {
    /// `env`, `file` or `keyring`.
    pub fn kind(&self) -> &'static str {
        match self {
            SecretSource::Env(_) => "env",
            SecretSource::File(_) => "file",
            SecretSource::Keyring(_) => "keyring",
        }
    }
}

impl TryFrom<String> for SecretSource {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        let bad =
            || format!("source {text:?} must be env:NAME, file:PATH or keyring:SERVICE/ACCOUNT");
        let (kind, rest) = text.split_once(':').ok_or_else(bad)?;
        match kind {
            "env" if is_env_name(rest) => Ok(SecretSource::Env(rest.to_owned())),
            "file" if rest.starts_with('/') || rest.starts_with("~/") => {
                Ok(SecretSource::File(rest.to_owned()))
            }
            "file" => Err(format!(
                "source {text:?}: the file must be an absolute path or start with ~/"
            )),
            "keyring"
                if rest
                    .split_once('/')
                    .is_some_and(|(s, a)| !s.is_empty() && !a.is_empty()) =>
            {
                Ok(SecretSource::Keyring(rest.to_owned()))
            }
            _ => Err(bad()),
        }
    }
}

impl From<SecretSource> for String {
    fn from(source: SecretSource) -> String {
        match source {
            SecretSource::Env(name) => format!("env:{name}"),
            SecretSource::File(path) => format!("file:{path}"),
            SecretSource::Keyring(item) => format!("keyring:{item}"),
        }
    }
}

/// A capability's time to live, in seconds; written `90s`, `15m`, `1h`, `1d`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Ttl(pub i64);

impl TryFrom<String> for Ttl {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        let bad = || format!("ttl {text:?} must be a number with s, m, h or d (\"15m\", \"1h\")");
        let seconds = crate::text::span_seconds(&text).ok_or_else(bad)?;
        if !(1..=MAX_TTL_SECONDS).contains(&seconds) {
            return Err(format!("ttl {text:?} must be 1s to 7d"));
        }
        Ok(Ttl(seconds))
    }
}

impl From<Ttl> for String {
    fn from(ttl: Ttl) -> String {
        format!("{}s", ttl.0)
    }
}

/// Variables a capability may not replace: they change what the child runs or loads.
const RESERVED_VARS: &[&str] = &[
    "PATH",
    "HOME",
    "SHELL",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "BASH_ENV",
    "ENV",
    "IFS",
    "ASSENT_URL",
    "ASSENT_TOKEN",
    "ASSENT_CA_FILE",
];

const METHODS: &[&str] = &[
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE",
];

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `name` may name a capability: letters, digits, `.`, `-`, `_`, 1–100 characters.
pub fn is_capability_name(name: &str) -> bool {
    (1..=100).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
}

/// The file's capabilities, checked; errors name the line of the capability's table.
pub(crate) fn checked(
    file: BTreeMap<String, Capability>,
    text: &str,
) -> Result<BTreeMap<String, Capability>, PolicyError> {
    for (name, capability) in &file {
        check_one(name, capability).map_err(|message| PolicyError {
            line: text.find(name.as_str()).map_or(1, |at| line_of(text, at)),
            message: format!("capabilities.{name:?}: {message}"),
        })?;
    }
    Ok(file)
}

fn check_one(name: &str, capability: &Capability) -> Result<(), String> {
    if !is_capability_name(name) {
        return Err("a capability name is 1 to 100 letters, digits, '.', '-' or '_'".to_owned());
    }
    if let SecretSource::Keyring(_) = capability.source {
        return Err(
            "keyring: sources are not supported yet (the service cannot reach the desktop's \
             Secret Service); use env:NAME or file:PATH"
                .to_owned(),
        );
    }
    let var = capability.inject_as.as_str();
    if !is_env_name(var) {
        return Err(format!(
            "inject_as {var:?} must be an environment variable name"
        ));
    }
    if RESERVED_VARS.contains(&var) {
        return Err(format!(
            "inject_as {var:?} would change what the child runs; pick another variable"
        ));
    }
    if let Some(method) = capability
        .methods
        .iter()
        .find(|m| !METHODS.contains(&m.as_str()))
    {
        return Err(format!(
            "method {method:?} is not an HTTP method in capitals ({})",
            METHODS.join(", ")
        ));
    }
    if let Some(host) = capability
        .hosts
        .iter()
        .find(|h| h.is_empty() || h.contains(['/', ' ', '@']))
    {
        return Err(format!(
            "host {host:?} must be a host name, without scheme or path"
        ));
    }
    Ok(())
}

/// A request names a capability the policy does not declare.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown capability {name:?}: the policy declares {}", declared_list(.declared))]
pub struct UnknownCapability {
    pub name: String,
    pub declared: Vec<String>,
}

fn declared_list(declared: &[String]) -> String {
    if declared.is_empty() {
        "none".to_owned()
    } else {
        declared.join(", ")
    }
}

#[cfg(test)]
mod tests;
