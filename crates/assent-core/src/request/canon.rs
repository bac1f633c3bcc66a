//! Canonical actions and their hash.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::paths::links::RealPath;
use crate::paths::normalize;
use crate::request::Action;
use crate::shell::{from_argv, parse_script, ShellScript};
use crate::types::ActionKind;

/// Longest command line accepted (bytes).
pub const MAX_COMMAND_BYTES: usize = 128 * 1024;
/// Most argv words, paths or network targets accepted.
pub const MAX_ITEMS: usize = 4096;
/// Longest single path, target, tool name or cwd (bytes).
pub const MAX_ITEM_BYTES: usize = 16 * 1024;

/// An action with every incidental difference removed: the thing grants bind to.
///
/// Fields are declared in sorted order so its JSON is already canonical (RFC 8785 key order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanonicalAction {
    /// Every simple command the shell line runs (assignments, words after quote removal,
    /// redirections), wrappers included; substitutions and `sh -c` scripts add their own.
    pub commands: Vec<Vec<String>>,
    pub credential_scope: Option<String>,
    pub cwd: String,
    /// The content an edit writes (from the request's context), so edits differ by content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_fingerprint: Option<String>,
    pub kind: ActionKind,
    pub network: Vec<String>,
    /// Normalised absolute paths, sorted.
    pub paths: Vec<String>,
    /// Paths of the action (named or found in its commands) whose real path differs from
    /// what was written, or cannot be known; sorted. Empty (and left out of the JSON, so the
    /// hash is unchanged) when no symlink is involved or nothing resolves paths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub real_paths: Vec<RealPath>,
    /// How the commands are joined (`_ && _ | _`); `None` for non-shell actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
    pub tool: Option<String>,
}

/// Why an action cannot be canonicalised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonError {
    #[error("cwd must be an absolute path, got {0:?}")]
    RelativeCwd(String),
    #[error("a shell action needs a command or argv")]
    MissingCommand,
    #[error("{what} is too large ({size} > {limit})")]
    TooLarge {
        what: &'static str,
        size: usize,
        limit: usize,
    },
}

/// Canonicalises `action`; `home` expands `~` and `$HOME`.
pub fn canonicalize(action: &Action, home: &str) -> Result<CanonicalAction, CanonError> {
    canonicalize_parsed(action, home).map(|(canonical, _)| canonical)
}

/// Canonicalises `action` and returns the parsed shell line with it.
pub(crate) fn canonicalize_parsed(
    action: &Action,
    home: &str,
) -> Result<(CanonicalAction, Option<ShellScript>), CanonError> {
    check_sizes(action)?;
    if !action.cwd.starts_with('/') {
        return Err(CanonError::RelativeCwd(action.cwd.clone()));
    }
    let cwd = normalize(&action.cwd, "/", home);
    let script = match (&action.command, &action.argv) {
        (Some(line), _) if !line.trim().is_empty() => Some(parse_script(line, &cwd, home)),
        (_, Some(argv)) if !argv.is_empty() => Some(from_argv(argv, &cwd, home)),
        _ if action.kind == ActionKind::Shell => return Err(CanonError::MissingCommand),
        _ => None,
    };
    let commands = script
        .as_ref()
        .map(|s| {
            s.commands
                .iter()
                .map(|c| {
                    let mut words = c.assignments.clone();
                    words.extend(c.argv.iter().cloned());
                    words.extend(c.redirect_words.iter().cloned());
                    words
                })
                .collect()
        })
        .unwrap_or_default();
    let mut paths: Vec<String> = action
        .paths
        .iter()
        .map(|p| normalize(p, &cwd, home))
        .collect();
    paths.sort();
    paths.dedup();
    let mut network: Vec<String> = action.network.iter().map(|n| n.trim().to_owned()).collect();
    network.sort();
    network.dedup();
    let canonical = CanonicalAction {
        kind: action.kind,
        commands,
        shape: script.as_ref().map(|s| s.shape.clone()),
        cwd,
        paths,
        real_paths: Vec::new(),
        network,
        credential_scope: action.credential_scope.clone(),
        tool: action.tool.clone(),
        diff_fingerprint: None,
    };
    Ok((canonical, script))
}

fn check_sizes(action: &Action) -> Result<(), CanonError> {
    let too_large = |what, size, limit| Err(CanonError::TooLarge { what, size, limit });
    if let Some(line) = &action.command {
        if line.len() > MAX_COMMAND_BYTES {
            return too_large("the command", line.len(), MAX_COMMAND_BYTES);
        }
    }
    let argv = action.argv.as_deref().unwrap_or_default();
    if argv.iter().map(String::len).sum::<usize>() > MAX_COMMAND_BYTES {
        return too_large(
            "argv",
            argv.iter().map(String::len).sum(),
            MAX_COMMAND_BYTES,
        );
    }
    for (what, list) in [
        ("argv", argv),
        ("paths", &action.paths),
        ("network", &action.network),
    ] {
        if list.len() > MAX_ITEMS {
            return too_large(what, list.len(), MAX_ITEMS);
        }
        if let Some(long) = list.iter().find(|s| s.len() > MAX_ITEM_BYTES) {
            return too_large(what, long.len(), MAX_ITEM_BYTES);
        }
    }
    let singles = [
        ("cwd", Some(&action.cwd)),
        ("tool", action.tool.as_ref()),
        ("credential_scope", action.credential_scope.as_ref()),
    ];
    for (what, value) in singles {
        if let Some(v) = value.filter(|v| v.len() > MAX_ITEM_BYTES) {
            return too_large(what, v.len(), MAX_ITEM_BYTES);
        }
    }
    Ok(())
}

/// SHA-256 (hex) of the canonical JSON of `action`.
pub fn action_hash(action: &CanonicalAction) -> String {
    // Sorted fields, no maps inside: serde_json's compact output is the canonical form.
    sha256_json_hex(action)
}

/// SHA-256 (hex) of `value`'s compact JSON.
///
/// The JSON goes to one presized buffer and is hashed in a single call: serde writes many
/// tiny pieces, and feeding each to the hasher costs more than the copy.
pub(crate) fn sha256_json_hex<T: Serialize + ?Sized>(value: &T) -> String {
    let mut json = Vec::with_capacity(1024);
    // Writing into a Vec cannot fail; a value serde can't write hashes what was written.
    let _written = serde_json::to_writer(&mut json, value);
    lower_hex(&Sha256::digest(&json))
}

/// Lowercase hex of `bytes`, written straight into one buffer (`hex::encode` collects
/// chars one by one, which showed up in the profile of every evaluation).
pub(crate) fn lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        for nibble in [b >> 4, b & 0x0f] {
            out.push(char::from(
                DIGITS.get(usize::from(nibble)).copied().unwrap_or(b'0'),
            ));
        }
    }
    out
}

/// JSON in the RFC 8785 style: object keys sorted, no insignificant whitespace.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (key, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
