//! Walks the chain in `chain_seq` order and says where it breaks: a changed row (its hash no
//! longer matches its body), a missing, reordered or inserted row (a gap, or a `prev_hash`
//! that is not the hash before it), a checkpoint that no longer matches the chain or its
//! signature; and, from the verified rows, every execution no auto decision, grant use or
//! approval covered.

use std::collections::{HashMap, HashSet};

use ed25519_dalek::{Signature, VerifyingKey};
use serde::{Deserialize, Serialize};

use super::key::key_id;
use super::{link_hash, ChainRow, Checkpoint, GENESIS};

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
}

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Report {
    /// True only when there is no break.
    pub ok: bool,
    /// Linked rows walked.
    pub events: u64,
    /// Rows written before the chain started (at the upgrade): not covered by it.
    pub before_chain: u64,
    /// The last chain position and its hash.
    pub head_seq: i64,
    pub head_hash: String,
    pub checkpoints: u64,
    /// The last checkpoint's chain position: rows after it can be truncated undetected.
    pub last_checkpoint_seq: i64,
    pub breaks: Vec<Break>,
}

/// What the walk expects of its first linked row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The whole chain: position 1 after [`GENESIS`] (a database, a full export).
    Genesis,
    /// A part of it (an export `--since`): the first linked row is trusted as the anchor;
    /// checkpoints before it are checked for their signature only.
    Anywhere,
}

#[derive(Deserialize)]
struct Facts {
    event_id: String,
    decision: String,
    #[serde(default)]
    action_id: Option<String>,
    #[serde(default)]
    approval_id: Option<String>,
}

/// The walk's state; feed rows in `chain_seq` order (unlinked rows first), then
/// [`Walk::finish`].
#[derive(Debug)]
pub struct Walk {
    last_seq: i64,
    last_hash: String,
    start: Start,
    /// The position before the first row walked.
    anchor: i64,
    seen_linked: bool,
    events: u64,
    before_chain: u64,
    /// The hash at each position a checkpoint signs (only those: a million rows stay small).
    heads: HashMap<i64, Option<String>>,
    allowed_actions: HashSet<String>,
    approved: HashSet<String>,
    breaks: Vec<Break>,
}

impl Walk {
    /// A walk that will check `checkpoints` at [`Walk::finish`].
    pub fn new(checkpoints: &[Checkpoint], start: Start) -> Self {
        Walk {
            last_seq: 0,
            last_hash: GENESIS.to_owned(),
            start,
            anchor: 0,
            seen_linked: false,
            events: 0,
            before_chain: 0,
            heads: checkpoints.iter().map(|c| (c.chain_seq, None)).collect(),
            allowed_actions: HashSet::new(),
            approved: HashSet::new(),
            breaks: Vec::new(),
        }
    }
}

impl Walk {
    pub fn push(&mut self, row: &ChainRow) {
        let facts: Option<Facts> = serde_json::from_str(&row.body).ok();
        let event_id = facts
            .as_ref()
            .map(|f| f.event_id.clone())
            .unwrap_or_default();
        let (Some(seq), Some(prev), Some(hash)) = (row.chain_seq, &row.prev_hash, &row.hash) else {
            if self.seen_linked {
                self.breaks.push(Break::Unlinked { event_id });
            } else {
                self.before_chain += 1;
            }
            return;
        };
        if !self.seen_linked && self.start == Start::Anywhere {
            self.last_seq = seq - 1;
            self.last_hash = prev.clone();
            self.anchor = seq - 1;
        }
        self.seen_linked = true;
        self.events += 1;
        if seq != self.last_seq + 1 {
            self.breaks.push(Break::Missing {
                after: self.last_seq,
                found: seq,
            });
        } else if *prev != self.last_hash {
            self.breaks.push(Break::Relinked {
                chain_seq: seq,
                event_id: event_id.clone(),
            });
        }
        if link_hash(seq, prev, &row.body) != *hash {
            self.breaks.push(Break::Changed {
                chain_seq: seq,
                event_id: event_id.clone(),
            });
        }
        self.last_seq = seq;
        self.last_hash = hash.clone();
        if let Some(head) = self.heads.get_mut(&seq) {
            *head = Some(hash.clone());
        }
        if let Some(f) = facts {
            self.cover(seq, f);
        }
    }

    fn cover(&mut self, seq: i64, f: Facts) {
        match f.decision.as_str() {
            "auto" | "used" => self.allowed_actions.extend(f.action_id),
            "approved" => self.approved.extend(f.approval_id),
            "executed" => {
                let by_action = f
                    .action_id
                    .as_ref()
                    .is_some_and(|a| self.allowed_actions.contains(a));
                let by_approval = f
                    .approval_id
                    .as_ref()
                    .is_some_and(|a| self.approved.contains(a));
                if !by_action && !by_approval {
                    self.breaks.push(Break::Uncovered {
                        chain_seq: seq,
                        event_id: f.event_id,
                    });
                }
            }
            _ => {}
        }
    }

    /// Checks `checkpoints` (in id order) against the walked chain with `keys` (public keys);
    /// an empty `keys` checks the links of the checkpoints but not their signatures' keys.
    pub fn finish(mut self, checkpoints: &[Checkpoint], keys: &[VerifyingKey]) -> Report {
        let mut prev_signature = String::new();
        let mut last_checkpoint_seq = 0;
        for (n, cp) in checkpoints.iter().enumerate() {
            let expected_id = i64::try_from(n).unwrap_or(i64::MAX).saturating_add(1);
            let why = if cp.id != expected_id {
                Some(format!("checkpoint {expected_id} is missing"))
            } else if cp.prev_signature != prev_signature {
                Some("it does not name the checkpoint before it".to_owned())
            } else if (cp.chain_seq == 0 && cp.head_hash == GENESIS) || cp.chain_seq <= self.anchor
            {
                None
            } else {
                match self.heads.get(&cp.chain_seq).cloned().flatten() {
                    None => Some(format!(
                        "it signs event {} which the chain no longer has (truncated?)",
                        cp.chain_seq
                    )),
                    Some(h) if h != cp.head_hash => Some(format!(
                        "it signs a different hash at event {}",
                        cp.chain_seq
                    )),
                    Some(_) => None,
                }
            };
            if let Some(why) = why {
                self.breaks.push(Break::Checkpoint { id: cp.id, why });
            }
            if !signed_by(cp, keys) {
                self.breaks.push(Break::Signature {
                    id: cp.id,
                    key_id: cp.key_id.clone(),
                });
            }
            prev_signature = cp.signature.clone();
            last_checkpoint_seq = cp.chain_seq;
        }
        Report {
            ok: self.breaks.is_empty(),
            events: self.events,
            before_chain: self.before_chain,
            head_seq: self.last_seq,
            head_hash: self.last_hash,
            checkpoints: u64::try_from(checkpoints.len()).unwrap_or(u64::MAX),
            last_checkpoint_seq,
            breaks: self.breaks,
        }
    }
}

fn signed_by(cp: &Checkpoint, keys: &[VerifyingKey]) -> bool {
    let Some(key) = keys.iter().find(|k| key_id(k) == cp.key_id) else {
        return false;
    };
    let Ok(bytes) = hex::decode(&cp.signature) else {
        return false;
    };
    let Ok(sig) = Signature::from_slice(&bytes) else {
        return false;
    };
    key.verify_strict(&cp.message(), &sig).is_ok()
}
