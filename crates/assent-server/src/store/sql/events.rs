//! The event log as a replica's streams read it: the `events` table, and a watch of its newest
//! id that the backend moves (after its own commits; on PostgreSQL also on the other
//! replicas' notifications).

use std::sync::Arc;

use assent_protocol::{Event, EventEnvelope};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::Row;
use tokio::sync::watch;

use super::backend::{DbRow, Pool};
use super::codec::{from_micros, json_col, micros};
use super::stmt::{Returns, Stmt};
use crate::store::{EventBus, StoreError};

/// Reads the log from `pool` (SQLite's reader pool); `newest` is the watch streams wait on.
#[derive(Debug, Clone)]
pub struct Events {
    pub pool: Pool,
    pub newest: Arc<watch::Sender<i64>>,
}

#[async_trait]
impl EventBus for Events {
    fn watch(&self) -> watch::Receiver<i64> {
        self.newest.subscribe()
    }

    async fn after(&self, after: i64, limit: i64) -> Result<Vec<EventEnvelope>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, occurred_at, body FROM events WHERE id > $1 ORDER BY id LIMIT $2",
        )
        .bind(after)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn bounds(&self) -> Result<(i64, i64), StoreError> {
        bounds(&self.pool).await
    }
}

/// The oldest and newest event ids (0 when there are none); two single-aggregate queries, so
/// each is one index seek.
pub async fn bounds(pool: &Pool) -> Result<(i64, i64), StoreError> {
    let oldest: Option<i64> = sqlx::query_scalar("SELECT MIN(id) FROM events")
        .fetch_one(pool)
        .await?;
    Ok((oldest.unwrap_or(0), newest_id(pool).await?))
}

/// The newest event id (0 when there is none).
pub async fn newest_id(pool: &Pool) -> Result<i64, StoreError> {
    let newest: Option<i64> = sqlx::query_scalar("SELECT MAX(id) FROM events")
        .fetch_one(pool)
        .await?;
    Ok(newest.unwrap_or(0))
}

/// Appends one event to the log; its id is the SSE id (`RETURNING id`).
pub fn insert(at: DateTime<Utc>, event: &Event) -> Result<Stmt, StoreError> {
    let body = serde_json::to_string(event)?;
    let mut stmt =
        Stmt::new("INSERT INTO events (occurred_at, kind, body) VALUES ($1, $2, $3) RETURNING id")
            .bind(micros(at))
            .bind(event.name().to_owned())
            .bind(body);
    stmt.returns = Returns::EventId;
    Ok(stmt)
}

fn event_from_row(row: &DbRow) -> Result<EventEnvelope, StoreError> {
    Ok(EventEnvelope {
        id: row.try_get("id")?,
        at: from_micros(row.try_get("occurred_at")?)?,
        event: json_col(row, "body")?,
    })
}
