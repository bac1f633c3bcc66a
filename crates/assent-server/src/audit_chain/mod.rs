//! The audit chain (docs/security.md, "The audit chain"): every audit row carries its place in
//! the chain, the hash of the row before it and its own hash over its canonical form; signed
//! checkpoints name the head of the chain and the checkpoint before them; rows from before the
//! chain are fixed by one signed record written when it started ([`ChainStart`]). Pure: the store
//! appends the links (`store/sql/chain.rs`), [`walk`] checks rows and checkpoints read from a
//! database or an export, [`export`] writes and reads exports.

mod by_count;
mod export;
mod key;
mod start;
mod verify;
mod walk;

use sha2::{Digest, Sha256};

pub use assent_protocol::{AuditKeyInfo, AuditVerification};
pub use by_count::{CountSigner, SignerSlot};
pub use export::{export, verify_export, ExportError, Format};
pub use key::{public_from_hex, AuditKey, KeyError};
pub use start::{before_chain_hash, ChainStart};
pub use verify::verify;
pub use walk::{Break, Report, Start, Walk};

/// The checkpoint key's file in the data dir.
pub const KEY_FILE: &str = "audit-key";

/// The `prev_hash` of the first link.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The hash of one link: SHA-256 over `assent.audit.v1\n{chain_seq}\n{prev_hash}\n{body}`,
/// lowercase hex. `body` is the row's stored JSON text byte for byte (the canonical form:
/// `ApprovalAuditEvent` serialized with its fields in declaration order, no whitespace), so a
/// verifier hashes what it reads and never re-serializes.
pub fn link_hash(chain_seq: i64, prev_hash: &str, body: &str) -> String {
    let mut h = Sha256::new();
    h.update(format!("assent.audit.v1\n{chain_seq}\n{prev_hash}\n").as_bytes());
    h.update(body.as_bytes());
    hex::encode(h.finalize())
}

/// The id of a public key: the first 16 hex digits of its SHA-256, named by what a key signs
/// (checkpoints, the chain's start record) and looked up when it is verified.
pub fn key_id(public: &ed25519_dalek::VerifyingKey) -> String {
    let digest = hex::encode(Sha256::digest(public.as_bytes()));
    digest.get(..16).unwrap_or_default().to_owned()
}

/// One audit row as the chain sees it (from the database or an export line).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChainRow {
    /// `None` for rows written before the chain started (the upgrade).
    pub chain_seq: Option<i64>,
    pub prev_hash: Option<String>,
    pub hash: Option<String>,
    /// The stored JSON text of the event, hashed as is.
    pub body: String,
}

/// A signed head of the chain.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Checkpoint {
    /// 1, 2, 3… in signing order.
    pub id: i64,
    /// The chain position signed (0: an empty chain).
    pub chain_seq: i64,
    /// The hash of the link at `chain_seq` ([`GENESIS`] for an empty chain).
    pub head_hash: String,
    /// The signature of checkpoint `id - 1` (empty for the first).
    pub prev_signature: String,
    /// Which key signed ([`AuditKey::key_id`]).
    pub key_id: String,
    /// Microseconds since the Unix epoch.
    pub signed_at: i64,
    /// Ed25519 signature of [`Checkpoint::message`], lowercase hex.
    pub signature: String,
}

impl Checkpoint {
    /// The bytes signed: `assent.checkpoint.v1\n{id}\n{chain_seq}\n{head_hash}\n{prev_signature}\n{key_id}\n{signed_at}`.
    pub fn message(&self) -> Vec<u8> {
        format!(
            "assent.checkpoint.v1\n{}\n{}\n{}\n{}\n{}\n{}",
            self.id,
            self.chain_seq,
            self.head_hash,
            self.prev_signature,
            self.key_id,
            self.signed_at
        )
        .into_bytes()
    }
}
