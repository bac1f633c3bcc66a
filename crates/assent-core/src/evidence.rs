//! The evidence packet a person decides from (the seed's `ApprovalEvidence`).

use serde::{Deserialize, Serialize};

/// What the person sees: enough to decide, never a raw secret.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalEvidence {
    /// One line: what and where, e.g. "Run cargo-test in shop".
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// The command line as the agent wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_line: Option<String>,
    pub cwd: String,
    #[serde(default)]
    pub paths: Vec<String>,
    #[serde(default)]
    pub network: Vec<String>,
    /// Paths that lead somewhere else than written, as `link → real path`
    /// (`src/key → /home/u/.ssh/id_rsa`; `→ (unknown)` when it could not be resolved).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symlinks: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
    /// What may change if approved, e.g. "target/** only".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_summary: Option<String>,
    #[serde(default)]
    pub policy_findings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_risk: Option<String>,
    /// Arguments carrying NUL, control, bidi or zero-width characters.
    #[serde(default)]
    pub suspicious_text: bool,
}
