//! The audit chain's answers (docs/security.md, "The audit chain"): what `verify` found
//! (`GET /v1/audit/verify`, `assent audit verify --json`) and the key signing the checkpoints
//! (`GET /v1/audit/key`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One place where the audit does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Break {
    /// The row's body or hash was changed: its hash is not the hash of what it holds.
    Changed { chain_seq: i64, event_id: String },
    /// The chain jumps from `after` to `found`: rows in between are missing.
    Missing { after: i64, found: i64 },
    /// The row does not name the hash of the row before it: moved, swapped or forged.
    Relinked { chain_seq: i64, event_id: String },
    /// A row without a link after the chain started: inserted by hand.
    Unlinked { event_id: String },
    /// A checkpoint names a chain position or hash the chain no longer has (rows truncated
    /// or changed before it), or a previous checkpoint it does not follow.
    Checkpoint { id: i64, why: String },
    /// A checkpoint's signature does not verify with the known key(s).
    Signature { id: i64, key_id: String },
    /// An execution that no earlier auto decision, grant use or approval covered.
    Uncovered { chain_seq: i64, event_id: String },
    /// A row from before the chain no longer matches the links it was given when the chain
    /// started: changed, or the row before it removed or moved.
    BeforeChain { event_id: String, why: String },
    /// The signed record of the rows from before the chain (written when the chain started)
    /// is missing, does not match those rows, or its signature does not verify.
    ChainStart { why: String },
}

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Report {
    /// True only when there is no break.
    pub ok: bool,
    /// Linked rows walked.
    pub events: u64,
    /// Rows written before the chain started (at the upgrade): not covered by its links, but
    /// fixed by the signed record written when it started (a row added, changed or removed
    /// among them is a break).
    pub before_chain: u64,
    /// The last chain position and its hash.
    pub head_seq: i64,
    pub head_hash: String,
    pub checkpoints: u64,
    /// The last checkpoint's chain position: rows after it can be truncated undetected.
    pub last_checkpoint_seq: i64,
    /// When the last checkpoint was signed (`None`: no checkpoint yet).
    #[serde(default)]
    #[schema(required, value_type = Option<String>)]
    pub last_checkpoint_at: Option<DateTime<Utc>>,
    pub breaks: Vec<Break>,
}

/// `GET /v1/audit/verify`: the chain's verification with this replica's checkpoint key
/// (checkpoints signed by another replica's key show as `signature` breaks unless the
/// verifier is given that key: `assent audit verify --key HEX`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AuditVerification {
    /// The Ed25519 public key signing this replica's checkpoints, lowercase hex.
    pub public_key: Option<String>,
    pub key_id: Option<String>,
    pub report: Report,
}

/// `GET /v1/audit/key`: the public key that checks this service's checkpoints (what
/// `assent audit key` prints), without walking the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AuditKeyInfo {
    /// The Ed25519 public key, lowercase hex (64 digits).
    pub public_key: String,
    /// Its fingerprint: the first 16 hex digits of SHA-256 over the key (named by each
    /// checkpoint).
    pub key_id: String,
}
