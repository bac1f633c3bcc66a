//! Canonical actions and their hash.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::request::Action;
use crate::types::ActionKind;

/// An action with every incidental difference removed: the thing grants bind to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanonicalAction {
    pub kind: ActionKind,
    /// Every simple command the shell line runs, wrappers seen through.
    pub commands: Vec<Vec<String>>,
    pub cwd: String,
    pub paths: Vec<String>,
    pub network: Vec<String>,
    pub credential_scope: Option<String>,
    pub tool: Option<String>,
}

/// Why an action cannot be canonicalised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonError {
    #[error("cwd must be an absolute path, got {0:?}")]
    RelativeCwd(String),
    #[error("a shell action needs a command or argv")]
    MissingCommand,
}

/// Canonicalises `action`; `home` expands `~` and `$HOME`.
pub fn canonicalize(action: &Action, _home: &str) -> Result<CanonicalAction, CanonError> {
    if !action.cwd.starts_with('/') {
        return Err(CanonError::RelativeCwd(action.cwd.clone()));
    }
    let commands = match (&action.command, &action.argv) {
        (Some(line), _) => vec![line.split_whitespace().map(str::to_owned).collect()],
        (None, Some(argv)) => vec![argv.clone()],
        (None, None) if action.kind == ActionKind::Shell => return Err(CanonError::MissingCommand),
        (None, None) => Vec::new(),
    };
    Ok(CanonicalAction {
        kind: action.kind,
        commands,
        cwd: action.cwd.clone(),
        paths: action.paths.clone(),
        network: action.network.clone(),
        credential_scope: action.credential_scope.clone(),
        tool: action.tool.clone(),
    })
}

/// SHA-256 (hex) of the canonical JSON of `action`.
pub fn action_hash(action: &CanonicalAction) -> String {
    let json = serde_json::to_vec(action).unwrap_or_default();
    hex::encode(Sha256::digest(json))
}
