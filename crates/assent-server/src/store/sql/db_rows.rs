//! Row encoding of both stores' statements: microsecond times, serde names, JSON as text, so
//! a row means the same in both backends; events and audit rows.

use assent_core::ApprovalAuditEvent;
use assent_protocol::{Event, EventEnvelope};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use sqlx::{QueryBuilder, Row};

use super::backend::{Conn, Db, DbRow};

pub use super::codec::{from_micros, micros, name_of, opt_from_micros, parse_name};
use super::StoreError;

pub fn json_col<T: DeserializeOwned>(row: &DbRow, col: &str) -> Result<T, StoreError> {
    let text: String = row.try_get(col)?;
    Ok(serde_json::from_str(&text)?)
}

/// Appends one event to the log; its id is the SSE id.
pub async fn insert_event(
    conn: &mut Conn,
    at: DateTime<Utc>,
    event: &Event,
) -> Result<i64, StoreError> {
    let body = serde_json::to_string(event)?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO events (occurred_at, kind, body) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(micros(at))
    .bind(event.name())
    .bind(body)
    .fetch_one(conn)
    .await?;
    Ok(id)
}

pub fn event_from_row(row: &DbRow) -> Result<EventEnvelope, StoreError> {
    Ok(EventEnvelope {
        id: row.try_get("id")?,
        at: from_micros(row.try_get("occurred_at")?)?,
        event: json_col(row, "body")?,
    })
}

/// Audit rows per multi-row INSERT.
pub const AUDITS_PER_INSERT: usize = 128;

/// Writes `audits`, up to [`AUDITS_PER_INSERT`] per statement, each linked into the audit
/// chain after the head: `known` when this transaction already holds it (read with its
/// batch's first statement, or left by its last append), else read here (under the writers'
/// lock either way). Returns the chain position before and after, and the new head.
pub async fn insert_audits(
    conn: &mut Conn,
    known: Option<(i64, String)>,
    audits: &[ApprovalAuditEvent],
) -> Result<(i64, i64, (i64, String)), StoreError> {
    let head = match known {
        Some(head) => head,
        None => super::chain::head(&mut *conn).await?,
    };
    let before = head.0;
    let bodies = audits
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<Vec<_>, _>>()?;
    let decisions = audits
        .iter()
        .map(|audit| name_of(&audit.decision))
        .collect::<Result<Vec<_>, _>>()?;
    let (links, head) = super::chain::link_after(head, &bodies);
    let rows: Vec<_> = audits.iter().zip(&decisions).zip(&bodies).zip(&links).collect();
    for chunk in rows.chunks(AUDITS_PER_INSERT) {
        let mut insert = QueryBuilder::<Db>::new(
            "INSERT INTO audit_events \
             (event_id, occurred_at, run_id, decision, body, chain_seq, prev_hash, hash) ",
        );
        insert.push_values(chunk, |mut v, &(((audit, decision), body), link)| {
            v.push_bind(audit.event_id.as_str())
                .push_bind(micros(audit.timestamp))
                .push_bind(audit.run_id.as_str())
                .push_bind(decision.as_str())
                .push_bind(body.as_str())
                .push_bind(link.0)
                .push_bind(link.1.as_str())
                .push_bind(link.2.as_str());
        });
        insert.build().execute(&mut *conn).await?;
    }
    Ok((before, head.0, head))
}
