//! The audit chain's rows (`crate::audit_chain`): audit records appended, each linked after the
//! head read inside the write transaction that appends (the writers' lock serializes it: one
//! chain per store, however many replicas), pages of rows in append order for `verify` and
//! `export`, and checkpoints.

use assent_core::ApprovalAuditEvent;
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Conn, DbRow, Pool};
use super::codec::{micros, name_of};
use super::stmt::Stmt;
use crate::audit_chain::{link_hash, AuditKey, ChainRow, Checkpoint, GENESIS};
use crate::store::StoreError;

/// The last link: its position and hash (0 and [`GENESIS`] before the first).
pub async fn head(conn: &mut Conn) -> Result<(i64, String), StoreError> {
    let rows = head_read().fetch_all(conn).await?;
    head_answered(&rows)
}

/// The read of the last link ([`head_answered`]).
pub fn head_read() -> Stmt {
    let mut query = Stmt::new("SELECT ");
    push_head(&mut query);
    query
}

/// The last link, as [`head_read`] answered it.
pub fn head_answered(rows: &[DbRow]) -> Result<(i64, String), StoreError> {
    match rows {
        [row] => head_of(row),
        _ => Err(StoreError::Corrupt(format!(
            "the audit chain's head read answered {} rows",
            rows.len()
        ))),
    }
}

/// Pushes the last link's position and hash as the columns `head_seq` and `head_hash` (two
/// index seeks; NULL before the first link), for [`head`] and a batch's first read.
pub fn push_head(query: &mut Stmt) {
    query.push(
        "(SELECT chain_seq FROM audit_events WHERE chain_seq IS NOT NULL \
         ORDER BY chain_seq DESC LIMIT 1) AS head_seq, \
         (SELECT hash FROM audit_events WHERE chain_seq IS NOT NULL \
         ORDER BY chain_seq DESC LIMIT 1) AS head_hash",
    );
}

/// The head a row's `head_seq` and `head_hash` ([`push_head`]) name.
pub fn head_of(row: &DbRow) -> Result<(i64, String), StoreError> {
    let seq: Option<i64> = row.try_get("head_seq")?;
    let hash: Option<String> = row.try_get("head_hash")?;
    match (seq, hash) {
        (Some(seq), Some(hash)) => Ok((seq, hash)),
        (None, None) => Ok((0, GENESIS.to_owned())),
        _ => Err(StoreError::Corrupt(
            "the audit chain's last link has a position without a hash".to_owned(),
        )),
    }
}

/// A link of the chain: `(chain_seq, prev_hash, hash)`.
pub type Link = (i64, String, String);

/// The links of `bodies` appended after `head` and the head they leave.
pub fn link_after(head: (i64, String), bodies: &[String]) -> (Vec<Link>, (i64, String)) {
    let (mut seq, mut prev) = head;
    let mut out = Vec::with_capacity(bodies.len());
    for body in bodies {
        seq += 1;
        let hash = link_hash(seq, &prev, body);
        out.push((seq, std::mem::replace(&mut prev, hash.clone()), hash));
    }
    (out, (seq, prev))
}

/// Up to `limit` audit rows after table row `after`, in append order, with their row ids.
pub async fn page(pool: &Pool, after: i64, limit: i64) -> Result<Vec<(i64, ChainRow)>, StoreError> {
    let rows = sqlx::query(
        "SELECT seq, chain_seq, prev_hash, hash, body FROM audit_events \
         WHERE seq > $1 ORDER BY seq LIMIT $2",
    )
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get("seq")?,
                ChainRow {
                    chain_seq: row.try_get("chain_seq")?,
                    prev_hash: row.try_get("prev_hash")?,
                    hash: row.try_get("hash")?,
                    body: row.try_get("body")?,
                },
            ))
        })
        .collect()
}

const CHECKPOINT_COLUMNS: &str =
    "id, chain_seq, head_hash, prev_signature, key_id, signed_at, signature";

