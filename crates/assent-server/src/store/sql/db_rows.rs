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

pub async fn insert_audit(conn: &mut Conn, audit: &ApprovalAuditEvent) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO audit_events (event_id, occurred_at, run_id, decision, body) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(&audit.event_id)
    .bind(micros(audit.timestamp))
    .bind(&audit.run_id)
    .bind(name_of(&audit.decision)?)
    .bind(serde_json::to_string(audit)?)
    .execute(conn)
    .await?;
    Ok(())
}

/// Audit rows per multi-row INSERT.
const AUDITS_PER_INSERT: usize = 128;

/// Writes `audits`, up to [`AUDITS_PER_INSERT`] per statement.
pub async fn insert_audits(
    conn: &mut Conn,
    audits: &[ApprovalAuditEvent],
) -> Result<(), StoreError> {
    for chunk in audits.chunks(AUDITS_PER_INSERT) {
        match chunk {
            [one] => insert_audit(conn, one).await?,
            many => insert_audit_chunk(conn, many).await?,
        }
    }
    Ok(())
}

async fn insert_audit_chunk(
    conn: &mut Conn,
    audits: &[ApprovalAuditEvent],
) -> Result<(), StoreError> {
    let mut rows = Vec::with_capacity(audits.len());
    for audit in audits {
        rows.push((
            audit.event_id.as_str(),
            micros(audit.timestamp),
            audit.run_id.as_str(),
            name_of(&audit.decision)?,
            serde_json::to_string(audit)?,
        ));
    }
    let mut insert = QueryBuilder::<Db>::new(
        "INSERT INTO audit_events (event_id, occurred_at, run_id, decision, body) ",
    );
    insert.push_values(&rows, |mut b, row| {
        b.push_bind(row.0)
            .push_bind(row.1)
            .push_bind(row.2)
            .push_bind(&row.3)
            .push_bind(&row.4);
    });
    insert.build().execute(conn).await?;
    Ok(())
}
