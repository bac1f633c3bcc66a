//! The start of the chain: rows written before it existed (a database upgraded from before
//! the chain) carry no place in it, so when the service first starts on a store without this
//! record it links those rows among themselves (`prev_hash`, `hash`, no `chain_seq`) and signs
//! one record of their count, their last table row and the hash of the last one. A fresh
//! store's record signs zero rows. From then on a row added among them has no link, a changed
//! one no longer hashes to its link, a removed one leaves the next one naming a hash that is
//! not there, and a rewriting of all their links no longer matches the signed record.

use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha256};

use super::key_id;

/// The hash of a row from before the chain: SHA-256 over `assent.before-chain.v1\n{prev_hash}\n{body}`,
/// lowercase hex; the first row's `prev_hash` is [`super::GENESIS`]. Like [`super::link_hash`]
/// without a position (an export does not carry table rows).
pub fn before_chain_hash(prev_hash: &str, body: &str) -> String {
    let mut h = Sha256::new();
    h.update(format!("assent.before-chain.v1\n{prev_hash}\n").as_bytes());
    h.update(body.as_bytes());
    hex::encode(h.finalize())
}

/// The signed record of the rows from before the chain, written once when it started.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChainStart {
    /// How many rows came before the chain (0 on a store that started with it).
    pub events: i64,
    /// The table row (`seq`) of the last of them (0 when there are none).
    pub last_seq: i64,
    /// The hash of the last of them ([`super::GENESIS`] when there are none): it covers every
    /// one before it, in table order.
    pub head_hash: String,
    /// Which key signed ([`super::AuditKey::key_id`]).
    pub key_id: String,
    /// Microseconds since the Unix epoch.
    pub signed_at: i64,
    /// Ed25519 signature of [`ChainStart::message`], lowercase hex.
    pub signature: String,
}

impl ChainStart {
    /// The bytes signed: `assent.chain-start.v1\n{events}\n{last_seq}\n{head_hash}\n{key_id}\n{signed_at}`.
    pub fn message(&self) -> Vec<u8> {
        format!(
            "assent.chain-start.v1\n{}\n{}\n{}\n{}\n{}",
            self.events, self.last_seq, self.head_hash, self.key_id, self.signed_at
        )
        .into_bytes()
    }

    /// Whether one of `keys` signed it.
    pub fn signed_by(&self, keys: &[VerifyingKey]) -> bool {
        signed(&self.message(), &self.key_id, &self.signature, keys)
    }
}

/// Whether `signature` (hex) over `message` verifies with the key of `keys` named `key_id`.
pub(super) fn signed(message: &[u8], id: &str, signature: &str, keys: &[VerifyingKey]) -> bool {
    let Some(key) = keys.iter().find(|k| key_id(k) == id) else {
        return false;
    };
    let Ok(bytes) = hex::decode(signature) else {
        return false;
    };
    let Ok(sig) = Signature::from_slice(&bytes) else {
        return false;
    };
    key.verify_strict(message, &sig).is_ok()
}

/// The walk over the rows before the chain: their links, then the record that signs them.
#[derive(Debug)]
pub(super) struct Before {
    record: Option<ChainStart>,
    /// A part of the audit (an export `--since`): the first row's `prev_hash` is trusted and
    /// the count is not checked.
    partial: bool,
    /// Rows with a link before the chain (or, without a record, every row there).
    pub(super) events: u64,
    last_hash: String,
    last_seq: Option<i64>,
}

impl Before {
    pub(super) fn new(record: Option<ChainStart>, partial: bool) -> Self {
        Before {
            record,
            partial,
            events: 0,
            last_hash: super::GENESIS.to_owned(),
            last_seq: None,
        }
    }

    /// One row before the first link of the chain, at table row `seq` when known (a database;
    /// an export does not carry it).
    pub(super) fn push(
        &mut self,
        seq: Option<i64>,
        row: &super::ChainRow,
        event_id: String,
        breaks: &mut Vec<assent_protocol::Break>,
    ) {
        use assent_protocol::Break;
        let (None, Some(prev), Some(hash)) = (row.chain_seq, &row.prev_hash, &row.hash) else {
            if self.record.is_some() {
                // Every row there was linked when the chain started: this one came after.
                breaks.push(Break::Unlinked { event_id });
            } else {
                // Not signed yet (the service has not started since the upgrade): reported
                // once, at the end.
                self.events += 1;
            }
            return;
        };
        if self.partial && self.events == 0 {
            self.last_hash = prev.clone();
        }
        self.events += 1;
        if *prev != self.last_hash {
            breaks.push(Break::BeforeChain {
                event_id: event_id.clone(),
                why:
                    "it does not follow the row before it (that row was removed, or this one moved)"
                        .to_owned(),
            });
        }
        if before_chain_hash(prev, &row.body) != *hash {
            breaks.push(Break::BeforeChain {
                event_id,
                why: "it was changed: its hash is not the hash of what it holds".to_owned(),
            });
        }
        self.last_hash = hash.clone();
        self.last_seq = seq.or(self.last_seq);
    }

    /// Checks the record against the rows walked, and its signature with `keys`.
    pub(super) fn finish(&self, keys: &[VerifyingKey], breaks: &mut Vec<assent_protocol::Break>) {
        use assent_protocol::Break;
        let Some(record) = &self.record else {
            if self.events > 0 {
                breaks.push(Break::ChainStart {
                    why: format!(
                        "no signed record of the {} events from before the chain (the service \
                         writes it when it first starts after the upgrade)",
                        self.events
                    ),
                });
            }
            return;
        };
        let walked = i64::try_from(self.events).unwrap_or(i64::MAX);
        let why = if !self.partial && record.events != walked {
            Some(format!(
                "it signs {} events from before the chain, there are {walked}",
                record.events
            ))
        } else if (!self.partial || self.events > 0) && record.head_hash != self.last_hash {
            Some("it signs a different hash of the events before the chain (their links were rewritten)".to_owned())
        } else if record.events > 0 && self.last_seq.is_some_and(|s| s != record.last_seq) {
            Some(format!(
                "it signs table row {} as the last before the chain, the last is row {}",
                record.last_seq,
                self.last_seq.unwrap_or_default()
            ))
        } else {
            None
        };
        if let Some(why) = why {
            breaks.push(Break::ChainStart { why });
        }
        if !record.signed_by(keys) {
            breaks.push(Break::ChainStart {
                why: format!("its signature does not verify with key {}", record.key_id),
            });
        }
    }
}
