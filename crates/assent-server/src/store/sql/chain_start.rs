//! The chain's start record (`crate::audit_chain::ChainStart`): read for `verify` and
//! `export`, and written once, by the service's first start on a store without one, in a
//! write transaction (the writers' lock: replicas starting together write it once).

use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Conn, Pool};
use super::codec::micros;
use crate::audit_chain::{before_chain_hash, AuditKey, ChainStart, GENESIS};
use crate::store::StoreError;

const COLUMNS: &str = "events, last_seq, head_hash, key_id, signed_at, signature";

/// Rows from before the chain linked per page.
const PAGE: i64 = 2_000;

fn from_row(row: &super::backend::DbRow) -> Result<ChainStart, StoreError> {
    Ok(ChainStart {
        events: row.try_get("events")?,
        last_seq: row.try_get("last_seq")?,
        head_hash: row.try_get("head_hash")?,
        key_id: row.try_get("key_id")?,
        signed_at: row.try_get("signed_at")?,
        signature: row.try_get("signature")?,
    })
}

/// The record, when it was written.
pub async fn get(pool: &Pool) -> Result<Option<ChainStart>, StoreError> {
    sqlx::query(&format!("SELECT {COLUMNS} FROM audit_chain_start"))
        .fetch_optional(pool)
        .await?
        .map(|row| from_row(&row))
        .transpose()
}

/// When there is no record yet: links the rows without a link that come before the chain's
/// first (all of them when it has none; one after it was inserted by hand and stays
/// unlinked), then signs their count, last row and last hash with `key`. `None` when the
/// record was already there.
pub async fn write(
    conn: &mut Conn,
    key: &AuditKey,
    now: DateTime<Utc>,
) -> Result<Option<ChainStart>, StoreError> {
    let written = sqlx::query("SELECT 1 AS one FROM audit_chain_start")
        .fetch_optional(&mut *conn)
        .await?;
    if written.is_some() {
        return Ok(None);
    }
    let first_link: Option<i64> =
        sqlx::query("SELECT MIN(seq) AS first FROM audit_events WHERE chain_seq IS NOT NULL")
            .fetch_one(&mut *conn)
            .await?
            .try_get("first")?;
    let mut record = ChainStart {
        events: 0,
        last_seq: 0,
        head_hash: GENESIS.to_owned(),
        key_id: String::new(),
        signed_at: micros(now),
        signature: String::new(),
    };
    // From the lowest table row (a `seq` of 0 or below is possible, if unusual).
    let mut after = i64::MIN;
    loop {
        let page = sqlx::query(
            "SELECT seq, body FROM audit_events \
             WHERE chain_seq IS NULL AND seq > $1 AND seq < $2 ORDER BY seq LIMIT $3",
        )
        .bind(after)
        .bind(first_link.unwrap_or(i64::MAX))
        .bind(PAGE)
        .fetch_all(&mut *conn)
        .await?;
        if page.is_empty() {
            break;
        }
        for row in &page {
            let seq: i64 = row.try_get("seq")?;
            let body: String = row.try_get("body")?;
            let hash = before_chain_hash(&record.head_hash, &body);
            sqlx::query("UPDATE audit_events SET prev_hash = $1, hash = $2 WHERE seq = $3")
                .bind(&record.head_hash)
                .bind(&hash)
                .bind(seq)
                .execute(&mut *conn)
                .await?;
            record.head_hash = hash;
            record.last_seq = seq;
            record.events += 1;
            after = seq;
        }
    }
    let signed = key.sign_start(record);
    sqlx::query(&format!(
        "INSERT INTO audit_chain_start (id, {COLUMNS}) VALUES (1, $1, $2, $3, $4, $5, $6)"
    ))
    .bind(signed.events)
    .bind(signed.last_seq)
    .bind(&signed.head_hash)
    .bind(&signed.key_id)
    .bind(signed.signed_at)
    .bind(&signed.signature)
    .execute(conn)
    .await?;
    Ok(Some(signed))
}
