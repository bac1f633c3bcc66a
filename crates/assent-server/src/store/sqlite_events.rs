//! The SQLite event bus: the `events` table, and an in-process watch of its newest id that
//! a transaction moves after committing events (`SqliteTx::commit`).

use std::sync::Arc;

use assent_protocol::EventEnvelope;
use async_trait::async_trait;
use sqlx::SqlitePool;
use tokio::sync::watch;

use super::sqlite_sql::db_rows::event_from_row;
use super::{EventBus, StoreError};

/// Reads the log from the reader pool; moves the watch after commits.
#[derive(Debug, Clone)]
pub struct SqliteEvents {
    pub reader: SqlitePool,
    pub newest: Arc<watch::Sender<i64>>,
}

#[async_trait]
impl EventBus for SqliteEvents {
    fn watch(&self) -> watch::Receiver<i64> {
        self.newest.subscribe()
    }

    async fn after(&self, after: i64, limit: i64) -> Result<Vec<EventEnvelope>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, occurred_at, body FROM events WHERE id > ? ORDER BY id LIMIT ?",
        )
        .bind(after)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn bounds(&self) -> Result<(i64, i64), StoreError> {
        bounds(&self.reader).await
    }
}

/// The oldest and newest event ids; two single-aggregate queries, so each is one index seek.
pub async fn bounds(pool: &SqlitePool) -> Result<(i64, i64), StoreError> {
    let oldest: Option<i64> = sqlx::query_scalar("SELECT MIN(id) FROM events")
        .fetch_one(pool)
        .await?;
    Ok((oldest.unwrap_or(0), newest_id(pool).await?))
}

/// The newest event id (0 when there is none).
pub async fn newest_id(pool: &SqlitePool) -> Result<i64, StoreError> {
    let newest: Option<i64> = sqlx::query_scalar("SELECT MAX(id) FROM events")
        .fetch_one(pool)
        .await?;
    Ok(newest.unwrap_or(0))
}
