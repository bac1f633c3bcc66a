//! Walks the chain in `chain_seq` order and says where it breaks: a changed row (its hash no
//! longer matches its body), a missing, reordered or inserted row (a gap, or a `prev_hash`
//! that is not the hash before it), a checkpoint that no longer matches the chain or its
//! signature, a row from before the chain added, changed or removed (`start.rs`); and, from
//! the verified rows, every execution no auto decision, grant use or approval covered.

use std::collections::{HashMap, HashSet};

use ed25519_dalek::VerifyingKey;
use serde::Deserialize;

use super::start::{signed, Before};
use super::{link_hash, ChainRow, ChainStart, Checkpoint, GENESIS};
pub use assent_protocol::{Break, Report};

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
    /// The rows before the first link, and the record that signs them.
    before: Before,
    /// The hash at each position a checkpoint signs (only those: a million rows stay small).
    heads: HashMap<i64, Option<String>>,
    allowed_actions: HashSet<String>,
    approved: HashSet<String>,
    breaks: Vec<Break>,
}

impl Walk {
    /// A walk that will check `checkpoints` and the chain's start record `chain_start` (`None`:
    /// there is none) at [`Walk::finish`].
    pub fn new(checkpoints: &[Checkpoint], chain_start: Option<ChainStart>, start: Start) -> Self {
        Walk {
            last_seq: 0,
            last_hash: GENESIS.to_owned(),
            start,
            anchor: 0,
            seen_linked: false,
            events: 0,
            before: Before::new(chain_start, start == Start::Anywhere),
            heads: checkpoints.iter().map(|c| (c.chain_seq, None)).collect(),
            allowed_actions: HashSet::new(),
            approved: HashSet::new(),
            breaks: Vec::new(),
        }
    }
}

impl Walk {
    /// The next row, at table row `seq` when known (a database; an export does not carry it).
    pub fn push(&mut self, table_seq: Option<i64>, row: &ChainRow) {
        let facts: Option<Facts> = serde_json::from_str(&row.body).ok();
        let event_id = facts
            .as_ref()
            .map(|f| f.event_id.clone())
            .unwrap_or_default();
        let (Some(seq), Some(prev), Some(hash)) = (row.chain_seq, &row.prev_hash, &row.hash) else {
            if self.seen_linked {
                self.breaks.push(Break::Unlinked { event_id });
            } else {
                self.before.push(table_seq, row, event_id, &mut self.breaks);
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
        let intact = link_hash(seq, prev, &row.body) == *hash;
        if !intact {
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
            self.cover(seq, f, intact);
        }
    }

    /// Coverage from the chain's own events: a changed event covers nothing (its break is
    /// reported above), so a forged approval cannot make an execution look covered.
    fn cover(&mut self, seq: i64, f: Facts, intact: bool) {
        match f.decision.as_str() {
            "auto" | "used" if intact => self.allowed_actions.extend(f.action_id),
            "approved" if intact => self.approved.extend(f.approval_id),
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
        self.before.finish(keys, &mut self.breaks);
        let mut prev_signature = String::new();
        let mut last_checkpoint_seq = 0;
        let mut last_checkpoint_at = None;
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
            last_checkpoint_at = chrono::DateTime::from_timestamp_micros(cp.signed_at);
        }
        Report {
            ok: self.breaks.is_empty(),
            events: self.events,
            before_chain: self.before.events,
            head_seq: self.last_seq,
            head_hash: self.last_hash,
            checkpoints: u64::try_from(checkpoints.len()).unwrap_or(u64::MAX),
            last_checkpoint_seq,
            last_checkpoint_at,
            breaks: self.breaks,
        }
    }
}

fn signed_by(cp: &Checkpoint, keys: &[VerifyingKey]) -> bool {
    signed(&cp.message(), &cp.key_id, &cp.signature, keys)
}