fn checkpoint_from_row(row: &DbRow) -> Result<Checkpoint, StoreError> {
    Ok(Checkpoint {
        id: row.try_get("id")?,
        chain_seq: row.try_get("chain_seq")?,
        head_hash: row.try_get("head_hash")?,
        prev_signature: row.try_get("prev_signature")?,
        key_id: row.try_get("key_id")?,
        signed_at: row.try_get("signed_at")?,
        signature: row.try_get("signature")?,
    })
}

/// Every checkpoint, in id order (few: one per interval).
pub async fn checkpoints(pool: &Pool) -> Result<Vec<Checkpoint>, StoreError> {
    let rows = sqlx::query(&format!(
        "SELECT {CHECKPOINT_COLUMNS} FROM audit_checkpoints ORDER BY id"
    ))
    .fetch_all(pool)
    .await?;
    rows.iter().map(checkpoint_from_row).collect()
}

/// Signs the head with `key` when it moved since the last checkpoint (or there is none yet);
/// `None` when there was nothing new to sign.
pub async fn checkpoint(
    conn: &mut Conn,
    key: &AuditKey,
    now: DateTime<Utc>,
) -> Result<Option<Checkpoint>, StoreError> {
    let (chain_seq, head_hash) = head(&mut *conn).await?;
    let last = sqlx::query(&format!(
        "SELECT {CHECKPOINT_COLUMNS} FROM audit_checkpoints ORDER BY id DESC LIMIT 1"
    ))
    .fetch_optional(&mut *conn)
    .await?
    .map(|row| checkpoint_from_row(&row))
    .transpose()?;
    if last.as_ref().is_some_and(|l| l.chain_seq == chain_seq) {
        return Ok(None);
    }
    let signed = key.sign(Checkpoint {
        id: last.as_ref().map_or(1, |l| l.id + 1),
        chain_seq,
        head_hash,
        prev_signature: last.map(|l| l.signature).unwrap_or_default(),
        key_id: String::new(),
        signed_at: micros(now),
        signature: String::new(),
    });
    sqlx::query(&format!(
        "INSERT INTO audit_checkpoints ({CHECKPOINT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)"
    ))
    .bind(signed.id)
    .bind(signed.chain_seq)
    .bind(&signed.head_hash)
    .bind(&signed.prev_signature)
    .bind(&signed.key_id)
    .bind(signed.signed_at)
    .bind(&signed.signature)
    .execute(conn)
    .await?;
    Ok(Some(signed))
}

/// Audit rows per multi-row INSERT.
pub const AUDITS_PER_INSERT: usize = 128;

/// The statements that append `audits` after `head`, up to [`AUDITS_PER_INSERT`] per
/// statement, each linked into the audit chain; and the head they leave. The head is the
/// transaction's own (read under the writers' lock, or left by its last append).
pub fn audit_inserts(
    head: (i64, String),
    audits: &[ApprovalAuditEvent],
) -> Result<(Vec<Stmt>, (i64, String)), StoreError> {
    let bodies = audits
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<Vec<_>, _>>()?;
    let decisions = audits
        .iter()
        .map(|audit| name_of(&audit.decision))
        .collect::<Result<Vec<_>, _>>()?;
    let (links, head) = link_after(head, &bodies);
    let rows: Vec<_> = audits
        .iter()
        .zip(decisions)
        .zip(bodies)
        .zip(links)
        .collect();
    let mut stmts = Vec::new();
    for chunk in rows.chunks(AUDITS_PER_INSERT) {
        let mut insert = Stmt::new(
            "INSERT INTO audit_events \
             (event_id, occurred_at, run_id, decision, body, chain_seq, prev_hash, hash) VALUES ",
        );
        for (i, (((audit, decision), body), link)) in chunk.iter().enumerate() {
            insert.push_row(i == 0, |row| {
                row.bind(audit.event_id.clone())
                    .bind(micros(audit.timestamp))
                    .bind(audit.run_id.clone())
                    .bind(decision.clone())
                    .bind(body.clone())
                    .bind(link.0)
                    .bind(link.1.clone())
                    .bind(link.2.clone());
            });
        }
        stmts.push(insert);
    }
    Ok((stmts, head))
}
